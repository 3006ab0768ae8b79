"""Size limits of the package's code: modules, classes and functions (docs/contributing.md).

Every module of `ospiel_team/` is parsed (ast): no module over `MAX_MODULE_LINES` lines, no
class over `MAX_CLASS_LINES`, no function or method over `MAX_FUNCTION_LINES` (from its `def`
line to its last line, decorators not counted), except the functions listed in the table of the
section "Size limits and their exceptions" of docs/contributing.md, each with its line count
and its reason. The lines of docstrings' `Args:`, `Returns:` and `Yields:` sections (with the
blank line before each) are not counted: tests/test_docstrings.py asks for them on every public
callable, and the limits are on code, not on its documentation of arguments and results. The
table cannot go stale: a listed function that no longer exists, no longer exceeds the limit, or
has another line count than the table says fails the test too.
"""
import ast
import os

import pytest

from tests import repo as tests_repo

MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 400
MAX_FUNCTION_LINES = 80
PACKAGE = os.path.join(tests_repo.REPO, "ospiel_team")
CONTRIBUTING = os.path.join(tests_repo.REPO, "docs", "contributing.md")
SECTION = "## Size limits and their exceptions"


def _modules() -> dict[str, str]:
  """Dotted module name -> path, for every .py file of the package."""
  found = {}
  for dirpath, _, files in os.walk(PACKAGE):
    for f in sorted(files):
      if f.endswith(".py"):
        path = os.path.join(dirpath, f)
        rel = os.path.relpath(path, tests_repo.REPO)[:-3]
        found[rel.replace(os.sep, ".")] = path
  return found


SECTIONS = ("Args:", "Returns:", "Yields:")


def section_lines(tree: ast.AST, source_lines: list[str]) -> set[int]:
  """The line numbers of the `SECTIONS` of every docstring (module, classes, functions).

  A section is its header line, the blank line before it, and the lines after it that are
  indented deeper than the header or blank (up to the next line that is not).
  """
  lines = set()
  for node in ast.walk(tree):
    if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
      continue
    first = node.body[0] if node.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and
            isinstance(first.value.value, str)):
      continue
    indent = None
    for number in range(first.lineno, first.end_lineno + 1):
      text = source_lines[number - 1]
      depth = len(text) - len(text.lstrip())
      if text.strip() in SECTIONS:
        indent = depth
        lines.add(number)
        if not source_lines[number - 2].strip():
          lines.add(number - 1)
      elif indent is not None and (not text.strip() or depth > indent):
        lines.add(number)
      else:
        indent = None
  # a blank line that ends a section belongs to what follows it
  return {n for n in lines if source_lines[n - 1].strip() or n + 1 in lines}


def _definitions(tree: ast.AST, prefix: str, docs: frozenset[int] = frozenset()):
  """(qualified name, kind, lines) of every class and function, nested ones included.

  The lines are those from the `def` line to the last, less those in `docs` (`section_lines`).
  """
  for node in ast.iter_child_nodes(tree):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
      name = f"{prefix}.{node.name}"
      kind = "class" if isinstance(node, ast.ClassDef) else "function"
      span = range(node.lineno, node.end_lineno + 1)
      yield name, kind, len(span) - sum(1 for line in span if line in docs)
      yield from _definitions(node, name, docs)
    else:
      yield from _definitions(node, prefix, docs)


def _sizes() -> tuple[dict[str, int], dict[str, tuple[str, int]]]:
  """(module -> lines, qualified name -> (kind, lines)) over the package."""
  modules, defs = {}, {}
  for module, path in _modules().items():
    with open(path, encoding="utf-8") as f:
      source = f.read()
    tree = ast.parse(source)
    docs = frozenset(section_lines(tree, source.splitlines()))
    modules[module] = len(source.splitlines()) - len(docs)
    for name, kind, lines in _definitions(tree, module, docs):
      defs[name] = (kind, lines)
  return modules, defs


def exceptions_table(text: str) -> dict[str, tuple[int, str]]:
  """The exceptions of the contributing page: qualified name -> (lines, reason).

  The table is the first one after the heading `SECTION`: rows `| `name` | lines | reason |`
  (the header row and its separator skipped).
  """
  if SECTION not in text:
    raise AssertionError(f"docs/contributing.md has no section {SECTION!r}")
  rows = {}
  in_table = False
  for line in text.split(SECTION, 1)[1].splitlines():
    if line.startswith("#"):
      break
    if not line.startswith("|"):
      if in_table:
        break
      continue
    in_table = True
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 3 or set(cells[1]) <= set("-: ") or cells[1].lower() == "lines":
      continue
    name = cells[0].strip("`")
    if name in rows:
      raise AssertionError(f"{name} is listed twice")
    rows[name] = (int(cells[1].replace(",", "")), cells[2])
  return rows


def _listed() -> dict[str, tuple[int, str]]:
  with open(CONTRIBUTING, encoding="utf-8") as f:
    return exceptions_table(f.read())


def test_no_module_is_over_the_limit():
  modules, _ = _sizes()
  over = {m: n for m, n in modules.items() if n > MAX_MODULE_LINES}
  assert not over, f"modules over {MAX_MODULE_LINES} lines: {over}"


def test_no_class_is_over_the_limit():
  _, defs = _sizes()
  over = {q: n for q, (kind, n) in defs.items() if kind == "class" and n > MAX_CLASS_LINES}
  assert not over, f"classes over {MAX_CLASS_LINES} lines: {over}"


def test_no_function_is_over_the_limit_unless_listed_with_its_reason():
  _, defs = _sizes()
  listed = _listed()
  over = {q: n for q, (kind, n) in defs.items()
          if kind == "function" and n > MAX_FUNCTION_LINES and q not in listed}
  assert not over, (f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps, "
                    f"or list them with their reason in docs/contributing.md): {over}")
  for name, (_, reason) in listed.items():
    assert len(reason) > 10, f"{name}: give the reason it stays long"


def test_every_listed_exception_exists_and_still_exceeds_the_limit():
  _, defs = _sizes()
  for name, (lines, _) in _listed().items():
    assert name in defs and defs[name][0] == "function", f"{name} is listed but does not exist"
    actual = defs[name][1]
    assert actual > MAX_FUNCTION_LINES, (
        f"{name} has {actual} lines now: remove it from the table of docs/contributing.md")
    assert actual == lines, (
        f"{name} has {actual} lines, the table of docs/contributing.md says {lines}")


def test_the_table_parser_reads_rows_and_skips_the_header():
  # A hand-written table: the parser must return its two rows and nothing else.
  text = (f"intro\n\n{SECTION}\n\nSome words.\n\n| Function | Lines | Reason |\n"
          "|---|---:|---|\n| `a.b.c` | 1,234 | one compiled frame |\n"
          "| `a.d` | 90 | another reason |\n\nAfter.\n\n## Next\n| `x.y` | 1 | no |\n")
  assert exceptions_table(text) == {"a.b.c": (1234, "one compiled frame"),
                                    "a.d": (90, "another reason")}
  with pytest.raises(AssertionError, match="no section"):
    exceptions_table("no table here")


def test_args_and_returns_sections_are_not_counted():
  source = ('"""Module.\n\nArgs:\n  none.\n"""\nX = """Args:\n  not a docstring."""\n\n\n'
            'class C:\n  """Class."""\n\n  def f(self, x):\n    """One.\n\n    Args:\n'
            '      x: a long\n        text.\n\n    Returns:\n      x.\n\n    Raises:\n'
            '      E: never.\n    """\n    return x\n')
  source_lines = source.splitlines()
  docs = section_lines(ast.parse(source), source_lines)
  assert sorted(docs) == [2, 3, 4, 15, 16, 17, 18, 19, 20, 21], [source_lines[n - 1] for n in docs]
  assert dict((q, n) for q, _, n in _definitions(ast.parse(source), "m", frozenset(docs))) == {
      "m.C": 17 - 7, "m.C.f": 14 - 7}
