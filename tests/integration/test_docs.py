"""The documentation builds with `mkdocs build --strict` and without a single warning.

The API reference is generated from the packages' `__all__` (docs/gen_ref_pages.py): one page
per package listing its public names, and a page for each module those names come from; a
module no package exports (private helpers, the command modules) gets none.
"""
import fnmatch
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

  # The reference has one page per package, listing its public names ...
  tree_page = (site / "reference" / "tree" / "index.html").read_text(encoding="utf-8")
  assert "Public names" in tree_page and "GameTree" in tree_page and "evaluation" in tree_page
  coop_page = (site / "reference" / "algorithms" / "coop" / "index.html").read_text(
      encoding="utf-8")
  assert "JointPolicySearch" in coop_page and "JPSConfig" in coop_page
  # ... a page for each module a public name comes from, with its classes ...
  page = site / "reference" / "tree" / "game_tree" / "index.html"
  assert "GameTree" in page.read_text(encoding="utf-8")
  assert (site / "reference" / "bridge" / "agents" / "evaluation" / "match" / "index.html").exists()
  assert (site / "reference" / "runner" / "comparison" / "index.html").exists()
  # ... and none for a module that no package exports.
  assert not (site / "reference" / "cli" / "compare" / "index.html").exists()
  assert not (site / "reference" / "bridge" / "match" / "index.html").exists()
  assert not (site / "reference" / "compare" / "index.html").exists()
  # Every hand-written page is built.
  for name in ("index", "install", "quickstart", "results", "cli", "runner", "bridge"):
    built = site / name / "index.html" if name != "index" else site / "index.html"
    assert built.exists(), built


def test_results_index_names_every_record_and_nothing_else():
  """results/README.md lists each file of results/ (names or `*` patterns in backticks)."""
  results = os.path.join(REPO, "results")
  with open(os.path.join(results, "README.md"), encoding="utf-8") as f:
    index = f.read()
  named = set(re.findall(r"`([\w*./-]+\.(?:json|md|csv))`", index))
  # Stored arrays (an experiment's checkpoints) are listed by patterns only; other .npz names
  # in the index are the package's files.
  named |= {n for n in re.findall(r"`([\w*./-]+\.npz)`", index) if "*" in n}
  files = {os.path.relpath(os.path.join(root, f), results).replace(os.sep, "/")
           for root, _, names in os.walk(results) for f in names}
  files.discard("README.md")
  patterns = [re.compile(fnmatch.translate(n)) for n in named if "*" in n]
  unlisted = sorted(f for f in files if f not in named and not any(p.match(f) for p in patterns))
  assert not unlisted, f"results/README.md does not list {unlisted}"
  # Every plain name is a file, except a script's output folder named by a placeholder
  # (`OUT/...`).
  missing = sorted(n for n in named if "*" not in n and n not in files
                   and not n.startswith("OUT/"))
  assert not missing, f"results/README.md lists files that do not exist: {missing}"
  for pattern in patterns:
    assert any(pattern.match(f) for f in files), pattern.pattern


def test_every_figure_under_docs_img_is_shown_on_a_page():
  docs = os.path.join(REPO, "docs")
  pages = ""
  for root, _, names in os.walk(docs):
    for name in names:
      if name.endswith(".md"):
        with open(os.path.join(root, name), encoding="utf-8") as f:
          pages += f.read()
  images = os.listdir(os.path.join(docs, "img"))
  assert images
  unshown = sorted(i for i in images if f"img/{i})" not in pages)
  assert not unshown, f"docs/img figures on no page: {unshown}"


def test_benchmarks_index_lists_every_script():
  with open(os.path.join(REPO, "benchmarks", "README.md"), encoding="utf-8") as f:
    index = f.read()
  listed = set(re.findall(r"^\| `([\w.]+\.py)` \|", index, re.M))
  scripts = {f for f in os.listdir(os.path.join(REPO, "benchmarks")) if f.endswith(".py")}
  assert len(scripts) > 10
  assert not scripts - listed, f"benchmarks/README.md does not list {sorted(scripts - listed)}"
