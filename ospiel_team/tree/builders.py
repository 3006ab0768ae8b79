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

import dataclasses
import math
import time
from collections.abc import Iterator

import numpy as np
import pyspiel

from ospiel_team import checks
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
# The size estimate (`estimate_size`): random playouts, a few first, more for a large game.
FIRST_PLAYOUTS = 16
PLAYOUTS = 256
SMALL_GAME = 100_000  # histories: below this estimate the first playouts are enough
CONFIDENCE_SE = 3.0  # the estimate's low end: the mean less this many standard errors
MIN_REFUSED_SECONDS = 1.0  # a walk estimated shorter starts whatever its time limit


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


@dataclasses.dataclass(frozen=True)
class SizeEstimate:
  """How large a game's tree is, known before walking it (`estimate_size`).

  Attributes:
    histories: the estimated number of histories (all nodes: chance, decision, terminal).
    low: a number of histories the game has at least: its own count of terminal histories
      where it states one, else the playouts' mean less `CONFIDENCE_SE` standard errors.
    seconds_per_history: the playouts' seconds per state step, a low estimate of a walk's
      cost per history (walks, shadow ones included, measured 1.5-5x slower: they also key
      the infosets and build the arrays).
    how: where `low` comes from, for messages.
  """
  histories: int
  low: int
  seconds_per_history: float
  how: str


def _playout(game: pyspiel.Game, rng: np.random.Generator) -> tuple[float, int]:
  """One random playout from the root: Knuth's estimate of the history count, and its length.

  One random path from the root (every child equally likely, chance included): Knuth's
  unbiased estimate of the number of histories (1 + b0 + b0 b1 + ..., b the branching along
  the path) and the path's length.
  """
  state = game.new_initial_state()
  estimate, width, steps = 1.0, 1.0, 0
  while not state.is_terminal():
    if state.is_chance_node():
      actions = [a for a, _ in state.chance_outcomes()]
    elif state.is_simultaneous_node():
      raise errors.UserError(f"{game} has simultaneous nodes; use load_game_as_turn_based.")
    else:
      actions = state.legal_actions()
    width *= len(actions)
    estimate += width
    state.apply_action(actions[int(rng.integers(len(actions)))])
    steps += 1
  return estimate, steps


def estimate_size(game: pyspiel.Game, seed: int = 0) -> SizeEstimate:
  """The size of `game`'s tree, from its parameters where it states them, else by playouts.

  Random playouts (Knuth's estimator: `FIRST_PLAYOUTS`, then `PLAYOUTS` in all when the first
  ones estimate more than `SMALL_GAME` histories) estimate the number of histories and, from
  their own steps, the seconds a walk spends per history. A game that states its number of
  terminal histories (`game_support.min_terminal_histories`) gives a sure low end. Deterministic
  for a given `seed`; a few milliseconds for a small game, well under a second for a large one.

  Args:
    game: a finite turn-based pyspiel game.
    seed: the playouts' seed.

  Returns:
    A `SizeEstimate`.
  """
  rng = np.random.default_rng(seed)
  values, steps = [], 0
  t0 = time.perf_counter()
  for count in (FIRST_PLAYOUTS, PLAYOUTS):
    while len(values) < count:
      value, n = _playout(game, rng)
      values.append(value)
      steps += n
    if np.mean(values) <= SMALL_GAME:
      break
  seconds = (time.perf_counter() - t0) / max(1, steps + len(values))
  mean = float(np.mean(values))
  se = float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else mean
  low = max(1, int(mean - CONFIDENCE_SE * se))
  how = f"{len(values)} random playouts estimate {mean:,.3g}"
  bound = game_support.min_terminal_histories(game)
  if bound is not None and bound >= low:
    exact = game_support.lookup(game).terminal_count_exact
    low = bound
    how = f"the game states {'' if exact else 'at least '}{bound:,} terminal histories"
  return SizeEstimate(histories=max(int(mean), low), low=low, seconds_per_history=seconds,
                      how=how)


def check_size(game: pyspiel.Game, max_nodes: int, *, max_memory: int | None = None,
               time_limit: float | None = None, builder: str = "walk") -> SizeEstimate | None:
  """Refuses, before any walk, a game that cannot fit `max_nodes`, `max_memory` or `time_limit`.

  The game's size comes from `estimate_size`; a refusal rests on its low end (what the game
  has at least), so that a game that fits is not refused on a high estimate; the walk's own
  checks (`memory.WalkBudget`) stop what the estimate did not.

  Args:
    game: the game.
    max_nodes: the most histories the tree may have.
    max_memory: bytes (None: no memory limit).
    time_limit: seconds the walk may take (None: no limit); a walk estimated at more than
      that (and more than `MIN_REFUSED_SECONDS`) is refused (the vector builder, which walks
      nothing, is not).
    builder: the builder that will run ("walk", "shadow" or "vector"; only "vector" is not
      timed).

  Returns:
    The estimate, or None for a game that states a count of its terminal histories when no
    memory or time limit is given (no playouts needed).

  Raises:
    errors.UserError: if `max_nodes` is not a positive integer, or for a game the tree cannot
      represent (`uses_infostate`).
    errors.SizeLimitError: past `max_memory` (`memory.TreeTooLargeError`, checked first) or
      `max_nodes` histories (at least).
    memory.WalkTimeLimitError: a walk estimated at more than `time_limit` seconds.
  """
  checks.check_int("max_nodes", max_nodes, minimum=1)
  uses_infostate(game)  # a game the tree can represent, before any playout
  bound = game_support.min_terminal_histories(game)
  if bound is not None and bound > max_nodes:
    exact = game_support.lookup(game).terminal_count_exact
    raise errors.SizeLimitError(
        f"{game} has {'' if exact else 'at least '}{bound:,} terminal histories, more than "
        f"max_nodes={max_nodes:,} histories; refusing before walking (raise max_nodes if it "
        "fits in memory).")
  if bound is not None and max_memory is None and time_limit is None:
    return None
  size = estimate_size(game)
  memory.check_fits(game, size.low, size.how, max_memory)
  if size.low > max_nodes:
    raise _refused_nodes(game, size.low, size.how, max_nodes)
  if time_limit is not None and builder != "vector":
    seconds = size.low * size.seconds_per_history  # walks take 1.5-5x longer (measured)
    if seconds > max(time_limit, MIN_REFUSED_SECONDS):
      raise memory.WalkTimeLimitError(
          f"the walk of {game} would take about {seconds:,.0f} s ({size.low:,} histories at "
          f"least: {size.how}), more than time_limit={time_limit:g} s; refusing before "
          "walking (raise time_limit)")
  return size


def _refused_nodes(game, histories: int, how: str, max_nodes: int) -> errors.SizeLimitError:
  return errors.SizeLimitError(
      f"{game} has at least {histories:,} histories ({how}), more than max_nodes={max_nodes:,} "
      "histories; refusing before walking (raise max_nodes if it fits in memory).")


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
  """Depth-first walk of the pyspiel states, one tuple per node in preorder.

  The tuples have the format of `fast_tree.walk`: (kind, parent index, action, chance prob, depth,
  payload) with payload the returns at a terminal, None at a chance node and (key, legal actions,
  state) at a decision node.
  """
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
                max_memory: int | None, progress: bool = False,
                time_limit: float | None = None, started: float | None = None,
                expected: int | None = None) -> tuple[TreeArrays, list | None]:
  """Walks `game` depth first into level-ordered arrays.

  Args:
    game: a finite turn-based pyspiel game with explicit chance.
    shadow: walk `fast_tree`'s shadow states instead of pyspiel states (the same nodes in the
      same order; no representative states are kept).
    max_nodes: refuse games with more histories.
    max_memory: bytes the walk may add to the resident memory (None: no check).
    progress: show a tqdm bar of the walk.
    time_limit: seconds the walk may take (None: no limit).
    started: the `time.monotonic()` the time limit counts from (default: now).
    expected: the estimated number of histories (`estimate_size`), the progress bar's total
      (so that it shows the time left).

  Returns:
    The arrays, and the representative pyspiel state of every infoset (None for `shadow`).

  Raises:
    errors.SizeLimitError: past `max_nodes` histories.
    memory.TreeTooLargeError: past `max_memory`.
    memory.WalkTimeLimitError: past `time_limit`.
    errors.UserError: if two players share an infoset, or the game has simultaneous nodes.
  """
  use_infostate = uses_infostate(game)
  record = _WalkRecord(game.num_distinct_actions(), keep_states=not shadow)
  budget = memory.WalkBudget(game, max_memory, time_limit=time_limit, started=started)
  pbar = None
  if progress:
    import tqdm
    pbar = tqdm.tqdm(desc=f"walking {game}", unit=" nodes", mininterval=1.0, total=expected)
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
