"""Lazy re-exports for the packages' public names (PEP 562 module `__getattr__`).

Each subpackage's `__init__` names its public API in a dict (public name -> the module that
defines it, or the full name of a public submodule) and calls `attach`; a name's module is
imported on first use, so `from ospiel_team.tree import GameTree` imports `tree.game_tree` only,
and `import ospiel_team` imports none of them (nor JAX, numba or HiGHS).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from collections.abc import Mapping


def attach(package: str, exports: Mapping[str, str]
           ) -> tuple[list[str], Callable[[str], object], Callable[[], list[str]]]:
  """Returns `__all__`, `__getattr__` and `__dir__` for `package`.

  Args:
    package: the package's `__name__`.
    exports: public name -> the module defining it (a submodule of `package` or another
      package module); a name equal to the last part of its module's name is that module.

  Returns:
    `(__all__, __getattr__, __dir__)`, to assign in the package's `__init__`.

  Raises:
    AttributeError (from `__getattr__`): a name the package does not export.
  """
  names = list(exports)

  def __getattr__(name: str) -> object:  # noqa: N807 (PEP 562)
    try:
      module_name = exports[name]
    except KeyError:
      raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if module_name.rsplit(".", 1)[-1] == name else getattr(module, name)
    globals_of_package = importlib.import_module(package).__dict__
    globals_of_package[name] = value  # next time found without __getattr__
    return value

  def __dir__() -> list[str]:  # noqa: N807 (PEP 562)
    return sorted(set(importlib.import_module(package).__dict__) | set(names))

  return names, __getattr__, __dir__
