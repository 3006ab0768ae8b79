r"""Model selection for a bridge training run: every snapshot against a fixed opponent on the
shipped *validation* deals, and the best one.

`ospiel-team-train-bridge --snapshot_every R` saves the network every R rounds as
``WORKDIR/snapshots/round_RRRRRRR.npz``. This script plays each snapshot a duplicate match
(greedy, `ospiel_team.bridge.agents.evaluation.match.run_match`) against ``--opponent`` on
``--boards`` validation boards, writes one row per snapshot to ``--out`` (JSON, atomically after
every snapshot; a rerun evaluates only the snapshots not yet in it) and prints the best snapshot
(highest IMPs per board). With ``--averages 2,4`` the candidates also include the parameter
averages of the last 2 and last 4 snapshots (`policy_net.average_models`: stochastic weight
averaging, Izmailov et al., UAI 2018, arXiv:1803.05407), written to ``--averages_dir``.
Nothing here touches the held-out sets: those are for the final
evaluation of the selected model (`benchmarks/bridge_cross_table.py`). ``RUN`` is the
training run's ``--workdir``.

Usage:
  python experiments/bridge_a2c_training/bridge_select_snapshot.py --snapshots RUN/snapshots \
      --opponent a2c_long --boards 1000 --averages 4,8,16
"""

import glob
import json
import os
import platform

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import match as match_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("snapshots", None, "Folder of snapshot .npz files (or a glob).")
flags.DEFINE_string("opponent", "a2c_long", "Opponent bidder (name or model path).")
flags.DEFINE_integer("boards", 1000, "Validation boards per match (at most 1,000).")
flags.DEFINE_integer("seed", 0, "Board-order seed.")
flags.DEFINE_integer("every", 1, "Evaluate every k-th snapshot only (the last one always).")
flags.DEFINE_list("averages", [], "Also candidates: the averages of the last K snapshots.")
flags.DEFINE_string("averages_dir", None, "Where the averaged models go (default: the "
                    "snapshots folder's sibling 'averages').")
flags.DEFINE_string("out", "experiments/bridge_a2c_training/selection.json",
                    "Output JSON (resumed).")
flags.DEFINE_bool("progress", True, "Show progress bars.")


def snapshot_files(spec: str) -> list[str]:
  """Sorted snapshot paths of a folder or glob."""
  if os.path.isdir(spec):
    spec = os.path.join(spec, "*.npz")
  return sorted(glob.glob(spec))


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  if not FLAGS.snapshots:
    raise SystemExit("bridge_select_snapshot: error: --snapshots is required")
  files = snapshot_files(FLAGS.snapshots)
  if not files:
    raise SystemExit(f"bridge_select_snapshot: error: no .npz under {FLAGS.snapshots!r}")
  if FLAGS.every < 1:
    raise SystemExit(f"bridge_select_snapshot: error: --every must be >= 1, got {FLAGS.every}")
  try:
    ks = sorted({int(k) for k in FLAGS.averages})
  except ValueError:
    raise SystemExit(f"bridge_select_snapshot: error: --averages must be integers, got "
                     f"{FLAGS.averages}") from None
  if any(k < 2 or k > len(files) for k in ks):
    raise SystemExit(f"bridge_select_snapshot: error: --averages {ks}: each K must be in "
                     f"2..{len(files)} (the number of snapshots)")
  averaged = []
  if ks:
    avg_dir = FLAGS.averages_dir or os.path.join(os.path.dirname(os.path.abspath(files[0])),
                                                 os.pardir, "averages")
    os.makedirs(avg_dir, exist_ok=True)
    for k in ks:
      last = files[-k:]
      tag = lambda f: os.path.splitext(os.path.basename(f))[0].replace("round_", "")
      path = os.path.join(avg_dir, f"avg_last{k}_{tag(last[0])}-{tag(last[-1])}.npz")
      if not os.path.exists(path):
        _, params, meta = policy_net.average_models(last)
        last_meta = policy_net.load_model(last[-1])[2]
        policy_net.save_model(path, params, meta, extra={
            "averaged_from": meta["averaged_from"], "rounds": last_meta.get("rounds"),
            "games": last_meta.get("games"), "wall_s": last_meta.get("wall_s")})
      averaged.append(path)
  files = [f for i, f in enumerate(files) if i % FLAGS.every == 0 or i == len(files) - 1]
  files += averaged
  rows = {}
  if os.path.exists(FLAGS.out):
    with open(FLAGS.out) as f:
      rows = {r["snapshot"]: r for r in json.load(f)["rows"]}
  for path in files:
    key = os.path.basename(path)
    if key in rows and rows[key]["boards"] == FLAGS.boards and rows[key]["seed"] == FLAGS.seed:
      continue
    net, params, meta = policy_net.load_model(path)
    bidder = model_bidder.ModelBidder(net, params, name=key)
    res = match_lib.run_match(bidder, FLAGS.opponent, FLAGS.boards, dataset="validation",
                              seed=FLAGS.seed, progress=FLAGS.progress)
    rows[key] = {"snapshot": key, "rounds": meta.get("rounds"), "games": meta.get("games"),
                 "wall_s": meta.get("wall_s"), "opponent": FLAGS.opponent,
                 "boards": FLAGS.boards, "seed": FLAGS.seed,
                 "imps": round(res.mean_imps, 4), "stderr": round(res.stderr_imps, 4),
                 "load": os.getloadavg()[0]}
    print(f"{key}: {res.mean_imps:+.3f} ± {res.stderr_imps:.3f} IMPs/b vs {FLAGS.opponent}")
    best = max(rows.values(), key=lambda r: r["imps"])
    atomic_io.write_text(FLAGS.out, json.dumps(
        {"dataset": "validation", "machine": platform.node(), "best": best["snapshot"],
         "rows": sorted(rows.values(), key=lambda r: r["snapshot"])}, indent=1))
  best = max(rows.values(), key=lambda r: r["imps"])
  print(f"best: {best['snapshot']} ({best['imps']:+.3f} ± {best['stderr']:.3f})")


if __name__ == "__main__":
  app.run(main)
