"""Evaluates a policy on the array game tree and checks it against OpenSpiel.

Example:
  python examples/evaluate_policy.py --game "mini_bridge(size=3)" --cfr_iterations 50

Runs OpenSpiel's CFR for a few iterations, then computes the average policy's value, each
player's best-response value and NashConv twice: on the array game tree (built once) and
with OpenSpiel's own `expected_game_score` / `exploitability` functions.
"""
import time

import pyspiel
from absl import app
from absl import flags
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree

flags.DEFINE_string("game", "mini_bridge(size=3)", "Game string for pyspiel.load_game.")
flags.DEFINE_integer("cfr_iterations", 50, "Iterations of OpenSpiel's CFR.", lower_bound=1)
FLAGS = flags.FLAGS


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  start = time.perf_counter()
  try:  # user errors (unknown game, bad parameters, a tree too large): one line
    game = pyspiel.load_game(FLAGS.game)
    tree = GameTree(game)
  except (pyspiel.SpielError, ValueError) as e:
    # pyspiel lists every registered game after an unknown name: keep the first sentence.
    first = str(e).strip().splitlines()[0].replace(" Available games are:", "")
    raise SystemExit(f"evaluate_policy: error: --game {FLAGS.game!r}: {first}") from None
  print(f"{tree} built in {time.perf_counter() - start:.2f} s")
  solver = cfr.CFRSolver(game)
  for _ in range(FLAGS.cfr_iterations):
    solver.evaluate_and_update_policy()
  avg = solver.average_policy()

  start = time.perf_counter()
  pi = tree.policy_array(avg)
  value = evaluation.game_value(tree, pi)
  br_values = evaluation.best_response_values(tree, pi)
  nash_conv = evaluation.nash_conv(tree, pi)
  ours = time.perf_counter() - start

  start = time.perf_counter()
  os_value = expected_game_score.policy_value(game.new_initial_state(),
                                              [avg] * game.num_players())
  os_nash_conv = exploitability.nash_conv(game, avg)
  theirs = time.perf_counter() - start
  print(f"CFR({FLAGS.cfr_iterations}) average policy:")
  print(f"  value          ours {value}  OpenSpiel {os_value}")
  print(f"  best responses ours {br_values}")
  print(f"  NashConv       ours {nash_conv:.12f}  OpenSpiel {os_nash_conv:.12f}")
  print(f"  time           ours {ours * 1e3:.1f} ms  OpenSpiel {theirs * 1e3:.1f} ms")


if __name__ == "__main__":
  app.run(main)
