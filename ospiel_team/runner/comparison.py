r"""Comparison runner: our algorithms beside OpenSpiel's CFR, CFR+, JAX CFR, XFP, NFSP and MMD.

Every (solver, seed) run is one task: the solver runs under a budget of iterations
(`--iterations`) or of its own CPU seconds (`--seconds`; JIT compilation and snapshot
building are excluded and reported apart), and is evaluated at log-spaced checkpoints on the
metric that fits the game:

* common-payoff games (utility IDENTICAL): `value`, the common payoff (the number every player
  receives; the same number as `coop_optimum`'s `value` and a JPS result's `value`), higher is
  better; reference line: the proven cooperative optimum. `--teams` is an error there;
* games with `--teams "0,1|2"` (two-team zero-sum): `team_value_vs_br`, team 1's summed return
  when team 2 best responds jointly; reference: the TMECor value (`team_lp`'s `value`);
* other games: `nash_conv`, lower is better; reference: 0.

Each solver is judged by the policy it produces (its `primary` variant: CFR's average, ED's
current policy, the JPS-improved policy of `jps` and `cfr+jps`). Every solver's budget counts
all of its own CPU work (JPS included); only one-time setup, JIT compilation and converting a
snapshot's policies to arrays are excluded (and reported apart).

Metrics (`metrics`) are computed on the array game tree (`ospiel_team.tree.evaluation`);
reference values are in `reference`. Tasks run in a local process pool (`--workers`, default
all cores) or on a Ray cluster (`--ray ADDRESS` or `--ray local`) (`execute`); each finished
task is written atomically to `OUT/runs/`, so a killed run resumes where it stopped and a
finished command rerun only re-renders. Tables and figures: `report`. Results do not depend on
the parallelism (every task is seeded; under `--seconds` the number of iterations a solver
fits into its budget of course depends on the machine).

Usage:
  ospiel-team-compare                       # the default comparison (< 1 minute)
  ospiel-team-compare --game leduc_poker --solvers cfr,cfr_plus,jax_cfr,mmd,ed \
      --seconds 10 --seeds 5 --out out/leduc

It writes OUT/results.json (the command, versions, date, commit and cores, then rows with
`solver`, `variant`, `seed`, `iteration`, `seconds` (solver CPU), `metric_name`, `metric`, ...),
OUT/results.md (mean and 95% confidence interval over seeds per solver and variant, with what
one iteration of each solver is) and OUT/curves.png (each seed's curve and their mean against
iterations and against CPU seconds, with the reference line; see `report.plot_curves`).

Adding a solver: one generator function plus one `@api.solver(...)` line
(`ospiel_team/runner/api.py`) in an adapter module (`ospiel_team/runner/adapters/`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import pyspiel

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.runner import execute
from ospiel_team.runner import metrics
from ospiel_team.runner import registry
from ospiel_team.runner.api import UserError
from ospiel_team.tree import resolver
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree

DEFAULT_GAME = "kuhn_poker"
DEFAULT_SOLVERS = ("cfr_plus", "xfp", "nfsp", "ed")
DEFAULT_SECONDS = 6.0
DEFAULT_SEEDS = 3


MAX_SEED = 2**32 - 1  # numpy's `RandomState` and OpenSpiel's seeds take 32 bits


def parse_seeds(text: str | int | Sequence[int]) -> list[int]:
  """"3" -> [0, 1, 2]; "0,5,7" -> [0, 5, 7]; UserError naming a bad value.

  Args:
    text: a count, a comma list of seeds, or a sequence of integers >= 0.

  Returns:
    The seeds.
  """
  if isinstance(text, int):
    text = str(text)
  if not isinstance(text, str):
    seeds = list(checks.check_int_sequence("text (the seeds)", text, minimum=0,
                                           what="seeds (integers >= 0)"))
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
  bad = [s for s in seeds if not 0 <= s <= MAX_SEED]
  if bad:
    raise UserError(f"--seeds {text!r}: seed {bad[0]} is not from 0 to {MAX_SEED} (numpy's "
                    "and the solvers' seeds are 32-bit)")
  if len(set(seeds)) != len(seeds):
    raise UserError(f"--seeds {text!r} repeats a seed")
  return seeds


def _first_line(e: BaseException) -> str:
  return (str(e).strip().splitlines() or [type(e).__name__])[0]


def resolve_runner_game(game: str | pyspiel.Game | GameTree, *, name: str = "game"
                        ) -> GameTree:
  """The tree of the game to compare on (`tree.resolve`), or UserError naming what is wrong.

  The runner walks the whole game tree (exact metrics), so a game too large to walk, a
  simultaneous-move game and a game whose parameters are out of range are refused here,
  before any run starts. A tree walked here is kept for the inline runs (`execute.tree_for`).

  Args:
    game: a game string, a pyspiel game or its `GameTree`.
    name: the argument's name, for messages ("--game" on the command line).

  Returns:
    The game's `GameTree`.

  Raises:
    UserError: naming `name` and the game: no game, not turn-based, or too large.
  """
  if isinstance(game, GameTree):
    return game
  try:
    return execute.tree_for(resolver.resolve_game(game, name=name))
  except errors.NotTurnBasedError:
    raise
  except errors.SizeLimitError as e:
    raise UserError(f"{name} {str(game)!r}: too large for the runner, which walks the whole "
                    f"game tree: {_first_line(e)}") from None


def check_ray(address: str | None) -> None:
  """UserError with the install command when `address` asks for Ray and Ray is missing.

  Args:
    address: the --ray address (None or empty: Ray not asked for).
  """
  if address and importlib.util.find_spec("ray") is None:
    raise UserError(f"--ray {address}: Ray is not installed; install it with "
                    "pip install 'ospiel-team[ray]' (or run without --ray)")


def run_all(game: pyspiel.Game | str | GameTree, solvers: Sequence[str], *,
            iterations: int | None = None, seed: int = 0, num_points: int = 12,
            options: dict[str, str] | None = None, metric: str | None = None,
            tree: GameTree | None = None, progress: bool = True, seeds: Sequence[int] | None = None,
            seconds: float | None = None, teams: str | None = None, workers: int = 1,
            ray_address: str | None = None, out: str | None = None
            ) -> tuple[list[execute.Row], list[dict[str, Any]]]:
  """Runs every (solver, seed) task; returns (rows, infos): result rows and per-run timings.

  Args:
    game: a game string, pyspiel game or `GameTree` (`resolve_runner_game`, once).
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
    teams: "0,1|2" for a two-team zero-sum game (an error on a common-payoff game); with
      `metric="team_value_vs_br"` and no teams, `teams.default_teams`.
    workers: processes (1 = inline, in this process).
    ray_address: run the tasks on Ray ("local" or a cluster address).
    out: result store folder (`execute.ResultStore`): finished tasks found there are not rerun;
      it is locked for the duration (`execute.out_lock`).

  Returns:
    `(rows, infos)`: every run's result rows (`execute.Row`) and one timing dict per run.

  Raises:
    UserError: a bad argument, named, before any task runs.
  """
  _check_run_arguments(solvers, iterations=iterations, seed=seed, num_points=num_points,
                       options=options, tree=tree, progress=progress, seeds=seeds,
                       seconds=seconds, workers=workers, ray_address=ray_address, out=out)
  tree = resolve_runner_game(tree if tree is not None else game)  # the one walk, if any
  game = tree.game
  _check_solver_names(solvers)
  _check_budget(iterations, seconds, num_points, out)
  team_obj = _two_teams(game, teams)
  for name in solvers:
    check = registry.spec(name).check
    why = check(game, team_obj) if check else None
    if why:
      raise UserError(f"solver {name} cannot run on {game}: it {why}")
  try:
    per_solver = registry.validate_options(solvers, dict(options or {}))
  except ValueError as e:
    raise UserError(str(e)) from None
  metric, team_obj = _metric_and_teams(game, metric, team_obj)
  check_ray(ray_address)
  seeds = list(seeds) if seeds is not None else [seed]
  with contextlib.ExitStack() as stack:
    store = None
    if out:
      stack.enter_context(execute.out_lock(out))
      store = execute.ResultStore(out)
    return _run_tasks(game, solvers, iterations, seconds, num_points, metric, team_obj,
                      per_solver, seeds, store, tree, progress, workers, ray_address)


def _check_run_arguments(solvers, *, iterations, seed, num_points, options, tree, progress,
                         seeds, seconds, workers, ray_address, out) -> None:
  """`run_all`'s arguments checked by type before any work (UserError naming the first bad one).

  The ranges of the budget are `_check_budget`'s; the names of the solvers
  `_check_solver_names`'.
  """
  if tree is not None:
    checks.check_tree("tree", tree)
  if isinstance(solvers, (str, bytes)) or not isinstance(solvers, Sequence) or not all(
      isinstance(s, str) for s in solvers):
    raise UserError(f"solvers must be a list of solver names, got {type(solvers).__name__} "
                    f"{solvers!r:.80}")
  checks.check_int("iterations", iterations, allow_none=True)
  checks.check_real("seconds", seconds, allow_none=True)
  checks.check_int("num_points", num_points)
  checks.check_int("seed", seed, minimum=0, maximum=MAX_SEED)
  for s in checks.check_int_sequence("seeds", seeds, minimum=0, what="seeds (integers >= 0)",
                                     allow_none=True) or ():
    checks.check_int("seeds", s, maximum=MAX_SEED)
  checks.check_type("options", options, (Mapping, type(None)),
                    "a dict of solver options ({'nfsp.episodes': '50'}) or None")
  checks.check_bool("progress", progress)
  checks.check_int("workers", workers, minimum=1)
  checks.check_type("ray_address", ray_address, (str, type(None)),
                    "a Ray address ('local' or a cluster address) or None")
  checks.check_type("out", out, (str, type(None)), "a folder path (str) or None")


def _check_solver_names(solvers: Sequence[str]) -> None:
  """UserError unless `solvers` names registered solvers, each once."""
  if not solvers:
    raise UserError("no solvers given")
  for name in solvers:
    try:
      registry.spec(name)
    except ValueError as e:
      raise UserError(str(e)) from None
  if len(set(solvers)) != len(solvers):
    raise UserError(f"--solvers {','.join(solvers)} names a solver twice")


def _check_budget(iterations: int | None, seconds: float | None, num_points: int,
                  out: str | None) -> None:
  """UserError for a missing or out-of-range budget, checkpoint count or output folder."""
  if iterations is None and seconds is None:
    raise UserError("give an --iterations or a --seconds budget")
  if iterations is not None and iterations < 1:
    raise UserError(f"--iterations must be >= 1, got {iterations}")
  if seconds is not None and not (seconds > 0 and math.isfinite(seconds)):
    raise UserError(f"--seconds must be a positive number, got {seconds}")
  if num_points < 1:
    raise UserError(f"--num_points must be >= 1, got {num_points}")
  if out is not None and not out.strip():
    raise UserError("--out is empty: give the output folder")


def _two_teams(game: pyspiel.Game, teams: str | None) -> teams_lib.Teams | None:
  """The two teams of `teams` ("0,1|2"; None or empty: None); UserError when they are not."""
  if not teams:
    return None
  if metrics.is_common_payoff(game):
    raise UserError(f"--teams {teams!r}: {game} is a common-payoff game (every player is on "
                    "one team, its value is the common payoff); drop --teams")
  try:
    team_obj = teams_lib.parse_teams(teams, game.num_players())
    if team_obj.num_teams != 2:
      raise ValueError(f"needs two teams, got {team_obj.num_teams}")
  except ValueError as e:
    raise UserError(f"--teams {teams!r}: {e}") from None
  return team_obj


def _metric_and_teams(game: pyspiel.Game, metric: str | None, team_obj
                      ) -> tuple[str, teams_lib.Teams | None]:
  """The metric (default: `metrics.default_metric`) and the teams it reads, checked.

  ``team_value_vs_br`` on a game without given teams gets `teams.default_teams`.
  """
  metric = metric or metrics.default_metric(game, team_obj)
  if metric == "team_value_vs_br" and team_obj is None and not metrics.is_common_payoff(game):
    try:
      team_obj = teams_lib.default_teams(game)
    except ValueError as e:
      raise UserError(f"--metric {metric}: {e}; give --teams") from None
  try:
    metrics.check_metric(metric, game, team_obj)
  except ValueError as e:
    raise UserError(f"--metric {metric}: {e}") from None
  return metric, team_obj


def _run_tasks(game, solvers, iterations, seconds, num_points, metric, team_obj, per_solver,
               seeds, store, tree, progress, workers, ray_address):
  tasks = [execute.Task(game=str(game), solver=s, seed=int(k), iterations=iterations,
                        seconds=seconds, num_points=num_points, metric=metric,
                        teams=str(team_obj) if team_obj else None, options=per_solver[s])
           for s in solvers for k in seeds]
  results: dict[str, execute.Result] = {}
  todo = []
  for t in tasks:
    stored = store.load(t) if store else None
    if stored is not None:
      results[execute.task_key(t)] = stored
    else:
      todo.append(t)
  bar = None
  if progress and todo:
    import tqdm
    bar = tqdm.tqdm(total=len(todo), desc=str(game), unit=" runs")

  def on_done(task, res):
    res = dict(res, task=task)
    results[execute.task_key(task)] = res
    if store:
      store.save(task, res)
    if bar is not None:
      bar.set_postfix(solver=task["solver"], seed=task["seed"])
      bar.update(1)

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
