r"""One entry point for zero-sum team games: `solve(game, teams, method="auto"|"lp"|"cg"|"dag")`.

Methods (all compute team 1's value at a team-correlated equilibrium, TMECor):

* `"lp"`: the tree-decomposition LP of Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum
  Extensive-Form Games via Tree Decompositions", AAAI 2022 (`team_lp.py`). Exact; its size
  grows with the number of *local solutions* lambda_S(R, A) of the teams (the uncommon external
  information, Theorem 4.1).
* `"cg"`: column generation over joint pure plans with exact best-response oracles (Farina,
  Celli, Gatti & Sandholm, ICML 2021; double oracle when both teams have several players;
  `column_generation.py`). Anytime: returns a bracket [lower, upper] certified by exact team
  best responses; exact within `tol` when it converges.
* `"dag"`: regret minimisation (DCFR) on both teams' team belief DAGs (Zhang, Farina &
  Sandholm, ICML 2023, arXiv:2210.12487; `team_belief_dag.py`). Anytime: every few iterations
  the average plans are certified by exact team best responses (dynamic programming on the
  DAG), giving a bracket [lower, upper]; stops when the gap is <= `tol`.

`"auto"` (the rule, from the Table 1 measurements in docs/benchmarks/team_lp.md, section 0):
build the LP with at most `AUTO_LP_MAX_LOCAL` = 500k local solutions per team; if a team has
more, the LP is abandoned and, with the time that is left, column generation runs when every
team of several players has at most `AUTO_CG_MAX_SEQUENCES` = 5,000 team sequences (a small
MIP oracle: Kuhn 21K8 801, 21K12 1,873, 31K5 2,611 sequences, all solved exactly by column
generation, while the DAG left 21K8 at gap 2.5e-4 after 500 s), else the belief DAG (Leduc
21L153 12,361 and 31L133 sequences, 22D3: solved by the DAG; column generation left 21L153 at
gap 1.1 and crashed on 22D3); past `AUTO_DAG_MAX_LOCAL` DAG edges, column generation. Measured: every Table 1 LP
with at most 125k local solutions per team finished in at most 92 s on a quiet machine (33D2,
124k, in 337 s); the two Leduc LPs that did not finish in 600 s have 554k (31L133) and 682k
(21L153) local solutions, and the belief DAG brings 21L153 to a certified gap of 1e-4 in
~90 CPU seconds; 42D2 (532k, LP 233 s) and 51D2 (1.76M, LP 1402 s under load) go to the DAG by
this rule without a DAG measurement of theirs. Column generation stays available by name: it
is exact where its MIP oracle is fast (Kuhn poker: 21K8, 21K12, 31K5) and slow elsewhere.
Re-examined after the belief DAG's passes moved to C (2x cheaper iterations; iteration counts
vary by +-50% with rounding; team_lp.md section 0.6): unchanged, since no crossover instance
was re-measured.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Dict, Optional

import numpy as np
import pyspiel

from ospiel_team.algorithms import column_generation
from ospiel_team.algorithms import highs
from ospiel_team.algorithms import team_belief_dag
from ospiel_team.algorithms import team_best_response
from ospiel_team.algorithms import team_lp
from ospiel_team.algorithms import teams as teams_lib
from ospiel_team.algorithms.game_tree import GameTree
from ospiel_team.algorithms.team_decomposition import TeamDecomposition

METHODS = ("auto", "lp", "cg", "dag")
# `certify`: the flow-MIP oracle is used for teams of several players with at most this many
# team sequences (larger ones: the MIP model alone takes minutes to build; skipped, said so).
CERTIFY_MAX_SEQUENCES = 20_000
# Default target gap of the anytime methods (`tol=None`): column generation closes its gap
# exactly in a few iterations or not at all; regret minimisation converges like 1/T.
DEFAULT_TOL = {"cg": 1e-6, "dag": 1e-4}
AUTO_LP_MAX_LOCAL = 500_000
AUTO_DAG_MAX_LOCAL = team_belief_dag.DEFAULT_MAX_LOCAL
# After the LP is refused: column generation when every team of several players has at most
# this many team sequences (its MIP oracle is then small), else the belief DAG.
AUTO_CG_MAX_SEQUENCES = 5_000


@dataclasses.dataclass
class TeamSolveResult:
  """Team 1's TMECor value (sum of its members' values) and how it was obtained."""
  game: str
  teams: str
  method: str  # the method that produced the value ("lp", "cg" or "dag")
  value: float
  lower: float  # certified bracket (== value for the LP)
  upper: float
  exact: bool  # LP optimum, or an anytime method's certified gap closed to `tol`
  seconds: float
  details: Dict

  def summary(self) -> Dict:
    return dict(game=self.game, teams=self.teams, method=self.method, value=self.value,
                lower=self.lower, upper=self.upper, gap=self.upper - self.lower,
                exact=self.exact, seconds=round(self.seconds, 4), **self.details)


def solve(game: pyspiel.Game | str | GameTree, teams: str | teams_lib.Teams = None,
          method: str = "auto", time_limit: Optional[float] = None, tol: Optional[float] = None,
          solver: str = "auto", highs_options: Optional[Dict] = None,
          threads: Optional[int] = None, certify_time_limit: float = 0.0) -> TeamSolveResult:
  """Solves a two-team zero-sum game for team 1's TMECor value.

  Args:
    game: pyspiel game, game string or `GameTree`.
    teams: two teams, e.g. "0,1|2" (default: `teams.default_teams`).
    method: "auto", "lp" (tree-decomposition LP), "cg" (column generation) or "dag" (DCFR on
      the team belief DAGs).
    time_limit: seconds (None: no limit; negative: ValueError). The LP is stopped by HiGHS's
      limit (an error if not solved); the anytime methods return their certified bracket.
    tol: the anytime methods' target certified gap (None: `DEFAULT_TOL[method]`).
    solver: HiGHS `solver` option for the LP ("ipm", "simplex", "choose", ...), or "auto"
      (`team_lp.choose_solver`: simplex for small LPs, else ipm).
    highs_options: further HiGHS options for the LP (each checked by HiGHS).
    threads: HiGHS threads.
    certify_time_limit: when > 0, the bracket of an anytime method ("cg", "dag") is re-derived
      by `certify` (exact team best responses of `team_best_response`, independent of the
      method), each oracle call limited to this many seconds; added to `details` with its own
      `certify_seconds` (a check of the result: not counted in the result's `seconds`, whose
      bracket the method already certified with its own exact best responses).

  Returns:
    A `TeamSolveResult`.
  """
  if method not in METHODS:
    raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
  time_limit = highs.check_time_limit(time_limit)
  if tol is not None and not tol >= 0:
    raise ValueError(f"tol={tol!r} must be >= 0")
  if not certify_time_limit >= 0:
    raise ValueError(f"certify_time_limit={certify_time_limit!r} must be >= 0")
  start = time.perf_counter()
  tree, teams = teams_lib.check_assumptions(game, teams)
  details: Dict = {}
  if method in ("auto", "lp"):
    try:
      res = team_lp.solve(tree, teams, time_limit=time_limit, threads=threads, solver=solver,
                          highs_options=highs_options,
                          **({"max_local": AUTO_LP_MAX_LOCAL} if method == "auto" else {}))
      s = res.summary()
      del s["game"], s["teams"], s["value"], s["seconds"]
      return TeamSolveResult(game=str(tree.game), teams=str(teams), method="lp",
                             value=res.value, lower=res.value, upper=res.value, exact=True,
                             seconds=time.perf_counter() - start, details=s)
    except MemoryError as e:
      if method == "lp":
        raise
      details["auto"] = f"LP not built: {e}"
      n_seq = max((TeamDecomposition(tree, t, team_tree_only=True).num_sequences
                   for t in teams.teams if len(t) > 1), default=0)
      if n_seq <= AUTO_CG_MAX_SEQUENCES:
        method = "auto_cg"
        details["auto"] += f"; {n_seq} team sequences <= {AUTO_CG_MAX_SEQUENCES}: cg"
  if method in ("auto", "dag"):
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
    try:
      dag = team_belief_dag.solve(
          tree, teams, tol=DEFAULT_TOL["dag"] if tol is None else tol, time_limit=left,
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
    seconds = time.perf_counter() - start
    if certify_time_limit > 0:  # a check of the result, not part of the solve's time
      details.update(certify(tree, teams, dag.team1_reach, dag.team2_reach, certify_time_limit))
    return TeamSolveResult(game=str(tree.game), teams=str(teams), method="dag",
                           value=dag.value, lower=dag.lower, upper=dag.upper,
                           exact=dag.converged, seconds=seconds, details=details)
  left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
  cg = column_generation.solve(tree, teams, tol=DEFAULT_TOL["cg"] if tol is None else tol,
                               time_limit=left, threads=threads)
  s = cg.summary()
  for k in ("game", "teams", "value", "lower", "upper", "gap", "seconds"):
    del s[k]
  details.update(s)
  seconds = time.perf_counter() - start
  if certify_time_limit > 0 and cg.team1_reach is not None and cg.team2_reach is not None:
    details.update(certify(tree, teams, cg.team1_reach, cg.team2_reach, certify_time_limit))
  return TeamSolveResult(game=str(tree.game), teams=str(teams), method="cg", value=cg.value,
                         lower=cg.lower, upper=cg.upper, exact=cg.converged,
                         seconds=seconds, details=details)


def certify(tree: GameTree, teams: teams_lib.Teams, team1_reach: np.ndarray,
            team2_reach: np.ndarray, time_limit: float = 60.0) -> Dict:
  """Re-derives a certified bracket from two teams' plans with `team_best_response`'s oracles.

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


if __name__ == "__main__":
  # The command line lives in ospiel_team/cli/ (run as a script, not imported: no import cycle).
  import runpy  # pylint: disable=g-import-not-at-top
  runpy.run_module("ospiel_team.cli.team_solve_cli", run_name="__main__")
