"""Command line of the DDS dataset builder (`ospiel-team-make-dataset`).

  ospiel-team-make-dataset --deals 100000 --out deals.npz \\
      [--seed 0] [--workers K] [--chunk 1000] [--ray ADDRESS] [--keep_chunks]

The builder itself, with its resumption and seeding rules, is
`ospiel_team.bridge.dataset_builder.build_dataset`.
"""

import sys
from collections.abc import Sequence

from absl import app
from absl import flags

from ospiel_team.bridge import dataset_builder
from ospiel_team.cli import _flags


def define_flags() -> None:
  """The command's absl flags (defined only when run as a command, not on import)."""
  flags.DEFINE_integer("deals", None, "Number of deals.", lower_bound=1)
  flags.DEFINE_string("out", None, "Output .npz path (its chunks go to <out>.chunks/).")
  flags.DEFINE_integer("seed", 0, "Base seed: chunk i uses SeedSequence([seed, i]).",
                       lower_bound=0)
  flags.DEFINE_integer("workers", None, "Worker processes (default: all local cores).",
                       lower_bound=1)
  flags.DEFINE_integer("chunk", 1000, "Deals per chunk (the unit of resumption).",
                       lower_bound=1)
  flags.DEFINE_string("ray", None, "Run chunks as Ray tasks at this address ('auto', "
                      "'local', 'ray://...') instead of local worker processes.")
  flags.DEFINE_bool("keep_chunks", False, "Keep <out>.chunks/ after merging (to grow the "
                    "dataset later with a larger --deals).")
  flags.DEFINE_bool("no_progress", False, "Hide the progress bar.")
  flags.mark_flags_as_required(["deals", "out"])


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  f = flags.FLAGS
  try:
    dataset_builder.build_dataset(f.deals, f.out, seed=f.seed, workers=f.workers, chunk=f.chunk,
                  ray_address=f.ray, keep_chunks=f.keep_chunks, progress=not f.no_progress)
  except ValueError as e:  # a user error: one line, no traceback
    print(f"make_dataset: error: {e}", file=sys.stderr)
    sys.exit(2)
  except KeyboardInterrupt:
    raise SystemExit(f"make_dataset: interrupted; finished chunks are kept in {f.out}.chunks/ "
                     "-- rerun the same command to resume") from None


def run() -> None:
  """Entry point of `ospiel-team-make-dataset`."""
  _flags.run(main, define_flags)


if __name__ == "__main__":
  run()
