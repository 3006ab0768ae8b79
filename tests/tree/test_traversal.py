"""traversal.preorder_and_size on a small tree checked by hand, and on a game tree against a
recursive walk of its arrays."""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.tree import traversal
from ospiel_team.tree.game_tree import GameTree


def test_small_tree_by_hand():
  #        0
  #     /  |  \
  #    1   2   3
  #   / \       \
  #  4   5       6
  #      |
  #      7
  # Walk: 0 1 4 5 7 2 3 6.
  parent = np.array([-1, 0, 0, 0, 1, 1, 3, 5])
  levels = [(0, 1), (1, 4), (4, 7), (7, 8)]
  pre, size = traversal.preorder_and_size(parent, levels)
  np.testing.assert_array_equal(pre, [0, 1, 5, 6, 2, 3, 7, 4])
  np.testing.assert_array_equal(size, [8, 4, 1, 2, 1, 2, 1, 1])
  np.testing.assert_array_equal(traversal.subtree_sizes(parent, levels), size)


def test_single_node():
  pre, size = traversal.preorder_and_size(np.array([-1]), [(0, 1)])
  np.testing.assert_array_equal(pre, [0])
  np.testing.assert_array_equal(size, [1])


def test_parents_out_of_order_are_rejected():
  with pytest.raises(ValueError, match=r"node_parent\[2:4\]"):
    traversal.preorder_and_size(np.array([-1, 0, 1, 0]), [(0, 1), (1, 2), (2, 4)])


def test_game_tree_matches_a_recursive_walk():
  tree = GameTree(pyspiel.load_game("kuhn_poker"))
  children = {}
  for n in range(1, tree.num_nodes):
    children.setdefault(int(tree.node_parent[n]), []).append(n)
  order, size = [], np.zeros(tree.num_nodes, dtype=np.int64)

  def walk(n):
    order.append(n)
    size[n] = 1 + sum(walk(c) for c in children.get(n, []))
    return size[n]
  walk(0)
  expected = np.empty(tree.num_nodes, dtype=np.int64)
  expected[np.asarray(order)] = np.arange(tree.num_nodes)
  pre, got_size = traversal.preorder_and_size(tree.node_parent, tree.level_slices)
  np.testing.assert_array_equal(pre, expected)
  np.testing.assert_array_equal(got_size, size)
  np.testing.assert_array_equal(tree.preorder, expected)
