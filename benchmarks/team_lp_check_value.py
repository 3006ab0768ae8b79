r"""Independent check of a Table-1 value: team 2's best response against team 1's LP plan.

Solves the instance with `team_lp.solve`, then lets team 2 best respond to team 1's correlated
plan with `team_best_response.team_best_response_value` (backward induction on the array game tree for a
one-player team, the exact MIP for a larger one; not the LP) and prints what team 1 gets: it
must equal the LP value (the maximin plan guarantees it, and the LP says no more).

Usage:
  python benchmarks/team_lp_check_value.py --instances 51D2,33D2
"""

import time

from absl import app
from absl import flags

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import plan_mip
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.algorithms.team import best_response as team_best_response
from ospiel_team.algorithms.team import lp as team_lp
from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.games import team_instances

flags.DEFINE_string("instances", "21K4", "Table-1 instance names")
FLAGS = flags.FLAGS


def main(argv):
  del argv
  for name in FLAGS.instances.split(","):
    game, teams = team_instances.load_instance(name)
    tree = GameTree(game)
    start = time.perf_counter()
    res = team_lp.solve(tree, teams)
    lp_seconds = time.perf_counter() - start
    chance = plan_mip.chance_reach(tree)[tree.terminals]  # pylint: disable=protected-access
    u = teams_lib.team_terminal_utilities(tree, res.teams)
    start = time.perf_counter()
    w2 = chance * res.plans[0].terminal_reach() * u[:, 1]
    team1_gets = -team_best_response.team_best_response_value(tree, res.teams, 1, w2)
    print(f"{name}: LP value {res.value:.12f} ({lp_seconds:.1f} s); team 2 best responds to "
          f"team 1's plan -> team 1 gets {team1_gets:.12f} ({time.perf_counter() - start:.1f} "
          f"s); difference {team1_gets - res.value:.2e}", flush=True)


if __name__ == "__main__":
  app.run(main)
