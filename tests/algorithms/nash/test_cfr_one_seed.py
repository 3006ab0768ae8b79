"""The one-seed traversal (`cfr_kernels.cfr_traverse_one`) equals the batched kernel bit for bit.

A batch of one seed runs `cfr_traverse_one`, a batch of two `cfr_traverse`: the same start
twice in a batch of two must give, seed by seed, exactly the numbers of the batch of one, in
float64 and in float32 (the one-seed kernel keeps the arrays' precision), for every rule.
"""

import numpy as np
import pyspiel
import pytest

from ospiel_team.algorithms.nash import cfr
from ospiel_team.algorithms.nash import cfr_kernels
from ospiel_team.tree.game_tree import GameTree

OPTIONS = {
    "cfr_plus": dict(linear_averaging=True, regret_matching_plus=True),
    "cfr_simultaneous": dict(alternating_updates=False),
    "dcfr": dict(rule="dcfr"),
    "pdcfr_plus": dict(rule="pdcfr+", alpha=2.3, gamma=5.0),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("rule", sorted(OPTIONS))
def test_one_seed_equals_the_batched_kernel(rule, dtype):
  tree = GameTree(pyspiel.load_game("leduc_poker"))
  init = cfr.random_policy_array(tree, 3)[None]
  one = cfr.BatchedTreeCFRSolver(tree, init, dtype=dtype, **OPTIONS[rule])
  two = cfr.BatchedTreeCFRSolver(tree, np.concatenate([init, init]), dtype=dtype,
                                 **OPTIONS[rule])
  assert one._traverse_kernel is cfr_kernels.cfr_traverse_one  # noqa: SLF001
  assert two._traverse_kernel is cfr_kernels.cfr_traverse  # noqa: SLF001
  for _ in range(15):
    one.evaluate_and_update_policy()
    two.evaluate_and_update_policy()
    for get in ("current_policy_array", "average_policy_array"):
      a, b = getattr(one, get)(), getattr(two, get)()
      assert a.dtype == b.dtype
      np.testing.assert_array_equal(a[0], b[0])
      np.testing.assert_array_equal(a[0], b[1])
