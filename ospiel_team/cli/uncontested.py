"""Command line of Yeh & Lin's uncontested bidding benchmark (`ospiel-team-uncontested`).

  ospiel-team-uncontested --pairs 200 --out cost.npz            # build a cost dataset
  ospiel-team-uncontested --out cost.npz --q_iterations 2000    # train and evaluate the
                                                                # Q-per-round baseline

How long: the first example computes 200 pairs x 5 East-West redeals = 1,000 double-dummy
tables, about 0.3-0.5 CPU seconds each (about 5-8 CPU minutes, 3-4 minutes of wall clock on 2
idle cores; resumable by chunks). The second loads and augments the 50,000 shipped training
deals (x 96 symmetries, about a minute), then trains at 1.3-2.4 iterations a second on 2 CPU
cores (one run beside other jobs): 2,000 iterations take about 15-25 minutes.

Unit: every cost is in IMPs. The cost of a contract is IMPs(best average score - the
contract's average score) over the East-West redeals, so the best contract costs 0 IMPs; the
second example prints the mean cost in IMPs per North-South pair (`mean_cost`, with its
standard error `stderr`), lower is better (Yeh & Lin's published figures are IMPs too).

The benchmark itself: `ospiel_team.bridge.uncontested_costs` (cost datasets) and
`ospiel_team.bridge.agents.training.uncontested` (bidders on them, the Q-per-round baseline).
"""

import glob
import json
import os
import sys
import time
from collections.abc import Sequence

from absl import flags

from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import uncontested_costs as costs_lib
from ospiel_team.bridge.agents.training import uncontested as U
from ospiel_team.cli import _flags


def define_flags(fv: flags.FlagValues) -> None:
  """Defines the command's flags on `fv` (`main` passes a fresh `flags.FlagValues`)."""
  flags.DEFINE_integer("pairs", 200, "North-South hand pairs of the cost dataset.",
                       lower_bound=1, flag_values=fv)
  flags.DEFINE_integer("k", 5, "Random East-West redeals per pair (Yeh & Lin: 5).",
                       lower_bound=1, flag_values=fv)
  flags.DEFINE_integer("seed", 2016, "Base seed: chunk i uses SeedSequence([seed, i]).",
                       flag_values=fv)
  flags.DEFINE_integer("chunk", 20, "Pairs per chunk (the unit of resumption).", lower_bound=1,
                       flag_values=fv)
  flags.DEFINE_string("out", None, "Cost dataset .npz to build (with --q_iterations > 0: "
                      "the cost dataset to evaluate on).", flag_values=fv)
  flags.DEFINE_bool("keep_chunks", False, "Keep <out>.chunks/ after the build.", flag_values=fv)
  flags.DEFINE_integer("q_iterations", 0, "Training iterations of the Q-per-round baseline "
                       "(0: only build the cost dataset).", lower_bound=0, flag_values=fv)
  flags.DEFINE_integer("q_rounds", 4, "Bidding rounds of the Q-per-round baseline.",
                       lower_bound=1, flag_values=fv)
  flags.DEFINE_float("q_ucb", 0.1, "UCB exploration constant of the Q-per-round baseline.",
                     lower_bound=0.0, flag_values=fv)
  flags.DEFINE_string("train_datasets", None, "Comma-separated training .npz datasets or "
                      "globs (default: the shipped training dataset).", flag_values=fv)
  flags.mark_flag_as_required("out", flag_values=fv)


def main(argv: Sequence[str]) -> int:
  """Builds a cost dataset, or trains and evaluates the Q-per-round baseline.

  With --q_iterations > 0 it trains and evaluates the Q-per-round baseline on augmented training
  deals (--train_datasets) against a cost dataset (--out).

  Runs in this process with the arguments `argv` (`argv[0]` is the program).

  Returns:
    The exit status: 0 done (or help printed), 2 a user error (one line on stderr), 1 a write
    failed for lack of space (one line; the finished chunks kept).
  """
  fv = flags.FlagValues()
  define_flags(fv)
  status = _flags.parse_private(fv, argv, __doc__)
  if status is not None:
    return status
  try:
    _main(fv)
  except ValueError as e:  # a user error: one line, no traceback, exit 2 (as every command)
    print(_flags.error_line("uncontested", e), file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  except OSError as e:  # a full disk: one line, the finished chunks kept, exit 1
    if not _flags.is_disk_full(e):
      raise
    print(_flags.disk_full_line("uncontested", e, f"finished chunks are kept in "
                                f"{fv.out}.chunks/", "rerun the same command to "
                                "resume"), file=sys.stderr)
    return _flags.EXIT_DISK_FULL
  except KeyboardInterrupt:
    raise SystemExit(f"uncontested: interrupted; finished chunks are kept in "
                     f"{fv.out}.chunks/ -- rerun the same command to resume") from None
  return 0


def _check_flags(a) -> None:
  """One line naming the flag (exit 2) for a value out of range, before any work."""
  _flags.check_number("pairs", a.pairs, minimum=1, maximum=2**31, integer=True)
  _flags.check_number("k", a.k, minimum=1, maximum=10_000, integer=True)
  _flags.check_number("seed", a.seed, minimum=0, maximum=2**63 - 1, integer=True,
                      why="a numpy SeedSequence entropy")
  _flags.check_number("chunk", a.chunk, minimum=1, maximum=2**31, integer=True)
  _flags.check_number("q_iterations", a.q_iterations, minimum=0, maximum=2**40, integer=True)
  _flags.check_number("q_rounds", a.q_rounds, minimum=1, maximum=64, integer=True)
  _flags.check_number("q_ucb", a.q_ucb, minimum=0, maximum=1e6)


def train_dataset_paths(text: str | None) -> list[str]:
  """The files that --train_datasets names (comma-separated paths or globs), in order.

  Returns:
    The files; empty when the flag is unset (the shipped training dataset is used).

  Raises:
    errors.UserError: an item (path or glob) that names no file, or an empty list.
  """
  if text is None:
    return []
  parts = [part.strip() for part in text.split(",")]
  if not any(parts):
    raise errors.UserError(f"--train_datasets {text!r} names no file")
  files = []
  for part in parts:
    if not part:
      continue
    found = sorted(f for f in glob.glob(part) if not os.path.isdir(f))
    if not found:
      raise errors.UserError(f"--train_datasets {part!r} matches no file")
    files += found
  return files


# A build's rough cost: DDS takes about 0.3-0.5 CPU seconds a table (the docstring's figure),
# and the merge holds each pair's k redeals and tables twice (the chunks, then one array).
DDS_CPU_SECONDS_PER_TABLE = 0.4
MERGE_BYTES_PER_REDEAL = 2 * (52 + 20)
SAY_COST_FROM_SECONDS = 60.0


def check_build_cost(pairs: int, k: int) -> None:
  """Says a cost-dataset build's rough cost and refuses one that cannot fit, before any work.

  The CPU time and the merge's memory go on one line on stderr from a minute of CPU on; a
  build whose merge needs more memory than is available is refused (`errors.UserError`).
  """
  from ospiel_team.tree import memory as memory_lib
  cpu = pairs * k * DDS_CPU_SECONDS_PER_TABLE
  merge = pairs * (k * MERGE_BYTES_PER_REDEAL + 52)
  cost = (f"--pairs {pairs:,} x --k {k:,} = {pairs * k:,} double-dummy tables, a rough "
          f"estimate: {_flags.rough_duration(cpu)} of CPU (DDS ~0.3-0.5 CPU s a table) and "
          f"{merge / 1e9:.2g} GB of memory for the merge")
  room = memory_lib.available_memory()
  if room is not None and merge > room:
    raise errors.UserError(f"{cost}; only {room / 1e9:.2g} GB of memory is available: lower "
                           "--pairs")
  if cpu >= SAY_COST_FROM_SECONDS:
    _flags.say_cost("uncontested", cost)


def _main(a) -> None:
  _check_flags(a)
  if a.q_iterations <= 0:
    atomic_io.check_writable(a.out, flag="--out")  # a bad --out before the cost is said
    check_build_cost(a.pairs, a.k)
    costs_lib.build_cost_dataset(a.pairs, a.out, k=a.k, seed=a.seed, chunk=a.chunk,
                                 keep_chunks=a.keep_chunks)
    print(f"wrote {a.out}")
    return
  ds = dataset_lib.load_datasets(train_dataset_paths(a.train_datasets) or None)
  cd = costs_lib.load_cost_dataset(a.out)
  h, t = dataset_lib.remove_deals(ds.holders, ds.dd_tricks,
                                  cd["redeal_holders"].reshape(-1, 52))
  h, t = dataset_lib.augment_deals(h, t)
  q = U.RoundQLearner(rounds=a.q_rounds, ucb_c=a.q_ucb, seed=a.seed)
  t0 = time.time()
  q.train(h, costs_lib.single_deal_costs(t), a.q_iterations)
  res = q.evaluate_costs(cd)
  res.update(train_deals=int(h.shape[0]), iterations=a.q_iterations, rounds=a.q_rounds,
             ucb_c=a.q_ucb, wall_s=round(time.time() - t0, 1))
  print(json.dumps(res))


def run() -> None:
  """Entry point of `ospiel-team-uncontested`."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
