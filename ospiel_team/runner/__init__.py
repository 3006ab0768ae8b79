"""The comparison runner's solver API (`api`) and its solver adapters.

`api` holds `SolverContext`, `Snapshot`, the checkpoint schedules and the solver registry;
`openspiel_solvers` and `ours_solvers` adapt OpenSpiel's solvers and this package's algorithms
to it, and `solvers` is the catalogue that imports them and looks solvers up by name. The
command line and the orchestration (seeds, pools, Ray, the result store, tables and
figures) are in `ospiel_team.runner.compare`.
"""
