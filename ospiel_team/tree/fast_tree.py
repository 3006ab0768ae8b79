"""A faster walk of this package's Python games (the *shadow walk*), for `GameTree`.

`GameTree`'s reference walk goes through pyspiel for every history: `state.child(a)` crosses
pybind11 into C++, which clones the Python state (a fresh initial state plus a `copy.deepcopy`
of every attribute) and calls back into Python's `_apply_action`; `current_player`,
`is_terminal` and `legal_actions` are further round trips (about seven calls of
`current_player` per history). For a game whose rules are plain Python methods on the state
(its game class says so with `SHADOW_WALK = True`, see `game_support`), this module runs the
*same* methods on a plain-Python shadow of the state: a class built from the
game's state class (its functions and properties, without `pyspiel.State`) whose clone copies
the attribute dictionary directly (`FlatList`/`NestedList` semantics of `cheap_clone`). The
information-state (or observation) strings come from the game's own observer
(`make_py_observer`), the one pyspiel uses for Python games. The rules are therefore not
re-implemented; only the pyspiel plumbing is bypassed. `tests/tree/test_fast_tree.py` checks
the resulting `GameTree` against the reference walk node for node (all arrays and infoset keys).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import pyspiel

from ospiel_team.games.cheap_clone import FlatList
from ospiel_team.games.cheap_clone import NestedList
from ospiel_team.tree import game_support

_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_IMMUTABLE = (int, float, bool, str, tuple, frozenset, type(None))


def _same(v):
  return v


# Copy of an attribute by its exact type; other types fall back to copy.deepcopy.
_COPIERS = {t: _same for t in _IMMUTABLE}
_COPIERS[FlatList] = FlatList
_COPIERS[NestedList] = NestedList


def _copy_attributes(src: dict, dst: dict) -> None:
  """What pyspiel's clone of a Python state does, written out.

  What pyspiel's clone of a Python state does (a deepcopy of every attribute), with
  `cheap_clone`'s list semantics spelled out.
  """
  for k, v in src.items():
    copier = _COPIERS.get(type(v))
    dst[k] = copier(v) if copier is not None else copy.deepcopy(v)


class _ShadowBase:
  """The few `pyspiel.State` methods the games' Python rules call on themselves."""

  _shadow_game: Any = None
  current_player: Callable[[], int]  # the game's own, copied onto the shadow class

  def is_chance_node(self) -> bool:
    return int(self.current_player()) == _CHANCE

  def is_terminal(self) -> bool:
    return int(self.current_player()) == _TERMINAL

  def num_players(self) -> int:
    return self._shadow_game.num_players()

  def get_game(self):
    return self._shadow_game

  def legal_actions(self, player=None):
    if player is None:
      player = self.current_player()
    return self._legal_actions(int(player))

  def clone(self):
    other = object.__new__(type(self))
    _copy_attributes(self.__dict__, other.__dict__)
    return other

  def child(self, action: int):
    other = self.clone()
    other._apply_action(action)  # noqa: SLF001 (pyspiel's Python-game protocol method)
    return other


def _shadow_class(state_cls: type, game: pyspiel.Game) -> type:
  """A plain class with `state_cls`'s own functions and properties on `_ShadowBase`."""
  own = []
  for klass in state_cls.__mro__:
    if klass is pyspiel.State:
      break
    own.append(klass)
  else:
    raise ValueError(f"fast_tree: {state_cls} is not a pyspiel.State")
  namespace = {}
  for klass in reversed(own):
    for name, value in vars(klass).items():
      if name in ("__init__", "__dict__", "__weakref__", "__module__", "__doc__"):
        continue
      namespace[name] = value
  namespace["_shadow_game"] = game
  return type(f"Shadow{state_cls.__name__}", (_ShadowBase,), namespace)


def supports(game: pyspiel.Game) -> bool:
  """Whether `walk` can walk `game` (its game class declares `SHADOW_WALK = True`)."""
  return game_support.lookup(game).shadow_walk


def shadow_root(game: pyspiel.Game):
  """The initial state of `game` as a shadow (see the module docstring)."""
  if not supports(game):
    raise ValueError(f"fast_tree: {game} does not declare SHADOW_WALK = True on its game "
                     "class: its states' rules are not known to be plain Python")
  state = game.new_initial_state()
  shadow = object.__new__(_shadow_class(type(state), game))
  _copy_attributes(state.__dict__, shadow.__dict__)
  return shadow


def key_function(game: pyspiel.Game, use_infostate: bool) -> Callable:
  """The information-state (or observation) string of a shadow state.

  key(state, player): the information-state (or observation) string of a shadow state,
  from the game's own observer (what pyspiel's `information_state_string` calls).
  """
  iig = pyspiel.IIGObservationType(perfect_recall=use_infostate)
  observer = game.make_py_observer(iig)
  return observer.string_from


def walk(game: pyspiel.Game, use_infostate: bool) -> Iterator[tuple]:
  """Depth-first walk of shadow states in `GameTree`'s order.

  Depth-first walk of shadow states in `GameTree`'s order (children in the order of
  `chance_outcomes()` / `legal_actions()`), yielding per history

    (kind, parent, action, chance prob, depth, payload)

  with kind CHANCE / TERMINAL / player id, and payload the returns (terminal), or
  (key, legal actions) (decision). Used by `GameTree._build` (builder="shadow").
  """
  key = key_function(game, use_infostate)
  stack = [(shadow_root(game), -1, -1, 1.0, 0)]
  n = 0
  while stack:
    state, parent, action, prob, depth = stack.pop()
    player = int(state.current_player())
    if player == _TERMINAL:
      yield _TERMINAL, parent, action, prob, depth, state.returns()
    elif player == _CHANCE:
      yield _CHANCE, parent, action, prob, depth, None
      for a, p in reversed(state.chance_outcomes()):
        stack.append((state.child(a), n, a, p, depth + 1))
    else:
      legal = state.legal_actions(player)
      yield player, parent, action, prob, depth, (key(state, player), legal)
      for a in reversed(legal):
        stack.append((state.child(a), n, a, 1.0, depth + 1))
    n += 1
