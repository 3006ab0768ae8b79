r"""Team-correlated equilibria by tree decomposition: one LP solved with HiGHS.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022, arXiv:2109.05284 (Sec. 3, after Theorem 3.20; Theorem 3.21). Each
team's strategy polytope is described by its tree decomposition (`decomposition.py`: team tree,
team-public states, reachable local solutions lambda_S(R, A), constraints D lam = d and leaf
plans x = F lam). The LP is max_x min_y x^T M y over both teams' polytopes, the inner
minimisation dualised (Luce & Raiffa 1957), so that

    max   e2 . v + M[:, const2] . x1
    s.t.  D1 lam1 = d1,  x1 = F1 lam1,  u = M^T x1,  E2^T v <= G2^T u,  lam1 >= 0,

where M[c1, c2] sums chance x team-1 utility over terminals with leaf sequences (c1, c2).
Team 2's correlated plan is the dual solution of the `<=` rows (mu = its lambdas).

Public API: `solve(game, teams)` -> `TeamLPResult` (value, both teams' plans, sizes, seconds).
Other solvers of the same problem: `column_generation.py`, `belief_dag.py`; one entry point:
`solver.solve(game, teams, method="auto")`. Command line (one CLI for every method):

  ospiel-team-solve --game "kuhn_poker(players=3)" --teams "0,1|2" --json
  ospiel-team-solve --instance 21D3 --method auto --time_limit 600 --json
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
import pyspiel
from scipy import sparse

from ospiel_team.lp import highs
from ospiel_team.lp.decomposition import DEFAULT_MAX_LOCAL
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.lp.plan import TeamPlan
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree

# `solver="auto"` (the default of `solver.solve` and the CLI): HiGHS's dual simplex for LPs with
# at most this many constraint-matrix nonzeros, its interior point method (IPX, with crossover)
# above. Measured HiGHS CPU seconds, simplex / ipm: 21K3 (1,136 nonzeros) 0.003 / 0.007, 21K4
# (7,524) 0.028 / 0.034, 21GL (11,196) 0.020 / 0.028, 21G (15,960) 0.029 / 0.036; above it
# neither wins everywhere (31G, 111,798: 0.23 / 0.30; 21L223, 57,952: 1.17 / 0.77), so the IPM
# stays.
AUTO_SIMPLEX_MAX_NONZEROS = 20_000


def choose_solver(solver: str, nonzeros: int) -> str:
  """HiGHS's `solver` option for an LP with `nonzeros` nonzeros ("auto": by size, see above).

  Args:
    solver: HiGHS's `solver` option, or "auto".
    nonzeros: the LP's nonzeros (`lp_nonzeros`).

  Returns:
    `solver` unless "auto"; then "simplex" up to `AUTO_SIMPLEX_MAX_NONZEROS` nonzeros, else "ipm".
  """
  if solver != "auto":
    return solver
  return "simplex" if nonzeros <= AUTO_SIMPLEX_MAX_NONZEROS else "ipm"


# ------------------------------------------------------------------------------------------------
# The LP.
@dataclasses.dataclass(frozen=True)
class TeamLPResult:
  """Solution of the team LP: value, both teams' correlated plans, sizes and timings."""
  game: str
  teams: teams_lib.Teams
  terminals: int
  value: float  # team 1's (max) value = team 1's utility under the equilibrium
  plans: list[TeamPlan]
  sequences: list[int]  # #team sequences (Table 1's #Seq)
  local_solutions: list[int]  # LP columns per team (lambdas)
  lp_rows: int
  lp_cols: int
  lp_nonzeros: int  # Table 1's "LP size"
  build_seconds: float
  solve_seconds: float
  status: str
  solve_cpu_seconds: float = 0.0  # process CPU seconds of HiGHS (all its threads)
  solver: str = ""  # the HiGHS solver used (after "auto")

  @property
  def seconds(self) -> float:
    """Seconds spent in all: building the LP plus solving it."""
    return self.build_seconds + self.solve_seconds

  def value_per_member(self) -> list[float]:
    """The game value per member of each team (a team's value split evenly).

    Returns:
      [value of team 1 / its size, value of team 2 / its size].
    """
    v = [self.value, -self.value]
    return [v[i] / len(t) for i, t in enumerate(self.teams.teams)]

  def summary(self) -> dict:
    """The result's fields as a JSON-ready dict (the ones `ospiel-team-solve` prints).

    Returns:
      A dict of the game, teams, values, LP sizes, timings, status and solver.
    """
    return dict(game=self.game, teams=str(self.teams), terminals=self.terminals,
                value=self.value,
                value_team2=-self.value, value_per_member=self.value_per_member(),
                sequences=self.sequences, local_solutions=self.local_solutions,
                lp_rows=self.lp_rows, lp_cols=self.lp_cols, lp_nonzeros=self.lp_nonzeros,
                build_seconds=round(self.build_seconds, 4),
                solve_seconds=round(self.solve_seconds, 4),
                seconds=round(self.seconds, 4), status=self.status, solver=self.solver)

  def profile_policy(self, rng=None) -> np.ndarray:
    """A pure profile: each team's sampled joint pure strategy (a policy array).

    Args:
      rng: a numpy Generator or seed for the sampling (`TeamPlan.sample_policy_array`).

    Returns:
      [num_infosets, num_actions] a pure policy array (uniform at infosets no plan reaches).
    """
    tree = self.plans[0].decomposition.tree
    pi = tree.uniform_policy_array()
    for plan in self.plans:
      pi = plan.sample_policy_array(base=pi, rng=rng)
    return pi


def _payoff(tree: GameTree, dec1: TeamDecomposition, dec2: TeamDecomposition,
            util1: np.ndarray) -> sparse.csr_matrix:
  """M[c1, c2] = sum over terminals z with leaves (c1, c2) of chance(z) * u1(z)."""
  w = tree.chance_reach()[tree.terminals] * util1
  return sparse.csr_matrix((w, (dec1.terminal_leaf, dec2.terminal_leaf)),
                           shape=(dec1.num_leaves, dec2.num_leaves))


def lp_nonzeros(tree: GameTree, teams: teams_lib.Teams, dec1: TeamDecomposition,
                dec2: TeamDecomposition, *, stop_above: int | None = None) -> int:
  """The number of nonzeros of `solve`'s LP constraint matrix, counted without building it.

  The constraint matrix's nonzeros of `solve`'s LP from the two decompositions, without
  assembling it (counted before zero payoffs are dropped: >= `TeamLPResult.lp_nonzeros`).
  `solver.solve`'s `auto` rule chooses between the LP and the belief DAG by it.

  With `stop_above`, a lower bound read off the decompositions' sizes (one entry per local
  solution in D1 and E2, and the leaf maps F1 and G2) is returned as soon as it exceeds it,
  without the payoff matrix or the constraint systems.

  Args:
    tree: the game tree.
    teams: its two teams.
    dec1: team 1's decomposition.
    dec2: team 2's.
    stop_above: return a lower bound as soon as it exceeds this (None: the exact count).

  Returns:
    The number of nonzeros (or a lower bound above `stop_above`).
  """
  lower = dec1.num_local + dec2.num_local + dec1.leaf_matrix.nnz + dec2.leaf_matrix.nnz
  if stop_above is not None and lower > stop_above:
    return int(lower)
  util1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  m_mat = _payoff(tree, dec1, dec2, util1)
  d1, _ = dec1.constraint_system()
  e2, _ = dec2.constraint_system()
  f1, g2 = dec1.leaf_matrix, dec2.leaf_matrix
  nnz = d1.nnz + e2.nnz
  f_nnz = f1.nnz - (f1[0].nnz if dec1.const_leaf else 0)
  nnz += f_nnz + dec1.num_leaves - int(dec1.const_leaf)
  m_nnz = m_mat.nnz - (m_mat[:, 0].nnz if dec2.const_leaf else 0)
  nnz += m_nnz + dec2.num_leaves - int(dec2.const_leaf)
  nnz += g2.nnz - (g2[0].nnz if dec2.const_leaf else 0)
  return int(nnz)


@dataclasses.dataclass(frozen=True)
class LPModel:
  """`solve`'s LP as arrays: max cost . z s.t. row_lo <= A z <= row_hi, col_lo <= z <= col_hi.

  Columns [lam1 (team 1's local solutions) | x1 | u | v]; the last `dec2.num_local` rows are
  team 2's dual rows (one per team-2 local solution; their duals are team 2's lambdas).
  """
  cost: np.ndarray
  a_mat: sparse.csr_matrix
  row_lo: np.ndarray
  row_hi: np.ndarray
  col_lo: np.ndarray
  col_hi: np.ndarray
  num_local1: int
  num_local2: int
  m_mat: sparse.csr_matrix  # the payoff matrix M (leaves of team 1 x leaves of team 2)


def build_model(tree: GameTree, teams: teams_lib.Teams, dec1: TeamDecomposition,
                dec2: TeamDecomposition, *, support1: np.ndarray | None = None,
                support2: np.ndarray | None = None) -> LPModel:
  """Assembles `solve`'s LP (module docstring) from both teams' decompositions.

  Args:
    tree: the game tree.
    teams: its two teams.
    dec1: team 1's decomposition of `tree`.
    dec2: team 2's decomposition of `tree`.
    support1: team 1's local solutions kept as columns (sorted indices; None: all); the
      others are fixed to 0 (the LP over a face of team 1's polytope, `restricted.py`).
    support2: team 2's local solutions kept as dual rows (None: all).

  Returns:
    The `LPModel` (HiGHS's column-wise LP and the slices that read the plans back).
  """
  util1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  m_mat = _payoff(tree, dec1, dec2, util1)
  d1, rhs1 = dec1.constraint_system()
  e2, rhs2 = dec2.constraint_system()
  f1 = dec1.leaf_matrix
  g2 = dec2.leaf_matrix
  if support1 is not None:
    d1 = d1.tocsc()[:, support1]
    f1 = f1.tocsc()[:, support1]
  e2_t = e2.T.tocsr()
  g2_t = g2.T.tocsr()
  if support2 is not None:
    e2_t = e2_t[support2]
    g2_t = g2_t[support2]
  # Columns: [lam1 (n1) | x1 (L1) | u (L2) | v (r2)].
  n1, l1, l2, r2 = d1.shape[1], dec1.num_leaves, dec2.num_leaves, e2.shape[0]
  k2 = e2_t.shape[0]  # team 2's dual rows
  c2_const = 0 if dec2.const_leaf else None
  eye_l1 = sparse.identity(l1, format="csr")
  eye_l2 = sparse.identity(l2, format="csr")
  zero = lambda r, c: sparse.csr_matrix((r, c))  # noqa: E731
  # Leaf rows of team 1 (the constant leaf, if any, is fixed by its bounds instead).
  f_rows = sparse.hstack([-f1, eye_l1, zero(l1, l2), zero(l1, r2)])
  keep1 = np.arange(l1)[1:] if dec1.const_leaf else np.arange(l1)
  f_rows = f_rows.tocsr()[keep1]
  # u = M^T x1 for the non-constant leaves of team 2.
  keep2 = np.arange(l2)[1:] if dec2.const_leaf else np.arange(l2)
  u_rows = sparse.hstack([zero(l2, n1), -m_mat.T, eye_l2, zero(l2, r2)]).tocsr()[keep2]
  # E2^T v - G2^T u <= 0 (one row per team-2 local solution); constant leaf's u column unused.
  if dec2.const_leaf:
    g2_t = g2_t.tocsc()
    g2_t.data[g2_t.indptr[0]:g2_t.indptr[1]] = 0.0  # column 0 (eliminated below)
    g2_t = g2_t.tocsr()
  dual_rows = sparse.hstack([zero(k2, n1 + l1), -g2_t, e2_t]).tocsr()
  d_rows = sparse.hstack([d1, zero(d1.shape[0], l1 + l2 + r2)]).tocsr()
  a_mat = sparse.vstack([d_rows, f_rows, u_rows, dual_rows]).tocsr()
  a_mat.eliminate_zeros()
  n_cols = n1 + l1 + l2 + r2
  cost = np.zeros(n_cols)
  cost[n1 + l1 + l2:] = rhs2  # e2 . v
  if c2_const is not None:
    cost[n1:n1 + l1] += m_mat[:, 0].toarray().reshape(-1)  # M[:, const2] . x1
  col_lo = np.concatenate([np.zeros(n1), np.full(l1, -np.inf), np.full(l2 + r2, -np.inf)])
  col_hi = np.full(n_cols, np.inf)
  if dec1.const_leaf:
    col_lo[n1] = col_hi[n1] = 1.0
  if dec2.const_leaf:
    col_lo[n1 + l1] = col_hi[n1 + l1] = 0.0  # unused
  row_lo = np.concatenate([rhs1, np.zeros(len(keep1) + len(keep2)), np.full(k2, -np.inf)])
  row_hi = np.concatenate([rhs1, np.zeros(len(keep1) + len(keep2)), np.zeros(k2)])
  return LPModel(cost=cost, a_mat=a_mat, row_lo=row_lo, row_hi=row_hi, col_lo=col_lo,
                 col_hi=col_hi, num_local1=n1, num_local2=k2, m_mat=m_mat)


def solve(game: pyspiel.Game | str | GameTree, teams: str | teams_lib.Teams = None,
          *, time_limit: float | None = None, threads: int | None = None,
          solver: str = "ipm", max_local: int = DEFAULT_MAX_LOCAL,
          highs_options: dict | None = None,
          decompositions: Sequence[TeamDecomposition] | None = None) -> TeamLPResult:
  """Solves the zero-sum team game exactly for its team-correlated equilibrium (Thm. 3.21).

  Args:
    game: pyspiel game, game string or `GameTree`.
    teams: two teams, e.g. "0,1|2" (default: `teams.default_teams`).
    time_limit: HiGHS seconds (None: no limit); TimeoutError when reached.
    threads: HiGHS threads.
    solver: HiGHS's `solver` option ("ipm", "simplex", "choose", ...) or "auto" (simplex up to
      `AUTO_SIMPLEX_MAX_NONZEROS` nonzeros, else ipm; the default of `solver.solve` and the
      CLI). The value is the LP optimum either way; the plans are optimal but may differ (the
      IPM's crossover and the simplex can end at different optimal vertices; e.g. on 3-player
      Kuhn the simplex's team plan shows no correlation between the teammates, the IPM's does,
      which colabs/team_lp.ipynb shows), so the default here stays "ipm".
    max_local: SizeLimitError past this many local solutions of a team.
    highs_options: further HiGHS options, each checked by HiGHS.
    decompositions: both teams' `TeamDecomposition`s of this tree, when already built (e.g. by
      `solver.solve`'s `auto` rule); None: built here.

  Returns:
    A `TeamLPResult`: the value for team 1 and both teams' optimal plans, with the LP's sizes and
      timings.
  """
  start = time.perf_counter()
  tree, teams = teams_lib.check_assumptions(game, teams)
  if teams.num_teams != 2:
    raise ValueError(f"solve needs two teams; for one team use algorithms.coop.optimum "
                     f"(got {teams})")
  if decompositions is None:
    dec1 = TeamDecomposition(tree, teams.teams[0], max_local)
    dec2 = TeamDecomposition(tree, teams.teams[1], max_local)
  else:
    dec1, dec2 = decompositions
    for dec, members in ((dec1, teams.teams[0]), (dec2, teams.teams[1])):
      if dec.tree is not tree or dec.members != tuple(members):
        raise ValueError(f"decompositions: {dec.members} of another tree or team than {teams}")
  model = build_model(tree, teams, dec1, dec2)
  a_mat, n1 = model.a_mat, dec1.num_local
  build = time.perf_counter() - start
  t0 = time.perf_counter()
  c0 = time.process_time()
  solver = choose_solver(solver, int(a_mat.nnz))
  h = highs.solve(model.cost, a_mat, model.row_lo, model.row_hi, model.col_lo, model.col_hi,
                  True, time_limit=time_limit, threads=threads, solver=solver,
                  options=highs_options)
  solve_seconds = time.perf_counter() - t0
  solve_cpu = time.process_time() - c0
  highs.check_status(h, f"the team LP of {tree.game}", time_limit)
  sol = h.getSolution()
  x = np.asarray(sol.col_value)
  duals = np.asarray(sol.row_dual)
  value = float(h.getInfo().objective_function_value)
  lam1 = np.maximum(x[:n1], 0.0)
  mu = np.abs(duals[-dec2.num_local:])
  plan1 = TeamPlan(dec1, lam1)
  plan2 = TeamPlan(dec2, mu)
  return TeamLPResult(
      game=str(tree.game), teams=teams, terminals=len(tree.terminals), value=value,
      plans=[plan1, plan2],
      sequences=[dec1.num_sequences, dec2.num_sequences],
      local_solutions=[dec1.num_local, dec2.num_local], lp_rows=a_mat.shape[0],
      lp_cols=a_mat.shape[1], lp_nonzeros=int(a_mat.nnz), build_seconds=build,
      solve_seconds=solve_seconds, status="Optimal", solve_cpu_seconds=solve_cpu, solver=solver)
