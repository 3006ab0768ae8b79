"""Nash-equilibrium solvers on the array game tree: the CFR family and Exploitability Descent.

* `cfr`: CFR, CFR+, DCFR, PCFR+ and PDCFR+ on the tree (`TreeCFRSolver` and its subclasses,
  `BatchedTreeCFRSolver` for many policies at once), and `openspiel_cfr_solver`.
* `cfr_jax`: the same solvers with their traversal as JAX segment sums (`JaxTreeCFRSolver`,
  `JaxBatchedTreeCFRSolver`), for accelerators.
* `exploitability_descent`: tabular (`TabularEDSolver`) and neural (`NeuralEDSolver`)
  Exploitability Descent (Lockhart et al., IJCAI 2019, arXiv:1903.05614); JAX is imported
  when a solver is first used.
"""

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.algorithms.nash import cfr as cfr
  from ospiel_team.algorithms.nash import exploitability_descent as exploitability_descent
  from ospiel_team.algorithms.nash.cfr import BatchedTreeCFRSolver as BatchedTreeCFRSolver
  from ospiel_team.algorithms.nash.cfr import TreeCFRPlusSolver as TreeCFRPlusSolver
  from ospiel_team.algorithms.nash.cfr import TreeCFRSolver as TreeCFRSolver
  from ospiel_team.algorithms.nash.cfr import TreeDCFRSolver as TreeDCFRSolver
  from ospiel_team.algorithms.nash.cfr import TreePCFRPlusSolver as TreePCFRPlusSolver
  from ospiel_team.algorithms.nash.cfr import TreePDCFRPlusSolver as TreePDCFRPlusSolver
  from ospiel_team.algorithms.nash.cfr import openspiel_cfr_solver as openspiel_cfr_solver
  from ospiel_team.algorithms.nash.exploitability_descent import NeuralEDSolver as NeuralEDSolver
  from ospiel_team.algorithms.nash.exploitability_descent import TabularEDSolver as TabularEDSolver

_PUBLIC = {
    "TreeCFRSolver": "ospiel_team.algorithms.nash.cfr",
    "TreeCFRPlusSolver": "ospiel_team.algorithms.nash.cfr",
    "TreeDCFRSolver": "ospiel_team.algorithms.nash.cfr",
    "TreePCFRPlusSolver": "ospiel_team.algorithms.nash.cfr",
    "TreePDCFRPlusSolver": "ospiel_team.algorithms.nash.cfr",
    "BatchedTreeCFRSolver": "ospiel_team.algorithms.nash.cfr",
    "openspiel_cfr_solver": "ospiel_team.algorithms.nash.cfr",
    "JaxTreeCFRSolver": "ospiel_team.algorithms.nash.cfr_jax",
    "JaxBatchedTreeCFRSolver": "ospiel_team.algorithms.nash.cfr_jax",
    "TabularEDSolver": "ospiel_team.algorithms.nash.exploitability_descent",
    "NeuralEDSolver": "ospiel_team.algorithms.nash.exploitability_descent",
    "cfr": "ospiel_team.algorithms.nash.cfr",
    "cfr_jax": "ospiel_team.algorithms.nash.cfr_jax",
    "exploitability_descent": "ospiel_team.algorithms.nash.exploitability_descent",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
