"""Every experiment driver (`experiments/<study>/*.py` with a main) runs, as the benchmarks do.

The same check as `tests/benchmarks/test_benchmarks_run.py` (whose helpers run it): each
driver runs as a subprocess in a temporary folder with its outputs there, and no file of
`results/`, `experiments/`, `docs/img/` or the package's shipped data may change. Each driver
is in exactly one of `SMALL` (run here on its smallest setting) and `ELSEWHERE` (run small by
the named test, which checks its outputs too).
"""
from __future__ import annotations

import os
import shutil

import pytest

from tests import repo as tests_repo
from tests.benchmarks import test_benchmarks_run as runs

REPO = tests_repo.REPO
EXPERIMENTS = os.path.join(REPO, "experiments")

# driver (path under experiments/) -> its smallest setting's arguments ({tmp}: temporary).
SMALL: dict[str, list[str]] = {
    "bridge_jpsbid/bridge_finetune_table.py": [
        "--workdir", "{tmp}/ft", "--variants", "a2c", "--rounds", "1", "--snapshot_every", "1",
        "--deals_per_round", "4", "--select_boards", "4", "--eval_boards", "4",
        "--opponents", "natural", "--progress=false"],
    "bridge_a2c_training/bridge_select_snapshot.py": [
        "--snapshots", "{tmp}/snapshots", "--opponent", "natural", "--boards", "4",
        "--out", "{tmp}/selection.json", "--noprogress"],
}

# driver -> the test that runs it on a small setting and checks what it writes.
ELSEWHERE: dict[str, str] = {
    "bridge_fsp_ppo/bridge_method_comparison.py":
        "tests/experiments/test_bridge_method_comparison.py",
    "bridge_jpsbid/bridge_replication.py": "tests/experiments/test_bridge_replication.py",
    "bridge_search/bridge_search_diagnosis.py": "tests/experiments/test_bridge_search_diagnosis.py",
    "bridge_search/bridge_search_experiment.py":
        "tests/experiments/test_bridge_search_experiment.py",
    "bridge_wide_start/bridge_wide_start.py": "tests/experiments/test_bridge_wide_start.py",
    "bridge_wide_run/bridge_wide_run.py": "tests/experiments/test_bridge_wide_run.py",
    "bridge_a2c_training/bridge_training_curves.py":
        "tests/experiments/test_bridge_training_curves.py",
}


def drivers() -> list[str]:
  """Every driver under experiments/ (a .py file with a main), as a path under experiments/."""
  found = []
  for root, _, names in os.walk(EXPERIMENTS):
    for name in names:
      path = os.path.join(root, name)
      if name.endswith(".py") and "__main__" in open(path, encoding="utf-8").read():
        found.append(os.path.relpath(path, EXPERIMENTS).replace(os.sep, "/"))
  return sorted(found)


def test_every_driver_is_covered_once():
  # Other studies (whose own tests run their drivers) may add folders; these are this file's.
  mine = [d for d in drivers() if d.split("/")[0] in {k.split("/")[0]
                                                      for k in [*SMALL, *ELSEWHERE]}]
  assert set(SMALL) | set(ELSEWHERE) == set(mine), "a driver is in no group"
  assert not set(SMALL) & set(ELSEWHERE), "a driver is in two groups"
  assert "bridge_search/bridge_search_experiment.py" in mine  # the walk finds drivers at all


@pytest.mark.parametrize("driver", sorted(ELSEWHERE))
def test_elsewhere_names_a_test_that_runs_the_driver(driver):
  with open(os.path.join(REPO, ELSEWHERE[driver]), encoding="utf-8") as f:
    text = f.read()
  assert os.path.basename(driver) in text and "subprocess" in text, (driver, ELSEWHERE[driver])


def _prepare(driver: str, tmp_path) -> None:
  """Inputs a driver needs besides its flags."""
  if driver.endswith("bridge_select_snapshot.py"):  # two "snapshots": copies of two models
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    shutil.copy(os.path.join(REPO, "ospiel_team", "bridge", "models", "a2c_baseline.npz"),
                snapshots / "round_0000001.npz")
    shutil.copy(os.path.join(EXPERIMENTS, "bridge_jpsbid", "models", "a2c_finetuned.npz"),
                snapshots / "round_0000002.npz")


@pytest.mark.parametrize("driver", sorted(SMALL))
def test_runs_on_its_smallest_setting(driver, tmp_path):
  _prepare(driver, tmp_path)
  args = [a.replace("{tmp}", str(tmp_path)) for a in SMALL[driver]]
  before = runs._snapshot()
  res = runs._run([os.path.join(EXPERIMENTS, driver), *args], tmp_path, timeout=600)
  assert res.returncode == 0, (driver, res.stdout[-3000:], res.stderr[-3000:])
  assert runs._snapshot() == before, f"{driver} wrote into the repository"
  assert not (tmp_path / "experiments").exists(), f"{driver} wrote a default experiments/ path"
  outputs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in runs.OUTPUT_FLAGS]
  assert [o for o in outputs if not os.path.exists(o)] == [], f"{driver}: outputs missing"
