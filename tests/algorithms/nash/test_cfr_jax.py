"""The JAX tree CFR solvers (`cfr_jax`) equal the numba kernels' (float64, to 1e-9).

The JAX solvers (`cfr_jax`: segment sums over the same flat arrays) and the numba kernels
(`cfr_kernels`, which equal OpenSpiel's solvers bit for bit: test_cfr.py) are two
independent implementations of the same traversal; their current and average policies must
agree after every iteration, for every update rule.
"""

import numpy as np
import pyspiel
import pytest

from ospiel_team import errors
from ospiel_team.algorithms.nash import cfr
from ospiel_team.algorithms.nash import cfr_jax
from ospiel_team.tree.game_tree import GameTree

# rule -> the solver's options (the same for both implementations).
RULES = {
    "cfr": {},
    "cfr_plus": dict(linear_averaging=True, regret_matching_plus=True),
    "simultaneous_linear": dict(alternating_updates=False, linear_averaging=True),
    "dcfr": dict(rule="dcfr"),
    "pcfr_plus": dict(rule="pcfr+"),
    "pdcfr_plus": dict(rule="pdcfr+", alpha=2.3, gamma=5.0),
}


def _make(tree, rule):
  def make(backend):
    cls = cfr.TreeCFRSolver if backend == "numba" else cfr_jax.JaxTreeCFRSolver
    return cls(tree, **RULES[rule])
  return make


_TREES = {}


def _tree(name):
  if name not in _TREES:
    _TREES[name] = GameTree(pyspiel.load_game(name))
  return _TREES[name]


def _run_both(make, iterations):
  numba_solver, jax_solver = make("numba"), make("jax")
  worst = 0.0
  for _ in range(iterations):
    numba_solver.evaluate_and_update_policy()
    jax_solver.evaluate_and_update_policy()
    for get in ("current_policy_array", "average_policy_array"):
      diff = np.abs(getattr(numba_solver, get)() - getattr(jax_solver, get)()).max()
      worst = max(worst, float(diff))
  return worst, numba_solver


# Every regret update (RM, RM+, discounted, predictive; alternating and simultaneous) in the
# default suite; the other two rules, and every rule on leduc for longer, with -m slow.
FAST = ["cfr_plus", "dcfr", "pdcfr_plus", "simultaneous_linear"]


@pytest.mark.parametrize("rule", [r if r in FAST else pytest.param(r, marks=pytest.mark.slow)
                                  for r in sorted(RULES)])
def test_kuhn_every_rule(rule):
  tree = _tree("kuhn_poker")
  worst, solver = _run_both(_make(tree, rule), 12)
  assert worst <= 1e-9
  # Not a trivial agreement: the policies moved away from uniform.
  assert np.abs(solver.current_policy_array() - tree.uniform_policy_array()).max() > 0.05


def test_leduc_cfr_plus():
  tree = _tree("leduc_poker")
  worst, _ = _run_both(_make(tree, "cfr_plus"), 6)
  assert worst <= 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("rule", sorted(RULES))
def test_leduc_every_rule_longer(rule):
  """30 iterations: further on, the dynamics amplify the different order of the additions.

  (DCFR on leduc_poker turns a perturbation of 1e-15 of its start into a policy difference of
  about 2e-11 after 30 iterations and 4e-8 after 50, in the numba solver alone; the JAX
  solver's difference from it grows the same way.)
  """
  tree = _tree("leduc_poker")
  worst, _ = _run_both(_make(tree, rule), 30)
  assert worst <= 1e-9


def test_batch_of_seeds_from_random_starts():
  """A batch of three seeded random starts, seed by seed as numba's."""
  tree = _tree("kuhn_poker")
  init = np.stack([cfr.random_policy_array(tree, s) for s in (1, 2, 3)])
  worst, _ = _run_both(lambda b: (cfr.BatchedTreeCFRSolver if b == "numba" else
                                  cfr_jax.JaxBatchedTreeCFRSolver)(
      tree, init, linear_averaging=True, regret_matching_plus=True), 8)
  assert worst <= 1e-9


def test_exploration_and_bad_arguments_are_refused():
  tree = _tree("kuhn_poker")
  with pytest.raises(errors.UserError, match="exploration"):
    cfr_jax.JaxBatchedTreeCFRSolver(tree, tree.uniform_policy_array()[None], exploration=0.01,
                                    noise_seeds=[0])
  with pytest.raises(errors.UserError, match="rule"):
    cfr_jax.JaxTreeCFRSolver(tree, rule="cfr++")
