r"""21D3 (Liar's Dice, teams {0, 1} against {2}, 3 sides) under each reading of the rules.

Table 1 of Zhang & Sandholm (AAAI 2022, arXiv:2109.05284) prints one Liar's Dice value, 21D3,
and its sizes are the same for every bid order and wild-face rule; this script solves 21D3
exactly (`algorithms.team.solve`, the default path) under the bid orders (`reset-face`:
quantity first, OpenSpiel's default; `reset-quantity`: face first) and with or without the wild
top face, and records each value beside the tree's sizes.

Usage:
  nice -n 10 python benchmarks/team_dice_readings.py --out results/team/dice_readings.json
"""

import datetime
import json
import os
import platform
import sys

import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team.algorithms.team import solve
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("out", "results/team/dice_readings.json", "JSON record")
flags.DEFINE_integer("sides", 3, "die sides (21D3: 3)")


def main(argv):
  del argv
  commit = (report.provenance([])["commit"] or "")[:7] or None
  load_before = os.getloadavg()[0]
  rows = []
  for rule in ("reset-face", "reset-quantity"):
    for wild in (True, False):
      game = (f"team_liars_dice(players=3,sides={FLAGS.sides},bidding_rule={rule},"
              f"wild={wild})")
      try:
        res = solve(pyspiel.load_game(game), "0,1|2")
      except (ValueError, pyspiel.SpielError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
      rows.append({"game": game, "bidding_rule": rule, "wild": wild, "value": res.value,
                   "lower": res.lower, "upper": res.upper, "exact": res.exact,
                   "method": res.method, "seconds": round(res.seconds, 3)})
      print(json.dumps(rows[-1]), flush=True)
  record = {
      "command": " ".join(["python", "benchmarks/team_dice_readings.py"] + sys.argv[1:]),
      "commit": commit,
      "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
      "machine": f"{os.cpu_count()} CPUs ({platform.machine()})",
      "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
      "teams": "0,1|2",
      "rows": rows,
  }
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  return 0


if __name__ == "__main__":
  app.run(main)
