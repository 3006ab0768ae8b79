"""The array game tree: a finite turn-based pyspiel game walked once into flat arrays.

Every algorithm of the package (evaluation, best responses, JPS, exploitability descent, the team
LP) works on these arrays with numpy or JAX instead of re-walking pyspiel states.
Conventions:

* Nodes are all histories (chance, decision and terminal). They are stored in **level order**:
  sorted by depth, and within a depth in depth-first discovery order, so that each depth is a
  contiguous slice `level_slices[d]`, the children of a node are contiguous, and parents of
  consecutive nodes are non-decreasing. Node 0 is the root.
* `node_parent[n]` is the parent (-1 for the root), `node_action[n]` the action that leads from
  the parent to `n`, `node_player[n]` the player to move (`CHANCE` or `TERMINAL` otherwise),
  `node_infoset[n]` the information set of a decision node (-1 otherwise), `node_chance_prob[n]`
  the chance probability of the edge into `n` (1 when the parent is not a chance node),
  `node_returns[n]` the players' returns at terminal nodes (0 elsewhere).
* Information sets are keyed exactly as OpenSpiel's `policy.TabularPolicy` keys them
  (`information_state_string(player)`, or the observation string for games without one), so a
  policy converts both ways with `policy_array` / `tabular_policy`.
* A *policy array* `pi` has shape `[num_infosets, num_actions]`: row `I` is the distribution of
  infoset `I`, zero on illegal actions.
* Sequences (for best responses and the sequence form): player p's last own (infoset, action)
  pair on the path to a node, encoded as the flat index `I * num_actions + a`, or -1 (empty).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team.tree import fast_tree
from ospiel_team.tree import game_support
from ospiel_team.tree import traversal

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)

DEFAULT_MAX_NODES = 30_000_000
BUILDERS = ("auto", "walk", "shadow", "vector")
# Share of the memory available when a walk starts that it may use (`default_max_memory`).
MEMORY_SHARE = 0.75
_MEMORY_CHECK_EVERY = 1 << 15  # histories between two memory checks of a walk


class TreeTooLargeError(MemoryError, ValueError):
  """The game's tree does not fit in the memory budget of `GameTree` (`max_memory`)."""


def _read_int(path: str) -> int | None:
  try:
    with open(path, encoding="ascii") as f:
      text = f.read().strip()
  except OSError:
    return None
  return int(text) if text.isdigit() else None


def available_memory() -> int | None:
  """Bytes this process may still allocate: the least of the machine's available memory
  (``MemAvailable`` of /proc/meminfo) and its cgroup's room (limit less usage), or None when
  neither is known."""
  room = []
  try:
    with open("/proc/meminfo", encoding="ascii") as f:
      for line in f:
        if line.startswith("MemAvailable:"):
          room.append(int(line.split()[1]) * 1024)
  except OSError:
    pass
  for limit, usage in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                       ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                        "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
    lim, use = _read_int(limit), _read_int(usage)
    if lim is not None and use is not None and lim < 1 << 60:
      room.append(max(0, lim - use))
  return min(room) if room else None


def default_max_memory() -> int | None:
  """`MEMORY_SHARE` of `available_memory()` (None when unknown: no memory check)."""
  room = available_memory()
  return None if room is None else int(MEMORY_SHARE * room)


def _resident_bytes() -> int:
  """Resident memory of this process (/proc/self/statm), 0 where unknown."""
  try:
    with open("/proc/self/statm", encoding="ascii") as f:
      return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
  except (OSError, ValueError, IndexError):
    return 0


def min_terminal_histories(game: pyspiel.Game) -> int | None:
  """How many terminal histories `game` has at least, known without walking it, or None.

  The package's games state it (their `min_terminal_histories()`, exact where the game class
  says `TERMINAL_HISTORIES_EXACT`; `game_support`). OpenSpiel's own games state nothing, so the
  sound fallback is None: no refusal before the walk, whose `max_nodes` limit then stops it.
  """
  count = game_support.lookup(game).terminal_count
  return None if count is None else int(count(game))


@dataclasses.dataclass
class PlayerSequences:
  """Sequence structure of one player (perfect recall makes its infosets a forest)."""
  infosets: np.ndarray  # infosets of the player
  infoset_parent_seq: np.ndarray  # [num_infosets] flat parent sequence or -1 (all infosets)
  infoset_levels: list  # infosets of this player grouped by own depth (0, 1, ...)
  terminal_last_seq: np.ndarray  # [num_terminals] last own flat sequence or -1


class GameTree:
  """A finite turn-based pyspiel game as flat arrays over histories and infosets."""

  def __init__(self, game: pyspiel.Game, max_nodes: int = DEFAULT_MAX_NODES,
               progress: bool = False, builder: str = "auto", max_memory: int | None = -1):
    """Walks `game` once. Raises ValueError for games the tree cannot represent.

    Args:
      game: a finite turn-based pyspiel game with explicit chance.
      max_nodes: refuse games with more histories.
      max_memory: bytes the walk may add to the process's resident memory; past them it stops
        with `TreeTooLargeError` (a MemoryError and a ValueError) instead of running the
        machine out of memory. -1 (default): `default_max_memory()`, 75% of the memory
        available when the walk starts; None: no check.
      progress: show a tqdm bar of the walk.
      builder: "walk" (the reference: pyspiel states), "shadow" (`fast_tree`: the game's own
        Python rules on plain-Python copies of its states, for games that declare
        `SHADOW_WALK`; 3-4x faster, same arrays and keys), "vector" (the game's own vector
        builder `tree_arrays()`, e.g. team_goofspiel's, level by level in numpy, no walk; same
        arrays and keys) or "auto" (vector, else shadow, where the game provides them;
        `game_support`).
    """
    if builder not in BUILDERS:
      raise ValueError(f"builder must be one of {BUILDERS}, got {builder!r}")
    game_type = game.get_type()
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
      raise ValueError(
          f"GameTree needs a turn-based game; {game} has dynamics {game_type.dynamics}. "
          "Use pyspiel.load_game_as_turn_based.")
    if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
      raise ValueError(f"GameTree needs explicit chance; {game} has sampled chance.")
    if max_nodes < 1:
      raise ValueError(f"max_nodes must be positive, got {max_nodes}")
    if max_memory == -1:
      max_memory = default_max_memory()
    elif max_memory is not None and not (isinstance(max_memory, (int, np.integer))
                                         and max_memory > 0):
      raise ValueError(f"max_memory must be a positive number of bytes, -1 or None, got "
                       f"{max_memory!r}")
    self._max_memory = max_memory
    support = game_support.lookup(game)
    bound = min_terminal_histories(game)
    if bound is not None and bound > max_nodes:
      raise ValueError(
          f"{game} has {'' if support.terminal_count_exact else 'at least '}{bound:,} terminal "
          f"histories, more than max_nodes={max_nodes:,} histories; refusing before walking "
          "(raise max_nodes if it fits in memory).")
    self.game = game
    self.num_players = game.num_players()
    self.num_actions = game.num_distinct_actions()
    self._use_infostate = game_type.provides_information_state_string
    if not self._use_infostate and not game_type.provides_observation_string:
      raise ValueError(f"{game} provides neither information-state nor observation strings.")
    # The vector builders make information-state keys.
    vector = support.vector_builder if self._use_infostate else None
    if builder == "auto":
      builder = ("vector" if vector is not None else
                 "shadow" if support.shadow_walk else "walk")
    elif builder == "shadow" and not support.shadow_walk:
      raise ValueError(f"builder='shadow' needs a game whose class declares SHADOW_WALK = True "
                       f"(game_support); {game} does not")
    elif builder == "vector" and vector is None:
      raise ValueError(f"builder='vector' needs a game whose class provides tree_arrays() and "
                       f"information-state strings (game_support); {game} does not")
    self.builder = builder
    if builder == "vector":
      self._build_vector(vector, max_nodes)
    elif builder == "shadow":
      self._build(max_nodes, progress, shadow=True)
    else:
      self._build(max_nodes, progress)
    self._derive()

  # Infoset keys and their index. The walks record them; the vector builder makes them on first
  # use (`_make_keys`), since the solvers on arrays never need them.
  _infoset_keys = None
  _infoset_index = None
  _make_keys = None

  @property
  def infoset_keys(self) -> list:
    if self._infoset_keys is None and self._make_keys is not None:
      self._infoset_keys = self._make_keys()
      self._make_keys = None
    return self._infoset_keys

  @infoset_keys.setter
  def infoset_keys(self, keys: list) -> None:
    self._infoset_keys = keys

  @property
  def infoset_index(self) -> dict:
    if self._infoset_index is None:
      self._infoset_index = {key: i for i, key in enumerate(self.infoset_keys)}
    return self._infoset_index

  @infoset_index.setter
  def infoset_index(self, index: dict) -> None:
    self._infoset_index = index

  # One pyspiel state per infoset (its first history), for policy conversion. A walked tree
  # keeps the states it met; a tree loaded from arrays (`tree.cache`) replays them on first use
  # only (the replay costs about as much as the walk, and solvers on arrays never need them).
  _infoset_states = None

  @property
  def infoset_states(self) -> list:
    if self._infoset_states is None:
      self._infoset_states = self._replay_infoset_states()
    return self._infoset_states

  @infoset_states.setter
  def infoset_states(self, states: list) -> None:
    self._infoset_states = states

  def _replay_infoset_states(self) -> list:
    """The first history of every infoset as a pyspiel state, rebuilt by replaying actions;
    raises ValueError if a replayed key differs from the stored one (stale arrays).

    The first histories are visited in depth-first order (infoset ids are numbered in the
    walk's discovery order) along one path of states, so shared prefixes are applied once:
    at most one `child` per history on the union of the paths (no more than a walk).
    """
    first = self.first_node()
    order = np.argsort(self._preorder()[first], kind="stable")
    states = [None] * len(first)
    path_nodes = [0]
    path_states = [self.game.new_initial_state()]
    for i in order.tolist():
      node = int(first[i])
      path = []
      n = node
      while n > 0:
        path.append(n)
        n = int(self.node_parent[n])
      path.append(0)
      path.reverse()
      k = 0
      while k < len(path_nodes) and k < len(path) and path_nodes[k] == path[k]:
        k += 1
      del path_nodes[k:], path_states[k:]
      for m in path[k:]:
        path_states.append(path_states[-1].child(int(self.node_action[m])))
        path_nodes.append(m)
      state = path_states[-1]
      key = self._key(state, int(self.infoset_player[i]))
      if key != self.infoset_keys[i]:
        raise ValueError(f"cached tree of {self.game} is stale: infoset {i} replays to {key!r}, "
                         f"stored {self.infoset_keys[i]!r}")
      states[i] = state
    return states

  def _preorder(self) -> np.ndarray:
    """[num_nodes] each history's index in the depth-first preorder of the walk."""
    return traversal.preorder_and_size(self.node_parent, self.level_slices)[0]

  # ------------------------------------------------------------------------------------------
  # Building (the one Python walk over pyspiel states).
  def _key(self, state, player):
    if self._use_infostate:
      return state.information_state_string(player)
    return state.observation_string(player)

  def _walk_pyspiel(self):
    """Depth-first walk of the pyspiel states, one tuple per node in preorder, in the format of
    `fast_tree.walk`: (kind, parent index, action, chance prob, depth, payload) with payload the
    returns at a terminal, None at a chance node and (key, legal actions, state) at a decision
    node."""
    stack = [(self.game.new_initial_state(), -1, -1, 1.0, 0)]
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
        raise ValueError(f"{self.game} has simultaneous nodes; use load_game_as_turn_based.")
      else:
        player = state.current_player()
        legal = state.legal_actions()
        yield player, parent, action, prob, depth, (self._key(state, player), legal, state)
        for a in reversed(legal):
          stack.append((state.child(a), n, a, 1.0, depth + 1))
      n += 1

  def _build(self, max_nodes, progress, shadow: bool = False):
    """Records a walk: the pyspiel walk (keeping one representative state per infoset), or with
    `shadow` `fast_tree`'s walk on shadow states (the same nodes in the same order; the
    representative pyspiel states are then replayed on first use, `infoset_states`)."""
    parents, actions, players, depths, infosets, chance_probs = [], [], [], [], [], []
    returns_idx, returns_val = [], []
    infoset_ids: dict = {}
    infoset_player, infoset_legal = [], []
    pbar = self._progress_bar(progress)
    num_actions = self.num_actions
    n = -1
    states = []
    nodes = (fast_tree.walk(self.game, self._use_infostate) if shadow else
             self._walk_pyspiel())
    rss0 = _resident_bytes()
    for n, (kind, parent, action, prob, depth, payload) in enumerate(nodes):
      if n >= max_nodes:
        raise self._too_many_nodes(max_nodes)
      if n % _MEMORY_CHECK_EVERY == 0 and self._max_memory is not None and n:
        used = _resident_bytes() - rss0
        if used > self._max_memory:
          raise self._too_much_memory(n, used)
      parents.append(parent)
      actions.append(action)
      depths.append(depth)
      chance_probs.append(prob)
      players.append(kind)
      if pbar is not None and n % 10000 == 0:
        pbar.update(10000 if n else 0)
      if kind == TERMINAL:
        infosets.append(-1)
        returns_idx.append(n)
        returns_val.append(payload)
      elif kind == CHANCE:
        infosets.append(-1)
      else:
        key, legal = payload[0], payload[1]
        info = infoset_ids.get(key)
        if info is None:
          info = len(infoset_player)
          infoset_ids[key] = info
          infoset_player.append(kind)
          mask = np.zeros(num_actions, dtype=bool)
          mask[legal] = True
          infoset_legal.append(mask)
          if not shadow:
            states.append(payload[2])
        elif infoset_player[info] != kind:
          raise ValueError(f"infoset {key!r} is shared by players {infoset_player[info]} and "
                           f"{kind}")
        infosets.append(info)
    if pbar is not None:
      pbar.close()
    if shadow:
      self._infoset_states = None  # replayed on first use
    else:
      self.infoset_states = states
    self._finish_build(parents, actions, players, depths, infosets, chance_probs, returns_idx,
                       returns_val, infoset_ids, infoset_player, infoset_legal)

  def _build_vector(self, vector_builder, max_nodes):
    """The level-ordered arrays of the game's vector builder (no walk): `node_parent`,
    `node_action`, `node_player`, `node_depth`, `node_infoset`, `node_chance_prob`,
    `node_returns`, `infoset_player`, `infoset_legal` as a walk leaves them, and `infoset_keys`,
    a function returning the key list (in infoset-id order, the walk's order of discovery),
    called on first use. The representative pyspiel states are replayed on first use, as for
    the shadow walk."""
    arrays = vector_builder(self.game)
    if len(arrays["node_parent"]) > max_nodes:
      raise self._too_many_nodes(max_nodes)
    make_keys = arrays.pop("infoset_keys")
    for name, value in arrays.items():
      setattr(self, name, value)
    self.num_nodes = len(self.node_parent)
    self.num_infosets = len(self.infoset_player)
    self._make_keys = make_keys  # the key strings are made on first use (`infoset_keys`)
    self._infoset_states = None

  def _progress_bar(self, progress: bool):
    if not progress:
      return None
    import tqdm
    return tqdm.tqdm(desc=f"walking {self.game}", unit=" nodes", mininterval=1.0)

  def _too_much_memory(self, walked: int, used: int) -> TreeTooLargeError:
    # Every history costs as much as the walked ones did: the finished tree needs at least
    # `used` and, by the game's own count of its terminal histories where it states one,
    # (that count) * (bytes per walked history).
    bound = min_terminal_histories(self.game)
    need = max(used, (bound or 0) * used // max(walked, 1))
    return TreeTooLargeError(
        f"{self.game} does not fit in max_memory={self._max_memory:,} bytes: its first "
        f"{walked:,} histories took {used:,} bytes ({used / walked:,.0f} per history) and the "
        f"walk was not finished, so the tree needs more than {need:,} bytes; pass a larger "
        "max_memory if the machine has it")

  def _too_many_nodes(self, max_nodes: int) -> ValueError:
    return ValueError(f"{self.game} has more than max_nodes={max_nodes} histories; raise "
                      "max_nodes if it fits in memory.")

  def _finish_build(self, parents, actions, players, depths, infosets, chance_probs,
                    returns_idx, returns_val, infoset_ids, infoset_player, infoset_legal):
    """The node and infoset arrays in level order from the depth-first lists of a walk."""
    num_actions = self.num_actions
    depth = np.asarray(depths, dtype=np.int32)
    # Level order: stable sort of the depth-first preorder by depth.
    order = np.argsort(depth, kind="stable")
    new_index = np.empty_like(order)
    new_index[order] = np.arange(len(order))
    parent = np.asarray(parents, dtype=np.int64)[order]
    parent = np.where(parent >= 0, new_index[np.maximum(parent, 0)], -1)
    self.num_nodes = len(order)
    self.node_parent = parent.astype(np.int64)
    self.node_action = np.asarray(actions, dtype=np.int64)[order]
    self.node_player = np.asarray(players, dtype=np.int64)[order]
    self.node_depth = depth[order]
    self.node_infoset = np.asarray(infosets, dtype=np.int64)[order]
    self.node_chance_prob = np.asarray(chance_probs, dtype=np.float64)[order]
    returns = np.zeros((self.num_nodes, self.num_players))
    if returns_idx:
      returns[new_index[np.asarray(returns_idx)]] = np.asarray(returns_val, dtype=np.float64)
    self.node_returns = returns
    self.infoset_keys = list(infoset_ids.keys())
    self.infoset_index = infoset_ids
    self.infoset_player = np.asarray(infoset_player, dtype=np.int64)
    self.infoset_legal = (np.asarray(infoset_legal, dtype=bool) if infoset_legal
                          else np.zeros((0, num_actions), dtype=bool))
    self.num_infosets = len(self.infoset_keys)

  def _derive(self):
    """Index arrays that the vectorized algorithms use."""
    n, a_count = self.num_nodes, self.num_actions
    max_depth = int(self.node_depth.max()) if n else 0
    starts = np.searchsorted(self.node_depth, np.arange(max_depth + 2))
    self.level_slices = [(int(starts[d]), int(starts[d + 1])) for d in range(max_depth + 1)]
    self.terminals = np.nonzero(self.node_player == TERMINAL)[0]
    self.decisions = np.nonzero(self.node_player >= 0)[0]
    parent_player = np.where(self.node_parent >= 0,
                             self.node_player[np.maximum(self.node_parent, 0)], CHANCE)
    parent_player[0] = CHANCE
    # Owner of the edge into each node: the parent's player, or chance (column num_players).
    self.node_owner = np.where(parent_player >= 0, parent_player, self.num_players)
    self.node_owner[0] = self.num_players
    self.decision_children = np.nonzero(parent_player >= 0)[0]
    dc_parent = self.node_parent[self.decision_children]
    self.node_parent_infoset = np.full(n, -1, dtype=np.int64)
    self.node_parent_infoset[self.decision_children] = self.node_infoset[dc_parent]
    # Flat (infoset, action) index of the edge into each decision child.
    self.decision_children_flat = (self.node_infoset[dc_parent] * a_count +
                                   self.node_action[self.decision_children])
    # Each player's last own sequence on the path to every node (level by level).
    last_seq = np.full((n, self.num_players), -1, dtype=np.int64)
    for s, e in self.level_slices[1:]:
      par = self.node_parent[s:e]
      rows = last_seq[par]
      owner = self.node_owner[s:e]
      own = owner < self.num_players
      idx = np.nonzero(own)[0]
      rows[idx, owner[idx]] = (self.node_infoset[par[idx]] * a_count + self.node_action[s + idx])
      last_seq[s:e] = rows
    self.node_last_seq = last_seq
    self.sequences = []
    for p in range(self.num_players):
      infosets = np.nonzero(self.infoset_player == p)[0]
      parent_seq = np.full(self.num_infosets, -1, dtype=np.int64)
      dec_p = self.decisions[self.node_player[self.decisions] == p]
      parent_seq[self.node_infoset[dec_p]] = last_seq[dec_p, p]
      # Perfect recall: every history of an infoset has the same own parent sequence.
      if not np.array_equal(parent_seq[self.node_infoset[dec_p]], last_seq[dec_p, p]):
        raise ValueError(f"{self.game} violates perfect recall for player {p}")
      level = np.zeros(self.num_infosets, dtype=np.int64)
      # Own depth = own depth of the parent infoset + 1, computed in node level order.
      order = infosets[np.argsort(self.node_depth[self.first_node(infosets)], kind="stable")]
      for i in order:
        ps = parent_seq[i]
        level[i] = 0 if ps < 0 else level[ps // a_count] + 1
      levels = []
      if len(infosets):
        for k in range(int(level[infosets].max()) + 1):
          levels.append(infosets[level[infosets] == k])
      self.sequences.append(PlayerSequences(
          infosets=infosets, infoset_parent_seq=parent_seq, infoset_levels=levels,
          terminal_last_seq=last_seq[self.terminals, p]))

  def first_node(self, infosets: np.ndarray | None = None) -> np.ndarray:
    """The first (lowest-index) history of each infoset in `infosets` (default: all)."""
    first = np.full(self.num_infosets, -1, dtype=np.int64)
    dec = self.decisions[::-1]
    first[self.node_infoset[dec]] = dec
    return first if infosets is None else first[infosets]

  def chance_reach(self) -> np.ndarray:
    """[num_nodes] product of the chance probabilities on the path to each history (cached)."""
    if getattr(self, "_chance_reach", None) is None:
      chance = np.ones(self.num_nodes)
      for s, e in self.level_slices[1:]:
        chance[s:e] = chance[self.node_parent[s:e]] * self.node_chance_prob[s:e]
      self._chance_reach = chance
    return self._chance_reach

  def purified_policy_array(self, pi: np.ndarray) -> np.ndarray:
    """The argmax (first maximal legal action) pure policy of the policy array `pi`."""
    masked = np.where(self.infoset_legal, np.asarray(pi), -np.inf)
    out = np.zeros((self.num_infosets, self.num_actions))
    out[np.arange(self.num_infosets), np.argmax(masked, axis=1)] = 1.0
    return out

  # ------------------------------------------------------------------------------------------
  # Conversions to and from OpenSpiel policies.
  def uniform_policy_array(self) -> np.ndarray:
    """The uniform random policy as a policy array."""
    legal = self.infoset_legal.astype(np.float64)
    return legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)

  def policy_array(self, pol: policy_lib.Policy) -> np.ndarray:
    """Policy array of any OpenSpiel policy (TabularPolicy rows are read directly)."""
    pi = np.zeros((self.num_infosets, self.num_actions))
    self._check_policy_game(pol)
    if isinstance(pol, policy_lib.TabularPolicy):
      rows = np.asarray([pol.state_lookup.get(k, -1) for k in self.infoset_keys],
                        dtype=np.int64)
      missing = np.nonzero(rows < 0)[0]
      if len(missing):
        raise ValueError(f"TabularPolicy has no row for infoset {self.infoset_keys[missing[0]]!r}"
                         f" of {self.game}")
      pi[:] = pol.action_probability_array[rows]
    else:
      for i, state in enumerate(self.infoset_states):
        for a, p in pol.action_probabilities(state).items():
          pi[i, a] = p
    return pi

  def _check_policy_game(self, pol) -> None:
    """Raises ValueError if `pol` states that it belongs to another game than the tree's."""
    game = getattr(pol, "game", None)
    if game is None or game is self.game:
      return
    if (game.get_type().short_name, game.get_parameters()) != (
        self.game.get_type().short_name, self.game.get_parameters()):
      raise ValueError(f"the policy belongs to {game}, but this tree is {self.game}")
    if isinstance(pol, policy_lib.TabularPolicy) and \
        pol.action_probability_array.shape[1] != self.num_actions:
      raise ValueError(f"the policy has {pol.action_probability_array.shape[1]} actions per "
                       f"infoset; {self.game} has {self.num_actions}")

  def tabular_policy(self, pi: np.ndarray,
                     template: policy_lib.TabularPolicy | None = None
                     ) -> policy_lib.TabularPolicy:
    """A TabularPolicy holding the policy array `pi` (rows matched by infoset key).

    `pi` must be a policy array (`validate_policy_array`: shape, finite, non-negative, legal,
    rows summing to 1); otherwise ValueError naming the first bad infoset.

    With no `template`, the TabularPolicy is built from the tree's own representative states,
    without a second walk of the game.
    """
    self.validate_policy_array(pi)
    pi = np.asarray(pi, dtype=np.float64)
    if template is None:
      template = self._template()
    else:
      self._check_policy_game(template)
    result = template.__copy__(copy_action_probability_array=True)
    rows = np.asarray([result.state_lookup[k] for k in self.infoset_keys], dtype=np.int64)
    result.action_probability_array[rows] = pi
    return result

  def _template(self) -> policy_lib.TabularPolicy:
    if getattr(self, "_template_policy", None) is None:
      states = {s.history_str(): s for s in self.infoset_states}
      self._template_policy = policy_lib.TabularPolicy(self.game, states=states)
    return self._template_policy

  def infoset_tensors(self) -> np.ndarray:
    """[num_infosets, size] float32 information-state tensors of the infosets, in tree order.

    Observation tensors for games without information-state tensors (whose infosets the
    tree keys by observation strings). Computed once and cached.
    """
    if getattr(self, "_infoset_tensors", None) is None:
      game_type = self.game.get_type()
      if game_type.provides_information_state_tensor:
        rows = [s.information_state_tensor(int(p))
                for s, p in zip(self.infoset_states, self.infoset_player, strict=True)]
      elif game_type.provides_observation_tensor:
        rows = [s.observation_tensor(int(p))
                for s, p in zip(self.infoset_states, self.infoset_player, strict=True)]
      else:
        raise ValueError(f"{self.game} provides neither information-state nor observation "
                         "tensors")
      self._infoset_tensors = np.asarray(rows, dtype=np.float32)
    return self._infoset_tensors

  def _describe_infoset(self, i: int) -> str:
    return (f"infoset {i} (player {int(self.infoset_player[i])}, "
            f"{self.infoset_keys[i]!r})")

  def validate_policy_array(self, pi: np.ndarray, atol: float = 1e-6) -> None:
    """Raises ValueError unless `pi` is a distribution over legal actions at every infoset.

    Checks, in this order: the shape `[num_infosets, num_actions]` (a transposed array or one
    with too few rows is named as such), finite entries, no negative entry, no probability on
    an illegal action and rows summing to 1. The message names the problem and the first bad
    infoset (its index, player and key).

    Args:
      pi: the policy array to check.
      atol: absolute tolerance of the sum and sign checks.
    """
    try:
      arr = np.asarray(pi, dtype=np.float64)
    except (TypeError, ValueError) as e:
      raise ValueError(f"policy array is not numeric: {e}") from None
    expected = (self.num_infosets, self.num_actions)
    if arr.shape != expected:
      hint = ""
      if arr.shape == expected[::-1]:
        hint = " (transposed? rows are infosets, columns actions)"
      elif arr.ndim == 2 and arr.shape[1] == self.num_actions and arr.shape[0] < expected[0]:
        hint = f" (too few rows: {self.game} has {self.num_infosets} infosets)"
      elif arr.ndim == 2 and arr.shape[1] == self.num_actions:
        hint = f" (too many rows: {self.game} has {self.num_infosets} infosets)"
      elif arr.ndim == 2:
        hint = f" ({self.game} has {self.num_actions} distinct actions)"
      raise ValueError(f"policy array has shape {arr.shape}, expected {expected} "
                       f"[num_infosets, num_actions] for {self.game}{hint}")
    bad = ~np.isfinite(arr)
    if bad.any():
      i, a = (int(x) for x in np.argwhere(bad)[0])
      raise ValueError(f"policy array is not finite ({arr[i, a]}) at action {a} of "
                       f"{self._describe_infoset(i)}")
    bad = arr < -atol
    if bad.any():
      i, a = (int(x) for x in np.argwhere(bad)[0])
      raise ValueError(f"policy array has a negative probability {arr[i, a]} at action {a} of "
                       f"{self._describe_infoset(i)}")
    bad = (np.abs(arr) > atol) & ~self.infoset_legal
    if bad.any():
      i, a = (int(x) for x in np.argwhere(bad)[0])
      raise ValueError(f"policy array puts probability {arr[i, a]} on illegal action {a} of "
                       f"{self._describe_infoset(i)}")
    sums = arr.sum(axis=1)
    bad = np.nonzero(np.abs(sums - 1.0) > atol)[0]
    if len(bad):
      i = int(bad[0])
      raise ValueError(f"policy array row does not sum to 1 (sums to {sums[i]}) at "
                       f"{self._describe_infoset(i)}")

  def __repr__(self):
    return (f"GameTree({self.game}: {self.num_nodes} histories, {len(self.terminals)} terminal, "
            f"{self.num_infosets} infosets)")
