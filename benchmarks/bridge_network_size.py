r"""Self-play A2C games per CPU second against the size of the bidding network.

  python benchmarks/bridge_network_size.py --sizes 200x2,512x2,1024x2 --repeats 3 \
      --out results/bridge/network_size.json

For each size ``HxB`` (``hidden`` units, ``num_blocks`` residual blocks of
`policy_net.make_network`; the shipped models are 200x2, the JPS paper's network), a whole
training round of the trainer as the FSP/PPO experiment's A2C arms run it (512 deals, i.e.
1,024 games per round, 8 Adam steps of batch 1,024, learner overlapped in a thread): games per
CPU second of this process (all threads, `time.process_time`) and per wall second. The sizes are
interleaved repeat by repeat so that all see the same load, and the best of ``--repeats`` is
kept. Run it alone on the machine; the record holds the load average before and after.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import time

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_list("sizes", ["200x2", "512x2", "1024x2"], "Network sizes HIDDENxBLOCKS.")
flags.DEFINE_integer("repeats", 3, "Timed rounds per size (best kept).")
flags.DEFINE_integer("deals_per_round", 512, "Deals per round (2 games each).")
flags.DEFINE_string("out", "results/bridge/network_size.json", "The record.")


def _parse(size: str) -> tuple[int, int]:
  try:
    hidden, blocks = (int(x) for x in size.lower().split("x"))
  except ValueError:
    raise app.UsageError(f"--sizes: {size!r} is not HIDDENxBLOCKS (e.g. 200x2)") from None
  return hidden, blocks


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  sizes = [_parse(s) for s in FLAGS.sizes]
  atomic_io.check_writable(FLAGS.out)
  ds = dataset_lib.load_dataset()
  trainers = {}
  for hidden, blocks in sizes:
    cfg = a2c.A2CConfig(hidden=hidden, num_blocks=blocks, learning_rate=1e-5,
                        deals_per_round=FLAGS.deals_per_round, updates_per_round=8,
                        batch_size=1024, overlap_learning=True, burn_in=1)
    tr = a2c.A2CTrainer(cfg, ds)
    for _ in range(2):  # compile the policy's batch sizes and the update
      tr.train_round()
    trainers[(hidden, blocks)] = tr
  load0 = [round(x, 2) for x in os.getloadavg()]
  times = {k: [] for k in trainers}
  for _ in range(FLAGS.repeats):
    for k, tr in trainers.items():
      games0, w, c = tr.games, time.perf_counter(), time.process_time()
      tr.train_round()
      times[k].append((tr.games - games0, time.perf_counter() - w, time.process_time() - c))
  rows = []
  for (hidden, blocks), ts in times.items():
    games = ts[0][0]
    params = sum(v.size for d in trainers[(hidden, blocks)].params.values() for v in d.values())
    rows.append({"hidden": hidden, "num_blocks": blocks, "parameters": int(params),
                 "games_per_round": int(games),
                 "games_per_cpu_s": max(g / c for g, _, c in ts),
                 "games_per_wall_s": max(g / w for g, w, _ in ts)})
  base = rows[0]["games_per_cpu_s"]
  for r in rows:
    r["cpu_cost_vs_first"] = base / r["games_per_cpu_s"]
  record = {"command": " ".join(["python", "benchmarks/bridge_network_size.py", *sys.argv[1:]]),
            "commit": report.short_commit(), "date": datetime.date.today().isoformat(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
            "repeats": FLAGS.repeats, "load_before": load0,
            "load_after": [round(x, 2) for x in os.getloadavg()], "rows": rows}
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  for r in rows:
    print(f"{r['hidden']}x{r['num_blocks']}: {r['games_per_cpu_s']:.0f} games/CPU s, "
          f"{r['games_per_wall_s']:.0f} games/s, x{r['cpu_cost_vs_first']:.2f} CPU per game")
  print(f"wrote {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
