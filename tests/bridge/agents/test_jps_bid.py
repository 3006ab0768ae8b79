"""JPSBid search (JPS paper Eq. 7-8, Sec. 7.3) against brute-force enumeration."""
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import jps_bid


def always_pass(obs):
  probs = np.zeros((len(obs), A.NUM_CALLS))
  probs[:, A.PASS] = 1.0
  return probs, np.zeros(len(obs))


def _one_deal_dataset():
  holders = dataset_lib.load_dataset().holders[:1]
  tricks = np.full((1, 5, 4), 6, np.uint8)
  tricks[0, 3, 2] = 12   # South makes 12 tricks in spades
  tricks[0, 3, 0] = 8    # North only 8
  tricks[0, 4, 0] = 9    # North makes 9 in NT
  return dataset_lib.BridgeDataset(holders, tricks)


def _enumerate(tricks):
  """Value (N-S IMPs vs a 0 score, / 24) of every (a1 by N, a2 by S), E-W and later N pass."""
  values = {}
  for a1 in [A.PASS] + list(range(A.FIRST_BID, A.NUM_CALLS)):
    a2s = [A.PASS] + [c for c in range(A.FIRST_BID, A.NUM_CALLS) if a1 == A.PASS or c > a1]
    for a2 in a2s:
      final = a2 if a2 != A.PASS else a1
      if final == A.PASS:
        score = 0
      else:
        level, strain = A.bid_level(final), A.bid_strain(final)
        by_north = a1 != A.PASS and A.bid_strain(a1) == strain
        declarer = 0 if by_north else 2
        score = scoring.contract_score(level, strain, 0, False, int(tricks[strain, declarer]))
      values[(a1, a2)] = scoring.imps(score) / 24.0
  return values


@pytest.mark.parametrize("depth", [3, 1])
def test_search_finds_enumerated_best(depth):
  ds = _one_deal_dataset()
  eng = engine_lib.BiddingEngine(ds, uncontested=True)
  eng.reset([0, 0], dealer=0, vulnerability=0)
  rng = np.random.default_rng(0)
  res = jps_bid.joint_search(always_pass, eng, np.zeros(2, np.int64), rng, depth=depth,
                             candidates=38, rollouts=2)
  values = _enumerate(ds.dd_tricks[0])
  if depth == 3:
    best = max(values.values())
    per_a1 = {a1: max(v for (b1, _), v in values.items() if b1 == a1) for a1, _ in values}
  else:  # 1-search: partner keeps sigma (Pass)
    best = max(v for (a1, a2), v in values.items() if a2 == A.PASS)
    per_a1 = {a1: values[(a1, A.PASS)] for a1, _ in values}
  np.testing.assert_allclose(res.best_value, [best, best])
  assert per_a1[int(res.best_call[0])] == pytest.approx(best)
  # Every candidate's value matches the enumeration.
  for c, v in zip(res.candidate_calls[0], res.candidate_values[0], strict=True):
    if np.isfinite(v):
      assert v == pytest.approx(per_a1[int(c)])
  if depth == 3:
    assert best == pytest.approx(scoring.imps(980) / 24)  # 6S by South
    partner = int(res.partner_call[0])
    assert A.bid_strain(partner) == 3 and A.bid_level(partner) == 6
    np.testing.assert_allclose(res.partner_value, best)
  else:
    assert best == pytest.approx(scoring.imps(400) / 24)  # 3NT by North is the best N can do alone


def test_joint_beats_one_search_and_returns_legal_calls():
  ds = _one_deal_dataset()
  eng = engine_lib.BiddingEngine(ds, uncontested=True)
  eng.reset([0], dealer=0, vulnerability=0)
  r3 = jps_bid.joint_search(always_pass, eng, np.zeros(1), np.random.default_rng(1), depth=3,
                            candidates=38, rollouts=1)
  r1 = jps_bid.joint_search(always_pass, eng, np.zeros(1), np.random.default_rng(1), depth=1,
                            candidates=38, rollouts=1)
  assert r3.best_value[0] > r1.best_value[0]
  legal = eng.legal_mask()[0]
  assert legal[r3.best_call[0]] and legal[r1.best_call[0]]


def test_take_and_concat_auctions_roundtrip():
  eng = engine_lib.BiddingEngine()
  eng.reset([0, 1, 2], dealer=[0, 1, 2], vulnerability=[0, 1, 3])
  eng.step([A.string_to_call("1S"), A.PASS, A.string_to_call("1NT")])
  parts = [eng.auctions.take([i]) for i in (2, 0)]
  both = A.Auctions.concat(parts)
  e2 = engine_lib.BiddingEngine.from_auctions(eng.dataset, False, both,
                                              eng.deal_index[[2, 0]])
  np.testing.assert_array_equal(e2.observation(), eng.observation()[[2, 0]])
  np.testing.assert_array_equal(e2.legal_mask(), eng.legal_mask()[[2, 0]])
  # The pieces are independent copies: stepping them leaves the original untouched.
  before = eng.observation().copy()
  e2.step([A.PASS, A.PASS])
  np.testing.assert_array_equal(eng.observation(), before)
  with pytest.raises(ValueError, match="out of range"):
    eng.auctions.take([3])
  with pytest.raises(ValueError, match="at least one"):
    A.Auctions.concat([])


def test_bad_arguments():
  eng = engine_lib.BiddingEngine()
  eng.reset([0], 0, 0)
  with pytest.raises(ValueError, match="depth"):
    jps_bid.joint_search(always_pass, eng, np.zeros(1), np.random.default_rng(0), depth=2)
  with pytest.raises(ValueError, match="fraction"):
    jps_bid.JPSBidSearch(fraction=1.5)


def test_fresh_returns_equal_search_values_for_a_deterministic_policy():
  ds = _one_deal_dataset()
  eng = engine_lib.BiddingEngine(ds, uncontested=True)
  eng.reset([0], dealer=0, vulnerability=0)
  for depth in (1, 3):
    res = jps_bid.joint_search(always_pass, eng, np.zeros(1), np.random.default_rng(0),
                               depth=depth, candidates=38, rollouts=2, fresh_returns=True)
    np.testing.assert_allclose(res.root_return, res.best_value)
    if depth == 3:
      np.testing.assert_allclose(res.partner_return, res.partner_value)


# ------------------------------------------------------------------------------------------
# The authors' protocol options (facebookresearch/jps rela/search_actor.h): candidate
# threshold, partner aggregation, raw-score reward, gain, searched calls played in the game.
# ------------------------------------------------------------------------------------------
def _raw_scores(tricks):
  """N-S raw score of every (a1 by N, a2 by S) as in `_enumerate`, in points."""
  out = {}
  for (a1, a2), _ in _enumerate(tricks).items():
    final = a2 if a2 != A.PASS else a1
    if final == A.PASS:
      out[(a1, a2)] = 0
      continue
    level, strain = A.bid_level(final), A.bid_strain(final)
    declarer = 0 if (a1 != A.PASS and A.bid_strain(a1) == strain) else 2
    out[(a1, a2)] = scoring.contract_score(level, strain, 0, False,
                                           int(tricks[strain, declarer]))
  return out


def test_top_candidates_threshold_by_hand():
  probs = np.zeros((2, A.NUM_CALLS))
  probs[0, [A.PASS, 5, 9]] = [0.5, 0.46, 0.04]
  probs[1, [A.PASS, 7]] = [0.01, 0.01]  # nothing above the threshold: the top call stays
  legal = np.ones_like(probs, bool)
  calls, valid = jps_bid.top_candidates(probs, legal, 5, threshold=0.05)
  assert list(calls[0, :3]) == [A.PASS, 5, 9]
  assert list(valid[0]) == [True, True, False, False, False]
  assert valid[1].sum() == 1 and calls[1, 0] == A.PASS  # tie 0.01/0.01: lower call id first


def test_partner_mean_and_score_reward_match_enumeration():
  ds = _one_deal_dataset()
  eng = engine_lib.BiddingEngine(ds, uncontested=True)
  eng.reset([0], dealer=0, vulnerability=0)
  res = jps_bid.joint_search(always_pass, eng, np.zeros(1), np.random.default_rng(0), depth=3,
                             candidates=38, rollouts=1, partner="mean", reward="score")
  raw = _raw_scores(ds.dd_tricks[0])
  per_a1 = {}
  for (a1, _), v in raw.items():
    per_a1.setdefault(a1, []).append(v)
  for c, v in zip(res.candidate_calls[0], res.candidate_values[0], strict=True):
    if np.isfinite(v):
      assert v == pytest.approx(np.mean(per_a1[int(c)]))
  assert len(res.partner_call) == 0  # no single best partner call under "mean"
  # "max" with the raw score: 6S by South (980) is the best joint change; sigma (all Pass)
  # scores 0, so the gain over sigma's value is the whole 980.
  res = jps_bid.joint_search(always_pass, eng, np.zeros(1), np.random.default_rng(0), depth=3,
                             candidates=38, rollouts=1, reward="score")
  assert res.best_value[0] == pytest.approx(980) == max(raw.values())
  assert res.gain[0] == pytest.approx(980 - raw[(A.PASS, A.PASS)])
  assert res.num_candidates[0] == eng.legal_mask()[0].sum()


def test_game_search_forces_searched_call_and_skips_single_candidates():
  ds = _one_deal_dataset()
  eng = engine_lib.BiddingEngine(ds, uncontested=True)
  eng.reset([0, 0], dealer=0, vulnerability=0)

  class FakeTrainer:
    policy = staticmethod(always_pass)

  # With the authors' threshold (0.05) a deterministic sigma has one candidate: no search.
  gs = jps_bid.GameSearch(fraction=1.0, depth=3, candidates=38, rollouts=1)
  gs.begin_round(FakeTrainer(), 2)
  np.testing.assert_array_equal(gs.on_step(0, eng), [-1, -1])
  # Without it every legal call is a candidate; North's call of the best joint change is
  # played: with South's 6S at 980 the best is any N call after which S can still bid 6S.
  gs = jps_bid.GameSearch(fraction=1.0, depth=3, candidates=38, rollouts=1,
                          candidate_threshold=0.0)
  gs.begin_round(FakeTrainer(), 2)
  forced = gs.on_step(0, eng)
  raw = _raw_scores(ds.dd_tricks[0])
  for f in forced:
    assert max(v for (a1, _), v in raw.items() if a1 == f) == 980
  with pytest.raises(ValueError, match="target"):
    jps_bid.GameSearch(target="bogus")
  with pytest.raises(ValueError, match="partner"):
    jps_bid.joint_search(always_pass, eng, np.zeros(2), np.random.default_rng(0),
                         partner="best")


def test_play_selfplay_plays_forced_calls_with_sigma_logp():
  from ospiel_team.bridge.agents.training import a2c
  ds = _one_deal_dataset()
  eng = engine_lib.BiddingEngine(ds, uncontested=False)
  bid = A.string_to_call("1NT")  # 1NT

  def uniform(obs):
    legal = policy_net.legal_from_obs(obs)
    return legal / legal.sum(axis=1, keepdims=True), np.zeros(len(obs))

  def force_first(step, e):
    return np.where(np.arange(e.batch_size) == 0, bid, -1) if step == 0 else None

  ro = a2c.play_selfplay(uniform, eng, np.random.default_rng(0), np.array([0]), 1,
                         on_step=force_first)
  first = ro.table == 0
  assert ro.actions[first][0] == bid
  # behaviour log-probability: sigma's (uniform over the 36 legal opening calls)
  assert ro.logp[first][0] == pytest.approx(-np.log(36))


def test_nll_step_raises_the_searched_calls_probability():
  import optax
  net = policy_net.make_network(16, 1)
  params = policy_net.init_params(net, 0)
  opt = optax.adam(1e-2)
  eng = engine_lib.BiddingEngine()
  eng.reset([0, 1, 2, 3], dealer=0, vulnerability=0)
  obs = eng.observation().astype(np.float32)
  target = np.full(4, A.string_to_call("1NT"), np.int32)
  step = jps_bid.make_nll_step(net, opt, 1.0)
  p0 = policy_net.PolicyFn(net, params)(obs)[0][np.arange(4), target]
  st = opt.init(params)
  weight = np.ones(4, np.float32)
  for _ in range(5):
    params, st = step(params, st, obs, target, weight)
  p1 = policy_net.PolicyFn(net, params)(obs)[0][np.arange(4), target]
  assert np.all(p1 > p0)


# --- the search against a stochastic opponent, by exact enumeration ---------------------------
_ONE_NT, _THREE_NT = A.string_to_call("1NT"), A.string_to_call("3NT")
_FOUR_S = A.string_to_call("4S")
_P_DOUBLE = 0.75  # East doubles North's opening bid with this probability


def _stochastic_opponent_deal():
  """Deal 0 of the shipped set, with North making 10 tricks in NT and South 10 in spades."""
  holders = dataset_lib.load_dataset().holders[:1]
  tricks = np.full((1, 5, 4), 6, np.uint8)
  tricks[0, 4, 0] = 10  # North in NT
  tricks[0, 3, 2] = 10  # South in spades
  return dataset_lib.BridgeDataset(holders, tricks)


def _stochastic_opponent_policy(holders):
  """sigma: North opens 1NT (0.6) or 3NT (0.4), then passes; East doubles that opening with
  probability `_P_DOUBLE`, else passes; South passes (0.8) or bids 4S (0.2); West passes."""
  hands = A.hands_onehot(holders)[0]  # (4, 52)

  def policy(obs):
    obs = np.asarray(obs)
    seat = np.array([int(np.flatnonzero((hands == (o[:52] > 0.5)).all(axis=1))[0])
                     for o in obs])
    legal = policy_net.legal_from_obs(obs)
    lowest_bid = np.where(legal[:, A.FIRST_BID:].any(axis=1),
                          A.FIRST_BID + np.argmax(legal[:, A.FIRST_BID:], axis=1), -1)
    probs = np.zeros((len(obs), A.NUM_CALLS))
    probs[:, A.PASS] = 1.0
    opening = (seat == 0) & (lowest_bid == A.FIRST_BID)
    probs[opening] = 0.0
    probs[opening, _ONE_NT], probs[opening, _THREE_NT] = 0.6, 0.4
    # East, over North's opening only (the lowest legal bid is the one above it).
    doubles = (seat == 1) & legal[:, A.DOUBLE] & np.isin(lowest_bid, [_ONE_NT + 1,
                                                                      _THREE_NT + 1])
    probs[doubles, A.PASS], probs[doubles, A.DOUBLE] = 1 - _P_DOUBLE, _P_DOUBLE
    south = (seat == 2) & legal[:, _FOUR_S]
    probs[south, A.PASS], probs[south, _FOUR_S] = 0.8, 0.2
    return probs, np.zeros(len(obs))

  return policy


def _exact_search_values(tricks, ref_ns_score):
  """v(a1) = E_o [max_{a2} R(a1, o, a2)] by enumeration of East's two calls (everything after
  South's call is a pass), R = N-S IMPs against `ref_ns_score` / 24 (dealer N, none vul)."""
  def r(level, strain, doubled, declarer):
    score = scoring.contract_score(level, strain, doubled, False, int(tricks[strain, declarer]))
    return scoring.imps(score - ref_ns_score) / 24.0

  four_spades_by_south = r(4, 3, 0, 2)
  values = {}
  for a1, level in ((_ONE_NT, 1), (_THREE_NT, 3)):
    after_pass = max(r(level, 4, 0, 0), four_spades_by_south)
    after_double = max(r(level, 4, 1, 0), four_spades_by_south)
    values[a1] = ((1 - _P_DOUBLE) * after_pass + _P_DOUBLE * after_double,
                  abs(after_double - after_pass))
  return values


def test_search_averages_over_a_stochastic_opponent_as_enumerated():
  """JPSBid's v(a1) is the mean over East's sampled calls of South's best reply (Eq. 7):
  checked against the exact expectation over East's mixed call, within the sampling error."""
  ds = _stochastic_opponent_deal()
  policy = _stochastic_opponent_policy(ds.holders)
  ref = 400
  exact = _exact_search_values(ds.dd_tricks[0], ref)
  # Independent of the search code: the opponent's call changes South's best reply's value.
  assert exact[_ONE_NT][1] > 0 and exact[_THREE_NT][1] > 0
  n_o = 100
  eng = engine_lib.BiddingEngine(ds)
  eng.reset([0], dealer=0, vulnerability=0)
  res = jps_bid.joint_search(policy, eng, np.array([ref]), np.random.default_rng(0), depth=3,
                             candidates=2, rollouts=n_o, fresh_returns=False)
  assert sorted(int(c) for c in res.candidate_calls[0]) == [_ONE_NT, _THREE_NT]
  for c, v in zip(res.candidate_calls[0], res.candidate_values[0], strict=True):
    mean, spread = exact[int(c)]
    # Only East's n_o samples are random (a Bernoulli(_P_DOUBLE) mix of two values `spread`
    # apart): 4 standard errors; the largest of the two (a max over samples) is further away.
    tolerance = 4 * spread * np.sqrt(_P_DOUBLE * (1 - _P_DOUBLE) / n_o)
    assert abs(v - mean) <= tolerance, (A.call_string(int(c)), v, mean, tolerance)
    assert min(_P_DOUBLE, 1 - _P_DOUBLE) * spread > tolerance  # a max or min over samples fails
  best = max(exact, key=lambda a1: exact[a1][0])
  assert int(res.best_call[0]) == best
