"""The comparison runner: every solver, every seed, one budget, one metric, one report.

Modules, by job:

* `api`: the solver API (`SolverContext`, `Snapshot`, budgets and checkpoint schedules, the
  `@api.solver` decorator); `adapters.openspiel` and `adapters.ours` wrap OpenSpiel's solvers
  and this package's algorithms in it; `registry` imports the adapters and looks solvers up.
* `metrics`: the metric functions and which metric fits a game.
* `reference`: the value a metric is read against (shipped proven cooperative optima in
  `data/coop_optima.json`, TMECor values).
* `execute`: one (solver, seed) task, the process pool and Ray, the resumable result store.
* `report`: statistics over seeds, the Markdown table, the curves figure.
* `compare`: `run_all`, which checks the arguments and runs every task.

The command line is `ospiel_team.cli.compare` (`ospiel-team-compare`).
"""
