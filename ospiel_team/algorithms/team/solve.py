r"""One entry point for zero-sum team games: `solve(game, teams, method="auto"|"lp"|"cg"|"dag")`.

Methods (all compute team 1's value at a team-correlated equilibrium, TMECor):

* `"lp"`: the tree-decomposition LP of Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum
  Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284, Theorem 3.21
  (`lp.py`). Exact; its size grows with the number of *local solutions* lambda_S(R, A) of the
  teams (the uncommon external information, Theorem 4.1).
* `"cg"`: column generation over joint pure plans with exact best-response oracles (Farina,
  Celli, Gatti & Sandholm, ICML 2021; double oracle when both teams have several players;
  `column_generation.py`). Anytime: returns a bracket [lower, upper] certified by exact team
  best responses; exact within `tol` when it converges.
* `"dag"`: regret minimisation (DCFR) on both teams' team belief DAGs (Zhang, Farina &
  Sandholm, ICML 2023, arXiv:2202.00789; `belief_dag.py`). Anytime: every few iterations the
  average plans are certified by exact team best responses (dynamic programming on the DAG),
  giving a bracket [lower, upper]; stops when the gap is <= `tol`.

`"auto"`: build both teams' decompositions with at most `AUTO_LP_MAX_LOCAL` = 500k local
solutions per team, then

* **the LP** when its constraint matrix has at most `AUTO_LP_MAX_NONZEROS` = 150,000 nonzeros
  (`lp.lp_nonzeros`, counted from the decompositions without assembling the LP),
* above that (with `tol=None`) **the belief DAG, finished by the LP restricted to its support**
  (method `"dag_lp"`, `restricted.py`), on the same decompositions (built once): once the
  DAG's certified gap is <= `RESTRICT_GAP` = 1e-3, the LP over the local solutions its flows
  use is solved and grown by the DAG's exact team best responses until their bracket is
  <= 1e-9 wide (exact). A try gets `RESTRICT_BUDGET_SHARE` = half the DAG's seconds so far
  as its budget (at least `RESTRICT_MIN_SECONDS` = 0.5); after a failed try the DAG runs
  `RESTRICT_RETRY_FACTOR` = 4 times as long before the next; the DAG's own bracket is
  returned if it settles first (failed tries then cost at most about half the DAG's time). With an
  explicit `tol`: the belief DAG alone.

Why these thresholds: below them the LP was faster than the DAG on the Table 1 instances
measured both ways; above them, the DAG to gap 1e-3 then the restricted LP was faster than the
LP alone and than the DAG waiting for its bracket to settle (a value near a rounding boundary
needs about 1/distance DAG iterations). Leduc 22L133 (two players on each side) needs many
restricted LPs: there the DAG settles first. Which route each instance takes, and its time, is
on the documentation's results page (Team-correlated equilibria, Table 1).

If a team has more than 500k local solutions (the LP is not built): column generation when every
team of several players has at most `AUTO_CG_MAX_SEQUENCES` = 5,000 team sequences (a small MIP
oracle: Kuhn 21K8 801, 21K12 1,873, 31K5 2,611 sequences, solved exactly by column generation), else
the belief DAG (Leduc 21L153, 31L133, 22D3, 21L523, Liar's Dice 21D4, 42D2, 51D2: solved by the DAG
to a bracket settling 4 decimals); past `AUTO_DAG_MAX_LOCAL` DAG edges, column generation. Column
generation stays available by name: it is exact where its MIP oracle is fast (Kuhn poker: 21K8,
21K12, 31K5) and slow elsewhere.

Precision (`tol=None`, the default): the answer is an exact optimum (the LP, the restricted LP
certified by best responses, or a bracket of width <= `EXACT_GAP`) or a certified bracket
[lower, upper] that *settles* the value to `digits` = 4 decimals (Table 1's precision): both
ends round to the same 4-decimal number, so the printed value does not depend on where in the
bracket the optimum lies. The belief DAG stops as soon as its bracket settles. A value near a
rounding boundary needs a narrow bracket (22K5's -0.0368421, 21L151's -0.0191515, 21D3's
0.2839506 and 21K6's -0.0236500 lie 8e-6, 1.5e-6, 6e-7 and 4e-8 from one), which the restricted
LP avoids where the decompositions are built.
Column generation closes its gap to `DEFAULT_TOL["cg"]` (exactly, in practice). An explicit
`tol` asks for a gap <= tol instead (looser or tighter). `exact` is true only for an exact
optimum; `details["precision"]` says which of these the answer is.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pyspiel

from ospiel_team.algorithms.team import column_generation
from ospiel_team.algorithms.team import highs
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import best_response as team_best_response
from ospiel_team.algorithms.team import lp as team_lp
from ospiel_team.algorithms.team import restricted as team_restricted
from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.algorithms.team.decomposition import TeamDecomposition
from ospiel_team.algorithms.team.plan import TeamPlan

METHODS = ("auto", "lp", "cg", "dag")
# `certify`: the flow-MIP oracle is used for teams of several players with at most this many
# team sequences (larger ones: the MIP model alone takes minutes to build; skipped, said so).
CERTIFY_MAX_SEQUENCES = 20_000
# Default target gap of the anytime methods (`tol=None`): column generation closes its gap
# exactly in a few iterations or not at all; regret minimisation converges like 1/T.
DEFAULT_TOL = {"cg": 1e-6, "dag": 1e-4}
# A certified bracket at most this wide is an exact optimum (`exact=True`).
EXACT_GAP = 1e-9
# `tol=None`: decimals the answer must settle (Zhang & Sandholm's Table 1 prints 4).
DEFAULT_DIGITS = 4
# `tol=None`, `auto` above `AUTO_LP_MAX_NONZEROS`: the belief DAG runs to this certified gap,
# then the LP restricted to its support (`restricted.py`) finishes exactly, in at most
# `RESTRICT_MAX_ROUNDS` restricted LPs (else the full LP; measured: module docstring).
RESTRICT_GAP = 1e-3
RESTRICT_MAX_ROUNDS = 60
RESTRICT_MIN_SECONDS = 0.5
RESTRICT_BUDGET_SHARE = 0.5
RESTRICT_RETRY_FACTOR = 4.0
AUTO_LP_MAX_LOCAL = 500_000
# `auto` solves the LP when it has at most this many constraint-matrix nonzeros
# (`lp.lp_nonzeros`), else the belief DAG (measured crossover: module docstring).
AUTO_LP_MAX_NONZEROS = 150_000
AUTO_DAG_MAX_LOCAL = team_belief_dag.DEFAULT_MAX_LOCAL
# After the LP is refused: column generation when every team of several players has at most
# this many team sequences (its MIP oracle is then small), else the belief DAG.
AUTO_CG_MAX_SEQUENCES = 5_000


@dataclasses.dataclass
class TeamSolveResult:
  """Team 1's TMECor value (sum of its members' values) and how it was obtained."""
  game: str
  teams: str
  method: str  # the method that produced the value ("lp", "dag_lp", "cg" or "dag")
  value: float
  lower: float  # certified bracket (== value for the LP)
  upper: float
  exact: bool  # LP optimum, or a certified bracket no wider than `EXACT_GAP`
  seconds: float
  details: dict
  # Both teams' correlated plans where the method gives them (the LP, the restricted LP);
  # None for the anytime methods. Not part of `summary`.
  plans: list[TeamPlan] | None = dataclasses.field(default=None, repr=False)

  def summary(self) -> dict:
    return dict(game=self.game, teams=self.teams, method=self.method, value=self.value,
                lower=self.lower, upper=self.upper, gap=self.upper - self.lower,
                exact=self.exact, seconds=round(self.seconds, 4), **self.details)


def solve(game: pyspiel.Game | str | GameTree, teams: str | teams_lib.Teams = None,
          method: str = "auto", time_limit: float | None = None, tol: float | None = None,
          solver: str = "auto", highs_options: dict | None = None,
          threads: int | None = None, certify_time_limit: float = 0.0,
          digits: int = DEFAULT_DIGITS) -> TeamSolveResult:
  """Solves a two-team zero-sum game for team 1's TMECor value.

  Args:
    game: pyspiel game, game string or `GameTree`.
    teams: two teams, e.g. "0,1|2" (default: `teams.default_teams`).
    method: "auto", "lp" (tree-decomposition LP), "cg" (column generation) or "dag" (DCFR on
      the team belief DAGs); "auto" may also answer by "dag_lp" (the DAG, then the LP
      restricted to its support).
    time_limit: seconds (None: no limit; negative: ValueError). The LP is stopped by HiGHS's
      limit (an error if not solved); the anytime methods return their certified bracket.
    tol: the anytime methods' target certified gap; None (default): the precision rule of
      the module docstring (an exact optimum, or a bracket settling `digits` decimals).
    solver: HiGHS `solver` option for the LP ("ipm", "simplex", "choose", ...), or "auto"
      (`lp.choose_solver`: simplex for small LPs, else ipm).
    highs_options: further HiGHS options for the LP (each checked by HiGHS).
    threads: HiGHS threads.
    certify_time_limit: when > 0, the bracket of an anytime method ("cg", "dag") is re-derived
      by `certify` (exact team best responses of `best_response.py`, independent of the
      method), each oracle call limited to this many seconds; added to `details` with its own
      `certify_seconds` (a check of the result: not counted in the result's `seconds`, whose
      bracket the method already certified with its own exact best responses).
    digits: with `tol=None`, the decimals the answer must settle (default 4, Table 1's).

  Returns:
    A `TeamSolveResult`.
  """
  if method not in METHODS:
    raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
  time_limit = highs.check_time_limit(time_limit)
  if tol is not None and not tol >= 0:
    raise ValueError(f"tol={tol!r} must be >= 0")
  if not (isinstance(digits, int) and digits >= 0):
    raise ValueError(f"digits={digits!r} must be an integer >= 0")
  if not certify_time_limit >= 0:
    raise ValueError(f"certify_time_limit={certify_time_limit!r} must be >= 0")
  start = time.perf_counter()
  tree, teams = teams_lib.check_assumptions(game, teams)
  if teams.num_teams != 2:
    raise ValueError(
        f"{tree.game} with teams {teams} is a cooperative game (one team): the team solvers "
        "need two teams; use ospiel-team-coop-optimum (algorithms.coop.optimum)")
  details: dict = {}
  decs = None
  if method == "auto":
    try:
      decs = [TeamDecomposition(tree, t, AUTO_LP_MAX_LOCAL) for t in teams.teams]
    except MemoryError as e:
      details["auto"] = f"LP not built: {e}"
      n_seq = max((TeamDecomposition(tree, t, team_tree_only=True).num_sequences
                   for t in teams.teams if len(t) > 1), default=0)
      if n_seq <= AUTO_CG_MAX_SEQUENCES:
        method = "auto_cg"
        details["auto"] += f"; {n_seq} team sequences <= {AUTO_CG_MAX_SEQUENCES}: cg"
    if decs is not None:
      nnz = team_lp.lp_nonzeros(tree, teams, *decs, stop_above=AUTO_LP_MAX_NONZEROS)
      if nnz <= AUTO_LP_MAX_NONZEROS:
        method = "auto_lp"
        details["auto"] = f"LP nonzeros {nnz} <= {AUTO_LP_MAX_NONZEROS}: lp"
      elif tol is None:
        method = "auto_dag_lp"
        details["auto"] = (f"LP nonzeros >= {nnz} > {AUTO_LP_MAX_NONZEROS}: dag to gap "
                           f"{RESTRICT_GAP:g}, then the LP on its support")
      else:
        details["auto"] = f"LP nonzeros >= {nnz} > {AUTO_LP_MAX_NONZEROS}: dag"

  def time_left():
    return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))

  def precision(gap: float, lower: float, upper: float) -> str:
    if gap <= EXACT_GAP:
      return f"exact (certified gap {gap:.1e} <= {EXACT_GAP:g})"
    if team_belief_dag.settled(lower, upper, digits):
      return f"certified bracket settles {digits} decimals (gap {gap:.1e})"
    if tol is not None and gap <= tol:
      return f"certified gap {gap:.1e} <= tol {tol:g}"
    return f"certified bracket only (gap {gap:.1e}: stopped before the target)"

  def lp_result() -> TeamSolveResult:
    res = team_lp.solve(tree, teams, time_limit=time_left(), threads=threads, solver=solver,
                        highs_options=highs_options, decompositions=decs)
    s = res.summary()
    del s["game"], s["teams"], s["value"], s["seconds"]
    s.update(details)
    s["precision"] = "exact (LP optimum)"
    return TeamSolveResult(game=str(tree.game), teams=str(teams), method="lp",
                           value=res.value, lower=res.value, upper=res.value, exact=True,
                           seconds=time.perf_counter() - start, details=s, plans=res.plans)

  if method in ("auto_lp", "lp"):
    return lp_result()
  if method == "auto_dag_lp":
    tries: list[dict] = []
    found: list[team_restricted.RestrictedLPResult] = []
    next_try = [0.0]  # DAG seconds before which no restricted LP is tried

    def try_restricted(state: dict) -> bool:
      """At gap <= RESTRICT_GAP, the restricted LP with a budget of RESTRICT_BUDGET_SHARE
      times the DAG's seconds so far (at least RESTRICT_MIN_SECONDS); after a failure the DAG
      runs RESTRICT_RETRY_FACTOR times as long as the failed try before the next."""
      if state["upper"] - state["lower"] > RESTRICT_GAP or state["seconds"] < next_try[0]:
        return False
      budget = max(RESTRICT_MIN_SECONDS, RESTRICT_BUDGET_SHARE * state["seconds"])
      left = time_left()
      if left is not None:
        budget = min(budget, left)
      t0 = time.perf_counter()
      try:
        res = team_restricted.solve(
            tree, teams, decs, [team_restricted.support_of(f) for f in state["flows"]()],
            time_limit=budget, threads=threads, solver=solver, highs_options=highs_options,
            max_rounds=RESTRICT_MAX_ROUNDS)
      except TimeoutError:
        res = None
      spent = time.perf_counter() - t0
      tries.append(dict(iteration=state["iteration"], gap=state["upper"] - state["lower"],
                        budget=round(budget, 3), seconds=round(spent, 3),
                        exact=bool(res is not None and res.exact)))
      if res is not None and res.exact:
        found.append(res)
        return True
      next_try[0] = state["seconds"] + RESTRICT_RETRY_FACTOR * spent
      return False

    dag = team_belief_dag.solve(tree, teams, tol=EXACT_GAP, time_limit=time_left(),
                                decompositions=decs, digits=digits, keep_flows=True,
                                on_check=try_restricted)
    details["restricted_tries"] = tries
    if found:
      res = found[0]
      details["auto"] += (f"; DAG bracket [{dag.lower:.7f}, {dag.upper:.7f}] after "
                          f"{dag.iterations} iterations, {dag.seconds:.2f} s")
      details.update(res.summary(), dag_iterations=dag.iterations,
                     dag_seconds=round(dag.seconds, 4), dag_edges=dag.edges)
      details["precision"] = (f"exact (the LP restricted to {res.support} of "
                              f"{res.local_solutions} local solutions; certified gap "
                              f"{res.upper - res.lower:.1e})")
      seconds = time.perf_counter() - start
      if certify_time_limit > 0:
        details.update(certify(tree, teams, res.team1_reach, res.team2_reach,
                               certify_time_limit))
      return TeamSolveResult(game=str(tree.game), teams=str(teams), method="dag_lp",
                             value=res.value, lower=res.lower, upper=res.upper, exact=True,
                             seconds=seconds, details=details,
                             plans=[TeamPlan(decs[0], res.lam1), TeamPlan(decs[1], res.lam2)])
    method = "auto"  # the DAG's bracket settled first (or time ran out)
  elif method in ("auto", "dag"):
    if tol is not None:
      dag_tol, dag_digits = tol, None
    else:  # settle `digits` decimals
      dag_tol, dag_digits = EXACT_GAP, digits
    try:
      dag = team_belief_dag.solve(
          tree, teams, tol=dag_tol, time_limit=time_left(), decompositions=decs,
          digits=dag_digits,
          **({"max_local": AUTO_DAG_MAX_LOCAL} if method == "auto" else {}))
    except MemoryError as e:
      if method == "dag":
        raise
      details["auto"] += f"; belief DAG not built: {e}"
      dag = None
  if method in ("auto", "dag") and dag is not None:
    s = dag.summary()
    for k in ("game", "teams", "value", "lower", "upper", "gap", "seconds"):
      del s[k]
    details.update(s)
    details["precision"] = precision(dag.gap, dag.lower, dag.upper)
    seconds = time.perf_counter() - start
    if certify_time_limit > 0:  # a check of the result, not part of the solve's time
      details.update(certify(tree, teams, dag.team1_reach, dag.team2_reach, certify_time_limit))
    return TeamSolveResult(game=str(tree.game), teams=str(teams), method="dag",
                           value=dag.value, lower=dag.lower, upper=dag.upper,
                           exact=dag.gap <= EXACT_GAP, seconds=seconds, details=details)
  cg = column_generation.solve(tree, teams, tol=DEFAULT_TOL["cg"] if tol is None else tol,
                               time_limit=time_left(), threads=threads)
  s = cg.summary()
  for k in ("game", "teams", "value", "lower", "upper", "gap", "seconds"):
    del s[k]
  details.update(s)
  details["precision"] = precision(cg.gap, cg.lower, cg.upper)
  seconds = time.perf_counter() - start
  if certify_time_limit > 0 and cg.team1_reach is not None and cg.team2_reach is not None:
    details.update(certify(tree, teams, cg.team1_reach, cg.team2_reach, certify_time_limit))
  return TeamSolveResult(game=str(tree.game), teams=str(teams), method="cg", value=cg.value,
                         lower=cg.lower, upper=cg.upper, exact=cg.gap <= EXACT_GAP,
                         seconds=seconds, details=details)


def certify(tree: GameTree, teams: teams_lib.Teams, team1_reach: np.ndarray,
            team2_reach: np.ndarray, time_limit: float = 60.0) -> dict:
  """Re-derives a certified bracket from two teams' plans with `best_response.py`'s oracles.

  lower = -(team 2's best response value against team 1's reach), upper = team 1's best
  response value against team 2's reach: backward induction for a one-player team, the flow MIP
  (`TeamOracle`; its proven bound if stopped by `time_limit`, infinite if it proved none) for a
  team of several players with at most `CERTIFY_MAX_SEQUENCES` sequences (else skipped: None).

  Returns:
    {"certified_lower", "certified_upper", "certify_seconds", "certify_note"}.
  """
  start = time.perf_counter()
  chance = tree.chance_reach()[tree.terminals]
  u = teams_lib.team_terminal_utilities(tree, teams)
  bounds, notes = [], []
  for team, reach in ((1, team1_reach), (0, team2_reach)):
    members = teams.teams[team]
    w = chance * np.asarray(reach) * u[:, team]
    if len(members) == 1:
      bounds.append(team_best_response.single_player_best_response_value(tree, members[0], w))
      continue
    n_seq = 1 + int(sum(tree.infoset_legal[tree.infoset_player == p].sum() for p in members))
    if n_seq > CERTIFY_MAX_SEQUENCES:
      bounds.append(None)
      notes.append(f"team {team + 1}: {n_seq} sequences > {CERTIFY_MAX_SEQUENCES}, MIP skipped")
      continue
    try:
      br = team_best_response.TeamOracle(tree, members).best_response(w, time_limit=time_limit)
      bounds.append(br.bound)
      if br.bound - br.value > 1e-9:
        notes.append(f"team {team + 1}: MIP stopped at {time_limit} s, its proven bound used")
    except team_best_response.OracleTimeLimit as e:
      bounds.append(e.bound)
      notes.append(f"team {team + 1}: MIP found no plan in {time_limit} s")
  lower = None if bounds[0] is None else -float(bounds[0])
  upper = None if bounds[1] is None else float(bounds[1])
  return dict(certified_lower=lower, certified_upper=upper,
              certify_seconds=round(time.perf_counter() - start, 3),
              certify_note="; ".join(notes))
