r"""One entry point for zero-sum team games: `solve(game, teams, method="auto"|"lp"|"cg"|"dag")`.

Methods (all compute team 1's value at a team-correlated equilibrium, TMECor):

* `"lp"`: the tree-decomposition LP of Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum
  Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284, Theorem 3.21
  (`team_lp.py`). Exact; its size grows with the number of *local solutions* lambda_S(R, A) of the
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
  (`team_lp.lp_nonzeros`, counted from the decompositions without assembling the LP),
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
the belief DAG (Leduc 21L153, 31L133, 22D3, Liar's Dice 21D4, 42D2, 51D2: solved by the DAG
to a bracket settling 4 decimals); past `AUTO_DAG_MAX_LOCAL` DAG edges, column generation. Column
generation stays available by name: it is exact where its MIP oracle is fast (Kuhn poker: 21K8,
21K12, 31K5) and slow elsewhere.

On that DAG path, with `tol=None` and at most `AUTO_ONE_SIDED_MAX_LOCAL` = 2M local solutions per
team, a bracket that is still unsettled after `ONE_SIDED_MIN_ITERATIONS` = 3,000 iterations at
certified gap <= `ONE_SIDED_GAP` = 1e-4 lies near a rounding boundary (the DAG alone would need
about 1/distance^2 more iterations: Leduc 21L523's value lies 2.2e-7 from one, and its bracket was
still [0.9528433, 0.9528547] after 1,800 s). It is finished by two one-sided restricted LPs
(`restricted.solve_one_sided`, method "dag_lp"): each team on the DAG's support against the whole
other team gives one end exactly; when the ends meet the value is exact. The double oracle of
`restricted.solve` is not used there: with one team far larger than the other (21L523: 1,261,732
and 123,152 local solutions) its rounds did not converge (50 rounds, [0.84, 1.9]), while the two
one-sided LPs took 7 s and 353 s (the DAG to gap 1e-4: 4,620 iterations). The instances that
settle take no LP: they settle within 1,510 iterations (Table 1).

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

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import column_generation
from ospiel_team.algorithms.team import restricted as team_restricted
from ospiel_team.algorithms.team import team_lp
from ospiel_team.algorithms.team.result import AnytimeResult
from ospiel_team.algorithms.team.result import MethodChoice
from ospiel_team.algorithms.team.result import settled
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.lp import highs
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.lp.plan import TeamPlan
from ospiel_team.tree import resolver
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree

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
# (`team_lp.lp_nonzeros`), else the belief DAG (measured crossover: module docstring).
AUTO_LP_MAX_NONZEROS = 150_000
AUTO_DAG_MAX_LOCAL = team_belief_dag.DEFAULT_MAX_LOCAL
# `tol=None`, `auto` past `AUTO_LP_MAX_LOCAL` (the belief DAG): when both teams have at most
# `AUTO_ONE_SIDED_MAX_LOCAL` local solutions, a DAG bracket still unsettled after
# `ONE_SIDED_MIN_ITERATIONS` iterations at certified gap <= `ONE_SIDED_GAP` is finished by the
# two one-sided restricted LPs (`restricted.solve_one_sided`); a failed try is repeated once
# the gap has shrunk `ONE_SIDED_RETRY_SHRINK` times (measured: module docstring).
AUTO_ONE_SIDED_MAX_LOCAL = 2_000_000
ONE_SIDED_GAP = 1e-4
ONE_SIDED_MIN_ITERATIONS = 3_000
ONE_SIDED_RETRY_SHRINK = 4.0
# After the LP is refused: column generation when every team of several players has at most
# this many team sequences (its MIP oracle is then small), else the belief DAG.
AUTO_CG_MAX_SEQUENCES = 5_000


# Keys of a method's own summary that the solve result states itself (`TeamSolveResult`).
_RESULT_KEYS = frozenset({"game", "teams", "value", "lower", "upper", "gap", "seconds"})


@dataclasses.dataclass(frozen=True, kw_only=True)
class TeamSolveResult(AnytimeResult):
  """Team 1's TMECor value (sum of its members' values) and how it was obtained.

  The one result of every method: an exact optimum (`exact`, `lower == upper` up to
  `EXACT_GAP`) or an anytime method's certified bracket [lower, upper] (the fields of
  `result.AnytimeResult`: `game`, `value`, `lower`, `upper`, `gap`, `seconds`, `history`).

  Attributes:
    teams: the teams ("0,1|2").
    method: the method that produced the value ("lp", "dag_lp", "cg" or "dag").
    exact: an LP optimum, or a certified bracket no wider than `EXACT_GAP`.
    details: the method's own numbers (sizes, iterations, seconds), `auto`'s reason under
      "auto", `precision` (which kind of answer this is) and `certify`'s bracket if asked;
      printed by `summary`.
    reason: why `auto` chose the method ("" for a method asked for by name).
    plans: both teams' correlated plans where the method gives them (the LP, the restricted
      LP); None for the anytime methods. Not part of `summary`.

  `seconds` is the solve's seconds (without `certify`); `lower == value` for the LP.
  """
  teams: str
  method: str
  exact: bool
  details: dict
  reason: str = ""
  plans: list[TeamPlan] | None = dataclasses.field(default=None, repr=False)

  def summary(self) -> dict:
    """The result's fields and the method's details as one JSON-ready dict.

    Returns:
      A dict of the fields (game, teams, method, value, lower, upper, gap, exact, seconds) and the
        method's details.
    """
    return dict(game=self.game, teams=self.teams, method=self.method, value=self.value,
                lower=self.lower, upper=self.upper, gap=self.upper - self.lower,
                exact=self.exact, seconds=round(self.seconds, 4), **self.details)


@dataclasses.dataclass(frozen=True)
class _Run:
  """One call of `solve`: its game, teams, options and clock (shared by the method runners)."""
  tree: GameTree
  teams: teams_lib.Teams
  start: float
  time_limit: float | None
  tol: float | None
  digits: int
  solver: str
  highs_options: dict | None
  threads: int | None
  certify_time_limit: float

  def time_left(self) -> float | None:
    if self.time_limit is None:
      return None
    return max(0.0, self.time_limit - (time.perf_counter() - self.start))

  def precision(self, lower: float, upper: float) -> str:
    """Which kind of answer a certified bracket is (module docstring: Precision)."""
    gap = upper - lower
    if gap <= EXACT_GAP:
      return f"exact (certified gap {gap:.1e} <= {EXACT_GAP:g})"
    if settled(lower, upper, self.digits):
      return f"certified bracket settles {self.digits} decimals (gap {gap:.1e})"
    if self.tol is not None and gap <= self.tol:
      return f"certified gap {gap:.1e} <= tol {self.tol:g}"
    return f"certified bracket only (gap {gap:.1e}: stopped before the target)"

  def certified(self, team1_reach, team2_reach) -> dict:
    """`certify`'s bracket when asked for (`certify_time_limit` > 0), else nothing."""
    if self.certify_time_limit <= 0 or team1_reach is None or team2_reach is None:
      return {}
    return certify(self.tree, self.teams, team1_reach, team2_reach,
                   time_limit=self.certify_time_limit)

  def result(self, method: str, value: float, lower: float, upper: float, exact: bool,
             details: dict, reason: str, seconds: float | None = None, history=(),
             plans=None) -> TeamSolveResult:
    return TeamSolveResult(
        game=str(self.tree.game), teams=str(self.teams), method=method, value=value,
        lower=lower, upper=upper, exact=exact,
        seconds=time.perf_counter() - self.start if seconds is None else seconds,
        details=details, reason=reason, history=tuple(history), plans=plans)


def _own(summary: dict) -> dict:
  """A method's summary without the keys the solve result states itself."""
  return {k: v for k, v in summary.items() if k not in _RESULT_KEYS}


def _auto(reason: str) -> dict:
  """`auto`'s reason as it appears in `details` (none for a method asked for by name)."""
  return {"auto": reason} if reason else {}


def _check_options(method, time_limit, tol, digits, certify_time_limit, threads) -> tuple:
  """Checks and converts the options of `solve`.

  The options checked (`ospiel_team.checks`: UserError naming a bad one) and converted:
  (time_limit, tol, digits, certify_time_limit, threads). More than 15 decimals are below
  float64's resolution of values near 1, hence the bound on `digits`.
  """
  checks.check_choice("method", method, METHODS)
  return (checks.check_real("time_limit", time_limit, minimum=0, allow_none=True),
          checks.check_real("tol", tol, minimum=0, allow_none=True),
          checks.check_int("digits", digits, minimum=0, maximum=15),
          checks.check_real("certify_time_limit", certify_time_limit, minimum=0),
          checks.check_int("threads", threads, minimum=1, allow_none=True))


def solve(game: pyspiel.Game | str | GameTree, teams: str | teams_lib.Teams = None,
          method: str = "auto", *, time_limit: float | None = None, tol: float | None = None,
          solver: str = "auto", highs_options: dict | None = None,
          threads: int | None = None, certify_time_limit: float = 0.0,
          digits: int = DEFAULT_DIGITS) -> TeamSolveResult:
  """Solves a two-team zero-sum game for team 1's TMECor value.

  Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
  Decompositions", AAAI 2022 (arXiv:2109.05284); the methods and `auto`'s rule are in the
  module docstring (`choose_method`).

  Args:
    game: pyspiel game, game string or `GameTree`.
    teams: two teams, e.g. "0,1|2" (default: `teams.default_teams`).
    method: "auto", "lp" (tree-decomposition LP), "cg" (column generation) or "dag" (DCFR on
      the team belief DAGs); "auto" may also answer by "dag_lp" (the DAG, then the LP
      restricted to its support).
    time_limit: seconds (None: no limit), the walk of the game's tree included (a walk
      estimated or found past it raises `tree.memory.WalkTimeLimitError`, a `TimeoutError`).
      The LP is stopped by HiGHS's limit (an error if not solved); the anytime methods return
      their certified bracket.
    tol: the anytime methods' target certified gap; None (default): the precision rule of
      the module docstring (an exact optimum, or a bracket settling `digits` decimals).
    solver: HiGHS `solver` option for the LP ("ipm", "simplex", "choose", ...), or "auto"
      (`team_lp.choose_solver`: simplex for small LPs, else ipm).
    highs_options: further HiGHS options for the LP (each checked by HiGHS).
    threads: HiGHS threads.
    certify_time_limit: when > 0, the bracket of an anytime method ("cg", "dag") is re-derived
      by `certify` (exact team best responses of `ospiel_team.lp.best_response`, independent
      of the method), each oracle call limited to this many seconds; added to `details` with
      its own `certify_seconds` (a check of the result: not counted in the result's
      `seconds`, whose bracket the method already certified with its own exact best
      responses).
    digits: with `tol=None`, the decimals the answer must settle (default 4, Table 1's; at
      most 15).

  Returns:
    A `TeamSolveResult`.

  Raises:
    errors.UserError: a bad argument, named (a game that is no game, a method, a negative or
      non-finite time limit or tol, digits, threads, teams that are not a split of the
      players into integer ids), or a game that is not a two-team zero-sum game meeting the
      paper's assumptions.
    errors.SizeLimitError: "lp" or "dag" asked for by name on a team with too many local
      solutions.
    highs.TimeLimitError: the LP was not solved within `time_limit`.
  """
  game = game if isinstance(game, GameTree) else resolver.resolve_game(game)  # before options
  time_limit, tol, digits, certify_time_limit, threads = _check_options(
      method, time_limit, tol, digits, certify_time_limit, threads)
  highs.check_lp_options(solver, highs_options)
  start = time.perf_counter()
  tree, teams = teams_lib.check_assumptions(game, teams, time_limit)  # the walk's limit too
  if teams.num_teams != 2:
    raise errors.UserError(
        f"{tree.game} with teams {teams} is a cooperative game (one team): the team solvers "
        "need two teams; use ospiel-team-coop-optimum (algorithms.coop.optimum)")
  run = _Run(tree=tree, teams=teams, start=start, time_limit=time_limit, tol=tol,
             digits=digits, solver=solver, highs_options=highs_options, threads=threads,
             certify_time_limit=certify_time_limit)
  choice = choose_method(tree, teams, method, tol=tol)
  if choice.method == "lp":
    return _solve_lp(run, choice)
  if choice.method == "dag_lp":
    return _solve_dag_lp(run, choice)
  if choice.method == "dag":
    return _solve_dag(run, choice)
  return _solve_cg(run, choice.reason)


def choose_method(tree: GameTree, teams: teams_lib.Teams, method: str = "auto", *,
                  tol: float | None = None) -> MethodChoice:
  """The method `solve` runs: `method` itself, or `auto`'s rule (module docstring).

  `auto` builds both teams' decompositions with at most `AUTO_LP_MAX_LOCAL` local solutions
  each: the LP when it has at most `AUTO_LP_MAX_NONZEROS` nonzeros, else the belief DAG then
  the restricted LP ("dag_lp"; with a `tol`: the DAG alone). Past `AUTO_LP_MAX_LOCAL`: column
  generation when every team of several players has at most `AUTO_CG_MAX_SEQUENCES` team
  sequences, else the belief DAG (with `tol=None`, finished by the two one-sided restricted
  LPs when its bracket stays unsettled: `ONE_SIDED_GAP`, `ONE_SIDED_MIN_ITERATIONS`).

  Args:
    tree: the game tree.
    teams: two teams.
    method: "auto" or a method of `METHODS`.
    tol: `solve`'s target gap (None: settle `digits` decimals).

  Returns:
    A `MethodChoice` with the decompositions it built (to be reused).

  Raises:
    errors.UserError: a bad argument, named.
  """
  checks.check_tree("tree", tree)
  checks.check_type("teams", teams, teams_lib.Teams, "a Teams (tree.parse_teams)")
  checks.check_choice("method", method, METHODS)
  checks.check_real("tol", tol, minimum=0, allow_none=True)
  if method != "auto":
    return MethodChoice(method=method)
  try:
    decs = tuple(TeamDecomposition(tree, t, AUTO_LP_MAX_LOCAL) for t in teams.teams)
  except errors.SizeLimitError as e:
    reason = f"LP not built: {e}"
    n_seq = max((TeamDecomposition(tree, t, team_tree_only=True).num_sequences
                 for t in teams.teams if len(t) > 1), default=0)
    if n_seq <= AUTO_CG_MAX_SEQUENCES:
      return MethodChoice(method="cg", auto=True, reason=(
          f"{reason}; {n_seq} team sequences <= {AUTO_CG_MAX_SEQUENCES}: cg"))
    return MethodChoice(method="dag", auto=True, reason=reason)
  nnz = team_lp.lp_nonzeros(tree, teams, *decs, stop_above=AUTO_LP_MAX_NONZEROS)
  if nnz <= AUTO_LP_MAX_NONZEROS:
    return MethodChoice(method="lp", auto=True, decompositions=decs,
                        reason=f"LP nonzeros {nnz} <= {AUTO_LP_MAX_NONZEROS}: lp")
  if tol is None:
    return MethodChoice(method="dag_lp", auto=True, decompositions=decs, reason=(
        f"LP nonzeros >= {nnz} > {AUTO_LP_MAX_NONZEROS}: dag to gap {RESTRICT_GAP:g}, then "
        "the LP on its support"))
  return MethodChoice(method="dag", auto=True, decompositions=decs,
                      reason=f"LP nonzeros >= {nnz} > {AUTO_LP_MAX_NONZEROS}: dag")


def _solve_lp(run: _Run, choice: MethodChoice) -> TeamSolveResult:
  """The tree-decomposition LP (`team_lp.solve`): exact."""
  res = team_lp.solve(run.tree, run.teams, time_limit=run.time_left(), threads=run.threads,
                      solver=run.solver, highs_options=run.highs_options,
                      decompositions=choice.decompositions)
  details = _own(res.summary())
  details.update(_auto(choice.reason), precision="exact (LP optimum)")
  return run.result("lp", res.value, res.value, res.value, True, details, choice.reason,
                    plans=res.plans)


def _solve_dag(run: _Run, choice: MethodChoice) -> TeamSolveResult:
  """Solves by the belief DAG alone (`belief_dag.solve`).

  The belief DAG alone (`belief_dag.solve`); `auto`'s falls back to column generation when
  its DAG is larger than `AUTO_DAG_MAX_LOCAL`.
  """
  if run.tol is not None:
    dag_tol, dag_digits = run.tol, None
  else:  # settle `digits` decimals
    dag_tol, dag_digits = EXACT_GAP, run.digits
  decs, one_sided = choice.decompositions, None
  try:
    if choice.auto and decs is None:
      decs = tuple(TeamDecomposition(run.tree, t, AUTO_DAG_MAX_LOCAL) for t in run.teams.teams)
      if run.tol is None and max(d.num_local for d in decs or ()) <= AUTO_ONE_SIDED_MAX_LOCAL:
        one_sided = _OneSidedTries(run, decs)
    dag = team_belief_dag.solve(
        run.tree, run.teams, tol=dag_tol, time_limit=run.time_left(), decompositions=decs,
        digits=dag_digits, keep_flows=one_sided is not None, on_check=one_sided)
  except errors.SizeLimitError as e:
    if not choice.auto:
      raise
    return _solve_cg(run, f"{choice.reason}; belief DAG not built: {e}")
  details = _auto(choice.reason)
  if one_sided is not None:
    details["one_sided_tries"] = one_sided.tries
    if one_sided.found is not None:
      return _restricted_result(run, dag, one_sided.found, decs, details, choice.reason,
                                "the two one-sided restricted LPs on its supports")
  return _dag_result(run, dag, details, choice.reason)


def _dag_result(run: _Run, dag, details: dict, reason: str) -> TeamSolveResult:
  """The solve result of a belief-DAG run: its certified bracket."""
  details = {**details, **_own(dag.summary()),
             "precision": run.precision(dag.lower, dag.upper)}
  seconds = time.perf_counter() - run.start
  details.update(run.certified(dag.team1_reach, dag.team2_reach))  # not part of `seconds`
  return run.result("dag", dag.value, dag.lower, dag.upper, dag.gap <= EXACT_GAP, details,
                    reason, seconds=seconds, history=dag.history)


def _solve_cg(run: _Run, reason: str) -> TeamSolveResult:
  """Column generation (`column_generation.solve`): its certified bracket."""
  cg = column_generation.solve(run.tree, run.teams,
                               tol=DEFAULT_TOL["cg"] if run.tol is None else run.tol,
                               time_limit=run.time_left(), threads=run.threads)
  details = {**_auto(reason), **_own(cg.summary()),
             "precision": run.precision(cg.lower, cg.upper)}
  seconds = time.perf_counter() - run.start
  details.update(run.certified(cg.team1_reach, cg.team2_reach))  # not part of `seconds`
  return run.result("cg", cg.value, cg.lower, cg.upper, cg.gap <= EXACT_GAP, details, reason,
                    seconds=seconds, history=cg.history)


@dataclasses.dataclass
class _RestrictedTries:
  """The restricted LPs tried during one belief-DAG run (`_solve_dag_lp`), as its `on_check`.

  At certified gap <= RESTRICT_GAP, the LP restricted to the DAG's support gets a budget of
  RESTRICT_BUDGET_SHARE times the DAG's seconds so far (at least RESTRICT_MIN_SECONDS); after a
  failure the DAG runs RESTRICT_RETRY_FACTOR times as long as the failed try before the next.
  """
  run: _Run
  decompositions: tuple[TeamDecomposition, TeamDecomposition]
  tries: list[dict] = dataclasses.field(default_factory=list)
  found: team_restricted.RestrictedLPResult | None = None
  next_try: float = 0.0  # DAG seconds before which no restricted LP is tried

  def __call__(self, state: dict) -> bool:
    if state["upper"] - state["lower"] > RESTRICT_GAP or state["seconds"] < self.next_try:
      return False
    budget = max(RESTRICT_MIN_SECONDS, RESTRICT_BUDGET_SHARE * state["seconds"])
    left = self.run.time_left()
    if left is not None:
      budget = min(budget, left)
    t0 = time.perf_counter()
    try:
      res = team_restricted.solve(
          self.run.tree, self.run.teams, self.decompositions,
          [team_restricted.support_of(f) for f in state["flows"]()], time_limit=budget,
          threads=self.run.threads, solver=self.run.solver,
          highs_options=self.run.highs_options, max_rounds=RESTRICT_MAX_ROUNDS)
    except TimeoutError:
      res = None
    spent = time.perf_counter() - t0
    self.tries.append(dict(iteration=state["iteration"], gap=state["upper"] - state["lower"],
                           budget=round(budget, 3), seconds=round(spent, 3),
                           exact=bool(res is not None and res.exact)))
    if res is not None and res.exact:
      self.found = res
      return True
    self.next_try = state["seconds"] + RESTRICT_RETRY_FACTOR * spent
    return False


@dataclasses.dataclass
class _OneSidedTries:
  """The one-sided restricted LPs tried during one belief-DAG run (`_solve_dag`), as `on_check`.

  Tried when the certified gap is <= ONE_SIDED_GAP after at least ONE_SIDED_MIN_ITERATIONS
  iterations (the bracket still straddles a rounding boundary: `on_check` is only called for an
  unsettled bracket), with the time left as budget; a try whose ends do not meet (a support
  missing every optimal plan) is repeated once the gap has shrunk ONE_SIDED_RETRY_SHRINK times.
  """
  run: _Run
  decompositions: tuple[TeamDecomposition, TeamDecomposition]
  tries: list[dict] = dataclasses.field(default_factory=list)
  found: team_restricted.RestrictedLPResult | None = None
  next_gap: float = ONE_SIDED_GAP  # the certified gap at or below which the next try runs

  def __call__(self, state: dict) -> bool:
    gap = state["upper"] - state["lower"]
    if gap > self.next_gap or state["iteration"] < ONE_SIDED_MIN_ITERATIONS:
      return False
    t0 = time.perf_counter()
    try:
      res = team_restricted.solve_one_sided(
          self.run.tree, self.run.teams, self.decompositions,
          [team_restricted.support_of(f) for f in state["flows"]()],
          time_limit=self.run.time_left(), threads=self.run.threads, solver=self.run.solver,
          highs_options=self.run.highs_options)
    except TimeoutError:
      res = None
    self.tries.append(dict(iteration=state["iteration"], gap=gap,
                           seconds=round(time.perf_counter() - t0, 3),
                           exact=bool(res is not None and res.exact),
                           **({} if res is None else dict(lower=res.lower, upper=res.upper))))
    if res is not None and res.exact:
      self.found = res
      return True
    self.next_gap = gap / ONE_SIDED_RETRY_SHRINK
    return res is None  # out of time: the DAG's bracket so far


def _solve_dag_lp(run: _Run, choice: MethodChoice) -> TeamSolveResult:
  """Solves by the belief DAG, then the LP restricted to its support.

  The belief DAG, finished by the LP restricted to its support (`restricted.py`); the DAG's
  own bracket when it settles first (or time runs out).
  """
  decs = choice.decompositions
  tries = _RestrictedTries(run, decs)
  dag = team_belief_dag.solve(run.tree, run.teams, tol=EXACT_GAP, time_limit=run.time_left(),
                              decompositions=decs, digits=run.digits, keep_flows=True,
                              on_check=tries)
  details = {"auto": choice.reason, "restricted_tries": tries.tries}
  if tries.found is None:
    return _dag_result(run, dag, details, choice.reason)
  return _restricted_result(run, dag, tries.found, decs, details, choice.reason,
                            "the LP restricted to its support")


def _restricted_result(run: _Run, dag, res: team_restricted.RestrictedLPResult,
                       decs: tuple[TeamDecomposition, TeamDecomposition], details: dict,
                       reason: str, finish: str) -> TeamSolveResult:
  """The solve result of a belief-DAG run finished exactly by restricted LPs (`finish`)."""
  reason = (f"{reason}; DAG bracket [{dag.lower:.7f}, {dag.upper:.7f}] after "
            f"{dag.iterations} iterations, {dag.seconds:.2f} s, then {finish}")
  details = {**details, "auto": reason, **res.summary(),
             "dag_iterations": dag.iterations, "dag_seconds": round(dag.seconds, 4),
             "dag_edges": dag.edges,
             "precision": (f"exact ({finish}: supports {res.support} of "
                           f"{res.local_solutions} local solutions; certified gap "
                           f"{res.upper - res.lower:.1e})")}
  seconds = time.perf_counter() - run.start
  details.update(run.certified(res.team1_reach, res.team2_reach))  # not part of `seconds`
  return run.result("dag_lp", res.value, res.lower, res.upper, True, details, reason,
                    seconds=seconds, history=dag.history,
                    plans=[TeamPlan(decs[0], res.lam1), TeamPlan(decs[1], res.lam2)])


def certify(tree: GameTree, teams: teams_lib.Teams, team1_reach: np.ndarray,
            team2_reach: np.ndarray, *, time_limit: float = 60.0) -> dict:
  """Re-derives a certified bracket from two teams' plans with `best_response.py`'s oracles.

  lower = -(team 2's best response value against team 1's reach), upper = team 1's best
  response value against team 2's reach: backward induction for a one-player team, the flow MIP
  (`TeamOracle`; its proven bound if stopped by `time_limit`, infinite if it proved none) for a
  team of several players with at most `CERTIFY_MAX_SEQUENCES` sequences (else skipped: None).

  Args:
    tree: the game tree.
    teams: its two teams.
    team1_reach: [num_terminals] team 1's plan value at every terminal.
    team2_reach: [num_terminals] team 2's.
    time_limit: seconds for each team's flow MIP.

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
