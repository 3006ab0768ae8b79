r"""Exact optima of simple_bidding(N) by `simple_bidding_optimum` (one size at a time), checked.

For each size: `simple_bidding_optimum.solve(N, lower_bound=L)` (numba kernel). With a lower bound L
(the total of a known strategy, e.g. 2752 for N = 16 from `simple_bidding_search`), the search
only looks for strategies worth more than L: finding none PROVES OPT = L (since L is achieved);
finding one returns it. Every strategy found is scored by OpenSpiel's own
`expected_game_score.policy_value` and the row records both values. Results go atomically to
--out after every size (one JSON object per size) and a finished size is not rerun; the load
average is recorded with each timing.

Resumable: with --checkpoint the search state of the (one) size is written atomically every
--checkpoint_minutes and on Ctrl-C, and a rerun resumes from it (the same answer and count of
subgames as one uninterrupted run; tested). The file is removed once the size's row is written.

Usage (the N = 16 proof: an estimated 1-1.5 CPU-hours and 3.4 GB):
  python benchmarks/simple_bidding_exact.py --sizes 13,14,15
  python benchmarks/simple_bidding_exact.py --sizes 16 --lower_bound 2752 --hash_log2 27 \
      --checkpoint /tmp/sb16.npz
"""

import json
import os
import time

import tqdm
from absl import app
from absl import flags

from ospiel_team import atomic_io

FLAGS = flags.FLAGS
flags.DEFINE_string("sizes", "13,14,15", "comma-separated sizes N")
flags.DEFINE_integer("lower_bound", None, "known achievable total (only with one size)")
flags.DEFINE_integer("hash_log2", 26, "log2 of the memo slots (25 bytes each)")
flags.DEFINE_string("out", "results/coop_optima/simple_bidding_exact.json", "JSON results")
flags.DEFINE_string("checkpoint", None, "search-state file (.npz) to write and resume from "
                    "(one size only)")
flags.DEFINE_float("checkpoint_minutes", 10.0, "minutes between checkpoints")
flags.DEFINE_bool("progress", True, "progress bar (subgames solved)")


def _load():
  with open("/proc/loadavg") as f:
    return f.read().split()[0]


def main(argv):
  del argv
  import pyspiel
  from open_spiel.python.algorithms import expected_game_score

  import ospiel_team  # noqa: F401
  from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo
  try:
    sizes = [int(s) for s in FLAGS.sizes.split(",") if s.strip()]
  except ValueError:
    raise app.UsageError(f"--sizes must be comma-separated ints, got {FLAGS.sizes!r}") from None
  if FLAGS.lower_bound is not None and len(sizes) != 1:
    raise app.UsageError(f"--lower_bound needs exactly one size, got --sizes={FLAGS.sizes}")
  if FLAGS.checkpoint is not None and len(sizes) != 1:
    raise app.UsageError(f"--checkpoint needs exactly one size, got --sizes={FLAGS.sizes}")
  if not FLAGS.checkpoint_minutes > 0:
    raise app.UsageError(f"--checkpoint_minutes must be > 0, got {FLAGS.checkpoint_minutes}")
  try:
    atomic_io.check_writable(FLAGS.out)
    if FLAGS.checkpoint is not None:
      atomic_io.check_writable(FLAGS.checkpoint, flag="--checkpoint")
  except ValueError as e:
    raise app.UsageError(str(e)) from None
  rows = {}
  if os.path.exists(FLAGS.out):
    with open(FLAGS.out) as f:
      rows = {(r["size"], r["lower_bound"]): r for r in json.load(f)["rows"]}
  for size in sizes:
    key = (size, FLAGS.lower_bound)
    if key in rows:
      print(json.dumps(rows[key]))
      continue
    load_start = _load()
    bar = tqdm.tqdm(desc=f"N={size} subgames", unit="", unit_scale=True,
                    disable=not FLAGS.progress)

    def progress(states, entries, bar=bar):
      bar.update(states - bar.n)
      bar.set_postfix(memo=entries, refresh=False)

    try:
      res = sbo.solve(size, lower_bound=FLAGS.lower_bound, hash_log2=FLAGS.hash_log2,
                      checkpoint=FLAGS.checkpoint,
                      checkpoint_seconds=60 * FLAGS.checkpoint_minutes, progress=progress)
    except ValueError as e:
      raise app.UsageError(str(e)) from e
    finally:
      bar.close()
    row = dict(res.summary(), lower_bound=FLAGS.lower_bound, load_start=load_start,
               load_end=_load())
    if res.strategy is not None:
      game = pyspiel.load_game(f"simple_bidding(size={size})")
      pol = sbo.tabular_policy(game, res.strategy)
      row["openspiel_value"] = expected_game_score.policy_value(
          game.new_initial_state(), [pol, pol])[0]
    else:
      row["meaning"] = (f"no joint strategy is worth more than total {FLAGS.lower_bound}: "
                        f"OPT <= {FLAGS.lower_bound} / {size}^2")
    rows[key] = row
    atomic_io.write_text(FLAGS.out, json.dumps(dict(
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        rows=list(rows.values())), indent=1))
    print(json.dumps(row), flush=True)
    if FLAGS.checkpoint is not None and os.path.exists(FLAGS.checkpoint):
      os.remove(FLAGS.checkpoint)


if __name__ == "__main__":
  app.run(main)
