"""Team solvers of two-team zero-sum games (team-correlated equilibria).

`solve` is the one entry point (it chooses among the methods: the tree-decomposition LP
`team_lp`, column generation, the restricted LP, the team belief DAG) and returns a
`TeamSolveResult`; `choose_method` says which method it would take. Both live in the module
`solver`, with the thresholds of the `auto` rule. Every method's result is an
`AnytimeResult` (team 1's value and its certified bracket). The pieces they share with
cooperative solvers (decomposition, plans, best responses, HiGHS) are in `ospiel_team.lp`;
teams are in `ospiel_team.tree` (`Teams`). `conformance` is the suite every team method
passes (`team_solver_conformance`).

Example:
  from ospiel_team.algorithms.team import solve
  solve("kuhn_poker(players=3)", "0,1|2").value  # -1/24
"""

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.algorithms.team import conformance as conformance
  from ospiel_team.algorithms.team import solver as solver
  from ospiel_team.algorithms.team import team_lp as team_lp
  from ospiel_team.algorithms.team.result import AnytimeResult as AnytimeResult
  from ospiel_team.algorithms.team.solver import MethodChoice as MethodChoice
  from ospiel_team.algorithms.team.solver import TeamSolveResult as TeamSolveResult
  from ospiel_team.algorithms.team.solver import choose_method as choose_method
  from ospiel_team.algorithms.team.solver import solve as solve
  from ospiel_team.algorithms.team.team_lp import TeamLPResult as TeamLPResult

_PUBLIC = {
    "solve": "ospiel_team.algorithms.team.solver",
    "solver": "ospiel_team.algorithms.team.solver",
    "team_lp": "ospiel_team.algorithms.team.team_lp",
    "TeamSolveResult": "ospiel_team.algorithms.team.solver",
    "MethodChoice": "ospiel_team.algorithms.team.result",
    "choose_method": "ospiel_team.algorithms.team.solver",
    "AnytimeResult": "ospiel_team.algorithms.team.result",
    "TeamLPResult": "ospiel_team.algorithms.team.team_lp",
    "conformance": "ospiel_team.algorithms.team.conformance",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
