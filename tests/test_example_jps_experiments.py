"""Runs examples/jps_experiments.py with small settings and checks its outputs."""

import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "examples", "jps_experiments.py")


def test_jps_experiments_small(tmp_path):
  out_json, out_md = tmp_path / "jps.json", tmp_path / "jps.md"
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"))
  cmd = [sys.executable, SCRIPT, "--games", "comm(length=2),simple_bidding(size=3)",
         "--seeds", "2", "--cfr_iterations", "20", "--samples", "1,5",
         "--sampled_iterations", "4", "--brute_force_sample", "10",
         "--json_out", str(out_json), "--md_out", str(out_md)]
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  rows = json.loads(out_json.read_text())
  by = {(r["game"], r["method"]): r for r in rows}
  for game in ["comm(length=2)", "simple_bidding(size=3)"]:
    for method in ["CFR (purified)", "CFR (current)", "CFR (average)", "CFR+JPS",
                   "CFR+JPS (k=1)", "CFR+JPS (k=5)"]:
      row = by[(game, method)]
      assert row["num_seeds"] == 2
      assert row["best"] >= row["mean"] - 1e-12
  # JPS starts from CFR's current policy and never lowers it (Theorem 2), seed by seed.
  store = json.loads((tmp_path / "jps.json.store.json").read_text())
  for game in ["comm(length=2)", "simple_bidding(size=3)"]:
    for seed in store[game]["seeds"].values():
      assert seed["CFR+JPS"] >= seed["CFR (current)"] - 1e-12
    assert store[game]["speed"]["max_prediction_error"] < 1e-9
  assert by[("comm(length=2)", "CFR+JPS")]["mean"] == 1.0  # comm's optimum (binary code)
  md = out_md.read_text()
  assert "| comm(length=2) |" in md and "speedup" in md
  # A second run reuses the stored results (resume) and writes the same table.
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  assert out_md.read_text() == md
