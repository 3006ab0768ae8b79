"""Team solvers of two-team zero-sum games (team-correlated equilibria).

`solve` is the one entry point (it chooses among the methods: the tree-decomposition LP `lp`,
column generation, the restricted LP, the team belief DAG) and returns a `TeamSolveResult`;
`choose_method` says which method it would take. Both live in the module `solver`, with the
thresholds of the `auto` rule. Every method's result is an `AnytimeResult` (team 1's value and
its certified bracket). The pieces they share with cooperative solvers (decomposition, plans,
best responses, HiGHS) are in `ospiel_team.lp`; teams are in `ospiel_team.tree` (`Teams`).

Example:
  from ospiel_team.algorithms.team import solve
  solve("kuhn_poker(players=3)", "0,1|2").value  # -1/24
"""

from ospiel_team import _exports

_PUBLIC = {
    "solve": "ospiel_team.algorithms.team.solver",
    "solver": "ospiel_team.algorithms.team.solver",
    "lp": "ospiel_team.algorithms.team.lp",
    "TeamSolveResult": "ospiel_team.algorithms.team.solver",
    "MethodChoice": "ospiel_team.algorithms.team.result",
    "choose_method": "ospiel_team.algorithms.team.solver",
    "AnytimeResult": "ospiel_team.algorithms.team.result",
    "TeamLPResult": "ospiel_team.algorithms.team.lp",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
