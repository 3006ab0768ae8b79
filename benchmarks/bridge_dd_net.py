r"""Trains the learned double-dummy estimate (`ospiel_team.bridge.dd_net`) and records its accuracy.

  nice -n 5 python benchmarks/bridge_dd_net.py \
      --model ospiel_team/bridge/models/dd_net.npz --out results/bridge/dd_net.json

Training data: the shipped training deals (50,000) under their 96 symmetries (4.8 M deals, the
validation and held-out deals removed, as for the bidders' training). The validation deals are
scored during training (the only data that steers a choice); the record then gives the final
network's accuracy on the validation deals and on both held-out sets (which nothing was chosen
on), and its cost per deal beside DDS's on the same 200 deals.

A finished run (the model exists and its meta holds the same settings) is not redone; the
record is rewritten from the saved model. Training takes about 15 CPU minutes with the
defaults.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import sys
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset
from ospiel_team.bridge import dd_net
from ospiel_team.bridge import dds
from ospiel_team.runner import report

_DEFAULTS = dd_net.DDNetConfig()
FLAGS = flags.FLAGS
flags.DEFINE_integer("hidden", _DEFAULTS.hidden, "Units per hidden layer.")
flags.DEFINE_integer("num_layers", _DEFAULTS.num_layers, "Hidden layers.")
flags.DEFINE_integer("batch", _DEFAULTS.batch, "Deals per Adam step.")
flags.DEFINE_float("learning_rate", _DEFAULTS.learning_rate, "Adam's initial step size.")
flags.DEFINE_integer("steps", _DEFAULTS.steps, "Adam steps.")
flags.DEFINE_integer("seed", _DEFAULTS.seed, "Seed.")
flags.DEFINE_integer("train_deals", 0, "Use only the first N training deals (0: all).")
flags.DEFINE_integer("evaluate_every", 2000, "Steps between validation scores.")
flags.DEFINE_integer("cost_deals", 200, "Held-out deals timed with both DDS and the network.")
flags.DEFINE_string("model", dd_net.SHIPPED_MODEL, "Where the trained network is written.")
flags.DEFINE_string("out", "results/bridge/dd_net.json", "The record.")


def _load() -> list[float]:
  return [round(x, 2) for x in os.getloadavg()]


def _cost(model: dd_net.DDNet, n: int) -> dict:
  deals = dataset.resolve_dataset("heldout2")
  holders, tricks = deals.holders[:n], deals.dd_tricks[:n]
  c0 = time.process_time()
  got = dds.dd_tables(holders)
  dds_cpu = time.process_time() - c0
  if not np.array_equal(got, tricks):
    raise RuntimeError("DDS disagrees with the shipped held-out tables")
  model.probabilities(holders[:64])  # compile
  c0 = time.process_time()
  model.probabilities(holders)
  net_cpu = time.process_time() - c0
  return {"deals": n, "dds_cpu_s_per_deal": dds_cpu / n, "net_cpu_s_per_deal": net_cpu / n,
          "ratio": dds_cpu / max(net_cpu, 1e-12)}


def main(argv):
  del argv
  config = dd_net.DDNetConfig(hidden=FLAGS.hidden, num_layers=FLAGS.num_layers,
                              batch=FLAGS.batch, learning_rate=FLAGS.learning_rate,
                              steps=FLAGS.steps, seed=FLAGS.seed)
  atomic_io.check_writable(FLAGS.out)
  atomic_io.check_writable(FLAGS.model, flag="--model")
  wanted = {"config": dataclasses.asdict(config), "train_deals": FLAGS.train_deals}
  model = None
  if os.path.exists(FLAGS.model):
    old = dd_net.load(FLAGS.model)
    if {k: old.meta.get(k) for k in wanted} == wanted:
      model, training = old, old.meta["training"]
      print(f"{FLAGS.model} already holds this run; rewriting the record only")
  if model is None:
    train = dataset.shipped_training_deals(FLAGS.train_deals or None)
    holders, tricks = train.holders, train.dd_tricks
    validation = dataset.resolve_dataset("validation")
    load0 = _load()
    c0, w0 = time.process_time(), time.time()

    def progress(step, rec):
      print(f"step {step}: " + ", ".join(f"{k} {v:.4f}" for k, v in rec.items()
                                         if k != "step"), flush=True)

    model, history = dd_net.train(holders, tricks, config,
                                  validation=(validation.holders, validation.dd_tricks),
                                  evaluate_every=FLAGS.evaluate_every, progress=progress)
    training = {"deals": int(len(holders)), "cpu_s": time.process_time() - c0,
                "wall_s": time.time() - w0, "load_before": load0, "load_after": _load(),
                "validation_curve": history}
    dd_net.save(FLAGS.model, model, {"train_deals": FLAGS.train_deals, "training": training})
    model = dd_net.load(FLAGS.model)
  accuracy = {}
  for name in ("validation", "heldout", "heldout2"):
    d = dataset.resolve_dataset(name)
    accuracy[name] = {"deals": len(d), **dd_net.table_metrics(model.probabilities(d.holders),
                                                              d.dd_tricks)}
  record = {"command": "python benchmarks/bridge_dd_net.py " + " ".join(sys.argv[1:]),
            "commit": report.short_commit(), "date": datetime.date.today().isoformat(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
            "model": os.path.relpath(FLAGS.model), "config": dataclasses.asdict(config),
            "train_deals": FLAGS.train_deals, "training": training, "accuracy": accuracy,
            "cost": _cost(model, FLAGS.cost_deals), "load_at_cost": _load()}
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  print(json.dumps(accuracy, indent=1))
  print(f"wrote {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
