r"""Command line of the DDS dataset builder (`ospiel-team-make-dataset`).

  ospiel-team-make-dataset --deals 100000 --out deals.npz \
      [--seed 0] [--workers K] [--chunk 1000] [--ray ADDRESS] [--keep_chunks]

The builder itself, with its resumption and seeding rules, is
`ospiel_team.bridge.dataset_builder.build_dataset`.
"""

import importlib.util
import os
import shutil
import sys
from collections.abc import Sequence

from absl import flags

from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team.bridge import dataset_builder
from ospiel_team.cli import _flags

PROGRAM = "make_dataset"

# Rough costs, measured (2-core machine): DDS takes about 0.3-0.6 CPU seconds per deal
# (`dataset_builder.compute_chunk`, one worker per core); a stored deal takes about 22 bytes
# compressed (the shipped 50,000-deal dataset: 1.05 MB; a 1,000-deal chunk: 22 KB). The build
# keeps its chunks on disk until the merged output is written, so the disk needs about twice
# that at its peak; the merge holds every deal in memory, uncompressed (52 + 20 bytes).
CPU_SECONDS_PER_DEAL = 0.45
BYTES_PER_DEAL = 22
PEAK_DISK_BYTES_PER_DEAL = 2 * BYTES_PER_DEAL
MERGE_MEMORY_BYTES_PER_DEAL = 52 + 20
MAX_DEALS = 2**40  # past this, refused without --force whatever the machine
SAY_COST_FROM_SECONDS = 60.0  # builds estimated shorter start silently
MAX_WORKERS = 4096


def define_flags(fv: flags.FlagValues) -> None:
  """Defines the command's flags on `fv` (`main` passes a fresh `flags.FlagValues`)."""
  flags.DEFINE_integer("deals", None, "Number of deals.", lower_bound=1, flag_values=fv)
  flags.DEFINE_string("out", None, "Output .npz path (its chunks go to <out>.chunks/).",
                      flag_values=fv)
  flags.DEFINE_integer("seed", 0, "Base seed: chunk i uses SeedSequence([seed, i]).",
                       lower_bound=0, flag_values=fv)
  flags.DEFINE_integer("workers", None, "Worker processes (default: all local cores).",
                       lower_bound=1, flag_values=fv)
  flags.DEFINE_integer("chunk", 1000, "Deals per chunk (the unit of resumption).",
                       lower_bound=1, flag_values=fv)
  flags.DEFINE_string("ray", None, "Run chunks as Ray tasks at this address ('auto', "
                      "'local', 'ray://...') instead of local worker processes.", flag_values=fv)
  flags.DEFINE_bool("keep_chunks", False, "Keep <out>.chunks/ after merging (to grow the "
                    "dataset later with a larger --deals).", flag_values=fv)
  flags.DEFINE_bool("no_progress", False, "Hide the progress bar.", flag_values=fv)
  flags.DEFINE_bool("force", False, "Start a build that is clearly beyond this machine (more "
                    "deals than 2^40, more disk than is free, more memory than it has) instead "
                    "of refusing it.", flag_values=fv)
  flags.mark_flags_as_required(["deals", "out"], flag_values=fv)


def _total_memory() -> int | None:
  try:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
  except (ValueError, OSError, AttributeError):
    return None


def check_cost(deals: int, out: str, workers: int, force: bool) -> None:
  """Says the build's rough cost (one line on stderr) and refuses one clearly beyond the machine.

  Estimates (order of magnitude, see the constants above): CPU time = deals x
  `CPU_SECONDS_PER_DEAL`, wall time = that / workers; peak disk = deals x
  `PEAK_DISK_BYTES_PER_DEAL`; the merge's memory = deals x `MERGE_MEMORY_BYTES_PER_DEAL`.
  Refused without `force` (`UserError`, exit 2): more than `MAX_DEALS` deals, a peak disk above
  the free space of --out's file system, a merge above the machine's memory.

  Deals already computed (a resumed build) are not subtracted: the estimate is an upper bound.
  """
  cpu = deals * CPU_SECONDS_PER_DEAL
  wall = cpu / max(1, workers)
  disk = deals * PEAK_DISK_BYTES_PER_DEAL
  memory = deals * MERGE_MEMORY_BYTES_PER_DEAL
  cost = (f"--deals {deals:,}, a rough estimate: {_flags.rough_duration(cpu)} of CPU "
          f"({_flags.rough_duration(wall)} on {workers} worker(s); DDS ~0.3-0.6 CPU s a deal), "
          f"{disk / 1e9:.2g} GB of disk at the peak and {memory / 1e9:.2g} GB of memory for "
          "the merge")
  folder = os.path.dirname(os.path.abspath(out))
  while folder and not os.path.isdir(folder):
    folder = os.path.dirname(folder)
  try:
    free = shutil.disk_usage(folder).free
  except OSError:
    free = None
  total_memory = _total_memory()
  if deals > MAX_DEALS:
    _flags.refuse_unless_forced(force, f"{cost}; more than 2^40 deals")
  elif free is not None and disk > free:
    _flags.refuse_unless_forced(force, f"{cost}; only {free / 1e9:.2g} GB free in {folder}")
  elif total_memory is not None and memory > total_memory:
    _flags.refuse_unless_forced(force, f"{cost}; the machine has {total_memory / 1e9:.2g} GB")
  if wall >= SAY_COST_FROM_SECONDS:
    _flags.say_cost(PROGRAM, cost)


def main(argv: Sequence[str]) -> int:
  """Builds the dataset of the arguments `argv` (`argv[0]` is the program) in this process.

  Returns:
    The exit status: 0 built (or help printed); 2 a user error or a refused cost (one line on
    stderr); 1 a chunk or the output could not be written for lack of space (one line; the
    finished chunks are kept, and the same command resumes).
  """
  f = flags.FlagValues()
  define_flags(f)
  status = _flags.parse_private(f, argv, __doc__)
  if status is not None:
    return status
  try:
    _flags.check_number("deals", f.deals, minimum=1, integer=True, allow_none=False)
    _flags.check_number("chunk", f.chunk, minimum=1, maximum=MAX_DEALS, integer=True)
    _flags.check_number("seed", f.seed, minimum=0, maximum=2**63 - 1, integer=True)
    _flags.check_number("workers", f.workers, minimum=1, maximum=MAX_WORKERS, integer=True)
    if f.ray and importlib.util.find_spec("ray") is None:
      raise errors.UserError(f'--ray {f.ray}: Ray is not installed; pip install '
                             '"ospiel-team[ray]" (or run without --ray)')
    atomic_io.check_writable(f.out)  # before the estimate: a bad --out is one line
    if not (os.path.isfile(f.out) and dataset_builder.finished_output_matches(
        f.out, f.deals, f.seed, f.chunk)):  # a finished build costs nothing
      check_cost(f.deals, f.out, f.workers or os.cpu_count() or 1, f.force)
    dataset_builder.build_dataset(f.deals, f.out, seed=f.seed, workers=f.workers, chunk=f.chunk,
                  ray_address=f.ray, keep_chunks=f.keep_chunks, progress=not f.no_progress)
  except ValueError as e:  # a user error: one line, no traceback
    print(_flags.error_line(PROGRAM, e), file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  except OSError as e:
    if not _flags.is_disk_full(e):
      raise
    print(_flags.disk_full_line(PROGRAM, e, f"finished chunks are kept in {f.out}.chunks/",
                                "rerun the same command to resume"), file=sys.stderr)
    return _flags.EXIT_DISK_FULL
  except KeyboardInterrupt:
    raise SystemExit(f"make_dataset: interrupted; finished chunks are kept in {f.out}.chunks/ "
                     "-- rerun the same command to resume") from None
  return 0


def run() -> None:
  """Entry point of `ospiel-team-make-dataset`."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
