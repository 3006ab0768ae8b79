"""A faster walk of this package's Python team games, for `GameTree`.

`GameTree`'s reference walk goes through pyspiel for every history: `state.child(a)` crosses
pybind11 into C++, which clones the Python state (a fresh initial state plus a `copy.deepcopy`
of every attribute) and calls back into Python's `_apply_action`; `current_player`,
`is_terminal` and `legal_actions` are further round trips (about seven calls of
`current_player` per history). For the four team families (`team_kuhn`, `team_leduc`,
`team_liars_dice`, `team_goofspiel`), whose rules are plain Python methods on the state, this
module runs the *same* methods on a plain-Python shadow of the state: a class built from the
game's state class (its functions and properties, without `pyspiel.State`) whose clone copies
the attribute dictionary directly (`FlatList`/`NestedList` semantics of `cheap_clone`). The
information-state (or observation) strings come from the game's own observer
(`make_py_observer`), the one pyspiel uses for Python games. The rules are therefore not
re-implemented; only the pyspiel plumbing is bypassed. `tests/test_fast_tree.py` checks the
resulting `GameTree` against the reference walk node for node (all arrays and infoset keys).
"""

from __future__ import annotations

import copy
from typing import Callable, Iterator, Tuple

import numpy as np
import pyspiel

from ospiel_team.games.cheap_clone import FlatList, NestedList

# Games whose states are pure-Python rules on their own attributes (checked by the tests).
SHADOW_GAMES = frozenset(["team_kuhn", "team_leduc", "team_liars_dice", "team_goofspiel"])

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
  """What pyspiel's clone of a Python state does (a deepcopy of every attribute), with
  `cheap_clone`'s list semantics spelled out."""
  for k, v in src.items():
    copier = _COPIERS.get(type(v))
    dst[k] = copier(v) if copier is not None else copy.deepcopy(v)


class _ShadowBase:
  """The few `pyspiel.State` methods the games' Python rules call on themselves."""

  _shadow_game = None

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
    other._apply_action(action)  # pylint: disable=protected-access
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
  """Whether `shadow_walk` can walk `game` (one of the four Python team families)."""
  return game.get_type().short_name in SHADOW_GAMES


def shadow_root(game: pyspiel.Game):
  """The initial state of `game` as a shadow (see the module docstring)."""
  if not supports(game):
    raise ValueError(f"fast_tree: {game} is not one of {sorted(SHADOW_GAMES)}")
  state = game.new_initial_state()
  shadow = object.__new__(_shadow_class(type(state), game))
  _copy_attributes(state.__dict__, shadow.__dict__)
  return shadow


def key_function(game: pyspiel.Game, use_infostate: bool) -> Callable:
  """key(state, player): the information-state (or observation) string of a shadow state,
  from the game's own observer (what pyspiel's `information_state_string` calls)."""
  iig = pyspiel.IIGObservationType(perfect_recall=use_infostate)
  observer = game.make_py_observer(iig)
  return observer.string_from


def walk(game: pyspiel.Game, use_infostate: bool) -> Iterator[Tuple]:
  """Depth-first walk of shadow states in `GameTree`'s order (children in the order of
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



# ------------------------------------------------------------------------------------------------
# Goofspiel built level by level in numpy (no walk at all).
VECTOR_GAMES = frozenset(["team_goofspiel"])


def supports_vector(game: pyspiel.Game) -> bool:
  """Whether `goofspiel_arrays` builds `game` (team_goofspiel, keyed by information states)."""
  return (game.get_type().short_name in VECTOR_GAMES
          and game.get_type().provides_information_state_string)


def _row_keys(rows: np.ndarray, base: int):
  """Row-wise unique of small non-negative integer rows: (first index, inverse) in the order of
  the sorted rows; one 1-D unique of mixed-radix keys when they fit in int64."""
  width = rows.shape[1]
  if width * np.log2(base) < 62:
    keys = np.zeros(len(rows), dtype=np.int64)
    for j in range(width):
      keys = keys * base + rows[:, j]
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
  else:
    _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
  return first, inv.reshape(-1)


def goofspiel_arrays(game: pyspiel.Game) -> dict:
  """`GameTree`'s arrays of `team_goofspiel`, built level by level without walking states.

  Every history at a depth has the same number of children (chance: the point cards left;
  a player: the cards in its hand; the last round has one legal bid and no chance node), so
  the depth-first discovery order within a depth is the mixed-radix order of the children's
  positions, each level is its parent level repeated, and the state (point cards, bids, hands,
  winners, points) is carried as arrays. The rules are those of `team_goofspiel.py` (the
  highest bid wins the point card, ties split it, returns are points minus the mean), and the
  information-state strings those of its observer with perfect recall; `tests/test_fast_tree.py`
  checks every array and key against the pyspiel walk.

  Returns:
    dict of level-ordered arrays (`node_parent`, `node_action`, `node_player`, `node_depth`,
    `node_infoset`, `node_chance_prob`, `node_returns`, `infoset_player`, `infoset_legal`) and
    `infoset_keys`, a function returning the key list (in infoset-id order = order of discovery
    in the walk); the strings are only made when asked for (the solvers on arrays never need
    them; 32G has 240,585 infosets).
  """
  if not supports_vector(game):
    raise ValueError(f"fast_tree: {game} is not team_goofspiel keyed by information states")
  params = game.get_parameters()
  n, k = int(params["players"]), int(params["num_cards"])
  full = str(params["info"]) == "full"
  # Depth schedule: (kind, round); kind = CHANCE, a player or TERMINAL.
  schedule = []
  for r in range(k):
    if r < k - 1:
      schedule.append((_CHANCE, r))
    schedule += [(p, r) for p in range(n)]
  schedule.append((_TERMINAL, k))
  # Fan-out per depth (chance: point cards left = k - r; a player: cards in hand = k - r).
  fan = [k - r if kind != _TERMINAL else 0 for kind, r in schedule]
  # Subtree sizes (for each history's preorder index = its place in the walk).
  size = [1] * len(schedule)
  for d in range(len(schedule) - 2, -1, -1):
    size[d] = 1 + fan[d] * size[d + 1]
  # State of the current level's histories.
  pc = np.full((1, k), -1, dtype=np.int64)  # point card of each round
  if k == 1:
    pc[:, 0] = 0
  bids = np.full((1, k, n), -1, dtype=np.int64)  # bids of every round (current one partial)
  used = np.zeros((1, n, k), dtype=bool)  # cards each player has bid
  won = np.zeros((1, k, n), dtype=bool)  # highest bidders of completed rounds
  points = np.zeros((1, n))
  pre = np.zeros(1, dtype=np.int64)  # preorder index
  parent, action, player, depth, chance_prob = [], [], [], [], []
  infoset_level, returns = [], None
  levels = []  # per decision depth: its infosets' first histories' data (see below)
  offset = 0
  par = np.full(1, -1, dtype=np.int64)
  act = np.full(1, -1, dtype=np.int64)
  prob = np.ones(1)
  for d, (kind, r) in enumerate(schedule):
    m = len(pre)
    parent.append(par)
    action.append(act)
    player.append(np.full(m, kind, dtype=np.int64))
    depth.append(np.full(m, d, dtype=np.int32))
    chance_prob.append(prob)
    node_inf = np.full(m, -1, dtype=np.int64)
    if kind == _TERMINAL:
      total = points[:, 0].copy()
      for q in range(1, n):
        total = total + points[:, q]
      returns = points - (total / n)[:, None]
      infoset_level.append(node_inf)
      break
    if kind == _CHANCE:
      left = np.ones((m, k), dtype=bool)  # the point cards not dealt yet
      if r:
        np.put_along_axis(left, pc[:, :r], False, axis=1)
    else:
      p = kind
      left = ~used[:, p, :]
      # The infoset: point cards so far, own past bids, and per past round all bids (full) or
      # the winner set (limited).
      cols = [pc[:, :r + 1] + 1, bids[:, :r, p] + 1]
      cols.append((bids[:, :r, :] + 1).reshape(m, -1) if full
                  else won[:, :r, :].reshape(m, -1).astype(np.int64))
      rows = np.concatenate(cols, axis=1)
      first, inv = _row_keys(rows, k + 2)
      levels.append(dict(depth=d, player=p, round=r, first_pre=pre[first], legal=left[first],
                         pc=pc[first], bids=bids[first], won=won[first]))
      node_inf = inv  # level-local for now
    infoset_level.append(node_inf)
    b = fan[d]
    # Children: the first b cards of `left` in increasing order.
    order = np.argsort(~left, axis=1, kind="stable")[:, :b]
    child_act = order.reshape(-1)
    par = offset + np.repeat(np.arange(m), b)
    offset += m
    pos = np.tile(np.arange(b), m)
    pre = np.repeat(pre, b) + 1 + pos * size[d + 1]
    act = child_act.astype(np.int64)
    prob = np.full(m * b, 1.0 / b) if kind == _CHANCE else np.ones(m * b)
    rep = lambda x: np.repeat(x, b, axis=0)  # noqa: E731
    pc, bids, used, won, points = rep(pc), rep(bids), rep(used), rep(won), rep(points)
    if kind == _CHANCE:
      pc[:, r] = child_act
      continue
    rows_all = np.arange(m * b)
    bids[:, r, p] = child_act
    used[rows_all, p, child_act] = True
    if p == n - 1:  # the round is complete: score it
      top = bids[:, r, :].max(axis=1)
      win = bids[:, r, :] == top[:, None]
      won[:, r, :] = win
      gain = (pc[:, r] + 1) / win.sum(axis=1)
      points = points + np.where(win, gain[:, None], 0.0)
      if r == k - 2:  # the last point card is determined
        rest = np.ones((m * b, k), dtype=bool)
        np.put_along_axis(rest, pc[:, :k - 1], False, axis=1)
        pc[:, k - 1] = np.argmax(rest, axis=1)
  # Infoset ids in order of discovery (first history's preorder index).
  first_pre = np.concatenate([lv["first_pre"] for lv in levels])
  gid = np.empty(len(first_pre), dtype=np.int64)
  gid[np.argsort(first_pre, kind="stable")] = np.arange(len(first_pre))
  start = 0
  for lv in levels:
    count = len(lv["first_pre"])
    lv["ids"] = gid[start:start + count]
    infoset_level[lv["depth"]] = lv["ids"][infoset_level[lv["depth"]]]
    start += count
  num_infosets = len(first_pre)
  num_nodes = sum(len(x) for x in parent)
  node_returns = np.zeros((num_nodes, n))
  node_returns[num_nodes - len(returns):] = returns
  legal = np.zeros((num_infosets, game.num_distinct_actions()), dtype=bool)
  infoset_player = np.zeros(num_infosets, dtype=np.int64)
  for lv in levels:
    legal[lv["ids"], :k] = lv["legal"]
    infoset_player[lv["ids"]] = lv["player"]
  return dict(
      node_parent=np.concatenate(parent), node_action=np.concatenate(action),
      node_player=np.concatenate(player), node_depth=np.concatenate(depth),
      node_infoset=np.concatenate(infoset_level), node_chance_prob=np.concatenate(chance_prob),
      node_returns=node_returns,
      infoset_player=infoset_player, infoset_legal=legal,
      infoset_keys=lambda: _goofspiel_keys(levels, num_infosets, full))


def _goofspiel_keys(levels: list, num_infosets: int, full: bool) -> list:
  """The information-state strings of `goofspiel_arrays`' infosets (the observer's format,
  `TeamGoofspielObserver.string_from` with perfect recall), in infoset-id order."""
  keys = [None] * num_infosets
  pieces = {}  # (round, point card, own bid, bids or winners) -> the round's piece
  for lv in levels:
    p, r = lv["player"], lv["round"]
    pc = lv["pc"].tolist()
    own = lv["bids"][:, :, p].tolist()
    past = (lv["bids"] if full else lv["won"])[:, :r].tolist()
    for i, g in enumerate(lv["ids"].tolist()):
      out = [f"P{p}"]
      for rr in range(r + 1):
        key = (rr, pc[i][rr], own[i][rr] if rr < r else None,
               tuple(past[i][rr]) if rr < r else None)
        piece = pieces.get(key)
        if piece is None:
          piece = f"|R{rr + 1} point:{pc[i][rr] + 1}"
          if rr < r:
            piece += f" me:{own[i][rr] + 1}"
            if full:
              piece += " bids:" + "".join(str(b + 1) for b in past[i][rr])
            else:
              piece += " won:" + "".join(str(q) for q, w in enumerate(past[i][rr]) if w)
          pieces[key] = piece
        out.append(piece)
      keys[g] = " ".join(out)
  return keys
