"""Reference values: the value a runner metric is read against.

* `nash_conv`: 0 (a Nash equilibrium).
* `value` (common-payoff games): the proven cooperative optimum (its common payoff). The optima
  proven so far ship with the package (`runner/data/coop_optima.json`, written by
  `benchmarks/coop_optima.py` from its record of `ospiel-team-coop-optimum` runs); other
  games are solved by `algorithms.coop.optimum` within a time limit (an unproven incumbent is
  labelled so).
* `team_value_vs_br` (two-team zero-sum games): team 1's TMECor value (`algorithms.team.team_lp`),
  the most team 1 can guarantee against a team best response with a correlated plan (Zhang,
  Farina and Sandholm 2023, "Team Belief DAG", ICML 2023, arXiv 2210.05170).

A computed value can be kept in a result store folder (`OUT/reference.json`), so that a rerun
of the same comparison does not solve it again.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import os
import warnings
from typing import Any

import pyspiel

from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.algorithms.team import team_lp
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree

COOP_OPTIMA_RESOURCE = "data/coop_optima.json"
PROVEN_LABEL = "cooperative optimum (proven, coop_optimum)"


@functools.lru_cache(maxsize=1)
def shipped_coop_optima_entries() -> dict[str, dict[str, Any]]:
  """The shipped optima, keyed by game string.

  The shipped optima with their method and, where a record other than
  `coop_optima.json` proves them, a `provenance` line: game string -> entry.
  """
  text = (importlib.resources.files("ospiel_team.runner") / COOP_OPTIMA_RESOURCE).read_text(
      encoding="utf-8")
  return dict(json.loads(text)["optima"])


def shipped_coop_optima() -> dict[str, float]:
  """The proven cooperative optima shipped with the package: game string -> common payoff.

  The same number as `coop_optimum`'s `value` and the runner's `value` metric.

  Returns:
    Game string -> the proven optimum.
  """
  return {game: float(row["value"]) for game, row in shipped_coop_optima_entries().items()}


def shipped_label(game: str) -> str:
  """The reference label of a shipped optimum: `PROVEN_LABEL`, with its provenance if any.

  Args:
    game: a game string of `shipped_coop_optima`.

  Returns:
    The label the report shows for the reference.
  """
  entry = shipped_coop_optima_entries()[game]
  if "provenance" in entry:
    return f"cooperative optimum (proven, {entry['provenance']})"
  return PROVEN_LABEL


def _solve(game: pyspiel.Game, tree: GameTree, metric: str,
           teams: teams_lib.Teams | None, time_limit: float) -> dict[str, Any]:
  if metric == "value":
    res = coop_optimum.solve(tree, time_limit=time_limit)
    return {"value": float(res.value),
            "label": (PROVEN_LABEL if res.proven_optimal
                      else "best joint pure strategy found (not proven optimal)")}
  lp_res = team_lp.solve(tree, teams if teams is not None else teams_lib.default_teams(game))
  return {"value": float(lp_res.value),
          "label": f"TMECor value of team 1 (team_lp, teams {lp_res.teams})"}


def reference(game: pyspiel.Game, tree: GameTree, metric: str,
              teams: teams_lib.Teams | None = None, *, out_dir: str | None = None,
              time_limit: float = 60.0) -> dict[str, Any] | None:
  """The value `metric` should be read against: {"value", "label"}.

  Args:
    game: the game.
    tree: its `GameTree`.
    metric: "nash_conv", "value" or "team_value_vs_br" (`metrics.METRICS`).
    teams: the two teams of a `team_value_vs_br` comparison (None: `teams.default_teams`).
    out_dir: a result store folder: a value computed before is read from
      `out_dir/reference.json`, a new one is added there (atomically).
    time_limit: seconds for solving a cooperative optimum that is not shipped.

  Returns:
    {"value": float, "label": str}, or None for `value` in a team game (no single reference).

  Raises:
    ValueError: an unknown metric.
  """
  if metric == "nash_conv":
    return {"value": 0.0, "label": "Nash equilibrium (NashConv 0)"}
  if metric not in ("value", "team_value_vs_br"):
    raise ValueError(f"no reference value for metric {metric!r}; known: nash_conv, "
                     "value, team_value_vs_br")
  if metric == "value" and teams is not None:
    return None
  if metric == "value" and str(game) in shipped_coop_optima():
    return {"value": shipped_coop_optima()[str(game)], "label": shipped_label(str(game))}
  key = f"{metric}|{game}|{teams}"
  path = os.path.join(out_dir, "reference.json") if out_dir else None
  stored: dict[str, Any] = {}
  if path and os.path.exists(path):
    try:
      stored = atomic_io.read_json(path, "reference file")
    except errors.DamagedFileError as e:  # damaged or edited: solved again and replaced
      warnings.warn(f"{e}; solving the reference again", stacklevel=2)
    if key in stored:
      return stored[key]
  ref = _solve(game, tree, metric, teams, time_limit)
  if path:
    stored[key] = ref
    atomic_io.write_json(path, stored, indent=1)
  return ref
