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

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.runner import api as api
  from ospiel_team.runner import comparison as comparison
  from ospiel_team.runner import execute as execute
  from ospiel_team.runner import metrics as metrics
  from ospiel_team.runner import reference as reference
  from ospiel_team.runner import registry as registry
  from ospiel_team.runner import report as report
  from ospiel_team.runner.api import Snapshot as Snapshot
  from ospiel_team.runner.api import SolverContext as SolverContext
  from ospiel_team.runner.api import solver as solver
  from ospiel_team.runner.comparison import parse_seeds as parse_seeds
  from ospiel_team.runner.comparison import run_all as run_all
  from ospiel_team.runner.execute import Row as Row
  from ospiel_team.runner.registry import solver_names as solver_names
  from ospiel_team.runner.report import write_outputs as write_outputs

_PUBLIC = {
    "run_all": "ospiel_team.runner.comparison",
    "parse_seeds": "ospiel_team.runner.comparison",
    "Row": "ospiel_team.runner.execute",
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
