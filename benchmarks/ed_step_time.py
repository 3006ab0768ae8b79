r"""Step time of exploitability descent, against OpenSpiel's Python `exploitability.nash_conv`.

The issue's speed goal: one neural ED step on leduc_poker (best responses for both players,
action values, gradient, update) in at most 10 ms on the 2-core CPU after compilation. This
script measures, in one run and on the same policy:

* the median time of one neural ED step (and of one tabular ED step), after `warm_up()`;
* the median time of OpenSpiel's `exploitability.nash_conv` on that step's policy (the Python
  best-response code that OpenSpiel's former ED pipeline was dominated by);
* their ratio.

  python benchmarks/ed_step_time.py --game leduc_poker --steps 200 --out out/ed_step_time

`--out` gets `results.json`; `--json_out` (e.g. `results/speed/ed_step_time.json`) gets the same
record with its provenance (command, commit, date, machine, 1-minute load average before and
after), which the results page renders. Timing runs must run alone on the machine.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time

import pyspiel
from absl import app
from absl import flags
from open_spiel.python.algorithms import exploitability

from ospiel_team import atomic_io
from ospiel_team.algorithms.nash import exploitability_descent as ed
from ospiel_team.runner import report
from ospiel_team.tree.game_tree import GameTree

flags.DEFINE_string("game", "leduc_poker", "Game.")
flags.DEFINE_integer("steps", 200, "Timed ED steps (after 20 untimed ones).")
flags.DEFINE_integer("openspiel_calls", 5, "Timed calls of OpenSpiel's nash_conv.")
flags.DEFINE_string("hidden", "64", "Neural ED hidden layers, e.g. 64 or 128x128.")
flags.DEFINE_string("out", "out/ed_step_time", "Output directory.")
flags.DEFINE_string("json_out", "results/speed/ed_step_time.json",
                    "Also write the record with its provenance here (empty: none).")
FLAGS = flags.FLAGS


def _time_steps(solver, steps: int) -> tuple[float, list[float]]:
  """(compile seconds, wall-clock seconds of each of `steps` timed steps) of `solver`."""
  compile_s = solver.warm_up()
  for _ in range(20):
    solver.step()
  times = []
  for _ in range(steps):
    start = time.perf_counter()
    solver.step()  # returns a Python float: the step has finished
    times.append(time.perf_counter() - start)
  return compile_s, times


def main(argv):
  del argv
  atomic_io.check_writable(FLAGS.out, folder=True)  # before the work
  if FLAGS.json_out:
    atomic_io.check_writable(FLAGS.json_out, flag="--json_out")
  load_before = [round(x, 2) for x in os.getloadavg()]
  game = pyspiel.load_game(FLAGS.game)
  if FLAGS.steps < 1 or FLAGS.openspiel_calls < 1:
    raise ValueError("steps and openspiel_calls must be positive")
  tree = GameTree(game)
  hidden = tuple(int(h) for h in FLAGS.hidden.split("x"))
  results = {"game": FLAGS.game, "hidden": FLAGS.hidden, "steps": FLAGS.steps,
             "cpu_count": os.cpu_count(), "machine": platform.processor() or platform.machine(),
             "load_average_1min": os.getloadavg()[0]}
  for label, solver in [
      ("neural_ed_x64", ed.NeuralEDSolver(game, hidden_layers=hidden, tree=tree)),
      # float32 needs its own tree (see TabularEDSolver's x64 argument).
      ("neural_ed_x32", ed.NeuralEDSolver(game, hidden_layers=hidden, tree=GameTree(game),
                                          x64=False)),
      ("tabular_ed_x64", ed.TabularEDSolver(game, tree=tree)),
  ]:
    compile_s, times = _time_steps(solver, FLAGS.steps)
    results[label] = {"compile_s": compile_s, "median_ms": 1e3 * statistics.median(times),
                      "mean_ms": 1e3 * statistics.mean(times), "min_ms": 1e3 * min(times)}
    print(label, results[label], flush=True)
    if label == "neural_ed_x64":
      pol = solver.current_policy()
      os_times = []
      for _ in range(FLAGS.openspiel_calls):
        start = time.perf_counter()
        os_value = exploitability.nash_conv(game, pol)
        os_times.append(time.perf_counter() - start)
      results["openspiel_nash_conv_ms"] = 1e3 * statistics.median(os_times)
      results["nash_conv_ours"] = solver.nash_conv()
      results["nash_conv_openspiel"] = os_value
  results["ratio_openspiel_nash_conv_to_neural_step"] = (
      results["openspiel_nash_conv_ms"] / results["neural_ed_x64"]["median_ms"])
  results["load_average_1min_end"] = os.getloadavg()[0]
  os.makedirs(FLAGS.out, exist_ok=True)
  tmp = os.path.join(FLAGS.out, ".tmp_results.json")
  with open(tmp, "w") as f:
    json.dump(results, f, indent=1)
  os.replace(tmp, os.path.join(FLAGS.out, "results.json"))
  print(json.dumps(results, indent=1))
  if FLAGS.json_out:
    record = report.provenance(["python"] + sys.argv)
    machine = dict(record["machine"], cpu=results["machine"])
    record.update(results, machine=machine, load_before=load_before,
                  load_after=[round(x, 2) for x in os.getloadavg()])
    atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
    print(f"record: {FLAGS.json_out}")


if __name__ == "__main__":
  app.run(main)
