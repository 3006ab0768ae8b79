"""The runner's metrics, `fn(tree, pi, teams) -> float` on a policy array, and which fits a game.

Values follow one convention across the package: a cooperative (common-payoff) game reports the
common payoff, the number every player receives (the tables and proven optima of Tian et al.
2020, "Joint Policy Search for Multi-agent Collaboration with Imperfect Information", NeurIPS
2020, arXiv 2008.06495); a two-team zero-sum game reports team 1's summed return (the tables of
Zhang and Sandholm 2022, arXiv 2109.05284).

* common-payoff games (utility IDENTICAL): `value`, the common payoff, higher is better;
* two-team zero-sum games (`teams` given): `team_value_vs_br`, team 1's summed return when
  team 2 best responds jointly (`lp.best_response.team_value_vs_best_response`),
  higher is better; `value` there is team 1's summed return against the profile's own team 2;
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

from ospiel_team.lp import best_response as team_best_response
from ospiel_team.tree import evaluation
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.tree.payoff import is_common_payoff


def value(tree: GameTree, pi: np.ndarray, teams: teams_lib.Teams | None = None) -> float:
  """The profile's value: the common payoff, or team 1's summed return when `teams` is given.

  Args:
    tree: the game's array tree.
    pi: [num_infosets, num_actions] the profile's policy array.
    teams: the two teams, or None for a common-payoff game.

  Returns:
    The value.
  """
  v = evaluation.game_value(tree, pi)
  if teams is None:
    if not is_common_payoff(tree):
      raise ValueError(f"metric 'value' of {tree.game} needs teams (it is not common-payoff)")
    return float(v[0])
  return float(sum(v[p] for p in teams.teams[0]))


def nash_conv(tree: GameTree, pi: np.ndarray,
              teams: teams_lib.Teams | None = None) -> float:
  """NashConv: the sum over players of their best-response gains (teams are not used).

  Args:
    tree: the game's array tree.
    pi: [num_infosets, num_actions] the profile's policy array.
    teams: ignored.

  Returns:
    The NashConv of `pi`.
  """
  del teams
  return float(evaluation.nash_conv(tree, pi))


def team_value_vs_br(tree: GameTree, pi: np.ndarray,
                     teams: teams_lib.Teams | None = None) -> float:
  """Team 1's summed return when team 2 best responds jointly (`teams` is required).

  Args:
    tree: the game's array tree.
    pi: [num_infosets, num_actions] the profile's policy array.
    teams: the two teams.

  Returns:
    Team 1's summed return against team 2's joint best response.
  """
  if teams is None:
    raise ValueError("metric 'team_value_vs_br' needs two teams (--teams)")
  return float(team_best_response.team_value_vs_best_response(tree, pi, teams, team=0))


METRICS: dict[str, Callable[..., float]] = {
    "value": value, "nash_conv": nash_conv, "team_value_vs_br": team_value_vs_br}
LOWER_IS_BETTER = {"nash_conv"}


def default_metric(game: pyspiel.Game, teams: teams_lib.Teams | None = None) -> str:
  """`value` (common payoff), `team_value_vs_br` (teams given), else `nash_conv`.

  Args:
    game: the game.
    teams: the teams, if given.

  Returns:
    The metric's name.
  """
  if is_common_payoff(game):
    return "value"
  if teams is not None:
    return "team_value_vs_br"
  return "nash_conv"


def check_metric(name: str, game: pyspiel.Game, teams: teams_lib.Teams | None) -> None:
  """Raises ValueError naming `name` unless the metric applies to `game` with `teams`.

  Args:
    name: a metric name.
    game: the game.
    teams: the two teams, or None for a common-payoff game.
  """
  metric_fn(name)
  if name == "team_value_vs_br" and teams is None:
    raise ValueError(f"metric {name!r} needs two teams; {game} is a common-payoff game (all "
                     "its players form one team)" if is_common_payoff(game) else
                     f"metric {name!r} needs two teams (--teams \"0,1|2\")")
  if name == "value" and teams is None and not is_common_payoff(game):
    raise ValueError(f"metric {name!r} on {game} (not common-payoff) needs two teams (--teams)")


def metric_fn(name: str) -> Callable[..., float]:
  """The metric `name`; ValueError listing the known ones otherwise.

  Args:
    name: a metric name.

  Returns:
    The metric function (tree, pi, teams) -> float.
  """
  if name not in METRICS:
    raise ValueError(f"unknown metric {name!r}; known: {', '.join(sorted(METRICS))}")
  return METRICS[name]
