"""The comparison runner: every solver, every seed, one budget, one metric, one report.

`run_all` runs every (solver, seed) task of one game and returns the rows; `write_outputs`
writes results.json, results.md and the curves. Modules, by job:

* `api`: the solver API (`SolverContext`, `Snapshot`, budgets and checkpoint schedules, the
  `@api.solver` decorator); `adapters.openspiel` and `adapters.ours` wrap OpenSpiel's solvers
  and this package's algorithms in it; `registry` imports the adapters and looks solvers up
  (`solver_names`).
* `metrics`: the metric functions and which metric fits a game.
* `reference`: the value a metric is read against (shipped proven cooperative optima in
  `data/coop_optima.json`, TMECor values).
* `execute`: one (solver, seed) task, the process pool and Ray, the resumable result store.
* `report`: statistics over seeds, the Markdown table, the curves figure.
* `comparison`: `run_all`, which checks the arguments and runs every task.

The command line is `ospiel-team-compare` (`ospiel_team.cli.compare`).
"""

from ospiel_team import _exports

_PUBLIC = {
    "run_all": "ospiel_team.runner.comparison",
    "parse_seeds": "ospiel_team.runner.comparison",
    "SolverContext": "ospiel_team.runner.api",
    "Snapshot": "ospiel_team.runner.api",
    "solver": "ospiel_team.runner.api",
    "solver_names": "ospiel_team.runner.registry",
    "write_outputs": "ospiel_team.runner.report",
    "api": "ospiel_team.runner.api",
    "comparison": "ospiel_team.runner.comparison",
    "execute": "ospiel_team.runner.execute",
    "metrics": "ospiel_team.runner.metrics",
    "reference": "ospiel_team.runner.reference",
    "registry": "ospiel_team.runner.registry",
    "report": "ospiel_team.runner.report",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
