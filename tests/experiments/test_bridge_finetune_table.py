"""experiments/bridge_jpsbid/bridge_finetune_table.py: one-line user errors; (slow) resume and
model selection."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
SCRIPT = os.path.join(REPO, "experiments", "bridge_jpsbid", "bridge_finetune_table.py")
TINY = ["--deals_per_round", "8", "--select_boards", "12", "--eval_boards", "12",
        "--opponents", "a2c", "--progress=false", "--snapshot_every", "2"]


def _run(*args, cwd, ok=True):
  res = subprocess.run([sys.executable, SCRIPT, *args], cwd=cwd, capture_output=True,
                       text=True, timeout=1800)
  if ok:
    assert res.returncode == 0, res.stderr[-3000:]
  return res


def test_user_errors_are_one_line(tmp_path):
  res = _run("--workdir", str(tmp_path / "w"), "--variants", "a2c,bogus", cwd=tmp_path, ok=False)
  assert res.returncode != 0 and "Traceback" not in res.stderr
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1 and "unknown variant 'bogus'" in errors[0], res.stderr
  res = _run("--workdir", str(tmp_path / "w"), "--variants", "x=jps:rollout=3", cwd=tmp_path,
             ok=False)
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1 and "'rollout=3'" in errors[0], res.stderr
  res = _run("--workdir", str(tmp_path / "w"), "--eval_dataset", "train", cwd=tmp_path,
             ok=False)
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1 and "--eval_dataset" in errors[0] and "'train'" in errors[0]
  res = _run("--workdir", str(tmp_path / "w"), "--train_deals", "0", cwd=tmp_path, ok=False)
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1 and "--train_deals" in errors[0] and "got 0" in errors[0], res.stderr
  assert not os.path.exists(tmp_path / "w" / "results.json")  # no work was done


@pytest.mark.slow
def test_resumed_run_equals_uninterrupted_and_picks_best_on_validation(tmp_path):
  variants = ["--variants", "a2c,j=jps:fraction=0.5:rollouts=2:candidates=3"]
  one = str(tmp_path / "one")
  _run("--workdir", one, "--rounds", "4", *variants, *TINY, cwd=tmp_path)
  two = str(tmp_path / "two")
  _run("--workdir", two, "--rounds", "2", *variants, *TINY, cwd=tmp_path)
  _run("--workdir", two, "--rounds", "4", *variants, *TINY, cwd=tmp_path)
  for v in ("a2c", "j"):
    a = np.load(os.path.join(one, v, "snapshots", "round_00004.npz"))
    b = np.load(os.path.join(two, v, "snapshots", "round_00004.npz"))
    for k in a.files:
      if k.startswith("param/"):
        np.testing.assert_array_equal(a[k], b[k])
  stats = json.load(open(os.path.join(one, "j", "run_stats.json")))
  assert stats["round"] == 4 and stats["search_points"] > 0
  # The picked round is the validation argmax; a finished run does nothing (no new results,
  # no training).
  results = json.load(open(os.path.join(one, "results.json")))
  val = {r: results[f"val|j|{r}|12"]["mean"] for r in (2, 4)}
  best = max(val, key=val.get)
  assert any(k.startswith(f"heldout|j@{best}|a2c#") for k in results)  # keyed by SHA-1
  before = os.path.getmtime(os.path.join(one, "results.json"))
  res = _run("--workdir", one, "--rounds", "4", *variants, *TINY, cwd=tmp_path)
  assert "training a2c:" not in res.stdout and "training j:" not in res.stdout
  assert os.path.getmtime(os.path.join(one, "results.json")) == before
