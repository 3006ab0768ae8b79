"""Improves CFR's policy on a collaborative game with Joint Policy Search.

Example:
  python examples/jps_improve.py --game tiny_hanabi --cfr_iterations 100

Runs CFR on the array game tree from a random policy, then JPS (Tian, Gong & Jiang, NeurIPS
2020, arXiv:2008.06495) from CFR's current policy, and prints the team's value before and
after JPS, the latter also by OpenSpiel's `expected_game_score`. JPS never lowers the value:
every change it applies has a non-negative gain that its search computes exactly. The JPS
paper's whole protocol (seeds, sampled JPS, the tables) is `benchmarks/jps_experiments.py`.
"""
import time

import pyspiel
from absl import app
from absl import flags
from open_spiel.python.algorithms import expected_game_score

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.algorithms.coop.jps import JointPolicySearch
from ospiel_team.algorithms.nash import cfr
from ospiel_team.tree.game_tree import GameTree

flags.DEFINE_string("game", "tiny_hanabi", "A collaborative game (pyspiel string).")
flags.DEFINE_integer("cfr_iterations", 100, "CFR iterations before JPS.", lower_bound=0)
flags.DEFINE_integer("depth", 0, "JPS search depth D (0: to the end of the game).",
                     lower_bound=0)
flags.DEFINE_integer("seed", 0, "Seed of CFR's random initial policy and of JPS.",
                     lower_bound=0)
FLAGS = flags.FLAGS


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:  # user errors (unknown game, bad parameters): one line
    game = pyspiel.load_game(FLAGS.game)
    tree = GameTree(game)
  except (pyspiel.SpielError, ValueError) as e:
    first = str(e).strip().splitlines()[0].replace(" Available games are:", "")
    raise SystemExit(f"jps_improve: error: --game {FLAGS.game!r}: {first}") from None
  solver = cfr.TreeCFRSolver(tree, initial_policy=cfr.random_policy_array(tree, FLAGS.seed))
  for _ in range(FLAGS.cfr_iterations):
    solver.evaluate_and_update_policy()
  start = time.perf_counter()
  search = JointPolicySearch(tree, depth=FLAGS.depth or None, seed=FLAGS.seed)
  result = search.improve(solver.current_policy_array())
  seconds = time.perf_counter() - start
  openspiel_value = expected_game_score.policy_value(
      game.new_initial_state(), [result.policy] * game.num_players())[0]
  print(f"{tree}")
  print(f"CFR({FLAGS.cfr_iterations}) current policy: value {result.initial_value:.6f}")
  print(f"JPS ({len(result.history)} iterations, {seconds:.2f} s): value {result.value:.6f}"
        f" (OpenSpiel: {openspiel_value:.6f})")


if __name__ == "__main__":
  app.run(main)
