"""The comparison's orchestration (`runner.compare.run_all`) and its command line."""

import json
import os
import signal
import subprocess
import sys
import time

import pyspiel
import pytest
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import expected_game_score

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import lp as team_lp
from ospiel_team.runner import compare
from ospiel_team.runner import reference


def test_common_payoff_rows_are_the_team_sum_and_stay_below_the_optimum():
  """team_value = the members' summed expected return (OpenSpiel's policy_value)."""
  game = pyspiel.load_game("comm(length=2)")
  rows, _ = compare.run_all(game, ["cfr_plus"], iterations=5, num_points=2, progress=False)
  assert {r["metric_name"] for r in rows} == {"team_value"}
  solver = cfr.CFRPlusSolver(game)
  for _ in range(5):
    solver.evaluate_and_update_policy()
  values = expected_game_score.policy_value(game.new_initial_state(),
                                            [solver.average_policy()] * 2)
  got = [r for r in rows if r["variant"] == "average" and r["iteration"] == 5][0]["metric"]
  assert got == pytest.approx(sum(values), abs=1e-9)
  # comm's optimum is 1 per member, 2 in all.
  assert all(r["metric"] <= 2.0 + 1e-9 for r in rows)


def test_teams_metric_stays_below_the_tmecor_value():
  game = pyspiel.load_game("kuhn_poker(players=3)")
  rows, _ = compare.run_all(game, ["cfr", "team_lp"], iterations=3, num_points=2,
                            teams="0,1|2", progress=False)
  assert {r["metric_name"] for r in rows} == {"team_value_vs_br"}
  value = team_lp.solve(game, "0,1|2").value
  for r in rows:  # no profile gets team 1 more than its TMECor value
    assert r["metric"] <= value + 1e-9
  with pytest.raises(ValueError, match="'0,1'"):
    compare.run_all(game, ["cfr"], iterations=1, teams="0,1", progress=False)
  with pytest.raises(ValueError, match="'0,x|2'"):
    compare.run_all(game, ["cfr"], iterations=1, teams="0,x|2", progress=False)


def test_bad_arguments_are_errors_naming_them():
  with pytest.raises(compare.UserError, match=r"'jps\.dpeth'.*jps\.depth"):
    compare.run_all("simple_bidding(size=3)", ["jps"], iterations=2, progress=False,
                    options={"jps.dpeth": "3"})
  with pytest.raises(compare.UserError, match="unknown solver 'nope'"):
    compare.run_all("kuhn_poker", ["nope"], iterations=2, progress=False)
  with pytest.raises(compare.UserError, match="names a solver twice"):
    compare.run_all("kuhn_poker", ["cfr", "cfr"], iterations=2, progress=False)
  with pytest.raises(compare.UserError, match="mmd cannot run on .*two-player zero-sum"):
    compare.run_all("kuhn_poker(players=3)", ["mmd"], iterations=2, progress=False)
  with pytest.raises(compare.UserError, match="unknown metric 'bogus'"):
    compare.run_all("kuhn_poker", ["cfr"], iterations=2, metric="bogus", progress=False)
  with pytest.raises(compare.UserError, match="--num_points must be >= 1, got 0"):
    compare.run_all("kuhn_poker", ["cfr"], iterations=2, num_points=0, progress=False)


@pytest.mark.parametrize("text, match", [("0", "'0'"), ("a,b", "'a,b'"), ("1,1", "repeats"),
                                         ("-1,2", "'-1,2'"), ("", "empty")])
def test_bad_seeds(text, match):
  with pytest.raises(compare.UserError, match=match):
    compare.parse_seeds(text)


def test_seeds_and_budgets():
  assert compare.parse_seeds("3") == [0, 1, 2]
  assert compare.parse_seeds("4,9") == [4, 9]
  assert compare.parse_seeds([2, 5]) == [2, 5]
  with pytest.raises(ValueError, match="-2"):
    compare.run_all("kuhn_poker", ["cfr"], seconds=-2, progress=False)
  with pytest.raises(ValueError, match="budget"):
    compare.run_all("kuhn_poker", ["cfr"], progress=False)
  # A CPU-seconds budget: the run stops once the solver's own CPU time passes it.
  rows, infos = compare.run_all("kuhn_poker", ["cfr"], seconds=0.3, seeds=[0, 1],
                                progress=False)
  assert {r["seed"] for r in rows} == {0, 1}
  for info in infos:
    assert 0.3 <= info["solver_cpu_seconds"] < 1.5
    assert info["iterations"] > 10


def _cli(args, **kw):
  return subprocess.run([sys.executable, "-m", "ospiel_team.compare", *args],
                        capture_output=True, text=True, timeout=600, **kw)


def test_command_line_user_errors_print_one_line(tmp_path):
  for args, needle in [(["--solver_options", "jps.dpeth=3", "--solvers", "jps"], "jps.dpeth"),
                       (["--seeds", "x"], "'x'"), (["--seconds", "-1"], "-1"),
                       (["--teams", "0|0"], "0|0"), (["--workers", "-1"], "--workers"),
                       (["--game", "no_such_game"], "no_such_game"),
                       (["--out", str(tmp_path / "f.txt")], "not a folder")]:
    (tmp_path / "f.txt").write_text("x")
    res = _cli(args + ([] if "--out" in args else ["--out", str(tmp_path / "o")]))
    assert res.returncode == 2, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_command_line_writes_three_files_with_seeds_and_reference(tmp_path):
  out = tmp_path / "run"
  res = _cli(["--game", "mini_bridge(size=3)", "--solvers", "cfr,jps", "--iterations", "4",
              "--num_points", "3", "--seeds", "2", "--workers", "1", "--out", str(out)])
  assert res.returncode == 0, res.stderr
  for name in ["results.json", "results.md", "curves.png"]:
    assert os.path.getsize(out / name) > 0
  data = json.loads((out / "results.json").read_text())
  assert {r["solver"] for r in data["rows"]} == {"cfr", "jps"}
  assert {r["seed"] for r in data["rows"]} == {0, 1}
  # mini_bridge(size=3)'s optimum ships with the package: read, not solved or stored.
  assert data["reference"] == {"value": reference.shipped_coop_optima()["mini_bridge(size=3)"],
                               "label": reference.PROVEN_LABEL}
  assert not (out / "reference.json").exists()
  text = (out / "results.md").read_text()
  assert "95% CI" in text and "Reference: **2.25**" in text and "jps" in text
  for r in data["rows"]:
    assert r["metric"] <= data["reference"]["value"] + 1e-9


def _ignores_sigint(pid: int) -> bool:
  with open(f"/proc/{pid}/status") as f:
    mask = next(line for line in f if line.startswith("SigIgn:")).split()[1]
  return bool(int(mask, 16) & (1 << (signal.SIGINT - 1)))


def test_command_line_ctrl_c_stops_the_pool_and_says_so_in_one_line(tmp_path):
  proc = subprocess.Popen([sys.executable, "-m", "ospiel_team.compare", "--game", "kuhn_poker",
                           "--solvers", "cfr", "--seconds", "120", "--seeds", "2",
                           "--workers", "2", "--out", str(tmp_path / "o")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  workers = []
  deadline = time.time() + 120
  while time.time() < deadline and len(workers) < 2:
    time.sleep(0.2)
    try:
      with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
        children = [int(c) for c in f.read().split()]
      workers = [c for c in children if "spawn_main" in open(f"/proc/{c}/cmdline").read()
                 and _ignores_sigint(c)]  # started: their initializer has run
    except OSError:
      pass
  try:
    assert len(workers) == 2, "the pool did not start"
    start = time.time()
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
  finally:
    proc.kill()
  assert proc.returncode == 130 and time.time() - start < 30
  last = [line for line in stderr.splitlines() if line.strip()][-1]
  assert last.startswith("interrupted: finished runs are kept in"), stderr[-2000:]
  assert "Traceback" not in stderr
  for w in workers:  # gone (or a zombie about to be reaped)
    assert (not os.path.exists(f"/proc/{w}")
            or open(f"/proc/{w}/stat").read().split(") ")[-1][0] == "Z")
