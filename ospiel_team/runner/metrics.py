"""The runner's metrics, `fn(tree, pi, teams) -> float` on a policy array, and which fits a game.

* common-payoff games (utility IDENTICAL): `team_value`, the team's expected return summed over
  its members (all players), higher is better;
* two-team zero-sum games (`teams` given): `team_value_vs_br`, team 1's value when team 2 best
  responds jointly (`algorithms.team.best_response.team_value_vs_best_response`);
* other games: `nash_conv`, lower is better: the sum over players of what a best response
  gains (Lanctot et al. 2017, "A Unified Game-Theoretic Approach to Multiagent Reinforcement
  Learning", NeurIPS 2017, arXiv 1711.00832).

All are exact, computed on the array game tree (`ospiel_team.tree.evaluation`). The team best
response is exact too: backward induction for a one-player team, otherwise the LP over the
team's tree-decomposition polytope (Zhang and Sandholm 2022, "Team Correlated Equilibria in
Zero-Sum Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv 2109.05284).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel

from ospiel_team.algorithms.team import best_response as team_best_response
from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree


def team_value(tree: GameTree, pi: np.ndarray,
               teams: teams_lib.Teams | None = None) -> float:
  """Team 1's expected return summed over its members (all players if no teams are given)."""
  v = evaluation.game_value(tree, pi)
  members = range(tree.num_players) if teams is None else teams.teams[0]
  return float(sum(v[p] for p in members))


def nash_conv(tree: GameTree, pi: np.ndarray,
              teams: teams_lib.Teams | None = None) -> float:
  """NashConv: the sum over players of their best-response gains (teams are not used)."""
  del teams
  return float(evaluation.nash_conv(tree, pi))


def team_value_vs_br(tree: GameTree, pi: np.ndarray,
                     teams: teams_lib.Teams | None = None) -> float:
  """Team 1's value (members' sum) when team 2 best responds jointly (default teams if None)."""
  return float(team_best_response.team_value_vs_best_response(tree, pi, teams, team=0))


METRICS: dict[str, Callable[..., float]] = {
    "team_value": team_value, "nash_conv": nash_conv, "team_value_vs_br": team_value_vs_br}
LOWER_IS_BETTER = {"nash_conv"}


def default_metric(game: pyspiel.Game, teams: teams_lib.Teams | None = None) -> str:
  """`team_value` (common payoff), `team_value_vs_br` (teams given), else `nash_conv`."""
  if game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL:
    return "team_value"
  if teams is not None:
    return "team_value_vs_br"
  return "nash_conv"


def metric_fn(name: str) -> Callable[..., float]:
  """The metric `name`; ValueError listing the known ones otherwise."""
  if name not in METRICS:
    raise ValueError(f"unknown metric {name!r}; known: {', '.join(sorted(METRICS))}")
  return METRICS[name]
