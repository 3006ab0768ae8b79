"""The runner's solver registry: every registered solver, looked up by name.

Importing this module imports the adapters (`adapters.openspiel`, `adapters.ours`), whose
`@api.solver(...)` lines register them in `api.REGISTRY`; `api` itself knows no adapter, so the
adapters can import `api` without a cycle.
"""

from collections.abc import Sequence

from ospiel_team.runner import api
from ospiel_team.runner.adapters import openspiel  # noqa: F401  (registers its solvers)
from ospiel_team.runner.adapters import ours  # noqa: F401  (registers its solvers)


def solver_names() -> list[str]:
  """The names of every registered solver, sorted.

  Returns:
    The sorted solver names.
  """
  return sorted(api.REGISTRY)


def spec(name: str) -> api.SolverSpec:
  """The registered solver `name`; ValueError listing the known ones otherwise.

  Args:
    name: a solver name.

  Returns:
    Its `SolverSpec`.
  """
  if name not in api.REGISTRY:
    raise ValueError(f"unknown solver {name!r}; known: {', '.join(solver_names())}")
  return api.REGISTRY[name]


def validate_options(solvers: Sequence[str], options: dict[str, str]) -> dict[str, dict[str, str]]:
  """Checks every option against the solvers that accept it; returns each solver's options.

  Raises ValueError naming an option no chosen solver accepts (with the valid ones listed), or
  a value that does not parse as the option's type.

  Args:
    solvers: the chosen solver names.
    options: option name -> value text, as given.

  Returns:
    Solver name -> the given options it accepts.
  """
  specs = [spec(s) for s in solvers]
  per_solver: dict[str, dict[str, str]] = {s.name: {} for s in specs}
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
  for s in specs:
    why = s.check_options(per_solver[s.name]) if s.check_options else None
    if why:
      raise ValueError(f"solver option {why}")
  return per_solver
