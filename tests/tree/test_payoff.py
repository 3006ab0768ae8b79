"""The common-payoff check on trees agrees with the games' declared utility, and its error
counts the terminal histories of Kuhn poker (6 deals x 5 betting sequences, none a tie)."""

import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.errors import UserError
from ospiel_team.tree import payoff
from ospiel_team.tree.game_tree import GameTree

GAMES = ["tiny_hanabi", "kuhn_poker", "leduc_poker", "simple_bidding",
         "team_kuhn(players=3)"]


@pytest.mark.parametrize("name", GAMES)
def test_tree_check_agrees_with_the_declared_utility(name):
  game = pyspiel.load_game(name)
  declared = game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL
  assert payoff.is_common_payoff(GameTree(game)) == declared
  assert payoff.is_common_payoff(game) == declared


def test_check_names_the_game_and_counts_the_differing_terminals():
  tree = GameTree(pyspiel.load_game("kuhn_poker"))
  assert len(tree.terminals) == 30
  with pytest.raises(UserError, match=r"kuhn_poker\(\) is not a common-payoff .* differ at "
                                      r"30 terminal histories"):
    payoff.check_common_payoff(tree)
  payoff.check_common_payoff(GameTree(pyspiel.load_game("tiny_hanabi")))  # no error


def test_atol_is_the_largest_difference_counted_as_equal():
  tree = GameTree(pyspiel.load_game("kuhn_poker"))
  # Kuhn's returns are +-1 and +-2, so players differ by 2 or 4 at every terminal.
  assert not payoff.is_common_payoff(tree, atol=3.9)
  assert payoff.is_common_payoff(tree, atol=4.0)
