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

Metrics are computed on the array game tree (`ospiel_team.tree.evaluation`). Tasks run
in a local process pool (`--workers`, default all cores) or on a Ray cluster (`--ray ADDRESS`
or `--ray local`); each finished task is written atomically to `OUT/runs/`, so a killed run
resumes where it stopped and a finished command rerun only re-renders. Results do not depend on
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
(`ospiel_team/runner/api.py`).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import math
import multiprocessing
import os
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pyspiel

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team.tree import evaluation
from ospiel_team.algorithms.team import best_response as team_best_response
from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.runner import solvers as solver_catalog
# The solver API, re-exported for scripts that drive solvers themselves.
from ospiel_team.runner.api import (SolverContext, Snapshot, log_checkpoints,  # noqa: F401
                                    parse_options)
from ospiel_team.runner.solvers import solver_fn, solver_names  # noqa: F401

DEFAULT_GAME = "kuhn_poker"
DEFAULT_SOLVERS = ("cfr_plus", "xfp", "nfsp", "ed")
DEFAULT_SECONDS = 6.0
DEFAULT_SEEDS = 3


class UserError(ValueError):
  """A bad command-line value (printed as one line by `main`)."""


def purified(tree: GameTree, pi: np.ndarray) -> np.ndarray:
  """The argmax (first maximal legal action) policy of `pi` (`GameTree.purified_policy_array`)."""
  return tree.purified_policy_array(pi)


# ------------------------------------------------------------------------------------------------
# Metrics: fn(tree, pi, teams) -> float.
def team_value(tree: GameTree, pi: np.ndarray, teams=None) -> float:
  """Team 1's expected return summed over its members (all players if no teams are given)."""
  v = evaluation.game_value(tree, pi)
  members = range(tree.num_players) if teams is None else teams.teams[0]
  return float(sum(v[p] for p in members))


def nash_conv(tree: GameTree, pi: np.ndarray, teams=None) -> float:
  """NashConv (sum of players' best-response gains)."""
  del teams
  return float(evaluation.nash_conv(tree, pi))


def team_value_vs_br(tree: GameTree, pi: np.ndarray, teams=None) -> float:
  """Team 1's value (members' sum) when team 2 best responds jointly (`teams` module)."""
  return float(team_best_response.team_value_vs_best_response(
      tree, pi, teams if teams is not None else teams_lib.default_teams(tree.game), team=0))


METRICS = {"team_value": team_value, "nash_conv": nash_conv,
           "team_value_vs_br": team_value_vs_br}
LOWER_IS_BETTER = {"nash_conv"}


def default_metric(game: pyspiel.Game, teams=None) -> str:
  """`team_value` (common payoff), `team_value_vs_br` (teams given), else `nash_conv`."""
  if game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL:
    return "team_value"
  if teams is not None:
    return "team_value_vs_br"
  return "nash_conv"


# ------------------------------------------------------------------------------------------------
# Reference values.
_COOP_OPTIMA_JSON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                 "docs", "benchmarks", "coop_optima.json")


def reference(game: pyspiel.Game, tree: GameTree, metric: str, teams=None,
              cache_dir: Optional[str] = None, time_limit: float = 60.0
              ) -> Optional[Dict[str, Any]]:
  """The value the metric should be read against: {"value", "label"} (None if unknown).

  nash_conv: 0. team_value: the proven cooperative optimum (`coop_optimum`), read from the
  recorded `docs/benchmarks/coop_optima.json` or from `cache_dir/reference.json`, else solved
  (within `time_limit` seconds; an unproven incumbent is labelled so) and cached there.
  team_value_vs_br: the TMECor value of team 1 (`team_lp`), cached the same way.
  """
  if metric == "nash_conv":
    return {"value": 0.0, "label": "Nash equilibrium (NashConv 0)"}
  key = f"{metric}|{game}|{teams}"
  cache = {}
  cache_path = os.path.join(cache_dir, "reference.json") if cache_dir else None
  if cache_path and os.path.exists(cache_path):
    with open(cache_path) as f:
      cache = json.load(f)
    if key in cache:
      return cache[key]
  ref = None
  if metric == "team_value":
    if os.path.exists(_COOP_OPTIMA_JSON):
      with open(_COOP_OPTIMA_JSON) as f:
        for row in json.load(f).get("rows", []):
          if row.get("game") == str(game) and row.get("proven_optimal"):
            ref = {"value": float(row["team_value"]),
                   "label": "cooperative optimum (proven, coop_optimum)"}
    if ref is None:
      from ospiel_team.algorithms.coop import optimum as coop_optimum  # pylint: disable=g-import-not-at-top
      res = coop_optimum.solve(tree, time_limit=time_limit)
      ref = {"value": float(res.team_value),
             "label": ("cooperative optimum (proven, coop_optimum)" if res.proven_optimal
                       else "best joint pure strategy found (not proven optimal)")}
  elif metric == "team_value_vs_br":
    from ospiel_team.algorithms.team import lp as team_lp  # pylint: disable=g-import-not-at-top
    res = team_lp.solve(tree, teams if teams is not None else teams_lib.default_teams(game))
    ref = {"value": float(res.value), "label": f"TMECor value of team 1 (team_lp, teams {res.teams})"}
  if ref is not None and cache_path:
    cache[key] = ref
    atomic_io.write_bytes(cache_path, json.dumps(cache, indent=1).encode())
  return ref


# ------------------------------------------------------------------------------------------------
# One (solver, seed) task.
_TREES: Dict[str, GameTree] = {}


def _tree_for(game_str: str) -> GameTree:
  if game_str not in _TREES:
    _TREES[game_str] = GameTree(pyspiel.load_game(game_str))
  return _TREES[game_str]


def run_task(task: Dict[str, Any], tree: Optional[GameTree] = None) -> Dict[str, Any]:
  """Runs one (solver, seed) task and returns {"rows": [...], "info": {...}}."""
  game_str = task["game"]
  tree = tree if tree is not None else _tree_for(game_str)
  game = tree.game
  teams = (teams_lib.parse_teams(task["teams"], game.num_players()) if task.get("teams")
           else None)
  spec = solver_catalog.spec(task["solver"])
  metric_fn = METRICS[task["metric"]]
  iterations = task.get("iterations")
  checkpoints = (log_checkpoints(iterations, task["num_points"]) if iterations else [])
  np.random.seed(task["seed"])
  ctx = SolverContext(game=game, tree=tree, seed=task["seed"], iterations=iterations,
                      checkpoints=checkpoints, options=dict(task.get("options", {})),
                      seconds=task.get("seconds"), num_points=task["num_points"],
                      teams=teams)
  clock = ctx.clock
  gen = spec.fn(ctx)
  rows: List[Dict[str, Any]] = []
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
      row = dict(game=str(game), solver=spec.name, variant=variant, seed=task["seed"],
                 iteration=int(snap.iteration), seconds=round(solver_seconds, 6),
                 metric_name=task["metric"], metric=metric_fn(tree, np.asarray(pi), teams),
                 primary=variant == spec.primary)
      row.update({k: (float(v) if isinstance(v, (int, float, np.floating)) else v)
                  for k, v in snap.extra.items()})
      rows.append(row)
    eval_seconds += time.process_time() - start
  info = dict(solver=spec.name, seed=task["seed"], solver_cpu_seconds=clock.elapsed(),
              excluded_cpu_seconds=dict(clock.excluded_seconds),
              eval_cpu_seconds=eval_seconds, wall_seconds=time.perf_counter() - wall_start,
              iterations=rows[-1]["iteration"] if rows else 0)
  for row in rows:
    for kind, sec in clock.excluded_seconds.items():
      row[f"{kind}_cpu_seconds"] = round(sec, 6)
  return {"rows": rows, "info": info}


def _task_key(task: Dict[str, Any]) -> str:
  digest = hashlib.sha256(json.dumps(task, sort_keys=True).encode()).hexdigest()[:12]
  safe = task["solver"].replace("+", "_")
  return f"{safe}-seed{task['seed']}-{digest}"


def jax_cache_dir() -> str:
  """Where worker processes keep JAX's persistent compilation cache."""
  base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
  return os.path.join(base, "ospiel_team", "jax_compilation_cache")


def _worker_init() -> None:
  """Configures a worker process before its first task.

  One core per worker: XLA and BLAS threads would otherwise fight over the pool's cores and
  blur the CPU-second budgets. JAX's persistent compilation cache: OpenSpiel's NFSP compiles
  per agent instance, so every run would compile the same programs again (excluded from the
  budget, but minutes of wall time in a sweep); compiled programs do not change results.
  """
  os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                        "intra_op_parallelism_threads=1")
  for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
  settings = {"jax_compilation_cache_dir": jax_cache_dir(),
              "jax_persistent_cache_min_compile_time_secs": 0.0,
              "jax_persistent_cache_min_entry_size_bytes": 0}
  for name, value in settings.items():
    os.environ.setdefault(name.upper(), str(value))
  if "jax" in sys.modules:
    import jax  # pylint: disable=g-import-not-at-top
    for name, value in settings.items():
      jax.config.update(name, type(value)(os.environ[name.upper()]))


def _pool_task(task):
  return run_task(task)


def _execute(tasks: List[Dict[str, Any]], workers: int, ray_address: Optional[str],
             tree: Optional[GameTree], on_done) -> None:
  """Runs `tasks` inline (workers = 1), in a process pool, or on Ray; calls on_done(task, res)."""
  if ray_address:
    import ray  # pylint: disable=g-import-not-at-top
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
  ctx = multiprocessing.get_context("spawn")
  with concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(tasks)),
                                              mp_context=ctx, initializer=_worker_init) as ex:
    futures = {ex.submit(_pool_task, t): t for t in tasks}
    for fut in concurrent.futures.as_completed(futures):
      on_done(futures[fut], fut.result())


def _ray_task(task):
  _worker_init()
  return run_task(task)


def parse_seeds(text: str | int | Sequence[int]) -> List[int]:
  """"3" -> [0, 1, 2]; "0,5,7" -> [0, 5, 7]; ValueError naming a bad value."""
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


def check_out_dir(out: str) -> None:
  """Fails (UserError) unless `out` is, or can be created as, a writable directory."""
  if os.path.exists(out) and not os.path.isdir(out):
    raise UserError(f"--out {out!r} exists and is not a directory")
  try:
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
  except OSError as e:
    raise UserError(f"--out {out!r} cannot be created: {e.strerror}") from None
  probe = os.path.join(out, "runs", f".write_test_{os.getpid()}")
  try:
    with open(probe, "w") as f:
      f.write("")
    os.remove(probe)
  except OSError as e:
    raise UserError(f"--out {out!r} is not writable: {e.strerror}") from None


def run(*args, **kwargs) -> List[Dict[str, Any]]:
  """Runs every (solver, seed) task and returns the result rows; arguments of `run_all`."""
  return run_all(*args, **kwargs)[0]


def run_all(game: pyspiel.Game | str, solvers: Sequence[str], iterations: Optional[int] = None,
        seed: int = 0, num_points: int = 12, options: Optional[Dict[str, str]] = None,
        metric: Optional[str] = None, tree: Optional[GameTree] = None,
        progress: bool = True, seeds: Optional[Sequence[int]] = None,
        seconds: Optional[float] = None, teams: Optional[str] = None, workers: int = 1,
        ray_address: Optional[str] = None, out: Optional[str] = None):
  """Runs every (solver, seed) task; returns (rows, infos): result rows and per-run timings.

  Args:
    game: a pyspiel game or game string.
    solvers: registered solver names (`solver_names()`).
    iterations: iteration budget per run (with `seconds`: a cap).
    seed: the seed when `seeds` is not given.
    num_points: number of log-spaced checkpoints.
    options: solver options {"nfsp.episodes": "50"}; unknown keys are an error.
    metric: metric name (default: `default_metric`).
    tree: the game's GameTree, if already built (used by inline runs).
    progress: show a tqdm bar.
    seeds: seeds to run every solver with.
    seconds: CPU-second budget per run (solver time only).
    teams: "0,1|2" for a two-team zero-sum game.
    workers: processes (1 = inline, in this process).
    ray_address: run the tasks on Ray ("local" or a cluster address).
    out: result store directory: finished tasks found there are not rerun.
  """
  if isinstance(game, str):
    game = pyspiel.load_game(game)
  if not solvers:
    raise UserError("no solvers given")
  for name in solvers:
    try:
      solver_catalog.spec(name)
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
    why = solver_catalog.spec(name).check(game) if solver_catalog.spec(name).check else None
    if why:
      raise UserError(f"solver {name} cannot run on {game}: it {why}")
  try:
    per_solver = solver_catalog.validate_options(solvers, dict(options or {}))
  except ValueError as e:
    raise UserError(str(e)) from None
  metric = metric or default_metric(game, team_obj)
  if metric not in METRICS:
    raise UserError(f"unknown metric {metric!r}; known: {', '.join(sorted(METRICS))}")
  seeds = list(seeds) if seeds is not None else [seed]
  if out:
    check_out_dir(out)
  tasks = [dict(game=str(game), solver=s, seed=int(k), iterations=iterations,
                seconds=seconds, num_points=num_points, metric=metric,
                teams=str(team_obj) if team_obj else None, options=per_solver[s])
           for s in solvers for k in seeds]
  results: Dict[str, Dict[str, Any]] = {}
  todo = []
  for t in tasks:
    path = os.path.join(out, "runs", _task_key(t) + ".json") if out else None
    if path and os.path.exists(path):
      with open(path) as f:
        results[_task_key(t)] = json.load(f)
    else:
      todo.append(t)
  bar = None
  if progress and todo:
    import tqdm  # pylint: disable=g-import-not-at-top
    bar = tqdm.tqdm(total=len(todo), desc=str(game), unit=" runs")

  def on_done(task, res):
    key = _task_key(task)
    res = dict(res, task=task)
    results[key] = res
    if out:
      atomic_io.write_bytes(os.path.join(out, "runs", key + ".json"),
                            json.dumps(res).encode())
    if bar is not None:
      bar.set_postfix(solver=task["solver"], seed=task["seed"])
      bar.update(1)

  if tree is None and (workers <= 1 and not ray_address):
    tree = GameTree(game)
  _execute(todo, workers, ray_address, tree, on_done)
  if bar is not None:
    bar.close()
  rows, infos = [], []
  for t in tasks:  # a fixed order, whatever order the tasks finished in
    rows.extend(results[_task_key(t)]["rows"])
    infos.append(results[_task_key(t)]["info"])
  return rows, infos


# ------------------------------------------------------------------------------------------------
# Statistics, tables and figures.
def mean_ci(values: Sequence[float]):
  """(mean, half-width of the 95% Student-t confidence interval); half-width nan for n < 2."""
  x = np.asarray(values, dtype=np.float64)
  if len(x) < 2:
    return float(x.mean()) if len(x) else math.nan, math.nan
  from scipy import stats  # pylint: disable=g-import-not-at-top
  half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
  return float(x.mean()), float(half)


def _series(rows):
  """(solver, variant) -> seed -> list of rows in checkpoint order."""
  out: Dict[tuple, Dict[int, list]] = {}
  for r in rows:
    out.setdefault((r["solver"], r["variant"]), {}).setdefault(r["seed"], []).append(r)
  return out


def _fmt(x: float) -> str:
  return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4g}"


def markdown_table(rows: List[Dict[str, Any]], infos: Optional[List[Dict[str, Any]]] = None,
                   ref: Optional[Dict[str, Any]] = None) -> str:
  """Final metric per (solver, variant): mean and 95% CI over seeds, budgets and timings."""
  if not rows:
    return "(no results)\n"
  metric = rows[0]["metric_name"]
  seeds = sorted({r["seed"] for r in rows})
  better = "lower" if metric in LOWER_IS_BETTER else "higher"
  lines = [f"Game: `{rows[0]['game']}`; metric: {metric} ({better} is better); "
           f"{len(seeds)} seeds ({', '.join(map(str, seeds))}); mean ± 95% CI half-width "
           "(Student t) of each run's final checkpoint.", ""]
  if ref is not None:
    lines += [f"Reference: **{ref['value']:.6g}** — {ref['label']}.", ""]
  lines += [f"| solver | variant | {metric} | ± 95% CI | iterations | solver CPU s | "
            "excluded CPU s (JIT, snapshots) | eval CPU s |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
  by_run = {(i["solver"], i["seed"]): i for i in (infos or [])}
  for (solver, variant), per_seed in _series(rows).items():
    finals = [pts[-1] for pts in per_seed.values()]
    m, h = mean_ci([r["metric"] for r in finals])
    its = np.mean([r["iteration"] for r in finals])
    secs = np.mean([r["seconds"] for r in finals])
    runs = [by_run[(solver, k)] for k in per_seed if (solver, k) in by_run]
    excl = (np.mean([sum(i["excluded_cpu_seconds"].values()) for i in runs]) if runs
            else math.nan)
    ev = np.mean([i["eval_cpu_seconds"] for i in runs]) if runs else math.nan
    name = f"**{variant}**" if finals[0].get("primary") else variant
    lines.append(f"| {solver} | {name} | {m:.6g} | {_fmt(h)} | {its:.0f} | {secs:.3g} | "
                 f"{_fmt(float(excl))} | {_fmt(float(ev))} |")
  lines += ["", "Bold: the variant a solver is judged by. What one iteration is:", ""]
  for solver in dict.fromkeys(r["solver"] for r in rows):
    lines.append(f"- `{solver}`: {solver_catalog.spec(solver).unit}")
  return "\n".join(lines) + "\n"


def _band(per_seed, xkey):
  """Common x grid and the per-seed step-held metric values on it (seeds x grid)."""
  grid = sorted({max(r[xkey], 1e-9) for pts in per_seed.values() for r in pts})
  start = max(max(pts[0][xkey], 1e-9) for pts in per_seed.values())
  grid = [x for x in grid if x >= start]
  vals = []
  for pts in per_seed.values():
    xs = np.array([max(r[xkey], 1e-9) for r in pts])
    ys = np.array([r["metric"] for r in pts])
    idx = np.searchsorted(xs, grid, side="right") - 1
    vals.append(ys[np.maximum(idx, 0)])
  return np.asarray(grid), np.asarray(vals)


def plot_curves(rows: List[Dict[str, Any]], path: str,
                ref: Optional[Dict[str, Any]] = None) -> None:
  """Mean metric and 95% band over seeds against iterations and solver CPU seconds."""
  import matplotlib  # pylint: disable=g-import-not-at-top
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top
  from scipy import stats  # pylint: disable=g-import-not-at-top
  fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
  metric = rows[0]["metric_name"] if rows else ""
  colors = {}
  cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
  for (solver, variant), per_seed in _series(rows).items():
    color = colors.setdefault(solver, cycle[len(colors) % len(cycle)])
    primary = next(iter(per_seed.values()))[0].get("primary", variant == "average")
    style = "-" if primary else {"purified": ":", "current": "--", "average": "--"}.get(
        variant, "-.")
    for ax, xkey in zip(axes, ["iteration", "seconds"]):
      x, vals = _band(per_seed, xkey)
      mean = vals.mean(axis=0)
      label = f"{solver} {variant}"
      if len(x) == 1:
        ax.plot(x, mean, "o", color=color, label=label)
        continue
      ax.plot(x, mean, style, color=color, lw=2 if primary else 1, label=label)
      if vals.shape[0] > 1 and primary:  # bands for the judged variant only
        half = (stats.t.ppf(0.975, vals.shape[0] - 1) * vals.std(axis=0, ddof=1)
                / math.sqrt(vals.shape[0]))
        low = mean - half
        if metric in LOWER_IS_BETTER:
          low = np.maximum(low, 0.0)  # NashConv is never negative
        ax.fill_between(x, low, mean + half, color=color, alpha=0.15, lw=0)
  for ax, xlabel in zip(axes, ["iterations", "solver CPU seconds"]):
    if ref is not None:
      ax.axhline(ref["value"], color="k", lw=1, ls="--", label=f"reference: {ref['label']}")
    ax.set_xscale("log")
    if metric == "nash_conv":
      ax.set_yscale("symlog", linthresh=1e-4)
      ax.set_ylim(bottom=0.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(metric)
    ax.grid(True, alpha=0.3)
  axes[1].legend(fontsize=6, loc="best")
  seeds = len({r["seed"] for r in rows})
  fig.suptitle(f"{rows[0]['game'] if rows else ''}: mean over {seeds} seeds, 95% band of the "
               "judged variant (thick)")
  fig.tight_layout()
  directory = os.path.dirname(os.path.abspath(path))
  tmp = os.path.join(directory, f".tmp_{os.getpid()}_curves.png")
  fig.savefig(tmp, dpi=100)
  plt.close(fig)
  os.replace(tmp, path)


def write_outputs(rows: List[Dict[str, Any]], out_dir: str,
                  infos: Optional[List[Dict[str, Any]]] = None,
                  ref: Optional[Dict[str, Any]] = None) -> None:
  """Writes results.json, results.md and curves.png into `out_dir` (atomically)."""
  os.makedirs(out_dir, exist_ok=True)
  atomic_io.write_bytes(os.path.join(out_dir, "results.json"), json.dumps(
      {"reference": ref, "runs": infos or [], "rows": rows}, indent=1).encode())
  atomic_io.write_bytes(os.path.join(out_dir, "results.md"),
                        markdown_table(rows, infos, ref).encode())
  plot_curves(rows, os.path.join(out_dir, "curves.png"), ref)
