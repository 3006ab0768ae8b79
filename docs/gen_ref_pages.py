"""Writes one API reference page per public module of `ospiel_team` (mkdocs-gen-files).

The standard mkdocstrings recipe: a module is public unless one of its dotted parts starts with
an underscore; the deprecated `python -m` shims listed in `tests/test_layering.py`
(`ENTRY_MODULES`) are left out. The navigation is written to `reference/SUMMARY.md` for
mkdocs-literate-nav, so that new modules appear without editing any page.
"""
import ast
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "ospiel_team"


def _entry_modules() -> set[str]:
  """The `ENTRY_MODULES` set of tests/test_layering.py, read without importing the tests."""
  tree = ast.parse((ROOT / "tests" / "test_layering.py").read_text(encoding="utf-8"))
  for node in tree.body:
    if (isinstance(node, ast.Assign) and len(node.targets) == 1
        and getattr(node.targets[0], "id", None) == "ENTRY_MODULES"):
      return set(ast.literal_eval(node.value))
  raise ValueError("tests/test_layering.py defines no ENTRY_MODULES set")


def main() -> None:
  skipped = _entry_modules()
  nav = mkdocs_gen_files.Nav()
  for path in sorted((ROOT / PACKAGE).rglob("*.py")):
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
      parts = parts[:-1]
    if any(p.startswith("_") for p in parts) or ".".join(parts) in skipped:
      continue
    doc_path = Path(*parts[1:], "index.md") if path.name == "__init__.py" else Path(
        *parts[1:]).with_suffix(".md")
    if len(parts) == 1:
      doc_path = Path("index.md")
    nav[parts] = doc_path.as_posix()
    with mkdocs_gen_files.open(Path("reference", doc_path), "w") as f:
      f.write(f"::: {'.'.join(parts)}\n")
    mkdocs_gen_files.set_edit_path(Path("reference", doc_path), path.relative_to(ROOT))
  with mkdocs_gen_files.open("reference/SUMMARY.md", "w") as f:
    f.writelines(nav.build_literate_nav())


main()
