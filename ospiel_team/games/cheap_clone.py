"""List attributes that make `state.clone()` / `state.child(a)` of our Python games cheap.

OpenSpiel clones a Python game's state (`PyState::Clone` in
`open_spiel/python/pybind11/python_games.cc`) by creating a fresh initial state and then
`copy.deepcopy`-ing every attribute in the state's `__dict__`. A generic deepcopy of a list
walks it element by element through `copy`'s dispatch and memo (about 2 us for six ints, 5 us
for a list of frozensets), which made deepcopy half of the time of a full tree walk
(`GameTree`) of `team_goofspiel`, `team_leduc`, `team_kuhn` and `team_liars_dice`.

`FlatList` is a plain list whose items are immutable (ints, floats, bools, tuples,
frozensets, or lists that are never mutated again): its deepcopy is a shallow copy.
`NestedList` is a list of `FlatList`s: its deepcopy copies each inner list. Both behave as
lists everywhere else (equality, indexing, `append`, pickling for `serialize_game_and_state`).
"""

from collections.abc import Iterable


class FlatList(list):
  """A list of immutable items; `copy.deepcopy` makes a shallow copy."""

  __slots__ = ()

  def __deepcopy__(self, memo) -> "FlatList":
    return FlatList(self)


class NestedList(list):
  """A list of `FlatList`s; `copy.deepcopy` copies each inner list (not their items)."""

  __slots__ = ()

  def __init__(self, rows: Iterable = ()):
    super().__init__(FlatList(r) for r in rows)

  def __deepcopy__(self, memo) -> "NestedList":
    return NestedList(self)
