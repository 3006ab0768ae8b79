r"""The team LP restricted to a support, grown by exact team best responses (double oracle).

The tree-decomposition LP of Zhang & Sandholm ("Team Correlated Equilibria in Zero-Sum
Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284; `team_lp.py`) has one
column per local solution of team 1 and one dual row per local solution of team 2. Restricting
team 1 to a subset S1 of its local solutions (the other lambdas fixed to 0) and team 2 to S2
gives the same LP over two faces of the teams' polytopes, usually far smaller. Its optimum
(x*, y*) is checked against the full polytopes with the exact team best responses of the team
belief DAG (Zhang, Farina & Sandholm, ICML 2023, arXiv:2202.00789; `belief_dag.py`; the DAG's
edges are exactly the local solutions):

    lower = min over all team-2 plans of x*^T M y,   upper = max over all team-1 plans of x^T M y*,

a certified bracket on the TMECor value. When both equal the restricted optimum (the bracket
at most `IMPROVE_TOL` = 1e-9 wide), x* and y* are optimal for the full LP and the restricted
LP's value is the full LP's optimum (exact in the sense `team_lp.solve` is); a best response that
beats the restricted optimum always leaves the support (inside the face the restricted optimum
is a best response).
Otherwise the best responses' local solutions are added to the supports and the restricted LP
is solved again (small ones warm-started: the new columns and rows are added to HiGHS's LP and
its simplex starts from the last basis); the supports only grow, so this ends (at the full LP
in the worst case).

The starting supports come from regret minimisation on the belief DAG (`belief_dag.solve` with
`keep_flows`): the local solutions carrying flow in its last iterate or a share of its average
flow. `solver.solve`'s `auto` rule uses this to finish exactly a DAG bracket that straddles a
rounding boundary, instead of solving the full LP.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from ospiel_team import errors
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import team_lp
from ospiel_team.lp import highs
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree

# A local solution joins the starting support when its average flow is at least this share
# of the largest average flow (besides every local solution of the last iterate's flow).
SUPPORT_SHARE = 1e-3
# A certified bracket at most this wide, holding the restricted optimum (within this relative
# to 1 + |value|), is exact: the restricted optimum is the full LP's (`solve.EXACT_GAP`).
IMPROVE_TOL = 1e-9
# Warm-started rounds (HiGHS's dual simplex from the last basis) while the restricted LP has at
# most this many nonzeros; larger ones are rebuilt and solved from scratch (by the IPM under
# `solver="auto"`). Measured, warm / from scratch: 21D3 (18,653 nonzeros) 0.27 / 0.35 s,
# 31L'133 (14,749) 0.22 / 0.46 s, 21L151 (36,431) 1.21 / 1.06 s, 21L143 (50,737) 13.6 / 7.1 s.
WARM_MAX_NONZEROS = 40_000


@dataclasses.dataclass(frozen=True)
class RestrictedLPResult:
  """Value of the restricted LP at its last round and the certified bracket around it."""
  value: float  # the last restricted LP's optimum
  lower: float  # certified: team 2's exact best response against team 1's restricted optimum
  upper: float  # certified: team 1's exact best response against team 2's restricted optimum
  exact: bool  # no best response left the supports: the full LP's optimum
  rounds: int
  support: list[int]  # final support sizes (team 1's columns, team 2's rows)
  local_solutions: list[int]
  lp_seconds: float  # HiGHS's seconds, all rounds
  seconds: float
  team1_reach: np.ndarray  # [num_terminals] team 1's restricted optimum (certifies `lower`)
  team2_reach: np.ndarray  # [num_terminals] team 2's restricted optimum (certifies `upper`)
  lam1: np.ndarray  # [team 1's local solutions] its restricted optimum (a plan, `TeamPlan`)
  lam2: np.ndarray  # [team 2's local solutions] its restricted optimum (the LP's duals)

  def summary(self) -> dict:
    """The restricted LP's fields as a dict with `restricted_` keys, for a result's details."""
    return dict(restricted_value=self.value, restricted_lower=self.lower,
                restricted_upper=self.upper, restricted_exact=self.exact,
                restricted_rounds=self.rounds, restricted_support=self.support,
                local_solutions=self.local_solutions,
                restricted_lp_seconds=round(self.lp_seconds, 4),
                restricted_seconds=round(self.seconds, 4))


def belief_dag(dec: TeamDecomposition) -> team_belief_dag.BeliefDAG:
  """The team belief DAG of `dec`, built once per decomposition (`TeamDecomposition.derived`)."""
  return dec.derived("belief_dag", lambda: team_belief_dag.BeliefDAG(dec))


def support_of(flows: tuple[np.ndarray, np.ndarray], share: float = SUPPORT_SHARE) -> np.ndarray:
  """Local solutions carrying flow in a last iterate, or >= `share` x the largest average flow.

  Args:
    flows: (last iterate's flow, average flow), in the decomposition's column order.
    share: the relative threshold on the average flow.
  """
  last, avg = flows
  top = float(np.max(avg, initial=0.0))
  return np.nonzero((last > 0.0) | (avg >= share * top))[0]


class _Grower:
  """Grows a HiGHS LP built by `team_lp.build_model` by new columns and dual rows.

  Adds team 1's new local solutions (columns) and team 2's (dual rows) to a HiGHS LP built
  by `team_lp.build_model` with `k1` lam columns, in the same layout (new ones appended).
  """

  def __init__(self, dec1: TeamDecomposition, dec2: TeamDecomposition, k1: int, base: int):
    d1 = dec1.constraint_system()[0]
    f1 = dec1.leaf_matrix.tocsr()[1:] if dec1.const_leaf else dec1.leaf_matrix
    self.cols = sparse.vstack([d1, -f1]).tocsc()  # a lam column: its D1 rows, then F rows
    self.cols.sort_indices()
    g2_t = dec2.leaf_matrix.T.tocsr()
    e2_t = dec2.constraint_system()[0].T.tocsr()
    self.rows = sparse.hstack([-g2_t, e2_t]).tocsr()  # a dual row over the u and v columns
    self.rows.sort_indices()
    self.u_start = k1 + dec1.num_leaves
    self.num_cols = k1 + base

  def add(self, h, lam_ids, lam_cols, dual_ids, in1, in2):
    """Adds the local solutions of `in1`/`in2` that are not yet in the LP.

    Returns the new (lam_ids, lam_cols, dual_ids).
    """
    mask = in1.copy()
    mask[lam_ids] = False
    new1 = np.nonzero(mask)[0]
    if len(new1):
      c = self.cols[:, new1]
      n = len(new1)
      h.addCols(n, np.zeros(n), np.zeros(n), np.full(n, np.inf), int(c.nnz),
                c.indptr[:-1].astype(np.int32), c.indices.astype(np.int32),
                c.data.astype(np.float64))
      lam_ids = np.concatenate([lam_ids, new1])
      lam_cols = np.concatenate([lam_cols, self.num_cols + np.arange(n)])
      self.num_cols += n
    mask = in2.copy()
    mask[dual_ids] = False
    new2 = np.nonzero(mask)[0]
    if len(new2):
      r = self.rows[new2]
      n = len(new2)
      h.addRows(n, np.full(n, -np.inf), np.zeros(n), int(r.nnz),
                r.indptr[:-1].astype(np.int32), (r.indices + self.u_start).astype(np.int32),
                r.data.astype(np.float64))
      dual_ids = np.concatenate([dual_ids, new2])
    return lam_ids, lam_cols, dual_ids


def solve(tree: GameTree, teams: teams_lib.Teams, decompositions: Sequence[TeamDecomposition],
          supports: Sequence[np.ndarray], *, time_limit: float | None = None,
          threads: int | None = None, solver: str = "auto", highs_options: dict | None = None,
          max_rounds: int = 50, warm_start: bool = True) -> RestrictedLPResult:
  """Solves the team LP restricted to `supports`, growing them by exact best responses.

  Args:
    tree: the game tree.
    teams: its two teams (`teams.check_assumptions`).
    decompositions: both teams' decompositions of `tree`.
    supports: team 1's and team 2's starting local solutions (column indices of each
      decomposition); each must contain the support of a feasible plan (e.g. `support_of` a
      flow), else HiGHS reports the restricted LP infeasible (RuntimeError).
    time_limit: seconds for all rounds (None: none); TimeoutError when reached.
    threads: HiGHS threads.
    solver: HiGHS's `solver` option, or "auto" (`team_lp.choose_solver`, by the restricted
      LP's size).
    highs_options: further HiGHS options.
    max_rounds: rounds (restricted LPs) at most; the last bracket is returned, `exact=False`.
    warm_start: add each round's new columns and rows to the last LP and let HiGHS's simplex
      start from its basis (with `solver="auto"`), while it has at most `WARM_MAX_NONZEROS`
      nonzeros; False: every round from scratch.

  Returns:
    A `RestrictedLPResult`.
  """
  start = time.perf_counter()
  time_limit = highs.check_time_limit(time_limit)
  if max_rounds < 1:
    raise errors.UserError(f"max_rounds={max_rounds!r} must be >= 1")
  dec1, dec2 = decompositions
  in1, in2 = _support_masks(tree, teams, dec1, dec2, supports)
  n1, n2 = dec1.num_local, dec2.num_local
  dags = [belief_dag(dec1), belief_dag(dec2)]
  lp = _RestrictedLP(tree, teams, dec1, dec2, threads=threads, solver=solver,
                     highs_options=highs_options, warm_start=warm_start)
  value = lower = upper = 0.0
  exact = False
  lam1 = mu = None
  rounds = 0
  while rounds < max_rounds:
    rounds += 1
    left = None
    if time_limit is not None:
      left = time_limit - (time.perf_counter() - start)
      if left <= 0:  # the best responses and the building count too
        raise highs.TimeLimitError(f"the restricted team LP of {tree.game} was not solved "
                                   f"within time_limit={time_limit} s", np.inf)
    lam1, mu, value = lp.run(in1, in2, left, time_limit)
    # Exact best responses on the DAGs: team 2 against x1 (its gradient -M^T x1), team 1
    # against y2 (M y2): the certified bracket.
    br2, flow2 = dags[1].best_response(-(lp.m_mat.T @ dec1.leaf_values(lam1)))
    br1, flow1 = dags[0].best_response(lp.m_mat @ dec2.leaf_values(mu))
    lower, upper = -br2, br1
    scale = IMPROVE_TOL * (1.0 + abs(value))
    if upper - lower <= IMPROVE_TOL and upper - value <= scale and value - lower <= scale:
      exact = True
      break
    add1 = dags[0].to_local(flow1) > 0.0 if upper > value + scale else np.zeros(n1, bool)
    add2 = dags[1].to_local(flow2) > 0.0 if lower < value - scale else np.zeros(n2, bool)
    if not (np.any(add1 & ~in1) or np.any(add2 & ~in2)):
      break  # an improving best response inside the supports: rounding trouble, not exact
    lp.next_round()
    in1 |= add1
    in2 |= add2
  return RestrictedLPResult(
      value=value, lower=min(lower, value) if exact else lower,
      upper=max(upper, value) if exact else upper, exact=exact, rounds=rounds,
      support=[int(in1.sum()), int(in2.sum())], local_solutions=[n1, n2],
      lp_seconds=lp.seconds, seconds=time.perf_counter() - start,
      team1_reach=dec1.terminal_reach(lam1), team2_reach=dec2.terminal_reach(mu), lam1=lam1,
      lam2=mu)


def solve_one_sided(tree: GameTree, teams: teams_lib.Teams,
                    decompositions: Sequence[TeamDecomposition], supports: Sequence[np.ndarray],
                    *, time_limit: float | None = None, threads: int | None = None,
                    solver: str = "auto", highs_options: dict | None = None) -> RestrictedLPResult:
  """The value's two ends from two one-sided restricted LPs (no growing rounds).

  Team 1 restricted to its support against the whole of team 2: that LP's optimum is the
  best team 1 can guarantee inside its face, a lower end certified by team 2's exact best
  response (which the whole team 2 already contains). Team 2 restricted against the whole of
  team 1 gives the upper end the same way. When the two ends meet (within `IMPROVE_TOL`), both
  faces hold an optimal plan and the value is exact; a support that misses every optimal plan
  shows as a bracket wider than that, never as a wrong value. The LP with the larger team
  restricted runs first (it is the smaller LP).

  Where the double oracle of `solve` needs many rounds (each one a large LP, when one team has
  far more local solutions than the other), these two LPs finish in one round each: measured
  on Leduc 21L523 (1,261,732 and 123,152 local solutions; supports of 41,073 and 25,325 from
  the belief DAG at certified gap 1e-4), 7 s for the lower end and 353 s for the upper end,
  bracket width 1.9e-15, where 50 double-oracle rounds left [0.84, 1.9].

  Args:
    tree: the game tree.
    teams: its two teams (`teams.check_assumptions`).
    decompositions: both teams' decompositions of `tree`.
    supports: team 1's and team 2's local solutions (column indices), each containing the
      support of a feasible plan (e.g. `support_of` a flow).
    time_limit: seconds for both LPs (None: none); TimeoutError when reached.
    threads: HiGHS threads.
    solver: HiGHS's `solver` option, or "auto" (`team_lp.choose_solver` by each LP's size).
    highs_options: further HiGHS options.

  Returns:
    A `RestrictedLPResult` with `rounds=2`: `lower` and `lam1`/`team1_reach` from the first LP
    (team 1's optimal plan in its face), `upper` and `lam2`/`team2_reach` from the second;
    `value` is `lower` when exact, else the middle of the bracket.
  """
  start = time.perf_counter()
  time_limit = highs.check_time_limit(time_limit)
  whole = [np.arange(d.num_local) for d in decompositions]
  runs = {}
  order = (0, 1) if decompositions[0].num_local >= decompositions[1].num_local else (1, 0)
  for team in order:  # team `team` on its support, the other whole
    sides = [supports[0], whole[1]] if team == 0 else [whole[0], supports[1]]
    left = None if time_limit is None else time_limit - (time.perf_counter() - start)
    if left is not None and left <= 0:
      raise highs.TimeLimitError(f"the one-sided restricted LPs of {tree.game} were not "
                                 f"solved within time_limit={time_limit} s", np.inf)
    runs[team] = solve(tree, teams, decompositions, sides, time_limit=left, threads=threads,
                       solver=solver, highs_options=highs_options, max_rounds=1)
  low, high = runs[0], runs[1]
  lower, upper = low.lower, high.upper
  exact = upper - lower <= IMPROVE_TOL
  return RestrictedLPResult(
      value=lower if exact else 0.5 * (lower + upper), lower=lower, upper=upper, exact=exact,
      rounds=2,
      support=[int(len(np.unique(supports[0]))), int(len(np.unique(supports[1])))],
      local_solutions=[d.num_local for d in decompositions],
      lp_seconds=low.lp_seconds + high.lp_seconds, seconds=time.perf_counter() - start,
      team1_reach=low.team1_reach, team2_reach=high.team2_reach, lam1=low.lam1, lam2=high.lam2)


def _support_masks(tree: GameTree, teams: teams_lib.Teams, dec1: TeamDecomposition,
                   dec2: TeamDecomposition, supports: Sequence[np.ndarray]):
  """Both teams' starting supports as boolean masks over their local solutions.

  Raises:
    errors.UserError: a decomposition of another tree or team, or a support index out of
      range.
  """
  for dec, members in ((dec1, teams.teams[0]), (dec2, teams.teams[1])):
    if dec.tree is not tree or dec.members != tuple(members):
      raise errors.UserError(
          f"decompositions: {dec.members} of another tree or team than {teams}")
  masks = []
  for dec, sup, team in ((dec1, supports[0], 1), (dec2, supports[1], 2)):
    n = dec.num_local
    mask = np.zeros(n, dtype=bool)
    sup = np.asarray(sup, dtype=np.int64)
    if len(sup) and (sup.min() < 0 or sup.max() >= n):
      raise errors.UserError(f"supports[{team - 1}] has indices outside 0..{n - 1}")
    mask[sup] = True
    masks.append(mask)
  return masks[0], masks[1]


class _RestrictedLP:
  """The restricted LP of `solve`, round after round.

  It is built from scratch, or grown by the new columns and rows and warm-started from HiGHS's last
  basis (`_Grower`).
  """

  def __init__(self, tree, teams, dec1, dec2, *, threads, solver, highs_options, warm_start):
    self.tree, self.teams, self.dec1, self.dec2 = tree, teams, dec1, dec2
    self.threads, self.solver, self.highs_options = threads, solver, highs_options
    self.warm_start = warm_start
    self.h = None
    self.seconds = 0.0  # HiGHS's seconds, all rounds

  def run(self, in1: np.ndarray, in2: np.ndarray, left: float | None,
          time_limit: float | None):
    """Solves the LP restricted to `in1`/`in2`; returns (lam1, mu, value) in full indices."""
    t0 = time.perf_counter()
    if self.h is None:  # the first restricted LP, from scratch
      self._build(in1, in2, left)
    else:  # the new columns and rows added to the last LP, HiGHS warm-started from its basis
      if left is not None:
        highs.set_option(self.h, "time_limit", left)
      self.lam_ids, self.lam_cols, self.dual_ids = self.grow.add(
          self.h, self.lam_ids, self.lam_cols, self.dual_ids, in1, in2)
      highs.run(self.h)
    self.seconds += time.perf_counter() - t0
    h = self.h
    highs.check_status(h, f"the restricted team LP of {self.tree.game}", time_limit)
    sol = h.getSolution()
    z = np.asarray(sol.col_value)
    row_dual = np.asarray(sol.row_dual)
    lam1 = np.zeros(self.dec1.num_local)
    lam1[self.lam_ids] = np.maximum(z[self.lam_cols], 0.0)
    mu = np.zeros(self.dec2.num_local)
    first = self.first_dual
    mu[self.dual_ids] = np.abs(row_dual[first:first + len(self.dual_ids)])
    return lam1, mu, float(h.getInfo().objective_function_value)

  def _build(self, in1: np.ndarray, in2: np.ndarray, left: float | None) -> None:
    self.lam_ids = np.nonzero(in1)[0]  # team 1's local solution of each lam column, in order
    self.dual_ids = np.nonzero(in2)[0]  # team 2's local solution of each dual row, in order
    model = team_lp.build_model(self.tree, self.teams, self.dec1, self.dec2, support1=self.lam_ids,
                                support2=self.dual_ids)
    self.m_mat = model.m_mat
    self.lam_cols = np.arange(len(self.lam_ids))
    base = model.a_mat.shape[1] - len(self.lam_ids)  # x1, u, v columns after the lams
    self.first_dual = model.a_mat.shape[0] - len(self.dual_ids)
    self.h = highs.solve(model.cost, model.a_mat, model.row_lo, model.row_hi, model.col_lo,
                         model.col_hi, True, time_limit=left, threads=self.threads,
                         solver=team_lp.choose_solver(self.solver, int(model.a_mat.nnz)),
                         options=self.highs_options)
    if self.warm_start:
      self.grow = _Grower(self.dec1, self.dec2, len(self.lam_ids), base)
      if self.solver == "auto":  # later rounds: the dual simplex from the last basis
        highs.set_option(self.h, "solver", "simplex")

  def next_round(self) -> None:
    """Before the next round: keep the LP to grow it, or drop it to rebuild from scratch."""
    if not self.warm_start or self.h.getNumNz() > WARM_MAX_NONZEROS:
      self.h = None
