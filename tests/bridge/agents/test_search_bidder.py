"""The play-time search bidder (`search:<model>`).

Independent facts used: the duplicate scores and IMPs of the crafted contracts, worked out by
hand from the Laws (written as numbers below, not computed by the package); the posterior of
who holds a card after a call, by Bayes' rule by hand; the importance weight of a deal as the
product of a stub policy's probabilities, computed from the hands directly (not through
observations); a bidder playing itself at both tables of a duplicate board scores 0.
"""

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.search import search_bidder as sb
from ospiel_team.errors import UserError
from tests import repo as tests_repo

CLUB2 = 0            # card = rank * 4 + suit: 2 of clubs
SPADE_ACE = 12 * 4 + 3
HEART_ACE = 12 * 4 + 2
N, E, S, W = range(4)


def _bid(level, strain):
  return A.FIRST_BID + (level - 1) * A.NUM_STRAINS + strain


def _position(dealer, vul, calls):
  """A one-table auction after `calls`, and a deal where N holds cards 0..12 (the clubs 2)."""
  holders = np.repeat(np.arange(4, dtype=np.uint8), 13)
  auction = A.Auctions([dealer], [vul])
  for c in calls:
    auction.apply([c])
  return auction, A.hands_onehot(holders[None])


def _opening_stub(p_pass_with_ace):
  """Stub policy: N (holds the clubs 2) at its first call: 2S .5, 4S .3, Pass .2; another seat
  before any bid: Pass with probability `p_pass_with_ace` if it holds the spade ace, else
  1 - that (1C otherwise); after a bid everybody passes."""
  def policy(obs):
    obs = np.asarray(obs) > 0.5
    hand, any_bid = obs[:, :52], obs[:, A.OBS_BIDS:A.OBS_DOUBLED].any(axis=1)
    p = np.zeros((len(obs), A.NUM_CALLS))
    north = hand[:, CLUB2] & ~any_bid
    other = ~hand[:, CLUB2] & ~any_bid
    p[north, _bid(2, 3)], p[north, _bid(4, 3)], p[north, A.PASS] = 0.5, 0.3, 0.2
    q = np.where(hand[:, SPADE_ACE], p_pass_with_ace, 1 - p_pass_with_ace)
    p[other, A.PASS], p[other, _bid(1, 0)] = q[other], 1 - q[other]
    p[any_bid, A.PASS] = 1.0
    return p, None
  return policy


def _spade_table(holders):
  """Stub DD: N-S take 10 tricks in spades when S holds the spade ace, else 8; 7 elsewhere."""
  t = np.full((len(holders), 5, 4), 7, np.uint8)
  ns = np.where(np.asarray(holders)[:, SPADE_ACE] == S, 10, 8)
  t[:, 3, N], t[:, 3, S] = ns, ns
  return t


# --- (a) the chosen call against exact enumeration --------------------------------------------
def test_choice_equals_exact_enumeration_of_the_posterior():
  # W deals (N-S vulnerable) and passes; N holds no spade ace. N's policy candidates: 2S, 4S.
  # By hand (N-S vulnerable): 2S with 10 tricks +170, with 8 tricks +110; 4S with 10 tricks
  # +620, with 8 tricks -200. 4S against 2S: +450 = +10 IMPs, or -310 = -7 IMPs.
  # A priori S holds the spade ace with probability 1/3: 4S is worth 10/3 - 14/3 = -4/3 IMPs.
  # W passes with probability .1 holding it, .9 without: P(S holds it | W passed) =
  # .9 / (.1 + .9 + .9) = 9/19, so 4S is worth (90 - 70) / 19 = 20/19 IMPs: bid 4S.
  auction, hands = _position(W, 1, [A.PASS])
  opts = sb.SearchBidderOptions(k=4000, m=2, candidate_floor=0.9, pool=20000, min_ess=1,
                                tremble=0.0, seed=3)
  bidder = sb.SearchBidder(_opening_stub(0.1), opts, dd_fn=_spade_table)
  call = bidder.act_auction(auction, hands, [0], np.array([0.25]))
  d = bidder.last_decisions[0]
  assert d.reason == "searched" and d.candidates == (_bid(2, 3), _bid(4, 3))
  assert int(call[0]) == _bid(4, 3) == d.call
  assert d.values[0] == 0.0
  assert abs(d.values[1] - 20 / 19) < 0.4  # s.e. of the 4000-draw estimate is about 0.13
  # A gain of about 8 standard errors passes min_z = 4, not min_z = 20.
  for min_z, want in ((4.0, _bid(4, 3)), (20.0, _bid(2, 3))):
    strict = sb.SearchBidder(_opening_stub(0.1), dataclasses.replace(opts, min_z=min_z),
                             dd_fn=_spade_table)
    assert int(strict.act_auction(auction, hands, [0], np.array([0.25]))[0]) == want
  # Without information in W's pass (the same probability either way) the prior decides: 2S.
  bidder = sb.SearchBidder(_opening_stub(0.5), opts, dd_fn=_spade_table)
  call = bidder.act_auction(auction, hands, [0], np.array([0.25]))
  assert int(call[0]) == _bid(2, 3)
  assert abs(bidder.last_decisions[0].values[1] - (-4 / 3)) < 0.4


def test_deal_independent_values_are_exact():
  # Every deal scores alike: N-S take 9 tricks in clubs, 10 in spades, 8 in NT (N declaring,
  # nobody vulnerable). N deals; candidates 1C (the policy's), 1S, 1NT. By hand: 1C+2 = 110,
  # 1S+3 = 170, 1NT+1 = 120; against 1C: +60 = 2 IMPs, +10 = 0 IMPs. Bid 1S.
  def policy(obs):
    obs = np.asarray(obs) > 0.5
    any_bid = obs[:, A.OBS_BIDS:A.OBS_DOUBLED].any(axis=1)
    p = np.zeros((len(obs), A.NUM_CALLS))
    p[~any_bid, _bid(1, 0)], p[~any_bid, _bid(1, 3)], p[~any_bid, _bid(1, 4)] = .5, .3, .2
    p[any_bid, A.PASS] = 1.0
    return p, None

  def table(holders):
    t = np.full((len(holders), 5, 4), 6, np.uint8)
    t[:, 0, [N, S]], t[:, 3, [N, S]], t[:, 4, [N, S]] = 9, 10, 8
    return t

  auction, hands = _position(N, 0, [])
  bidder = sb.SearchBidder(policy, sb.SearchBidderOptions(k=5, pool=5, min_ess=1),
                           dd_fn=table)
  call = bidder.act_auction(auction, hands, [0], np.array([0.5]))
  d = bidder.last_decisions[0]
  assert d.candidates == (_bid(1, 0), _bid(1, 3), _bid(1, 4))
  assert d.values == pytest.approx((0.0, 2.0, 0.0))
  assert int(call[0]) == _bid(1, 3)
  reward_points = sb.SearchBidder(policy, sb.SearchBidderOptions(
      k=5, pool=5, min_ess=1, reward="score"), dd_fn=table)
  reward_points.act_auction(auction, hands, [0], np.array([0.5]))
  assert reward_points.last_decisions[0].values == pytest.approx((0.0, 60.0, 10.0))


# --- (b) sampled deals ---------------------------------------------------------------------
def test_dealt_hands_keep_the_own_hand_and_deal_the_rest_fairly():
  rng = np.random.default_rng(0)
  own = np.zeros(52, bool)
  own[rng.choice(52, 13, replace=False)] = True
  holders = sb.deal_hidden_hands(own, E, 6000, rng)
  assert np.all(holders[:, own] == E)
  assert not np.any(holders[:, ~own] == E)
  for seat in range(4):
    assert np.all((holders == seat).sum(axis=1) == 13)
  # Each unseen card goes to each other seat a third of the time (s.e. about 0.006).
  for seat in (N, S, W):
    assert np.all(np.abs((holders[:, ~own] == seat).mean(axis=0) - 1 / 3) < 0.04)


def test_solved_deals_obey_hard_constraints_and_ignore_hidden_hands():
  # W's pass is impossible without the spade ace (tremble 0): every deal solved gives it to
  # W, N's 13 cards stay N's, and the other hands the engine holds are never read.
  solved = []

  def table(holders):
    solved.append(np.array(holders))
    return _spade_table(holders)

  auction, hands = _position(W, 1, [A.PASS])
  opts = sb.SearchBidderOptions(k=64, m=2, pool=512, min_ess=1, tremble=0.0, seed=5)
  b1 = sb.SearchBidder(_opening_stub(1.0), opts, dd_fn=table)
  c1 = b1.act_auction(auction, hands, [0], np.array([0.7]))
  deals = solved.pop()
  assert b1.last_decisions[0].reason == "searched" and len(deals) > 10
  assert np.all(deals[:, :13] == N) and np.all(deals[:, 13:] != N)
  assert np.all(deals[:, SPADE_ACE] == W)
  for seat in range(4):
    assert np.all((deals == seat).sum(axis=1) == 13)
  # The same call and the same deals when the hidden hands of the engine are others.
  other = hands.copy()
  other[0, [E, S, W]] = other[0, [W, E, S]]
  b2 = sb.SearchBidder(_opening_stub(1.0), opts, dd_fn=table)
  c2 = b2.act_auction(auction, other, [0], np.array([0.7]))
  np.testing.assert_array_equal(c1, c2)
  np.testing.assert_array_equal(deals, solved.pop())


# --- (c) importance weights ----------------------------------------------------------------
def _weights_stub(obs):
  """Before any bid: Pass .1 / 1C .9 holding the spade ace, else .9 / .1; after a bid: Pass
  .3 / 1D .7 holding the heart ace, else .7 / .3."""
  obs = np.asarray(obs) > 0.5
  hand, any_bid = obs[:, :52], obs[:, A.OBS_BIDS:A.OBS_DOUBLED].any(axis=1)
  p = np.zeros((len(obs), A.NUM_CALLS))
  q = np.where(hand[:, SPADE_ACE], 0.1, 0.9)
  p[~any_bid, A.PASS], p[~any_bid, _bid(1, 0)] = q[~any_bid], 1 - q[~any_bid]
  r = np.where(hand[:, HEART_ACE], 0.3, 0.7)
  p[any_bid, A.PASS], p[any_bid, _bid(1, 1)] = r[any_bid], 1 - r[any_bid]
  return p, None


@pytest.mark.parametrize("tremble", [0.0, 0.2])
def test_weights_are_products_of_the_observed_calls_probabilities(tremble):
  # E deals: E Pass, S 1C, W Pass, N to call. Each seat had 36 legal calls (E, S: Pass and
  # the 35 bids; W: Pass, Double and the 34 bids above 1C).
  auction, _ = _position(E, 0, [A.PASS, _bid(1, 0), A.PASS])
  own = np.zeros(52, bool)
  own[:13] = True
  holders = sb.deal_hidden_hands(own, N, 300, np.random.default_rng(1))
  _, logw = sb.observed_call_log_weights(_weights_stub, auction, 0, N, holders, tremble=tremble)
  f_e = np.where(holders[:, SPADE_ACE] == E, 0.1, 0.9)
  f_s = np.where(holders[:, SPADE_ACE] == S, 0.9, 0.1)
  f_w = np.where(holders[:, HEART_ACE] == W, 0.3, 0.7)
  mix = [(1 - tremble) * f + tremble / 36 for f in (f_e, f_s, f_w)]
  np.testing.assert_allclose(np.exp(logw), mix[0] * mix[1] * mix[2], rtol=1e-12)
  assert len(np.unique(np.round(logw, 9))) > 2  # the deals do differ in weight


def test_effective_sample_size():
  assert sb.effective_sample_size(np.zeros(10)) == pytest.approx(10.0)
  assert sb.effective_sample_size(np.array([0.0, 0.0, -np.inf, -np.inf])) == pytest.approx(2.0)
  assert sb.effective_sample_size(np.full(3, -np.inf)) == 0.0


def test_thin_evidence_and_single_candidate_play_the_policy_call():
  auction, hands = _position(W, 1, [A.PASS])
  b = sb.SearchBidder(_opening_stub(0.1), sb.SearchBidderOptions(
      k=8, m=2, pool=64, min_ess=64, tremble=0.0), dd_fn=_spade_table)
  assert int(b.act_auction(auction, hands, [0], np.array([0.1]))[0]) == _bid(2, 3)
  assert b.last_decisions[0].reason == "low_ess" and b.stats.low_ess == 1
  b = sb.SearchBidder(_opening_stub(0.1), sb.SearchBidderOptions(
      k=8, m=1, candidate_floor=1.0, pool=64), dd_fn=_spade_table)
  assert int(b.act_auction(auction, hands, [0], np.array([0.1]))[0]) == _bid(2, 3)
  assert b.last_decisions[0].reason == "one_candidate"


# --- options and the spec ------------------------------------------------------------------
def test_options_from_the_spec():
  assert sb.SearchBidderOptions.from_query("") == sb.SearchBidderOptions()
  o = sb.SearchBidderOptions.from_query("k=8&m=2&rollout=sample&tremble=0")
  assert (o.k, o.m, o.rollout, o.tremble) == (8, 2, "sample", 0.0)
  for bad in ("k=0", "q=1", "k=x", "k=2&k=3", "rollout=best", "pool=4&k=8", "k"):
    with pytest.raises(UserError):
      sb.SearchBidderOptions.from_query(bad)
  with pytest.raises(UserError):
    sb.SearchBidderOptions(k=True)
  b = bidders.make_bidder("search:best?k=4&pool=64")
  assert isinstance(b, sb.SearchBidder) and b.name == "search:best?k=4&pool=64"
  assert (b.options.k, b.options.pool) == (4, 64)
  for bad in ("search:", "search:jps_paper_0.63", "search:no_such_model", "search:best?z=1"):
    with pytest.raises(ValueError):
      bidders.make_bidder(bad)
  with pytest.raises(ValueError, match="no legal call"):  # not the observation of a seat to call
    b.act(np.zeros((1, A.OBSERVATION_SIZE)), np.zeros(1))


def test_act_from_observations_searches_the_auction_they_show():
  # N deals and opens 1C, E passes, S bids 1H, W passes: North to call. That is the shortest
  # auction showing North its observation, the one `act` rebuilds, so `act` on the observation
  # calls as `act_auction` on the auction itself (the same search, the same random numbers).
  def pass_first(obs):  # Pass 3/(k+2), each other legal call 1/(k+2): two candidates
    p = (np.asarray(obs)[:, A.OBS_LEGAL:] > 0.5).astype(float)
    p[:, A.PASS] += 2.0
    return p / p.sum(axis=1, keepdims=True), None

  auction, hands = _position(N, 0, [_bid(1, 0), A.PASS, _bid(1, 2), A.PASS])
  b = sb.SearchBidder(pass_first, sb.SearchBidderOptions(k=8, m=2, candidate_floor=0.5,
                                                         pool=64, min_ess=0),
                      dd_fn=_spade_table)
  u = np.array([0.3])
  want = int(b.act_auction(auction, hands, [0], u)[0])
  assert b.last_decisions[0].reason == "searched"
  assert int(b.act(auction.observation(hands), u)[0]) == want
  assert b.last_decisions[0].reason == "searched"


# --- (d) matches -----------------------------------------------------------------------------
def test_search_bidder_against_itself_scores_zero():
  # Its random numbers come from the match's uniforms, equal at both tables of a board.
  b = bidders.make_bidder("search:best?k=4&pool=128")
  b.dd_fn = lambda h: np.asarray(h, np.uint8)[:, :20].reshape(-1, 5, 4) % 14
  r = match.run_match(b, b, 3, dataset="heldout", seed=2, progress=False)
  assert np.all(r.imps == 0) and r.auctions_table1 == r.auctions_table2
  assert b.stats.searched > 0


def test_match_command_plays_the_search_bidder(tmp_path):
  out = tmp_path / "m"
  spec = "search:best?k=2&pool=64"
  res = subprocess.run([sys.executable, "-m", "ospiel_team.cli.match", "--bidder_a", spec,
                        "--bidder_b", "best", "--boards", "2", "--out", str(out)],
                       cwd=tests_repo.REPO, text=True, capture_output=True, timeout=600)
  assert res.returncode == 0, res.stderr
  data = json.loads((out / "match.json").read_text())
  assert data["summary"]["boards"] == 2 and data["summary"]["bidder_a"] == spec
  assert all(b["table1_contract"] and b["table2_contract"] for b in data["boards"])
