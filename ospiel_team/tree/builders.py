"""The ways a pyspiel game becomes `TreeArrays`: the walk, the shadow walk, a vector builder.

* "walk" (the reference): a depth-first walk of pyspiel states, keeping one representative
  state per infoset (its first history) for policy conversion.
* "shadow": `fast_tree`'s walk of the game's own Python rules on plain-Python copies of its
  states, for games that declare `SHADOW_WALK` (3-4x faster; the same nodes in the same order).
* "vector": the game's own `tree_arrays()` (`game_support`), level by level in numpy, no walk.

All three give the same `TreeArrays` (checked node for node by `tests/tree/test_fast_tree.py`);
the representative states of a tree not walked through pyspiel are replayed on first use
(`replay_infoset_states`).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyspiel

from ospiel_team import errors
from ospiel_team.tree import fast_tree
from ospiel_team.tree import game_support
from ospiel_team.tree import memory
from ospiel_team.tree.arrays import CHANCE
from ospiel_team.tree.arrays import TERMINAL
from ospiel_team.tree.arrays import InfosetKeys
from ospiel_team.tree.arrays import TreeArrays

BUILDERS = ("auto", "walk", "shadow", "vector")
DEFAULT_MAX_NODES = 30_000_000


def uses_infostate(game: pyspiel.Game) -> bool:
  """Whether the tree keys `game`'s infosets by information-state strings (else observations).

  Raises:
    errors.UserError: for a game the tree cannot represent (simultaneous moves, sampled
      chance, neither kind of string).
  """
  game_type = game.get_type()
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise errors.UserError(
        f"GameTree needs a turn-based game; {game} has dynamics {game_type.dynamics}. "
        "Use pyspiel.load_game_as_turn_based.")
  if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
    raise errors.UserError(f"GameTree needs explicit chance; {game} has sampled chance.")
  if game_type.provides_information_state_string:
    return True
  if not game_type.provides_observation_string:
    raise errors.UserError(
        f"{game} provides neither information-state nor observation strings.")
  return False


def infoset_key(state: pyspiel.State, player: int, use_infostate: bool) -> str:
  """The key of `player`'s infoset at `state` (as `policy.TabularPolicy` keys its rows)."""
  if use_infostate:
    return state.information_state_string(player)
  return state.observation_string(player)


def choose(game: pyspiel.Game, builder: str) -> str:
  """The builder that `builder` ("auto" or a name of `BUILDERS`) means for `game`.

  Raises:
    errors.UserError: for an unknown name, or a builder the game does not provide.
  """
  if builder not in BUILDERS:
    raise errors.UserError(f"builder must be one of {BUILDERS}, got {builder!r}")
  support = game_support.lookup(game)
  # The vector builders make information-state keys.
  vector = support.vector_builder is not None and uses_infostate(game)
  if builder == "auto":
    return "vector" if vector else "shadow" if support.shadow_walk else "walk"
  if builder == "shadow" and not support.shadow_walk:
    raise errors.UserError(f"builder='shadow' needs a game whose class declares "
                           f"SHADOW_WALK = True (game_support); {game} does not")
  if builder == "vector" and not vector:
    raise errors.UserError(f"builder='vector' needs a game whose class provides tree_arrays() "
                           f"and information-state strings (game_support); {game} does not")
  return builder


def check_size(game: pyspiel.Game, max_nodes: int) -> None:
  """Refuses, before any walk, a game with more terminal histories than `max_nodes`.

  Raises:
    errors.UserError: if `max_nodes` is not positive.
    errors.SizeLimitError: if the game states more terminal histories than `max_nodes`.
  """
  if max_nodes < 1:
    raise errors.UserError(f"max_nodes must be positive, got {max_nodes}")
  bound = game_support.min_terminal_histories(game)
  if bound is not None and bound > max_nodes:
    exact = game_support.lookup(game).terminal_count_exact
    raise errors.SizeLimitError(
        f"{game} has {'' if exact else 'at least '}{bound:,} terminal histories, more than "
        f"max_nodes={max_nodes:,} histories; refusing before walking (raise max_nodes if it "
        "fits in memory).")


def _too_many_nodes(game: pyspiel.Game, max_nodes: int) -> errors.SizeLimitError:
  return errors.SizeLimitError(f"{game} has more than max_nodes={max_nodes} histories; raise "
                               "max_nodes if it fits in memory.")


def vector_arrays(game: pyspiel.Game, max_nodes: int) -> TreeArrays:
  """The arrays of the game's own vector builder (`tree_arrays()`, see `game_support`).

  Raises:
    errors.SizeLimitError: past `max_nodes` histories.
  """
  fields = dict(game_support.lookup(game).vector_builder(game))
  if len(fields["node_parent"]) > max_nodes:
    raise _too_many_nodes(game, max_nodes)
  keys = fields.pop("infoset_keys")
  if callable(keys):
    keys = InfosetKeys(len(fields["infoset_player"]), keys)
  return TreeArrays(infoset_keys=keys, **fields)


def _pyspiel_walk(game: pyspiel.Game, use_infostate: bool) -> Iterator[tuple]:
  """Depth-first walk of the pyspiel states, one tuple per node in preorder, in the format of
  `fast_tree.walk`: (kind, parent index, action, chance prob, depth, payload) with payload the
  returns at a terminal, None at a chance node and (key, legal actions, state) at a decision
  node."""
  stack = [(game.new_initial_state(), -1, -1, 1.0, 0)]
  n = 0
  while stack:
    state, parent, action, prob, depth = stack.pop()
    if state.is_terminal():
      yield TERMINAL, parent, action, prob, depth, state.returns()
    elif state.is_chance_node():
      yield CHANCE, parent, action, prob, depth, None
      for a, p in reversed(state.chance_outcomes()):
        stack.append((state.child(a), n, a, p, depth + 1))
    elif state.is_simultaneous_node():
      raise errors.UserError(f"{game} has simultaneous nodes; use load_game_as_turn_based.")
    else:
      player = state.current_player()
      legal = state.legal_actions()
      yield player, parent, action, prob, depth, (infoset_key(state, player, use_infostate),
                                                  legal, state)
      for a in reversed(legal):
        stack.append((state.child(a), n, a, 1.0, depth + 1))
    n += 1


class _WalkRecord:
  """The depth-first lists of a walk, turned into level-ordered `TreeArrays` at the end."""

  def __init__(self, num_actions: int, keep_states: bool):
    self.num_actions = num_actions
    self.keep_states = keep_states
    self.parents, self.actions, self.players, self.depths = [], [], [], []
    self.infosets, self.chance_probs, self.returns_idx, self.returns_val = [], [], [], []
    self.infoset_ids: dict[str, int] = {}
    self.infoset_player, self.infoset_legal, self.states = [], [], []

  def add(self, n: int, node: tuple) -> None:
    kind, parent, action, prob, depth, payload = node
    self.parents.append(parent)
    self.actions.append(action)
    self.depths.append(depth)
    self.chance_probs.append(prob)
    self.players.append(kind)
    if kind == TERMINAL:
      self.infosets.append(-1)
      self.returns_idx.append(n)
      self.returns_val.append(payload)
      return
    if kind == CHANCE:
      self.infosets.append(-1)
      return
    key, legal = payload[0], payload[1]
    info = self.infoset_ids.get(key)
    if info is None:
      info = len(self.infoset_player)
      self.infoset_ids[key] = info
      self.infoset_player.append(kind)
      mask = np.zeros(self.num_actions, dtype=bool)
      mask[legal] = True
      self.infoset_legal.append(mask)
      if self.keep_states:
        self.states.append(payload[2])
    elif self.infoset_player[info] != kind:
      raise errors.UserError(f"infoset {key!r} is shared by players "
                             f"{self.infoset_player[info]} and {kind}")
    self.infosets.append(info)

  def arrays(self, num_players: int) -> TreeArrays:
    """The node and infoset arrays in level order (a stable sort of the preorder by depth)."""
    depth = np.asarray(self.depths, dtype=np.int32)
    order = np.argsort(depth, kind="stable")
    new_index = np.empty_like(order)
    new_index[order] = np.arange(len(order))
    parent = np.asarray(self.parents, dtype=np.int64)[order]
    parent = np.where(parent >= 0, new_index[np.maximum(parent, 0)], -1).astype(np.int64)
    returns = np.zeros((len(order), num_players))
    if self.returns_idx:
      returns[new_index[np.asarray(self.returns_idx)]] = np.asarray(self.returns_val,
                                                                    dtype=np.float64)
    legal = (np.asarray(self.infoset_legal, dtype=bool) if self.infoset_legal
             else np.zeros((0, self.num_actions), dtype=bool))
    return TreeArrays(
        node_parent=parent, node_action=np.asarray(self.actions, dtype=np.int64)[order],
        node_player=np.asarray(self.players, dtype=np.int64)[order], node_depth=depth[order],
        node_infoset=np.asarray(self.infosets, dtype=np.int64)[order],
        node_chance_prob=np.asarray(self.chance_probs, dtype=np.float64)[order],
        node_returns=returns, infoset_player=np.asarray(self.infoset_player, dtype=np.int64),
        infoset_legal=legal, infoset_keys=tuple(self.infoset_ids))


def walk_arrays(game: pyspiel.Game, *, shadow: bool, max_nodes: int,
                max_memory: int | None, progress: bool = False
                ) -> tuple[TreeArrays, list | None]:
  """Walks `game` depth first into level-ordered arrays.

  Args:
    game: a finite turn-based pyspiel game with explicit chance.
    shadow: walk `fast_tree`'s shadow states instead of pyspiel states (the same nodes in the
      same order; no representative states are kept).
    max_nodes: refuse games with more histories.
    max_memory: bytes the walk may add to the resident memory (None: no check).
    progress: show a tqdm bar of the walk.

  Returns:
    The arrays, and the representative pyspiel state of every infoset (None for `shadow`).

  Raises:
    errors.SizeLimitError: past `max_nodes` histories.
    memory.TreeTooLargeError: past `max_memory`.
    errors.UserError: if two players share an infoset, or the game has simultaneous nodes.
  """
  use_infostate = uses_infostate(game)
  record = _WalkRecord(game.num_distinct_actions(), keep_states=not shadow)
  budget = memory.WalkBudget(game, max_memory)
  pbar = None
  if progress:
    import tqdm
    pbar = tqdm.tqdm(desc=f"walking {game}", unit=" nodes", mininterval=1.0)
  nodes = (fast_tree.walk(game, use_infostate) if shadow else _pyspiel_walk(game, use_infostate))
  for n, node in enumerate(nodes):
    if n >= max_nodes:
      raise _too_many_nodes(game, max_nodes)
    budget.check(n)
    record.add(n, node)
    if pbar is not None and n % 10000 == 0:
      pbar.update(10000 if n else 0)
  if pbar is not None:
    pbar.close()
  return record.arrays(game.num_players()), None if shadow else record.states


def replay_infoset_states(game: pyspiel.Game, arrays: TreeArrays, first: np.ndarray,
                          preorder: np.ndarray) -> list:
  """The first history of every infoset as a pyspiel state, rebuilt by replaying actions.

  The first histories are visited in depth-first order (infoset ids are numbered in the walk's
  discovery order) along one path of states, so shared prefixes are applied once: at most one
  `child` per history on the union of the paths (no more than a walk).

  Args:
    game: the game of the arrays.
    arrays: the tree's arrays.
    first: [num_infosets] the first history of every infoset.
    preorder: [num_nodes] every history's depth-first preorder index.

  Raises:
    errors.UserError: if a replayed key differs from the stored one (stale arrays).
  """
  use_infostate = uses_infostate(game)
  order = np.argsort(preorder[first], kind="stable")
  states = [None] * len(first)
  path_nodes = [0]
  path_states = [game.new_initial_state()]
  for i in order.tolist():
    path = []
    n = int(first[i])
    while n > 0:
      path.append(n)
      n = int(arrays.node_parent[n])
    path.append(0)
    path.reverse()
    k = 0
    while k < len(path_nodes) and k < len(path) and path_nodes[k] == path[k]:
      k += 1
    del path_nodes[k:], path_states[k:]
    for m in path[k:]:
      path_states.append(path_states[-1].child(int(arrays.node_action[m])))
      path_nodes.append(m)
    state = path_states[-1]
    key = infoset_key(state, int(arrays.infoset_player[i]), use_infostate)
    if key != arrays.infoset_keys[i]:
      raise errors.UserError(f"the tree arrays of {game} are stale: infoset {i} replays to "
                             f"{key!r}, stored {arrays.infoset_keys[i]!r}")
    states[i] = state
  return states
