"""The pyspiel bot wrapper plays bridge_bidding exactly as the duplicate-match engine does."""
import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots

import ospiel_team  # noqa: F401  (registers bridge_bidding)
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import bot as bot_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import match as match_lib


@pytest.mark.parametrize("name", ["best", "natural"])
def test_bots_reach_the_engines_scores(name):
  game = pyspiel.load_game("bridge_bidding")
  bidder = bidders_lib.make_bidder(name)
  eng = engine_lib.BiddingEngine()
  for deal in (0, 7, 123):
    state = game.new_initial_state()
    state.apply_action(deal)  # the deal chance node: deal i of the shipped dataset
    bots = [bot_lib.BidderBot(bidder, seat) for seat in range(4)]
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))
    eng.reset(np.array([deal]), dealer=0, vulnerability=0)  # dealer N, nobody vulnerable
    match_lib.play_tables(eng, [bidder], [bidder], rng=np.random.default_rng(0))
    assert returns[0] == eng.ns_score()[0] == -returns[1]


def test_best_names_a_shipped_model_and_bad_seat_is_refused():
  assert model_bidder.SHIPPED_MODELS["best"] in model_bidder.SHIPPED_MODELS.values()
  with pytest.raises(ValueError, match="player_id"):
    bot_lib.load_bot("natural", player_id=4)
  with pytest.raises(ValueError, match="unknown bidder"):
    bot_lib.load_bot("no_such_bidder")


def test_bot_refuses_to_act_for_another_seat():
  game = pyspiel.load_game("bridge_bidding")
  state = game.new_initial_state()
  state.apply_action(0)
  with pytest.raises(ValueError, match="seat 1 asked to act at seat 0"):
    bot_lib.load_bot("natural", player_id=1).step(state)


def test_an_auction_bidder_plays_with_the_auction_and_its_own_hand_only():
  natural = bidders_lib.NaturalBidder()

  class Spy(bidders_lib.AuctionBidder):  # bids as `natural` from the auction it is given
    name, seen = "spy", []

    def act_auction(self, auctions, hands, rows, uniforms):
      seat = int(auctions.current_player[rows[0]])
      others = np.delete(np.asarray(hands)[rows[0]], seat, axis=0)
      self.seen.append((int(auctions.num_calls[rows[0]]), bool(others.any()),
                        int(hands[rows[0], seat].sum())))
      return natural.act(auctions.take(rows).observation(hands[rows]), uniforms)

  game = pyspiel.load_game("bridge_bidding")
  results = []
  for bidder in (Spy(), natural):
    state = game.new_initial_state()
    state.apply_action(7)
    bots = [bot_lib.BidderBot(bidder, seat) for seat in range(4)]
    results.append(evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0)))
  assert results[0] == results[1]
  # One call per turn, in order, each seeing the whole auction so far and 13 cards: its own.
  assert [n for n, _, _ in Spy.seen] == list(range(len(Spy.seen))) and len(Spy.seen) >= 4
  assert all(not others and cards == 13 for _, others, cards in Spy.seen)


def test_bot_refuses_what_is_not_a_bidder():
  class OnlyAct:
    name = "only_act"

    def act(self, observations, uniforms):
      return np.zeros(len(observations), np.int64)

  with pytest.raises(ValueError, match="bidder must be a bidder"):
    bot_lib.BidderBot(OnlyAct(), 0)
