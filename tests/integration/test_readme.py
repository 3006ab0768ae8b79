"""The Python snippets of README.md run verbatim (the quickstart page's: test_quickstart_blocks).

Each file's ```python blocks are run in order in one fresh interpreter (later blocks use the
names of earlier ones), in a temporary directory, and their output is checked against values
known independently of the package: uniform play in Kuhn poker has NashConv 11/12 (OpenSpiel's
`exploitability.nash_conv`), and the team-correlated value of three-player Kuhn poker with
players 0 and 1 against 2 is -1/24 (Zhang & Sandholm, AAAI 2022, arXiv:2109.05284, Table 1,
instance 21K4: -.0417).
"""
import os
import re
import subprocess
import sys

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path: str) -> list[str]:
  with open(os.path.join(REPO, path), encoding="utf-8") as f:
    return _BLOCK.findall(f.read())


def run_blocks(path: str, tmp_path) -> str:
  blocks = python_blocks(path)
  assert blocks, f"{path} has no ```python block"
  script = tmp_path / "snippets.py"
  script.write_text("\n".join(blocks), encoding="utf-8")
  env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
  proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                        capture_output=True, text=True, timeout=600, check=False)
  assert proc.returncode == 0, f"{path}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
  return proc.stdout


def numbers(text: str) -> list[float]:
  return [float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)]


# docs/quickstart.md's blocks run one by one, each alone: tests/docs/test_quickstart_blocks.py.
@pytest.mark.parametrize("path", ["README.md"])
def test_snippets_run_and_print_known_values(path, tmp_path):
  out = run_blocks(path, tmp_path)
  found = numbers(out)
  assert any(abs(x - 11 / 12) < 1e-9 for x in found), out
  assert any(abs(x + 1 / 24) < 1e-6 for x in found), out
