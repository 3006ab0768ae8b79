"""Running the runner's tasks: one (solver, seed) task, a local process pool or Ray, the store.

A task is a JSON-able dict (game, solver, seed, budget, checkpoints, metric, teams, options);
`run_task` runs it in this process and returns its rows and timings. `execute` runs a list of
tasks inline, in a process pool of spawned workers that end with their parent
(`ospiel_team.processes.die_with_parent`), or on a Ray cluster. `ResultStore` keeps every
finished task as one file `OUT/runs/<task key>.json`, written atomically, so that a killed
comparison resumes where it stopped; `out_lock` keeps a second comparison off a folder that a
running one holds.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any
from typing import TypedDict
from typing import cast

import numpy as np
import pyspiel

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team import paths
from ospiel_team import processes
from ospiel_team.runner import api
from ospiel_team.runner import metrics
from ospiel_team.runner import registry
from ospiel_team.tree import resolver
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree


class Task(TypedDict):
  """One (solver, seed) run, as `comparison.run_all` builds it (and `task_key` names it)."""
  game: str
  solver: str
  seed: int
  iterations: int | None
  seconds: float | None
  num_points: int
  metric: str
  teams: str | None
  options: dict[str, Any]


class Row(TypedDict):
  """One result row: one policy variant of one solver's seed at one checkpoint.

  The keys every row has; a row also carries its solver's own numbers (`Snapshot.extra`,
  e.g. NFSP's `episodes`) and the CPU seconds excluded from its budget
  (`<kind>_cpu_seconds`: jit, setup, snapshot), under their own names.

  Attributes:
    game: the game string.
    solver: the registered solver name.
    variant: the policy variant ("average", "current", "purified", ...).
    seed: the run's seed.
    iteration: the checkpoint's iteration.
    seconds: the solver's CPU seconds up to the checkpoint.
    metric_name: the metric (`metrics`).
    metric: its value for this variant's policy.
    primary: whether the variant is the one the solver is judged by.
  """
  game: str
  solver: str
  variant: str
  seed: int
  iteration: int
  seconds: float
  metric_name: str
  metric: float
  primary: bool


class Result(TypedDict):
  """What one task returns: its rows and its timings (`run_task`)."""
  rows: list[Row]
  info: dict[str, Any]

_TREES: dict[str, GameTree] = {}


def tree_for(game: str | pyspiel.Game) -> GameTree:
  """The `GameTree` of `game` (a game string or pyspiel game), resolved once per process.

  Args:
    game: the game or its string (`tree.resolve`; a simultaneous-move game is refused with
      `errors.NotTurnBasedError`).

  Returns:
    The tree, walked on the first call for the game's string and kept.
  """
  key = str(game)
  if key not in _TREES:
    _TREES[key] = resolver.resolve(game, name="--game", turn_based=True)
  return _TREES[key]


def run_task(task: Task, tree: GameTree | None = None) -> Result:
  """Runs one (solver, seed) task in this process.

  Args:
    task: {"game", "solver", "seed", "iterations", "seconds", "num_points", "metric",
      "teams", "options"} (as `compare.run_all` builds it).
    tree: the game's `GameTree` (default: `tree_for(task["game"])`).

  Returns:
    {"rows": one row per checkpoint and policy variant, "info": the run's timings, its
    budget, `iterations` (of its last checkpoint) and `iterations_run` (all it ran)}.
  """
  game_str = task["game"]
  tree = tree if tree is not None else tree_for(game_str)
  game = tree.game
  teams = (teams_lib.parse_teams(task["teams"], game.num_players()) if task.get("teams")
           else None)
  spec = registry.spec(task["solver"])
  metric_fn = metrics.metric_fn(task["metric"])
  iterations = task.get("iterations")
  checkpoints = api.log_checkpoints(iterations, task["num_points"]) if iterations else []
  np.random.seed(task["seed"])
  ctx = api.SolverContext(game=game, tree=tree, seed=task["seed"], iterations=iterations,
                          checkpoints=checkpoints, options=dict(task.get("options", {})),
                          seconds=task.get("seconds"), num_points=task["num_points"],
                          teams=teams)
  clock = ctx.clock
  gen = spec.fn(ctx)
  rows: list[Row] = []
  wall_start = time.perf_counter()
  eval_seconds = 0.0
  while True:
    clock.start()
    try:
      snap = next(gen)
    except StopIteration:
      break
    finally:
      clock.stop()
    solver_seconds = clock.elapsed()
    start = time.process_time()
    policies = dict(snap.policies)
    if "average" in policies and "purified" not in policies:
      policies["purified"] = tree.purified_policy_array(policies["average"])
    for variant, pi in policies.items():
      row = Row(game=str(game), solver=spec.name, variant=variant, seed=task["seed"],
                iteration=int(snap.iteration), seconds=round(solver_seconds, 6),
                metric_name=task["metric"], metric=metric_fn(tree, np.asarray(pi), teams),
                primary=variant == spec.primary)
      cast(dict, row).update({k: (float(v) if isinstance(v, (int, float, np.floating)) else v)
                              for k, v in snap.extra.items()})
      rows.append(row)
    eval_seconds += time.process_time() - start
  info = dict(solver=spec.name, seed=task["seed"], solver_cpu_seconds=clock.elapsed(),
              excluded_cpu_seconds=dict(clock.excluded_seconds),
              eval_cpu_seconds=eval_seconds, wall_seconds=time.perf_counter() - wall_start,
              iterations=rows[-1]["iteration"] if rows else 0,
              iterations_run=ctx.last_iteration, budget_seconds=task.get("seconds"),
              budget_iterations=iterations)
  for row in rows:
    for kind, sec in clock.excluded_seconds.items():
      cast(dict, row)[f"{kind}_cpu_seconds"] = round(sec, 6)
  return Result(rows=rows, info=info)


def task_key(task: Task) -> str:
  """A file name for `task`: solver, seed and a hash of everything else.

  Args:
    task: the task.

  Returns:
    "SOLVER-seedN-HASH" ("+" in the solver's name written "_").
  """
  digest = hashlib.sha256(json.dumps(task, sort_keys=True).encode()).hexdigest()[:12]
  safe = task["solver"].replace("+", "_")
  return f"{safe}-seed{task['seed']}-{digest}"


def configure_worker() -> None:
  """Configures this process for running tasks (a pool or Ray worker, or an inline run).

  One core per worker: XLA and BLAS threads would otherwise fight over the pool's cores and
  blur the CPU-second budgets. JAX's persistent compilation cache, in
  `paths.cache_dir("jax_compilation_cache")`: OpenSpiel's NFSP compiles per agent instance, so
  every run would compile the same programs again (excluded from the budget, but minutes of
  wall time in a sweep); compiled programs do not change results.
  """
  os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                        "intra_op_parallelism_threads=1")
  for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
  settings: dict[str, Any] = {"jax_compilation_cache_dir": paths.cache_dir("jax_compilation_cache"),
              "jax_persistent_cache_min_compile_time_secs": 0.0,
              "jax_persistent_cache_min_entry_size_bytes": 0}
  for name, value in settings.items():
    os.environ.setdefault(name.upper(), str(value))
  if "jax" in sys.modules:
    import jax
    for name, value in settings.items():
      jax.config.update(name, type(value)(os.environ[name.upper()]))


def _pool_worker_init(parent_pid: int) -> None:
  processes.die_with_parent(parent_pid)
  configure_worker()


def _run_numbered(numbered: tuple[int, Task]) -> tuple[int, Result]:
  index, task = numbered
  return index, run_task(task)


def _ray_task(task: Task) -> Result:
  configure_worker()
  return run_task(task)


def execute(tasks: list[Task], workers: int, ray_address: str | None,
            tree: GameTree | None, on_done: Callable[[Task, Result], None]) -> None:
  """Runs `tasks` and calls `on_done(task, result)` as each one finishes.

  Args:
    tasks: the tasks (`run_task`).
    workers: 1 (or a single task): inline, in this process; more: a process pool of that
      many spawned workers (which end with this process), or Ray's CPUs for `ray_address`
      "local".
    ray_address: None, "local" (start Ray on this machine) or a Ray cluster address.
    tree: the game's tree, used by inline runs of the same game.
    on_done: called in this process, in the order the tasks finish.
  """
  if ray_address:
    try:
      import ray
    except ImportError as e:
      raise ImportError("running on Ray needs Ray: pip install 'ospiel-team[ray]'") from e
    if not ray.is_initialized():
      kwargs = dict(include_dashboard=False, log_to_driver=False)
      if ray_address == "local":
        ray.init(num_cpus=workers, **kwargs)
      else:
        ray.init(address=ray_address, **kwargs)
    remote = ray.remote(num_cpus=1)(_ray_task)
    pending = {remote.remote(t): t for t in tasks}
    while pending:
      done, _ = ray.wait(list(pending), num_returns=1)
      for ref in done:
        on_done(pending.pop(ref), ray.get(ref))
    return
  if workers <= 1 or len(tasks) <= 1:
    for t in tasks:
      on_done(t, run_task(t, tree=tree if tree is not None and str(tree.game) == t["game"]
                          else None))
    return
  # Leaving the block (done, a failed task, Ctrl-C) terminates the workers at once.
  with processes.spawn_pool(min(workers, len(tasks)), _pool_worker_init,
                            (os.getpid(),)) as pool:
    for index, result in pool.imap_unordered(_run_numbered, enumerate(tasks)):
      on_done(tasks[index], result)


LOCK_NAME = ".lock"
_HELD: dict[str, int] = {}  # folders whose lock this process holds -> nesting depth


def _alive(pid: int) -> bool:
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except PermissionError:
    return True
  return True


@contextlib.contextmanager
def out_lock(out: str):
  """Holds `out` for this process: a second comparison on the same folder is refused.

  The lock is the file `OUT/.lock` holding the owner's process id, created exclusively; a lock
  left by a process that no longer exists is taken over. Re-entrant within one process.

  Args:
    out: the output folder (created if missing).

  Yields:
    Nothing; the lock is released on exit.

  Raises:
    api.UserError: `out` is held by another live process, or cannot be created.
  """
  try:
    atomic_io.check_writable(out, folder=True)
    os.makedirs(out, exist_ok=True)
  except (ValueError, OSError) as e:
    raise api.UserError(f"--out {out!r}: {getattr(e, 'strerror', None) or e}") from None
  key = os.path.realpath(out)
  if key in _HELD:
    _HELD[key] += 1
    try:
      yield
    finally:
      _HELD[key] -= 1
    return
  path = os.path.join(out, LOCK_NAME)
  for _ in range(3):
    try:
      fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
      try:
        with open(path, encoding="utf-8") as f:
          owner = int(f.read().strip() or 0)
      except (OSError, ValueError):
        owner = 0
      if owner and owner != os.getpid() and _alive(owner):
        raise api.UserError(f"--out {out!r} is in use by another comparison (process {owner});"
                            " wait for it or choose another --out") from None
      try:  # a stale lock of a dead process: take it over
        os.unlink(path)
      except OSError as e:
        if e.errno != errno.ENOENT:
          raise
      continue
    with os.fdopen(fd, "w", encoding="utf-8") as f:
      f.write(str(os.getpid()))
    break
  else:
    raise api.UserError(f"--out {out!r}: could not take its lock {path}")
  _HELD[key] = 1
  try:
    yield
  finally:
    del _HELD[key]
    with contextlib.suppress(OSError):
      os.unlink(path)


class ResultStore:
  """Finished tasks kept as files `OUT/runs/<task key>.json` (written atomically).

  Creating the store checks that `out` is, or can be created as, a writable folder (UserError
  naming it otherwise), before any work starts.
  """

  def __init__(self, out: str):
    try:
      atomic_io.check_writable(out, folder=True)
    except ValueError as e:
      raise api.UserError(str(e)) from None
    self.out = out
    self.runs = os.path.join(out, "runs")
    try:
      os.makedirs(self.runs, exist_ok=True)
    except OSError as e:
      raise api.UserError(f"--out {out!r} cannot be created: {e.strerror}") from None

  def path(self, task: Task) -> str:
    """The JSON file of `task`'s result in the cache.

    Args:
      task: the task.

    Returns:
      The file's path.
    """
    return os.path.join(self.runs, task_key(task) + ".json")

  def load(self, task: Task) -> Result | None:
    """The stored result of `task`, or None if it has not finished.

    A record that fails `atomic_io.read_json` (truncated, empty, not a JSON object, no digest,
    or content that does not match its digest: edited numbers, or another task's record under
    this task's name) counts as not finished: a warning names it, and the run is made again and
    its record replaced.

    Args:
      task: the task.

    Returns:
      The result, or None.
    """
    path = self.path(task)
    if not os.path.exists(path):
      return None
    try:
      return atomic_io.read_json(path, "run record", bind=task_key(task))
    except errors.DamagedFileError as e:
      warnings.warn(f"{e}; running it again", stacklevel=2)
      return None

  def save(self, task: Task, result: Result) -> None:
    """Stores `task`'s result in the cache (atomically, with its digest bound to the task).

    Args:
      task: the task.
      result: its result.
    """
    atomic_io.write_json(self.path(task), result, bind=task_key(task))
