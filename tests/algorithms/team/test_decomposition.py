"""The batched TeamDecomposition build equals its per-state reference loop, array for array."""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import decomposition as team_decomposition
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.algorithms.team.decomposition import TeamDecomposition
from ospiel_team.games import team_instances


def assert_same_decomposition(ref: TeamDecomposition, new: TeamDecomposition):
  assert ref.num_local == new.num_local
  assert len(ref.states) == len(new.states)
  for s0, s1 in zip(ref.states, new.states):
    for f in ("index", "anchor", "num_sets", "offset"):
      assert getattr(s0, f) == getattr(s1, f), f
    for f in ("nodes", "infosets", "reach", "actions", "local_set"):
      x, y = getattr(s0, f), getattr(s1, f)
      assert x.dtype == y.dtype and x.shape == y.shape, f
      np.testing.assert_array_equal(x, y, err_msg=f)
    assert (s0.parent_to_set is None) == (s1.parent_to_set is None)
    if s0.parent_to_set is not None:
      np.testing.assert_array_equal(s0.parent_to_set, s1.parent_to_set)
  d0, r0 = ref.constraint_system()
  d1, r1 = new.constraint_system()
  assert d0.shape == d1.shape and (d0 != d1).nnz == 0
  np.testing.assert_array_equal(r0, r1)
  assert (ref.leaf_matrix != new.leaf_matrix).nnz == 0
  np.testing.assert_array_equal(ref.terminal_leaf, new.terminal_leaf)
  np.testing.assert_array_equal(ref.tt_local, new.tt_local)
  np.testing.assert_array_equal(ref.tt_local_inf, new.tt_local_inf)


# One instance per family with multi-node public states (Kuhn, Leduc, Liar's Dice) and the
# one-node-state family (Goofspiel), plus a two-player team 2 (22K5).
@pytest.mark.parametrize("name", ["21K4", "22K5", "21L133", "31L'132", "21D3", "21GL"])
def test_batched_equals_reference_loop(name):
  game, teams = team_instances.TABLE1_INSTANCES[name]
  tree = GameTree(pyspiel.load_game(game))
  for members in teams:
    ref = TeamDecomposition(tree, members, batched=False)
    new = TeamDecomposition(tree, members)
    assert_same_decomposition(ref, new)
    # The reference path really is the other code path.
    assert not ref.batched and new.batched


def test_unique_rows_matches_numpy():
  rng = np.random.default_rng(0)
  for width in (1, 3, 8, 9):
    packed = rng.integers(0, 4, size=(200, width)).astype(np.uint8)
    packed[rng.integers(0, 2, size=200).astype(bool)] = 0
    u0, i0 = np.unique(packed, axis=0, return_inverse=True)
    u1, i1 = team_decomposition._unique_rows(packed)  # pylint: disable=protected-access
    np.testing.assert_array_equal(u0, u1)
    np.testing.assert_array_equal(i0.reshape(-1), i1)


def test_batched_max_local_still_refuses():
  game, teams = team_instances.TABLE1_INSTANCES["21K6"]
  tree = GameTree(pyspiel.load_game(game))
  with pytest.raises(MemoryError, match="max_local=1000"):
    TeamDecomposition(tree, teams[0], max_local=1000)
