"""The JPSBid search's budget options: valid candidates only, the authors' budget, 1-search.

A hand-built auction where the best joint change is known by hand (scores from
`scoring.contract_score`, not from the search), and the cheap layout against the padded one.
"""
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import jps_bid
from ospiel_team.errors import UserError

_C = A.string_to_call
_N, _S = 0, 2
_NT, _SPADES, _HEARTS = 4, 3, 2


def _deal():
  """Deal 0's cards; South makes 7 tricks in hearts and 12 in spades, North 8 in spades and
  9 in NT (6 everywhere else)."""
  holders = dataset_lib.load_dataset().holders[:1]
  tricks = np.full((1, 5, 4), 6, np.uint8)
  tricks[0, _HEARTS, _S] = 7
  tricks[0, _SPADES, _S] = 12
  tricks[0, _SPADES, _N] = 8
  tricks[0, _NT, _N] = 9
  return dataset_lib.BridgeDataset(holders, tricks)


def _root(ds, copies=1):
  """Dealer North, none vulnerable, after 1C (N) Pass (E) 1H (S) Pass (W): North to call."""
  eng = engine_lib.BiddingEngine(ds)
  eng.reset(np.zeros(copies, np.int64), dealer=0, vulnerability=0)
  for call in ("1C", "Pass", "1H", "Pass"):
    eng.step(np.full(copies, _C(call)))
  return eng


_NORTH_MIX = {A.PASS: 0.5, _C("1NT"): 0.3, _C("2S"): 0.2}
_SOUTH_MIX = {A.PASS: 0.6, _C("6S"): 0.4}


def _policy(holders):
  """sigma: North at the root mixes Pass / 1NT / 2S (0.5 / 0.3 / 0.2); South, wherever 6S is
  legal, mixes Pass / 6S (0.6 / 0.4); every other call is a pass."""
  hands = A.hands_onehot(holders)[0]

  def policy(obs):
    obs = np.asarray(obs)
    seat = np.array([int(np.flatnonzero((hands == (o[:52] > 0.5)).all(axis=1))[0])
                     for o in obs])
    legal = policy_net.legal_from_obs(obs)
    probs = np.zeros((len(obs), A.NUM_CALLS))
    probs[:, A.PASS] = 1.0
    at_root = (seat == _N) & legal[:, _C("1S")] & ~legal[:, _C("1H")]
    south = (seat == _S) & legal[:, _C("6S")]
    for rows, mix in ((at_root, _NORTH_MIX), (south, _SOUTH_MIX)):
      for call, p in mix.items():
        probs[rows, call] = p
    return probs, np.zeros(len(obs))

  return policy


def _score(level, strain, declarer, tricks):
  return scoring.contract_score(level, strain, 0, False, int(tricks[strain, declarer]))


def _hand_values(tricks):
  """N-S raw score of (North's call, South's call), everything else passes, by hand."""
  return {
      (A.PASS, None): _score(1, _HEARTS, _S, tricks),        # 1H by S, the auction ends
      (_C("1NT"), A.PASS): _score(1, _NT, _N, tricks),
      (_C("1NT"), _C("6S")): _score(6, _SPADES, _S, tricks),
      (_C("2S"), A.PASS): _score(2, _SPADES, _N, tricks),
      (_C("2S"), _C("6S")): _score(6, _SPADES, _N, tricks),  # North bid spades first
  }


def test_hand_values_are_what_the_test_claims():
  v = _hand_values(_deal().dd_tricks[0])
  assert v == {(A.PASS, None): 80, (_C("1NT"), A.PASS): 150, (_C("1NT"), _C("6S")): 980,
               (_C("2S"), A.PASS): 110, (_C("2S"), _C("6S")): -200}


@pytest.mark.parametrize("partner", ["max", "mean"])
@pytest.mark.parametrize("padded", [False, True])
def test_authors_budget_picks_the_known_joint_change(partner, padded):
  ds = _deal()
  v = _hand_values(ds.dd_tricks[0])
  eng = _root(ds)
  kw = {**jps_bid.AUTHORS_BUDGET, "partner": partner}
  res = jps_bid.joint_search(_policy(ds.holders), eng, np.zeros(1), np.random.default_rng(0),
                             depth=3, reward="score", padded=padded, fresh_returns=False, **kw)
  assert res.num_candidates[0] == 3
  agg = max if partner == "max" else (lambda xs: sum(xs) / len(xs))
  expect = {A.PASS: v[(A.PASS, None)],
            _C("1NT"): agg([v[(_C("1NT"), A.PASS)], v[(_C("1NT"), _C("6S"))]]),
            _C("2S"): agg([v[(_C("2S"), A.PASS)], v[(_C("2S"), _C("6S"))]])}
  got = {int(c): float(x) for c, x in zip(res.candidate_calls[0], res.candidate_values[0],
                                          strict=True) if np.isfinite(x)}
  assert got == pytest.approx(expect)
  assert int(res.best_call[0]) == _C("1NT")
  if partner == "max":
    # South's best reply after each of East's (passing) samples is 6S; the gain is 980 minus
    # sigma's value at the root (sigma on both seats, renormalised over the candidates).
    assert set(res.partner_call.tolist()) == {_C("6S")}
    assert len(res.partner_call) == jps_bid.AUTHORS_BUDGET["opponent_samples"]
    south = {a1: 0.6 * v[(a1, A.PASS)] + 0.4 * v[(a1, _C("6S"))] for a1 in (_C("1NT"), _C("2S"))}
    sigma_value = (0.5 * v[(A.PASS, None)] + 0.3 * south[_C("1NT")] + 0.2 * south[_C("2S")])
    assert res.gain[0] == pytest.approx(980 - sigma_value)


def test_one_search_with_the_authors_budget_picks_1nt():
  """1-search: South keeps sigma (Pass 0.6, 6S 0.4); whatever South samples, 1NT (150 or 980)
  beats Pass (80) and 2S (110 or -200)."""
  ds = _deal()
  res = jps_bid.joint_search(_policy(ds.holders), _root(ds, 3), np.zeros(3),
                             np.random.default_rng(1), depth=1, reward="score",
                             **jps_bid.AUTHORS_BUDGET)
  np.testing.assert_array_equal(res.best_call, [_C("1NT")] * 3)
  assert np.all((res.best_value >= 150) & (res.best_value <= 980))


def _light_policy(obs):
  """A stochastic policy over legal calls up to 2NT (Pass twice as likely as each bid)."""
  legal = policy_net.legal_from_obs(obs).astype(np.float64)
  legal[:, A.FIRST_BID + 10:] = 0.0  # no bid above 2NT (so every seat keeps >= 3 legal calls)
  legal[:, A.PASS] *= 2.0
  return legal / legal.sum(axis=1, keepdims=True), np.zeros(len(obs))


@pytest.mark.parametrize("depth", [1, 3])
def test_valid_only_layout_equals_padded_layout_with_the_same_random_numbers(depth):
  """Where every candidate is valid both layouts simulate the same tables in the same order,
  so with the same seed every number of the result is the same (a stochastic policy)."""
  ds = dataset_lib.load_dataset()
  eng = engine_lib.BiddingEngine(ds)
  eng.reset([3, 4, 5, 6], dealer=[0, 1, 2, 3], vulnerability=[0, 1, 2, 3])
  eng.step([A.PASS, _C("1C"), A.PASS, _C("1D")])
  kw = {"depth": depth, "candidates": 3, "opponent_samples": 3, "continuations": 2}
  a = jps_bid.joint_search(_light_policy, eng, np.arange(4) * 10, np.random.default_rng(3),
                           padded=True, **kw)
  b = jps_bid.joint_search(_light_policy, eng, np.arange(4) * 10, np.random.default_rng(3),
                           padded=False, **kw)
  assert a.num_candidates.tolist() == [3, 3, 3, 3]
  for field in ("best_call", "best_value", "candidate_values", "gain", "root_return",
                "partner_call", "partner_value", "partner_root", "partner_return"):
    np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
  # The rollouts were random: another seed gives other values.
  c = jps_bid.joint_search(_light_policy, eng, np.arange(4) * 10, np.random.default_rng(4),
                           **kw)
  assert not np.array_equal(a.candidate_values, c.candidate_values)


def test_budget_options_are_checked_and_reach_the_search():
  opts = jps_bid.SearchOptions.authors_budget(fraction=0.01)
  kw = opts.search_kwargs()
  assert kw["opponent_samples"] == 5 and kw["continuations"] == 1
  assert kw["candidate_threshold"] == 0.05 and kw["partner"] == "mean"
  with pytest.raises(UserError, match="continuations"):
    jps_bid.SearchOptions(continuations=0)
  eng = _root(_deal())
  with pytest.raises(ValueError, match="opponent_samples"):
    jps_bid.joint_search(_policy(_deal().holders), eng, np.zeros(1), np.random.default_rng(0),
                         opponent_samples=0)


def test_roots_with_one_candidate_are_not_simulated():
  """min_candidates=2: a root whose policy has one candidate costs no rollout, the others get
  the same values as when searched alone (the hand-built root, deterministic values)."""
  ds = _deal()
  policy = _policy(ds.holders)
  eng = engine_lib.BiddingEngine(ds)
  eng.reset([0, 0], dealer=0, vulnerability=0)
  eng.step([_C("1C"), _C("1C")])  # East to call: sigma passes, one candidate
  both = engine_lib.BiddingEngine.from_auctions(
      ds, False, A.Auctions.concat([_root(ds).auctions, eng.auctions.take([0])]), [0, 0])
  calls = []

  def counting(obs):
    calls.append(len(obs))
    return policy(obs)

  res = jps_bid.joint_search(counting, both, np.zeros(2), np.random.default_rng(0), depth=3,
                             reward="score", min_candidates=2, **{**jps_bid.AUTHORS_BUDGET,
                                                                  "partner": "max"})
  assert res.num_candidates.tolist() == [3, 1]
  assert res.candidate_values[0, 1] == pytest.approx(980) and res.best_call[1] == A.PASS
  assert np.isnan(res.best_value[1]) and np.isnan(res.gain[1])
  assert set(res.partner_root.tolist()) == {0}
  # Stage 1 simulated 3 candidates x 5 samples of the first root only.
  assert calls[1] == 3 * jps_bid.AUTHORS_BUDGET["opponent_samples"]
