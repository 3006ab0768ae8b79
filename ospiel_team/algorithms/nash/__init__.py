"""Nash-equilibrium solvers on the array game tree: the CFR family and Exploitability Descent.

* `cfr`: CFR, CFR+, DCFR, PCFR+ and PDCFR+ on the tree (`TreeCFRSolver` and its subclasses,
  `BatchedTreeCFRSolver` for many policies at once), and `openspiel_cfr_solver`.
* `cfr_jax`: the same solvers with their traversal as JAX segment sums (`JaxTreeCFRSolver`,
  `JaxBatchedTreeCFRSolver`), for accelerators.
* `exploitability_descent`: tabular (`TabularEDSolver`) and neural (`NeuralEDSolver`)
  Exploitability Descent (Lockhart et al., IJCAI 2019, arXiv:1903.05614); JAX is imported
  when a solver is first used.
"""

from ospiel_team import _exports

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
