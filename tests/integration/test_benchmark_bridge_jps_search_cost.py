"""benchmarks/bridge_jps_search_cost.py on tiny settings: a complete, reproducible record."""

import json
import os
import subprocess
import sys

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO


def _run(out):
  cmd = [sys.executable, os.path.join(REPO, "benchmarks", "bridge_jps_search_cost.py"),
         "--roots", "6", "--batch", "4", "--settings", "study_padded,default,1search",
         "--noprecompile", "--out", str(out)]
  subprocess.run(cmd, check=True, capture_output=True, timeout=600,
                 env=dict(os.environ, PYTHONPATH=REPO))
  return json.loads(out.read_text())


def test_search_cost_record_is_complete_and_reproducible(tmp_path):
  a = _run(tmp_path / "a.json")
  assert a["alone"] is False and a["roots"] == 6 and a["command"].startswith("python ")
  rows = a["settings"]
  assert set(rows) == {"study_padded", "default", "1search"}
  for row in rows.values():
    assert row["mean_candidates"] >= 2  # every root is a searched decision
    assert row["changed"] == round(row["changed_rate"] * 6)
    if row["changed"]:
      assert 0 <= row["confirmed_rate"] <= 1 and 0 <= row["same_call_rate"] <= 1
  # The padded layout simulates every one of the 5 candidates; the default only valid ones.
  assert rows["study_padded"]["network_rows_per_decision"] > \
      rows["default"]["network_rows_per_decision"]


@pytest.mark.slow
def test_search_cost_record_is_reproducible(tmp_path):
  """Same flags, same roots and searches: every number but the timings and loads is the same."""
  a = _run(tmp_path / "a.json")
  rows = a["settings"]
  b = _run(tmp_path / "b.json")
  assert a["roots_digest"] == b["roots_digest"]
  timing = ("cpu_ms_per_decision", "wall_ms_per_decision", "load_before", "load_after")
  for name, row in rows.items():
    assert {k: v for k, v in row.items() if k not in timing} == \
        {k: v for k, v in b["settings"][name].items() if k not in timing}
