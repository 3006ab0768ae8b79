"""The JAX auction (`ospiel_team.bridge.jax_env`): hand-checked auctions, its IMP scale and
its call check.

Its step-by-step equality with the numpy engine on random legal auctions (legal masks,
observations, done flags, histories, contracts, scores, rewards) is tested through the shared
auction interface in tests/bridge/test_auction_tables.py.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import jax_env
from ospiel_team.bridge import scoring

_step = jax.jit(jax_env.step)
_observation = jax.jit(jax_env.observation)
_contract = jax.jit(jax_env.contract)
_ns_score = jax.jit(jax_env.ns_score)


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
