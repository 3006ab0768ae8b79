r"""Comparison runner: our algorithms beside OpenSpiel's CFR, CFR+, JAX CFR, XFP, NFSP and MMD.

Every (solver, seed) run is one task: the solver runs under a budget of iterations
(`--iterations`) or of its own CPU seconds (`--seconds`; JIT compilation and snapshot
building are excluded and reported apart), and is evaluated at log-spaced checkpoints on the
metric that fits the game:

* common-payoff games (utility IDENTICAL): `team_value`, the team's expected return summed
  over its members (here all players; the same meaning as `coop_optimum`'s `team_value` and
  `team_lp`'s value), higher is better; reference line: the proven cooperative optimum;
* games with `--teams "0,1|2"` (two-team zero-sum): `team_value_vs_br`, team 1's value (sum
  over its members) when team 2 best responds jointly; reference: the TMECor value (team_lp);
* other games: `nash_conv`, lower is better; reference: 0.

Metrics (`metrics`) are computed on the array game tree (`ospiel_team.tree.evaluation`);
reference values are in `reference`. Tasks run in a local process pool (`--workers`, default
all cores) or on a Ray cluster (`--ray ADDRESS` or `--ray local`) (`execute`); each finished
task is written atomically to `OUT/runs/`, so a killed run resumes where it stopped and a
finished command rerun only re-renders. Tables and figures: `report`. Results do not depend on
the parallelism (every task is seeded; under `--seconds` the number of iterations a solver
fits into its budget of course depends on the machine).

Usage:
  python -m ospiel_team.compare                       # the default comparison (< 1 minute)
  python -m ospiel_team.compare --game leduc_poker --solvers cfr,cfr_plus,jax_cfr,mmd,ed \
      --seconds 10 --seeds 5 --out out/leduc

It writes OUT/results.json (rows with `solver`, `variant`, `seed`, `iteration`, `seconds`
(solver CPU), `metric_name`, `metric`, ...), OUT/results.md (mean and 95% confidence interval
over seeds per solver and variant, with what one iteration of each solver is) and
OUT/curves.png (mean and 95% band against iterations and against CPU seconds, with the
reference line).

Adding a solver: one generator function plus one `@api.solver(...)` line
(`ospiel_team/runner/api.py`) in an adapter module (`ospiel_team/runner/adapters/`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pyspiel

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.runner import execute
from ospiel_team.runner import metrics
from ospiel_team.runner import registry
from ospiel_team.runner.api import UserError
from ospiel_team.tree.game_tree import GameTree

DEFAULT_GAME = "kuhn_poker"
DEFAULT_SOLVERS = ("cfr_plus", "xfp", "nfsp", "ed")
DEFAULT_SECONDS = 6.0
DEFAULT_SEEDS = 3


def parse_seeds(text: str | int | Sequence[int]) -> list[int]:
  """"3" -> [0, 1, 2]; "0,5,7" -> [0, 5, 7]; UserError naming a bad value."""
  if isinstance(text, int):
    text = str(text)
  if not isinstance(text, str):
    seeds = [int(s) for s in text]
  else:
    parts = [t.strip() for t in text.split(",") if t.strip()]
    if not parts:
      raise UserError(f"--seeds {text!r} is empty")
    try:
      nums = [int(p) for p in parts]
    except ValueError:
      raise UserError(f"--seeds {text!r}: not an integer count or a comma list of integers"
                      ) from None
    if len(nums) == 1 and "," not in text:
      if nums[0] < 1:
        raise UserError(f"--seeds {text!r}: a count must be >= 1")
      seeds = list(range(nums[0]))
    else:
      seeds = nums
  if any(s < 0 for s in seeds):
    raise UserError(f"--seeds {text!r}: seeds must be >= 0")
  if len(set(seeds)) != len(seeds):
    raise UserError(f"--seeds {text!r} repeats a seed")
  return seeds


def run_all(game: pyspiel.Game | str, solvers: Sequence[str], iterations: int | None = None,
            seed: int = 0, num_points: int = 12, options: dict[str, str] | None = None,
            metric: str | None = None, tree: GameTree | None = None,
            progress: bool = True, seeds: Sequence[int] | None = None,
            seconds: float | None = None, teams: str | None = None, workers: int = 1,
            ray_address: str | None = None, out: str | None = None
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
  """Runs every (solver, seed) task; returns (rows, infos): result rows and per-run timings.

  Args:
    game: a pyspiel game or game string.
    solvers: registered solver names (`registry.solver_names()`).
    iterations: iteration budget per run (with `seconds`: a cap).
    seed: the seed when `seeds` is not given.
    num_points: number of log-spaced checkpoints.
    options: solver options {"nfsp.episodes": "50"}; unknown keys are an error.
    metric: metric name (default: `metrics.default_metric`).
    tree: the game's GameTree, if already built (used by inline runs).
    progress: show a tqdm bar.
    seeds: seeds to run every solver with.
    seconds: CPU-second budget per run (solver time only).
    teams: "0,1|2" for a two-team zero-sum game.
    workers: processes (1 = inline, in this process).
    ray_address: run the tasks on Ray ("local" or a cluster address).
    out: result store folder (`execute.ResultStore`): finished tasks found there are not rerun.

  Raises:
    UserError: a bad argument, named, before any task runs.
  """
  if isinstance(game, str):
    game = pyspiel.load_game(game)
  if not solvers:
    raise UserError("no solvers given")
  for name in solvers:
    try:
      registry.spec(name)
    except ValueError as e:
      raise UserError(str(e)) from None
  if len(set(solvers)) != len(solvers):
    raise UserError(f"--solvers {','.join(solvers)} names a solver twice")
  if iterations is None and seconds is None:
    raise UserError("give an --iterations or a --seconds budget")
  if iterations is not None and iterations < 1:
    raise UserError(f"--iterations must be >= 1, got {iterations}")
  if seconds is not None and not (seconds > 0 and math.isfinite(seconds)):
    raise UserError(f"--seconds must be a positive number, got {seconds}")
  if num_points < 1:
    raise UserError(f"--num_points must be >= 1, got {num_points}")
  team_obj = None
  if teams:
    try:
      team_obj = teams_lib.parse_teams(teams, game.num_players())
      if team_obj.num_teams != 2:
        raise ValueError(f"needs two teams, got {team_obj.num_teams}")
    except ValueError as e:
      raise UserError(f"--teams {teams!r}: {e}") from None
  for name in solvers:
    check = registry.spec(name).check
    why = check(game) if check else None
    if why:
      raise UserError(f"solver {name} cannot run on {game}: it {why}")
  try:
    per_solver = registry.validate_options(solvers, dict(options or {}))
  except ValueError as e:
    raise UserError(str(e)) from None
  metric = metric or metrics.default_metric(game, team_obj)
  try:
    metrics.metric_fn(metric)
  except ValueError as e:
    raise UserError(str(e)) from None
  seeds = list(seeds) if seeds is not None else [seed]
  store = execute.ResultStore(out) if out else None
  tasks = [dict(game=str(game), solver=s, seed=int(k), iterations=iterations,
                seconds=seconds, num_points=num_points, metric=metric,
                teams=str(team_obj) if team_obj else None, options=per_solver[s])
           for s in solvers for k in seeds]
  results: dict[str, dict[str, Any]] = {}
  todo = []
  for t in tasks:
    stored = store.load(t) if store else None
    if stored is not None:
      results[execute.task_key(t)] = stored
    else:
      todo.append(t)
  bar = None
  if progress and todo:
    import tqdm  #
    bar = tqdm.tqdm(total=len(todo), desc=str(game), unit=" runs")

  def on_done(task, res):
    res = dict(res, task=task)
    results[execute.task_key(task)] = res
    if store:
      store.save(task, res)
    if bar is not None:
      bar.set_postfix(solver=task["solver"], seed=task["seed"])
      bar.update(1)

  if tree is None and (workers <= 1 and not ray_address):
    tree = GameTree(game)
  try:
    execute.execute(todo, workers, ray_address, tree, on_done)
  finally:
    if bar is not None:
      bar.close()
  rows, infos = [], []
  for t in tasks:  # a fixed order, whatever order the tasks finished in
    rows.extend(results[execute.task_key(t)]["rows"])
    infos.append(results[execute.task_key(t)]["info"])
  return rows, infos
