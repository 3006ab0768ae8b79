r"""Tabular ED against the NashConv values printed by OpenSpiel's former ED test.

OpenSpiel's TF1 `exploitability_descent_test.py` (removed before OpenSpiel 2.0) ran tabular ED
from the uniform policy with plain gradient descent at learning rate 1.0 and printed the
NashConv before each of 11 steps on kuhn_poker and leduc_poker. This script runs
`TabularEDSolver(game, learning_rate=1.0, optimizer="sgd", lr_schedule="constant")` for the
same 11 steps and records both sequences and their largest relative difference (a few seconds).

  python benchmarks/ed_openspiel_reproduction.py --out results/ed/openspiel_reproduction.json
"""

from __future__ import annotations

import json
import sys

import pyspiel
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.nash import exploitability_descent as ed
from ospiel_team.runner import report

# The values printed by OpenSpiel's former exploitability_descent_test.py (NashConv before
# each of 11 steps); the same lists are in tests/algorithms/nash/test_exploitability_descent.py.
OPENSPIEL = {
    "kuhn_poker": [
        0.91666666666666652, 0.67893004801213452, 0.48109148836354743,
        0.40061420923255808, 0.36617242161468722, 0.33676996443499557,
        0.30925081512398128, 0.28827843035940964, 0.26830042206858751,
        0.24418597846799289, 0.22168699344791482],
    "leduc_poker": [
        4.7472224, 4.3147216, 3.9900389, 3.7576618, 3.5771275, 3.4414644,
        3.3272073, 3.1898201, 3.1089299, 3.0108435, 2.8992782],
}

flags.DEFINE_string("out", "results/ed/openspiel_reproduction.json", "Output JSON record.")
FLAGS = flags.FLAGS


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:
    atomic_io.check_writable(FLAGS.out)
  except ValueError as e:
    print(f"ed_openspiel_reproduction: error: {e}", file=sys.stderr)
    sys.exit(2)
  record = report.provenance(["python", "benchmarks/ed_openspiel_reproduction.py"]
                             + sys.argv[1:])
  record["games"] = {}
  for name, expected in OPENSPIEL.items():
    solver = ed.TabularEDSolver(pyspiel.load_game(name), learning_rate=1.0, optimizer="sgd",
                                lr_schedule="constant")
    ours = [solver.step() for _ in expected]
    rel = max(abs(a - b) / abs(b) for a, b in zip(ours, expected, strict=True))
    record["games"][name] = dict(openspiel=expected, ours=ours, max_relative_difference=rel)
    print(f"{name}: largest relative difference {rel:.2e}")
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  print(f"wrote {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
