"""examples/evaluate_policy.py runs and reports equal values from the tree and OpenSpiel."""
import os
import re
import subprocess
import sys

from tests import repo as tests_repo

REPO = tests_repo.REPO


def test_evaluate_policy_example():
  out = subprocess.run(
      [sys.executable, os.path.join(REPO, "examples", "evaluate_policy.py"),
       "--game", "kuhn_poker", "--cfr_iterations", "7"],
      check=True, capture_output=True, text=True, timeout=300).stdout
  ours, theirs = re.search(r"NashConv\s+ours (\S+)\s+OpenSpiel (\S+)", out).groups()
  assert abs(float(ours) - float(theirs)) < 1e-9
  assert float(ours) > 0


def test_bridge_opening_table_example(tmp_path):
  """examples/bridge_opening_table.py on the natural bidder: every board opens or is passed
  out, and the openings keep the bidder's rules (12+ HCP; 1NT with 15-17 balanced)."""
  import json
  out = tmp_path / "stats.json"
  text = subprocess.run(
      [sys.executable, os.path.join(REPO, "examples", "bridge_opening_table.py"),
       "--model", "natural", "--boards", "200", "--json", str(out)],
      check=True, capture_output=True, text=True, timeout=300, cwd=tmp_path).stdout
  assert "Opening table (200 boards" in text
  stats = json.loads(out.read_text())
  assert stats["boards"] == 200
  opened = sum(r["count"] for r in stats["openings"])
  assert opened + round(stats["passed_out"] * 200) == 200
  assert opened > 100
  for r in stats["openings"]:
    low, high = map(int, r["hcp"].split("-"))
    assert 12 <= low <= high, r
    if r["opening"] == "1NT":
      assert 15 <= low and high <= 17, r


def test_jps_improve_example():
  """examples/jps_improve.py: JPS ends at or above CFR's value, and OpenSpiel's
  `expected_game_score` of JPS's policy is the value JPS reports."""
  out = subprocess.run(
      [sys.executable, os.path.join(REPO, "examples", "jps_improve.py"),
       "--game", "tiny_hanabi", "--cfr_iterations", "20"],
      check=True, capture_output=True, text=True, timeout=300).stdout
  cfr_value = float(re.search(r"CFR\(20\) current policy: value (\S+)", out).group(1))
  jps_value, openspiel_value = map(float, re.search(
      r"JPS \(\d+ iterations, \S+ s\): value (\S+) \(OpenSpiel: (\S+)\)", out).groups())
  assert jps_value >= cfr_value
  assert abs(jps_value - openspiel_value) < 1e-6
