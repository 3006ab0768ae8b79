"""The runner's solver catalogue: every registered solver, looked up by name.

Importing this module imports the adapters (`openspiel_solvers`, `ours_solvers`), whose
`@api.solver(...)` lines register them; `api` itself knows no adapter, so the adapters can import
`api` without a cycle. The comparison runner (`ospiel_team.runner.compare`) looks solvers up here.
"""

from typing import Callable, Dict, Iterator, List, Sequence

from ospiel_team.runner import api
from ospiel_team.runner import openspiel_solvers  # noqa: F401  (registers its solvers)
from ospiel_team.runner import ours_solvers  # noqa: F401  (registers its solvers)


def registry() -> Dict[str, api.SolverSpec]:
  """Every registered solver by name (the adapters above registered themselves on import)."""
  return api._REGISTRY  # pylint: disable=protected-access


def solver_names() -> List[str]:
  return sorted(registry())


def spec(name: str) -> api.SolverSpec:
  """The registered solver `name`; ValueError listing the known ones otherwise."""
  reg = registry()
  if name not in reg:
    raise ValueError(f"unknown solver {name!r}; known: {', '.join(sorted(reg))}")
  return reg[name]


def solver_fn(name: str) -> Callable[[api.SolverContext], Iterator[api.Snapshot]]:
  """The generator function of a registered solver."""
  return spec(name).fn


def validate_options(solvers: Sequence[str], options: Dict[str, str]) -> Dict[str, Dict[str, str]]:
  """Checks every option against the solvers that accept it; returns each solver's options.

  Raises ValueError naming an option no chosen solver accepts (with the valid ones listed), or
  a value that does not parse as the option's type.
  """
  specs = [spec(s) for s in solvers]
  per_solver: Dict[str, Dict[str, str]] = {s.name: {} for s in specs}
  for key, value in options.items():
    takers = [s for s in specs if key in s.options]
    if not takers:
      prefix = key.split(".", 1)[0]
      same = [s for s in specs if any(k.split(".", 1)[0] == prefix for k in s.options)]
      if same:
        valid = sorted({k for s in same for k in s.options})
        raise ValueError(f"unknown solver option {key!r} for {', '.join(s.name for s in same)};"
                         f" valid options: {', '.join(valid)}")
      valid = sorted({k for s in specs for k in s.options})
      raise ValueError(f"solver option {key!r} is not accepted by any of the solvers "
                       f"{', '.join(solvers)}; valid options: {', '.join(valid) or '(none)'}")
    for s in takers:
      default = s.options[key]
      cast = type(default)
      try:
        if cast is bool:
          if value.lower() not in ("true", "false", "1", "0"):
            raise ValueError(value)
        else:
          cast(value)
      except ValueError:
        raise ValueError(f"solver option {key}={value!r} is not a valid "
                         f"{cast.__name__}") from None
      per_solver[s.name][key] = value
  return per_solver
