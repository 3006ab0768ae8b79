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
  `node_returns[n]` the players' returns at terminal nodes (0 elsewhere). These arrays are the
  frozen schema `arrays.TreeArrays` (`GameTree.arrays`), read-only.
* Information sets are keyed exactly as OpenSpiel's `policy.TabularPolicy` keys them
  (`information_state_string(player)`, or the observation string for games without one), so a
  policy converts both ways with `policy_array` / `tabular_policy`.
* A *policy array* `pi` has shape `[num_infosets, num_actions]`: row `I` is the distribution of
  infoset `I`, zero on illegal actions.
* Sequences (for best responses and the sequence form): player p's last own (infoset, action)
  pair on the path to a node, encoded as the flat index `I * num_actions + a`, or -1 (empty).

A `GameTree` is immutable: it is made from its arrays (`GameTree.from_arrays`; `GameTree(game)`
builds them first, `builders`), every derived array is computed once on first use, and setting
an attribute raises `AttributeError`. Algorithms keep their own caches keyed by the tree.
"""

from __future__ import annotations

import dataclasses
import functools
import time

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.tree import builders
from ospiel_team.tree import memory
from ospiel_team.tree import traversal
from ospiel_team.tree.arrays import CHANCE
from ospiel_team.tree.arrays import TERMINAL
from ospiel_team.tree.arrays import TreeArrays

__all__ = ["CHANCE", "TERMINAL", "GameTree", "PlayerSequences"]


def _read_only(a: np.ndarray) -> np.ndarray:
  a.flags.writeable = False
  return a


@dataclasses.dataclass(frozen=True)
class PlayerSequences:
  """Sequence structure of one player (perfect recall makes its infosets a forest).

  Attributes:
    infosets: the infosets of the player.
    infoset_parent_seq: [num_infosets] the flat parent sequence of every infoset of the
      player, -1 for its root infosets and for other players' infosets.
    infoset_levels: the player's infosets grouped by own depth (0, 1, ...).
    terminal_last_seq: [num_terminals] the player's last own flat sequence at every terminal,
      or -1.
  """
  infosets: np.ndarray
  infoset_parent_seq: np.ndarray
  infoset_levels: tuple[np.ndarray, ...]
  terminal_last_seq: np.ndarray


class _TreeAttributes:
  """The attributes `GameTree._setup` sets (the one place, for both constructors), declared.

  For type checkers only: a `GameTree` sets them once and never again.
  """
  game: pyspiel.Game
  arrays: TreeArrays
  builder: str
  num_players: int
  num_actions: int
  num_nodes: int
  num_infosets: int
  _walked_states: list | None


class GameTree(_TreeAttributes):
  """A finite turn-based pyspiel game as flat arrays over histories and infosets.

  Attributes:
    game: the pyspiel game.
    arrays: its `TreeArrays` (each array is also an attribute: `tree.node_parent`, ...).
    builder: how the arrays were made: "walk", "shadow", "vector" (`builders`), "cache"
      (`tree.cache`) or "arrays" (given to `from_arrays`).
    num_players, num_actions, num_nodes, num_infosets: the sizes.
  """

  _FROZEN_MESSAGE = ("GameTree is immutable: its arrays are fixed when it is made "
                     "(GameTree.from_arrays); keep caches outside it, keyed by the tree")

  def __init__(self, game: pyspiel.Game, *, max_nodes: int = builders.DEFAULT_MAX_NODES,
               progress: bool = False, builder: str = "auto",
               max_memory: int | float | None = -1, time_limit: float | None = None):
    """Builds the arrays of `game` (`builders`), then the tree from them (`from_arrays`).

    Args:
      game: a finite turn-based pyspiel game with explicit chance.
      max_nodes: refuse games with more histories.
      progress: show a tqdm bar of the walk (its total: the estimated number of histories,
        `builders.estimate_size`).
      builder: "walk" (the reference: pyspiel states), "shadow" (`fast_tree`: the game's own
        Python rules on plain-Python copies of its states, for games that declare
        `SHADOW_WALK`; 3-4x faster, same arrays and keys), "vector" (the game's own vector
        builder `tree_arrays()`, e.g. team_goofspiel's, level by level in numpy, no walk; same
        arrays and keys) or "auto" (vector, else shadow, where the game provides them;
        `game_support`).
      max_memory: bytes the tree may take while it is built: an integer >= 1, or a float holding
        a whole number (``1.5e9``); -1 (default): `memory.default_max_memory()`, 75% of the
        memory available when the walk starts; None: no limit. A game that has more histories
        than fit (`builders.estimate_size`: the game's own count, else random playouts; at
        least `memory.BYTES_PER_HISTORY` bytes each) is refused before its walk; a walk that
        passes the budget anyway stops with `memory.TreeTooLargeError` instead of running the
        machine out of memory.
      time_limit: seconds the build may take (None: no limit): a walk estimated at more is
        refused before it starts, and a walk past it stops (`memory.WalkTimeLimitError`, a
        `TimeoutError`).

    Raises:
      errors.UserError: for a bad argument or a game the tree cannot represent.
      errors.SizeLimitError: for a game past `max_nodes`, or past `max_memory`
        (`memory.TreeTooLargeError`).
      memory.WalkTimeLimitError: a walk past `time_limit`, or estimated past it.
    """
    checks.check_game("game", game)
    progress = checks.check_bool("progress", progress)
    started = time.monotonic()
    builder = builders.choose(game, builder)
    max_memory = memory.resolve_max_memory(max_memory)
    time_limit = checks.check_real("time_limit", time_limit, minimum=0, allow_none=True)
    size = builders.check_size(game, max_nodes, max_memory=max_memory, time_limit=time_limit,
                               builder=builder)
    states = None
    if builder == "vector":
      arrays = builders.vector_arrays(game, max_nodes)
    else:
      arrays, states = builders.walk_arrays(game, shadow=builder == "shadow",
                                            max_nodes=max_nodes, max_memory=max_memory,
                                            progress=progress, time_limit=time_limit,
                                            started=started,
                                            expected=size.histories if size else None)
    self._setup(game, arrays, builder, states)

  @classmethod
  def from_arrays(cls, game: pyspiel.Game, arrays: TreeArrays, *,
                  infoset_states: list | None = None, builder: str = "arrays") -> GameTree:
    """The tree of `game` with the given arrays (no walk).

    Args:
      game: the game the arrays were built from.
      arrays: its `TreeArrays` (already checked on their construction).
      infoset_states: the representative pyspiel state of every infoset, where known; else
        they are replayed from the arrays on first use (`infoset_states`).
      builder: how the arrays were made (kept as `builder`).

    Returns:
      A `GameTree` holding `arrays`.

    Raises:
      errors.UserError: if the arrays do not fit the game (players, actions, keys kind) or
        violate perfect recall.
    """
    tree = cls.__new__(cls)
    cls._setup(tree, game, arrays, builder, infoset_states)
    return tree

  def _setup(self, game, arrays, builder, infoset_states) -> None:
    """The one place a tree's attributes are set (both constructors end here)."""
    if not isinstance(arrays, TreeArrays):
      raise errors.UserError(f"arrays must be TreeArrays, got {type(arrays).__name__}")
    if (arrays.num_players, arrays.num_actions) != (game.num_players(),
                                                    game.num_distinct_actions()):
      raise errors.UserError(
          f"the arrays have {arrays.num_players} players and {arrays.num_actions} actions; "
          f"{game} has {game.num_players()} and {game.num_distinct_actions()}")
    if infoset_states is not None and len(infoset_states) != arrays.num_infosets:
      raise errors.UserError(f"{len(infoset_states)} infoset states for "
                             f"{arrays.num_infosets} infosets")
    builders.uses_infostate(game)  # a game the tree can represent
    own = object.__setattr__
    own(self, "game", game)
    own(self, "arrays", arrays)
    own(self, "builder", builder)
    own(self, "num_players", arrays.num_players)
    own(self, "num_actions", arrays.num_actions)
    own(self, "num_nodes", arrays.num_nodes)
    own(self, "num_infosets", arrays.num_infosets)
    own(self, "_walked_states", None if infoset_states is None else list(infoset_states))
    self.sequences  # noqa: B018 (checks perfect recall now, as a build should)

  def __setattr__(self, name, value):
    raise AttributeError(f"cannot set {name!r}: {self._FROZEN_MESSAGE}")

  def __delattr__(self, name):
    raise AttributeError(f"cannot delete {name!r}: {self._FROZEN_MESSAGE}")

  # ------------------------------------------------------------------------------------------
  # The arrays (`TreeArrays`), read-only.
  node_parent = property(lambda self: self.arrays.node_parent)
  node_action = property(lambda self: self.arrays.node_action)
  node_player = property(lambda self: self.arrays.node_player)
  node_depth = property(lambda self: self.arrays.node_depth)
  node_infoset = property(lambda self: self.arrays.node_infoset)
  node_chance_prob = property(lambda self: self.arrays.node_chance_prob)
  node_returns = property(lambda self: self.arrays.node_returns)
  infoset_player = property(lambda self: self.arrays.infoset_player)
  infoset_legal = property(lambda self: self.arrays.infoset_legal)
  infoset_keys = property(lambda self: self.arrays.infoset_keys,
                          doc="The infosets' keys in infoset-id order (`TreeArrays`).")

  @functools.cached_property
  def infoset_index(self) -> dict[str, int]:
    """The infoset id of every key."""
    return {key: i for i, key in enumerate(self.infoset_keys)}

  @functools.cached_property
  def infoset_states(self) -> list:
    """One pyspiel state per infoset (its first history), for policy conversion.

    A tree walked through pyspiel keeps the states it met; any other tree replays them on
    first use (`builders.replay_infoset_states`: about the cost of a walk, which solvers on
    arrays never pay).
    """
    if self._walked_states is not None:
      return self._walked_states
    return builders.replay_infoset_states(self.game, self.arrays, self.first_node(),
                                          self.preorder)

  # ------------------------------------------------------------------------------------------
  # Derived index arrays, each computed once on first use.
  @functools.cached_property
  def preorder(self) -> np.ndarray:
    """[num_nodes] each history's index in the depth-first preorder of the walk."""
    pre = traversal.preorder_and_size(self.node_parent, self.level_slices)[0]
    return _read_only(pre)

  @functools.cached_property
  def level_slices(self) -> tuple[tuple[int, int], ...]:
    """(start, end) of the histories of every depth, the root's first."""
    max_depth = int(self.node_depth.max())
    starts = np.searchsorted(self.node_depth, np.arange(max_depth + 2))
    return tuple((int(starts[d]), int(starts[d + 1])) for d in range(max_depth + 1))

  @functools.cached_property
  def terminals(self) -> np.ndarray:
    """The terminal histories."""
    return _read_only(np.nonzero(self.node_player == TERMINAL)[0])

  @functools.cached_property
  def decisions(self) -> np.ndarray:
    """The decision histories."""
    return _read_only(np.nonzero(self.node_player >= 0)[0])

  @functools.cached_property
  def _parent_player(self) -> np.ndarray:
    parent_player = np.where(self.node_parent >= 0,
                             self.node_player[np.maximum(self.node_parent, 0)], CHANCE)
    parent_player[0] = CHANCE
    return parent_player

  @functools.cached_property
  def node_owner(self) -> np.ndarray:
    """[num_nodes] who chooses the edge into each history.

    The parent's player, or `num_players` for chance (and the root).
    """
    owner = np.where(self._parent_player >= 0, self._parent_player, self.num_players)
    owner[0] = self.num_players
    return _read_only(owner)

  @functools.cached_property
  def decision_children(self) -> np.ndarray:
    """The histories whose parent is a decision history."""
    return _read_only(np.nonzero(self._parent_player >= 0)[0])

  @functools.cached_property
  def node_parent_infoset(self) -> np.ndarray:
    """[num_nodes] the infoset of each history's parent, -1 below chance and at the root."""
    out = np.full(self.num_nodes, -1, dtype=np.int64)
    out[self.decision_children] = self.node_infoset[self.node_parent[self.decision_children]]
    return _read_only(out)

  @functools.cached_property
  def decision_children_flat(self) -> np.ndarray:
    """Flat (infoset, action) index of the edge into each of `decision_children`."""
    dc = self.decision_children
    return _read_only(self.node_infoset[self.node_parent[dc]] * self.num_actions +
                      self.node_action[dc])

  @functools.cached_property
  def node_last_seq(self) -> np.ndarray:
    """[num_nodes, num_players] each player's last own flat sequence on the path, or -1."""
    a_count = self.num_actions
    last_seq = np.full((self.num_nodes, self.num_players), -1, dtype=np.int64)
    for s, e in self.level_slices[1:]:
      par = self.node_parent[s:e]
      rows = last_seq[par]
      owner = self.node_owner[s:e]
      idx = np.nonzero(owner < self.num_players)[0]
      rows[idx, owner[idx]] = (self.node_infoset[par[idx]] * a_count + self.node_action[s + idx])
      last_seq[s:e] = rows
    return _read_only(last_seq)

  @functools.cached_property
  def sequences(self) -> tuple[PlayerSequences, ...]:
    """Every player's `PlayerSequences`.

    Raises:
      errors.ImperfectRecallError: if the game violates perfect recall.
    """
    return tuple(self._player_sequences(p) for p in range(self.num_players))

  def _player_sequences(self, p: int) -> PlayerSequences:
    a_count, last_seq = self.num_actions, self.node_last_seq
    infosets = np.nonzero(self.infoset_player == p)[0]
    parent_seq = np.full(self.num_infosets, -1, dtype=np.int64)
    dec_p = self.decisions[self.node_player[self.decisions] == p]
    parent_seq[self.node_infoset[dec_p]] = last_seq[dec_p, p]
    # Perfect recall: every history of an infoset has the same own parent sequence.
    if not np.array_equal(parent_seq[self.node_infoset[dec_p]], last_seq[dec_p, p]):
      raise errors.ImperfectRecallError(f"{self.game} violates perfect recall for player {p}")
    level = np.zeros(self.num_infosets, dtype=np.int64)
    # Own depth = own depth of the parent infoset + 1, computed in node level order.
    order = infosets[np.argsort(self.node_depth[self.first_node(infosets)], kind="stable")]
    for i in order:
      ps = parent_seq[i]
      level[i] = 0 if ps < 0 else level[ps // a_count] + 1
    levels = []
    if len(infosets):
      for k in range(int(level[infosets].max()) + 1):
        levels.append(_read_only(infosets[level[infosets] == k]))
    return PlayerSequences(
        infosets=_read_only(infosets), infoset_parent_seq=_read_only(parent_seq),
        infoset_levels=tuple(levels),
        terminal_last_seq=_read_only(last_seq[self.terminals, p]))

  @functools.cached_property
  def _first_node(self) -> np.ndarray:
    first = np.full(self.num_infosets, -1, dtype=np.int64)
    dec = self.decisions[::-1]
    first[self.node_infoset[dec]] = dec
    return _read_only(first)

  def first_node(self, infosets: np.ndarray | None = None) -> np.ndarray:
    """The first (lowest-index) history of each infoset in `infosets` (default: all).

    Args:
      infosets: infoset indices (None: every infoset).

    Returns:
      The node index of the first history of each infoset asked for.
    """
    return self._first_node if infosets is None else self._first_node[infosets]

  @functools.cached_property
  def _chance_reach(self) -> np.ndarray:
    chance = np.ones(self.num_nodes)
    for s, e in self.level_slices[1:]:
      chance[s:e] = chance[self.node_parent[s:e]] * self.node_chance_prob[s:e]
    return _read_only(chance)

  def chance_reach(self) -> np.ndarray:
    """[num_nodes] product of the chance probabilities on the path to each history.

    Returns:
      [num_nodes] float64 chance reach of every history.
    """
    return self._chance_reach

  def purified_policy_array(self, pi: np.ndarray) -> np.ndarray:
    """The argmax (first maximal legal action) pure policy of the policy array `pi`.

    Args:
      pi: [num_infosets, num_actions] scores or probabilities (illegal actions are never chosen).

    Returns:
      [num_infosets, num_actions] float64, one-hot at each infoset's first maximal legal action.
    """
    masked = np.where(self.infoset_legal, np.asarray(pi), -np.inf)
    out = np.zeros((self.num_infosets, self.num_actions))
    out[np.arange(self.num_infosets), np.argmax(masked, axis=1)] = 1.0
    return out

  # ------------------------------------------------------------------------------------------
  # Conversions to and from OpenSpiel policies.
  def uniform_policy_array(self) -> np.ndarray:
    """The uniform random policy as a policy array.

    Returns:
      [num_infosets, num_actions] float64, uniform over each infoset's legal actions.
    """
    legal = self.infoset_legal.astype(np.float64)
    return legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)

  def policy_array(self, pol: policy_lib.Policy) -> np.ndarray:
    """Policy array of any OpenSpiel policy (TabularPolicy rows are read directly).

    Args:
      pol: an OpenSpiel `Policy` of the tree's game.

    Returns:
      [num_infosets, num_actions] float64, `pol`'s action probabilities at every infoset (0 for
        actions it does not name).

    Raises:
      errors.UserError: `pol` is not an OpenSpiel `Policy`, belongs to another game, or has no
        row for an infoset of the tree.
    """
    checks.check_type("pol", pol, policy_lib.Policy, "an OpenSpiel Policy")
    pi = np.zeros((self.num_infosets, self.num_actions))
    self._check_policy_game(pol)
    if isinstance(pol, policy_lib.TabularPolicy):
      rows = np.asarray([pol.state_lookup.get(k, -1) for k in self.infoset_keys],
                        dtype=np.int64)
      missing = np.nonzero(rows < 0)[0]
      if len(missing):
        raise errors.UserError(f"TabularPolicy has no row for infoset "
                               f"{self.infoset_keys[missing[0]]!r} of {self.game}")
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
      raise errors.UserError(f"the policy belongs to {game}, but this tree is {self.game}")
    if isinstance(pol, policy_lib.TabularPolicy) and \
        pol.action_probability_array.shape[1] != self.num_actions:
      raise errors.UserError(f"the policy has {pol.action_probability_array.shape[1]} actions per "
                             f"infoset; {self.game} has {self.num_actions}")

  def tabular_policy(self, pi: np.ndarray,
                     template: policy_lib.TabularPolicy | None = None
                     ) -> policy_lib.TabularPolicy:
    """A TabularPolicy holding the policy array `pi` (rows matched by infoset key).

    `pi` must be a policy array (`validate_policy_array`: shape, finite, non-negative, legal,
    rows summing to 1); otherwise ValueError naming the first bad infoset.

    With no `template`, the TabularPolicy is built from the tree's own representative states,
    without a second walk of the game.

    Args:
      pi: the policy array.
      template: a TabularPolicy of the same game whose rows are copied and overwritten (None: one
        built from the tree's representative states).

    Returns:
      A new TabularPolicy whose rows at the tree's infosets are `pi`.
    """
    self.validate_policy_array(pi)
    pi = np.asarray(pi, dtype=np.float64)
    if template is None:
      template = self._template
    else:
      self._check_policy_game(template)
    result = template.__copy__(copy_action_probability_array=True)
    rows = np.asarray([result.state_lookup[k] for k in self.infoset_keys], dtype=np.int64)
    result.action_probability_array[rows] = pi
    return result

  @functools.cached_property
  def _template(self) -> policy_lib.TabularPolicy:
    """A TabularPolicy over the tree's representative states (made once; only copied)."""
    states = {s.history_str(): s for s in self.infoset_states}
    return policy_lib.TabularPolicy(self.game, states=states)

  def infoset_tensors(self) -> np.ndarray:
    """[num_infosets, size] float32 information-state tensors of the infosets, in tree order.

    Observation tensors for games without information-state tensors (whose infosets the
    tree keys by observation strings). Computed once and cached.

    Returns:
      [num_infosets, size] float32, one row per infoset.
    """
    return self._infoset_tensors

  @functools.cached_property
  def _infoset_tensors(self) -> np.ndarray:
    game_type = self.game.get_type()
    if game_type.provides_information_state_tensor:
      rows = [s.information_state_tensor(int(p))
              for s, p in zip(self.infoset_states, self.infoset_player, strict=True)]
    elif game_type.provides_observation_tensor:
      rows = [s.observation_tensor(int(p))
              for s, p in zip(self.infoset_states, self.infoset_player, strict=True)]
    else:
      raise errors.UserError(f"{self.game} provides neither information-state nor "
                             "observation tensors")
    return _read_only(np.asarray(rows, dtype=np.float32))

  def validate_policy_array(self, pi: np.ndarray, atol: float = 1e-6, *,
                            name: str | None = None) -> None:
    """Raises `errors.UserError` unless `pi` is a distribution over legal actions everywhere.

    Checks, in this order: the shape `[num_infosets, num_actions]` (a transposed array or one
    with too few rows is named as such), finite entries, no negative entry, no probability on
    an illegal action and rows summing to 1. The message names the problem and the first bad
    infoset (its index, player and key).

    Args:
      pi: the policy array to check.
      atol: absolute tolerance of the sum and sign checks.
      name: the argument's name, put before the message ("pi: policy array ...").

    Raises:
      errors.UserError (a ValueError): naming the problem and the first bad infoset.
    """
    if name is None:
      _check_policy_array(self, pi, atol)
      return
    if pi is None:
      raise errors.UserError(f"{name} must be a policy array [num_infosets, num_actions], "
                             "got None")
    try:
      _check_policy_array(self, pi, atol)
    except errors.UserError as e:
      raise errors.UserError(f"{name}: {e}") from None

  def __repr__(self):
    return (f"GameTree({self.game}: {self.num_nodes} histories, {len(self.terminals)} terminal, "
            f"{self.num_infosets} infosets)")


def _describe_infoset(tree: GameTree, i: int) -> str:
  return f"infoset {i} (player {int(tree.infoset_player[i])}, {tree.infoset_keys[i]!r})"


def _shape_hint(tree: GameTree, shape: tuple[int, ...]) -> str:
  """What a policy array of the wrong `shape` likely got wrong ("" when no guess fits)."""
  expected = (tree.num_infosets, tree.num_actions)
  if shape == expected[::-1]:
    return " (transposed? rows are infosets, columns actions)"
  if len(shape) == 2 and shape[1] == tree.num_actions and shape[0] < expected[0]:
    return f" (too few rows: {tree.game} has {tree.num_infosets} infosets)"
  if len(shape) == 2 and shape[1] == tree.num_actions:
    return f" (too many rows: {tree.game} has {tree.num_infosets} infosets)"
  if len(shape) == 2:
    return f" ({tree.game} has {tree.num_actions} distinct actions)"
  return ""


def _check_policy_array(tree: GameTree, pi: np.ndarray, atol: float) -> None:
  """`GameTree.validate_policy_array` (see there)."""
  try:
    arr = np.asarray(pi, dtype=np.float64)
  except (TypeError, ValueError) as e:
    raise errors.UserError(f"policy array is not numeric: {e}") from None
  expected = (tree.num_infosets, tree.num_actions)
  if arr.shape != expected:
    raise errors.UserError(f"policy array has shape {arr.shape}, expected {expected} "
                           f"[num_infosets, num_actions] for {tree.game}"
                           f"{_shape_hint(tree, arr.shape)}")
  bad = ~np.isfinite(arr)
  if bad.any():
    i, a = (int(x) for x in np.argwhere(bad)[0])
    raise errors.UserError(f"policy array is not finite ({arr[i, a]}) at action {a} of "
                           f"{_describe_infoset(tree, i)}")
  bad = arr < -atol
  if bad.any():
    i, a = (int(x) for x in np.argwhere(bad)[0])
    raise errors.UserError(f"policy array has a negative probability {arr[i, a]} at action "
                           f"{a} of {_describe_infoset(tree, i)}")
  bad = (np.abs(arr) > atol) & ~tree.infoset_legal
  if bad.any():
    i, a = (int(x) for x in np.argwhere(bad)[0])
    raise errors.UserError(f"policy array puts probability {arr[i, a]} on illegal action {a} of "
                           f"{_describe_infoset(tree, i)}")
  sums = arr.sum(axis=1)
  bad = np.nonzero(np.abs(sums - 1.0) > atol)[0]
  if len(bad):
    i = int(bad[0])
    raise errors.UserError(f"policy array row does not sum to 1 (sums to {sums[i]}) at "
                           f"{_describe_infoset(tree, i)}")
