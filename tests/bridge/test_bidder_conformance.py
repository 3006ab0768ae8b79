"""Every registered bidder passes `bidder_conformance` (tests/bridge/bidder_conformance.py)
through both entry points of the one interface, and `auctions_from_observations` rebuilds, for
any position, an auction showing exactly its observation."""

import os

import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.bidders import jps_paper
from ospiel_team.bridge.agents.bidders import rule_based
from tests import repo as tests_repo
from tests.bridge.bidder_conformance import bidder_conformance

REF_DIR = os.environ.get("JPS_REFERENCE_DIR",
                         os.path.join(tests_repo.REPO, "..", "shared", "jps_reference"))


def _registered(name):
  """`name` of `bidders.bidder_names()` as a test case (the authors' models need their files)."""
  if name not in jps_paper.REFERENCE_MODELS:
    return name
  try:
    jps_paper.model_file(name, REF_DIR)
  except ValueError:
    return pytest.param(name, marks=pytest.mark.skip(reason=f"{name}: no file in {REF_DIR}"))
  return pytest.param(name, marks=pytest.mark.slow)


# Every registered name (built-in, shipped, the authors' models where their files are), a
# model file (JPSBid, from its experiment's folder) and, under the slow marker (DDS on every
# call: minutes), the play-time search bidder.
NAMES = [_registered(n) for n in bidders.bidder_names()] + [
    os.path.join(tests_repo.REPO, "experiments", "bridge_jpsbid", "models", "a2c_jpsbid.npz"),
    pytest.param("search:best?k=2", marks=pytest.mark.slow)]


def test_every_registered_bidder_is_tested():
  assert {"pass", "random", "natural", "a2c", "best", "jps_paper_0.63"} <= set(
      bidders.bidder_names())


@pytest.mark.parametrize("name", NAMES)
def test_bidder_conforms(name):
  bidder = bidders.make_bidder(name, reference_dir=REF_DIR)
  assert isinstance(bidder, bidders.Bidder)
  every = 4 if name.startswith("search:") else 1  # `act` searches as often as `act_auction`
  assert bidder_conformance(bidder, tables=8, observations_every=every) >= 8 * 4


def test_a_bidder_that_breaks_the_contract_fails():
  class Illegal(bidders.ObservationBidder):
    name = "illegal"

    def act(self, observations, uniforms):
      legal = rule_based.legal_calls(observations)
      return np.argmin(legal, axis=1)  # an illegal call wherever one exists

  with pytest.raises(AssertionError, match="illegal call"):
    bidder_conformance(Illegal(), tables=4)

  class Unstable(bidders.ObservationBidder):
    name = "unstable"
    rng = np.random.default_rng(0)

    def act(self, observations, uniforms):
      return rule_based.sample_legal(rule_based.legal_calls(observations),
                                     self.rng.random(len(uniforms)))

  with pytest.raises(AssertionError, match="other calls|differ"):
    bidder_conformance(Unstable(), tables=4)

  class OnlyAct:  # the right method, but not the interface
    name = "only_act"

    def act(self, observations, uniforms):
      return np.zeros(len(observations), np.int64)

  with pytest.raises(AssertionError, match="not a bidders.Bidder"):
    bidder_conformance(OnlyAct(), tables=4)
  with pytest.raises(TypeError, match="abstract"):
    bidders.Bidder()  # neither entry point implemented


def _play(calls, dealer=0, vul=0, uncontested=False):
  a = A.Auctions([dealer], [vul], uncontested=uncontested)
  for c in calls:
    a.apply([A.string_to_call(c)])
  return a


def test_the_rebuilt_auction_is_the_shortest_that_shows_the_observation():
  # (auction, its dealer, vulnerability; the auction rebuilt, dealt by its first bidder, with
  # North to call): worked out by hand from the rules.
  cases = [
      ("P P 1C P 1H P", 2, 1, "1C P 1H P"),     # S deals; N's 1C, S's 1H: N's turn again
      ("1D X P P", 0, 3, "1D X P P"),           # N may redouble: the double is E's or W's
      ("1D P P X", 0, 2, "1D X P P"),           # the same observation
      ("1S X XX P", 0, 0, "1S X XX P"),         # redoubled: no double nor redouble for N
      ("P 1H X P P 2C P P", 3, 0, "1H X P P 2C P P"),  # W's 1H doubled, then N's 2C
  ]
  for calls, dealer, vul, want in cases:
    a = _play(calls.split(), dealer, vul)
    holders = (np.repeat(np.arange(4, dtype=np.uint8), 13) + int(a.current_player[0])) % 4
    h = A.hands_onehot(holders[None])  # the seat to call holds cards 0..12
    obs = a.observation(h)
    rebuilt, rebuilt_hands = bidders.auctions_from_observations(obs)
    assert rebuilt.auction_strings(0) == [A.call_string(A.string_to_call(c))
                                          for c in want.split()], calls
    assert int(rebuilt.current_player[0]) == 0 and int(rebuilt.vulnerability[0]) == vul
    np.testing.assert_array_equal(rebuilt.observation(rebuilt_hands), obs)
  # East-West to call in an uncontested auction: only Pass is legal though bids are left.
  a = _play(["1C"], dealer=0, uncontested=True)
  obs = a.observation(A.hands_onehot(np.repeat(np.arange(4, dtype=np.uint8), 13)[None]))
  rebuilt, _ = bidders.auctions_from_observations(obs)
  assert rebuilt.uncontested and int(rebuilt.current_player[0]) == 1


def test_every_position_of_random_auctions_is_rebuilt():
  # Random legal calls (doubles and redoubles included, which the observation hides the
  # seats of) at every seat of 64 tables: each observation has a rebuilt auction (the
  # function checks that the rebuilt observation equals the given one, bit for bit).
  rng = np.random.default_rng(4)
  eng = engine_lib.BiddingEngine()
  eng.reset_random(rng, 64)
  rand, positions = rule_based.RandomBidder(), 0
  while not eng.done.all():
    rows = np.flatnonzero(~eng.done)
    obs = eng.observation()[rows]
    rebuilt, hands = bidders.auctions_from_observations(obs)
    np.testing.assert_array_equal(rebuilt.observation(hands), obs)
    positions += len(rows)
    calls = np.zeros(64, np.int64)
    calls[rows] = rand.act(obs, rng.random(len(rows)))
    eng.step(calls)
  assert positions > 64 * 4
  with pytest.raises(ValueError, match="row 0 has no legal call"):
    bidders.auctions_from_observations(np.zeros((1, A.OBSERVATION_SIZE)))


def test_an_uncontested_batch_is_rebuilt_uncontested():
  # North-South and East-West seats to call of one uncontested engine, in one batch.
  eng = engine_lib.BiddingEngine(uncontested=True)
  eng.reset(np.arange(8), dealer=0, vulnerability=0)
  eng.step(np.full(8, A.string_to_call("1C")))  # North opens; East to call: only Pass
  east = eng.observation()
  eng.step(np.zeros(8, np.int64))                # East passes; South to call
  rebuilt, hands = bidders.auctions_from_observations(np.concatenate([east, eng.observation()]))
  assert rebuilt.uncontested
  assert rebuilt.current_player.tolist() == [1] * 8 + [0] * 8
  np.testing.assert_array_equal(rebuilt.observation(hands),
                                np.concatenate([east, eng.observation()]))
