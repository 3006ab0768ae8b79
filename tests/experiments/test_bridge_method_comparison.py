"""The FSP/PPO comparison's driver: its summary counts every finished run in the output folder
(so drivers on disjoint seeds can share it), and its decision waits for the pre-registered
number of runs."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import scipy.stats

from ospiel_team import atomic_io
from tests import repo as tests_repo
from tests.benchmarks import test_benchmarks_run as runs

SCRIPT = os.path.join(tests_repo.REPO, "experiments",
                      "bridge_fsp_ppo", "bridge_method_comparison.py")
PREREG = os.path.join(tests_repo.REPO, "experiments", "bridge_fsp_ppo", "PREREGISTRATION.md")


def test_summary_counts_another_drivers_finished_run(tmp_path):
  out = tmp_path / "out"
  (out / "runs").mkdir(parents=True)
  other = {"arm": "a2c", "seed": 7, "done": True, "games_per_cpu_s": 1000.0, "rounds": 3,
           "selected": "cpu_1of1.npz", "snapshots": [{"file": "cpu_1of1.npz"}],
           "matches": {"select/cpu_1of1.npz": {"mean": 0.25}}}
  atomic_io.write_text(str(out / "runs" / "a2c_seed7.json"), json.dumps(other))
  # an unfinished run of a third seed is not counted
  atomic_io.write_text(str(out / "runs" / "a2c_seed8.json"),
                       json.dumps({**other, "seed": 8, "done": False}))
  # The driver's smallest setting (tests/experiments/test_experiments_run.py names this test
  # for it): a pilot run of one seed, with the repository left as it was.
  before = runs._snapshot()
  res = runs._run(
      [SCRIPT, "--pilot", "--arms", "a2c", "--seeds", "1",
       "--cpu_minutes", "0.01", "--snapshots", "1", "--select_boards", "4",
       "--workdir", str(tmp_path / "work"), "--out", str(out), "--noprogress"],
      tmp_path, timeout=600)
  assert res.returncode == 0, res.stderr[-3000:]
  assert runs._snapshot() == before, "the driver wrote into the repository"
  assert not (tmp_path / "experiments").exists(), "the driver wrote a default experiments/ path"
  assert (out / "runs" / "a2c_seed1.json").exists()  # its own run, beside the other driver's
  summary = json.loads((out / "summary.json").read_text())
  assert summary["a2c"]["runs"] == 2 and summary["a2c"]["seeds"] == [1, 7]
  assert summary["a2c"]["validation_of_selected"][1] == 0.25


def test_secondary_contrasts_are_welchs_intervals(tmp_path):
  """Finished runs only (nothing is played): each contrast is the difference of the arms' mean
  held-out results with Welch's interval, as scipy computes it; the selected snapshot's
  position is counted from 1."""
  out = tmp_path / "out"
  (out / "runs").mkdir(parents=True)
  results = {"a2c": [0.06, -0.01, -0.04], "a2c_fsp": [-0.02, 0.007, -0.041, 0.01]}
  for arm, xs in results.items():
    for seed, x in enumerate(xs, 1):
      snaps = [{"file": f"cpu_{j}of4.npz"} for j in range(1, 5)]
      rec = {"arm": arm, "seed": seed, "done": True, "games_per_cpu_s": 3000.0, "rounds": 9,
             "snapshots": snaps, "selected": snaps[seed % 4]["file"],
             "matches": {f"select/{s['file']}": {"mean": 0.0} for s in snaps},
             "result_imps_per_board": x}
      atomic_io.write_text(str(out / "runs" / f"{arm}_seed{seed}.json"), json.dumps(rec))
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  res = subprocess.run(
      [sys.executable, SCRIPT, "--arms", "a2c,a2c_fsp", "--seeds", "1,2,3",
       "--workdir", str(tmp_path / "work"), "--out", str(out), "--noprogress"],
      cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
  assert res.returncode == 0, res.stderr[-3000:]
  summary = json.loads((out / "summary.json").read_text())
  assert summary["a2c"]["selected_snapshot"] == [2, 3, 4]
  assert summary["a2c_fsp"]["selected_snapshot"] == [2, 3, 4, 1]
  assert summary["a2c"]["decision"] == "none yet (3 of 6 runs)"
  (c,) = json.loads((out / "secondary.json").read_text())  # the only contrast of these arms
  assert (c["arm"], c["minus"], c["runs"]) == ("a2c_fsp", "a2c", [4, 3])
  x, y = results["a2c_fsp"], results["a2c"]
  ci = scipy.stats.ttest_ind(x, y, equal_var=False).confidence_interval(0.95)
  assert np.isclose(c["difference"], np.mean(x) - np.mean(y))
  assert np.allclose(c["ci95"], [ci.low, ci.high])
  assert "| FSP minus plain (A2C) | 4 vs 3 |" in (out / "summary.md").read_text()


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
