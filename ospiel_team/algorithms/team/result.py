"""The one result type of the team solvers: team 1's value and its certified bracket.

Every team method answers with team 1's TMECor value `value` inside a bracket [`lower`,
`upper`] certified by exact team best responses (an exact method: `lower == upper` up to
rounding), the seconds it took, and the checkpoints an anytime method passed on its way
(`history`: iteration, bracket, seconds, oldest first). `AnytimeResult` holds these; each
method's result adds its own fields: `belief_dag.BeliefDAGResult` (iterations, DAG sizes, the
plans certifying the bracket), `column_generation.ColumnGenerationResult` (columns, oracle and
master seconds, the plans) and `solver.TeamSolveResult` (the method chosen, `exact`, the
method's numbers in `details`, the LP's plans).

`MethodChoice` is the method `solver.solve` runs and why (`solver.choose_method`).

`settled` says whether a bracket fixes the value to a number of decimals (the stopping rule of
`solver.solve`'s default precision).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the decompositions' type only (no import at run time)
  from ospiel_team.lp.decomposition import TeamDecomposition


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnytimeResult:
  """Team 1's value and the bracket [lower, upper] certified by exact team best responses.

  Attributes:
    game: the game string.
    value: team 1's value (inside the bracket; which point of it: the method's docstring).
    lower: certified lower bound: team 1's plan guarantees it against every team-2 strategy.
    upper: certified upper bound: team 2's plan holds team 1 to it.
    seconds: the method's wall-clock seconds.
    history: the checkpoints of an anytime method (dicts with at least `iteration`, `lower`,
      `upper`, `seconds`), oldest first; empty for an exact method.
  """
  game: str
  value: float
  lower: float
  upper: float
  seconds: float
  history: tuple[dict, ...] = ()

  @property
  def gap(self) -> float:
    """The width of the certified bracket, upper - lower."""
    return self.upper - self.lower


def settled(lower: float, upper: float, digits: int) -> bool:
  """Whether every value in [lower, upper] rounds to the same number at `digits` decimals.

  Python's `round` (as `format(x, '.4f')`) rounds the exact binary value correctly, hence
  monotonically: this holds exactly when both ends round alike (-0.0 == 0.0).
  """
  return bool(np.isfinite(lower) and np.isfinite(upper)
              and round(lower, digits) == round(upper, digits))


@dataclasses.dataclass(frozen=True)
class MethodChoice:
  """The method `solve` runs, and why (`choose_method`).

  Attributes:
    method: "lp", "dag_lp" (the belief DAG, then the LP restricted to its support), "dag" or
      "cg".
    reason: why `auto` chose it ("" for a method asked for by name).
    auto: chosen by `auto` (the belief DAG is then capped at `AUTO_DAG_MAX_LOCAL` edges and
      falls back to column generation past it).
    decompositions: both teams' decompositions when the choice built them (then reused), else
      None.
  """
  method: str
  reason: str = ""
  auto: bool = False
  decompositions: tuple[TeamDecomposition, TeamDecomposition] | None = None
