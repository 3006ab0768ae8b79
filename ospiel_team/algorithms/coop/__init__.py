"""Cooperative (common-payoff) solvers: Joint Policy Search and exact optima.

* `jps`: Joint Policy Search (Tian, Gong, Jiang, NeurIPS 2020, arXiv:2008.06495):
  `JointPolicySearch`, its options `JPSConfig`, results `JPSResult` and `JPSIteration`.
* `optimum`: the exact optimum of a cooperative game (`optimum.solve` -> `CoopOptimum`), by LP,
  MIP or brute force over the team's plans.
* `simple_bidding_optimum`, `simple_bidding_search`: the exact optimum and local search of
  `simple_bidding` by its own structure.
"""

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.algorithms.coop import jps as jps
  from ospiel_team.algorithms.coop import optimum as optimum
  from ospiel_team.algorithms.coop import simple_bidding_optimum as simple_bidding_optimum
  from ospiel_team.algorithms.coop.jps import JointPolicySearch as JointPolicySearch
  from ospiel_team.algorithms.coop.jps import JPSConfig as JPSConfig
  from ospiel_team.algorithms.coop.jps import JPSIteration as JPSIteration
  from ospiel_team.algorithms.coop.jps import JPSResult as JPSResult
  from ospiel_team.algorithms.coop.jps import joint_policy_search as joint_policy_search
  from ospiel_team.algorithms.coop.optimum import CoopOptimum as CoopOptimum

_PUBLIC = {
    "JointPolicySearch": "ospiel_team.algorithms.coop.jps",
    "JPSConfig": "ospiel_team.algorithms.coop.jps",
    "JPSResult": "ospiel_team.algorithms.coop.jps",
    "JPSIteration": "ospiel_team.algorithms.coop.jps",
    "joint_policy_search": "ospiel_team.algorithms.coop.jps",
    "CoopOptimum": "ospiel_team.algorithms.coop.optimum",
    "jps": "ospiel_team.algorithms.coop.jps",
    "optimum": "ospiel_team.algorithms.coop.optimum",
    "simple_bidding_optimum": "ospiel_team.algorithms.coop.simple_bidding_optimum",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
