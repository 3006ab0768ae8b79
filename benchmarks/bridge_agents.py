r"""Evaluates bridge bidding agents: duplicate matches (IMPs/board), Yeh & Lin's uncontested cost.

  python benchmarks/bridge_agents.py --models a2c=ospiel_team/bridge/models/a2c_baseline.npz,... \
      --pairs a2c:natural,a2c:random,jps:a2c --match_data COST.npz[,MORE.npz] \
      --cost_data COST.npz --cost_models a2c_uncontested,natural --out DIR

Models are `name=path` (a model .npz or A2C checkpoint) or built-in bidder names (natural,
random, pass). Matches use the deals of ``--match_data``: a cost dataset's redeals (all k deals
of each N-S pair, so boards come in groups of k sharing the N-S hands) and/or plain datasets;
these deals must not have been used in training. Standard errors: the plain per-board one and,
with cost datasets, a clustered one (per N-S pair means), which accounts for the shared hands.
Writes ``DIR/bridge_agents.json`` and ``DIR/bridge_agents.md`` (atomically) and prints them.
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
from ospiel_team.bridge import uncontested_costs as costs_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.training import uncontested as U
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("models", "a2c=a2c", "Comma-separated name=path (or name=shipped name).")
flags.DEFINE_string("pairs", "a2c:natural,a2c:random", "Comma-separated A:B duplicate matches.")
flags.DEFINE_string("match_data", None, "Comma-separated cost datasets (.npz with redeals) or "
                    "plain datasets for the matches.")
flags.DEFINE_string("cost_data", None, "Cost dataset for the uncontested cost (default: the "
                    "shipped one).")
flags.DEFINE_string("cost_models", "a2c_uncontested,a2c,natural",
                    "Bidders (names from --models or built-in) for the uncontested cost.")
flags.DEFINE_string("out", "/tmp/bridge_agents_bench", "Output folder.")
flags.DEFINE_string("record", None, "Also write the results with their command and commit to "
                    "this record (e.g. results/bridge/uncontested_cost.json).")
flags.DEFINE_integer("max_boards", 100000, "At most this many match boards.")


def load_match_data(spec):
  holders, tricks, groups = [], [], []
  gid = 0
  for path in spec.split(","):
    with np.load(path, allow_pickle=False) as z:
      files = set(z.files)
    if "redeal_holders" in files:
      d = costs_lib.load_cost_dataset(path)
      n, k = d["redeal_holders"].shape[:2]
      holders.append(d["redeal_holders"].reshape(n * k, 52))
      tricks.append(d["dd_tricks"].reshape(n * k, 5, 4))
      groups.append(gid + np.repeat(np.arange(n), k))
      gid += n
    else:
      d = dataset_lib.load_dataset(path)
      n = d.holders.shape[0]
      holders.append(d.holders)
      tricks.append(d.dd_tricks)
      groups.append(gid + np.arange(n))
      gid += n
  return (dataset_lib.BridgeDataset(np.concatenate(holders), np.concatenate(tricks)),
          np.concatenate(groups))


def make_bidders(spec):
  out = {}
  for item in spec.split(","):
    if not item:
      continue
    name, _, path = item.partition("=")
    out[name] = model_bidder.load_bidder(path or name, name=name)
  return out


def get_bidder(name, models):
  if name in models:
    return models[name]
  if name in ("natural", "random", "pass"):
    return bidders_lib.make_bidder(name)
  return model_bidder.load_bidder(name, name=name)


clustered_stderr = match.clustered_stderr  # one implementation (per-cluster residual sums)


def main(argv):
  del argv
  atomic_io.check_writable(FLAGS.out, folder=True)  # before the work
  models = make_bidders(FLAGS.models)
  results = {"date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "matches": [],
             "uncontested": []}
  lines = ["# Bridge agents benchmark", ""]
  if FLAGS.match_data:
    ds, groups = load_match_data(FLAGS.match_data)
    nb = min(ds.holders.shape[0], FLAGS.max_boards)
    # run_match permutes deals with its seed; replay the permutation to map boards to groups.
    perm = np.random.default_rng(0).permutation(ds.holders.shape[0])[:nb]
    lines += [f"Duplicate matches on {nb} held-out boards ({len(np.unique(groups[perm]))} "
              "distinct N-S pairs); IMPs/board for A, ± standard error (per board; clustered "
              "by N-S pair).", "", "| A | B | boards | IMPs/board for A | s.e. | clustered s.e. |"
              " wall s |", "|---|---|---|---|---|---|---|"]
    for pair in FLAGS.pairs.split(","):
      a, b = pair.split(":")
      t0 = time.time()
      res = match.run_match(get_bidder(a, models), get_bidder(b, models), nb, dataset=ds,
                            seed=0, progress=False)
      np.testing.assert_array_equal(res.deal_index, perm)
      cse = clustered_stderr(res.imps.astype(float), groups[perm])
      row = {"a": a, "b": b, "boards": res.boards, "imps_per_board": res.mean_imps,
             "stderr": res.stderr_imps, "clustered_stderr": cse,
             "wall_s": round(time.time() - t0, 1)}
      results["matches"].append(row)
      lines.append(f"| {a} | {b} | {res.boards} | {res.mean_imps:+.3f} | {res.stderr_imps:.3f} "
                   f"| {cse:.3f} | {row['wall_s']} |")
      print(lines[-1], flush=True)
  cost_path = FLAGS.cost_data or costs_lib.SHIPPED_COST_DATASET
  cd = costs_lib.load_cost_dataset(cost_path)
  n, k = cd["redeal_holders"].shape[:2]
  lines += ["", f"Uncontested cost (Yeh & Lin 2016) on {n} N-S pairs x {k} E-W redeals "
            f"({os.path.basename(cost_path)}); lower is better. Published: Yeh & Lin 2.70, "
            "WBridge5 3.00 (their test set).", "",
            "| bidder | mean cost (IMPs) | s.e. | best contract reached | top contracts |",
            "|---|---|---|---|---|"]
  oracle = costs_lib.oracle_bidder_costs(cd)
  for name in FLAGS.cost_models.split(","):
    try:
      bidder = get_bidder(name, models)
    except ValueError as e:
      print(f"skipping {name}: {e}")
      continue
    r = U.evaluate_costs(bidder, cd)
    r["bidder"] = name
    results["uncontested"].append(r)
    top = ", ".join(f"{c} {100 * f:.0f}%" for c, f in list(r["top_contracts"].items())[:4])
    lines.append(f"| {name} | {r['mean_cost']:.3f} | {r['stderr']:.3f} | "
                 f"{100 * r['fraction_best']:.1f}% | {top} |")
    print(lines[-1], flush=True)
  se = oracle.std(ddof=1) / np.sqrt(len(oracle))
  lines.append(f"| (hindsight: best contract of the actual deal) | {oracle.mean():.3f} | "
               f"{se:.3f} | {100 * np.mean(oracle == 0):.1f}% | |")
  results["uncontested_hindsight_oracle"] = float(oracle.mean())
  md = "\n".join(lines) + "\n"
  atomic_io.write_text(os.path.join(FLAGS.out, "bridge_agents.json"),
                        json.dumps(results, indent=1) + "\n")
  atomic_io.write_text(os.path.join(FLAGS.out, "bridge_agents.md"), md)
  if FLAGS.record:
    prov = report.provenance(["python", "benchmarks/bridge_agents.py", *sys.argv[1:]])
    atomic_io.write_text(FLAGS.record, json.dumps(
        {"command": " ".join(prov["command"]), "commit": prov["commit"],
         "uncommitted_package_changes": prov["uncommitted_package_changes"], **results},
        indent=1) + "\n")
  print(md)


if __name__ == "__main__":
  app.run(main)
