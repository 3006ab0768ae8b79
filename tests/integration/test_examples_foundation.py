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
