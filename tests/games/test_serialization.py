"""Every game this package registers survives OpenSpiel's serialization and `pickle`.

A state restored by `pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(...))`,
by `game.deserialize_state(state.serialize())` or by `pickle` must equal the original at a
chance, a decision and a terminal node (history, player, legal actions, chance outcomes,
returns) and must go on playing like it.
"""

import importlib
import pickle
import pkgutil

import numpy as np
import pyspiel
import pytest

import ospiel_team.games


def _registered_games() -> list[str]:
  names = []
  for info in pkgutil.iter_modules(ospiel_team.games.__path__):
    module = importlib.import_module(f"ospiel_team.games.{info.name}")
    game_type = getattr(module, "_GAME_TYPE", None)
    if game_type is not None:
      names.append(game_type.short_name)
  return sorted(names)


GAMES = _registered_games()


def test_the_package_registers_these_games():
  registered = set(pyspiel.registered_names())
  assert set(GAMES) <= registered
  assert {"bridge_bidding", "mini_bridge", "team_kuhn", "team_leduc", "simple_bidding",
          "comm", "team_liars_dice", "team_goofspiel"} <= set(GAMES)


def _nodes(game: pyspiel.Game, seed: int = 0) -> dict[str, pyspiel.State]:
  """The first chance node, the first decision node and the terminal of one random play."""
  rng = np.random.default_rng(seed)
  state, nodes = game.new_initial_state(), {}
  while True:
    kind = ("terminal" if state.is_terminal() else
            "chance" if state.is_chance_node() else "decision")
    nodes.setdefault(kind, state.clone())
    if kind == "terminal":
      return nodes
    if kind == "chance":
      actions, probs = zip(*state.chance_outcomes(), strict=True)
      state.apply_action(int(rng.choice(actions, p=np.asarray(probs) / sum(probs))))
    else:
      state.apply_action(int(rng.choice(state.legal_actions())))


def _facts(state: pyspiel.State) -> dict:
  facts = {"history": state.history(), "player": state.current_player(),
           "terminal": state.is_terminal(), "string": str(state)}
  if state.is_terminal():
    facts["returns"] = state.returns()
  elif state.is_chance_node():
    facts["chance_outcomes"] = state.chance_outcomes()
  else:
    facts["legal"] = state.legal_actions()
  return facts


def _restorers(game):
  return {
      "serialize_game_and_state": lambda s: pyspiel.deserialize_game_and_state(
          pyspiel.serialize_game_and_state(game, s))[1],
      "game.deserialize_state": lambda s: game.deserialize_state(s.serialize()),
      "pickle": lambda s: pickle.loads(pickle.dumps(s)),
  }


@pytest.mark.parametrize("name", GAMES)
def test_restored_states_equal_the_original(name):
  game = pyspiel.load_game(name)
  nodes = _nodes(game)
  assert "decision" in nodes and "terminal" in nodes
  for kind, state in nodes.items():
    for how, restore in _restorers(game).items():
      restored = restore(state)
      assert _facts(restored) == _facts(state), (name, kind, how)
      if not state.is_terminal():  # the restored state plays on like the original
        action = (state.chance_outcomes()[0][0] if state.is_chance_node()
                  else state.legal_actions()[-1])
        assert _facts(restored.child(action)) == _facts(state.child(action)), (name, kind, how)


def test_bridge_bidding_chance_nodes_of_random_dealer_and_vulnerability():
  game = pyspiel.load_game("bridge_bidding(dealer=random,vulnerability=random)")
  state = game.new_initial_state()
  for action in (3, 2, 1):  # deal, dealer, vulnerability: each a chance node
    for restore in _restorers(game).values():
      restored = restore(state)
      assert _facts(restored) == _facts(state)
    state.apply_action(action)
  assert not state.is_chance_node()
  for restore in _restorers(game).values():
    assert _facts(restore(state)) == _facts(state)


def test_bridge_bidding_states_share_their_rules():
  # A clone must not copy the dataset or the deal chance node's outcomes (one per deal).
  state = pyspiel.load_game("bridge_bidding").new_initial_state()
  child = state.child(0)
  assert child._rules is state._rules
  assert child.child(0)._rules.deal_outcomes is state.chance_outcomes()
