"""One number for one policy's value, whichever tool computes it.

The package's convention: a cooperative (common-payoff) game reports the common payoff, the
number every player receives (Tian et al. 2020, "Joint Policy Search for Multi-agent
Collaboration with Imperfect Information", NeurIPS 2020, arXiv 2008.06495: its tables and
proven optima); a two-team zero-sum game reports team 1's summed return (Zhang and Sandholm
2022, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree Decompositions",
AAAI 2022, arXiv 2109.05284). OpenSpiel's `expected_game_score.policy_value` is the
independent check.
"""

import json
import subprocess
import sys

import pyspiel
import pytest
from open_spiel.python.algorithms import expected_game_score

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.algorithms.team import team_lp
from ospiel_team.runner import comparison
from ospiel_team.runner import metrics
from ospiel_team.runner import reference
from ospiel_team.tree import evaluation
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree


def _openspiel_values(game, tree, pi):
  return expected_game_score.policy_value(game.new_initial_state(),
                                          [tree.tabular_policy(pi)] * game.num_players())


def _cli_json(module, *args):
  res = subprocess.run([sys.executable, "-m", module, *args, "--json"], capture_output=True,
                       text=True, timeout=300, check=True)
  return json.loads(res.stdout.strip().splitlines()[-1])


def test_a_cooperative_policy_has_one_value_in_every_tool(tmp_path):
  """mini_bridge(size=3)'s optimal policy: 1.125 everywhere (README's proven optimum)."""
  game = pyspiel.load_game("mini_bridge(size=3)")
  tree = GameTree(game)
  opt = coop_optimum.solve(tree)
  pi = opt.policy_array
  os_values = _openspiel_values(game, tree, pi)
  assert os_values[0] == pytest.approx(os_values[1], abs=1e-12)  # a common payoff
  common = os_values[0]
  assert common == pytest.approx(1.125, abs=1e-12)
  assert evaluation.game_value(tree, pi)[0] == pytest.approx(common, abs=1e-12)
  assert opt.value == pytest.approx(common, abs=1e-12)
  assert metrics.value(tree, pi) == pytest.approx(common, abs=1e-12)
  assert reference.reference(game, tree, "value")["value"] == pytest.approx(common, abs=1e-12)
  result = jps.JointPolicySearch(tree, depth=1, max_iterations=2).improve(pi)
  assert result.initial_value == pytest.approx(common, abs=1e-12)
  assert result.value == pytest.approx(common, abs=1e-12)  # nothing beats the optimum
  cli = _cli_json("ospiel_team.cli.coop_optimum", "--game", "mini_bridge(size=3)")
  assert cli["value"] == pytest.approx(common, abs=1e-12) and "team_value" not in cli
  # the runner's rows: a JPS result read by the runner's metric, against the same reference
  rows, _ = comparison.run_all("mini_bridge(size=3)", ["jps"], iterations=2, num_points=1,
                            progress=False, out=str(tmp_path))
  for r in rows:
    assert r["metric_name"] == "value" and r["metric"] <= common + 1e-12
  jps_rows = [r for r in rows if r["variant"] == "jps"]
  assert jps_rows and all(r["jps_start_value"] <= r["metric"] + 1e-12 for r in jps_rows)


def test_a_team_policy_has_one_value_in_every_tool():
  """Three-player Kuhn, teams 0,1|2: team 1's summed return everywhere."""
  game = pyspiel.load_game("kuhn_poker(players=3)")
  tree = GameTree(game)
  teams = teams_lib.parse_teams("0,1|2", 3)
  pi = tree.uniform_policy_array()
  os_values = _openspiel_values(game, tree, pi)
  team1 = os_values[0] + os_values[1]
  assert evaluation.game_value(tree, pi)[[0, 1]].sum() == pytest.approx(team1, abs=1e-12)
  assert metrics.value(tree, pi, teams) == pytest.approx(team1, abs=1e-12)
  result = jps.JointPolicySearch(tree, team=[0, 1], max_iterations=1).improve(pi)
  assert result.initial_value == pytest.approx(team1, abs=1e-12)
  assert result.value == pytest.approx(
      sum(_openspiel_values(game, tree, result.policy_array)[:2]), abs=1e-12)


def test_the_team_lp_value_is_team_ones_summed_return_in_every_tool():
  """Kuhn poker as teams 0|1: the TMECor value is player 0's game value, -1/18 (Kuhn 1950)."""
  game = pyspiel.load_game("kuhn_poker")
  tree = GameTree(game)
  teams = teams_lib.parse_teams("0|1", 2)
  res = team_lp.solve(tree, teams)
  assert res.value == pytest.approx(-1 / 18, abs=1e-9)
  # one-player teams: the plans' marginals are the equilibrium behaviour strategies
  pi = tree.uniform_policy_array()
  for plan in res.plans:
    pi = plan.marginal_policy_array(base=pi)
  assert metrics.team_value_vs_br(tree, pi, teams) == pytest.approx(-1 / 18, abs=1e-9)
  assert metrics.value(tree, pi, teams) == pytest.approx(-1 / 18, abs=1e-9)
  assert _openspiel_values(game, tree, pi)[0] == pytest.approx(-1 / 18, abs=1e-9)
  ref = reference.reference(game, tree, "team_value_vs_br", teams)
  assert ref["value"] == pytest.approx(-1 / 18, abs=1e-9)
  cli = _cli_json("ospiel_team.cli.team_solve", "--game", "kuhn_poker", "--teams", "0|1")
  assert cli["value"] == pytest.approx(-1 / 18, abs=1e-9)
