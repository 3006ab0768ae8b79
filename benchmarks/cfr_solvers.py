r"""The tabular CFR solvers on the array tree against OpenSpiel's C++ CFR+, in one run.

For every game (`--games`): iterations per second of OpenSpiel's C++ `pyspiel.CFRPlusSolver`
and of our `cfr.TreeCFRPlusSolver`, `TreeDCFRSolver`, `TreePCFRPlusSolver` and
`TreePDCFRPlusSolver` (numba kernels on the `GameTree`), then for each of ours the iterations
and solver CPU seconds until the average policy's NashConv falls below `--target`.

Speed: every solver first runs one untimed iteration (numba compile or cache load); then
`--repeats` rounds time a block of iterations of each solver in turn (the order rotates every
round), each block about `--block_seconds` of CPU time; a solver's figure is the median over
rounds of CPU seconds per iteration (`time.process_time`, this process only: the machine is
shared), with the wall-clock median beside it. Our CFR+ is step for step OpenSpiel's
`CFRPlusSolver` (tests/algorithms/nash/test_cfr.py), so the ratio compares the same algorithm.

Convergence: NashConv (`tree.evaluation.nash_conv`, not charged) after every iteration up to
20, then every 5% of the iterations done, so an iteration count is the first checkpoint below
the target (at most 5% above the first iteration that gets there); a solver stops at the
target, after `--max_iterations` or `--max_seconds` of its CPU time. OpenSpiel's C++ CFR+
needs as many iterations as our CFR+ (the same algorithm): its time to the target is given as
those iterations times its measured CPU seconds per iteration.

The load average (`os.getloadavg()`) is recorded before and after every game, with the commit,
the machine and the command; the record goes to `--json_out` (`ospiel_team.atomic_io`) and a
Markdown table to stdout.

Usage:
  python benchmarks/cfr_solvers.py
  python benchmarks/cfr_solvers.py --games leduc_poker --max_seconds 10
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team.algorithms.nash import cfr
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree

FLAGS = flags.FLAGS
flags.DEFINE_list("games", ["leduc_poker", "liars_dice", "mini_bridge(size=4)",
                            "simple_bidding(size=8)"], "Games to measure.")
flags.DEFINE_integer("repeats", 5, "Timing rounds per game.")
flags.DEFINE_float("block_seconds", 0.5, "CPU seconds of one timed block of iterations.")
flags.DEFINE_float("target", 1e-3, "NashConv target of the convergence runs.")
flags.DEFINE_integer("max_iterations", 20000, "Iteration cap of a convergence run.")
flags.DEFINE_float("max_seconds", 60.0, "Solver CPU-second cap of a convergence run.")
flags.DEFINE_string("json_out", "results/speed/cfr_solvers.json", "Where the record goes.")

OURS = {"cfr_plus": cfr.TreeCFRPlusSolver, "dcfr": cfr.TreeDCFRSolver,
        "pcfr_plus": cfr.TreePCFRPlusSolver, "pdcfr_plus": cfr.TreePDCFRPlusSolver}
CPP = "openspiel_cpp_cfr_plus"
_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load() -> list[float]:
  return [round(x, 2) for x in os.getloadavg()]


def _machine() -> dict:
  model = ""
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      model = next((line.split(":", 1)[1].strip() for line in f
                    if line.startswith("model name")), "")
  except OSError:
    pass
  return {"cpu": model or platform.processor(), "cores": os.cpu_count(),
          "python": platform.python_version(), "numpy": np.__version__,
          "pyspiel": getattr(pyspiel, "__version__", "")}


def _commit() -> str:
  head = subprocess.run(["git", "-C", _REPO, "rev-parse", "HEAD"], capture_output=True,
                        text=True, check=False).stdout.strip()
  dirty = subprocess.run(["git", "-C", _REPO, "status", "--porcelain", "--",
                          "ospiel_team/algorithms/nash", "benchmarks/cfr_solvers.py"],
                         capture_output=True, text=True, check=False).stdout.strip()
  return head + ("+local changes" if dirty else "")


def _block(step, n: int) -> tuple[float, float]:
  """(CPU, wall) seconds per iteration of n calls of step()."""
  c, w = time.process_time(), time.perf_counter()
  for _ in range(n):
    step()
  return (time.process_time() - c) / n, (time.perf_counter() - w) / n


def _speed(game: pyspiel.Game, tree: GameTree) -> dict:
  """Per-iteration CPU and wall seconds of every solver (medians over the rounds)."""
  steps = {CPP: pyspiel.CFRPlusSolver(game).evaluate_and_update_policy}
  for name, cls in OURS.items():
    steps[name] = cls(tree).evaluate_and_update_policy
  first = {}
  for name, step in steps.items():  # compile / cache load, and a first estimate
    c = time.process_time()
    step()
    first[name] = time.process_time() - c
  sizes = {}
  for name, step in steps.items():
    per = _block(step, 3)[0]
    sizes[name] = max(1, int(FLAGS.block_seconds / max(per, 1e-6)))
  cpu = {name: [] for name in steps}
  wall = {name: [] for name in steps}
  names = list(steps)
  for r in range(FLAGS.repeats):
    for name in names[r % len(names):] + names[:r % len(names)]:
      c, w = _block(steps[name], sizes[name])
      cpu[name].append(c)
      wall[name].append(w)
  return {name: {"cpu_s_per_iteration": statistics.median(cpu[name]),
                 "wall_s_per_iteration": statistics.median(wall[name]),
                 "iterations_per_cpu_s": 1.0 / statistics.median(cpu[name]),
                 "iterations_per_block": sizes[name], "first_iteration_cpu_s": first[name],
                 "rounds_cpu_s": cpu[name]} for name in steps}


def _convergence(tree: GameTree, cls) -> dict:
  """Iterations and solver CPU seconds until NashConv(average) < target (or the caps)."""
  solver = cls(tree)
  solver.evaluate_and_update_policy()  # compile / cache load, not charged
  solver = cls(tree)
  spent, it, next_check, nash_conv = 0.0, 0, 1, float("inf")
  while it < FLAGS.max_iterations and spent < FLAGS.max_seconds:
    c = time.process_time()
    while it < next_check:
      solver.evaluate_and_update_policy()
      it += 1
    spent += time.process_time() - c
    nash_conv = float(evaluation.nash_conv(tree, solver.average_policy_array()))
    if nash_conv < FLAGS.target:
      return {"reached": True, "iterations": it, "cpu_s": spent, "nash_conv": nash_conv}
    next_check = it + (1 if it < 20 else max(1, it // 20))
  return {"reached": False, "iterations": it, "cpu_s": spent, "nash_conv": nash_conv}


def _table(rows: list[dict]) -> str:
  lines = ["| game | solver | iterations/s (CPU) | ms/iteration (CPU, wall) | x C++ CFR+ | "
           f"iterations to NashConv {FLAGS.target:g} | CPU s to it | load before/after |",
           "|---|---|---|---|---|---|---|---|"]
  for row in rows:
    speed, conv = row["speed"], row["convergence"]
    cpp = speed[CPP]["cpu_s_per_iteration"]
    for name in [CPP, *OURS]:
      s = speed[name]
      if name == CPP:
        c = conv["cfr_plus"]
        to = (f"{c['iterations']} (as CFR+)" if c["reached"] else "-")
        secs = f"{c['iterations'] * cpp:.2f} (est.)" if c["reached"] else "-"
      else:
        c = conv[name]
        to = (str(c["iterations"]) if c["reached"] else
              f"not in {c['iterations']} (NashConv {c['nash_conv']:.2g})")
        secs = f"{c['cpu_s']:.2f}" if c["reached"] else f">{c['cpu_s']:.0f}"
      lines.append(
          f"| {row['game']} | {name} | {1 / s['cpu_s_per_iteration']:.1f} | "
          f"{1e3 * s['cpu_s_per_iteration']:.3g}, {1e3 * s['wall_s_per_iteration']:.3g} | "
          f"{cpp / s['cpu_s_per_iteration']:.1f} | {to} | {secs} | "
          f"{row['load_before'][0]} / {row['load_after'][0]} |")
  return "\n".join(lines)


def main(argv):
  del argv
  atomic_io.check_writable(FLAGS.json_out, flag="--json_out")
  rows = []
  for name in FLAGS.games:
    load_before = _load()
    game = pyspiel.load_game(name)
    c = time.process_time()
    tree = GameTree(game)
    tree_s = time.process_time() - c
    speed = _speed(game, tree)
    conv = {solver: _convergence(tree, cls) for solver, cls in OURS.items()}
    rows.append({"game": name, "num_nodes": tree.num_nodes, "num_infosets": tree.num_infosets,
                 "tree_build_cpu_s": tree_s, "speed": speed, "convergence": conv,
                 "load_before": load_before, "load_after": _load()})
    print(f"{name}: done, load {load_before} -> {rows[-1]['load_after']}", file=sys.stderr)
  record = {"command": "python " + " ".join(sys.argv), "commit": _commit(),
            "machine": _machine(), "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "target": FLAGS.target, "rows": rows}
  atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
  print(_table(rows))


if __name__ == "__main__":
  app.run(main)
