"""The comparison runner: adapters against OpenSpiel, seeds, budgets, store, errors."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
from open_spiel.python.algorithms import fictitious_play

import ospiel_team  # noqa: F401
from ospiel_team.runner import compare
from ospiel_team.algorithms.team import lp as team_lp
from ospiel_team.runner import api


def test_log_checkpoints():
  assert compare.log_checkpoints(1) == [1]
  assert compare.log_checkpoints(1000, 4) == [1, 10, 100, 1000]
  with pytest.raises(ValueError, match="iterations must be >= 1, got 0"):
    compare.log_checkpoints(0)
  marks = api.time_checkpoints(3.0, 4)
  assert marks[-1] == pytest.approx(3.0) and marks[0] == pytest.approx(0.01)
  assert np.all(np.diff(marks) > 0)


def _openspiel_purified(pol):
  pure = pol.__copy__(copy_action_probability_array=True)
  probs = np.where(pure.legal_actions_mask > 0, pol.action_probability_array, -1.0)
  pure.action_probability_array = np.eye(probs.shape[1])[np.argmax(probs, axis=1)]
  return pure


@pytest.mark.parametrize("name, cls", [("cfr", cfr.CFRSolver), ("cfr_plus", cfr.CFRPlusSolver)])
def test_cfr_adapters_give_openspiel_numbers(name, cls):
  """Runner CFR / CFR+ == OpenSpiel's solver run by hand, judged by OpenSpiel's nash_conv."""
  game = pyspiel.load_game("kuhn_poker")
  rows = compare.run(game, [name], iterations=20, num_points=3, progress=False)
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
  rows = compare.run(game, ["xfp", "jax_cfr"], iterations=8, num_points=2, progress=False)
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


def test_common_payoff_metric_is_team_sum():
  """team_value = the members' summed expected return (OpenSpiel's policy_value)."""
  game = pyspiel.load_game("comm(length=2)")
  rows = compare.run(game, ["cfr_plus"], iterations=5, num_points=2, progress=False)
  assert {r["metric_name"] for r in rows} == {"team_value"}
  solver = cfr.CFRPlusSolver(game)
  for _ in range(5):
    solver.evaluate_and_update_policy()
  values = expected_game_score.policy_value(game.new_initial_state(),
                                            [solver.average_policy()] * 2)
  got = [r for r in rows if r["variant"] == "average" and r["iteration"] == 5][0]["metric"]
  assert got == pytest.approx(sum(values), abs=1e-9)
  # The reference is coop_optimum's team_value: comm's optimum is 1 per member, 2 in all.
  ref = compare.reference(game, compare.GameTree(game), "team_value")
  assert ref["value"] == pytest.approx(2.0)
  assert all(r["metric"] <= ref["value"] + 1e-9 for r in rows)


def test_teams_metric_and_tmecor_reference():
  game = pyspiel.load_game("kuhn_poker(players=3)")
  rows = compare.run(game, ["cfr", "team_lp"], iterations=3, num_points=2, teams="0,1|2",
                     progress=False)
  assert {r["metric_name"] for r in rows} == {"team_value_vs_br"}
  ref = compare.reference(game, compare.GameTree(game), "team_value_vs_br",
                          compare.teams_lib.parse_teams("0,1|2", 3))
  assert ref["value"] == pytest.approx(team_lp.solve(game, "0,1|2").value, abs=1e-9)
  for r in rows:  # no profile gets team 1 more than its TMECor value
    assert r["metric"] <= ref["value"] + 1e-9
  with pytest.raises(ValueError, match="'0,1'"):
    compare.run(game, ["cfr"], iterations=1, teams="0,1", progress=False)
  with pytest.raises(ValueError, match="'0,x|2'"):
    compare.run(game, ["cfr"], iterations=1, teams="0,x|2", progress=False)


def test_typo_option_is_an_error_naming_it_and_listing_valid_ones():
  with pytest.raises(ValueError, match=r"'jps\.dpeth'.*jps\.depth"):
    compare.run("simple_bidding(size=3)", ["jps"], iterations=2, progress=False,
                options={"jps.dpeth": "3"})
  with pytest.raises(ValueError, match=r"'nfsp\.episodes'.*not accepted by any of the solvers cfr"):
    compare.run("kuhn_poker", ["cfr"], iterations=2, progress=False,
                options={"nfsp.episodes": "3"})
  with pytest.raises(ValueError, match=r"nfsp\.episodes='many' is not a valid int"):
    compare.run("kuhn_poker", ["nfsp"], iterations=2, progress=False,
                options={"nfsp.episodes": "many"})
  with pytest.raises(ValueError, match="unknown solver 'nope'"):
    compare.run("kuhn_poker", ["nope"], iterations=2, progress=False)
  with pytest.raises(ValueError, match="'oops'"):
    compare.parse_options("oops")
  with pytest.raises(ValueError, match="mmd cannot run on .*two-player zero-sum"):
    compare.run("kuhn_poker(players=3)", ["mmd"], iterations=2, progress=False)
  with pytest.raises(ValueError, match="unknown metric 'bogus'"):
    compare.run("kuhn_poker", ["cfr"], iterations=2, metric="bogus", progress=False)


@pytest.mark.parametrize("text, match", [("0", "'0'"), ("a,b", "'a,b'"), ("1,1", "repeats"),
                                         ("-1,2", "'-1,2'")])
def test_bad_seeds(text, match):
  with pytest.raises(ValueError, match=match):
    compare.parse_seeds(text)


def test_seeds_and_budgets():
  assert compare.parse_seeds("3") == [0, 1, 2]
  assert compare.parse_seeds("4,9") == [4, 9]
  with pytest.raises(ValueError, match="-2"):
    compare.run("kuhn_poker", ["cfr"], seconds=-2, progress=False)
  with pytest.raises(ValueError, match="budget"):
    compare.run("kuhn_poker", ["cfr"], progress=False)
  # A CPU-seconds budget: the run stops once the solver's own CPU time passes it.
  rows, infos = compare.run_all("kuhn_poker", ["cfr"], seconds=0.3, seeds=[0, 1],
                                progress=False)
  assert {r["seed"] for r in rows} == {0, 1}
  for info in infos:
    assert 0.3 <= info["solver_cpu_seconds"] < 1.5
    assert info["iterations"] > 10


def test_out_that_cannot_be_written_fails_before_work(tmp_path):
  a_file = tmp_path / "file"
  a_file.write_text("x")
  with pytest.raises(ValueError, match="not a directory"):
    compare.run("kuhn_poker", ["cfr"], iterations=2, out=str(a_file), progress=False)
  if os.geteuid() != 0:
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    with pytest.raises(ValueError, match="locked"):
      compare.run("kuhn_poker", ["cfr"], iterations=2, out=str(locked / "sub"),
                  progress=False)


def test_same_results_inline_and_in_a_process_pool():
  """Seeded runs give identical rows whatever the parallelism (randomized solvers included)."""
  kwargs = dict(iterations=6, num_points=3, seeds=[0, 1], progress=False)
  solvers = ["cfr", "jps"]
  inline = compare.run("mini_bridge(size=2)", solvers, workers=1, **kwargs)
  pooled = compare.run("mini_bridge(size=2)", solvers, workers=2, **kwargs)
  strip = lambda rows: [{k: v for k, v in r.items() if "seconds" not in k} for r in rows]
  assert strip(inline) == strip(pooled)
  # Different seeds do differ for a randomized solver (JPS's CFR starts from a random policy).
  by_seed = {r["seed"]: r["metric"] for r in inline
             if r["solver"] == "jps" and r["variant"] == "current" and r["iteration"] == 6}
  assert by_seed[0] != by_seed[1]


def _cli(args, **kw):
  return subprocess.run([sys.executable, "-m", "ospiel_team.compare", *args],
                        capture_output=True, text=True, timeout=600, **kw)


def test_command_line_user_errors_print_one_line(tmp_path):
  for args, needle in [(["--solver_options", "jps.dpeth=3", "--solvers", "jps"], "jps.dpeth"),
                       (["--seeds", "x"], "'x'"), (["--seconds", "-1"], "-1"),
                       (["--teams", "0|0"], "0|0"),
                       (["--out", str(tmp_path / "f.txt")], "not a directory")]:
    (tmp_path / "f.txt").write_text("x")
    res = _cli(args + ([] if "--out" in args else ["--out", str(tmp_path / "o")]))
    assert res.returncode == 2, res.stderr
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_kill_and_resume(tmp_path):
  """A killed run keeps its finished (solver, seed) runs; the rerun does only the rest; a
  finished command rerun recomputes nothing."""
  out = tmp_path / "run"
  args = ["--game", "kuhn_poker", "--solvers", "cfr,cfr_plus,xfp", "--seeds", "3",
          "--iterations", "150", "--workers", "1", "--out", str(out)]
  proc = subprocess.Popen([sys.executable, "-m", "ospiel_team.compare", *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
  runs = out / "runs"
  deadline = time.time() + 300
  while time.time() < deadline and not (runs.exists() and list(runs.glob("*.json"))):
    time.sleep(0.02)
  proc.send_signal(signal.SIGKILL)
  proc.wait()
  kept = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in runs.glob("*.json")}
  assert 1 <= len(kept) < 9, "kill landed before the first or after the last run"
  assert not (out / "results.json").exists()
  assert _cli(args).returncode == 0
  done = {p.name: p.stat().st_mtime_ns for p in runs.glob("*.json")}
  assert len(done) == 9
  for name, (mtime, data) in kept.items():  # not recomputed
    assert done[name] == mtime and (runs / name).read_bytes() == data
  fresh = compare.run("kuhn_poker", ["cfr", "cfr_plus", "xfp"], iterations=150,
                      seeds=[0, 1, 2], progress=False)
  strip = lambda rows: [{k: v for k, v in r.items() if "seconds" not in k} for r in rows]
  resumed = json.loads((out / "results.json").read_text())["rows"]
  assert strip(resumed) == strip(fresh)
  # A finished command rerun: nothing recomputed, the outputs re-rendered.
  before = (out / "results.md").stat().st_mtime_ns
  assert _cli(args).returncode == 0
  assert {p.name: p.stat().st_mtime_ns for p in runs.glob("*.json")} == done
  assert (out / "results.md").stat().st_mtime_ns > before


def test_command_line_writes_three_files_with_seeds_and_reference(tmp_path):
  out = tmp_path / "run"
  res = _cli(["--game", "mini_bridge(size=2)", "--solvers", "cfr,jps", "--iterations", "4",
              "--num_points", "3", "--seeds", "2", "--workers", "1", "--out", str(out)])
  assert res.returncode == 0, res.stderr
  for name in ["results.json", "results.md", "curves.png"]:
    assert os.path.getsize(out / name) > 0
  data = json.loads((out / "results.json").read_text())
  assert {r["solver"] for r in data["rows"]} == {"cfr", "jps"}
  assert {r["seed"] for r in data["rows"]} == {0, 1}
  assert data["reference"]["label"].startswith("cooperative optimum")
  text = (out / "results.md").read_text()
  assert "95% CI" in text and "Reference" in text and "jps" in text
  for r in data["rows"]:
    assert r["metric"] <= data["reference"]["value"] + 1e-9


def test_mmd_moving_magnet_converges_to_nash():
  """Kuhn's Nash equilibria have NashConv 0; the uniform-magnet MMD stops at an alpha-QRE."""
  rows = compare.run("kuhn_poker", ["mmd"], iterations=400, num_points=2, progress=False)
  moving = [r["metric"] for r in rows if r["variant"] == "current"]
  assert moving[-1] < 0.02 < moving[0]
  rows = compare.run("kuhn_poker", ["mmd"], iterations=400, num_points=2, progress=False,
                     options={"mmd.magnet": "uniform", "mmd.alpha": "0.5"})
  uniform = [r["metric"] for r in rows if r["variant"] == "current"]
  assert uniform[-1] > 0.05


@pytest.mark.slow
def test_same_results_on_ray_local():
  kwargs = dict(iterations=4, num_points=2, seeds=[0, 1], progress=False)
  inline = compare.run("kuhn_poker", ["cfr", "neural_ed"], workers=1, **kwargs)
  on_ray = compare.run("kuhn_poker", ["cfr", "neural_ed"], workers=2, ray_address="local",
                       **kwargs)
  strip = lambda rows: [{k: v for k, v in r.items() if "seconds" not in k} for r in rows]
  assert strip(inline) == strip(on_ray)


@pytest.mark.slow
def test_nfsp_learns_on_kuhn():
  """Uniform play has NashConv 11/12 on Kuhn; NFSP's average policy ends well below it."""
  rows = compare.run("kuhn_poker", ["nfsp"], iterations=150, num_points=4, progress=False)
  avg = [r["metric"] for r in rows if r["variant"] == "average"]
  assert avg[-1] < 11 / 12 - 0.2 and avg[-1] < avg[0] - 0.2
