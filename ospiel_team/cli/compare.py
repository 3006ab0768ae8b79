r"""Command line of the comparison runner (`ospiel-team-compare`).

  ospiel-team-compare                                   # the default comparison (< 1 minute)
  ospiel-team-compare --game leduc_poker --solvers cfr,cfr_plus,jax_cfr,mmd,ed \
      --seconds 10 --seeds 5 --out out/leduc
  ospiel-team-compare --game kuhn_poker --game "mini_bridge(size=3)" --solvers cfr_plus \
      --out out/two                   # one folder per game under out/two, and summary.md

The runner itself is `ospiel_team.runner`: `comparison` (the orchestration), `metrics`,
`reference`, `execute` (tasks, pool, Ray, result store) and `report` (tables and figures).
"""

import os
import re
import sys
from collections.abc import Sequence

from absl import flags

from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team import paths
from ospiel_team.cli import _flags
from ospiel_team.runner import api
from ospiel_team.runner import comparison as runner
from ospiel_team.runner import execute
from ospiel_team.runner import reference
from ospiel_team.runner import registry
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib


def define_flags(fv: flags.FlagValues) -> None:
  """Defines the runner's command-line flags on `fv`.

  `main` defines them on a fresh `flags.FlagValues`; a script that reuses them (an example on
  absl's global flags) passes `flags.FLAGS`, then sets its own defaults with
  `fv.set_default(...)`; a flag the script has already defined itself (e.g. its own --seconds)
  is left to it.
  """
  defined = set(fv)

  def define(kind, name, *args):
    if name not in defined:
      getattr(flags, f"DEFINE_{kind}")(name, *args, flag_values=fv)

  define("multi_string", "game", [runner.DEFAULT_GAME],
         "Game string for pyspiel.load_game; repeat the flag for several games (one output "
         "folder per game under --out, and --out/summary.md)")
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
  define("string", "metric", None, "Metric (default: value, the common payoff, for "
         "common-payoff games; "
         "team_value_vs_br with --teams, else nash_conv).")
  define("string", "solver_options", "", "Solver options, e.g. 'nfsp.episodes=50,jps.depth=2'; "
         "unknown keys are an error.")
  define("string", "teams", None, "Two teams of a zero-sum game, e.g. '0,1|2'.")
  define("integer", "workers", 0, "Parallel processes (0 = all cores, 1 = inline).")
  define("string", "ray", None, "Run the tasks on Ray: 'local' or a cluster address.")
  define("boolean", "reference", True, "Compute and draw the reference value.")
  define("boolean", "all_variants", False, "Draw every policy variant in curves.png, not only "
         "the one each solver is judged by.")
  define("list", "formats", ["png"], "Figure formats: png (always) and any of svg, pdf.")


# Plausible sizes (past them a run would not finish on any machine the runner targets).
MAX_SEEDS = 10_000
MAX_ITERATIONS = 2**40
MAX_SECONDS = 1e7  # about 4 months of CPU per run
MAX_POINTS = 10_000
MAX_WORKERS = 4096


def _game_folder(out: str, game: str, several: bool) -> str:
  if not several:
    return out
  safe = re.sub(r"[^A-Za-z0-9_.=-]+", "_", game).strip("_")
  return os.path.join(out, safe)


def _check_flags(fv: flags.FlagValues) -> tuple[list[int], float | None, dict[str, str], int]:
  """The flags' values checked before any work: (seeds, seconds, options, workers)."""
  if not fv.out or not fv.out.strip():
    raise api.UserError("--out is empty: give the output folder")
  _flags.check_number("iterations", fv.iterations, minimum=1, maximum=MAX_ITERATIONS,
                      integer=True)
  _flags.check_number("seconds", fv.seconds, above=0, maximum=MAX_SECONDS,
                      why="solver CPU seconds per run")
  _flags.check_number("num_points", fv.num_points, minimum=1, maximum=MAX_POINTS,
                      integer=True)
  _flags.check_number("workers", fv.workers, minimum=0, maximum=MAX_WORKERS, integer=True)
  text = str(fv.seeds).strip()
  if "," not in text and text.lstrip("+-").isdigit():  # a count: checked before range(count)
    _flags.check_number("seeds", int(text), minimum=1, maximum=MAX_SEEDS, integer=True,
                        why="a count of seeds")
  seeds = runner.parse_seeds(fv.seeds)
  seconds = fv.seconds
  if seconds is None and fv.iterations is None:
    seconds = runner.DEFAULT_SECONDS
  try:
    options = api.parse_options(fv.solver_options)
  except ValueError as e:
    raise api.UserError(str(e)) from None
  runner.check_ray(fv.ray)
  try:  # the workers' JAX compilation cache: a bad OSPIEL_TEAM_CACHE is said before any run
    paths.cache_dir("jax_compilation_cache")
  except paths.CacheFolderError as e:
    raise api.UserError(e.strerror or str(e)) from None
  bad = [f for f in fv.formats if f not in ("png", "svg", "pdf")]
  if bad:
    raise api.UserError(f"--formats {','.join(fv.formats)}: {bad[0]!r} is not png, svg or "
                        "pdf")
  if len(set(fv.game)) != len(fv.game):
    raise api.UserError(f"--game names a game twice: {fv.game}")
  return seeds, seconds, options, fv.workers or os.cpu_count() or 1


def main(argv: Sequence[str]) -> int:
  """Runs the command with the arguments `argv` (`argv[0]` is the program) in this process.

  Returns:
    The exit status: 0 done (or help printed), 2 a user error (one line on stderr), 1 a write
    failed for lack of space (one line; finished runs kept), 130 interrupted.
  """
  fv = flags.FlagValues()
  define_flags(fv)
  status = _flags.parse_private(fv, argv, __doc__)
  if status is not None:
    return status
  return run_flags(fv, command=list(argv))


def _run_game(fv: flags.FlagValues, game, tree, out: str, command: Sequence[str] | None, *,
              seeds, seconds, options, workers: int) -> tuple:
  """Runs the comparison on one game and writes its outputs to `out`; returns (rows, ref)."""
  rows, infos = runner.run_all(game, fv.solvers, iterations=fv.iterations, tree=tree,
                               num_points=fv.num_points, options=options,
                               metric=fv.metric, seeds=seeds, seconds=seconds,
                               teams=fv.teams, workers=workers,
                               ray_address=fv.ray, out=out)
  ref = None
  if fv.reference:
    teams = (teams_lib.parse_teams(fv.teams, game.num_players()) if fv.teams
             else None)
    ref = reference.reference(game, tree, rows[0]["metric_name"], teams, out_dir=out)
  report.write_outputs(rows, out, infos, ref, all_variants=fv.all_variants,
                       formats=fv.formats,
                       command=list(command or sys.argv))
  print(report.markdown_table(rows, infos, ref))
  print(f"Wrote {out}/results.json, results.md, curves.png")
  return rows, ref


def run_flags(fv: flags.FlagValues, command: Sequence[str] | None = None) -> int:
  """Runs the comparison of the parsed flags `fv`; returns the exit status.

  See `main` for the flags; `command` (default `sys.argv`) is recorded in the outputs.
  """
  done: dict[str, tuple] = {}
  try:
    seeds, seconds, options, workers = _check_flags(fv)
    games = [runner.resolve_runner_game(g, name="--game") for g in fv.game]  # all checked first
    several = len(games) > 1
    if workers <= 1 and not fv.ray:
      execute.configure_worker()  # inline runs get the workers' settings
    with execute.out_lock(fv.out):
      for tree in games:
        game = tree.game
        out = _game_folder(fv.out, str(game), several)
        done[str(game)] = _run_game(fv, game, tree, out, command,
                                    seeds=seeds, seconds=seconds, options=options,
                                    workers=workers)
      if several:
        path = os.path.join(fv.out, "summary.md")
        atomic_io.write_text(path, "Judged variant of each solver, final checkpoint, mean over "
                             f"seeds; one folder per game under {fv.out}.\n\n"
                             + report.summary_table(done))
        print(f"Wrote {path}")
  except (api.UserError, errors.UserError) as e:  # a bad value; bugs keep their tracebacks
    print(_flags.error_line("", e), file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  except paths.CacheFolderError as e:  # OSPIEL_TEAM_CACHE unusable (a user setting)
    print(_flags.error_line("", e.strerror or e), file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  except OSError as e:
    if not _flags.is_disk_full(e):
      raise
    # The writers are atomic: finished runs (the result store) and every file written before
    # are intact; a rerun resumes the runs and writes (draws) the outputs again.
    print(_flags.disk_full_line("ospiel-team-compare", e, f"finished runs are kept in "
                                f"{fv.out}", "rerun the same command: it redraws the "
                                "missing outputs without repeating finished runs"),
          file=sys.stderr)
    return _flags.EXIT_DISK_FULL
  except KeyboardInterrupt:  # the pool's workers ignore Ctrl-C and are terminated
    print(f"interrupted: finished runs are kept in {fv.out}; rerun the command to "
          "resume", file=sys.stderr)
    return 130
  return 0


def run() -> None:
  """Entry point of `ospiel-team-compare`."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
