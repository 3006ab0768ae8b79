"""benchmarks/bridge_cross_table.py: its reader of the JPS authors' WBridge5 deals agrees with
our DDS, and bad paths are clear errors."""
import os
import subprocess
import sys

from tests import repo as tests_repo
from tests.bridge.agents.test_jps_paper import REF_DIR
from tests.bridge.agents.test_jps_paper import needs_ref

SCRIPT = os.path.join(tests_repo.REPO, "benchmarks", "bridge_cross_table.py")

_PROBE = r"""
import importlib.util, sys
import numpy as np
spec = importlib.util.spec_from_file_location("cross", sys.argv[1])
cross = importlib.util.module_from_spec(spec); spec.loader.exec_module(cross)
from ospiel_team.bridge import dds
for bad in (None, sys.argv[2] + "/missing.raw"):
  try:
    cross.load_wbridge5_deals(bad)
  except ValueError as e:
    print("ERR", e)
if len(sys.argv) > 3:
  ds = cross.load_wbridge5_deals(sys.argv[3])
  same = np.array_equal(dds.dd_tables(ds.holders[:4]), ds.dd_tricks[:4])
  print(len(ds), int(same), ds.holders.dtype, ds.dd_tricks.shape)
"""


def _probe(*args):
  res = subprocess.run([sys.executable, "-c", _PROBE, SCRIPT, *args], capture_output=True,
                       text=True, timeout=300, cwd=tests_repo.REPO)
  assert res.returncode == 0, res.stderr[-3000:]
  return res.stdout.strip().splitlines()


def test_missing_wbridge5_file_is_a_clear_error(tmp_path):
  lines = _probe(str(tmp_path))
  assert lines[0] == "ERR the wbridge5 deals need --reference_dir (the folder of " \
                     "against_WBridge5.raw)"
  assert lines[1].startswith("ERR ") and "missing.raw' does not exist" in lines[1]


@needs_ref
def test_wbridge5_tables_agree_with_our_dds(tmp_path):
  lines = _probe(str(tmp_path), REF_DIR)
  assert lines[-1] == "1000 1 uint8 (1000, 5, 4)"
