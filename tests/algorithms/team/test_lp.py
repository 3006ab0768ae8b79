"""The team LP (Zhang & Sandholm) against independent computations."""

import json

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import team_lp
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.lp import plan_mip
from ospiel_team.tree import evaluation
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.arrays import TreeArrays
from ospiel_team.tree.game_tree import GameTree
from tests import repo as tests_repo


def _chance(tree):
  return tree.chance_reach()[tree.terminals]


_SOLVED = {}


def _solve(game, teams):
  key = (game, teams)
  if key not in _SOLVED:
    _SOLVED[key] = team_lp.solve(game, teams)
  return _SOLVED[key]


# ---------------------------------------------------------------------------------------------
# Teams of one player: the two-player zero-sum value from independent methods.
def test_kuhn_value_closed_form_and_cfr_plus():
  res = _solve("kuhn_poker", "0|1")
  assert res.value == pytest.approx(-1.0 / 18.0, abs=1e-9)  # Kuhn (1950)
  game = pyspiel.load_game("kuhn_poker")
  solver = pyspiel.CFRPlusSolver(game)
  for _ in range(2000):
    solver.evaluate_and_update_policy()
  avg = solver.average_policy()
  v = pyspiel.expected_returns(game.new_initial_state(), avg, -1, True)[0]
  eps = pyspiel.nash_conv(game, avg)
  assert abs(res.value - v) <= eps + 1e-9
  # Team sizes of one player: #Seq = the sequence-form sizes (6 infosets x 2 actions + empty).
  assert res.sequences == [13, 13]


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_single_player_teams_match_sequence_form_lp(game):
  pytest.importorskip("cvxpy")
  pytest.importorskip("ecos")  # OpenSpiel's lp_solver default solver
  from open_spiel.python.algorithms import sequence_form_lp
  v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(pyspiel.load_game(game))
  res = _solve(game, "0|1")
  assert res.value == pytest.approx(v0, abs=1e-6)
  assert -res.value == pytest.approx(v1, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# Plans: constraints, bilinear value, best responses computed independently.
@pytest.mark.parametrize("game,teams", [
    ("kuhn_poker", "0|1"),
    ("kuhn_poker(players=3)", "0,1|2"),
    ("kuhn_poker(players=3)", "0|1,2"),
    ("team_kuhn(players=3,ranks=3)", "0,1|2"),
    ("team_kuhn(players=4,ranks=4)", "0,2|1,3"),  # two players on both teams
])
def test_plans_feasible_and_value_is_both_best_responses(game, teams):
  res = _solve(game, teams)
  tree = res.plans[0].decomposition.tree
  t = res.teams
  for plan in res.plans:
    assert plan.constraint_violation() < 1e-8
    x = plan.terminal_reach()
    assert x.min() > -1e-9 and x.max() < 1 + 1e-9
  u = teams_lib.team_terminal_utilities(tree, t)
  ch = _chance(tree)
  x1, y2 = res.plans[0].terminal_reach(), res.plans[1].terminal_reach()
  assert np.sum(ch * u[:, 0] * x1 * y2) == pytest.approx(res.value, abs=1e-8)
  # Team 2 best-responds to team 1's plan: its best value is -value (team 1 guarantees value).
  for method in ("lp", "mip"):
    br2 = team_best_response.team_best_response_value(tree, t, 1, ch * x1 * u[:, 1], method=method)
    assert br2 == pytest.approx(-res.value, abs=1e-7)
    br1 = team_best_response.team_best_response_value(tree, t, 0, ch * y2 * u[:, 0], method=method)
    assert br1 == pytest.approx(res.value, abs=1e-7)
  # Brute force over joint pure strategies (independent of both LP and MIP).
  for team, w in ((0, ch * y2 * u[:, 0]), (1, ch * x1 * u[:, 1])):
    members = t.teams[team]
    try:
      sizes = [len(plan_mip.pure_plans(tree, p, max_plans=100_000)) for p in members]
    except ValueError:  # too many pure plans to enumerate
      sizes = [np.inf]
    if len(members) <= 2 and np.prod(sizes) <= 2_000_000:  # 21K3: 729 x 1000
      bf = plan_mip.brute_force_best_joint(tree, members, w)
      assert bf.value == pytest.approx(res.value if team == 0 else -res.value, abs=1e-7)
    elif game == "team_kuhn(players=3,ranks=3)":
      raise AssertionError(f"brute force expected to run on {game}: {sizes}")


def test_sampling_reproduces_the_plan_exactly_and_empirically():
  res = _solve("team_kuhn(players=3,ranks=3)", "0,1|2")
  tree = res.plans[0].decomposition.tree
  plan = res.plans[0]
  x = plan.terminal_reach()
  dist = plan.pure_strategy_distribution()
  assert sum(p for p, _ in dist) == pytest.approx(1.0, abs=1e-9)

  def reach_of(strategy):
    pi = tree.uniform_policy_array()
    for i, a in strategy.items():
      pi[i] = 0.0
      pi[i, a] = 1.0
    r = evaluation.reach_by_owner(tree, pi)[tree.terminals]
    return np.prod(r[:, list(plan.members)], axis=1)

  mix = sum(p * reach_of(s) for p, s in dist)
  np.testing.assert_allclose(mix, x, atol=1e-8)
  rng = np.random.default_rng(1)
  n = 400
  emp = sum(reach_of(plan.sample_pure_strategy(rng)) for _ in range(n)) / n
  assert np.abs(emp - x).max() < 0.15  # ~4 standard deviations for 400 samples
  # Each pure strategy in the support guarantees at most the value (it is a team-1 strategy).
  pi = res.profile_policy(rng=0)
  tree.validate_policy_array(pi)
  assert team_best_response.team_value_vs_best_response(tree, pi, res.teams) <= res.value + 1e-9


def test_team_value_vs_best_response_and_runner():
  from ospiel_team.runner import comparison
  game = "kuhn_poker(players=3)"
  res = _solve(game, "0,1|2")
  tree = res.plans[0].decomposition.tree
  rng = np.random.default_rng(3)
  pi = rng.random((tree.num_infosets, tree.num_actions)) * tree.infoset_legal
  pi /= pi.sum(axis=1, keepdims=True)
  # Team 2 is player 2 alone: its best response is OpenSpiel-checked evaluation.best_response.
  metric = team_best_response.team_value_vs_best_response(tree, pi, res.teams)
  assert metric == pytest.approx(-float(evaluation.best_response(tree, pi, 2).value), abs=1e-12)
  assert metric <= res.value + 1e-9
  # A two-player opponent team: LP and MIP agree.
  t2 = teams_lib.parse_teams("0|1,2", 3)
  a = team_best_response.team_value_vs_best_response(tree, pi, t2, method="lp")
  b = team_best_response.team_value_vs_best_response(tree, pi, t2, method="mip")
  assert a == pytest.approx(b, abs=1e-9)
  assert a <= _solve(game, "0|1,2").value + 1e-9
  # One-player teams: the plan's marginal behaviour is the plan itself (Kuhn's theorem), so the
  # 2-player Kuhn equilibrium's NashConv is 0 (OpenSpiel-checked evaluation.nash_conv).
  res2 = _solve("kuhn_poker", "0|1")
  tree2 = res2.plans[0].decomposition.tree
  pi2 = res2.plans[1].marginal_policy_array(res2.plans[0].marginal_policy_array())
  assert float(evaluation.nash_conv(tree2, pi2)) == pytest.approx(0.0, abs=1e-9)
  assert float(evaluation.game_value(tree2, pi2)[0]) == pytest.approx(res2.value, abs=1e-9)
  rows, _ = comparison.run_all(game, ["team_lp", "cfr"], iterations=4, metric="team_value_vs_br",
                            progress=False, tree=tree)
  lp_rows = [r for r in rows if r["solver"] == "team_lp"]
  assert lp_rows and lp_rows[0]["tmecor_value"] == pytest.approx(res.value, abs=1e-9)
  for r in rows:
    assert r["metric"] <= res.value + 1e-9


# ---------------------------------------------------------------------------------------------
# Team declarations and assumption checks.
def test_parse_teams_and_errors():
  t = teams_lib.parse_teams("0,1|2", 3)
  assert t.teams == ((0, 1), (2,)) and str(t) == "0,1|2"
  assert list(t.player_team) == [0, 0, 1]
  with pytest.raises(ValueError, match="'x'"):
    teams_lib.parse_teams("0,x|2", 3)
  with pytest.raises(ValueError, match=r"players \[2\]"):
    teams_lib.parse_teams("0|1", 3)
  with pytest.raises(ValueError, match="out of range"):
    teams_lib.parse_teams("0|3", 3)
  with pytest.raises(ValueError, match="two teams"):
    teams_lib.parse_teams("0|0,1", 2)


def _untimeable_tree(game: pyspiel.Game) -> GameTree:
  """A two-player, two-action tree whose infoset "B" has histories at depths 1 and 2: player 0
  moves; after action 1 chance moves once (probability 1) before player 1, who cannot tell."""
  int64 = lambda *v: np.asarray(v, dtype=np.int64)  # noqa: E731
  returns = np.zeros((8, 2))
  returns[[3, 4, 6, 7], 0] = [1.0, -1.0, 2.0, -2.0]
  returns[:, 1] = -returns[:, 0]
  arrays = TreeArrays(
      node_parent=int64(-1, 0, 0, 1, 1, 2, 5, 5), node_action=int64(-1, 0, 1, 0, 1, 0, 0, 1),
      node_player=int64(0, 1, -1, -4, -4, 1, -4, -4),
      node_depth=np.asarray([0, 1, 1, 2, 2, 2, 3, 3], dtype=np.int32),
      node_infoset=int64(0, 1, -1, -1, -1, 1, -1, -1), node_chance_prob=np.ones(8),
      node_returns=returns, infoset_player=int64(0, 1), infoset_legal=np.ones((2, 2), bool),
      infoset_keys=("A", "B"))
  return GameTree.from_arrays(game, arrays)


def test_zero_sum_and_timeable_checks():
  with pytest.raises(ValueError, match="not zero-sum"):
    teams_lib.check_assumptions("tiny_hanabi", "0|1")
  game = pyspiel.load_game("kuhn_poker")
  teams_lib.check_timeable(GameTree(game))
  tree = _untimeable_tree(game)
  with pytest.raises(ValueError, match="not timeable"):
    teams_lib.check_timeable(tree)
  with pytest.raises(ValueError, match="not timeable"):
    team_lp.TeamDecomposition(tree, [0])


def test_team_values_per_member():
  tree = GameTree(pyspiel.load_game("kuhn_poker(players=3)"))
  pi = tree.uniform_policy_array()
  v = teams_lib.team_values(tree, pi, teams_lib.parse_teams("0,1|2", 3))
  assert v["team"][0] == pytest.approx(v["players"][0] + v["players"][1])
  assert v["per_member"][0] == pytest.approx(v["team"][0] / 2)
  assert v["team"][0] + v["team"][1] == pytest.approx(0.0, abs=1e-12)


def test_cli_json():
  """`ospiel-team-solve` (the CLI lives in team_solve)."""
  import subprocess
  import sys
  proc = subprocess.run([sys.executable, "-m", "ospiel_team.cli.team_solve", "--game",
                         "kuhn_poker", "--teams", "0|1", "--json"], capture_output=True,
                        text=True, check=True)
  s = json.loads(proc.stdout)
  assert s["method"] == "lp" and s["seconds"] > 0
  assert s["value"] == pytest.approx(-1 / 18, abs=1e-9)
  assert s["sequences"] == [13, 13] and s["lp_nonzeros"] > 0 and s["terminals"] == 30


def test_table1_sizes_of_small_instances():
  """#Seq per team equals Table 1 (facts about the games, not about our LP)."""
  from ospiel_team.games import team_instances
  for name in ("21K3", "21K4"):
    game, teams = team_instances.TABLE1_INSTANCES[name]
    res = _solve(game, "|".join(",".join(map(str, t)) for t in teams))
    paper = team_instances.PAPER_TABLE1[name]
    assert res.sequences == [paper.seq1, paper.seq2]
    assert res.terminals == paper.terminals


def test_table_benchmark_script_runs(tmp_path):
  """benchmarks/team_lp_table.py on the smallest instance: sizes checked against Table 1, the
  default path (auto: the LP) and a second method (the belief DAG) that agrees on 21K3 = 0."""
  import os
  import subprocess
  import sys
  repo = tests_repo.REPO
  out = tmp_path / "t.json"
  subprocess.run([sys.executable, os.path.join(repo, "benchmarks", "team_lp_table.py"),
                  "--instances", "21K3", "--time_limit", "120", "--out", str(out),
                  "--out_md", str(tmp_path / "t.md"), "--second"], check=True, cwd=repo,
                 capture_output=True)
  row = json.loads(out.read_text())["rows"][0]
  assert row["finished"] and row["seq1_matches_paper"] and row["seq2_matches_paper"]
  assert row["terminals_matches_paper"]
  assert row["method"] == "lp" and row["value"] == pytest.approx(0.0, abs=1e-9)
  second = row["second"]
  assert second["method"] == "dag" and second["lower"] <= 1e-12 <= second["upper"] + 2e-12
  assert second["check"] == "agrees: 0.0000"
  assert "| 21K3 | 0.000000 |  |  | exact | lp (LP nonzeros" in (tmp_path / "t.md").read_text()


def test_solver_auto_same_value_as_ipm_and_simplex():
  """`solver="auto"` (dual simplex for small LPs) gives the value of both HiGHS methods; 21K4's
  is Table 1's -.0417 (the plans of the simplex path are checked as mutual best responses
  below). 21GL's 0.252422 agrees with both teams' exact MIP best responses to the LP's plans."""
  from ospiel_team.games import team_instances
  for name, expected in (("21K4", -0.0417), ("21GL", 0.2524)):
    game, teams = team_instances.load_instance(name)
    tree = GameTree(game)
    res = {s: team_lp.solve(tree, teams, solver=s) for s in ("auto", "simplex", "ipm")}
    assert res["auto"].solver == "simplex" and res["ipm"].solver == "ipm"
    assert res["auto"].lp_nonzeros <= team_lp.AUTO_SIMPLEX_MAX_NONZEROS
    for r in res.values():
      assert r.value == pytest.approx(res["ipm"].value, abs=1e-9)
    assert round(res["auto"].value, 4) == expected
    # The simplex's plans are optimal too: each team's plan holds the other to the value
    # (exact team best responses by the flow MIP, independent of the LP).
    plans = res["simplex"].plans
    u = teams_lib.team_terminal_utilities(tree, res["simplex"].teams)
    ch = _chance(tree)
    x1, y2 = plans[0].terminal_reach(), plans[1].terminal_reach()
    t = res["simplex"].teams
    br2 = team_best_response.team_best_response_value(tree, t, 1, ch * x1 * u[:, 1], method="mip")
    br1 = team_best_response.team_best_response_value(tree, t, 0, ch * y2 * u[:, 0], method="mip")
    assert br2 == pytest.approx(-res["ipm"].value, abs=1e-7)
    assert br1 == pytest.approx(res["ipm"].value, abs=1e-7)
  assert team_lp.choose_solver("auto", team_lp.AUTO_SIMPLEX_MAX_NONZEROS + 1) == "ipm"
  assert team_lp.choose_solver("pdlp", 10) == "pdlp"


def test_table_script_per_instance_methods(tmp_path):
  """team_lp_table.py --methods ID=METHOD overrides --method for that instance; bad items are
  one-line usage errors naming the value."""
  import os
  import subprocess
  import sys
  repo = tests_repo.REPO
  script = os.path.join(repo, "benchmarks", "team_lp_table.py")
  out = tmp_path / "t.json"
  subprocess.run([sys.executable, script, "--instances", "21K3", "--methods", "21K3=dag",
                  "--certify_time_limit", "0", "--time_limit", "120", "--out", str(out),
                  "--out_md", str(tmp_path / "t.md")], check=True, cwd=repo, capture_output=True)
  row = json.loads(out.read_text())["rows"][0]
  assert row["method"] == "dag" and abs(row["value"]) <= row["gap"] + 1e-12  # 21K3's value: 0
  for bad, needle in (("21K3=bogus", "'bogus'"), ("21X9=lp", "'21X9'"), ("21K3", "ID=METHOD")):
    proc = subprocess.run([sys.executable, script, "--instances", "21K3", "--methods", bad,
                           "--out", str(tmp_path / "u.json"), "--out_md", str(tmp_path / "u.md")],
                          cwd=repo, capture_output=True, text=True)
    assert proc.returncode != 0 and needle in proc.stderr, (bad, proc.stderr)


@pytest.mark.slow
def test_21d3_value_is_the_papers():
  """Table 1 prints 21D3 = .2840 (team 1's total); with the D rules of team_instances the LP
  gives exactly 23/81 = 0.283951. OpenSpiel's order with the wild face gave 1/3."""
  from ospiel_team.games import team_instances
  game, teams = team_instances.load_instance("21D3")
  res = team_lp.solve(game, "|".join(",".join(map(str, t)) for t in teams))
  assert round(res.value, 4) == 0.2840
  assert res.value == pytest.approx(23 / 81, abs=1e-9)
