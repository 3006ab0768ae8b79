r"""The default settings of tabular and neural ED, chosen by a measured comparison.

Runs a few candidate settings of `TabularEDSolver` and `NeuralEDSolver` on kuhn_poker and
leduc_poker for an equal budget of solver CPU seconds each (process CPU time; the JIT
compilation done by `warm_up()` is excluded), several seeds for the neural settings (tabular
ED is deterministic: its runs differ only in how many steps fit in the budget). Records, per
(game, setting, seed), the steps taken and the NashConv of the current policy at the end (what
the comparison runner judges ED by) and the lowest NashConv seen before a step.

The chosen default of each solver is the setting with the lowest geometric mean over the games
of its mean final NashConv (`choose`); `tests/algorithms/nash/test_ed_defaults.py` checks that
the classes' and the runner's defaults are the chosen settings of the committed record.

  nice -n 10 python benchmarks/ed_defaults.py --out results/ed/defaults.json
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

import pyspiel
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.nash import exploitability_descent as ed
from ospiel_team.runner import report
from ospiel_team.tree.game_tree import GameTree

# (solver, name) -> keyword arguments of the solver class.
SETTINGS = {
    ("ed", "sgd 1 constant"): dict(optimizer="sgd", learning_rate=1.0, lr_schedule="constant"),
    ("ed", "sgd 2 constant"): dict(optimizer="sgd", learning_rate=2.0, lr_schedule="constant"),
    ("ed", "sgd 4 constant"): dict(optimizer="sgd", learning_rate=4.0, lr_schedule="constant"),
    ("neural_ed", "sgd 0.1 inverse_sqrt"): dict(optimizer="sgd", learning_rate=0.1,
                                                 lr_schedule="inverse_sqrt"),
    ("neural_ed", "adam 0.01 constant"): dict(optimizer="adam", learning_rate=0.01,
                                               lr_schedule="constant"),
    ("neural_ed", "adam 0.003 constant"): dict(optimizer="adam", learning_rate=0.003,
                                                lr_schedule="constant"),
}

flags.DEFINE_string("games", "kuhn_poker=4;leduc_poker=10",
                    "'game=CPU seconds per run;...'.")
flags.DEFINE_integer("seeds", 3, "Seeds per neural setting (tabular ED runs once).")
flags.DEFINE_string("out", "results/ed/defaults.json", "Output JSON record.")
FLAGS = flags.FLAGS


def parse_games(text: str) -> list[tuple[str, float]]:
  """'kuhn_poker=4;leduc_poker=10' -> [(game, seconds), ...]; ValueError on a bad item."""
  out = []
  for item in filter(None, (t.strip() for t in text.split(";"))):
    name, sep, value = item.rpartition("=")
    try:
      seconds = float(value)
    except ValueError:
      seconds = math.nan
    if not sep or not name or not seconds > 0:
      raise ValueError(f"--games item {item!r} is not of the form game=positive_seconds")
    out.append((name, seconds))
  if not out:
    raise ValueError("--games: no games given")
  return out


def run_one(solver: ed.TabularEDSolver | ed.NeuralEDSolver, seconds: float) -> dict[str, Any]:
  """Steps `solver` until `seconds` of process CPU time (compilation excluded) have passed."""
  compile_seconds = solver.warm_up()
  start = time.process_time()
  best = math.inf
  while time.process_time() - start < seconds:
    best = min(best, solver.step())
  final = solver.nash_conv()
  return dict(steps=solver.iteration, final=final, best=min(best, final),
              cpu_seconds=round(time.process_time() - start, 3),
              compile_seconds=round(compile_seconds, 3))


def choose(rows: list[dict[str, Any]]) -> dict[str, str]:
  """Per solver, the setting with the lowest geometric mean over games of its mean final."""
  means: dict[tuple[str, str, str], list[float]] = {}
  for r in rows:
    means.setdefault((r["solver"], r["setting"], r["game"]), []).append(r["final"])
  score: dict[tuple[str, str], list[float]] = {}
  for (solver, setting, _), finals in means.items():
    score.setdefault((solver, setting), []).append(math.log(sum(finals) / len(finals)))
  best: dict[str, tuple[float, str]] = {}
  for (solver, setting), logs in score.items():
    value = sum(logs) / len(logs)
    if solver not in best or value < best[solver][0]:
      best[solver] = (value, setting)
  return {solver: setting for solver, (_, setting) in best.items()}


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:
    games = parse_games(FLAGS.games)
    if FLAGS.seeds < 1:
      raise ValueError(f"--seeds must be >= 1, got {FLAGS.seeds}")
    atomic_io.check_writable(FLAGS.out)
  except ValueError as e:
    print(f"ed_defaults: error: {e}", file=sys.stderr)
    sys.exit(2)
  record = report.provenance(["python", "benchmarks/ed_defaults.py"] + sys.argv[1:])
  record["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
  rows = []
  for name, seconds in games:
    game = pyspiel.load_game(name)
    tree = GameTree(game)
    for (solver, setting), kwargs in SETTINGS.items():
      seeds = range(FLAGS.seeds) if solver == "neural_ed" else [0]
      for seed in seeds:
        if solver == "ed":
          s = ed.TabularEDSolver(game, tree=tree, **kwargs)
        else:
          s = ed.NeuralEDSolver(game, tree=tree, seed=seed, hidden_layers=(64,), l2=1e-3,
                                **kwargs)
        rows.append(dict(game=name, solver=solver, setting=setting, seed=seed,
                         budget_cpu_seconds=seconds, **run_one(s, seconds)))
        print(json.dumps(rows[-1]), flush=True)
  record["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
  record["settings"] = {}
  for (solver, setting), kwargs in SETTINGS.items():
    record["settings"].setdefault(solver, {})[setting] = kwargs
  record["neural_fixed"] = dict(hidden_layers=[64], l2=1e-3)
  record["rows"] = rows
  record["chosen"] = choose(rows)
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  print(f"chosen: {record['chosen']}; wrote {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
