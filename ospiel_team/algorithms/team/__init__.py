"""Team solvers of two-team zero-sum games (team-correlated equilibria).

Public modules: `solve` (`solve.solve`, one entry point choosing among the methods) and `lp`
(the tree-decomposition LP). The pieces they share with cooperative solvers (decomposition,
plans, best responses, HiGHS) are in `ospiel_team.lp`; teams are in `ospiel_team.tree.teams`.
"""

__all__ = ["lp", "solve"]
