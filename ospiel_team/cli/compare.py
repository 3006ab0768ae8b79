"""Command line of the comparison runner (`ospiel-team-compare`, `python -m ospiel_team.compare`).

  ospiel-team-compare                                   # the default comparison (< 1 minute)
  ospiel-team-compare --game leduc_poker --solvers cfr,cfr_plus,jax_cfr,mmd,ed \\
      --seconds 10 --seeds 5 --out out/leduc

The runner itself is `ospiel_team.runner`: `compare` (the orchestration), `metrics`,
`reference`, `execute` (tasks, pool, Ray, result store) and `report` (tables and figures).
"""

import os
import sys

from absl import flags
import pyspiel

from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.runner import api
from ospiel_team.runner import compare as runner
from ospiel_team.runner import execute
from ospiel_team.runner import reference
from ospiel_team.runner import registry
from ospiel_team.runner import report
from ospiel_team.cli import _flags


FLAGS = flags.FLAGS


def define_flags() -> None:
  """Defines the runner's command-line flags (not on import, so scripts can import the runner).

  Scripts that reuse the runner's flags call this, then `FLAGS.set_default(...)` as needed;
  a flag the script has already defined itself (e.g. its own --seconds) is left to it.
  """
  defined = set(FLAGS)

  def define(kind, name, *args):
    if name not in defined:
      getattr(flags, f"DEFINE_{kind}")(name, *args)

  define("string", "game", runner.DEFAULT_GAME, "Game string for pyspiel.load_game.")
  define("list", "solvers", list(runner.DEFAULT_SOLVERS),
         f"Solvers to compare; known: {', '.join(registry.solver_names())}.")
  define("integer", "iterations", None, "Iterations per run (with --seconds: a cap).")
  define("float", "seconds", None,
         "Solver CPU seconds per run (setup, JIT compilation, snapshots and evaluation "
         f"excluded). Default {runner.DEFAULT_SECONDS} when --iterations is not given.")
  define("string", "seeds", str(runner.DEFAULT_SEEDS),
         "A count (3 = seeds 0,1,2) or a list '0,5,7'.")
  define("integer", "num_points", 12, "Number of log-spaced checkpoints.")
  define("string", "out", "out/compare", "Output directory (also the resumable result store).")
  define("string", "metric", None, "Metric (default: team_value for common-payoff games, "
         "team_value_vs_br with --teams, else nash_conv).")
  define("string", "solver_options", "", "Solver options, e.g. 'nfsp.episodes=50,jps.depth=2'; "
         "unknown keys are an error.")
  define("string", "teams", None, "Two teams of a zero-sum game, e.g. '0,1|2'.")
  define("integer", "workers", 0, "Parallel processes (0 = all cores, 1 = inline).")
  define("string", "ray", None, "Run the tasks on Ray: 'local' or a cluster address.")
  define("boolean", "reference", True, "Compute and draw the reference value.")


def main(argv):
  del argv
  try:
    seeds = runner.parse_seeds(FLAGS.seeds)
    seconds = FLAGS.seconds
    if seconds is None and FLAGS.iterations is None:
      seconds = runner.DEFAULT_SECONDS
    try:
      options = api.parse_options(FLAGS.solver_options)
    except ValueError as e:
      raise api.UserError(str(e)) from None
    workers = FLAGS.workers or os.cpu_count() or 1
    if FLAGS.workers < 0:
      raise api.UserError(f"--workers must be >= 0, got {FLAGS.workers}")
    short_name = FLAGS.game.split("(", 1)[0].strip()
    if short_name not in pyspiel.registered_names():  # OpenSpiel would print all its games
      raise api.UserError(f"--game {FLAGS.game!r}: unknown game {short_name!r} (the known "
                          "ones: pyspiel.registered_names())")
    try:
      game = pyspiel.load_game(FLAGS.game)
    except pyspiel.SpielError as e:
      raise api.UserError(f"--game {FLAGS.game!r}: {e}") from None
    if workers <= 1 and not FLAGS.ray:
      execute.configure_worker()  # inline runs get the workers' settings
    rows, infos = runner.run_all(game, FLAGS.solvers, FLAGS.iterations,
                                 num_points=FLAGS.num_points, options=options,
                                 metric=FLAGS.metric, seeds=seeds, seconds=seconds,
                                 teams=FLAGS.teams, workers=workers, ray_address=FLAGS.ray,
                                 out=FLAGS.out)
  except api.UserError as e:  # a bad command-line value; bugs keep their tracebacks
    print(f"error: {e}", file=sys.stderr)
    return 2
  except KeyboardInterrupt:  # the pool's workers ignore Ctrl-C and are terminated
    print(f"interrupted: finished runs are kept in {FLAGS.out}/runs; rerun the command to "
          "resume", file=sys.stderr)
    return 130
  ref = None
  if FLAGS.reference:
    teams = (teams_lib.parse_teams(FLAGS.teams, game.num_players()) if FLAGS.teams
             else None)
    ref = reference.reference(game, execute.tree_for(str(game)), rows[0]["metric_name"],
                              teams, out_dir=FLAGS.out)
  report.write_outputs(rows, FLAGS.out, infos, ref)
  print(report.markdown_table(rows, infos, ref))
  print(f"Wrote {FLAGS.out}/results.json, results.md, curves.png")
  return 0


def run() -> None:
  """Entry point of `ospiel-team-compare`."""
  _flags.run(lambda argv: sys.exit(main(argv)), define_flags)


if __name__ == "__main__":
  run()
