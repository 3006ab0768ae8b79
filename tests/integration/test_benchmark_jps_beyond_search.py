"""benchmarks/jps_beyond_search.py: its CFR1k+JPS equals the experiment script's for the same
seeds, alternating CFR/JPS is never below it, and a rerun of a finished store does nothing."""

import json
import os
import subprocess
import sys

from ospiel_team.tree import cache as tree_cache
from tests import repo as tests_repo

REPO = tests_repo.REPO


def test_beyond_search_matches_the_experiments_and_resumes(tmp_path):
  store = tmp_path / "beyond.json"
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"))
  cmd = [sys.executable, os.path.join(REPO, "benchmarks", "jps_beyond_search.py"),
         "--game", "tiny_hanabi", "--depth", "0", "--larger_depths", "", "--seeds", "3",
         "--batch", "3", "--cfr_iterations", "30", "--cfr_more", "10", "--rounds", "2",
         "--restarts", "2", "--store", str(store)]
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  seeds = json.loads(store.read_text())["tiny_hanabi()"]["seeds"]
  # The paper protocol's own driver, on the same seeds and CFR iterations.
  protocol = tmp_path / "protocol.json"
  subprocess.run([sys.executable, os.path.join(REPO, "benchmarks", "jps_experiments.py"),
                  "--games", "tiny_hanabi", "--seeds", "3", "--cfr_iterations", "30",
                  "--samples", "", "--brute_force_sample", "0", "--noour_jps",
                  "--store", str(protocol)], check=True, env=env, capture_output=True,
                 timeout=300)
  outs = json.loads(protocol.read_text())["tiny_hanabi()"]["seeds"]
  assert sorted(outs) == ["0", "1", "2"]
  for s, out in outs.items():
    got = seeds[s]
    assert got["CFR+JPS"] == out["CFR+JPS"]
    assert got["CFR/JPS alternating"] >= got["CFR+JPS"]
    assert set(got) >= {"CFR+ avg+JPS", "random pure+JPS (best of 2)"}
  before = store.read_text()
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  assert store.read_text() == before  # finished: nothing recomputed


def test_beyond_search_ed_start(tmp_path):
  """`--ed_steps`: JPS from ED's policy never ends below that policy's value (JPS only applies
  changes of non-negative predicted gain, which are exact: Theorem 1/2 of the JPS paper)."""
  import numpy as np
  import pyspiel

  from ospiel_team.algorithms.nash import exploitability_descent
  from ospiel_team.tree import evaluation
  store = tmp_path / "beyond.json"
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"))
  cmd = [sys.executable, os.path.join(REPO, "benchmarks", "jps_beyond_search.py"),
         "--game", "tiny_hanabi", "--depth", "0", "--larger_depths", "", "--seeds", "2",
         "--batch", "2", "--cfr_iterations", "10", "--cfr_more", "5", "--rounds", "1",
         "--restarts", "0", "--ed_steps", "3", "--store", str(store)]
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  entry = json.loads(store.read_text())["tiny_hanabi()"]
  assert entry["config"]["ed_steps"] == 3
  tree = tree_cache.cached_tree("tiny_hanabi")
  solver = exploitability_descent.TabularEDSolver(pyspiel.load_game("tiny_hanabi"), tree=tree)
  for _ in range(3):
    solver.step()
  ed_value = float(np.mean(evaluation.game_value(tree, solver.current_policy_array())))
  for out in entry["seeds"].values():
    assert out["ED3+JPS"] >= ed_value - 1e-12


def test_beyond_search_xfp_start(tmp_path):
  """`--xfp_steps`: JPS from OpenSpiel XFP's average policy never ends below that policy's
  value, computed here by OpenSpiel's own `expected_game_score` (an independent evaluation)."""
  import pyspiel
  from open_spiel.python.algorithms import expected_game_score
  from open_spiel.python.algorithms import fictitious_play
  store = tmp_path / "beyond.json"
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"))
  cmd = [sys.executable, os.path.join(REPO, "benchmarks", "jps_beyond_search.py"),
         "--game", "tiny_hanabi", "--depth", "0", "--larger_depths", "", "--seeds", "3",
         "--batch", "3", "--cfr_iterations", "10", "--rounds", "0",
         "--restarts", "0", "--xfp_steps", "4", "--store", str(store)]
  subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
  entry = json.loads(store.read_text())["tiny_hanabi()"]
  assert entry["config"]["xfp_steps"] == 4
  game = pyspiel.load_game("tiny_hanabi")
  solver = fictitious_play.XFPSolver(game)
  for _ in range(4):
    solver.iteration()
  avg = solver.average_policy()
  xfp_value = expected_game_score.policy_value(game.new_initial_state(), [avg, avg])[0]
  assert xfp_value < 10 - 1e-6  # (XFP alone is not optimal here: the check below can fail)
  for out in entry["seeds"].values():
    assert out["XFP4+JPS"] >= xfp_value - 1e-12
