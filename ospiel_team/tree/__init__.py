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

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.tree import evaluation as evaluation
  from ospiel_team.tree.arrays import InfosetKeys as InfosetKeys
  from ospiel_team.tree.arrays import TreeArrays as TreeArrays
  from ospiel_team.tree.cache import cached_tree as cached_tree
  from ospiel_team.tree.evaluation import best_response as best_response
  from ospiel_team.tree.evaluation import game_value as game_value
  from ospiel_team.tree.evaluation import history_values as history_values
  from ospiel_team.tree.evaluation import nash_conv as nash_conv
  from ospiel_team.tree.evaluation import reach_probabilities as reach_probabilities
  from ospiel_team.tree.game_tree import GameTree as GameTree
  from ospiel_team.tree.memory import TreeTooLargeError as TreeTooLargeError
  from ospiel_team.tree.payoff import check_common_payoff as check_common_payoff
  from ospiel_team.tree.payoff import is_common_payoff as is_common_payoff
  from ospiel_team.tree.resolver import resolve as resolve
  from ospiel_team.tree.resolver import resolve_game as resolve_game
  from ospiel_team.tree.teams import Teams as Teams
  from ospiel_team.tree.teams import default_teams as default_teams
  from ospiel_team.tree.teams import parse_teams as parse_teams

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
