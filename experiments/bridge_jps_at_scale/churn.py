r"""How many greedy calls training changes: the measured churn behind the movement gate's threshold.

  nice -n 10 python experiments/bridge_jps_at_scale/churn.py \
      --out experiments/bridge_jps_at_scale/churn.json

The movement gate (`ospiel_team.bridge.agents.evaluation.movement.moved`,
``study.py --min_changed``) calls a snapshot moved if at least ``min_changed`` of its greedy calls
differ from its start's on the start's fixed positions (`movement.fixed_positions`: 200 validation
deals, seed 0). The threshold must lie above what training does to a model that did not move in
strength and below what a lineage that did move changes. This script measures both kinds of pair
from models that exist
(`movement.changed_call_fraction`): the seed-10 models of the 27-run JPSBid study
(``experiments/bridge_jpsbid/models/``, 200 rounds at learning rate 1e-5 from `a2c`: their
validation results against the start were -0.05 to +0.01 IMPs/b, "not moved"), and the shipped
lineage `a2c` -> `a2c_long` -> `a2c_longer` (the study's own schedule is `a2c_long` ->
`a2c_longer`).
"""

from __future__ import annotations

import datetime
import os
import platform
import sys

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge.agents.evaluation import movement
from ospiel_team.runner import report

HERE = os.path.dirname(os.path.abspath(__file__))
JPSBID = os.path.join(os.path.dirname(HERE), "bridge_jpsbid", "models")
PAIRS = {  # name -> (model, start, what it is)
    "a2c_finetuned": (os.path.join(JPSBID, "a2c_finetuned.npz"), "a2c",
                      "27-run study, seed 10, plain fine-tuning (not moved)"),
    "a2c_1search": (os.path.join(JPSBID, "a2c_1search.npz"), "a2c",
                    "27-run study, seed 10, 1-search fine-tuning (not moved)"),
    "a2c_jpsbid": (os.path.join(JPSBID, "a2c_jpsbid.npz"), "a2c",
                   "27-run study, seed 10, JPSBid fine-tuning (not moved)"),
    "a2c_long": ("a2c_long", "a2c", "the shipped lineage: a2c -> a2c_long"),
    "a2c_longer": ("a2c_longer", "a2c_long",
                   "the study's schedule, start to end: a2c_long -> a2c_longer"),
}

FLAGS = flags.FLAGS
flags.DEFINE_integer("deals", 200, "Validation deals of the fixed positions (two tables each).")
flags.DEFINE_string("out", os.path.join(HERE, "churn.json"), "The record.")


def main(argv):
  """Measures every pair's changed-call fraction and writes the record."""
  del argv
  atomic_io.check_writable(FLAGS.out)
  positions, rows = {}, {}
  for name, (model, start, what) in PAIRS.items():
    if start not in positions:
      positions[start] = movement.fixed_positions(start, deals=FLAGS.deals, seed=0)
    pos = positions[start]
    rows[name] = {"model": os.path.relpath(model, os.path.dirname(os.path.dirname(HERE)))
                  if os.path.isabs(model) else model, "start": start, "what": what,
                  "positions": int(len(pos)),
                  "changed": movement.changed_call_fraction(model, start, pos)}
    print(name, rows[name]["changed"])
  atomic_io.write_json(FLAGS.out, {
      "command": "python experiments/bridge_jps_at_scale/churn.py " + " ".join(sys.argv[1:]),
      "deals": FLAGS.deals, "pairs": rows, "commit": report.short_commit(),
      "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
      "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
      "load": [round(x, 2) for x in os.getloadavg()]})


if __name__ == "__main__":
  app.run(main)
