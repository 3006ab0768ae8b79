r"""Duplicate-match cross table of bridge bidders: ours and the JPS authors' published models.

  python benchmarks/bridge_cross_table.py --bidders a2c,natural,jps_paper_baseline,jps_paper_0.63 \
      --pairs all --datasets heldout,wbridge5 --boards 2000 --out /tmp/bridge_cross \
      [--reference_dir PATH/TO/jps_reference] [--sample_too]

``--pairs all`` plays every pair of ``--bidders`` (A before B in the list); otherwise give
``A:B,C:D``. ``--datasets``: shipped names (train, validation, heldout), ``.npz`` paths, or
``wbridge5`` (the authors' 1,000 deals of their WBridge5 match with their own DDS tables, read
from ``--reference_dir``). Every match plays min(--boards, dataset size) boards with the
standard duplicate dealer / vulnerability cycle (`match.run_match`), greedy bidders (the
authors' evaluation) and, with ``--sample_too``, once more with sampling model bidders.

Each result (mean IMPs/board for A, clustered standard error, 95% interval, boards, seconds,
load average) is appended to ``OUT/cross_table.json`` as soon as it is done (atomically); a
rerun skips results already there (resume). ``OUT/cross_table.md`` is rewritten after each.
"""

import json
import os
import sys
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import jps_paper
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("bidders", "a2c,natural,jps_paper_baseline,jps_paper_0.63",
                    "Comma-separated bidder names / model paths (see bidders.make_bidder).")
flags.DEFINE_string("pairs", "all", "'all' or comma-separated A:B.")
flags.DEFINE_string("datasets", "heldout", "Comma-separated: train, validation, heldout, "
                    "wbridge5, or .npz paths.")
flags.DEFINE_integer("boards", 2000, "Boards per match (at most the dataset size).")
flags.DEFINE_integer("seed", 0, "Board-order seed.")
flags.DEFINE_string("reference_dir", None, "Folder of the JPS authors' files (default "
                    "the environment variable JPS_REFERENCE_DIR).")
flags.DEFINE_bool("sample_too", False, "Also play each match with sampling model bidders.")
flags.DEFINE_string("out", "/tmp/bridge_cross", "Output folder (resumed).")
flags.DEFINE_string("record", None, "Also write the rows with their command, commit and date "
                    "to this record (e.g. results/bridge/best_cross.json).")


# The JPS authors' 1,000 deals of their match against WBridge5 (github.com/facebookresearch/jps).
WBRIDGE5_FILE = "against_WBridge5.raw"


def load_wbridge5_deals(path: str):
  """The deals of the authors' ``against_WBridge5.raw`` with their double-dummy tables.

  The file alternates a PBN line ``[Deal "N:..."]`` and 20 trick counts in the order of the
  authors' ``GameState::fillInDDTable`` (strain C, D, H, S, NT outer; declarer N, E, S, W
  inner), i.e. ``dd_tricks[strain, declarer]`` row by row.

  Args:
    path: the ``.raw`` file, or the folder that holds it.

  Returns:
    A `dataset.BridgeDataset` (holders in our card order, dd_tricks (N, 5, 4)).
  """
  if not path:
    raise ValueError(f"the wbridge5 deals need --reference_dir (the folder of {WBRIDGE5_FILE})")
  if os.path.isdir(path):
    path = os.path.join(path, WBRIDGE5_FILE)
  if not os.path.isfile(path):
    raise ValueError(f"{path!r} does not exist (the authors' {WBRIDGE5_FILE})")
  with open(path) as f:
    lines = [ln.strip() for ln in f if ln.strip()]
  if len(lines) % 2:
    raise ValueError(f"{path!r}: odd number of lines ({len(lines)}); expected deal/table pairs")
  holders, tricks = [], []
  for k in range(0, len(lines), 2):
    head, nums = lines[k], lines[k + 1].split()
    if not (head.startswith('[Deal "') and head.endswith('"]')):
      raise ValueError(f"{path!r} line {k + 1}: expected [Deal \"...\"], got {head[:40]!r}")
    if len(nums) != 20:
      raise ValueError(f"{path!r} line {k + 2}: {len(nums)} numbers, expected 20")
    holders.append(deal_lib.pbn_to_holders(head[len('[Deal "'):-2]))
    tricks.append(np.array([int(x) for x in nums], np.int64).reshape(5, 4))
  return dataset_lib.BridgeDataset(np.asarray(holders, np.uint8),
                                   np.asarray(tricks, np.uint8), path=path)


def _dataset(name, ref):
  if name == "wbridge5":
    return load_wbridge5_deals(ref)
  return dataset_lib.resolve_dataset(name)


def _markdown(rows):
  lines = ["| A | B | deals | acting | boards | IMPs/b for A | clustered s.e. | 95% interval |"
           " s |", "|---|---|---|---|---|---|---|---|---|"]
  for r in rows:
    lines.append(f"| {r['a']} | {r['b']} | {r['dataset']} | {r['acting']} | {r['boards']} | "
                 f"{r['mean']:+.3f} | {r['se']:.3f} | [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]"
                 f" | {r['seconds']:.0f} |")
  return "\n".join(lines) + "\n"


def main(argv):
  del argv
  atomic_io.check_writable(FLAGS.out, folder=True)  # before the work
  ref = FLAGS.reference_dir or jps_paper.default_reference_dir()
  names = [n for n in FLAGS.bidders.split(",") if n]
  if FLAGS.pairs == "all":
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
  else:
    pairs = [tuple(p.split(":")) for p in FLAGS.pairs.split(",") if p]
  os.makedirs(FLAGS.out, exist_ok=True)
  jpath = os.path.join(FLAGS.out, "cross_table.json")
  rows = json.load(open(jpath)) if os.path.exists(jpath) else []
  done = {(r["a"], r["b"], r["dataset"], r["acting"]) for r in rows}
  cache = {}

  def bidder(name, greedy):
    if (name, greedy) not in cache:
      cache[(name, greedy)] = bidders_lib.make_bidder(name, reference_dir=ref, greedy=greedy)
    return cache[(name, greedy)]

  for dname in FLAGS.datasets.split(","):
    ds = _dataset(dname, ref)
    boards = min(FLAGS.boards, len(ds))
    for acting in (["greedy", "sampled"] if FLAGS.sample_too else ["greedy"]):
      for a, b in pairs:
        if (a, b, dname, acting) in done:
          continue
        t = time.time()
        res = match.run_match(bidder(a, acting == "greedy"), bidder(b, acting == "greedy"),
                              boards, dataset=ds, seed=FLAGS.seed, progress=False)
        row = {"a": a, "b": b, "dataset": dname, "acting": acting, "boards": res.boards,
               "mean": res.mean_imps, "se": res.stderr_clustered, "se_board": res.stderr_imps,
               "clusters": res.num_clusters, "ci95": list(res.ci95),
               "seconds": time.time() - t, "loadavg": open("/proc/loadavg").read().split()[:3],
               "seed": FLAGS.seed}
        rows.append(row)
        atomic_io.write_text(jpath, json.dumps(rows, indent=1) + "\n")
        atomic_io.write_text(os.path.join(FLAGS.out, "cross_table.md"), _markdown(rows))
        if FLAGS.record:
          prov = report.provenance(["python", "benchmarks/bridge_cross_table.py", *sys.argv[1:]])
          atomic_io.write_text(FLAGS.record, json.dumps(
              {"command": " ".join(prov["command"]), "commit": prov["commit"],
               "uncommitted_package_changes": prov["uncommitted_package_changes"],
               "date": prov["date"], "rows": rows}, indent=1) + "\n")
        print(f"{a} vs {b} [{dname}, {acting}]: {row['mean']:+.3f} ± {row['se']:.3f} "
              f"({row['boards']} boards, {row['seconds']:.0f} s)", flush=True)
  print(_markdown(rows))


if __name__ == "__main__":
  app.run(main)
