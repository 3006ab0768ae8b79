"""Speed of the array game tree's value + NashConv against OpenSpiel's functions.

Usage: python benchmarks/game_tree_speed.py [--game leduc_poker] [--repeats 20]
       [--json_out results/speed/game_tree_speed.json]

Times, in one run and on the same random TabularPolicy, (a) ours: `evaluation.game_value` +
`evaluation.nash_conv` on a prebuilt GameTree and (b) OpenSpiel's
`expected_game_score.policy_value` + `exploitability.nash_conv`, and prints the ratio (the
goal is at least 20x on leduc_poker). Both results are checked equal before timing.
With `--json_out`, the record (command, commit, date, machine, 1-minute load average before and
after, the measured times and the ratios) goes to that file; the results page renders it.
Timing runs must run alone on the machine.
"""
import json
import os
import sys
import time

import numpy as np
import pyspiel
from absl import app
from absl import flags
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability

import ospiel_team  # noqa: F401
from ospiel_team import atomic_io
from ospiel_team.runner import report
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree

flags.DEFINE_string("game", "leduc_poker", "Game.")
flags.DEFINE_integer("repeats", 20, "Timed repeats of ours (OpenSpiel: repeats // 5, >= 2).")
flags.DEFINE_string("json_out", "results/speed/game_tree_speed.json",
                    "Where the record goes (empty: none).")
FLAGS = flags.FLAGS


def best_of(fn, repeats: int) -> tuple[float, float]:
  """(best, median) wall-clock seconds of `repeats` calls of `fn`."""
  times = []
  for _ in range(repeats):
    start = time.perf_counter()
    fn()
    times.append(time.perf_counter() - start)
  return min(times), float(np.median(times))


def _load() -> list[float]:
  return [round(x, 2) for x in os.getloadavg()]


def main(argv):
  del argv
  if FLAGS.json_out:
    atomic_io.check_writable(FLAGS.json_out, flag="--json_out")  # before the work
  load_before = _load()
  game = pyspiel.load_game(FLAGS.game)
  start = time.perf_counter()
  tree = GameTree(game)
  build = time.perf_counter() - start
  tab = policy_lib.TabularPolicy(game)
  rng = np.random.default_rng(0)
  x = rng.random(tab.action_probability_array.shape) * tab.legal_actions_mask
  tab.action_probability_array = x / x.sum(axis=1, keepdims=True)

  def ours():
    pi = tree.policy_array(tab)
    return evaluation.game_value(tree, pi), evaluation.nash_conv(tree, pi)

  def openspiel():
    value = expected_game_score.policy_value(game.new_initial_state(),
                                             [tab] * game.num_players())
    return value, exploitability.nash_conv(game, tab)

  (v1, n1), (v2, n2) = ours(), openspiel()
  assert np.allclose(v1, v2, atol=1e-9) and abs(n1 - n2) < 1e-9, (v1, v2, n1, n2)
  ours_best, ours_med = best_of(ours, FLAGS.repeats)
  os_best, os_med = best_of(openspiel, max(2, FLAGS.repeats // 5))
  print(f"game: {game}  ({tree})")
  print(f"one-time tree build: {build:.3f} s")
  print(f"ours (value + NashConv, incl. TabularPolicy->array): best {ours_best*1e3:.2f} ms, "
        f"median {ours_med*1e3:.2f} ms")
  print(f"OpenSpiel policy_value + nash_conv: best {os_best*1e3:.1f} ms, "
        f"median {os_med*1e3:.1f} ms")
  print(f"speed-up (best/best): {os_best / ours_best:.0f}x; (median/median): "
        f"{os_med / ours_med:.0f}x")
  if FLAGS.json_out:
    record = report.provenance(["python"] + sys.argv)
    record.update(
        game=FLAGS.game, repeats=FLAGS.repeats, num_nodes=tree.num_nodes,
        tree_build_s=build, load_before=load_before, load_after=_load(),
        ours_best_s=ours_best, ours_median_s=ours_med,
        openspiel_best_s=os_best, openspiel_median_s=os_med,
        ratio_best=os_best / ours_best, ratio_median=os_med / ours_med,
        nash_conv=float(n1))
    atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
    print(f"record: {FLAGS.json_out}")


if __name__ == "__main__":
  app.run(main)
