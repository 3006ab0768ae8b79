"""Games state their number of terminal histories; GameTree refuses too large games at once."""

import pyspiel
import pytest

from ospiel_team.tree.game_support import min_terminal_histories
from ospiel_team.tree.game_tree import GameTree


@pytest.mark.parametrize("name", [
    "comm(length=1)", "comm(length=2)",
    "simple_bidding(size=2)", "simple_bidding(size=4)", "simple_bidding(size=5)",
    "mini_bridge(size=2)",
    "team_kuhn(players=2,ranks=3)", "team_kuhn(players=3,ranks=4)", "team_kuhn(players=2,ranks=5)",
    "team_liars_dice(players=2,sides=2)", "team_liars_dice(players=2,sides=3,wild=false)",
    "team_goofspiel(players=2,num_cards=3)", "team_goofspiel(players=2,info=limited)",
    "team_goofspiel(players=3,num_cards=2)",
])
def test_stated_size_equals_the_walk(name):
  game = pyspiel.load_game(name)
  assert min_terminal_histories(game) == len(GameTree(game).terminals)


def test_hand_checked_sizes():
  # Two-player Kuhn with 3 cards: 3 * 2 deals x 5 betting sequences (pp, pbp, pbb, bp, bb).
  assert min_terminal_histories(pyspiel.load_game("team_kuhn(players=2,ranks=3)")) == 30
  # Table 1 of Zhang & Sandholm: 21D3 has 13,797 terminal histories.
  assert min_terminal_histories(pyspiel.load_game("team_liars_dice(players=3,sides=3)")) == 13797


def test_too_large_game_is_refused_before_walking():
  # 8! deals x (1 + 8 * 2^7) betting sequences = 40,320 * 1,025.
  game = pyspiel.load_game("team_kuhn(players=8,ranks=8)")
  # The message states the count: the walk, which only counts as it goes, could not.
  with pytest.raises(ValueError, match=r"41,328,000 terminal histories.*max_nodes=30,000,000"):
    GameTree(game)
  with pytest.raises(ValueError, match=r"has 312 terminal histories.*max_nodes=100 "):
    GameTree(pyspiel.load_game("team_kuhn(players=3,ranks=4)"), max_nodes=100)


def test_openspiel_games_fall_back_to_the_walk_limit():
  game = pyspiel.load_game("leduc_poker")
  assert min_terminal_histories(game) is None
  with pytest.raises(ValueError, match="more than max_nodes=100 histories"):
    GameTree(game, max_nodes=100)


@pytest.mark.parametrize("name", ["team_leduc(players=3,ranks=2,suits=2)",
                                  "team_leduc(players=3,ranks=4,suits=2)",
                                  "team_leduc(players=4,ranks=2,suits=3)"])
def test_leduc_states_the_number_of_private_deals_as_a_lower_bound(name):
  import itertools
  game = pyspiel.load_game(name)
  p = game.get_parameters()
  deals = sum(1 for seq in itertools.product(range(p["ranks"]), repeat=p["players"])
              if max(seq.count(r) for r in range(p["ranks"])) <= p["suits"])
  assert min_terminal_histories(game) == deals
  assert deals <= len(GameTree(game).terminals)


def test_large_leduc_is_refused_with_its_lower_bound():
  # Inclusion-exclusion over ranks dealt 5+ times (at most two of them among 10 cards):
  # 13^10 - 13 * sum_{k>=5} C(10,k) 12^(10-k) + C(13,2) C(10,5) = 136,983,947,100.
  with pytest.raises(ValueError, match=r"at least 136,983,947,100 terminal histories"):
    GameTree(pyspiel.load_game("team_leduc(players=10,ranks=13,suits=4)"))
