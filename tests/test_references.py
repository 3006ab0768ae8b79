"""Every repository path named in a docstring or comment of ospiel_team/ exists.

A path counts when its first component is a top-level entry of the repository (`tests/...`,
`docs/...`) or a folder of the package (`tree/cache.py`, `data/coop_optima.json` next to the
module); other slashes (`python/a2c/model.py` of the JPS authors' code, `OUT/results.json`
placeholders) are not paths of this repository. A path resolves from the repository root, the
package, or the module's folder and its parents.
"""

import ast
import os
import re
import tokenize

from tests import repo as tests_repo

REPO = tests_repo.REPO
PACKAGE = os.path.join(REPO, "ospiel_team")
PATH = re.compile(r"(?<![\w/.$-])((?:[\w-]+/)+[\w.-]*\w\.(?:py|md|json|ipynb|toml|yml|csv|npz))")
# Paths of other repositories that happen to share a top-level name with this one.
EXTERNAL = {
    ("ospiel_team/runner/adapters/openspiel.py", "examples/kuhn_nfsp.py"),  # OpenSpiel's
    # OpenSpiel's former example script.
    ("ospiel_team/algorithms/nash/exploitability_descent.py", "examples/exploitability_descent.py"),
}


def _texts(path: str):
  """(line, text) of every docstring and comment of the module at `path`."""
  with open(path, encoding="utf-8") as f:
    source = f.read()
  for node in ast.walk(ast.parse(source)):
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
      doc = ast.get_docstring(node, clean=False)
      if doc is not None:
        yield node.body[0].lineno, doc
  with open(path, "rb") as f:
    for tok in tokenize.tokenize(f.readline):
      if tok.type == tokenize.COMMENT:
        yield tok.start[0], tok.string


def _folders(root: str) -> set[str]:
  return {name for _, dirs, _ in os.walk(root) for name in dirs if not name.startswith("__")}


def _modules(package: str):
  for folder, dirs, files in os.walk(package):
    dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
    for name in sorted(files):
      if name.endswith(".py"):
        yield os.path.join(folder, name)


def missing_paths(repo: str, package: str) -> tuple[int, list[str]]:
  """(paths checked, `module:line: path` of each one that exists nowhere) of `package`."""
  roots = set(os.listdir(repo)) | _folders(package)
  missing = []
  checked = 0
  for module in _modules(package):
    rel = os.path.relpath(module, repo)
    bases = [repo]
    folder = os.path.dirname(module)
    while folder.startswith(package):
      bases.append(folder)
      folder = os.path.dirname(folder)
    for line, text in _texts(module):
      for match in PATH.finditer(text):
        path = match.group(1)
        if path.split("/")[0] not in roots or (rel, path) in EXTERNAL:
          continue
        checked += 1
        if not any(os.path.exists(os.path.join(base, path)) for base in bases):
          missing.append(f"{rel}:{line + text.count(chr(10), 0, match.start())}: {path}")
  return checked, missing


def test_paths_in_docstrings_and_comments_exist():
  checked, missing = missing_paths(REPO, PACKAGE)
  assert checked > 30  # the pattern still finds the package's references
  assert not missing, "paths that do not exist:\n" + "\n".join(missing)


def test_a_missing_path_is_reported(tmp_path):
  package = tmp_path / "ospiel_team"
  (package / "tree").mkdir(parents=True)
  (tmp_path / "tests").mkdir()
  (tmp_path / "docs").mkdir()
  (package / "tree" / "m.py").write_text(
      '"""Module.\n\nTested in tests/tree/test_m.py; see tree/m.py, data/x.json, OUT/r.json.\n"""\n'
      "X = 1  # the layers: docs/index.md\n")
  (package / "tree" / "data").mkdir()
  (package / "tree" / "data" / "x.json").write_text("{}")
  checked, missing = missing_paths(str(tmp_path), str(package))
  assert checked == 4
  assert missing == ["ospiel_team/tree/m.py:3: tests/tree/test_m.py",
                     "ospiel_team/tree/m.py:5: docs/index.md"]
