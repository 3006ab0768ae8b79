"""benchmarks/team_scaling.py on its smoke ladder: one tiny instance solved in a subprocess,
recorded with its method, value, size and memory, and skipped by a rerun (resumable)."""

import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks",
                      "team_scaling.py")


def _run(out: str) -> dict:
  subprocess.run([sys.executable, SCRIPT, "--ladder", "smoke", "--out", out,
                  "--time_limit", "300", "--memory_gb", "12"], check=True,
                 capture_output=True, text=True)
  with open(out) as f:
    return json.load(f)


def test_smoke_ladder_records_and_resumes(tmp_path):
  out = str(tmp_path / "scaling.json")
  record = _run(out)
  (row,) = record["rows"]
  assert row["name"] == "21K3" and row["finished"] and row["method"] == "lp"
  assert row["exact"] and abs(row["value"]) < 1e-9  # Table 1's 21K3 value is 0
  assert row["histories"] == 160 and row["peak_rss_gb"] > 0
  assert "--ladder smoke" in record["command"]
  again = _run(out)
  assert again["rows"] == record["rows"]  # finished instances are skipped
