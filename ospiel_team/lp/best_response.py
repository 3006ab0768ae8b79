"""Exact team best responses against fixed terminal weights: the one home of all of them.

A team best response maximises sum_z w[z] x[z] over the team's joint pure strategies x (reach
of terminal z, 0 or 1), where `w[z]` already holds chance, the other team's (possibly
correlated) reach and this team's utility. Exact methods:

* one member: backward induction on the player's sequence tree (perfect recall makes it a
  tree), `single_player_best_response_value`;
* `team_best_response_lp`: the LP over the team's tree-decomposition polytope (Zhang &
  Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
  Decompositions", AAAI 2022, arXiv:2109.05284, Theorem 3.21); exact because the polytope is the
  convex hull of the team's pure plans (Prop. 2.9), so an optimal vertex is a pure plan;
* `TeamOracle`: the flow MIP over the members' binary sequence-form plans (`plan_mip`), built
  once and re-solved for new weights, returning the strategy and its terminal reach; the oracle
  of column generation (Farina, Celli, Gatti & Sandholm, ICML 2021, Sec. 5), optionally in the
  hybrid form of Zhang, An & Cerny (AAAI 2021, arXiv:2009.12629, Sec. 4).

`team_best_response_value` picks one of them by name. `team_value_vs_best_response` is the
runner's metric "team 1's value when team 2 best responds" of a per-player policy profile.
The team belief DAG keeps its own best response (`belief_dag.BeliefDAG.best_response_value`):
a linear-time dynamic programme over the DAG's flows, a different algorithm from these.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.lp import highs
from ospiel_team.lp import plan_mip
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.lp.plan import TeamPlan
from ospiel_team.tree import evaluation
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree


# ------------------------------------------------------------------------------------------------
# One member: backward induction.
def _single_player_best_plan(tree: GameTree, player: int, terminal_weights: np.ndarray):
  """A player's best pure strategy by backward induction.

  (value, strategy infoset -> action) of `player`'s best pure strategy (backward induction,
  `evaluation.sequence_backward_induction`).
  """
  value, actions = evaluation.sequence_backward_induction(
      tree, player, np.asarray(terminal_weights, dtype=np.float64))
  strategy: dict[int, int] = {}
  for level in reversed(tree.sequences[player].infoset_levels):
    strategy.update(zip(level.tolist(), actions[level].tolist(), strict=True))
  return float(value), strategy


def single_player_best_response_value(tree: GameTree, player: int,
                                      terminal_weights: np.ndarray) -> float:
  """Max over `player`'s pure strategies of sum_z w[z] * (player reaches z's sequence).

  Backward induction over the player's sequence tree (perfect recall); `terminal_weights` already
  holds chance, the other players' reach and the utility.

  Args:
    tree: the game tree.
    player: the responding player.
    terminal_weights: [num_terminals] w[z]: chance reach x the others' reach x the team's utility.

  Returns:
    The best-response value.
  """
  return _single_player_best_plan(tree, player, terminal_weights)[0]


def pure_terminal_reach(tree: GameTree, members: Sequence[int],
                        strategy: dict[int, int]) -> np.ndarray:
  """[num_terminals] 0/1 reach of the team's joint pure strategy (infoset -> action).

  Args:
    tree: the game tree.
    members: the team's players.
    strategy: the members' action at every infoset of theirs.

  Returns:
    [num_terminals] 1.0 where the strategy plays to the terminal, else 0.0.
  """
  a_count = tree.num_actions
  reach = np.ones(len(tree.terminals))
  for p in members:
    seqs = tree.sequences[p]
    on = np.zeros(tree.num_infosets * a_count + 1)
    on[0] = 1.0  # index 0: the empty sequence (flat sequence -1)
    for level in seqs.infoset_levels:
      parent_on = on[seqs.infoset_parent_seq[level] + 1]
      chosen = np.array([strategy[int(i)] for i in level], dtype=np.int64)
      on[1 + level * a_count + chosen] = parent_on
    reach *= on[seqs.terminal_last_seq + 1]
  return reach


# ------------------------------------------------------------------------------------------------
# The LP over the team's tree-decomposition polytope.
@dataclasses.dataclass(frozen=True)
class TeamBestResponse:
  """A team's best correlated plan (`team_best_response_lp`): its value and the plan."""
  value: float
  plan: TeamPlan
  seconds: float


def team_best_response_lp(tree: GameTree, members: Sequence[int], terminal_weights: np.ndarray,
                          *, decomposition: TeamDecomposition | None = None,
                          time_limit: float | None = None) -> TeamBestResponse:
  """Max over the team's correlated plans of sum_z w[z] x[z]: an exact team best response.

  The plan polytope of the decomposition is the convex hull of pure plans (Prop. 2.9), so the
  LP optimum is the best joint pure strategy's value; sampling the plan gives one.

  Args:
    tree: the game tree.
    members: the team's players.
    terminal_weights: [num_terminals] w[z].
    decomposition: the team's `TeamDecomposition` (built when None).
    time_limit: HiGHS seconds (None: no limit).

  Returns:
    A `TeamBestResponse` with the value and the optimal plan.
  """
  start = time.perf_counter()
  dec = decomposition or TeamDecomposition(tree, members)
  w_leaf = np.bincount(dec.terminal_leaf, weights=terminal_weights, minlength=dec.num_leaves)
  const = 0.0
  if dec.const_leaf:
    const = float(w_leaf[0])
    w_leaf = w_leaf.copy()
    w_leaf[0] = 0.0
  cost = np.asarray(dec.leaf_matrix.T @ w_leaf).reshape(-1)
  d_mat, rhs = dec.constraint_system()
  h = highs.solve(cost, d_mat, rhs, rhs, np.zeros(dec.num_local), np.full(dec.num_local, np.inf),
                  True, time_limit=time_limit, solver="simplex")
  highs.check_status(h, "the team best-response LP", time_limit)
  lam = np.maximum(np.asarray(h.getSolution().col_value), 0.0)
  value = float(h.getInfo().objective_function_value) + const
  return TeamBestResponse(value=value, plan=TeamPlan(dec, lam),
                          seconds=time.perf_counter() - start)


# ------------------------------------------------------------------------------------------------
# Several members: the flow MIP, built once (column generation's oracle).
class OracleTimeLimit(RuntimeError):
  """The best-response MIP hit its time limit before finding any joint pure strategy.

  `bound` is the MIP's proven upper bound on the best-response value at that moment (`inf`
  when it had none): still a certified bound, so an anytime caller (column generation) can
  return the bracket it has instead of failing.
  """

  def __init__(self, message: str, bound: float):
    super().__init__(message)
    self.bound = float(bound)


@dataclasses.dataclass(frozen=True)
class PureBestResponse:
  """A joint pure team best response, as `TeamOracle.best_response` returns it."""

  value: float  # value of `strategy`
  bound: float  # proven upper bound on the best response value (>= value; == for one player)
  strategy: dict[int, int]  # infoset -> action for the team's infosets
  reach: np.ndarray  # [num_terminals] 0/1 terminal reach of the strategy
  seconds: float
  # Other (worse) joint pure strategies the MIP found on its way: [(value, reach)], best first.
  others: list[tuple[float, np.ndarray]] = dataclasses.field(default_factory=list)


class TeamOracle:
  """Exact pure team best response, the model built once (column-generation oracle).

  One member: backward induction. Several: the flow MIP of `plan_mip.flow_model` (built once;
  each call changes only the objective and re-solves to proven optimality with HiGHS).

  Args:
    tree: the game tree.
    members: the team's players.
    threads: HiGHS threads.
    keep_others: also return the improving solutions the MIP found before its optimum
      (HiGHS's `mip_improving_solution_save`), extra columns for column generation.
    hybrid: declare integral only the sequence variables of the members other than the one
      with the most sequences (the *free* member), as in the hybrid-form best response of
      Zhang, An & Cerny (AAAI 2021, arXiv:2009.12629, Sec. 4: one member's pure strategy,
      the other's sequence form). Exact: with the other members' 0/1 plans fixed, the flow
      rows force every edge into a free member's node to carry the product of the fixed
      choices and the free member's sequence-form reach, so the LP left is the free
      member's sequence-form best response, whose optimum is a pure plan; the free member's
      plan is then re-derived by backward induction against the fixed members' plan.
    warm_start: give each MIP the previous call's solution as its starting incumbent
      (feasible for any weights: only the objective changes between calls).
  """

  def __init__(self, tree: GameTree, members: Sequence[int], *, threads: int | None = None,
               keep_others: bool = False, hybrid: bool = False, warm_start: bool = False):
    self.tree = tree
    self.keep_others = keep_others
    self.members = [int(p) for p in members]
    self._h = None
    self._fm = None
    self._free = None
    self._warm_start = warm_start
    self._last = None
    if len(self.members) > 1:
      self._fm = plan_mip.flow_model(tree, self.members)
      fm = self._fm
      cost = np.zeros(fm.num_cols)
      integrality = fm.integrality
      if hybrid:
        owner = tree.infoset_player[fm.team_inf[fm.inf_rep]]
        self._free = self.members[int(np.argmax([(owner == p).sum() for p in self.members]))]
        integrality = integrality.copy()
        integrality[:fm.n_bin] = owner != self._free
        self._owner = owner
      self._h = highs.solve(cost, fm.a_mat, np.asarray(fm.lo), np.asarray(fm.hi),
                            np.zeros(fm.num_cols), np.ones(fm.num_cols), True, threads=threads,
                            integrality=integrality, mip_gap=0.0,
                            options={"mip_abs_gap": 1e-10,
                                     "mip_improving_solution_save": keep_others})

  def best_response(self, terminal_weights: np.ndarray,
                    time_limit: float | None = None) -> PureBestResponse:
    """The best joint pure strategy against `terminal_weights`.

    Exact, except when the MIP is stopped by `time_limit`: then the best strategy found and the
    MIP's proven bound (`bound` >= the optimum) are returned. Raises `OracleTimeLimit` (with
    the proven bound) if the time limit came before any strategy was found, RuntimeError on
    any other failure.

    Args:
      terminal_weights: [num_terminals] w[z]: chance reach x the others' reach x the team's utility.
      time_limit: the MIP's seconds (None: no limit).

    Returns:
      A `PureBestResponse`: the strategy (infoset -> action), its value, the proven bound and the
        seconds.
    """
    start = time.perf_counter()
    w = np.asarray(terminal_weights, dtype=np.float64)
    if self._fm is None:
      value, strategy = _single_player_best_plan(self.tree, self.members[0], w)
      bound = value
    else:
      fm, h = self._fm, self._h
      cost, const = fm.cost(w)
      h.changeColsCost(fm.num_cols, np.arange(fm.num_cols, dtype=np.int32), cost)
      time_limit = highs.check_time_limit(time_limit)
      highs.set_option(h, "time_limit", np.inf if time_limit is None else time_limit)
      if self._warm_start and self._last is not None:
        highs.set_start(h, self._last)
      highs.run(h)
      try:
        highs.check_status(h, "the team best-response MIP", time_limit, incumbent_ok=True)
      except highs.TimeLimitError as e:
        bound = e.bound + const
        raise OracleTimeLimit(f"team best-response MIP stopped by its time limit ({time_limit} "
                              f"s) before finding a strategy (proven bound {bound})",
                              bound) from e
      info = h.getInfo()
      col_value = np.asarray(h.getSolution().col_value)
      strategy = self._strategy(col_value, w)
      if self._warm_start and self._free is None:
        self._last = col_value
      value = float(info.objective_function_value) + const
      if self._free is not None:  # the free member's plan was re-derived: its exact value
        mip_value = value
        value = float(w @ pure_terminal_reach(self.tree, self.members, strategy))
        if value < mip_value - 1e-9 * (1.0 + abs(mip_value)):
          raise AssertionError(f"hybrid best response {value} below the MIP's {mip_value}")
      bound = max(value, float(info.mip_dual_bound) + const)
    reach = pure_terminal_reach(self.tree, self.members, strategy)
    others = []
    if self._fm is not None and self.keep_others:
      for sol in sorted(self._h.getSavedMipSolutions(), key=lambda x: -x.objective)[1:]:
        r = pure_terminal_reach(self.tree, self.members,
                                self._strategy(np.asarray(sol.col_value), w))
        others.append((float(w @ r) if self._free is not None else
                       float(sol.objective) + const, r))
    return PureBestResponse(value=value, bound=bound, strategy=strategy, reach=reach,
                            seconds=time.perf_counter() - start, others=others)

  def _strategy(self, sol: np.ndarray, w: np.ndarray) -> dict[int, int]:
    """The joint pure strategy of a MIP solution.

    The joint pure strategy of a MIP solution (hybrid: the integral members' choices, then
    the free member's best response to them by backward induction against weights `w`).
    """
    fm = self._fm
    strategy = {}
    fixed = sol[:fm.n_bin] > 0.5
    if self._free is not None:
      fixed &= self._owner != self._free
    for k in np.nonzero(fixed)[0]:
      strategy[int(fm.team_inf[fm.inf_rep[k]])] = int(fm.act[k])
    for i in fm.team_inf:
      if int(i) not in strategy and (self._free is None or
                                      self.tree.infoset_player[i] != self._free):
        strategy[int(i)] = int(np.nonzero(self.tree.infoset_legal[i])[0][0])
    if self._free is not None:
      others = [p for p in self.members if p != self._free]
      fixed_reach = pure_terminal_reach(self.tree, others, strategy)
      _, free_strategy = _single_player_best_plan(self.tree, self._free, w * fixed_reach)
      strategy.update(free_strategy)
    return strategy


def _check_float_array(name: str, value: Any, shape: tuple[int, ...]) -> None:
  """UserError naming `name` unless `value` converts to a float array of `shape`."""
  try:
    got = np.shape(np.asarray(value, dtype=np.float64))
  except (TypeError, ValueError):
    got = None
  if got != shape:
    raise errors.UserError(f"{name} must be a numeric array of shape {shape}, got "
                           f"{type(value).__name__} {value!r:.80}")


def team_best_response_value(tree: GameTree, teams: teams_lib.Teams, team: int,
                             terminal_weights: np.ndarray, *, method: str = "auto",
                             time_limit: float | None = None) -> float:
  """Best joint pure strategy value of `team` against fixed terminal weights.

  Args:
    tree: the game tree.
    teams: the team assignment.
    team: index of the responding team.
    terminal_weights: `w[z]` = chance reach x other team's (possibly correlated) reach x this
      team's utility.
    method: "auto" (one member: backward induction; several: "lp"), "lp" (the team LP over the
      team's polytope) or "mip" (the exact flow MIP).
    time_limit: HiGHS seconds for "lp"/"mip".

  Returns:
    The best response's value (sum_z w[z] x[z]).

  Raises:
    errors.UserError: a bad argument, named.
  """
  checks.check_tree("tree", tree)
  checks.check_type("teams", teams, teams_lib.Teams, "a Teams (tree.parse_teams)")
  team = checks.check_int("team", team, minimum=0, maximum=teams.num_teams - 1)
  _check_float_array("terminal_weights", terminal_weights, (len(tree.terminals),))
  if method not in ("auto", "lp", "mip"):
    raise ValueError(f"unknown best-response method {method!r}; use 'auto', 'lp' or 'mip'")
  members = teams.teams[team]
  if len(members) == 1:
    return single_player_best_response_value(tree, members[0], terminal_weights)
  if method in ("auto", "lp"):
    return team_best_response_lp(tree, members, terminal_weights, time_limit=time_limit).value
  res = plan_mip.best_joint_pure_strategy_mip(tree, members, terminal_weights,
                                              time_limit=time_limit)
  if not res.proven_optimal:
    raise RuntimeError(f"team best-response MIP not solved to optimality (gap {res.gap})")
  return res.value


def team_value_vs_best_response(tree: GameTree, pi: np.ndarray,
                                teams: teams_lib.Teams | str | None = None,
                                *, team: int = 0, method: str = "auto") -> float:
  """Team `team`'s value when the other team best responds (jointly) to the profile `pi`.

  `pi` is a per-player policy array (e.g. CFR's average policy): `team` plays its members'
  behavior policies, the other team picks its best joint pure strategy (a team best response,
  exact). Compare with the TMECor value (`team_lp.solve`), which is the largest this can be for any
  correlated plan of `team`.

  Args:
    tree: the game tree.
    pi: [num_infosets, num_actions] the players' behaviour policies.
    teams: two teams (`teams.parse_teams` text or `Teams`; None: `teams.default_teams`).
    team: 0 or 1, the team whose value is returned.
    method: the other team's best response, as in `team_best_response_value`.

  Returns:
    Team `team`'s expected utility (its members' summed return) against the other team's best
      response.

  Raises:
    errors.UserError: a bad argument, named.
  """
  checks.check_tree("tree", tree)
  _check_float_array("pi", pi, (tree.num_infosets, tree.num_actions))
  if teams is None:
    teams = teams_lib.default_teams(tree.game)
  teams = teams_lib.parse_teams(teams, tree.num_players)
  if teams.num_teams != 2:
    raise ValueError(f"team_value_vs_best_response needs two teams, got {teams}")
  if team not in (0, 1):
    raise ValueError(f"team must be 0 or 1, got {team}")
  other = 1 - team
  reach = teams_lib.player_reach_plans(tree, np.asarray(pi, dtype=np.float64))
  weights = reach[:, tree.num_players].copy()
  for p in teams.teams[team]:
    weights *= reach[:, p]
  u_other = teams_lib.team_terminal_utilities(tree, teams)[:, other]
  br = team_best_response_value(tree, teams, other, weights * u_other, method=method)
  return -br
