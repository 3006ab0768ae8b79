"""fast_tree's shadow walk and Goofspiel vector builder give the same GameTree as the reference
pyspiel walk, node for node."""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.tree import fast_tree
from ospiel_team.tree.game_tree import GameTree

_ARRAYS = ["node_parent", "node_action", "node_player", "node_depth", "node_infoset",
           "node_chance_prob", "node_returns", "infoset_player", "infoset_legal"]

# Several small instances of each family (Table-1 games and other parameters).
GAMES = [
    "team_kuhn(players=3,ranks=3)", "team_kuhn(players=3,ranks=5)",
    "team_kuhn(players=4,ranks=5)",
    "team_leduc(players=3,bets=1,ranks=3,suits=3)",
    "team_leduc(players=3,bets=2,ranks=2,suits=3)",
    "team_leduc(players=3,bets=1,ranks=3,suits=2,team1_size=2,no_raise_team=1)",
    "team_liars_dice(players=3,sides=2,bidding_rule=reset-quantity,wild=False)",
    "team_liars_dice(players=3,sides=3,bidding_rule=reset-quantity,wild=False)",
    "team_liars_dice(players=2,sides=3)",
    "team_goofspiel(players=3,info=full)", "team_goofspiel(players=3,info=limited)",
    "team_goofspiel(players=2,info=full,num_cards=2)",
]


def assert_same_tree(ref: GameTree, new: GameTree):
  assert ref.num_nodes == new.num_nodes
  for name in _ARRAYS:
    a, b = getattr(ref, name), getattr(new, name)
    assert a.dtype == b.dtype and a.shape == b.shape, name
    np.testing.assert_array_equal(a, b, err_msg=name)
  assert ref.infoset_keys == new.infoset_keys
  assert ref.infoset_index == new.infoset_index
  assert ref.level_slices == new.level_slices


@pytest.mark.parametrize("game_string", GAMES)
def test_shadow_walk_equals_pyspiel_walk(game_string):
  game = pyspiel.load_game(game_string)
  ref = GameTree(game, builder="walk")
  new = GameTree(game, builder="shadow")
  assert ref.builder == "walk"
  assert GameTree(game).builder == ("vector" if "goofspiel" in game_string else "shadow")
  assert_same_tree(ref, new)
  # The replayed representative states are the walk's states (keys checked on replay).
  states = new.infoset_states
  assert [s.history_str() for s in states] == [s.history_str() for s in ref.infoset_states]


def test_observation_keys_equal_too():
  """Games keyed by observation strings go through the observer with perfect_recall=False."""
  game = pyspiel.load_game("team_kuhn(players=3,ranks=4)")
  ref = GameTree(game, builder="walk")
  ref_keys = [s.observation_string(int(p)) for s, p in
              zip(ref.infoset_states, ref.infoset_player, strict=True)]
  key = fast_tree.key_function(game, use_infostate=False)
  root = fast_tree.shadow_root(game)
  # Replay each representative history on a shadow and compare its observation string.
  for state, p, expected in zip(ref.infoset_states, ref.infoset_player, ref_keys, strict=True):
    shadow = root
    for a in state.history():
      shadow = shadow.child(a)
    assert key(shadow, int(p)) == expected


def test_builder_errors_name_the_value():
  with pytest.raises(ValueError, match="'bogus'"):
    GameTree(pyspiel.load_game("kuhn_poker"), builder="bogus")
  with pytest.raises(ValueError, match="kuhn_poker"):
    GameTree(pyspiel.load_game("kuhn_poker"), builder="shadow")
  assert GameTree(pyspiel.load_game("kuhn_poker")).builder == "walk"


def test_preorder_is_the_walk_order():
  """GameTree.preorder inverts the level-order sort: a permutation in which every history
  follows its parent and the infosets' first histories come in infoset-id (discovery) order;
  checked against an explicit recursive preorder of the arrays."""
  tree = GameTree(pyspiel.load_game("team_leduc(players=3,bets=1,ranks=2,suits=2)"),
                  builder="walk")
  children = [[] for _ in range(tree.num_nodes)]
  for n in range(1, tree.num_nodes):
    children[int(tree.node_parent[n])].append(n)
  expected = np.zeros(tree.num_nodes, dtype=np.int64)
  stack, count = [0], 0
  while stack:
    n = stack.pop()
    expected[n] = count
    count += 1
    stack.extend(reversed(children[n]))
  pre = tree.preorder
  np.testing.assert_array_equal(pre, expected)
  assert np.all(np.diff(pre[tree.first_node()]) > 0)


@pytest.mark.parametrize("game_string", [
    "team_goofspiel(players=3,info=full)", "team_goofspiel(players=3,info=limited)",
    "team_goofspiel(players=2,info=full,num_cards=2)",
    "team_goofspiel(players=2,info=limited,num_cards=1)",
    "team_goofspiel(players=2,info=full,num_cards=1)",
    "team_goofspiel(players=4,info=limited,num_cards=2)",
])
def test_goofspiel_vector_builder_equals_pyspiel_walk(game_string):
  """Every array, key and replayed state of the level-by-level numpy build equals the walk's."""
  game = pyspiel.load_game(game_string)
  ref = GameTree(game, builder="walk")
  new = GameTree(game, builder="vector")
  assert new.builder == "vector" and GameTree(game).builder == "vector"
  assert not new.arrays.infoset_keys.made  # (made on first use)
  assert_same_tree(ref, new)
  states = new.infoset_states
  assert [s.history_str() for s in states] == [s.history_str() for s in ref.infoset_states]


def test_goofspiel_vector_builder_larger_game_equals_shadow_walk():
  """team_goofspiel(players=2, num_cards=4): 4 rounds, ties split (e.g. 2.5 points); both
  information settings; the shadow walk is itself checked against pyspiel above."""
  for info in ("full", "limited"):
    game = pyspiel.load_game(f"team_goofspiel(players=2,info={info},num_cards=4)")
    assert_same_tree(GameTree(game, builder="shadow"), GameTree(game, builder="vector"))


def test_vector_builder_refuses_other_games():
  with pytest.raises(ValueError, match="kuhn"):
    GameTree(pyspiel.load_game("team_kuhn(players=3,ranks=3)"), builder="vector")
  with pytest.raises(ValueError, match="max_nodes"):
    GameTree(pyspiel.load_game("team_goofspiel(players=3,info=full)"), builder="vector",
             max_nodes=1000)
