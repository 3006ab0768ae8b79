"""The documentation builds with `mkdocs build --strict` and without a single warning.

The API reference is generated from the package (docs/gen_ref_pages.py): every public module
gets a page, the deprecated `python -m` shims and private modules do not.
"""
import os
import re
import subprocess
import sys

from tests import repo as tests_repo

REPO = tests_repo.REPO
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_mkdocs_build_strict_has_no_warning(tmp_path):
  site = tmp_path / "site"
  env = dict(os.environ, DISABLE_MKDOCS_2_WARNING="true", NO_MKDOCS_2_WARNING="1")
  proc = subprocess.run(
      [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
      cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)
  log = _ANSI.sub("", proc.stdout + proc.stderr)
  warnings = [line for line in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)
              and "MkDocs may break support" not in line]
  assert proc.returncode == 0, log[-4000:]
  assert not warnings, "\n".join(warnings)

  # The reference documents a public module with its classes ...
  page = site / "reference" / "tree" / "game_tree" / "index.html"
  assert "GameTree" in page.read_text(encoding="utf-8")
  # ... and leaves out the deprecated shims (tests/test_layering.py ENTRY_MODULES).
  assert not (site / "reference" / "compare" / "index.html").exists()
  assert not (site / "reference" / "bridge" / "match" / "index.html").exists()
  assert (site / "reference" / "bridge" / "agents" / "match" / "index.html").exists()
  # Every hand-written page is built.
  for name in ("index", "install", "quickstart", "results", "cli", "runner", "bridge"):
    built = site / name / "index.html" if name != "index" else site / "index.html"
    assert built.exists(), built
