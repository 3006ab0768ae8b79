"""Column generation, the `solve` portfolio, the HiGHS wrapper and the one team CLI.

Column generation is checked against the tree-decomposition LP (an independent method) and
its certified bounds against exact team best responses computed by the LP over the team
polytope (not the MIP oracle that column generation uses).
"""

import contextlib
import dataclasses
import io
import itertools
import json

import numpy as np
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import column_generation
from ospiel_team.algorithms.team import restricted
from ospiel_team.algorithms.team import result as team_result
from ospiel_team.algorithms.team import solver as team_solve
from ospiel_team.algorithms.team import team_lp
from ospiel_team.cli import team_solve as team_solve_cli
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.lp import highs
from ospiel_team.lp import plan_mip
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree


@pytest.mark.parametrize("game,teams", [
    ("kuhn_poker(players=3)", "0,1|2"),  # single oracle (team 2 in sequence form)
    ("team_kuhn(players=3,ranks=3)", "0,1|2"),
    ("kuhn_poker(players=3)", "1|0,2"),  # double oracle (team 2 has two players)
    ("team_liars_dice(players=3,sides=2,bidding_rule=reset-quantity,wild=False)", "1|0,2"),
])
def test_column_generation_matches_lp(game, teams):
  cg = column_generation.solve(game, teams)
  lp = team_lp.solve(game, teams)
  assert cg.converged
  assert cg.value == pytest.approx(lp.value, abs=1e-6)
  assert cg.lower <= lp.value + 1e-9 and lp.value <= cg.upper + 1e-9


def test_column_generation_extra_columns_same_value():
  for teams in ("0,1|2", "1|0,2"):
    cg = column_generation.solve("kuhn_poker(players=3)", teams, extra_columns=True)
    assert cg.converged
    assert cg.value == pytest.approx(team_lp.solve("kuhn_poker(players=3)", teams).value,
                                     abs=1e-6)


def test_column_generation_swapped_roles_closed_form():
  # 21K4 with the roles of the teams swapped: player 2 maximises against the correlated pair,
  # so its value is minus the TMECor value -1/24 of {0, 1} (paper: -.0417; minimax theorem).
  cg = column_generation.solve("kuhn_poker(players=3)", "2|0,1")
  assert cg.converged and cg.value == pytest.approx(1.0 / 24.0, abs=1e-6)


@pytest.mark.parametrize("teams", ["0,1|2", "1|0,2"])
def test_anytime_bracket_is_certified_by_independent_best_responses(teams):
  """Stopped after 3 iterations: [lower, upper] must hold the LP value, and each bound must be
  what an exact best response (the team LP over the polytope, not the MIP oracle) gives."""
  game = "kuhn_poker(players=3)"
  tree = GameTree(__import__("pyspiel").load_game(game))
  t = teams_lib.parse_teams(teams, 3)
  cg = column_generation.solve(tree, t, max_iterations=3)
  lp = team_lp.solve(tree, t)
  assert not cg.converged and cg.iterations == 3
  assert cg.lower <= lp.value + 1e-9 <= cg.upper + 2e-9
  chance = tree.chance_reach()[tree.terminals]
  u = teams_lib.team_terminal_utilities(tree, t)
  br2 = team_best_response.team_best_response_value(tree, t, 1, chance * cg.team1_reach * u[:, 1],
                                                    method="lp")
  br1 = team_best_response.team_best_response_value(tree, t, 0, chance * cg.team2_reach * u[:, 0],
                                                    method="lp")
  assert -br2 <= cg.lower + 1e-9  # the bracket is never looser than what the plans certify...
  assert -br2 >= cg.lower - 1e-9 or len(t.teams[1]) == 1  # ...and equals it (double oracle)
  assert br1 == pytest.approx(cg.upper, abs=1e-9)  # the last team-1 best response is the bound
  assert cg.team1_weights.sum() == pytest.approx(1.0)


def test_oracle_matches_brute_force_and_lp_best_response():
  tree = GameTree(__import__("pyspiel").load_game("team_kuhn(players=3,ranks=3)"))
  rng = np.random.default_rng(3)
  oracle = team_best_response.TeamOracle(tree, [0, 1], keep_others=True)
  single = team_best_response.TeamOracle(tree, [2])
  for _ in range(3):
    w = rng.normal(size=len(tree.terminals))
    br = oracle.best_response(w)
    assert br.value == pytest.approx(plan_mip.brute_force_best_joint(tree, [0, 1], w).value,
                                     abs=1e-9)
    assert br.bound == pytest.approx(br.value, abs=1e-8)
    assert br.value == pytest.approx(
        team_best_response.team_best_response_lp(tree, [0, 1], w).value, abs=1e-9)
    assert float(w @ br.reach) == pytest.approx(br.value, abs=1e-9)  # reach is the strategy's
    assert set(np.unique(br.reach)) <= {0.0, 1.0}
    for value, reach in br.others:  # the MIP's earlier incumbents, valued right
      assert float(w @ reach) == pytest.approx(value, abs=1e-9) and value <= br.value + 1e-9
    s = single.best_response(w)
    assert s.value == pytest.approx(
        team_best_response.single_player_best_response_value(tree, 2, w), abs=1e-12)
    assert float(w @ s.reach) == pytest.approx(s.value, abs=1e-9)


def test_solve_auto_lp_dag_and_cg_agree(monkeypatch):
  lp = team_solve.solve("kuhn_poker(players=3)", "0,1|2", method="auto")
  assert lp.method == "lp" and lp.exact
  monkeypatch.setattr(team_solve, "AUTO_LP_MAX_LOCAL", 10)  # too many local solutions...
  cg = team_solve.solve("kuhn_poker(players=3)", "0,1|2", method="auto")
  # ...and team {0, 1} has 177 sequences (Table 1's #Seq of 21K4): a small MIP oracle, cg
  assert cg.method == "cg" and cg.exact and "177 team sequences" in cg.details["auto"]
  monkeypatch.setattr(team_solve, "AUTO_CG_MAX_SEQUENCES", 100)  # a large oracle: dag
  dag = team_solve.solve("kuhn_poker(players=3)", "0,1|2", method="auto")
  assert dag.method == "dag" and "LP not built" in dag.details["auto"]
  assert dag.lower <= lp.value <= dag.upper and round(dag.value, 4) == round(lp.value, 4)
  assert dag.exact == (dag.upper - dag.lower <= team_solve.EXACT_GAP)
  monkeypatch.setattr(team_solve, "AUTO_DAG_MAX_LOCAL", 10)  # and for the DAG: cg
  cg = team_solve.solve("kuhn_poker(players=3)", "0,1|2", method="auto")
  assert cg.method == "cg" and cg.exact and "belief DAG not built" in cg.details["auto"]
  assert cg.value == pytest.approx(lp.value, abs=1e-6) == -1.0 / 24.0


def test_every_method_answers_with_the_one_anytime_result_type():
  """The package's `solve` is the function (importing its module does not replace it), and
  every method's result is an `AnytimeResult` whose certified bracket holds Kuhn's closed-form
  TMECor value -1/24 (test_lp.py derives it), with `gap` = upper - lower."""
  import importlib

  from ospiel_team.algorithms import team
  importlib.import_module("ospiel_team.algorithms.team.solver")
  assert team.solve is team_solve.solve and team.solver is team_solve
  game, teams = "kuhn_poker(players=3)", "0,1|2"
  results = [team.solve(game, teams, method="lp"), team.solve(game, teams, method="dag"),
             team_belief_dag.solve(game, teams, tol=1e-3),
             column_generation.solve(game, teams)]
  for res in results:
    assert isinstance(res, team.AnytimeResult), type(res)
    assert res.gap == res.upper - res.lower >= 0
    assert res.lower - 1e-9 <= -1 / 24 <= res.upper + 1e-9
    assert isinstance(res.history, tuple) and res.game == game
    with pytest.raises(AttributeError):
      res.value = 0.0  # frozen: a result is a record
  dag = results[2]
  assert [h["iteration"] for h in dag.history] == list(range(10, dag.iterations + 1, 10))
  assert (dag.history[-1]["lower"], dag.history[-1]["upper"]) == (dag.lower, dag.upper)
  # The solve's history is its belief DAG's (tol=None: settle 4 decimals).
  same = team_belief_dag.solve(game, teams, tol=team_solve.EXACT_GAP, digits=4)
  brackets = lambda r: [(h["iteration"], h["lower"], h["upper"]) for h in r.history]  # noqa: E731
  assert brackets(results[1]) == brackets(same) and results[1].value == same.value


def test_auto_rule_by_lp_nonzeros_shares_the_decompositions(monkeypatch):
  """Below `AUTO_LP_MAX_NONZEROS` auto solves the LP; above it the belief DAG then the LP
  restricted to the DAG's support (exact: the plain LP's value), or with a `tol` the DAG alone
  (its certified bracket holds the LP's value), all on the decompositions auto built once."""
  game = "team_kuhn(players=3,ranks=3)"
  lp = team_solve.solve(game, "0,1|2", method="auto")
  assert lp.method == "lp" and "lp" in lp.details["auto"]
  plain = team_solve.solve(game, "0,1|2", method="lp").value
  assert lp.value == pytest.approx(plain, abs=1e-12)
  built = []
  real = team_solve.TeamDecomposition
  monkeypatch.setattr(team_solve, "TeamDecomposition",
                      lambda *a, **k: built.append(1) or real(*a, **k))
  monkeypatch.setattr(team_solve, "AUTO_LP_MAX_NONZEROS", 10)
  both = team_solve.solve(game, "0,1|2", method="auto")
  assert both.method == "dag_lp" and "> 10: dag to gap" in both.details["auto"]
  assert both.exact and both.details["precision"].startswith("exact (the LP restricted")
  assert both.value == pytest.approx(plain, abs=1e-9)
  assert both.lower - 1e-9 <= plain <= both.upper + 1e-9
  assert len(built) == 2  # one decomposition per team, shared by the DAG and the LPs
  dag = team_solve.solve(game, "0,1|2", method="auto", tol=1e-3)
  assert dag.method == "dag" and "> 10: dag" in dag.details["auto"]
  assert len(built) == 4
  assert dag.lower - 1e-12 <= plain <= dag.upper + 1e-12 and dag.upper - dag.lower <= 1e-3


def test_auto_past_the_lp_cap_finishes_an_unsettled_dag_by_the_one_sided_lps(monkeypatch):
  """Past `AUTO_LP_MAX_LOCAL` (the DAG path), a bracket still unsettled at `ONE_SIDED_GAP`
  after `ONE_SIDED_MIN_ITERATIONS` is finished by the two one-sided restricted LPs: exact,
  the plain LP's value. With more local solutions than `AUTO_ONE_SIDED_MAX_LOCAL` the DAG
  answers alone."""
  game, teams = "kuhn_poker(players=3)", "0,1|2"
  plain = team_solve.solve(game, teams, method="lp").value
  monkeypatch.setattr(team_solve, "AUTO_LP_MAX_LOCAL", 10)  # the LP is not built
  monkeypatch.setattr(team_solve, "AUTO_CG_MAX_SEQUENCES", 0)  # and cg not chosen: the DAG
  monkeypatch.setattr(team_solve, "ONE_SIDED_GAP", 1e-2)
  monkeypatch.setattr(team_solve, "ONE_SIDED_MIN_ITERATIONS", 50)
  res = team_solve.solve(game, teams, digits=12)  # 12 decimals: the DAG would not settle soon
  assert res.method == "dag_lp" and res.exact
  assert "one-sided restricted LPs" in res.details["auto"]
  tries = res.details["one_sided_tries"]
  assert len(tries) == 1 and tries[0]["exact"] and tries[0]["iteration"] >= 50
  assert tries[0]["gap"] <= 1e-2
  assert res.value == pytest.approx(plain, abs=1e-9)
  assert res.lower - 1e-9 <= plain <= res.upper + 1e-9
  monkeypatch.setattr(team_solve, "AUTO_ONE_SIDED_MAX_LOCAL", 10)
  alone = team_solve.solve(game, teams, time_limit=2.0, digits=12)
  assert alone.method == "dag" and "one_sided_tries" not in alone.details
  assert alone.lower - 1e-12 <= plain <= alone.upper + 1e-12


def test_auto_repeats_a_failed_one_sided_try_only_after_the_gap_shrinks(monkeypatch):
  """A try whose ends do not meet leaves the DAG running; the next try waits until the gap
  is `ONE_SIDED_RETRY_SHRINK` times smaller."""
  monkeypatch.setattr(team_solve, "AUTO_LP_MAX_LOCAL", 10)
  monkeypatch.setattr(team_solve, "AUTO_CG_MAX_SEQUENCES", 0)
  monkeypatch.setattr(team_solve, "ONE_SIDED_GAP", 1e-1)
  monkeypatch.setattr(team_solve, "ONE_SIDED_MIN_ITERATIONS", 0)
  real = restricted.solve_one_sided

  def never_exact(*args, **kwargs):
    return dataclasses.replace(real(*args, **kwargs), exact=False)

  monkeypatch.setattr(restricted, "solve_one_sided", never_exact)
  res = team_solve.solve("kuhn_poker(players=3)", "0,1|2", time_limit=3.0, digits=12)
  tries = res.details["one_sided_tries"]
  assert res.method == "dag" and len(tries) >= 2 and not any(t["exact"] for t in tries)
  for before, after in itertools.pairwise(tries):
    assert after["gap"] <= before["gap"] / team_solve.ONE_SIDED_RETRY_SHRINK


@pytest.mark.parametrize("game,teams", [("kuhn_poker(players=3)", "0,1|2"),
                                        ("team_kuhn(players=4,ranks=4)", "0,2|1,3"),
                                        ("team_goofspiel(players=3,info=limited)", "0,1|2"),
                                        ("team_leduc(players=3,bets=1,ranks=2,suits=2)",
                                         "0|1,2")])
def test_lp_nonzeros_counts_the_lp_without_building_it(game, teams):
  """`team_lp.lp_nonzeros` equals the assembled LP's nonzeros plus the zero payoffs HiGHS's
  matrix drops (ties); solving with the given decompositions gives the same LP and value."""
  tree, t = teams_lib.check_assumptions(game, teams)
  decs = [TeamDecomposition(tree, m) for m in t.teams]
  est = team_lp.lp_nonzeros(tree, t, *decs)
  res = team_lp.solve(tree, t, decompositions=decs)
  m = team_lp._payoff(tree, decs[0], decs[1],
                      teams_lib.team_terminal_utilities(tree, t)[:, 0])
  assert res.lp_nonzeros <= est <= res.lp_nonzeros + int(np.sum(m.data == 0))
  lower = team_lp.lp_nonzeros(tree, t, *decs, stop_above=0)  # the early lower bound
  assert 0 < lower <= res.lp_nonzeros
  assert team_lp.lp_nonzeros(tree, t, *decs, stop_above=lower) == est
  assert res.value == pytest.approx(team_lp.solve(tree, t).value, abs=1e-9)
  with pytest.raises(ValueError, match="decompositions"):
    team_lp.solve(tree, t, decompositions=decs[::-1])


def test_bad_arguments_are_errors_naming_the_value():
  with pytest.raises(ValueError, match="bogus"):
    team_solve.solve("kuhn_poker(players=3)", "0,1|2", method="bogus")
  with pytest.raises(ValueError, match="-1"):
    team_solve.solve("kuhn_poker(players=3)", "0,1|2", time_limit=-1)
  with pytest.raises(ValueError, match="-2"):
    column_generation.solve("kuhn_poker(players=3)", "0,1|2", time_limit=-2)
  with pytest.raises(ValueError, match="no_such_option"):
    team_lp.solve("kuhn_poker(players=3)", "0,1|2", highs_options={"no_such_option": 1})
  with pytest.raises(ValueError, match="solver='bogus'"):
    team_lp.solve("kuhn_poker(players=3)", "0,1|2", solver="bogus")
  import highspy
  with pytest.raises(ValueError, match="presolve"):
    highs.set_option(highspy.Highs(), "presolve", 3.5)


def _cli(args):
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    rc = team_solve_cli.main(["team_lp"] + args)
  return rc, out.getvalue(), err.getvalue()


def test_cli_instance_methods_and_errors():
  rc, out, _ = _cli(["--instance", "21K4", "--method", "cg", "--json"])
  s = json.loads(out)
  assert rc == 0 and s["method"] == "cg" and s["instance"] == "21K4"
  assert s["value"] == pytest.approx(-1.0 / 24.0, abs=1e-6) and s["seconds"] > 0
  rc, out, _ = _cli(["--game", "kuhn_poker(players=3)", "--teams", "0,1|2", "--json"])
  assert rc == 0 and json.loads(out)["value"] == pytest.approx(-1.0 / 24.0, abs=1e-9)
  for args, needle in ((["--instance", "21X9"], "21X9"),
                       (["--instance", "21K4", "--method", "nope"], "nope"),
                       (["--instance", "21K4", "--time_limit", "-1"], "-1"),
                       (["--instance", "21K4", "--highs_option", "bogus_opt=1"], "bogus_opt"),
                       (["--instance", "21K4", "--solver", "bogus"], "bogus"),
                       (["--instance", "21K4", "--game", "kuhn_poker"], "not both"),
                       ([], "--instance")):
    rc, out, err = _cli(args)
    assert rc == 2 and out == "" and needle in err and len(err.strip().splitlines()) == 1, args


def test_oracle_time_limit_without_strategy_raises_oracle_time_limit_with_a_bound():
  tree = GameTree(__import__("pyspiel").load_game("team_kuhn(players=3,ranks=6)"))
  oracle = team_best_response.TeamOracle(tree, [0, 1])
  w = np.random.default_rng(0).normal(size=len(tree.terminals))
  with pytest.raises(team_best_response.OracleTimeLimit) as info:
    oracle.best_response(w, time_limit=0.0)  # HiGHS stops before any incumbent
  exact = oracle.best_response(w)  # the same model, re-run without a limit
  assert exact.bound == pytest.approx(exact.value, abs=1e-8)
  assert info.value.bound >= exact.value - 1e-9  # whatever it proved is a real upper bound


@pytest.mark.parametrize("teams,fail_call", [
    ("0,1|2", 1),  # single oracle: the first team-1 oracle call (before any column)
    ("0,1|2", 3),  # single oracle: a team-1 call inside the loop
    ("1|0,2", 2),  # double oracle: the first team-2 call
    ("1|0,2", 5),  # double oracle: a team-2 call inside the loop
    ("1|0,2", 4),  # double oracle: a team-1 call inside the loop
])
def test_column_generation_returns_its_bracket_when_an_oracle_times_out(monkeypatch, teams,
                                                                         fail_call):
  """An oracle MIP stopped by its time limit before any incumbent must end column generation
  with the certified bracket it has (22D3 used to raise instead)."""
  game = "kuhn_poker(players=3)"
  tree = GameTree(__import__("pyspiel").load_game(game))
  t = teams_lib.parse_teams(teams, 3)
  lp_value = team_lp.solve(tree, t).value
  real = team_best_response.TeamOracle.best_response
  calls = {"n": 0}

  def flaky(self, w, time_limit=None):
    calls["n"] += 1
    if calls["n"] == fail_call:  # as HiGHS with no incumbent: no strategy, an infinite bound
      raise team_best_response.OracleTimeLimit("simulated time limit", np.inf)
    return real(self, w, time_limit=time_limit)

  monkeypatch.setattr(team_best_response.TeamOracle, "best_response", flaky)
  cg = column_generation.solve(tree, t)
  assert calls["n"] == fail_call and cg.stopped == "simulated time limit"
  assert not cg.converged
  assert cg.lower <= lp_value + 1e-9 <= cg.upper + 2e-9
  monkeypatch.setattr(team_best_response.TeamOracle, "best_response", real)
  chance = tree.chance_reach()[tree.terminals]
  u = teams_lib.team_terminal_utilities(tree, t)
  if np.isfinite(cg.lower):  # the lower bound is certified by team 1's plan (polytope LP BR)
    br2 = team_best_response.team_best_response_value(
        tree, t, 1, chance * cg.team1_reach * u[:, 1], method="lp")
    assert -br2 == pytest.approx(cg.lower, abs=1e-9)
  if np.isfinite(cg.upper):  # the upper bound by team 2's plan
    br1 = team_best_response.team_best_response_value(
        tree, t, 0, chance * cg.team2_reach * u[:, 0], method="lp")
    assert br1 <= cg.upper + 1e-9
  assert np.isfinite(cg.lower) or np.isfinite(cg.upper) or fail_call == 1


@pytest.mark.parametrize("lower,upper,digits,expected", [
    (-0.0369068, -0.0368163, 4, False),  # 22K5's DAG bracket at gap 1e-4 straddles -0.03685
    (-0.0368499999, -0.0368163, 4, True),  # both ends round to -0.0368
    (0.2843629, 0.2844576, 4, False),  # 21D4's bracket at gap 1e-4: .2844 or .2845
    (-0.00002, 0.00003, 4, True),  # -0.0 == 0.0
    (0.12344, 0.12346, 4, False), (0.5, float("inf"), 4, False), (1.2, 1.4, 0, True),
])
def test_settled(lower, upper, digits, expected):
  assert team_result.settled(lower, upper, digits) is expected
  # the definition: every value of the bracket prints the same
  if expected and np.isfinite(upper):
    prints = {f"{v:.{digits}f}".replace("-0.0000", "0.0000")
              for v in np.linspace(lower, upper, 101)}
    assert len(prints) == 1


def test_default_precision_settles_22k5_and_exact_is_truthful():
  """22K5 (kuhn_poker(players=4), teams {0,1} vs {2,3}): the LP's exact value is -7/190 =
  -0.0368421 (paper: -.0368), 8e-6 from the rounding boundary -0.03685; the default answer's
  certified bracket settles it (or is exact), and `exact` says which."""
  res = team_solve.solve("kuhn_poker(players=4)", "0,1|2,3")
  assert f"{res.value:.4f}" == f"{res.lower:.4f}" == f"{res.upper:.4f}" == "-0.0368"
  assert res.lower - 1e-9 <= -7 / 190 <= res.upper + 1e-9
  assert res.exact == (res.upper - res.lower <= team_solve.EXACT_GAP)
  assert res.details["precision"].startswith("exact" if res.exact else "certified bracket")
  # An explicit tolerance: the DAG's bracket, never called exact.
  loose = team_solve.solve("kuhn_poker(players=4)", "0,1|2,3", method="dag", tol=1e-3)
  assert loose.upper - loose.lower <= 1e-3 and not loose.exact
  assert loose.lower <= -7 / 190 <= loose.upper
  assert loose.details["precision"].startswith("certified")


def test_default_precision_finishes_a_straddling_value_exactly():
  """21K6's exact value -0.0236499584 (the plain LP, below) lies 4e-8 from the boundary
  -0.02365, which a regret-minimisation bracket would need ~1e7 iterations to leave: auto
  finishes with the LP restricted to the DAG's support, exact, printing -0.0236."""
  from ospiel_team.games import team_instances
  game, teams = team_instances.TABLE1_INSTANCES["21K6"]
  res = team_solve.solve(game, teams)
  assert res.method == "dag_lp" and res.exact
  assert res.upper - res.lower <= team_solve.EXACT_GAP
  assert f"{res.value:.4f}" == "-0.0236" and res.value == pytest.approx(-0.0236499584, abs=1e-9)
  assert res.details["restricted_support"][0] < res.details["local_solutions"][0] / 10


def test_restricted_lp_that_is_never_exact_leaves_the_dag_to_settle(monkeypatch):
  """When the restricted LP is not exact (forced here), the DAG goes on and retries it later;
  its bracket settles 4 decimals around the plain LP's value (22K5 = -7/190)."""
  import dataclasses

  real = restricted.solve
  calls = []

  def not_exact(*args, **kwargs):
    calls.append(kwargs["time_limit"])
    return dataclasses.replace(real(*args, **kwargs), exact=False)

  monkeypatch.setattr(team_solve, "AUTO_LP_MAX_NONZEROS", 10)
  monkeypatch.setattr(restricted, "solve", not_exact)
  res = team_solve.solve("kuhn_poker(players=4)", "0,1|2,3")
  assert res.method == "dag" and calls and len(res.details["restricted_tries"]) == len(calls)
  assert not any(t["exact"] for t in res.details["restricted_tries"])
  assert min(calls) >= team_solve.RESTRICT_MIN_SECONDS
  assert res.lower - 1e-9 <= -7 / 190 <= res.upper + 1e-9
  assert f"{res.lower:.4f}" == f"{res.upper:.4f}" == "-0.0368"


@pytest.mark.parametrize("method", ["dag", "cg"])
def test_exact_flag_means_an_exact_bracket(method):
  """`exact` is true exactly when the certified bracket is no wider than EXACT_GAP; the
  default answer settles 4 decimals (21K4 = -1/24, Table 1's -.0417)."""
  for tol in (None, 1e-2):
    res = team_solve.solve("kuhn_poker(players=3)", "0,1|2", method=method, tol=tol)
    assert res.exact == (res.upper - res.lower <= team_solve.EXACT_GAP)
    assert res.lower - 1e-9 <= -1 / 24 <= res.upper + 1e-9
    if tol is None:
      assert round(res.lower, 4) == round(res.upper, 4) == -0.0417
  with pytest.raises(ValueError, match="digits must be an integer from 0 to 15, got -1"):
    team_solve.solve("kuhn_poker(players=3)", "0,1|2", digits=-1)


def test_belief_dag_give_up_is_checked():
  for bad in ((0.0, 1.0), (1e-4, -1.0), (1e-4,)):
    with pytest.raises(ValueError, match="give_up"):
      team_belief_dag.solve("kuhn_poker(players=3)", "0,1|2", digits=4, give_up=bad)


@pytest.mark.parametrize("args", [
    ["--game", "tiny_hanabi", "--json"],
    ["--game", "mini_bridge(size=2)"],
    ["--game", "mini_bridge(size=2)", "--teams", "0,1"],
    ["--game", "mini_bridge(size=2)", "--method", "lp"],
    ["--game", "mini_bridge(size=2)", "--method", "dag"],
])
def test_cli_a_cooperative_game_is_one_line_pointing_to_the_coop_command(args):
  rc, out, err = _cli(args)
  assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
  assert "two teams" in err and "ospiel-team-coop-optimum" in err and args[1] in err


def test_solve_of_a_cooperative_game_names_it():
  with pytest.raises(ValueError, match=r"tiny_hanabi\(\) with teams 0,1 is a cooperative"):
    team_solve.solve("tiny_hanabi", method="cg")


def test_cli_tree_cache_that_cannot_be_written_is_one_line(tmp_path, monkeypatch):
  rc, out, err = _cli(["--game", "kuhn_poker", "--teams", "0|1", "--tree_cache", "/dev/full"])
  assert rc == 2 and out == "" and "--tree_cache '/dev/full'" in err
  assert len(err.strip().splitlines()) == 1
  # A read-only folder (as seen by a non-root user; root ignores permission bits).
  import tempfile

  def refuse(*args, **kwargs):
    raise PermissionError(13, "Permission denied")

  monkeypatch.setattr(tempfile, "mkstemp", refuse)
  rc, out, err = _cli(["--game", "kuhn_poker", "--teams", "0|1", "--tree_cache",
                       str(tmp_path)])
  assert rc == 2 and out == "" and "Permission denied" in err and str(tmp_path) in err
  assert len(err.strip().splitlines()) == 1
  assert list(tmp_path.iterdir()) == []


def test_cli_tree_cache_write_failure_after_the_walk_is_one_line(tmp_path, monkeypatch):
  from ospiel_team.tree import cache as tree_cache

  def disk_full(*args, **kwargs):
    raise OSError(28, "No space left on device")

  monkeypatch.setattr(tree_cache, "save_tree", disk_full)
  rc, out, err = _cli(["--game", "kuhn_poker", "--teams", "0|1", "--tree_cache",
                       str(tmp_path)])
  assert rc == 2 and out == "" and "No space left on device" in err, err
  assert len(err.strip().splitlines()) == 1
