"""examples/bridge_jax_train.py runs on small settings, resumes, and names bad flags in one line."""

import csv
import os
import subprocess
import sys

from tests import repo as tests_repo

REPO = tests_repo.REPO
SCRIPT = os.path.join(REPO, "examples", "bridge_jax_train.py")
SMALL = ["--tables=16", "--batch_size=32", "--updates_per_round=2", "--hidden=16",
         "--num_blocks=1", "--holdout=16", "--platform=cpu", "--progress=false"]


def _run(*args, cwd):
  return subprocess.run([sys.executable, SCRIPT, *args], cwd=cwd, capture_output=True,
                        text=True, timeout=600)


def test_example_trains_exports_and_resumes(tmp_path):
  work, slim = tmp_path / "w", tmp_path / "slim.npz"
  out = _run(f"--workdir={work}", "--rounds=2", f"--export_checkpoint={slim}", *SMALL,
             cwd=tmp_path)
  assert out.returncode == 0, out.stderr[-3000:]
  assert "rounds 2, games 32" in out.stdout and "resuming at round 0" in out.stdout
  rows = list(csv.DictReader(open(work / "log.csv")))
  assert [int(r["round"]) for r in rows] == [1, 2]
  assert os.path.exists(work / "model.npz") and os.path.exists(slim)
  # A new workdir started from the exported checkpoint goes on from round 2.
  out = _run(f"--workdir={tmp_path / 'w2'}", "--rounds=3", f"--resume_from={slim}", *SMALL,
             cwd=tmp_path)
  assert out.returncode == 0, out.stderr[-3000:]
  assert "resuming at round 2" in out.stdout and "rounds 3, games 48" in out.stdout


def _error_line(*args, cwd):
  res = _run(*args, cwd=cwd)
  assert res.returncode != 0
  assert "Traceback" not in res.stderr, res.stderr
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1, res.stderr
  return errors[0]


def test_example_names_bad_flags(tmp_path):
  afile = tmp_path / "afile"
  afile.write_text("x")
  line = _error_line(f"--workdir={afile}", cwd=tmp_path)
  assert line == (f"bridge_jax_train: error: --workdir {str(afile)!r} is an existing file, "
                  "not a folder")
  line = _error_line(f"--workdir={tmp_path / 'w'}", "--tables=7", cwd=tmp_path)
  assert line == "bridge_jax_train: error: --tables 7 must be even and >= 2 (two tables a deal)"
  line = _error_line(f"--workdir={tmp_path / 'w'}", f"--resume_from={tmp_path / 'no.npz'}",
                     cwd=tmp_path)
  assert line == (f"bridge_jax_train: error: --resume_from {str(tmp_path / 'no.npz')!r} "
                  "is not a file")
  line = _error_line(f"--workdir={tmp_path / 'w'}", f"--resume_from={afile}", "--platform=cpu",
                     cwd=tmp_path)
  assert line.startswith(f"bridge_jax_train: error: checkpoint {str(afile)!r} cannot be read "
                         "as an .npz")
