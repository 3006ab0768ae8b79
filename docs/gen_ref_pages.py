"""Writes the API reference from the packages' `__all__` (mkdocs-gen-files).

One page per public package (`ospiel_team.tree`, `ospiel_team.algorithms.coop`, ...): its
docstring and a table of its public names (`__all__`), each linked to its documentation in the
module that defines it; plus one page per such module. A module no package exports is not
part of the API and gets no page. The navigation is written to `reference/SUMMARY.md` for
mkdocs-literate-nav.
"""
import importlib
import pkgutil
import types
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "ospiel_team"


def _private(name: str) -> bool:
  return any(p.startswith("_") for p in name.split("."))


def public_packages() -> list[str]:
  """Every package of `ospiel_team` without a private part, the top level first."""
  top = importlib.import_module(PACKAGE)
  found = [m.name for m in pkgutil.walk_packages(top.__path__, PACKAGE + ".")
           if m.ispkg and not _private(m.name)]
  return [PACKAGE] + sorted(found)


def home(obj: object) -> str:
  """The module that defines `obj` (a module: itself)."""
  return obj.__name__ if isinstance(obj, types.ModuleType) else obj.__module__


def _doc_path(module: str, is_package: bool) -> Path:
  parts = module.split(".")[1:]
  if not parts:
    return Path("index.md")
  return Path(*parts, "index.md") if is_package else Path(*parts).with_suffix(".md")


def _source(module: str) -> Path:
  return Path(importlib.import_module(module).__file__).relative_to(ROOT)


def _kind(obj: object) -> str:
  if isinstance(obj, types.ModuleType):
    return "module"
  return "class" if isinstance(obj, type) else "function"


def main() -> None:
  packages = public_packages()
  nav = mkdocs_gen_files.Nav()
  modules: set[str] = set()
  for name in packages:
    pkg = importlib.import_module(name)
    public = list(getattr(pkg, "__all__", []))
    own = [n for n in public if home(getattr(pkg, n)) == name]
    rows = []
    for n in public:
      obj = getattr(pkg, n)
      where = home(obj)
      ident = where if isinstance(obj, types.ModuleType) else f"{where}.{n}"
      rows.append(f"| [`{n}`][{ident}] | {_kind(obj)} | `{where}` |")
      if where != name:
        modules.add(where)
    path = _doc_path(name, True)
    members = f"members: {own}" if own else "members: false"
    text = f"::: {name}\n    options:\n      {members}\n      show_submodules: false\n"
    if rows:
      text += ("\n## Public names\n\n`from " + name + " import ...`\n\n"
               "| name | kind | defined in |\n|---|---|---|\n" + "\n".join(rows) + "\n")
    nav[tuple(name.split("."))] = path.as_posix()
    with mkdocs_gen_files.open(Path("reference", path), "w") as f:
      f.write(text)
    mkdocs_gen_files.set_edit_path(Path("reference", path), _source(name))
  for name in sorted(modules - set(packages)):
    path = _doc_path(name, False)
    nav[tuple(name.split("."))] = path.as_posix()
    with mkdocs_gen_files.open(Path("reference", path), "w") as f:
      f.write(f"::: {name}\n")
    mkdocs_gen_files.set_edit_path(Path("reference", path), _source(name))
  with mkdocs_gen_files.open("reference/SUMMARY.md", "w") as f:
    f.writelines(nav.build_literate_nav())


main()
