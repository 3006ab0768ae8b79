r"""Team-correlated equilibria by column generation over joint pure plans, with exact oracles.

Farina, Celli, Gatti & Sandholm, "Connecting Optimal Ex-Ante Collusion in Teams to
Extensive-Form Correlation: Faster Algorithms and Positive Complexity Results", ICML 2021
(FCGS-21; Sec. 5: the team's strategy as a distribution over joint pure plans, grown by a
best-response oracle), extended to two teams by double oracle (McMahan, Gordon & Blum, ICML 2003)
as Zhang & Sandholm (AAAI 2022, Sec. 1) suggest.

Team 1 mixes over a growing set of joint pure plans r1_1..r1_k (terminal reach vectors, 0/1).
Team 2 is represented either exactly, by its sequence form, when it has one player (the master
LP then lets it best respond over all its strategies: *single oracle*), or by a growing set of
joint pure plans too (*double oracle*). With R2 the team-2 terminal matrix (a sequence-form
column per sequence, or a pure plan per column) and Y = {y >= 0 : F y = f} its strategies, the
restricted master LP is

    max_{p in simplex, v}  B0 . p + f . v   s.t.  F^T v <= B p,   B = R2^T diag(c u1) R1,

(the dual of team 2's minimisation; c = chance reach, u1 = team 1's utility, B0 the row of
team 2's empty sequence). Its duals give team 2's y. Each iteration computes two **exact team
best responses** (`best_response.TeamOracle`: backward induction for one player, the flow
MIP for several):

* upper bound U = team 1's best response value against y (y is a real team-2 strategy);
* lower bound L = -(team 2's best response value against team 1's mixture x = R1 p)
  (with single oracle L is the master value itself).

Both responses are added as columns; the method stops when U - L <= tol (an exact
team-correlated equilibrium value within tol, certified by the two exact best responses) or at
the time limit, returning the bracket [L, U] (anytime). The value is returned as the midpoint
only when the gap is closed; otherwise `value` is L (what team 1's plan guarantees).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pyspiel
from scipy import sparse

from ospiel_team import errors
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team.result import AnytimeResult
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.lp import highs
from ospiel_team.lp import plan_mip
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree

ORACLES = ("mip", "dag")
# oracle="dag": the most belief-DAG edges (local solutions) a team's oracle may build (21K8's
# team 1 has 1,710,448; 21K12's is far larger).
DAG_ORACLE_MAX_LOCAL = 5_000_000


@dataclasses.dataclass(frozen=True, kw_only=True)
class ColumnGenerationResult(AnytimeResult):
  """Result of `solve`: certified bracket [lower, upper] on team 1's value, and the plans.

  `value` is (lower + upper) / 2 when converged, else `lower`; `lower` is what team 1's plan
  guarantees against every team-2 strategy (exact best response), `upper` what team 2's plan
  holds team 1 to (exact team-1 best response).
  """
  teams: teams_lib.Teams
  terminals: int
  converged: bool  # gap <= tol
  iterations: int
  columns: list[int]  # pure plans of each team in the master (team 2: 0 with sequence form)
  team1_weights: np.ndarray  # mixture over team 1's first len(team1_weights) plans
  team1_reach: np.ndarray  # [num_terminals] team 1's correlated reach x = R1 p: certifies lower
  team2_reach: np.ndarray  # [num_terminals] team 2's terminal reach: certifies upper
  oracle_seconds: float
  master_seconds: float
  build_seconds: float
  # Why the method stopped before its gap closed or its time ran out ("" otherwise), e.g. an
  # oracle MIP stopped by the time limit before finding any strategy: the bracket is kept.
  stopped: str = ""

  def summary(self) -> dict:
    """The result's fields as a JSON-ready dict (the ones `ospiel-team-solve` prints)."""
    return dict(game=self.game, teams=str(self.teams), terminals=self.terminals,
                value=self.value, lower=self.lower, upper=self.upper, gap=self.gap,
                converged=self.converged, iterations=self.iterations, columns=self.columns,
                stopped=self.stopped,
                seconds=round(self.seconds, 4), oracle_seconds=round(self.oracle_seconds, 4),
                master_seconds=round(self.master_seconds, 4),
                build_seconds=round(self.build_seconds, 4))


def _sequence_form(tree: GameTree, player: int):
  """(R2 [num_terminals x num_seq] 0/1, const [num_terminals] 0/1, F [rows x num_seq], f)."""
  team_inf, inf_rep, act, col_of_seq, rows, cols, vals, lo, _ = (
      plan_mip.sequence_form_rows(tree, [player]))
  n_seq = len(inf_rep)
  f_mat = sparse.csr_matrix((vals, (rows, cols)), shape=(len(team_inf), n_seq))
  last = tree.sequences[player].terminal_last_seq
  has = last >= 0
  z = np.nonzero(has)[0]
  r2 = sparse.csr_matrix((np.ones(len(z)), (z, col_of_seq[last[has]])),
                         shape=(len(last), n_seq))
  return r2, (~has).astype(np.float64), f_mat, np.asarray(lo, dtype=np.float64)


def solve(game: pyspiel.Game | str | GameTree, teams: str | teams_lib.Teams = None,
          *, tol: float = 1e-6, time_limit: float | None = None, max_iterations: int = 100_000,
          threads: int | None = None, extra_columns: bool = False,
          hybrid: bool = False,
          warm_start: bool = False, oracle: str = "mip",
          max_local: int = DAG_ORACLE_MAX_LOCAL) -> ColumnGenerationResult:
  """Team 1's team-correlated equilibrium value by column generation (single/double oracle).

  Args:
    game: a pyspiel game, game string or `GameTree`.
    teams: two teams, e.g. "0,1|2" (default: `teams.default_teams`).
    tol: stop when the certified gap upper - lower <= tol (absolute, team 1's units).
    time_limit: wall-clock seconds for the whole method (None: none; negative: error); on
      expiry the current certified bracket is returned (`converged=False`).
    max_iterations: cap on iterations (ValueError if < 1).
    threads: HiGHS threads.
    extra_columns: also add the improving (not optimal) joint pure strategies each MIP oracle
      found on its way (HiGHS's saved solutions) when they improve on the master: fewer
      iterations for the same exact bounds.
    hybrid: the oracles' MIPs keep the sequence variables of one member per team continuous
      (`best_response.TeamOracle(hybrid=True)`, the hybrid form of Zhang, An & Cerny,
      AAAI 2021, arXiv:2009.12629): same exact best responses, fewer binaries.
    warm_start: each oracle MIP starts from the previous call's solution
      (`TeamOracle(warm_start=True)`).
    oracle: "mip" (`best_response.TeamOracle`: backward induction for one player, the flow
      MIP for several) or "dag" (for a team of several players, the best response of its team
      belief DAG, `DagOracle`; one player keeps backward induction).
    max_local: with oracle="dag", SizeLimitError past this many DAG edges (local solutions) of
      a team.

  Returns:
    A `ColumnGenerationResult`; `lower` and `upper` are certified by exact team best responses.
  """
  start = time.perf_counter()
  time_limit = highs.check_time_limit(time_limit)
  if tol < 0:
    raise errors.UserError(f"tol={tol!r} must be >= 0")
  if max_iterations < 1:
    raise errors.UserError(f"max_iterations={max_iterations!r} must be >= 1")
  if oracle not in ORACLES:
    raise errors.UserError(f"oracle={oracle!r}: use one of {ORACLES}")
  tree, teams = teams_lib.check_assumptions(game, teams)
  if teams.num_teams != 2:
    raise errors.UserError(f"column generation needs two teams (got {teams})")
  cg = _ColumnGeneration(tree, teams, start, time_limit, threads=threads,
                         extra_columns=extra_columns, hybrid=hybrid, warm_start=warm_start,
                         oracle=oracle, max_local=max_local)
  cg.first_columns()
  converged = False
  while not cg.stopped:
    cg.iterations += 1
    master, p, x_reach, y_reach = cg.master()
    br1, br2 = cg.best_responses(master, p, x_reach, y_reach)
    elapsed = time.perf_counter() - start
    cg.history.append(dict(iteration=cg.iterations, master=master, lower=cg.lower,
                           upper=cg.upper, seconds=round(elapsed, 3)))
    converged = cg.upper - cg.lower <= tol
    if (converged or cg.stopped or cg.iterations >= max_iterations or
        (time_limit is not None and elapsed >= time_limit)):
      break
    if cg.add_columns(master, br1, br2):
      continue
    # The master is exact on the restricted sets and no column improves it.
    cg.upper = min(cg.upper, master)
    cg.lower = max(cg.lower, master) if cg.single else cg.lower
    if cg.upper - cg.lower <= tol:
      break
    if br1.bound - br1.value > 1e-9 or (not cg.single and br2.bound - br2.value > 1e-9):
      break  # an oracle was stopped by the time limit: return the certified bracket
    raise RuntimeError(f"column generation stalled with gap {cg.upper - cg.lower:.3e}")
  return cg.result(tol, time.perf_counter() - start)


class _ColumnGeneration:
  """The state of one `solve`.

  Both teams' columns, the certified bracket and the plans that certify it, the oracles, and the
  seconds spent in each part.
  """

  def __init__(self, tree: GameTree, teams: teams_lib.Teams, start: float,
               time_limit: float | None, *, threads, extra_columns, hybrid, warm_start,
               oracle="mip", max_local=DAG_ORACLE_MAX_LOCAL):
    self.tree, self.teams, self.start, self.time_limit = tree, teams, start, time_limit
    self.threads = threads
    chance = tree.chance_reach()[tree.terminals]
    self.cu1 = chance * teams_lib.team_terminal_utilities(tree, teams)[:, 0]
    self.oracles = [
        DagOracle(tree, t, max_local) if oracle == "dag" and len(t) > 1 else
        team_best_response.TeamOracle(tree, t, threads=threads, keep_others=extra_columns,
                                      hybrid=hybrid, warm_start=warm_start)
        for t in teams.teams]
    self.single = len(teams.teams[1]) == 1
    if self.single:
      self.r2, self.const2, self.f_mat, self.f_rhs = _sequence_form(tree, teams.teams[1][0])
    else:
      self.const2 = np.zeros(len(tree.terminals))
    self.build_seconds = time.perf_counter() - start
    self.oracle_seconds = self.master_seconds = 0.0
    self.cols1: list[np.ndarray] = []
    self.cols2: list[np.ndarray] = []
    self.lower, self.upper = -np.inf, np.inf
    self.best_p = self.best_x_reach = self.best_y_reach = None
    self.history: list[dict] = []
    self.iterations = 0
    self.stopped = ""  # why the method stopped early ("" when it did not)
    self.brs: dict = {}

  def left(self) -> float | None:
    return _left(self.start, self.time_limit)

  def first_columns(self) -> None:
    """The first columns: a best response to uniform play and one to it.

    Team 1's best response to team 2 playing uniformly, and team 2's best response to that
    (double oracle).
    """
    t0 = time.perf_counter()
    p = np.ones(1)
    y_uniform = _uniform_reach(self.tree, self.teams.teams[1])
    try:
      br1 = self.oracles[0].best_response(self.cu1 * y_uniform, time_limit=self.left())
      self.cols1.append(br1.reach)
      self.upper, self.best_y_reach = br1.bound, y_uniform  # team 2's uniform plan: upper
      if not self.single:
        self.lower = -_oracle2_bound(self.oracles[1], self.cu1, br1.reach, self.brs,
                                     self.start, self.time_limit)
        self.best_p, self.best_x_reach = p, br1.reach
        self.cols2.append(self.brs["br2"].reach)
    except team_best_response.OracleTimeLimit as e:
      # The first oracle call ran out of time without a strategy: the bracket is what is proven.
      if not self.cols1:
        self.upper, self.best_y_reach = e.bound, y_uniform
      else:
        self.lower, self.best_p, self.best_x_reach = -e.bound, p, self.cols1[0]
      self.stopped = str(e)
    self.oracle_seconds += time.perf_counter() - t0

  def master(self):
    """Solves the restricted master LP over team 1's columns.

    The restricted master LP over team 1's columns: (value, team 1's mixture p, its reach,
    team 2's reach from the duals).
    """
    t0 = time.perf_counter()
    r1 = np.stack(self.cols1, axis=1)  # [n_z, k1]
    k1 = r1.shape[1]
    cu1 = self.cu1
    if self.single:
      b = np.asarray(self.r2.T @ (cu1[:, None] * r1))  # [n_seq, k1]
      b0 = (self.const2 * cu1) @ r1
      fm, frhs = self.f_mat, self.f_rhs
    else:
      r2d = np.stack(self.cols2, axis=1)  # [n_z, k2]
      b = r2d.T @ (cu1[:, None] * r1)  # [k2, k1]
      b0 = np.zeros(k1)
      fm = sparse.csr_matrix(np.ones((1, r2d.shape[1])))
      frhs = np.ones(1)
    m_rows, n_y = fm.shape
    # Columns [p (k1) | v (m_rows)]; rows: F^T v - B p <= 0 (n_y rows), sum p = 1.
    a_mat = sparse.vstack([
        sparse.hstack([sparse.csr_matrix(-b), fm.T.tocsr()]),
        sparse.hstack([sparse.csr_matrix(np.ones((1, k1))), sparse.csr_matrix((1, m_rows))]),
    ]).tocsr()
    cost = np.concatenate([b0, frhs])
    row_lo = np.concatenate([np.full(n_y, -np.inf), [1.0]])
    row_hi = np.concatenate([np.zeros(n_y), [1.0]])
    col_lo = np.concatenate([np.zeros(k1), np.full(m_rows, -np.inf)])
    col_hi = np.full(k1 + m_rows, np.inf)
    h = highs.solve(cost, a_mat, row_lo, row_hi, col_lo, col_hi, True, threads=self.threads,
                    solver="simplex")
    highs.check_status(h, "the restricted master LP", None)
    sol = h.getSolution()
    master = float(h.getInfo().objective_function_value)
    p = np.maximum(np.asarray(sol.col_value)[:k1], 0.0)
    p /= p.sum()
    y = np.abs(np.asarray(sol.row_dual)[:n_y])
    if self.single:
      y_reach = np.asarray(self.r2 @ y).reshape(-1) + self.const2
    else:
      y = y / y.sum()
      y_reach = r2d @ y
    self.master_seconds += time.perf_counter() - t0
    return master, p, r1 @ p, y_reach

  def best_responses(self, master: float, p, x_reach, y_reach):
    """Exact best responses to the master's plans; tightens the certified bracket."""
    t0 = time.perf_counter()
    if self.single and master > self.lower:  # what team 1's mixture guarantees
      self.lower, self.best_p, self.best_x_reach = master, p, x_reach
    try:
      br1 = self.oracles[0].best_response(self.cu1 * y_reach, time_limit=self.left())
      bound1 = br1.bound
    except team_best_response.OracleTimeLimit as e:
      br1, bound1, self.stopped = None, e.bound, str(e)
    if bound1 < self.upper:  # keep the team-2 plan that certifies the best upper bound
      self.upper, self.best_y_reach = bound1, y_reach
    if not self.single and not self.stopped:
      try:
        new_lower = -_oracle2_bound(self.oracles[1], self.cu1, x_reach, self.brs, self.start,
                                    self.time_limit)
      except team_best_response.OracleTimeLimit as e:
        new_lower, self.stopped = -e.bound, str(e)
      if new_lower > self.lower:  # and the team-1 mixture that certifies the best lower bound
        self.lower, self.best_p, self.best_x_reach = new_lower, p, x_reach
    self.oracle_seconds += time.perf_counter() - t0
    return br1, self.brs.get("br2")

  def add_columns(self, master: float, br1, br2) -> bool:
    """Adds the improving best responses (and the oracles' other improving plans)."""
    added = False
    if br1.value > master + 1e-12:
      self.cols1.append(br1.reach)
      self.cols1.extend(r for v, r in br1.others if v > master + 1e-12)
      added = True
    if not self.single and -br2.value < master - 1e-12:
      self.cols2.append(br2.reach)
      self.cols2.extend(r for v, r in br2.others if -v < master - 1e-12)
      added = True
    return added

  def result(self, tol: float, seconds: float) -> ColumnGenerationResult:
    lower, upper = self.lower, self.upper
    converged = upper - lower <= tol
    value = (lower + upper) / 2 if converged else lower
    return ColumnGenerationResult(
        game=str(self.tree.game), teams=self.teams, terminals=len(self.tree.terminals),
        value=float(value), lower=float(lower), upper=float(upper),
        converged=bool(converged), iterations=self.iterations,
        columns=[len(self.cols1), len(self.cols2)], team1_weights=self.best_p,
        team1_reach=self.best_x_reach, team2_reach=self.best_y_reach, seconds=seconds,
        oracle_seconds=self.oracle_seconds, master_seconds=self.master_seconds,
        build_seconds=self.build_seconds, history=tuple(self.history), stopped=self.stopped)


class DagOracle:
  """Exact pure team best response by the team belief DAG (`TeamOracle`'s interface).

  Zhang, Farina & Sandholm, "Team Belief DAG", ICML 2023 (arXiv:2202.00789): one bottom-up pass
  over the team's belief DAG (every belief takes its best prescription) gives a best joint pure
  plan, with no MIP. Building the DAG needs the team's tree decomposition (Zhang & Sandholm,
  AAAI 2022), whose local solutions are the DAG's edges: worth it where the decomposition is
  small enough and the flow MIP slow (measured on Kuhn 21K8 by `benchmarks/team_cg_oracle.py`).
  """

  def __init__(self, tree: GameTree, members, max_local: int = DAG_ORACLE_MAX_LOCAL):
    self.members = [int(p) for p in members]
    self.dec = TeamDecomposition(tree, self.members, max_local)
    self.dag = team_belief_dag.BeliefDAG(self.dec)

  def best_response(self, terminal_weights: np.ndarray,
                    time_limit: float | None = None) -> team_best_response.PureBestResponse:
    """The best joint pure plan against `terminal_weights` (exact; no time limit needed)."""
    del time_limit
    start = time.perf_counter()
    dec = self.dec
    grad = np.bincount(dec.terminal_leaf, weights=terminal_weights, minlength=dec.num_leaves)
    value, flow = self.dag.best_response(grad)
    reach = np.rint(dec.terminal_reach(self.dag.to_local(flow)))
    return team_best_response.PureBestResponse(
        value=float(value), bound=float(value), strategy={}, reach=reach,
        seconds=time.perf_counter() - start)


def _left(start: float, time_limit: float | None) -> float | None:
  """Seconds left of `time_limit` (at least 1, so an oracle can always return a strategy)."""
  if time_limit is None:
    return None
  return max(1.0, time_limit - (time.perf_counter() - start))


def _oracle2_bound(oracle2, cu1: np.ndarray, x_reach: np.ndarray, brs: dict,
                   start: float, time_limit: float | None) -> float:
  """Team 2's exact best-response bound against team 1's reach (stores the response)."""
  br2 = oracle2.best_response(-cu1 * x_reach, time_limit=_left(start, time_limit))
  brs["br2"] = br2
  return br2.bound


def _uniform_reach(tree: GameTree, members) -> np.ndarray:
  """[num_terminals] the members' joint reach when each plays uniformly at random."""
  reach = teams_lib.player_reach_plans(tree, tree.uniform_policy_array())
  return np.prod(reach[:, list(members)], axis=1)
