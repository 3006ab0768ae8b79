r"""Comparison runner: our algorithms beside OpenSpiel's CFR, CFR+, XFP and NFSP.

Every solver runs on the same game and is recorded at log-spaced iterations with its wall
time (solver time only: evaluation is not counted), on the metric that fits the game:

* common-payoff games (utility IDENTICAL): `team_value`, the expected common reward, of the
  solver's average policy, its current policy where it has one, and the purified (argmax)
  average policy (higher is better);
* other games: `nash_conv` of the same policies (lower is better).

Metrics are computed on the array game tree (`ospiel_team.algorithms.evaluation`), so a metric
costs milliseconds even where OpenSpiel's own functions would walk the game in Python.

Usage:
  python -m ospiel_team.compare --game "mini_bridge(size=3)" \
      --solvers cfr,cfr_plus,xfp,nfsp --iterations 100 --seed 0 --out out/compare

It writes DIR/results.json (a list of rows with `solver`, `variant`, `iteration`, `seconds`,
`metric_name`, `metric`), DIR/results.md (a table) and DIR/curves.png.

Adding a solver is one generator function `fn(ctx) -> Iterator[Snapshot]` plus one line in
`_SOLVERS` (a function, or a "module:function" string imported only when the solver is used).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import tempfile
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

from absl import app
from absl import flags
import numpy as np
import pyspiel

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.algorithms import evaluation
from ospiel_team.algorithms.game_tree import GameTree
from ospiel_team import atomic_io


@dataclasses.dataclass
class SolverContext:
  """What a solver gets: the game, its array tree, the budget and its options."""
  game: pyspiel.Game
  tree: GameTree
  seed: int
  iterations: int
  checkpoints: List[int]
  options: Dict[str, str] = dataclasses.field(default_factory=dict)

  def option(self, name: str, default, cast=None):
    """A solver option from `--solver_options` (e.g. "nfsp.hidden=64"), cast like `default`."""
    if name not in self.options:
      return default
    cast = cast or type(default)
    try:
      return cast(self.options[name])
    except ValueError as e:
      raise ValueError(f"solver option {name}={self.options[name]!r} is not a valid "
                       f"{cast.__name__}") from e


@dataclasses.dataclass
class Snapshot:
  """A solver's policies (policy arrays on ctx.tree) after `iteration` iterations."""
  iteration: int
  policies: Dict[str, np.ndarray]
  extra: Dict[str, float] = dataclasses.field(default_factory=dict)


def log_checkpoints(iterations: int, num_points: int = 12) -> List[int]:
  """Log-spaced iteration numbers in [1, iterations], always including both ends."""
  if iterations < 1:
    raise ValueError(f"iterations must be >= 1, got {iterations}")
  if num_points < 1:
    raise ValueError(f"num_points must be >= 1, got {num_points}")
  points = np.unique(np.round(np.logspace(0, math.log10(iterations), num_points)).astype(int))
  return sorted(set(int(p) for p in points) | {1, iterations})


def purified(tree: GameTree, pi: np.ndarray) -> np.ndarray:
  """The argmax (first maximal legal action) policy of `pi`."""
  masked = np.where(tree.infoset_legal, pi, -np.inf)
  out = np.zeros_like(pi)
  out[np.arange(tree.num_infosets), np.argmax(masked, axis=1)] = 1.0
  return out


# ------------------------------------------------------------------------------------------------
# Metrics.
def team_value(tree: GameTree, pi: np.ndarray) -> float:
  """Expected common reward of a common-payoff game (player 0's expected return)."""
  return float(evaluation.game_value(tree, pi)[0])


def nash_conv(tree: GameTree, pi: np.ndarray) -> float:
  """NashConv (sum of players' best-response gains)."""
  return float(evaluation.nash_conv(tree, pi))


_METRICS: Dict[str, Any] = {
    "team_value": team_value,
    "nash_conv": nash_conv,
    "team_value_vs_br": "ospiel_team.algorithms.teams:team_value_vs_best_response_metric",
}


def default_metric(game: pyspiel.Game) -> str:
  """`team_value` for common-payoff games, `nash_conv` otherwise."""
  if game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL:
    return "team_value"
  return "nash_conv"


def _metric_fn(name: str) -> Callable[[GameTree, np.ndarray], float]:
  if name not in _METRICS:
    raise ValueError(f"unknown metric {name!r}; known: {sorted(_METRICS)}")
  fn = _METRICS[name]
  if isinstance(fn, str):
    module, attr = fn.split(":")
    fn = getattr(importlib.import_module(module), attr)
  return fn


# ------------------------------------------------------------------------------------------------
# OpenSpiel's solvers.
def _cfr_family(ctx: SolverContext, solver_cls) -> Iterator[Snapshot]:
  solver = solver_cls(ctx.game)
  wanted = set(ctx.checkpoints)
  for it in range(1, ctx.iterations + 1):
    solver.evaluate_and_update_policy()
    if it in wanted:
      yield Snapshot(it, {
          "average": ctx.tree.policy_array(solver.average_policy()),
          "current": ctx.tree.policy_array(solver.current_policy()),
      })


def cfr_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """OpenSpiel's `cfr.CFRSolver` (vanilla CFR, alternating updates)."""
  from open_spiel.python.algorithms import cfr  # pylint: disable=g-import-not-at-top
  return _cfr_family(ctx, cfr.CFRSolver)


def cfr_plus_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """OpenSpiel's `cfr.CFRPlusSolver`."""
  from open_spiel.python.algorithms import cfr  # pylint: disable=g-import-not-at-top
  return _cfr_family(ctx, cfr.CFRPlusSolver)


def xfp_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """OpenSpiel's `fictitious_play.XFPSolver` (its average policy; it has no current one)."""
  from open_spiel.python.algorithms import fictitious_play  # pylint: disable=g-import-not-at-top
  solver = fictitious_play.XFPSolver(ctx.game)
  wanted = set(ctx.checkpoints)
  tree = ctx.tree
  for it in range(1, ctx.iterations + 1):
    solver.iteration()
    if it in wanted:
      pi = tree.uniform_policy_array()
      for table in solver.average_policy_tables():
        for key, dist in table.items():
          row = tree.infoset_index.get(key)
          if row is None:
            continue  # an infoset the tree does not hold cannot be reached
          pi[row] = 0.0
          for a, p in dist.items():
            pi[row, a] = p
      yield Snapshot(it, {"average": pi})


def nfsp_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """OpenSpiel's JAX NFSP; one iteration = `nfsp.episodes` self-play episodes (default 20).

  The average-policy network is evaluated on every infoset's tensor in one batch.
  Options: nfsp.episodes, nfsp.hidden (units of each of two layers), nfsp.anticipatory,
  nfsp.rl_lr, nfsp.sl_lr, nfsp.buffer, nfsp.batch, nfsp.min_buffer, nfsp.learn_every.
  """
  # pylint: disable=g-import-not-at-top
  import flax.nnx as nn
  from open_spiel.python import rl_environment
  from open_spiel.python.jax import nfsp
  # pylint: enable=g-import-not-at-top
  tree, game = ctx.tree, ctx.game
  episodes = ctx.option("nfsp.episodes", 20)
  hidden = ctx.option("nfsp.hidden", 64)
  env = rl_environment.Environment(game, seed=ctx.seed)
  state_size = env.observation_spec()["info_state"][0]
  agents = [
      nfsp.NFSP(p, state_size, game.num_distinct_actions(), [hidden, hidden],
                reservoir_buffer_capacity=ctx.option("nfsp.buffer", 200_000),
                anticipatory_param=ctx.option("nfsp.anticipatory", 0.1),
                batch_size=ctx.option("nfsp.batch", 128),
                rl_learning_rate=ctx.option("nfsp.rl_lr", 0.01),
                sl_learning_rate=ctx.option("nfsp.sl_lr", 0.01),
                min_buffer_size_to_learn=ctx.option("nfsp.min_buffer", 1000),
                learn_every=ctx.option("nfsp.learn_every", 64),
                replay_buffer_capacity=ctx.option("nfsp.buffer", 200_000),
                epsilon_decay_duration=ctx.iterations * episodes,
                seed=ctx.seed * 1000 + p, allow_checkpointing=False)
      for p in range(game.num_players())
  ]
  tensors = tree.infoset_tensors()
  rows_of = [np.nonzero(tree.infoset_player == p)[0] for p in range(game.num_players())]
  wanted = set(ctx.checkpoints)
  for it in range(1, ctx.iterations + 1):
    for _ in range(episodes):
      time_step = env.reset()
      while not time_step.last():
        player = time_step.observations["current_player"]
        out = agents[player].step(time_step)
        time_step = env.step([out.action])
      for agent in agents:
        agent.step(time_step)
    if it in wanted:
      pi = np.zeros((tree.num_infosets, tree.num_actions))
      for p, agent in enumerate(agents):
        rows = rows_of[p]
        if not len(rows):
          continue
        # The agent's own jitted inference of its average-policy network, on all infosets.
        logits = np.asarray(agent._avg_network_inference(  # pylint: disable=protected-access
            nn.state(agent._avg_network), tensors[rows]), dtype=np.float64)  # pylint: disable=protected-access
        logits = np.where(tree.infoset_legal[rows], logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        pi[rows] = probs / probs.sum(axis=1, keepdims=True)
      yield Snapshot(it, {"average": pi})


# name -> generator function, or "module:function" imported on first use.
_SOLVERS: Dict[str, Any] = {
    "cfr": cfr_solver,
    "cfr_plus": cfr_plus_solver,
    "xfp": xfp_solver,
    "nfsp": nfsp_solver,
    "ed": "ospiel_team.algorithms.exploitability_descent:compare_solver_tabular",
    "neural_ed": "ospiel_team.algorithms.exploitability_descent:compare_solver_neural",
    "jps": "ospiel_team.algorithms.jps:compare_solver",
    "team_lp": "ospiel_team.algorithms.team_lp:compare_solver",
}


def solver_names() -> List[str]:
  return sorted(_SOLVERS)


def solver_fn(name: str):
  """The generator function of a registered solver (imports it on first use)."""
  if name not in _SOLVERS:
    raise ValueError(f"unknown solver {name!r}; known: {solver_names()}")
  fn = _SOLVERS[name]
  if isinstance(fn, str):
    module, attr = fn.split(":")
    fn = getattr(importlib.import_module(module), attr)
  return fn


def parse_options(text: str) -> Dict[str, str]:
  """Parses "a.b=1,c=x" into {"a.b": "1", "c": "x"}."""
  options = {}
  for item in filter(None, (t.strip() for t in (text or "").split(","))):
    if "=" not in item:
      raise ValueError(f"solver option {item!r} is not of the form name=value")
    key, value = item.split("=", 1)
    options[key.strip()] = value.strip()
  return options


# ------------------------------------------------------------------------------------------------
# The runner.
def run(game: pyspiel.Game | str, solvers: Sequence[str], iterations: int, seed: int = 0,
        num_points: int = 12, options: Optional[Dict[str, str]] = None,
        metric: Optional[str] = None, tree: Optional[GameTree] = None,
        progress: bool = True) -> List[Dict[str, Any]]:
  """Runs each solver and returns the result rows (see the module docstring)."""
  if isinstance(game, str):
    game = pyspiel.load_game(game)
  if not solvers:
    raise ValueError("no solvers given")
  fns = {name: solver_fn(name) for name in solvers}  # fail early on unknown names
  metric = metric or default_metric(game)
  metric_fn = _metric_fn(metric)
  tree = tree or GameTree(game)
  checkpoints = log_checkpoints(iterations, num_points)
  rows: List[Dict[str, Any]] = []
  bar = None
  if progress:
    import tqdm  # pylint: disable=g-import-not-at-top
    bar = tqdm.tqdm(total=len(checkpoints) * len(fns), desc=str(game), unit=" checkpoints")
  for name, fn in fns.items():
    np.random.seed(seed)
    ctx = SolverContext(game=game, tree=tree, seed=seed, iterations=iterations,
                        checkpoints=checkpoints, options=dict(options or {}))
    gen = fn(ctx)
    seconds = 0.0
    while True:
      start = time.perf_counter()
      try:
        snap = next(gen)
      except StopIteration:
        break
      seconds += time.perf_counter() - start
      policies = dict(snap.policies)
      if "average" in policies and "purified" not in policies:
        policies["purified"] = purified(tree, policies["average"])
      for variant, pi in policies.items():
        row = dict(solver=name, variant=variant, iteration=int(snap.iteration),
                   seconds=round(seconds, 6), metric_name=metric,
                   metric=float(metric_fn(tree, np.asarray(pi))), game=str(game), seed=seed)
        row.update(snap.extra)
        rows.append(row)
      if bar is not None:
        bar.set_postfix(solver=name, it=snap.iteration)
        bar.update(1)
  if bar is not None:
    bar.close()
  return rows


_atomic_write = atomic_io.write_bytes


def markdown_table(rows: List[Dict[str, Any]]) -> str:
  """Final metric of each (solver, variant), with the iterations and seconds used."""
  if not rows:
    return "(no results)\n"
  final = {}
  for row in rows:
    final[(row["solver"], row["variant"])] = row
  metric = rows[0]["metric_name"]
  lines = [f"Game: `{rows[0]['game']}`, seed {rows[0]['seed']}; metric: {metric} "
           f"({'higher' if metric != 'nash_conv' else 'lower'} is better)", "",
           f"| solver | variant | iterations | seconds | {metric} |",
           "|---|---|---:|---:|---:|"]
  for (solver, variant), row in final.items():
    lines.append(f"| {solver} | {variant} | {row['iteration']} | {row['seconds']:.2f} | "
                 f"{row['metric']:.6g} |")
  return "\n".join(lines) + "\n"


def plot_curves(rows: List[Dict[str, Any]], path: str) -> None:
  """Metric against iterations and against seconds, one line per (solver, variant)."""
  import matplotlib  # pylint: disable=g-import-not-at-top
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top
  fig, axes = plt.subplots(1, 2, figsize=(11, 4))
  series: Dict[tuple, list] = {}
  for row in rows:
    series.setdefault((row["solver"], row["variant"]), []).append(row)
  metric = rows[0]["metric_name"] if rows else ""
  for (solver, variant), pts in series.items():
    its = [r["iteration"] for r in pts]
    secs = [max(r["seconds"], 1e-6) for r in pts]
    vals = [r["metric"] for r in pts]
    style = {"average": "-", "current": "--", "purified": ":"}.get(variant, "-.")
    axes[0].plot(its, vals, style, label=f"{solver} {variant}")
    axes[1].plot(secs, vals, style, label=f"{solver} {variant}")
  for ax, xlabel in zip(axes, ["iterations", "seconds"]):
    ax.set_xscale("log")
    if metric == "nash_conv":
      ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(metric)
    ax.grid(True, alpha=0.3)
  axes[1].legend(fontsize=7)
  fig.suptitle(rows[0]["game"] if rows else "")
  fig.tight_layout()
  directory = os.path.dirname(os.path.abspath(path))
  fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp_", suffix=".png")
  os.close(fd)
  fig.savefig(tmp, dpi=100)
  plt.close(fig)
  os.replace(tmp, path)


def write_outputs(rows: List[Dict[str, Any]], out_dir: str) -> None:
  """Writes results.json, results.md and curves.png into `out_dir`."""
  os.makedirs(out_dir, exist_ok=True)
  _atomic_write(os.path.join(out_dir, "results.json"),
                json.dumps(rows, indent=1).encode())
  _atomic_write(os.path.join(out_dir, "results.md"), markdown_table(rows).encode())
  plot_curves(rows, os.path.join(out_dir, "curves.png"))


FLAGS = flags.FLAGS


def define_flags() -> None:
  """Defines the runner's command-line flags (not on import, so scripts can import the runner).

  Scripts that reuse the runner's flags call this, then `FLAGS.set_default(...)` as needed.
  """
  flags.DEFINE_string("game", "mini_bridge(size=3)", "Game string for pyspiel.load_game.")
  flags.DEFINE_list("solvers", ["cfr", "cfr_plus", "xfp", "nfsp"], "Solvers to compare.")
  flags.DEFINE_integer("iterations", 100, "Iterations of each solver.")
  flags.DEFINE_integer("seed", 0, "Random seed.")
  flags.DEFINE_integer("num_points", 12, "Number of log-spaced checkpoints.")
  flags.DEFINE_string("out", "out/compare", "Output directory.")
  flags.DEFINE_string("metric", None, "Metric (default: team_value for common-payoff games, "
                      "else nash_conv).")
  flags.DEFINE_string("solver_options", "", "Solver options, e.g. 'nfsp.episodes=50'.")


def main(argv):
  del argv
  rows = run(FLAGS.game, FLAGS.solvers, FLAGS.iterations, seed=FLAGS.seed,
             num_points=FLAGS.num_points, options=parse_options(FLAGS.solver_options),
             metric=FLAGS.metric)
  write_outputs(rows, FLAGS.out)
  print(markdown_table(rows))
  print(f"Wrote {FLAGS.out}/results.json, results.md, curves.png")


if __name__ == "__main__":
  define_flags()
  app.run(main)
