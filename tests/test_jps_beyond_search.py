"""benchmarks/jps_beyond_search.py: its CFR1k+JPS equals the experiment script's for the same
seeds, alternating CFR/JPS is never below it, and a rerun of a finished store does nothing."""

import json
import os
import subprocess
import sys

REPO = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, os.path.join(REPO, "examples"))
import jps_experiments  # noqa: E402  pylint: disable=g-import-not-at-top,wrong-import-position

from ospiel_team.algorithms import tree_cache  # noqa: E402  pylint: disable=wrong-import-position


def test_beyond_search_matches_the_experiments_and_resumes(tmp_path):
  store = tmp_path / "beyond.json"
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"))
  cmd = [sys.executable, os.path.join(REPO, "benchmarks", "jps_beyond_search.py"),
         "--game", "tiny_hanabi", "--depth", "0", "--larger_depths", "", "--seeds", "3",
         "--batch", "3", "--cfr_iterations", "30", "--cfr_more", "10", "--rounds", "2",
         "--restarts", "2", "--store", str(store)]
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  seeds = json.loads(store.read_text())["tiny_hanabi()"]["seeds"]
  outs, _ = jps_experiments.run_seeds(tree_cache.cached_tree("tiny_hanabi"), [0, 1, 2], None,
                                      30, [], 100, "paper", False)
  for s, out in enumerate(outs):
    got = seeds[str(s)]
    assert got["CFR+JPS"] == out["CFR+JPS"]
    assert got["CFR/JPS alternating"] >= got["CFR+JPS"]
    assert set(got) >= {"CFR+ avg+JPS", "random pure+JPS (best of 2)"}
  before = store.read_text()
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  assert store.read_text() == before  # finished: nothing recomputed
