"""The array game tree: a pyspiel game walked once into flat arrays, and what works on them.

`resolve(game_like)` turns a game string, pyspiel game or tree into the tree (the one place
a game-like argument is resolved); `GameTree(game)` walks a game (or `GameTree.from_arrays`
takes a `TreeArrays`, the frozen schema every builder returns); `evaluation` computes reach,
values, best responses and NashConv on it; `cached_tree` stores trees on disk; `Teams` says
who plays with whom; `is_common_payoff` says whether all players form one team. Other modules:
`builders` (the pyspiel walk, the shadow walk, the games' vector builders), `memory` (the
walk's memory budget), `traversal` (preorder), `game_support` (what a game provides to the
tree), `fast_tree` (the shadow walk).

Example:
  from ospiel_team.tree import GameTree, evaluation
  tree = GameTree(pyspiel.load_game("kuhn_poker"))
  evaluation.nash_conv(tree, tree.uniform_policy_array())
"""

from ospiel_team import _exports

_PUBLIC = {
    "GameTree": "ospiel_team.tree.game_tree",
    "resolve": "ospiel_team.tree.resolver",
    "resolve_game": "ospiel_team.tree.resolver",
    "TreeArrays": "ospiel_team.tree.arrays",
    "InfosetKeys": "ospiel_team.tree.arrays",
    "evaluation": "ospiel_team.tree.evaluation",
    "nash_conv": "ospiel_team.tree.evaluation",
    "best_response": "ospiel_team.tree.evaluation",
    "game_value": "ospiel_team.tree.evaluation",
    "history_values": "ospiel_team.tree.evaluation",
    "reach_probabilities": "ospiel_team.tree.evaluation",
    "Teams": "ospiel_team.tree.teams",
    "parse_teams": "ospiel_team.tree.teams",
    "default_teams": "ospiel_team.tree.teams",
    "is_common_payoff": "ospiel_team.tree.payoff",
    "check_common_payoff": "ospiel_team.tree.payoff",
    "cached_tree": "ospiel_team.tree.cache",
    "TreeTooLargeError": "ospiel_team.tree.memory",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
