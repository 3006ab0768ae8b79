"""The uncontested cost-dataset build (`uncontested_costs`) cleans its chunk folder; its CLI
checks --out first."""

import os
import subprocess
import sys

import numpy as np
import pytest

from ospiel_team.bridge import uncontested_costs as C
from tests import repo as tests_repo

REPO = tests_repo.REPO


def test_finished_build_removes_its_chunk_folder(tmp_path):
  out = str(tmp_path / "cost.npz")
  kept = str(tmp_path / "kept.npz")
  d = C.build_cost_dataset(2, out, k=1, chunk=1, progress=False)
  assert os.path.exists(out) and not os.path.exists(out + ".chunks")
  d_kept = C.build_cost_dataset(2, kept, k=1, chunk=1, progress=False, keep_chunks=True)
  assert sorted(os.listdir(kept + ".chunks")) == ["chunk_00000_1_1.npz", "chunk_00001_1_1.npz"]
  np.testing.assert_array_equal(d["dd_tricks"], d_kept["dd_tricks"])


@pytest.mark.parametrize("kind", ["folder", "parent_is_file"])
def test_unwritable_out_is_one_line_before_work(tmp_path, kind):
  (tmp_path / "afile").write_text("x")
  out = tmp_path if kind == "folder" else tmp_path / "afile" / "cost.npz"
  res = subprocess.run([sys.executable, "-m", "ospiel_team.cli.uncontested", "--pairs",
                        "100000", "--out", str(out)], cwd=REPO, text=True, capture_output=True,
                       timeout=120)
  assert res.returncode != 0
  lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
  assert len(lines) == 1 and lines[0].startswith("uncontested: error: --out "), res.stderr
  assert str(out) in lines[0]
