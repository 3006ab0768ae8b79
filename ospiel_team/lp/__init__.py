"""Team polytope pieces shared by the cooperative and the team solvers, and the HiGHS wrapper.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022 (arXiv:2109.05284).

* `highs`: the checked HiGHS wrapper, with the one status check (`highs.check_status`).
* `TeamDecomposition` (`decomposition`): a team's tree decomposition and local solutions, built
  by `local_solutions` (the numba pass of Algorithm 1).
* `TeamPlan` (`plan`): a point of that polytope (a correlated plan): sampling and marginals.
* `plan_mip`: the members' binary sequence-form plans as a MIP (flow model, brute force).
* `best_response`: exact team best responses against fixed terminal weights
  (`team_best_response_value`, `team_value_vs_best_response`).
"""

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.lp import best_response as best_response
  from ospiel_team.lp import highs as highs
  from ospiel_team.lp import plan_mip as plan_mip
  from ospiel_team.lp.best_response import team_best_response_value as team_best_response_value
  from ospiel_team.lp.best_response import (
    team_value_vs_best_response as team_value_vs_best_response,
  )
  from ospiel_team.lp.decomposition import TeamDecomposition as TeamDecomposition
  from ospiel_team.lp.highs import TimeLimitError as TimeLimitError
  from ospiel_team.lp.plan import TeamPlan as TeamPlan

_PUBLIC = {
    "TeamDecomposition": "ospiel_team.lp.decomposition",
    "TeamPlan": "ospiel_team.lp.plan",
    "TimeLimitError": "ospiel_team.lp.highs",
    "team_best_response_value": "ospiel_team.lp.best_response",
    "team_value_vs_best_response": "ospiel_team.lp.best_response",
    "highs": "ospiel_team.lp.highs",
    "best_response": "ospiel_team.lp.best_response",
    "plan_mip": "ospiel_team.lp.plan_mip",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
