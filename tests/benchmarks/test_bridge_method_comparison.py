"""The FSP/PPO comparison's driver: its summary counts every finished run in the output folder
(so drivers on disjoint seeds can share it), and its decision waits for the pre-registered
number of runs."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from ospiel_team import atomic_io
from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "benchmarks", "bridge_method_comparison.py")
PREREG = os.path.join(tests_repo.REPO, "results", "bridge_fsp_ppo", "PREREGISTRATION.md")


def test_summary_counts_another_drivers_finished_run(tmp_path):
  out = tmp_path / "out"
  (out / "runs").mkdir(parents=True)
  other = {"arm": "a2c", "seed": 7, "done": True, "games_per_cpu_s": 1000.0, "rounds": 3,
           "selected": "cpu_1of1.npz",
           "matches": {"select/cpu_1of1.npz": {"mean": 0.25}}}
  atomic_io.write_text(str(out / "runs" / "a2c_seed7.json"), json.dumps(other))
  # an unfinished run of a third seed is not counted
  atomic_io.write_text(str(out / "runs" / "a2c_seed8.json"),
                       json.dumps({**other, "seed": 8, "done": False}))
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  res = subprocess.run(
      [sys.executable, SCRIPT, "--pilot", "--arms", "a2c", "--seeds", "1",
       "--cpu_minutes", "0.01", "--snapshots", "1", "--select_boards", "4",
       "--workdir", str(tmp_path / "work"), "--out", str(out), "--noprogress"],
      cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
  assert res.returncode == 0, res.stderr[-3000:]
  summary = json.loads((out / "summary.json").read_text())
  assert summary["a2c"]["runs"] == 2 and summary["a2c"]["seeds"] == [1, 7]
  assert summary["a2c"]["validation_of_selected"][1] == 0.25


def test_registered_runs_is_the_preregistrations():
  text = open(PREREG).read()
  seeds = re.search(r"\*\*(\d+) per arm, trainer seeds ([\d, ]+)\*\*", text)
  assert seeds, "the pre-registration's runs line moved"
  script = open(SCRIPT).read()
  constant = int(re.search(r"^REGISTERED_RUNS = (\d+)", script, re.M).group(1))
  default = re.search(r'DEFINE_list\("seeds", \[([^\]]*)\]', script).group(1)
  assert constant == int(seeds.group(1))
  assert [int(s) for s in re.findall(r"\d+", default)] == [
      int(s) for s in seeds.group(2).replace(",", " ").split()]
