"""The runner's metrics (`runner.metrics`) against OpenSpiel's own functions."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability

import ospiel_team  # noqa: F401
from ospiel_team.runner import metrics
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree


def _random_policy(tree: GameTree, seed: int) -> np.ndarray:
  pi = np.random.default_rng(seed).random((tree.num_infosets, tree.num_actions))
  pi *= tree.infoset_legal
  return pi / pi.sum(axis=1, keepdims=True)


def test_nash_conv_is_openspiels():
  game = pyspiel.load_game("leduc_poker")
  tree = GameTree(game)
  pi = _random_policy(tree, 0)
  assert metrics.nash_conv(tree, pi) == pytest.approx(
      exploitability.nash_conv(game, tree.tabular_policy(pi)), abs=1e-9)


def test_value_is_the_common_payoff_or_team_ones_summed_return():
  game = pyspiel.load_game("tiny_hanabi")
  tree = GameTree(game)
  pi = _random_policy(tree, 1)
  values = expected_game_score.policy_value(game.new_initial_state(),
                                            [tree.tabular_policy(pi)] * 2)
  assert values[0] == pytest.approx(values[1], abs=1e-12)  # a common payoff
  assert metrics.value(tree, pi) == pytest.approx(values[0], abs=1e-9)
  game3 = pyspiel.load_game("kuhn_poker(players=3)")
  tree3 = GameTree(game3)
  pi3 = _random_policy(tree3, 4)
  v3 = expected_game_score.policy_value(game3.new_initial_state(),
                                        [tree3.tabular_policy(pi3)] * 3)
  teams = teams_lib.parse_teams("0,1|2", 3)
  assert metrics.value(tree3, pi3, teams) == pytest.approx(v3[0] + v3[1], abs=1e-9)
  with pytest.raises(ValueError, match="needs teams"):
    metrics.value(tree3, pi3)


def test_team_value_vs_br_with_a_one_player_opponent_is_minus_its_best_response():
  """Teams 0,1|2 of three-player Kuhn (zero-sum): team 1 gets minus player 2's best response
  value, computed here by OpenSpiel's best_response against the same policy."""
  game = pyspiel.load_game("kuhn_poker(players=3)")
  tree = GameTree(game)
  pi = _random_policy(tree, 2)
  teams = teams_lib.parse_teams("0,1|2", 3)
  br = os_best_response.BestResponsePolicy(game, 2, tree.tabular_policy(pi))
  expected = -br.value(game.new_initial_state())
  assert metrics.team_value_vs_br(tree, pi, teams) == pytest.approx(expected, abs=1e-9)


def test_default_metric_and_unknown_metric():
  assert metrics.default_metric(pyspiel.load_game("kuhn_poker")) == "nash_conv"
  assert metrics.default_metric(pyspiel.load_game("tiny_hanabi")) == "value"
  teams = teams_lib.parse_teams("0,1|2", 3)
  assert metrics.default_metric(pyspiel.load_game("kuhn_poker(players=3)"),
                                teams) == "team_value_vs_br"
  assert "nash_conv" in metrics.LOWER_IS_BETTER
  with pytest.raises(ValueError, match="unknown metric 'bogus'; known: nash_conv"):
    metrics.metric_fn("bogus")


def test_check_metric_names_what_a_metric_needs():
  kuhn3 = pyspiel.load_game("kuhn_poker(players=3)")
  with pytest.raises(ValueError, match="'team_value_vs_br' needs two teams"):
    metrics.check_metric("team_value_vs_br", pyspiel.load_game("tiny_hanabi"), None)
  with pytest.raises(ValueError, match="'value' on kuhn_poker.*needs two teams"):
    metrics.check_metric("value", kuhn3, None)
  metrics.check_metric("value", kuhn3, teams_lib.parse_teams("0,1|2", 3))
