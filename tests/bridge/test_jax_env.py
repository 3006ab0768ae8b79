"""The JAX auction (`ospiel_team.bridge.jax_env`) against the numpy engine, step by step.

Random legal auctions of shipped deals (all dealers and vulnerabilities; passes, bids, doubles,
redoubles and passed-out deals; contested and uncontested) are played on both: legal masks,
observations of the seat to call and of another seat, done flags, the seat to call, final
contracts, N-S scores and duplicate IMP rewards must be identical. The numpy engine is itself
checked against the pyspiel game (tests/bridge/test_engine.py). One auction is checked by hand.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import jax_env
from ospiel_team.bridge import scoring
from tests.bridge.random_calls import random_legal_calls


@pytest.fixture(scope="module")
def ds():
  return dataset_lib.load_dataset()


@functools.cache
def _jitted():
  def views(state):
    cur = jax_env.current_player(state)
    return (jax_env.legal_mask(state), jax_env.observation(state),
            jax_env.observation(state, (cur + 1) & 3), cur, state.done)
  return jax.jit(views), jax.jit(jax_env.step)


_step = jax.jit(jax_env.step)
_observation = jax.jit(jax_env.observation)
_contract = jax.jit(jax_env.contract)
_ns_score = jax.jit(jax_env.ns_score)


def _random_calls(rng, legal, p_pass):
  """Low bids (the 6 lowest legal): longer auctions."""
  return random_legal_calls(rng, legal, p_pass, max_bids=6)


@pytest.mark.parametrize("uncontested", [False, True])
def test_jax_env_equals_numpy_engine_at_every_step(ds, uncontested):
  rng = np.random.default_rng(3 + uncontested)
  k = 96  # deals, each at two tables (duplicate pairs)
  deals = rng.integers(0, ds.holders.shape[0], k)
  dealer = np.arange(k) % 4
  vul = (np.arange(k) // 4) % 4
  idx, dealer, vul = (np.concatenate([x, x]) for x in (deals, dealer, vul))
  b = 2 * k
  eng = engine_lib.BiddingEngine(ds, uncontested=uncontested)
  eng.reset(idx, dealer, vul)
  state = jax_env.reset(ds.holders[idx], ds.dd_tricks[idx], dealer, vul, uncontested)
  views, step = _jitted()
  p_pass = np.array([0.3, 0.6, 0.95])[np.arange(b) % 3]
  counts = np.zeros(A.NUM_CALLS, np.int64)
  steps = 0
  while True:
    legal, obs, obs_next, cur, done = (np.asarray(x) for x in views(state))
    np.testing.assert_array_equal(done, eng.done)
    np.testing.assert_array_equal(legal, eng.legal_mask())
    np.testing.assert_array_equal(obs, eng.observation())
    np.testing.assert_array_equal(obs_next, eng.observation(player=(eng.current_player + 1) & 3))
    np.testing.assert_array_equal(cur[~done], eng.current_player[~done])
    if done.all():
      break
    calls = _random_calls(rng, legal, p_pass)
    jax_env.check_calls(state, calls)
    counts += np.bincount(calls[~done], minlength=A.NUM_CALLS)
    eng.step(calls)
    state = step(state, calls)
    steps += 1
  assert steps > 10
  np.testing.assert_array_equal(np.asarray(state.num_calls), eng.auctions.num_calls)
  np.testing.assert_array_equal(np.asarray(state.history), eng.auctions.history)
  for got, want in zip(jax_env.contract(state), eng.contract(), strict=True):
    np.testing.assert_array_equal(np.asarray(got), want)
  ns = np.asarray(jax_env.ns_score(state))
  np.testing.assert_array_equal(ns, eng.ns_score())
  np.testing.assert_allclose(np.asarray(scoring.duplicate_rewards(ns, xp=jnp)),
                             scoring.duplicate_rewards(eng.ns_score()), rtol=0, atol=1e-7)
  # The random auctions exercised every kind of call and result.
  passed_out = (eng.auctions.num_calls == 4) & (eng.contract()[0] == 0)
  assert passed_out.any() and (~passed_out).any()
  assert counts[A.FIRST_BID:].sum() > 0 and (ns != 0).any()
  if not uncontested:
    assert counts[A.DOUBLE] > 0 and counts[A.REDOUBLE] > 0
    assert (eng.contract()[2] == 2).any()
  else:  # East-West only passed
    assert np.all(eng.auctions.bids[:, 1::2].sum(axis=(1, 2)) == 0)


def test_imps_equal_the_scoring_scale():
  d = np.arange(-4500, 4501, 10)
  np.testing.assert_array_equal(np.asarray(jax.jit(lambda x: scoring.imps_array(x, xp=jnp))(d)),
                                scoring.imps_array(d))


def test_hand_checked_auction():
  """N deals, none vulnerable: 1NT (N) Dbl (E) RDbl (S) Pass Pass Pass: 1NT redoubled by
  North; with 8 double-dummy tricks N-S score 4 * 40 = 160 below the line, game 300, insult
  100 and one redoubled non-vulnerable overtrick 200: +760. At the other table N-S are two
  down (5 tricks): -(100 + 200) * 2 = -600. Difference 1360 = 16 IMPs (1300-1490)."""
  holders = deal_lib.validate_holders(np.arange(52) % 4).reshape(1, 52)
  dd = np.zeros((2, 5, 4), np.int64)
  dd[0, 4, 0], dd[1, 4, 0] = 8, 5
  state = jax_env.reset(np.repeat(holders, 2, axis=0), dd, 0, 0)
  nt1 = A.string_to_call("1NT")
  seq = [nt1, A.DOUBLE, A.REDOUBLE, A.PASS, A.PASS]
  for i, c in enumerate(seq):
    assert int(jax_env.current_player(state)[0]) == i % 4
    state = _step(state, jnp.array([c, c]))
    assert not bool(state.done[0])
  # South's view now (after N 1NT, E Dbl, S RDbl, W Pass, N Pass; East to call).
  obs_s = np.asarray(_observation(state, 2))[0]
  j = nt1 - A.FIRST_BID  # 4
  assert obs_s[A.OBS_BIDS + 35 + j] == 1      # partner (N) bid 1NT
  assert obs_s[A.OBS_BIDS:A.OBS_DOUBLED].sum() == 1
  assert obs_s[A.OBS_DOUBLED + j] == 1        # 1NT was doubled
  assert obs_s[A.OBS_LEGAL:].sum() == 0       # not South's turn
  assert obs_s[:52].tolist() == (np.arange(52) % 4 == 2).tolist()
  obs_e = np.asarray(_observation(state))[0]  # East to call: Pass or bids above 1NT
  assert np.flatnonzero(obs_e[A.OBS_LEGAL:]).tolist() == [0] + list(range(nt1 + 1, 38))
  state = _step(state, jnp.array([A.PASS, A.PASS]))
  assert bool(state.done.all())
  level, strain, doubled, declarer = (np.asarray(x)[0] for x in _contract(state))
  assert (level, strain, doubled, declarer) == (1, 4, 2, 0)
  ns = np.asarray(_ns_score(state))
  assert ns.tolist() == [760, -600]
  np.testing.assert_allclose(np.asarray(scoring.duplicate_rewards(ns, xp=jnp)),
                             [16 / 24, -16 / 24])
  # Finished tables ignore further calls.
  again = _step(state, jnp.array([A.string_to_call("7NT")] * 2))
  for a, b in zip(jax.tree_util.tree_leaves(again), jax.tree_util.tree_leaves(state),
                  strict=True):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_declarer_is_first_of_the_side_to_name_the_strain():
  holders = np.arange(52).reshape(1, 52) % 4
  dd = np.full((2, 5, 4), 10)
  state = jax_env.reset(np.repeat(holders, 2, 0), dd, 0, 3)  # N deals, both vulnerable
  for c in ("1H", "Pass", "4H", "Pass", "Pass", "Pass"):
    state = _step(state, jnp.array([A.string_to_call(c)] * 2))
  level, strain, doubled, declarer = (int(np.asarray(x)[0]) for x in _contract(state))
  assert (level, strain, doubled, declarer) == (4, 2, 0, 0)  # 4H by North, not South
  assert int(_ns_score(state)[0]) == 620  # 4H vul +0: 120 + 500


def test_check_calls_names_the_bad_table():
  holders = np.arange(52).reshape(1, 52) % 4
  state = jax_env.reset(np.repeat(holders, 2, 0), np.zeros((2, 5, 4), int), 0, 0)
  with pytest.raises(ValueError, match=r"table 1: call Dbl \(id 1\) is illegal for N"):
    jax_env.check_calls(state, [0, 1])
  with pytest.raises(ValueError, match="table 0: call 38 out of range"):
    jax_env.check_calls(state, jnp.array([38, 0]))
