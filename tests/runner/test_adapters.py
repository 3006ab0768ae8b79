"""The solver adapters (`runner.adapters`) give OpenSpiel's numbers for OpenSpiel's solvers."""

import subprocess
import sys
import textwrap

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability
from open_spiel.python.algorithms import fictitious_play

import ospiel_team  # noqa: F401
from ospiel_team.runner import comparison
from ospiel_team.runner.adapters import openspiel as openspiel_adapters


def _openspiel_purified(pol):
  pure = pol.__copy__(copy_action_probability_array=True)
  probs = np.where(pure.legal_actions_mask > 0, pol.action_probability_array, -1.0)
  pure.action_probability_array = np.eye(probs.shape[1])[np.argmax(probs, axis=1)]
  return pure


@pytest.mark.parametrize("name, cls", [("cfr", cfr.CFRSolver), ("cfr_plus", cfr.CFRPlusSolver)])
def test_cfr_adapters_give_openspiel_numbers(name, cls):
  """Runner CFR / CFR+ == OpenSpiel's solver run by hand, judged by OpenSpiel's nash_conv."""
  game = pyspiel.load_game("kuhn_poker")
  rows, _ = comparison.run_all(game, [name], iterations=20, num_points=3, progress=False)
  final = {r["variant"]: r for r in rows if r["iteration"] == 20}
  solver = cls(game)
  for _ in range(20):
    solver.evaluate_and_update_policy()
  assert final["average"]["metric_name"] == "nash_conv"
  assert final["average"]["metric"] == pytest.approx(
      exploitability.nash_conv(game, solver.average_policy()), abs=1e-9)
  assert final["current"]["metric"] == pytest.approx(
      exploitability.nash_conv(game, solver.current_policy()), abs=1e-9)
  assert final["purified"]["metric"] == pytest.approx(
      exploitability.nash_conv(game, _openspiel_purified(solver.average_policy())), abs=1e-9)


def test_xfp_and_jax_cfr_adapters_give_openspiel_numbers():
  game = pyspiel.load_game("kuhn_poker")
  rows, _ = comparison.run_all(game, ["xfp", "jax_cfr"], iterations=8, num_points=2,
                            progress=False)
  final = {(r["solver"], r["variant"]): r["metric"] for r in rows if r["iteration"] == 8}
  xfp = fictitious_play.XFPSolver(game)
  for _ in range(8):
    xfp.iteration()
  assert final[("xfp", "average")] == pytest.approx(
      exploitability.nash_conv(game, xfp.average_policy()), abs=1e-9)
  # OpenSpiel's JaxCFR is CFR+ with linear averaging in float32: OpenSpiel's CFRPlusSolver.
  plus = cfr.CFRPlusSolver(game)
  for _ in range(8):
    plus.evaluate_and_update_policy()
  assert final[("jax_cfr", "average")] == pytest.approx(
      exploitability.nash_conv(game, plus.average_policy()), abs=1e-5)


def test_mmd_moving_magnet_converges_to_nash():
  """Kuhn's Nash equilibria have NashConv 0; the uniform-magnet MMD stops at an alpha-QRE."""
  rows, _ = comparison.run_all("kuhn_poker", ["mmd"], iterations=400, num_points=2, progress=False)
  moving = [r["metric"] for r in rows if r["variant"] == "current"]
  assert moving[-1] < 0.02 < moving[0]
  rows, _ = comparison.run_all("kuhn_poker", ["mmd"], iterations=400, num_points=2, progress=False,
                            options={"mmd.magnet": "uniform", "mmd.alpha": "0.5"})
  uniform = [r["metric"] for r in rows if r["variant"] == "current"]
  assert uniform[-1] > 0.05


def test_team_lp_adapter_reports_the_tmecor_value():
  from ospiel_team.algorithms.team import team_lp
  rows, _ = comparison.run_all("kuhn_poker(players=3)", ["team_lp"], iterations=1, teams="0,1|2",
                            progress=False)
  value = team_lp.solve(pyspiel.load_game("kuhn_poker(players=3)"), "0,1|2").value
  assert {r["variant"] for r in rows} == {"average", "sampled", "purified"}
  for r in rows:
    assert r["tmecor_value"] == pytest.approx(value, abs=1e-9)
    assert r["tmecor_method"] == "lp" and r["tmecor_exact"]
    assert r["metric"] <= value + 1e-9  # no per-player profile beats the correlated plan


def test_team_lp_adapter_follows_the_default_path(monkeypatch):
  """The adapter answers as `solver.solve` (and the CLI) does: with the LP's nonzero threshold
  lowered, the default path is the belief DAG then the restricted LP, whose plans the snapshot
  shows; its value is the plain LP's (22K5 = -7/190)."""
  from ospiel_team.algorithms.team import solver as team_solve
  monkeypatch.setattr(team_solve, "AUTO_LP_MAX_NONZEROS", 10)
  # The restricted LP's wall-clock budget (at least RESTRICT_MIN_SECONDS) is raised so that a
  # loaded machine cannot make the DAG settle first (then the method would be "dag").
  monkeypatch.setattr(team_solve, "RESTRICT_MIN_SECONDS", 120.0)
  rows, _ = comparison.run_all("kuhn_poker(players=4)", ["team_lp"], iterations=1,
                            teams="0,1|2,3", progress=False)
  assert {r["variant"] for r in rows} == {"average", "sampled", "purified"}
  for r in rows:
    assert r["tmecor_method"] == "dag_lp" and r["tmecor_exact"]
    assert r["tmecor_value"] == pytest.approx(-7 / 190, abs=1e-9)
    assert r["metric"] <= -7 / 190 + 1e-9


@pytest.mark.slow
def test_nfsp_learns_on_kuhn():
  """Uniform play has NashConv 11/12 on Kuhn; NFSP's average policy ends well below it."""
  rows, _ = comparison.run_all("kuhn_poker", ["nfsp"], iterations=150, num_points=4,
                            progress=False)
  avg = [r["metric"] for r in rows if r["variant"] == "average"]
  assert avg[-1] < 11 / 12 - 0.2 and avg[-1] < avg[0] - 0.2


def test_our_tree_cfr_plus_equals_openspiels_cfr_plus_step_for_step():
  """`tree_cfr_plus` (ours, numba, on the array tree) and `cfr_plus` (OpenSpiel's class) give
  the same NashConv at every checkpoint: the same algorithm, so "tree_cfr_plus vs dcfr" in one
  comparison compares algorithms on one implementation."""
  game = pyspiel.load_game("kuhn_poker")
  rows, _ = comparison.run_all(game, ["cfr_plus", "tree_cfr_plus"], iterations=60, num_points=5,
                            progress=False)
  by = {}
  for r in rows:
    by.setdefault(r["solver"], {})[(r["iteration"], r["variant"])] = r["metric"]
  assert set(by["cfr_plus"]) == set(by["tree_cfr_plus"]) and len(by["cfr_plus"]) >= 12
  for key, value in by["cfr_plus"].items():
    assert by["tree_cfr_plus"][key] == pytest.approx(value, abs=1e-12), key
  # and it converges: CFR+ after 60 iterations is far below uniform play's 11/12
  assert by["cfr_plus"][(60, "average")] < 0.05


def test_importing_the_solver_is_setup_not_budget(solver="mmd"):
  """In a fresh worker, a solver's first iteration is not charged its module's import
  (OpenSpiel's mmd_dilated imports scipy.stats: over a CPU second, a whole 1 s budget)."""
  script = textwrap.dedent(f"""
      from ospiel_team.runner import execute
      task = dict(game="kuhn_poker()", solver="{solver}", seed=0, iterations=1, seconds=None,
                  num_points=1, metric="nash_conv", teams=None, options={{}})
      print(execute.run_task(task)["rows"][0]["seconds"])
  """)
  out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       check=True, timeout=300).stdout.split()
  assert float(out[-1]) < 0.25


def test_openspiel_internals_the_adapters_use_are_there():
  """The pinned OpenSpiel internals exist in the installed OpenSpiel (and the check sees it)."""
  import importlib.metadata

  assert openspiel_adapters.missing_internals() == []
  openspiel_adapters.check_internals()
  version = importlib.metadata.version("open_spiel")
  assert version == openspiel_adapters.OPENSPIEL_VERSION_TESTED, (
      f"OpenSpiel {version} is installed; the adapters were tested with "
      f"{openspiel_adapters.OPENSPIEL_VERSION_TESTED}: rerun tests/runner and update the pin")


def test_a_missing_openspiel_internal_is_named(monkeypatch):
  monkeypatch.setitem(openspiel_adapters.OPENSPIEL_INTERNALS,
                      "open_spiel.python.jax.nfsp.NFSP", ("_rl_agent", "_no_such_internal"))
  assert openspiel_adapters.missing_internals() == ["NFSP._no_such_internal"]
  with pytest.raises(RuntimeError, match=r"lacks NFSP\._no_such_internal.*open_spiel=="):
    openspiel_adapters.check_internals()
