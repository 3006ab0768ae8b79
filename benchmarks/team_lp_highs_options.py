r"""HiGHS settings on the team LP of one Table-1 instance, timed in one run.

Builds the instance's tree once, then solves its team LP (`team_lp.solve`) with each HiGHS
setting in `--configs` (`solver[;option=value...]`, e.g. `ipm;presolve=off`), under
`--time_limit` seconds each, and prints a Markdown row per setting: HiGHS status, value,
HiGHS seconds. The default of `team_lp.solve` is `ipm` (HiGHS's IPX interior point method,
with crossover: team 2's plan is read from the duals).

Usage:
  python benchmarks/team_lp_highs_options.py --instance 21K6 --time_limit 120
"""

import time

from absl import app
from absl import flags

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import lp as team_lp
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.games import team_instances

flags.DEFINE_string("instance", "21K6", "Table-1 instance name")
flags.DEFINE_list("configs", ["ipm", "ipm;presolve=off", "ipm;ipm_optimality_tolerance=1e-6",
                              "ipm;run_crossover=off", "pdlp", "simplex;simplex_strategy=4",
                              "simplex;simplex_strategy=1", "hipo"],
                  "comma-separated HiGHS settings: solver[;option=value...]")
flags.DEFINE_float("time_limit", 120.0, "HiGHS seconds per setting")
flags.DEFINE_integer("repeats", 1, "solves per setting; the row gives the fastest (min) HiGHS "
                     "wall and CPU seconds (the machine is shared: min is the least noisy)")
FLAGS = flags.FLAGS


def parse(config: str):
  solver, *opts = config.split(";")
  options = {}
  for kv in opts:
    key, value = kv.split("=")
    for cast in (int, float):
      try:
        value = cast(value)
        break
      except ValueError:
        continue
    options[key] = value
  return solver, options


def main(argv):
  del argv
  game, teams = team_instances.load_instance(FLAGS.instance)
  tree = GameTree(game)
  if FLAGS.repeats < 1:
    raise app.UsageError(f"--repeats={FLAGS.repeats} must be >= 1")
  print(f"| {FLAGS.instance} setting | HiGHS status | value | HiGHS seconds (min of "
        f"{FLAGS.repeats}) | HiGHS CPU seconds | load |")
  print("|---|---|---|---:|---:|---|")
  for config in FLAGS.configs:
    solver, options = parse(config)
    walls, cpus = [], []
    for _ in range(FLAGS.repeats):
      start = time.perf_counter()
      try:
        res = team_lp.solve(tree, teams, solver=solver, highs_options=options,
                            time_limit=FLAGS.time_limit)
      except (RuntimeError, TimeoutError) as e:
        status = str(e).rsplit(": ", 1)[-1]
        row = f"{status} | | {time.perf_counter() - start:.2f} (with the LP build; stopped) | |"
        break
      walls.append(res.solve_seconds)
      cpus.append(res.solve_cpu_seconds)
      row = f"Optimal | {res.value:.9f} | {min(walls):.3f} | {min(cpus):.3f}"
    print(f"| {config} | {row} | {_load()} |", flush=True)


def _load() -> str:
  with open("/proc/loadavg") as f:
    return f.read().split()[0]


if __name__ == "__main__":
  app.run(main)
