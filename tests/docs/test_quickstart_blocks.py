"""Each ```python block of the quickstart page runs alone, in a fresh interpreter.

The page says its blocks run as they are; a block that relies on a name an earlier block
defined fails here with a NameError. The values they print are checked as the README's are
(`tests/integration/test_readme.py`).
"""
import os
import subprocess
import sys

from tests import repo as tests_repo
from tests.integration import test_readme

REPO = tests_repo.REPO
PAGE = "docs/quickstart.md"


def run_alone(block: str, tmp_path) -> subprocess.CompletedProcess:
  """Runs `block` as a script of its own in a fresh interpreter (cwd: `tmp_path`)."""
  script = tmp_path / "block.py"
  script.write_text(block, encoding="utf-8")
  env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
  return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                        capture_output=True, text=True, timeout=600, check=False)


def test_each_block_runs_alone_and_prints_known_values(tmp_path):
  blocks = test_readme.python_blocks(PAGE)
  assert len(blocks) >= 4
  out = ""
  for i, block in enumerate(blocks):
    proc = run_alone(block, tmp_path)
    assert proc.returncode == 0, f"block {i + 1} of {PAGE}:\n{proc.stderr[-3000:]}"
    out += proc.stdout
  # Values known independently of the package (test_readme's): uniform Kuhn's NashConv 11/12
  # (OpenSpiel's exploitability.nash_conv) and the team-correlated value of three-player Kuhn
  # with players 0 and 1 against 2, -1/24 (Zhang & Sandholm, arXiv:2109.05284, Table 1, 21K4).
  numbers = test_readme.numbers(out)
  assert any(abs(x - 11 / 12) < 1e-9 for x in numbers), out
  assert any(abs(x + 1 / 24) < 1e-6 for x in numbers), out


def test_a_block_that_needs_an_earlier_one_fails_alone(tmp_path):
  proc = run_alone("print(tree.num_nodes)\n", tmp_path)
  assert proc.returncode != 0 and "NameError" in proc.stderr
