"""backend="jax" of the tree CFR solvers equals the numba kernels (float64, to 1e-9).

The JAX backend (`cfr_jax`: segment sums over the same flat arrays) and the numba kernels
(`cfr_kernels`, which equal OpenSpiel's solvers bit for bit: test_cfr.py) are two
independent implementations of the same traversal; their current and average policies must
agree after every iteration, for every update rule.
"""

import numpy as np
import pyspiel
import pytest

from ospiel_team import errors
from ospiel_team.algorithms.nash import cfr
from ospiel_team.tree.game_tree import GameTree

RULES = {
    "cfr": lambda tree, b: cfr.TreeCFRSolver(tree, backend=b),
    "cfr_plus": lambda tree, b: cfr.TreeCFRPlusSolver(tree, backend=b),
    "simultaneous_linear": lambda tree, b: cfr.TreeCFRSolver(
        tree, alternating_updates=False, linear_averaging=True, backend=b),
    "dcfr": lambda tree, b: cfr.TreeDCFRSolver(tree, backend=b),
    "pcfr_plus": lambda tree, b: cfr.TreePCFRPlusSolver(tree, backend=b),
    "pdcfr_plus": lambda tree, b: cfr.TreePDCFRPlusSolver(tree, backend=b),
}
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
  worst, solver = _run_both(lambda b: RULES[rule](tree, b), 12)
  assert worst <= 1e-9
  # Not a trivial agreement: the policies moved away from uniform.
  assert np.abs(solver.current_policy_array() - tree.uniform_policy_array()).max() > 0.05


def test_leduc_cfr_plus():
  tree = _tree("leduc_poker")
  worst, _ = _run_both(lambda b: RULES["cfr_plus"](tree, b), 6)
  assert worst <= 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("rule", sorted(RULES))
def test_leduc_every_rule_longer(rule):
  tree = _tree("leduc_poker")
  worst, _ = _run_both(lambda b: RULES[rule](tree, b), 50)
  assert worst <= 1e-9


def test_batch_of_seeds_from_random_starts():
  """A batch of three seeded random starts, seed by seed as numba's."""
  tree = _tree("kuhn_poker")
  init = np.stack([cfr.random_policy_array(tree, s) for s in (1, 2, 3)])
  worst, _ = _run_both(lambda b: cfr.BatchedTreeCFRSolver(
      tree, init, linear_averaging=True, regret_matching_plus=True, backend=b), 8)
  assert worst <= 1e-9


def test_bad_backend_and_exploration_are_refused():
  tree = _tree("kuhn_poker")
  with pytest.raises(errors.UserError, match="backend"):
    cfr.TreeCFRPlusSolver(tree, backend="cuda")
  with pytest.raises(errors.UserError, match="exploration"):
    cfr.BatchedTreeCFRSolver(tree, tree.uniform_policy_array()[None], exploration=0.01,
                             noise_seeds=[0], backend="jax")
