"""Every public callable documents its arguments and its result (Google style, rendered by
mkdocstrings): an `Args:` section when it takes parameters besides self/cls, a `Returns:` (or,
for a generator, `Yields:`) section when its return annotation is not None.

Public callables: the functions and classes named in a subpackage's `__all__`, the public
functions and classes of a public module named there, and the public methods (not properties)
that a public class defines itself. A method that overrides one of a base class from outside
the package (pyspiel's Game/State/Observer interface, haiku.Module, ...) is documented by that
interface and is not checked, nor are the games' methods of OpenSpiel's Python observer
interface (`make_py_observer`, `set_from`, `string_from`), which has no base class.

ruff's pydocstyle rules cannot ask for this: D417 checks that an existing `Args:` section names
every parameter, but nothing requires the section (or `Returns:`) to be there.
"""
import ast
import importlib
import inspect
import pkgutil
import re
import textwrap
import types

import pytest

import ospiel_team

# Modules not checked, with the reason (remove an entry when its reason no longer holds).
EXEMPT = {
    # the bridge agents (bidders/, search/, training/, evaluation/) are not yet documented to
    # this rule: their Args/Returns sections are the next step of issue 48
    "ospiel_team.bridge.agents",
}


def _exempt(module: str) -> bool:
  return any(module == e or module.startswith(e + ".") for e in EXEMPT)


def _packages() -> list[str]:
  return sorted(m.name for m in pkgutil.walk_packages(ospiel_team.__path__, "ospiel_team.")
                if m.ispkg and not any(p.startswith("_") for p in m.name.split(".")))


# OpenSpiel's Python observer interface, which the games implement without a base class to
# inherit it from (open_spiel/python/observation.py documents it): not checked in the games.
OBSERVER_INTERFACE = {"make_py_observer", "set_from", "string_from"}


def _overrides_outside_interface(cls: type, name: str) -> bool:
  if cls.__module__.startswith("ospiel_team.games.") and name in OBSERVER_INTERFACE:
    return True
  return any(name in vars(base) and not base.__module__.startswith("ospiel_team")
             for base in cls.__mro__[1:])


Found = dict[str, tuple[types.FunctionType, bool, str]]


def _add_class(found: Found, cls: type) -> None:
  for name, raw in vars(cls).items():
    if name.startswith("_") or isinstance(raw, property):
      continue
    fn = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
    if inspect.isfunction(fn) and not _overrides_outside_interface(cls, name):
      found[f"{cls.__module__}.{cls.__qualname__}.{name}"] = (
          fn, not isinstance(raw, staticmethod), cls.__module__)


def _add(found: Found, obj: object) -> None:
  if not str(getattr(obj, "__module__", "")).startswith("ospiel_team."):
    return
  if inspect.isclass(obj):
    _add_class(found, obj)
  elif inspect.isfunction(obj):
    found[f"{obj.__module__}.{obj.__qualname__}"] = (obj, False, obj.__module__)


def _add_module(found: Found, module: types.ModuleType) -> None:
  """A public module's public names defined there (its `__all__` if it has one)."""
  names = getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
  for name in names:
    member = getattr(module, name)
    if getattr(member, "__module__", None) == module.__name__:
      _add(found, member)


def _callables() -> Found:
  """Qualified name -> (function, is a method with self/cls, defining module)."""
  found: Found = {}
  for package in _packages():
    pkg = importlib.import_module(package)
    for name in pkg.__all__:
      obj = getattr(pkg, name)
      if not isinstance(obj, types.ModuleType):
        _add(found, obj)
      elif not hasattr(obj, "__path__"):  # a subpackage is walked as a package itself
        _add_module(found, obj)
  return {q: v for q, v in found.items() if not _exempt(v[2])}


def _section(doc: str, *names: str) -> bool:
  return any(re.search(rf"^{name}:$", doc, re.M) for name in names)


def _returns_something(fn: types.FunctionType) -> bool:
  """Its return annotation is not None; unannotated, a `return`/`yield` of a value in its body."""
  if "return" in fn.__annotations__:
    return fn.__annotations__["return"] not in (None, "None", type(None))
  try:
    source = textwrap.dedent(inspect.getsource(fn))
  except (OSError, TypeError):
    return False
  found = False

  class Visitor(ast.NodeVisitor):
    def visit_Return(self, node: ast.Return) -> None:  # noqa: N802 (ast's names)
      nonlocal found
      found = found or node.value is not None

    def visit_Yield(self, node: ast.Yield) -> None:  # noqa: N802
      nonlocal found
      found = True

    def visit_nested(self, node: ast.AST) -> None:  # a nested function returns for itself
      pass

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_nested

  for statement in ast.parse(source).body[0].body:
    Visitor().visit(statement)
  return found


def _missing(fn: types.FunctionType, is_method: bool) -> list[str]:
  params = list(inspect.signature(fn).parameters)
  if is_method and params and params[0] in ("self", "cls"):
    params = params[1:]
  doc = inspect.getdoc(fn) or ""
  missing = []
  if params and not _section(doc, "Args"):
    missing.append("Args")
  if _returns_something(fn) and not _section(doc, "Returns", "Yields"):
    missing.append("Returns")
  return missing


def _missing_by_module() -> dict[str, list[str]]:
  by_module: dict[str, list[str]] = {}
  for qualname, (fn, is_method, module) in sorted(_callables().items()):
    for section in _missing(fn, is_method):
      by_module.setdefault(module, []).append(f"{qualname}: no {section}:")
  return by_module


def test_the_walk_finds_the_documented_entry_points():
  callables = _callables()
  for name in ("ospiel_team.tree.evaluation.nash_conv",
               "ospiel_team.algorithms.team.solver.solve",
               "ospiel_team.tree.game_tree.GameTree.uniform_policy_array",
               "ospiel_team.algorithms.coop.jps.JointPolicySearch.search"):
    assert name in callables, name
  assert not any(q.startswith("ospiel_team.bridge.agents.") for q in callables)
  # pyspiel's State interface (documented by OpenSpiel) is not checked; the game's own is
  assert "ospiel_team.games.team_kuhn.TeamKuhnState.legal_actions" not in callables
  assert "ospiel_team.games.team_kuhn.TeamKuhnObserver.string_from" not in callables
  assert "ospiel_team.games.team_kuhn.TeamKuhnState.winner" in callables
  assert len(callables) > 300, len(callables)


def test_every_public_callable_has_args_and_returns_sections():
  missing = _missing_by_module()
  assert not missing, "\n".join(line for lines in missing.values() for line in lines)


@pytest.mark.parametrize(("doc", "expected"), [
    ("Adds.\n\nArgs:\n  x: a.\n\nReturns:\n  The sum.", []),
    ("Adds.\n\nReturns:\n  The sum.", ["Args"]),
    ("Adds x.", ["Args", "Returns"]),
    ("Adds.\n\nArgs:\n  x: a.\n\nYields:\n  Each sum.", []),
])
def test_the_check_reads_the_sections(doc, expected):
  def f(x: int) -> int:
    return x
  f.__doc__ = doc
  assert _missing(f, is_method=False) == expected


def test_an_unannotated_function_returning_a_value_needs_returns():
  def f(x):
    """Doubles.\n\n    Args:\n      x: a number.\n    """
    def inner():
      return 1
    if x:
      return 2 * x
    return None
  def g(x):
    """Prints.\n\n    Args:\n      x: a number.\n    """
    def inner():
      return 1
    print(x, inner)
    return
  assert _missing(f, is_method=False) == ["Returns"]
  assert _missing(g, is_method=False) == []


def test_a_method_without_parameters_returning_none_needs_no_section():
  class C:
    def m(self) -> None:
      """Does it."""
  assert _missing(C.m, is_method=True) == []
