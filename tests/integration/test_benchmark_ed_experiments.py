"""benchmarks/ed_experiments.py runs on small settings and writes consistent results."""
import json
import os
import subprocess
import sys

import pyspiel
from open_spiel.python.algorithms import exploitability

from ospiel_team.tree.game_tree import GameTree
from tests import repo as tests_repo

REPO = tests_repo.REPO


def test_ed_experiments_small(tmp_path):
  out = tmp_path / "ed"
  cmd = [sys.executable, os.path.join(REPO, "benchmarks", "ed_experiments.py"),
         "--games", "kuhn_poker", "--seconds", "0.3", "--game_seconds", "",
         "--solvers", "ed,cfr", "--max_iterations", "30", "--num_points", "8",
         "--out", str(out)]
  record_path = tmp_path / "record.json"
  subprocess.run(cmd + ["--record", str(record_path)], check=True, capture_output=True,
                 text=True, timeout=600)
  rows = json.loads((out / "results.json").read_text())
  assert {r["solver"] for r in rows} == {"ed", "cfr"}
  assert (out / "ed_figure1.png").stat().st_size > 10_000
  md = (out / "results.md").read_text()
  assert "| ed | current |" in md and "| cfr | average |" in md
  # The recorded NashConv of the first CFR checkpoint (1 iteration of OpenSpiel's CFR: the
  # average policy is the uniform policy) is OpenSpiel's NashConv of the uniform policy.
  game = pyspiel.load_game("kuhn_poker")
  first = [r for r in rows if r["solver"] == "cfr" and r["variant"] == "average"][0]
  assert first["iteration"] == 1
  uniform = GameTree(game).tabular_policy(GameTree(game).uniform_policy_array())
  assert abs(first["metric"] - exploitability.nash_conv(game, uniform)) < 1e-12
  # ED rows carry the NashConv the solver itself reported before its step.
  ed_rows = [r for r in rows if r["solver"] == "ed"]
  assert ed_rows and all("nash_conv_before_step" in r for r in ed_rows)
  # The compact record holds, per solver, the judged policy's last checkpoint and its curve.
  record = json.loads(record_path.read_text())
  assert record["provenance"]["command"].startswith("python benchmarks/ed_experiments.py")
  assert "--record=" in record["provenance"]["command"]
  assert record["provenance"]["machine"]["cores"] == os.cpu_count()
  kuhn = record["games"]["kuhn_poker"]
  assert kuhn["budget_cpu_seconds"] == 0.3
  for solver, variant in (("ed", "current"), ("cfr", "average")):
    entry = kuhn["solvers"][solver]
    judged = [r for r in rows if r["solver"] == solver and r["variant"] == variant]
    assert entry["variant"] == variant
    assert entry["curve"] == [[r["iteration"], r["seconds"], r["metric"]] for r in judged]
    assert entry["nash_conv"] == judged[-1]["metric"]
    assert entry["iterations"] == judged[-1]["iteration"] <= 30
  # The record's CFR NashConv is OpenSpiel's for OpenSpiel's CFR run as long.
  from open_spiel.python.algorithms import cfr
  solver = cfr.CFRSolver(game)
  for _ in range(kuhn["solvers"]["cfr"]["iterations"]):
    solver.evaluate_and_update_policy()
  assert abs(exploitability.nash_conv(game, solver.average_policy())
             - kuhn["solvers"]["cfr"]["nash_conv"]) < 1e-9
  # Resume: nothing is re-run, the results are unchanged.
  subprocess.run(cmd + ["--resume"], check=True, capture_output=True, text=True, timeout=600)
  assert json.loads((out / "results.json").read_text()) == rows


def _user_error(*args, cwd) -> str:
  res = subprocess.run([sys.executable, os.path.join(REPO, "benchmarks", "ed_experiments.py"),
                        *args], cwd=cwd, capture_output=True, text=True, timeout=300)
  assert res.returncode != 0
  assert "Traceback" not in res.stderr, res.stderr
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1, res.stderr
  return errors[0]


def test_ed_experiments_checks_out_before_work(tmp_path):
  afile = tmp_path / "afile"
  afile.write_text("x")
  line = _user_error("--games", "kuhn_poker", "--solvers", "cfr", "--out", str(afile),
                     cwd=tmp_path)
  assert line == f"ed_experiments: error: --out {str(afile)!r} is an existing file, not a folder"
  line = _user_error("--games", "kuhn_poker", "--solvers", "cfr", "--out", str(afile / "sub"),
                     cwd=tmp_path)
  assert "cannot be written" in line and "is a file, not a folder" in line
