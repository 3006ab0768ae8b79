"""Each seat learns from its own side's duplicate result (a2c.Rollout.returns, jax_trainer).

The expected returns are scored by hand from the contract, the vulnerability and the deal's
double-dummy tricks (the rules of duplicate scoring and the WBF IMP scale, written out here),
not by `ospiel_team.bridge.scoring`.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.training import a2c

# WBF IMP scale: (lowest point difference, IMPs).
_IMP_SCALE = [(0, 0), (20, 1), (50, 2), (90, 3), (130, 4), (170, 5), (220, 6), (270, 7),
              (320, 8), (370, 9), (430, 10), (500, 11), (600, 12), (750, 13), (900, 14),
              (1100, 15), (1300, 16), (1500, 17), (1750, 18), (2000, 19), (2250, 20),
              (2500, 21), (3000, 22), (3500, 23), (4000, 24)]
_NT = 4
_THREE_NT = 3 + 2 * 5 + _NT  # calls: Pass, Dbl, RDbl, 1C, 1D, ..., so 3NT is 17


def _imps(diff: int) -> int:
  imps = max(i for lo, i in _IMP_SCALE if abs(diff) >= lo)
  return imps if diff >= 0 else -imps


def _three_nt_score(tricks: int, vulnerable: bool) -> int:
  """Declarer's duplicate score of 3NT undoubled with `tricks` tricks, by the rules."""
  if tricks >= 9:
    trick_score = 40 + 30 + 30  # 3NT: 40 for the first trick, 30 for each further one
    overtricks = 30 * (tricks - 9)
    game_bonus = 500 if vulnerable else 300
    return trick_score + overtricks + game_bonus
  return -(100 if vulnerable else 50) * (9 - tricks)


def _rollout_of_two_tables(deal: int, declarer: int, vulnerability: int):
  """Table 0: 3NT by `declarer` (the dealer), all pass; table 1: the same deal passed out."""
  eng = engine_lib.BiddingEngine(dataset_lib.resolve_dataset("validation"))
  eng.reset(np.array([deal, deal]), declarer, vulnerability)
  tables, seats = [], []
  calls = [(_THREE_NT, 0), (0, 0), (0, 0), (0, 0)]  # then table 0 has ended, table 1 not
  calls.append((0, 0))  # table 1's fourth pass (table 0 is done and ignores it)
  for c0, c1 in calls:
    active = np.flatnonzero(~eng.done)
    tables += list(active)
    seats += list(eng.current_player[active])
    eng.step(np.array([c0, c1]))
  assert eng.done.all()
  ns = eng.ns_score()
  ro = a2c.Rollout(obs=np.zeros((len(tables), A.OBSERVATION_SIZE), np.float32),
                   actions=np.zeros(len(tables), np.int64), logp=np.zeros(len(tables)),
                   table=np.array(tables), seat=np.array(seats), ns_score=ns,
                   reward_ns=scoring.duplicate_rewards(ns), num_calls=np.array([4, 4]),
                   engine=eng)
  return ro, eng


@pytest.mark.parametrize("declarer", [0, 1])  # N-S declares, E-W declares
@pytest.mark.parametrize("vulnerability", [0, 1, 2, 3])
def test_returns_per_seat_are_the_hand_scored_duplicate_result(declarer, vulnerability):
  data = dataset_lib.resolve_dataset("validation")
  for deal in (0, 1, 2):
    ro, eng = _rollout_of_two_tables(deal, declarer, vulnerability)
    assert A.call_string(_THREE_NT) == "3NT"
    assert list(eng.contract()[0]) == [3, 0]  # table 0 in 3NT, table 1 passed out
    tricks = int(data.dd_tricks[deal, _NT, declarer])
    declarer_vul = bool(vulnerability & (1 if declarer % 2 == 0 else 2))
    declarer_score = _three_nt_score(tricks, declarer_vul)
    ns_table0 = declarer_score if declarer % 2 == 0 else -declarer_score
    assert list(eng.ns_score()) == [ns_table0, 0]
    imps_ns = {0: _imps(ns_table0 - 0), 1: _imps(0 - ns_table0)}  # per table, for N-S
    assert imps_ns[0] != 0  # 3NT never scores 0: the sides' returns differ
    expected = [(imps_ns[t] if s in (0, 2) else -imps_ns[t]) / 24
                for t, s in zip(ro.table, ro.seat, strict=True)]
    assert sorted(set(int(s) for s in ro.seat)) == [0, 1, 2, 3]
    np.testing.assert_allclose(ro.returns(), expected, rtol=1e-6)
    # The JAX trainer's returns come from the same function, under jit and on jax arrays.
    reward_per_decision = jnp.asarray(ro.reward_ns[ro.table], jnp.float32)
    jitted = jax.jit(scoring.seat_returns)(reward_per_decision, jnp.asarray(ro.seat, jnp.int32))
    np.testing.assert_allclose(np.asarray(jitted), expected, rtol=1e-6)


def test_jax_trainer_round_uses_the_shared_returns():
  """The JAX round computes its returns with `scoring.seat_returns` (one definition for both)."""
  import inspect

  from ospiel_team.bridge.agents.training import jax_trainer
  source = inspect.getsource(jax_trainer.make_round_fn)
  assert "scoring.seat_returns(" in source
  assert "% 2" not in source  # no second copy of the seat logic
