"""Team polytope pieces shared by the cooperative and the team solvers, and the HiGHS wrapper.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022 (arXiv:2109.05284).

* `highs`: the checked HiGHS wrapper, with the one status check (`highs.check_status`).
* `decomposition`: `TeamDecomposition`, a team's tree decomposition and local solutions.
* `local_solutions`: the numba pass building every public state's reachable sets and local
  solutions (Algorithm 1) for `decomposition`.
* `plan`: `TeamPlan`, a point of that polytope (a correlated plan): sampling and marginals.
* `plan_mip`: the members' binary sequence-form plans as a MIP (flow model, brute force).
* `best_response`: exact team best responses against fixed terminal weights.
"""

__all__ = ["best_response", "decomposition", "highs", "local_solutions", "plan", "plan_mip"]
