"""TreeCFRSolver equals OpenSpiel's CFRSolver / CFRPlusSolver policies, iteration by iteration."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as os_cfr

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.algorithms import tree_cfr
from ospiel_team.algorithms.game_tree import GameTree

GAMES = ["kuhn_poker", "tiny_hanabi", "comm(length=2)", "simple_bidding(size=3)",
         "mini_bridge(size=2)", "kuhn_poker(players=3)"]


def _max_diff(tree, reference, ours):
  cur = np.abs(tree.policy_array(reference.current_policy()) - ours.current_policy_array())
  avg = np.abs(tree.policy_array(reference.average_policy()) - ours.average_policy_array())
  return max(cur.max(), avg.max())


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("seed", [None, 7])
def test_equals_openspiel_cfr(game_name, seed):
  game = pyspiel.load_game(game_name)
  tree = GameTree(game)
  init = None if seed is None else tree_cfr.random_policy_array(tree, seed)
  reference = tree_cfr.openspiel_cfr_solver(game, tree, init)
  ours = tree_cfr.TreeCFRSolver(tree, initial_policy=init)
  for _ in range(8):
    reference.evaluate_and_update_policy()
    ours.evaluate_and_update_policy()
    # Same floating-point operations in the same order: equal, not just close.
    assert _max_diff(tree, reference, ours) <= 1e-14


@pytest.mark.parametrize("game_name", ["kuhn_poker", "comm(length=2)", "simple_bidding(size=3)"])
def test_equals_openspiel_cfr_plus(game_name):
  game = pyspiel.load_game(game_name)
  tree = GameTree(game)
  init = tree_cfr.random_policy_array(tree, 3)
  reference = tree_cfr.openspiel_cfr_solver(game, tree, init, plus=True)
  ours = tree_cfr.TreeCFRPlusSolver(tree, initial_policy=init)
  for _ in range(8):
    reference.evaluate_and_update_policy()
    ours.evaluate_and_update_policy()
    assert _max_diff(tree, reference, ours) <= 1e-14


@pytest.mark.parametrize("game_name", ["kuhn_poker", "tiny_hanabi", "simple_bidding(size=3)"])
def test_equals_openspiel_simultaneous_updates(game_name):
  game = pyspiel.load_game(game_name)
  tree = GameTree(game)
  reference = os_cfr._CFRSolver(game, alternating_updates=False,  # pylint: disable=protected-access
                                linear_averaging=False, regret_matching_plus=False)
  ours = tree_cfr.TreeCFRSolver(tree, alternating_updates=False)
  for _ in range(8):
    reference.evaluate_and_update_policy()
    ours.evaluate_and_update_policy()
    assert _max_diff(tree, reference, ours) <= 1e-14


def test_random_initial_policy_is_seeded_and_valid():
  tree = GameTree(pyspiel.load_game("simple_bidding(size=3)"))
  a = tree_cfr.random_policy_array(tree, 1)
  tree.validate_policy_array(a)
  np.testing.assert_array_equal(a, tree_cfr.random_policy_array(tree, 1))
  assert not np.allclose(a, tree_cfr.random_policy_array(tree, 2))
  with pytest.raises(ValueError):
    tree_cfr.TreeCFRSolver(tree, initial_policy=np.ones((tree.num_infosets, tree.num_actions)))


def test_preorder_matches_a_recursive_walk():
  """The preorder index equals the order of a recursive depth-first walk of the arrays."""
  tree = GameTree(pyspiel.load_game("kuhn_poker"))
  children = {}
  for n in range(1, tree.num_nodes):
    children.setdefault(int(tree.node_parent[n]), []).append(n)
  order = []

  def walk(n):
    order.append(n)
    for c in children.get(n, []):
      walk(c)
  walk(0)
  expected = np.empty(tree.num_nodes, dtype=np.int64)
  expected[np.asarray(order)] = np.arange(tree.num_nodes)
  np.testing.assert_array_equal(tree_cfr.preorder_index(tree), expected)
