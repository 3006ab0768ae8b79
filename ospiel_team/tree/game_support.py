"""What the tree core uses from particular games, looked up by game name.

`GameTree` and `fast_tree` name no game. What they can use from a game is provided by the
game's own module, on its `pyspiel.Game` subclass, and `lookup(game)` collects it once per game
name (the game type's short name) into a `GameSupport`:

* `min_terminal_histories(self) -> int`: how many terminal histories the game has at least,
  checked before a walk so that a game too large is refused at once; with the class attribute
  `TERMINAL_HISTORIES_EXACT = True` the count is exact (and said so in the refusal).
* `SHADOW_WALK = True` (class attribute): the states' rules are plain Python methods on the
  states' own attributes, so `fast_tree.walk` may run them on plain-Python copies of the states.
* `tree_arrays(self) -> dict`: a *vector builder*, the level-ordered arrays of the tree made
  without walking states: a dict of exactly the fields of `arrays.TreeArrays` (keys are
  information-state strings), except that `infoset_keys` may be a function returning them,
  called on first use (`builders.vector_arrays` reads it).

The game modules sit below the tree in the package's layers and import nothing from it, which
is why they declare these on their game classes rather than calling a registration function
here. OpenSpiel's own (C++) games declare none of them: they are walked, and only the walk's
`max_nodes` limit stops a game too large.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pyspiel


@dataclasses.dataclass(frozen=True)
class GameSupport:
  """What one game (by name) provides to the tree core; see the module docstring."""
  name: str
  terminal_count: Callable[[pyspiel.Game], int] | None = None
  terminal_count_exact: bool = False
  shadow_walk: bool = False
  vector_builder: Callable[[pyspiel.Game], dict] | None = None


_BY_NAME: dict[str, GameSupport] = {}


def lookup(game: pyspiel.Game) -> GameSupport:
  """The `GameSupport` of `game`'s name, read from its game class on first use.

  Args:
    game: any pyspiel game (OpenSpiel's own games get an empty `GameSupport`).
  """
  name = game.get_type().short_name
  found = _BY_NAME.get(name)
  if found is None:
    cls = type(game)
    count = getattr(cls, "min_terminal_histories", None)
    builder = getattr(cls, "tree_arrays", None)
    found = GameSupport(
        name=name, terminal_count=count if callable(count) else None,
        terminal_count_exact=bool(getattr(cls, "TERMINAL_HISTORIES_EXACT", False)),
        shadow_walk=bool(getattr(cls, "SHADOW_WALK", False)),
        vector_builder=builder if callable(builder) else None)
    _BY_NAME[name] = found
  return found


def min_terminal_histories(game: pyspiel.Game) -> int | None:
  """How many terminal histories `game` has at least, known without walking it, or None.

  The package's games state it (their `min_terminal_histories()`, exact where the game class
  says `TERMINAL_HISTORIES_EXACT`). OpenSpiel's own games state nothing, so the sound fallback
  is None: no refusal before the walk, whose `max_nodes` limit then stops it.

  Args:
    game: any pyspiel game.
  """
  count = lookup(game).terminal_count
  return None if count is None else int(count(game))
