"""The frozen array schema of a game tree: `TreeArrays`, what every builder returns.

The pyspiel walk, the shadow walk (`fast_tree`), a game's own vector builder and the on-disk
cache all produce one `TreeArrays`; `GameTree.from_arrays` is the one way a tree is made from
it. The schema checks its invariants when it is made (`TreeArrays.__post_init__`), so that a
builder or a cache file that breaks one fails there, naming the array, instead of giving wrong
values later.

Layout (see also `game_tree`'s module docstring): nodes are all histories in **level order**
(sorted by depth, depth-first discovery order within a depth; node 0 is the root), and
information sets are numbered in the order the depth-first walk discovers them.
"""

from __future__ import annotations

import collections.abc
import dataclasses
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence

import numpy as np
import pyspiel

from ospiel_team import errors

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
# Tolerance of the check that the chance probabilities out of a chance node sum to 1.
CHANCE_SUM_ATOL = 1e-9


class InfosetKeys(collections.abc.Sequence):
  """The infoset keys (strings), made by a function on first use.

  A vector builder knows how many infosets it made but builds their key strings only when
  asked (the solvers on arrays never need them; team_goofspiel(num_cards=3) with 32 players'
  worth of bids has hundreds of thousands). The sequence is immutable once made.

  Args:
    count: the number of keys that `make` returns.
    make: returns the keys in infoset-id order; called once, on first use.
  """

  def __init__(self, count: int, make: Callable[[], Sequence[str]]):
    self._count = int(count)
    self._make = make
    self._keys: tuple[str, ...] | None = None

  @property
  def made(self) -> bool:
    """Whether the key strings have been made yet."""
    return self._keys is not None

  def _made(self) -> tuple[str, ...]:
    if self._keys is None:
      keys = tuple(self._make())
      if len(keys) != self._count:
        raise errors.UserError(f"the key function made {len(keys)} infoset keys, expected "
                               f"{self._count}")
      self._keys = keys
      self._make = None
    return self._keys

  def __len__(self) -> int:
    return self._count

  def __getitem__(self, i):
    return self._made()[i]

  def __iter__(self) -> Iterator[str]:
    return iter(self._made())

  def __eq__(self, other) -> bool:
    if isinstance(other, InfosetKeys):
      other = other._made()
    return isinstance(other, Sequence) and tuple(self._made()) == tuple(other)

  __hash__ = None

  def __repr__(self) -> str:
    return f"InfosetKeys({self._count} keys{'' if self.made else ', not made yet'})"


# (name, dtype, number of dimensions) of every array of the schema, in storage order.
_SCHEMA = (
    ("node_parent", np.int64, 1),
    ("node_action", np.int64, 1),
    ("node_player", np.int64, 1),
    ("node_depth", np.int32, 1),
    ("node_infoset", np.int64, 1),
    ("node_chance_prob", np.float64, 1),
    ("node_returns", np.float64, 2),
    ("infoset_player", np.int64, 1),
    ("infoset_legal", np.bool_, 2),
)
ARRAY_NAMES = tuple(name for name, _, _ in _SCHEMA)


@dataclasses.dataclass(frozen=True, eq=False)
class TreeArrays:
  """A game tree's nodes and information sets as flat, read-only arrays.

  Attributes:
    node_parent: [num_nodes] int64, the parent of each history (-1 for the root).
    node_action: [num_nodes] int64, the action from the parent into the history (-1: root).
    node_player: [num_nodes] int64, the player to move, `CHANCE` or `TERMINAL`.
    node_depth: [num_nodes] int32, the number of actions from the root.
    node_infoset: [num_nodes] int64, the infoset of a decision history, -1 elsewhere.
    node_chance_prob: [num_nodes] float64, the chance probability of the edge into the
      history (1 when the parent is not a chance node).
    node_returns: [num_nodes, num_players] float64, the returns at terminals, 0 elsewhere.
    infoset_player: [num_infosets] int64, the player of each infoset.
    infoset_legal: [num_infosets, num_actions] bool, the legal actions of each infoset.
    infoset_keys: the infosets' keys (information-state or observation strings, as
      `policy.TabularPolicy` keys its rows) in infoset-id order; a tuple, or `InfosetKeys`
      that makes them on first use.

  Raises (on construction):
    errors.UserError: naming the array and the first offending index, if a dtype or shape is
      wrong or an invariant fails: the root first, depths sorted and one more than the
      parent's, parents before children and non-decreasing within a level, players and
      infosets in range and consistent, every decision history with one child per legal
      action (in increasing action order), chance probabilities summing to 1 at every chance
      node, returns only at terminals, one key per infoset.
  """

  node_parent: np.ndarray
  node_action: np.ndarray
  node_player: np.ndarray
  node_depth: np.ndarray
  node_infoset: np.ndarray
  node_chance_prob: np.ndarray
  node_returns: np.ndarray
  infoset_player: np.ndarray
  infoset_legal: np.ndarray
  infoset_keys: Sequence[str]

  def __post_init__(self):
    for name, dtype, ndim in _SCHEMA:
      value = getattr(self, name)
      if not isinstance(value, np.ndarray) or value.dtype != dtype or value.ndim != ndim:
        got = (f"{value.dtype} with {value.ndim} dimensions" if isinstance(value, np.ndarray)
               else type(value).__name__)
        raise errors.UserError(f"TreeArrays.{name} must be a {ndim}-d {np.dtype(dtype)} array, "
                               f"got {got}")
      value.flags.writeable = False  # the tree's arrays are never changed in place
    if not isinstance(self.infoset_keys, (tuple, InfosetKeys)):
      object.__setattr__(self, "infoset_keys", tuple(self.infoset_keys))
    self._check_shapes()
    self._check_nodes()
    self._check_infosets()

  @property
  def num_nodes(self) -> int:
    """The number of histories (nodes)."""
    return len(self.node_parent)

  @property
  def num_infosets(self) -> int:
    """The number of information sets."""
    return len(self.infoset_player)

  @property
  def num_players(self) -> int:
    """The number of players."""
    return self.node_returns.shape[1]

  @property
  def num_actions(self) -> int:
    """The size of the action axis (the game's number of distinct actions)."""
    return self.infoset_legal.shape[1]

  def _fail(self, message: str):
    raise errors.UserError(f"TreeArrays: {message}")

  def _check_shapes(self) -> None:
    n, i = self.num_nodes, self.num_infosets
    if n < 1:
      self._fail("a tree has at least its root")
    for name in ARRAY_NAMES:
      rows = len(getattr(self, name))
      expected = i if name.startswith("infoset_") else n
      if rows != expected:
        self._fail(f"{name} has {rows} rows, expected {expected} (as "
                   f"{'infoset_player' if name.startswith('infoset_') else 'node_parent'})")
    if len(self.infoset_keys) != i:
      self._fail(f"infoset_keys has {len(self.infoset_keys)} keys for {i} infosets")

  def _first_bad(self, bad: np.ndarray, what: str, index: str = "history") -> None:
    where = np.nonzero(bad)[0]
    if len(where):
      self._fail(f"{what} (first at {index} {int(where[0])})")

  def _check_nodes(self) -> None:
    parent, depth, player = self.node_parent, self.node_depth, self.node_player
    if parent[0] != -1 or depth[0] != 0 or self.node_action[0] != -1:
      self._fail("history 0 must be the root (parent -1, action -1, depth 0)")
    kids = np.arange(1, self.num_nodes)
    par = parent[1:]
    self._first_bad(np.concatenate([[False], (par < 0) | (par >= kids)]),
                    "node_parent: a parent does not precede its child")
    par = np.clip(par, 0, None)
    self._first_bad(np.concatenate([[False], depth[1:] != depth[par] + 1]),
                    "node_depth: a history is not one deeper than its parent")
    self._first_bad(np.concatenate([[False], np.diff(depth) < 0]),
                    "node_depth: histories are not in level order")
    same_level = depth[1:] == depth[:-1]
    self._first_bad(np.concatenate([[False], same_level & (np.diff(parent) < 0)]),
                    "node_parent: parents decrease within a level")
    num_players = self.num_players
    self._first_bad((player >= num_players) | ((player < 0) & (player != CHANCE) &
                                               (player != TERMINAL)),
                    f"node_player: not a player of {num_players}, CHANCE or TERMINAL")
    parent_player = np.concatenate([[CHANCE], player[par]])
    self._first_bad(parent_player == TERMINAL, "node_parent: a terminal history has a child")
    self._first_bad(np.concatenate([[False], self.node_action[1:] < 0]),
                    "node_action: a negative action")
    prob = self.node_chance_prob
    from_chance = parent_player == CHANCE
    from_chance[0] = False
    self._first_bad(~from_chance & (prob != 1.0),
                    "node_chance_prob: not 1 on an edge that chance does not choose")
    self._first_bad(from_chance & ~((prob >= 0) & (prob <= 1)),
                    "node_chance_prob: not a probability")
    children = np.bincount(par, minlength=self.num_nodes)
    self._first_bad((player != TERMINAL) & (children == 0),
                    "node_parent: a non-terminal history has no children")
    sums = np.bincount(par[from_chance[1:]], weights=prob[1:][from_chance[1:]],
                       minlength=self.num_nodes)
    self._first_bad((player == CHANCE) & (np.abs(sums - 1.0) > CHANCE_SUM_ATOL),
                    f"node_chance_prob: the outcomes of a chance history do not sum to 1 "
                    f"(atol {CHANCE_SUM_ATOL})")
    self._first_bad((player != TERMINAL) & np.any(self.node_returns != 0, axis=1),
                    "node_returns: nonzero returns at a non-terminal history")

  def _check_infosets(self) -> None:
    player, infoset = self.node_player, self.node_infoset
    num_infosets, num_actions = self.num_infosets, self.num_actions
    decision = player >= 0
    self._first_bad(decision != (infoset >= 0),
                    "node_infoset: -1 exactly at chance and terminal histories")
    self._first_bad(infoset >= num_infosets, f"node_infoset: not below {num_infosets}")
    self._first_bad((self.infoset_player < 0) |
                    (self.infoset_player >= self.num_players),
                    "infoset_player: not a player", index="infoset")
    self._first_bad(~self.infoset_legal.any(axis=1), "infoset_legal: no legal action",
                    index="infoset")
    dec = np.nonzero(decision)[0]
    inf = infoset[dec]
    self._first_bad(np.bincount(inf, minlength=num_infosets) == 0,
                    "node_infoset: an infoset has no history", index="infoset")
    bad = self.infoset_player[inf] != player[dec]
    if bad.any():
      self._fail(f"infoset_player: history {int(dec[np.argmax(bad)])} of player "
                 f"{int(player[dec[np.argmax(bad)]])} is in an infoset of player "
                 f"{int(self.infoset_player[inf[np.argmax(bad)]])}")
    # Every decision history has one child per legal action, in increasing action order.
    kids = np.nonzero(player[np.clip(self.node_parent, 0, None)] >= 0)[0]
    kids = kids[kids > 0]
    par, act = self.node_parent[kids], self.node_action[kids]
    self._first_bad(act >= num_actions, f"node_action: not below num_actions={num_actions}")
    self._first_bad(~self.infoset_legal[infoset[par], act],
                    "node_action: an illegal action out of a decision history")
    same = par[1:] == par[:-1]
    self._first_bad(np.concatenate([[False], same & (np.diff(act) <= 0)]),
                    "node_action: a decision history's children are not in increasing "
                    "action order")
    children = np.bincount(par, minlength=self.num_nodes)
    legal = np.zeros(self.num_nodes, dtype=np.int64)
    legal[dec] = self.infoset_legal[inf].sum(axis=1)
    self._first_bad(decision & (children != legal),
                    "node_parent: a decision history's children are not its legal actions")
