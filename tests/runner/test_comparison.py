"""The comparison's orchestration (`runner.comparison.run_all`) and its command line."""

import importlib.util
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
from ospiel_team.algorithms.team import team_lp
from ospiel_team.runner import comparison
from ospiel_team.runner import execute
from ospiel_team.runner import reference


def test_common_payoff_rows_are_the_common_payoff_and_stay_below_the_optimum():
  """value = the common payoff every player receives (OpenSpiel's policy_value)."""
  game = pyspiel.load_game("comm(length=2)")
  rows, _ = comparison.run_all(game, ["cfr_plus"], iterations=5, num_points=2, progress=False)
  assert {r["metric_name"] for r in rows} == {"value"}
  solver = cfr.CFRPlusSolver(game)
  for _ in range(5):
    solver.evaluate_and_update_policy()
  values = expected_game_score.policy_value(game.new_initial_state(),
                                            [solver.average_policy()] * 2)
  got = [r for r in rows if r["variant"] == "average" and r["iteration"] == 5][0]["metric"]
  assert got == pytest.approx(values[0], abs=1e-9) and values[0] == pytest.approx(values[1])
  # comm's optimum: every player gets 1.
  assert all(r["metric"] <= 1.0 + 1e-9 for r in rows)


def test_teams_metric_stays_below_the_tmecor_value():
  game = pyspiel.load_game("kuhn_poker(players=3)")
  rows, _ = comparison.run_all(game, ["cfr", "team_lp"], iterations=3, num_points=2,
                            teams="0,1|2", progress=False)
  assert {r["metric_name"] for r in rows} == {"team_value_vs_br"}
  value = team_lp.solve(game, "0,1|2").value
  for r in rows:  # no profile gets team 1 more than its TMECor value
    assert r["metric"] <= value + 1e-9
  with pytest.raises(ValueError, match="'0,1'"):
    comparison.run_all(game, ["cfr"], iterations=1, teams="0,1", progress=False)
  with pytest.raises(ValueError, match="'0,x|2'"):
    comparison.run_all(game, ["cfr"], iterations=1, teams="0,x|2", progress=False)


def test_bad_arguments_are_errors_naming_them():
  with pytest.raises(comparison.UserError, match=r"'jps\.dpeth'.*jps\.depth"):
    comparison.run_all("simple_bidding(size=3)", ["jps"], iterations=2, progress=False,
                    options={"jps.dpeth": "3"})
  with pytest.raises(comparison.UserError, match="unknown solver 'nope'"):
    comparison.run_all("kuhn_poker", ["nope"], iterations=2, progress=False)
  with pytest.raises(comparison.UserError, match="names a solver twice"):
    comparison.run_all("kuhn_poker", ["cfr", "cfr"], iterations=2, progress=False)
  with pytest.raises(comparison.UserError, match="mmd cannot run on .*two-player zero-sum"):
    comparison.run_all("kuhn_poker(players=3)", ["mmd"], iterations=2, progress=False)
  with pytest.raises(comparison.UserError, match="unknown metric 'bogus'"):
    comparison.run_all("kuhn_poker", ["cfr"], iterations=2, metric="bogus", progress=False)
  with pytest.raises(comparison.UserError, match="--num_points must be >= 1, got 0"):
    comparison.run_all("kuhn_poker", ["cfr"], iterations=2, num_points=0, progress=False)


@pytest.mark.parametrize("text, match", [("0", "'0'"), ("a,b", "'a,b'"), ("1,1", "repeats"),
                                         ("-1,2", "'-1,2'"), ("", "empty")])
def test_bad_seeds(text, match):
  with pytest.raises(comparison.UserError, match=match):
    comparison.parse_seeds(text)


def test_seeds_and_budgets():
  assert comparison.parse_seeds("3") == [0, 1, 2]
  assert comparison.parse_seeds("4,9") == [4, 9]
  assert comparison.parse_seeds([2, 5]) == [2, 5]
  with pytest.raises(ValueError, match="-2"):
    comparison.run_all("kuhn_poker", ["cfr"], seconds=-2, progress=False)
  with pytest.raises(ValueError, match="budget"):
    comparison.run_all("kuhn_poker", ["cfr"], progress=False)
  # A CPU-seconds budget: the run stops once the solver's own CPU time passes it.
  rows, infos = comparison.run_all("kuhn_poker", ["cfr"], seconds=0.3, seeds=[0, 1],
                                progress=False)
  assert {r["seed"] for r in rows} == {0, 1}
  for info in infos:
    assert 0.3 <= info["solver_cpu_seconds"] < 1.5
    assert info["iterations"] > 10


def _cli(args, **kw):
  return subprocess.run([sys.executable, "-m", "ospiel_team.cli.compare", *args],
                        capture_output=True, text=True, timeout=600, **kw)


def test_command_line_user_errors_print_one_line(tmp_path):
  for args, needle in [(["--solver_options", "jps.dpeth=3", "--solvers", "jps", "--game",
                         "mini_bridge(size=2)"], "jps.dpeth"),
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


MB2 = ["--game", "mini_bridge(size=2)"]


@pytest.mark.parametrize("args, needle", [
    (["--game", "mini_bridge(size=99)"], "size=99"),
    (["--game", "team_kuhn(players=1)"], "players=1"),
    (["--solvers", "team_lp"] + MB2, "team_lp cannot run on mini_bridge(size=2)"),
    (["--game", "bridge_bidding"], "too large for the runner"),
    (["--game", "goofspiel(num_cards=3)"], "turn_based_simultaneous_game(game=goofspiel"),
    (["--solvers", "jps", "--solver_options", "jps.depth=-1"] + MB2, "jps.depth=-1"),
    (["--solvers", "jps", "--solver_options", "jps.samples=-2"] + MB2, "jps.samples=-2"),
    (["--solvers", "jps", "--game", "kuhn_poker"], "jps cannot run on kuhn_poker"),
    (["--metric", "team_value_vs_br"] + MB2, "'team_value_vs_br' needs two teams"),
    (["--teams", "0|1"] + MB2, "common-payoff game"),
    (["--ray", "local"], "pip install 'ospiel-team[ray]'"),
    (["--formats", "png,gif"], "'gif'"),
    (["--game", "kuhn_poker", "--game", "kuhn_poker"], "names a game twice"),
])
def test_command_line_bad_values_are_one_line_and_status_2(tmp_path, args, needle):
  if needle.startswith("pip") and importlib.util.find_spec("ray") is not None:
    args, needle = ["--ray", "local", "--workers", "-3"], "--workers"  # Ray is installed
  res = _cli(args + ["--iterations", "2", "--seeds", "1", "--out", str(tmp_path / "o")],
             cwd=tmp_path)
  assert res.returncode == 2, res.stderr
  lines = [line for line in res.stderr.splitlines() if line.strip()]
  assert len(lines) == 1 and needle in lines[0], res.stderr
  assert not (tmp_path / "o" / "runs").exists()  # refused before any run


def test_command_line_empty_out_is_refused_before_any_work(tmp_path):
  res = _cli(["--out=", "--iterations", "2", "--seeds", "1"], cwd=tmp_path)
  assert res.returncode == 2 and res.stderr.strip() == "error: --out is empty: give the output " \
      "folder", res.stderr
  assert list(tmp_path.iterdir()) == []  # no ./runs or anything else left behind


def test_an_out_folder_held_by_a_live_run_is_refused_and_a_stale_lock_taken_over(tmp_path):
  out = tmp_path / "o"
  out.mkdir()
  holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
  try:
    (out / execute.LOCK_NAME).write_text(str(holder.pid))
    res = _cli(["--iterations", "2", "--seeds", "1", "--solvers", "cfr", "--workers", "1",
                "--out", str(out)])
    assert res.returncode == 2, res.stderr
    assert f"in use by another comparison (process {holder.pid})" in res.stderr
    assert not (out / "results.json").exists()
  finally:
    holder.kill()
    holder.wait()
  # the holder is dead now: its lock is stale and taken over; the lock is gone afterwards
  res = _cli(["--iterations", "2", "--seeds", "1", "--solvers", "cfr", "--workers", "1",
              "--out", str(out)])
  assert res.returncode == 0, res.stderr
  assert (out / "results.json").exists() and not (out / execute.LOCK_NAME).exists()


def test_several_games_get_a_folder_each_and_a_summary(tmp_path):
  out = tmp_path / "o"
  res = _cli(["--game", "kuhn_poker", "--game", "mini_bridge(size=2)", "--solvers", "cfr_plus",
              "--iterations", "3", "--num_points", "2", "--seeds", "1", "--workers", "1",
              "--out", str(out)])
  assert res.returncode == 0, res.stderr
  for game in ("kuhn_poker", "mini_bridge_size=2"):
    assert (out / game / "results.json").exists(), sorted(os.listdir(out))
  summary = (out / "summary.md").read_text()
  assert "`kuhn_poker()`" in summary and "`mini_bridge(size=2)`" in summary
  assert "nash_conv" in summary and "| value |" in summary


def test_command_line_writes_three_files_with_seeds_and_reference(tmp_path):
  out = tmp_path / "run"
  res = _cli(["--game", "mini_bridge(size=3)", "--solvers", "cfr,jps", "--iterations", "4",
              "--num_points", "3", "--seeds", "2", "--workers", "1", "--formats", "png,svg",
              "--out", str(out)])
  assert res.returncode == 0, res.stderr
  for name in ["results.json", "results.md", "curves.png", "curves.svg"]:
    assert os.path.getsize(out / name) > 0
  data = json.loads((out / "results.json").read_text())
  assert {r["solver"] for r in data["rows"]} == {"cfr", "jps"}
  assert {r["seed"] for r in data["rows"]} == {0, 1}
  # mini_bridge(size=3)'s optimum ships with the package: read, not solved or stored.
  assert data["reference"] == {"value": reference.shipped_coop_optima()["mini_bridge(size=3)"],
                               "label": reference.PROVEN_LABEL}
  assert not (out / "reference.json").exists()
  text = (out / "results.md").read_text()
  # the common payoff: 1.125 per player (README's proven optimum), not 2.25 summed
  assert "95% CI" in text and "Reference: **1.125**" in text and "| jps | **jps** |" in text
  for r in data["rows"]:
    assert r["metric"] <= data["reference"]["value"] + 1e-9
  # jps is judged by its JPS policy, which never does worse than the current policy it starts
  # from (Theorem 2 of the JPS paper), and JPS's start value is the current policy's metric
  judged = {(r["solver"], r["variant"]) for r in data["rows"] if r["primary"]}
  assert judged == {("cfr", "average"), ("jps", "jps")}
  current = {(r["seed"], r["iteration"]): r["metric"] for r in data["rows"]
             if r["solver"] == "jps" and r["variant"] == "current"}
  for r in data["rows"]:
    if r["solver"] == "jps" and r["variant"] == "jps":
      assert r["jps_start_value"] == pytest.approx(current[(r["seed"], r["iteration"])])
      assert r["metric"] >= r["jps_start_value"] - 1e-12
  prov = data["provenance"]
  assert prov["command"][1:3] == ["--game", "mini_bridge(size=3)"]
  assert prov["versions"]["numpy"] and prov["versions"]["open_spiel"] and prov["machine"]["cores"]
  assert prov["date"].startswith("20") and "commit" in prov


def _ignores_sigint(pid: int) -> bool:
  with open(f"/proc/{pid}/status") as f:
    mask = next(line for line in f if line.startswith("SigIgn:")).split()[1]
  return bool(int(mask, 16) & (1 << (signal.SIGINT - 1)))


def test_command_line_ctrl_c_stops_the_pool_and_says_so_in_one_line(tmp_path):
  proc = subprocess.Popen([sys.executable, "-m", "ospiel_team.cli.compare", "--game", "kuhn_poker",
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
