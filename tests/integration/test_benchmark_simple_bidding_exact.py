"""benchmarks/simple_bidding_exact.py: a small size end to end (its row agrees with the kernel
called directly and with OpenSpiel's evaluation), the checkpoint removed once the row is
written, a finished size not rerun, and a one-line error for a bad flag combination."""

import json
import os
import subprocess
import sys

from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo
from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "benchmarks", "simple_bidding_exact.py")


def _run(*args, cwd):
  return subprocess.run([sys.executable, SCRIPT, *args], cwd=cwd, capture_output=True,
                        text=True, timeout=300)


def test_small_size_with_checkpoint(tmp_path):
  out, ck = tmp_path / "out.json", tmp_path / "ck.npz"
  args = ["--sizes", "6", "--hash_log2", "16", "--out", str(out), "--checkpoint", str(ck),
          "--progress=false"]
  res = _run(*args, cwd=tmp_path)
  assert res.returncode == 0, res.stderr
  row, = json.loads(out.read_text())["rows"]
  direct = sbo.solve(6, hash_log2=16)
  assert row["total"] == direct.total and row["proven_optimal"]
  assert abs(row["openspiel_value"] - direct.total / 36) < 1e-12
  assert not ck.exists()
  again = _run(*args, cwd=tmp_path)
  assert again.returncode == 0 and json.loads(again.stdout.strip()) == row


def test_checkpoint_with_two_sizes_is_one_line(tmp_path):
  res = _run("--sizes", "5,6", "--checkpoint", str(tmp_path / "ck.npz"),
             "--out", str(tmp_path / "o.json"), cwd=tmp_path)
  assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
  assert "--checkpoint needs exactly one size, got --sizes=5,6" in res.stderr
