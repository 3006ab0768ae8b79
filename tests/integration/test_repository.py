"""Nothing a user gets cites `../shared/...` (a folder only this project's authors have).

Papers are cited by title, authors, venue and arXiv id instead. Tests and benchmarks may take a
path to the JPS authors' reference models (`jps_reference`) and skip without it.
"""

import os
import re

from tests import repo as tests_repo

REPO = tests_repo.REPO
SHARED = re.compile(r"\.\./shared|/work/shared")


def _files(top, exts):
  for root, dirs, files in os.walk(os.path.join(REPO, top)):
    dirs[:] = [d for d in dirs if d not in ("__pycache__", ".ipynb_checkpoints")]
    for f in files:
      if f.endswith(exts):
        yield os.path.relpath(os.path.join(root, f), REPO)


def test_no_shared_paths_in_package_notebooks_examples_and_docs():
  paths = [*_files("ospiel_team", (".py",)), *_files("colabs", (".ipynb", ".py")),
           *_files("examples", (".py",)), *_files("docs", (".md",)), "README.md", "setup.py"]
  assert len(paths) > 30
  bad = []
  for p in paths:
    # Recorded benchmark commands (docs, README) may pass the reference models' folder.
    recorded = p.endswith(".md")
    with open(os.path.join(REPO, p), encoding="utf-8") as f:
      for i, line in enumerate(f, 1):
        if SHARED.search(line) and not (recorded and "jps_reference" in line):
          bad.append(f"{p}:{i}: {line.strip()[:100]}")
  assert not bad, "\n".join(bad)


def test_tests_and_benchmarks_name_only_the_reference_models():
  bad = []
  for p in [*_files("tests", (".py",)), *_files("benchmarks", (".py",))]:
    if p == os.path.relpath(__file__, REPO):
      continue
    with open(os.path.join(REPO, p), encoding="utf-8") as f:
      for i, line in enumerate(f, 1):
        if SHARED.search(line) and "jps_reference" not in line:
          bad.append(f"{p}:{i}: {line.strip()[:100]}")
  assert not bad, "\n".join(bad)


NARRATION = re.compile(r"\bsessions?\b|\bhelpers?\b|\bthe lead\b|\bissue (#|[0-9])", re.I)


def test_user_facing_text_does_not_narrate_how_it_was_made():
  """Docs, package, examples, notebooks and the README state findings, not the story of the
  work (that lives in commit messages)."""
  paths = [*_files("ospiel_team", (".py",)), *_files("colabs", (".ipynb", ".py")),
           *_files("examples", (".py",)), *_files("docs", (".md", ".py")), "README.md"]
  bad = []
  for p in paths:
    with open(os.path.join(REPO, p), encoding="utf-8") as f:
      for i, line in enumerate(f, 1):
        if NARRATION.search(line):
          bad.append(f"{p}:{i}: {line.strip()[:100]}")
  assert not bad, "\n".join(bad)
  assert NARRATION.search("measured in session 7") and NARRATION.search("see issue 23")
