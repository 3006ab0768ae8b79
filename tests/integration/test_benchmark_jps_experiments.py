"""Runs benchmarks/jps_experiments.py with small settings and checks its outputs."""

import json
import os
import signal
import subprocess
import sys
import time

from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "benchmarks", "jps_experiments.py")
AGREEMENT = os.path.join(tests_repo.REPO, "benchmarks", "jps_store_agreement.py")


def test_jps_experiments_small(tmp_path):
  out_json, out_md = tmp_path / "jps.json", tmp_path / "jps.md"
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"))
  cmd = [sys.executable, SCRIPT, "--games", "comm(length=2),simple_bidding(size=3)",
         "--seeds", "2", "--cfr_iterations", "20", "--samples", "1,5",
         "--sampled_iterations", "4", "--brute_force_sample", "10", "--sampled_games", "all",
         "--json_out", str(out_json), "--md_out", str(out_md)]
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  rows = json.loads(out_json.read_text())
  by = {(r["game"], r["method"]): r for r in rows}
  for game in ["comm(length=2)", "simple_bidding(size=3)"]:
    for method in ["CFR (current, purified)", "CFR (purified)", "CFR (current)",
                   "CFR (average)", "CFR+JPS", "CFR+JPS (ours)", "CFR+JPS (k=1)",
                   "CFR+JPS (k=5)"]:
      row = by[(game, method)]
      assert row["num_seeds"] == 2
      assert row["best"] >= row["mean"] - 1e-12
      assert row["stderr"] >= 0.0
  # JPS starts from CFR's current policy and never lowers it (Theorem 2), seed by seed.
  store = json.loads((tmp_path / "jps.json.store.json").read_text())
  for game in ["comm(length=2)", "simple_bidding(size=3)"]:
    for seed in store[game]["seeds"].values():
      assert seed["CFR+JPS"] >= seed["CFR (current)"] - 1e-12
      assert seed["CFR+JPS (ours)"] >= seed["CFR (current)"] - 1e-12
    assert store[game]["speed"]["max_prediction_error"] < 1e-9
  assert by[("comm(length=2)", "CFR+JPS")]["mean"] == 1.0  # comm's optimum (binary code)
  md = out_md.read_text()
  assert "| comm(length=2) |" in md and "speedup" in md
  # A second run reuses the stored results (resume) and writes the same table.
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  assert out_md.read_text() == md


def _values(store_path):
  store = json.loads(store_path.read_text())
  return {g: {s: {k: v for k, v in r.items() if "seconds" not in k}
              for s, r in e["seeds"].items()}
          for g, e in store.items() if not g.startswith("_")}


def test_batch_size_does_not_change_results_and_a_kill_keeps_finished_seeds(tmp_path):
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"))
  base = [sys.executable, SCRIPT, "--games", "comm(length=2),tiny_hanabi", "--seeds", "6",
          "--cfr_iterations", "30", "--samples", "", "--brute_force_sample", "0"]
  one = tmp_path / "one.json"
  subprocess.run(base + ["--batch", "1", "--store", str(one)], check=True, env=env,
                 capture_output=True, timeout=300)
  # Killed part-way through a run in chunks of 2 seeds: the store stays valid JSON and holds
  # only whole chunks; the rerun completes it, keeping (not recomputing) the finished seeds.
  three = tmp_path / "three.json"
  proc = subprocess.Popen(base + ["--batch", "2", "--store", str(three),
                                  "--cfr_iterations", "30"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
  deadline = time.time() + 120
  while not three.exists() and time.time() < deadline and proc.poll() is None:
    time.sleep(0.01)
  proc.send_signal(signal.SIGKILL)
  proc.wait()
  kept = json.loads(three.read_text()) if three.exists() else {}
  for game, entry in kept.items():
    if not game.startswith("_"):
      assert len(entry["seeds"]) % 2 == 0
  subprocess.run(base + ["--batch", "2", "--store", str(three)], check=True, env=env,
                 capture_output=True, timeout=300)
  after = json.loads(three.read_text())
  for game, entry in kept.items():
    if not game.startswith("_"):
      for s, r in entry["seeds"].items():
        assert after[game]["seeds"][s] == r  # timings included: not recomputed
  # The batched run equals the seed-by-seed run, value for value.
  assert _values(three) == _values(one)
  assert all(len(e) == 6 for e in _values(one).values())
  # Two worker processes (chunks of 2 seeds, finishing in any order) give the same values, and
  # a rerun over the finished store computes nothing (the store is left byte for byte).
  two = tmp_path / "two.json"
  subprocess.run(base + ["--batch", "2", "--workers", "2", "--store", str(two)], check=True,
                 env=env, capture_output=True, timeout=300)
  assert _values(two) == _values(one)
  before = two.read_text()
  subprocess.run(base + ["--batch", "2", "--workers", "2", "--store", str(two)], check=True,
                 env=env, capture_output=True, timeout=300)
  assert two.read_text() == before
  # --game_seeds replaces --seeds for one game: tiny_hanabi extended to 8 seeds, comm(2) kept.
  subprocess.run(base + ["--batch", "2", "--workers", "2", "--store", str(two),
                         "--game_seeds", "tiny_hanabi=8"], check=True, env=env,
                 capture_output=True, timeout=300)
  extended = _values(two)
  assert len(extended["tiny_hanabi()"]) == 8 and extended["comm(length=2)"] == _values(one)[
      "comm(length=2)"]
  assert {s: extended["tiny_hanabi()"][s] for s in _values(one)["tiny_hanabi()"]} == _values(
      one)["tiny_hanabi()"]
  # benchmarks/jps_store_agreement.py: the extended store agrees with the first on the 6 common
  # seeds of each game; a store with one value changed is caught (exit 1, the game named).
  res = subprocess.run([sys.executable, AGREEMENT, "--store", str(two), "--others", str(one)],
                       capture_output=True, text=True, timeout=120)
  assert res.returncode == 0, res.stderr
  assert "tiny_hanabi(): 6 of 6 common seeds equal" in res.stdout
  bad = json.loads(one.read_text())
  bad["tiny_hanabi()"]["seeds"]["3"]["CFR+JPS"] += 1e-6
  (tmp_path / "bad.json").write_text(json.dumps(bad))
  res = subprocess.run([sys.executable, AGREEMENT, "--store", str(two), "--others",
                        str(tmp_path / "bad.json")], capture_output=True, text=True, timeout=120)
  assert res.returncode == 1 and "tiny_hanabi(): 5 of 6 common seeds equal" in res.stdout


def test_user_errors_are_one_line_before_any_work(tmp_path):
  """Bad flags fail at once with one line naming the value (no traceback, nothing written)."""
  (tmp_path / "a_file").write_text("x")
  cases = [(["--games", "nogame"], "'nogame'"),
           (["--samples", "x"], "['x']"),
           (["--seeds", "0"], "got 0"),
           (["--workers", "0"], "--workers must be >= 1, got 0"),
           (["--game_seeds", "tiny_hanabi=0"], "'tiny_hanabi=0'"),
           (["--json_out", str(tmp_path / "a_file" / "out.json")], "a_file"),
           (["--md_out", str(tmp_path)], "is an existing folder")]
  for args, needle in cases:
    res = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert res.returncode != 0, args
    lines = [ln for ln in res.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "jps_experiments: error:" in lines[0], (args, res.stderr)
    assert needle in lines[0], (args, lines[0])
