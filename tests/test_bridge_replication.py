"""benchmarks/bridge_replication.py: the pre-registered decision rule, its statistics, errors."""

import json
import os
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO, "benchmarks", "bridge_replication.py")

_PROBE = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("rep", sys.argv[1])
rep = importlib.util.module_from_spec(spec); spec.loader.exec_module(rep)
imps = [3, -1, 0, 5, -2, 7]
out = {"distinct": rep.summarize(imps, ["a", "b", "c", "d", "e", "f"]),
       "paired": rep.summarize(imps, ["a", "a", "b", "b", "c", "c"]),
       "decide": [rep.decide({"mean": m, "ci95": [lo, hi]}) for m, lo, hi in
                  ((0.25, 0.05, 0.45), (0.2, 0.01, 0.39), (0.15, 0.02, 0.28),
                   (0.22, -0.02, 0.46), (-0.3, -0.5, -0.1))]}
print(json.dumps(out))
"""


def test_statistics_and_decision_rule():
  res = subprocess.run([sys.executable, "-c", _PROBE, SCRIPT], capture_output=True, text=True,
                       timeout=300, cwd=REPO)
  assert res.returncode == 0, res.stderr[-2000:]
  out = json.loads(res.stdout.strip().splitlines()[-1])
  x = np.array([3, -1, 0, 5, -2, 7], float)
  d = out["distinct"]
  assert d["boards"] == 6 and abs(d["mean"] - 2.0) < 1e-12
  assert abs(d["se"] - x.std(ddof=1) / np.sqrt(6)) < 1e-12  # one board per cluster
  assert abs(d["ci95"][0] - (2.0 - 1.959964 * d["se"])) < 1e-9
  # Two boards per cluster; cluster sums of (x - mean) by hand: (3-2)+(-1-2) = -2,
  # (0-2)+(5-2) = 1, (-2-2)+(7-2) = 1; se = sqrt(G/(G-1) * (4+1+1)) / n = sqrt(1.5*6) / 6.
  assert abs(out["paired"]["se"] - np.sqrt(1.5 * 6.0) / 6) < 1e-12
  assert out["decide"] == [
      "replicated", "replicated",
      "JPSBid better than plain, but an effect of 0.2 is not shown",
      "not replicated", "reversed"]


def test_user_error_is_one_line(tmp_path):
  res = subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path / "r.json"),
                        "--workdir", str(tmp_path / "w"),
                        "--replicate_workdir", str(tmp_path / "missing")],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
  assert res.returncode != 0 and "Traceback" not in res.stderr
  errors = [l for l in res.stderr.splitlines() if ": error: " in l]
  assert len(errors) == 1 and "has no results.json" in errors[0], res.stderr
  assert not os.path.exists(tmp_path / "w")  # checked before any match
