r"""Small hyper-parameter sweep of tabular and neural ED (a reduced version of Sec. 4.3's).

For each game, runs each setting for a fixed number of steps and records the final and best
NashConv (of the current policy). The solvers' defaults are chosen at an equal CPU budget by
`benchmarks/ed_defaults.py` instead.

  python benchmarks/ed_sweep.py --steps 1000 --out out/ed_sweep
  python benchmarks/ed_sweep.py --steps 1000 --tabular_lr "" --neural_optimizer adam \
      --neural_lr 0.003,0.01 --neural_schedule constant --out out/ed_sweep_adam
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
import time

import pyspiel
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.nash import exploitability_descent as ed
from ospiel_team.tree.game_tree import GameTree

flags.DEFINE_string("games", "kuhn_poker;leduc_poker;"
                    "goofspiel(imp_info=True,num_cards=4,points_order=descending)",
                    "Games separated by ';'.")
flags.DEFINE_integer("steps", 1000, "ED steps per setting.")
flags.DEFINE_list("tabular_lr", ["0.5", "1", "2", "4"], "Tabular learning rates.")
flags.DEFINE_list("tabular_schedule", ["constant", "inverse_sqrt"], "Tabular schedules.")
flags.DEFINE_list("neural_hidden", ["64", "128x128"], "Neural hidden layers.")
flags.DEFINE_list("neural_lr", ["0.1", "0.5", "2"], "Neural initial learning rates.")
flags.DEFINE_list("neural_l2", ["0.001"], "Neural L2 weights.")
flags.DEFINE_list("neural_optimizer", ["sgd"], "Neural optax optimizers.")
flags.DEFINE_string("neural_schedule", "inverse_sqrt", "Neural learning-rate schedule.")
flags.DEFINE_string("out", "out/ed_sweep", "Output directory.")
FLAGS = flags.FLAGS


def _load(name):
  game = pyspiel.load_game(name)
  if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    game = pyspiel.load_game_as_turn_based(name)
  return game


def _run(solver, steps):
  compile_s = solver.warm_up()
  start = time.perf_counter()
  values = [solver.step() for _ in range(steps)]
  seconds = time.perf_counter() - start
  final = solver.nash_conv()
  return dict(final=final, best=min(values + [final]), seconds=seconds, compile=compile_s)


def main(argv):
  del argv
  atomic_io.check_writable(FLAGS.out, folder=True)  # before the work
  rows = []
  for name in [g for g in FLAGS.games.split(";") if g]:
    game = _load(name)
    tree = GameTree(game)
    for lr, sched in itertools.product(FLAGS.tabular_lr, FLAGS.tabular_schedule):
      r = _run(ed.TabularEDSolver(game, learning_rate=float(lr), lr_schedule=sched, tree=tree),
               FLAGS.steps)
      rows.append(dict(game=name, solver="ed", lr=float(lr), schedule=sched, **r))
      print(rows[-1], flush=True)
    for opt, hidden, lr, l2 in itertools.product(FLAGS.neural_optimizer, FLAGS.neural_hidden,
                                                 FLAGS.neural_lr, FLAGS.neural_l2):
      layers = tuple(int(h) for h in hidden.split("x"))
      r = _run(ed.NeuralEDSolver(game, hidden_layers=layers, learning_rate=float(lr), l2=float(l2),
                                 optimizer=opt, lr_schedule=FLAGS.neural_schedule, tree=tree),
               FLAGS.steps)
      rows.append(dict(game=name, solver="neural_ed", hidden=hidden, lr=float(lr),
                       l2=float(l2), optimizer=opt, schedule=FLAGS.neural_schedule, **r))
      print(rows[-1], flush=True)
  os.makedirs(FLAGS.out, exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=FLAGS.out, prefix=".tmp_")
  with os.fdopen(fd, "w") as f:
    json.dump(rows, f, indent=1)
  os.replace(tmp, os.path.join(FLAGS.out, "sweep.json"))
  lines = [f"Steps per setting: {FLAGS.steps}", "",
           "| game | solver | setting | final NashConv | best NashConv | step ms | compile s |",
           "|---|---|---|---:|---:|---:|---:|"]
  for r in rows:
    setting = (f"lr={r['lr']:g} {r['schedule']}" if r["solver"] == "ed" else
               f"{r['optimizer']} hidden={r['hidden']} lr={r['lr']:g} {r['schedule']} "
               f"l2={r['l2']:g}")
    lines.append(f"| {r['game']} | {r['solver']} | {setting} | {r['final']:.4g} | "
                 f"{r['best']:.4g} | {1e3 * r['seconds'] / FLAGS.steps:.2f} | "
                 f"{r['compile']:.1f} |")
  text = "\n".join(lines) + "\n"
  with open(os.path.join(FLAGS.out, "sweep.md"), "w") as f:
    f.write(text)
  print(text)


if __name__ == "__main__":
  app.run(main)
