"""Bad policy arrays and policies of another game are errors, never silently wrong numbers."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score

from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.nash import cfr as tree_cfr
from ospiel_team.tree import evaluation as ev
from ospiel_team.tree.game_tree import GameTree


@pytest.fixture(scope="module")
def kuhn():
  return GameTree(pyspiel.load_game("kuhn_poker"))


def _bad_arrays(tree):
  pi = tree.uniform_policy_array()
  nan = pi.copy()
  nan[3, 1] = np.nan
  neg = pi.copy()
  neg[2] = [-0.5, 1.5]  # sums to 1 but negative
  return [
      ("times 3", pi * 3, r"does not sum to 1 \(sums to 3\.0\) at infoset 0 "),
      ("transposed", pi.T, r"shape \(2, 12\).*transposed"),
      ("nan", nan, r"not finite \(nan\) at action 1 of infoset 3 "),
      ("negative", neg, r"negative probability -0\.5 at action 0 of infoset 2 "),
      ("too few rows", pi[:-1], r"too few rows: kuhn_poker\(\) has 12 infosets"),
      ("inf", np.full_like(pi, np.inf), r"not finite \(inf\) at action 0 of infoset 0 "),
  ]


@pytest.mark.parametrize("fn", [ev.game_value, ev.nash_conv, ev.best_response_values,
                                ev.player_improvements, ev.reach_probabilities,
                                ev.history_values, ev.counterfactual_action_values,
                                ev.edge_probabilities,
                                lambda t, pi: ev.best_response(t, pi, 0),
                                lambda t, pi: ev.counterfactual_reach(t, pi, 1)])
def test_evaluation_entry_points_reject_bad_policies(kuhn, fn):
  for _, bad, msg in _bad_arrays(kuhn):
    with pytest.raises(ValueError, match=msg):
      fn(kuhn, bad)


def test_solvers_reject_bad_initial_policies(kuhn):
  for _, bad, msg in _bad_arrays(kuhn):
    with pytest.raises(ValueError, match=msg):
      tree_cfr.TreeCFRSolver(kuhn, initial_policy=bad)
    with pytest.raises(ValueError, match=msg):
      tree_cfr.openspiel_cfr_solver(kuhn.game, kuhn, initial_policy=bad)
  tree = GameTree(pyspiel.load_game("mini_bridge(size=2)"))
  pi = tree.uniform_policy_array()
  pi[0] = np.nan
  with pytest.raises(ValueError, match="not finite"):
    jps.JointPolicySearch(tree).improve(pi)
  with pytest.raises(ValueError, match="does not sum to 1"):
    jps.JointPolicySearch(tree).improve(tree.uniform_policy_array() * 2)


def test_probability_on_illegal_action_is_named():
  tree = GameTree(pyspiel.load_game("leduc_poker"))
  pi = tree.uniform_policy_array()
  i = int(np.nonzero(~tree.infoset_legal.all(axis=1))[0][0])
  a = int(np.nonzero(~tree.infoset_legal[i])[0][0])
  pi[i] = 0.0
  pi[i, a] = 1.0
  with pytest.raises(ValueError, match=f"illegal action {a} of infoset {i} "):
    ev.game_value(tree, pi)


def test_valid_policies_still_evaluate(kuhn):
  # Uniform Kuhn, as OpenSpiel's expected_game_score computes it.
  uniform = policy_lib.UniformRandomPolicy(kuhn.game)
  expected = expected_game_score.policy_value(kuhn.game.new_initial_state(), [uniform] * 2)
  value = ev.game_value(kuhn, kuhn.uniform_policy_array())
  np.testing.assert_allclose(value, expected)
  # The fast path for trusted callers skips the check: same value.
  np.testing.assert_allclose(ev.game_value(kuhn, kuhn.uniform_policy_array(), validate=False),
                             value)


def test_policy_of_another_game_names_both_games():
  small = GameTree(pyspiel.load_game("mini_bridge(size=3)"))
  other = policy_lib.TabularPolicy(pyspiel.load_game("mini_bridge(size=4)"))
  with pytest.raises(ValueError, match=r"belongs to mini_bridge\(size=4\).*mini_bridge\(size=3\)"):
    small.policy_array(other)
  with pytest.raises(ValueError, match=r"belongs to mini_bridge\(size=4\)"):
    small.tabular_policy(small.uniform_policy_array(), template=other)
  # The same game spelled differently ("kuhn_poker" vs its explicit default) is the same game.
  tree = GameTree(pyspiel.load_game("kuhn_poker(players=2)"))
  pi = tree.policy_array(policy_lib.TabularPolicy(pyspiel.load_game("kuhn_poker")))
  np.testing.assert_allclose(pi, tree.uniform_policy_array())
