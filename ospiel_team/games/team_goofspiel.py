"""Goofspiel with n players, the `G` and `GL` families of Zhang & Sandholm.

Goofspiel with n players (the `G` and `GL` families of Zhang & Sandholm, "Team Correlated
Equilibria in Zero-Sum Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284,
Sec. 5).

`team_goofspiel(players=n, info=full|limited, num_cards=3)`. Point cards 1..K (K = num_cards,
3 in the paper) are revealed one per round in uniformly random order: at the start of each
round chance deals the point card (chance action c = card c+1) from those left; the last point
card is determined, so it is revealed without a chance node. Every player holds bid cards 1..K
and plays one per round; the simultaneous bids are played in seat order (0, 1, ..., n-1), each
hidden from later players of the same round (action c = bid card c+1). The last round is played
too, each player having one legal action (Table 1's team sequence counts include these nodes:
`21G`'s single player has 1 + 9 + 324 + 1,296 = 1,630 sequences). The highest bid wins the point
card; tied highest bidders split its points equally. A player's return is its points minus the
mean points of all players (so the game is zero-sum; the points always add up to K(K+1)/2).

Information after each round: `info=full` (`G`): everybody sees every bid of the round;
`info=limited` (`GL`): everybody sees only who won (the set of highest bidders). Everybody
always sees the point cards and remembers their own bids.

OpenSpiel's `goofspiel(players=n, num_cards=3, imp_info=True, points_order=random)` played turn
by turn has the same terminal histories (it plays the last round automatically), but it discards
tied point cards and has other returns; the tests compare the points of the two games.
"""

from __future__ import annotations

import math

import numpy as np
import pyspiel

from ospiel_team.games import observer_layout
from ospiel_team.games.cheap_clone import FlatList

_MAX_PLAYERS = 10
_DEFAULT_PARAMS = {"players": 3, "info": "full", "num_cards": 3}
_INFOS = ("full", "limited")

_GAME_TYPE = pyspiel.GameType(
    short_name="team_goofspiel",
    long_name="Goofspiel with n players, split ties, full or limited information",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS)


class TeamGoofspielGame(pyspiel.Game):
  """Goofspiel with `players` players, `num_cards` cards, `info` = full or limited."""

  def __init__(self, params: dict | None = None):
    params = {**_DEFAULT_PARAMS, **(params or {})}
    n = int(params["players"])
    info = str(params["info"])
    k = int(params["num_cards"])
    if not 2 <= n <= _MAX_PLAYERS:
      raise ValueError(f"team_goofspiel: players={n} must be in [2, {_MAX_PLAYERS}]")
    if info not in _INFOS:
      raise ValueError(f"team_goofspiel: info={info!r} must be one of {_INFOS}")
    if not 1 <= k <= 13:
      raise ValueError(f"team_goofspiel: num_cards={k} must be in [1, 13]")
    total = k * (k + 1) / 2
    super().__init__(
        _GAME_TYPE,
        pyspiel.GameInfo(
            num_distinct_actions=k,
            max_chance_outcomes=k,
            num_players=n,
            min_utility=-total / n,
            max_utility=total * (n - 1) / n,
            utility_sum=0.0,
            max_game_length=n * k),
        params)
    self.num_cards = k
    self.full_info = info == "full"

  # What the game tree may use (`tree.game_support`): an exact terminal count, the shadow walk
  # (the rules below are plain Python on the state's attributes) and a vector builder.
  TERMINAL_HISTORIES_EXACT = True
  SHADOW_WALK = True

  def tree_arrays(self) -> dict:
    """`GameTree`'s arrays of this game built level by level, without a walk (`_tree_arrays`).

    Returns:
      The arrays by name, as `_tree_arrays` builds them.
    """
    return _tree_arrays(self)

  def min_terminal_histories(self) -> int:
    """The exact number of terminal histories (GameTree checks it before walking).

    Returns:
      k! x (k!)^n for k cards and n players.
    """
    p = self.get_parameters()
    n, k = int(p["players"]), int(p["num_cards"])
    return math.factorial(k) * math.factorial(k) ** n  # point-card order x each player's bids

  def new_initial_state(self):
    return TeamGoofspielState(self)

  def make_py_observer(self, iig_obs_type=None, params=None):
    return TeamGoofspielObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self, params)


class TeamGoofspielState(pyspiel.State):
  """State: point cards revealed, bids of past rounds and of the current round."""

  def __init__(self, game: TeamGoofspielGame):
    super().__init__(game)
    self._n = game.num_players()
    self._k = game.num_cards
    # FlatList: cheap clones (see cheap_clone.py); past_bids' inner lists are never mutated.
    self.point_cards: list[int] = FlatList()  # card indices (value - 1), one per round started
    self.past_bids: list[list[int]] = FlatList()  # completed rounds: bid index of each player
    self.bids: list[int] = FlatList()  # current round, seat order
    self.winners: list[frozenset[int]] = FlatList()  # completed rounds: the highest bidders
    self.points = FlatList([0.0] * self._n)
    if self._k == 1:
      self.point_cards.append(0)

  @property
  def round(self) -> int:
    return len(self.past_bids)

  def hand(self, player: int) -> list[int]:
    """The cards `player` has not bid yet (a bid of the current turn counts as made).

    Args:
      player: a player.

    Returns:
      The card indices, in increasing order.
    """
    used = {b[player] for b in self.past_bids}
    if len(self.bids) > player:
      used.add(self.bids[player])
    return [c for c in range(self._k) if c not in used]

  def current_player(self):
    if self.round == self._k:
      return pyspiel.PlayerId.TERMINAL
    if len(self.point_cards) == self.round:
      return pyspiel.PlayerId.CHANCE
    return len(self.bids)

  def _legal_actions(self, player):
    return self.hand(player)

  def chance_outcomes(self):
    assert self.is_chance_node()
    left = [c for c in range(self._k) if c not in self.point_cards]
    p = 1.0 / len(left)
    return [(c, p) for c in left]

  def _apply_action(self, action):
    if self.is_chance_node():
      if action in self.point_cards or not 0 <= action < self._k:
        raise ValueError(f"team_goofspiel: point card {action} cannot be dealt now")
      self.point_cards.append(action)
      return
    self.bids.append(action)
    if len(self.bids) < self._n:
      return
    top = max(self.bids)
    win = frozenset(p for p, b in enumerate(self.bids) if b == top)
    value = self.point_cards[-1] + 1
    for p in win:
      self.points[p] += value / len(win)
    self.winners.append(win)
    self.past_bids.append(self.bids)
    self.bids = FlatList()
    if self.round == self._k - 1:  # the last point card is determined
      self.point_cards.append(
          next(c for c in range(self._k) if c not in self.point_cards))

  def _action_to_string(self, player, action):
    if player == pyspiel.PlayerId.CHANCE:
      return f"Point card {action + 1}"
    return f"[P{player}]Bid: {action + 1}"

  def is_terminal(self):
    return self.round == self._k

  def returns(self):
    if not self.is_terminal():
      return [0.0] * self._n
    mean = sum(self.points) / self._n
    return [p - mean for p in self.points]

  def __str__(self):
    rounds = []
    for r, c in enumerate(self.point_cards):
      bids = self.past_bids[r] if r < self.round else self.bids
      rounds.append(f"{c + 1}:" + "".join(str(b + 1) for b in bids))
    return " ".join(rounds)


class TeamGoofspielObserver:
  """Observer of team Goofspiel's information states and observations.

  Perfect recall: point cards, own bids, and per past round all bids (full) or the winner
  set (limited). Default observation: current point card, own hand, everybody's points, and
  the last round's bids (full) or winners (limited).
  """

  def __init__(self, iig_obs_type, game: TeamGoofspielGame, params):
    if params:
      raise ValueError(f"team_goofspiel: observation parameters not supported; passed {params}")
    self.iig_obs_type = iig_obs_type  # read by the piece writers below
    self._full = game.full_info
    n, k = game.num_players(), game.num_cards
    self.num_players, self._k = n, k
    pieces = [("player", n, (n,))]
    if iig_obs_type.perfect_recall:
      pieces += _recall_pieces(iig_obs_type, n, k, self._full)
    else:
      pieces += _current_pieces(iig_obs_type, n, k, self._full)
    self.tensor, self.dict = observer_layout.tensor_and_views(pieces)

  def set_from(self, state: TeamGoofspielState, player: int):
    self.tensor.fill(0)
    self.dict["player"][player] = 1
    if "points" in self.dict:
      self.dict["points"][:] = state.points
    for name, piece in self.dict.items():
      if name in _PIECE_SETTERS:
        _PIECE_SETTERS[name](self, state, player, piece)

  def string_from(self, state: TeamGoofspielState, player: int) -> str:
    out = [f"P{player}"]
    if self.iig_obs_type.perfect_recall:
      out += self._recall_strings(state, player)
    else:
      out += self._current_strings(state, player)
    return " ".join(out)

  def _recall_strings(self, state: TeamGoofspielState, player: int) -> list[str]:
    """One piece per round so far: its point card, own bid, all bids or winners."""
    iig = self.iig_obs_type
    single = iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
    all_players = iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
    out = []
    for r, c in enumerate(state.point_cards):  # completed rounds, then the current one
      done = r < state.round
      bids = state.past_bids[r] if done else state.bids
      public_done = done and iig.public_info
      piece = f"|R{r + 1}"
      if iig.public_info:
        piece += f" point:{c + 1}"
      if single and len(bids) > player:
        piece += f" me:{bids[player] + 1}"
      if all_players or (public_done and self._full):
        piece += " bids:" + "".join(str(b + 1) for b in bids)
      if public_done and not self._full:
        piece += " won:" + "".join(str(p) for p in sorted(state.winners[r]))
      out.append(piece)
    return out

  def _current_strings(self, state: TeamGoofspielState, player: int) -> list[str]:
    """The current point card, the points, the last round and the hand(s)."""
    iig = self.iig_obs_type
    out = []
    if iig.public_info:
      if len(state.point_cards) > state.round:
        out.append(f"point:{state.point_cards[state.round] + 1}")
      out.append("points:" + " ".join(f"{x:g}" for x in state.points))
      if state.past_bids and self._full:
        out.append("last:" + "".join(str(b + 1) for b in state.past_bids[-1]))
      elif state.past_bids:
        out.append("last won:" + "".join(str(p) for p in sorted(state.winners[-1])))
    if iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      out.append("hand:" + "".join(str(c + 1) for c in state.hand(player)))
    if iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      out.append("hands:" + "/".join(
          "".join(str(c + 1) for c in state.hand(p)) for p in range(self.num_players)))
    return out


def _recall_pieces(iig, n: int, k: int, full: bool) -> list[tuple[str, int, tuple[int, ...]]]:
  """(name, size, shape) of the perfect-recall tensor's pieces after the player's one-hot."""
  single = iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
  all_players = iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
  pieces = []
  if iig.public_info:
    pieces.append(("point_cards", k * k, (k, k)))
  if single:
    pieces.append(("own_bids", k * k, (k, k)))
  if all_players or (iig.public_info and full):
    pieces.append(("all_bids", k * n * k, (k, n, k)))
  if iig.public_info and not full:
    pieces.append(("winners", k * n, (k, n)))
  return pieces


def _current_pieces(iig, n: int, k: int, full: bool) -> list[tuple[str, int, tuple[int, ...]]]:
  """(name, size, shape) of the observation tensor's pieces after the player's one-hot."""
  pieces = []
  if iig.public_info:
    pieces += [("point_card", k, (k,)), ("points", n, (n,))]
    if full:
      pieces.append(("last_bids", n * k, (n, k)))
    else:
      pieces.append(("last_winners", n, (n,)))
  if iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
    pieces.append(("hand", k, (k,)))
  if iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
    pieces.append(("hands", n * k, (n, k)))
  return pieces


# Each tensor piece's writer, (observer, state, player, piece) -> None, on a zeroed piece.
def _set_point_cards(obs, state, player, piece):
  for r, c in enumerate(state.point_cards):
    piece[r, c] = 1


def _set_own_bids(obs, state, player, piece):
  for r, bids in enumerate(state.past_bids + [state.bids]):
    if len(bids) > player:
      piece[r, bids[player]] = 1


def _set_all_bids(obs, state, player, piece):
  show_current = obs.iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
  rounds = state.past_bids + ([state.bids] if show_current else [])
  for r, bids in enumerate(rounds):
    for p, b in enumerate(bids):
      piece[r, p, b] = 1


def _set_winners(obs, state, player, piece):
  for r, win in enumerate(state.winners):
    for p in win:
      piece[r, p] = 1


def _set_point_card(obs, state, player, piece):
  if len(state.point_cards) > state.round:
    piece[state.point_cards[state.round]] = 1


def _set_last_bids(obs, state, player, piece):
  for p, b in enumerate(state.past_bids[-1] if state.past_bids else ()):
    piece[p, b] = 1


def _set_last_winners(obs, state, player, piece):
  for p in state.winners[-1] if state.winners else ():
    piece[p] = 1


def _set_hand(obs, state, player, piece):
  for c in state.hand(player):
    piece[c] = 1


def _set_hands(obs, state, player, piece):
  for p in range(obs.num_players):
    for c in state.hand(p):
      piece[p, c] = 1


_PIECE_SETTERS = {
    "point_cards": _set_point_cards, "own_bids": _set_own_bids, "all_bids": _set_all_bids,
    "winners": _set_winners, "point_card": _set_point_card, "last_bids": _set_last_bids,
    "last_winners": _set_last_winners, "hand": _set_hand, "hands": _set_hands,
}


# ------------------------------------------------------------------------------------------------
# The game tree's arrays built level by level in numpy (no walk): the game's vector builder.
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

def _row_keys(rows: np.ndarray, base: int):
  """Row-wise unique of small non-negative integer rows.

  (first index, inverse) in the order of the sorted rows; one 1-D unique of mixed-radix keys when
  they fit in int64.
  """
  width = rows.shape[1]
  if width * np.log2(base) < 62:
    keys = np.zeros(len(rows), dtype=np.int64)
    for j in range(width):
      keys = keys * base + rows[:, j]
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
  else:
    _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
  return first, inv.reshape(-1)


def _schedule(n: int, k: int) -> tuple[list, list, list]:
  """The shape of the tree by depth.

  (kind, round) of every depth (kind: CHANCE, a player or TERMINAL), its fan-out (chance: the
  point cards left; a player: the cards in hand; both k - round) and subtree sizes.
  """
  schedule = []
  for r in range(k):
    if r < k - 1:
      schedule.append((_CHANCE, r))
    schedule += [(p, r) for p in range(n)]
  schedule.append((_TERMINAL, k))
  fan = [k - r if kind != _TERMINAL else 0 for kind, r in schedule]
  size = [1] * len(schedule)
  for d in range(len(schedule) - 2, -1, -1):
    size[d] = 1 + fan[d] * size[d + 1]
  return schedule, fan, size


def _play(st: dict, kind: int, r: int, child_act: np.ndarray, n: int, k: int) -> None:
  """Applies the children's actions to the repeated state arrays.

  Applies the children's actions `child_act` to the (repeated) state arrays `st`: a point
  card dealt, or a bid (scoring the round after its last bid).
  """
  if kind == _CHANCE:
    st["pc"][:, r] = child_act
    return
  p, rows = kind, np.arange(len(child_act))
  st["bids"][:, r, p] = child_act
  st["used"][rows, p, child_act] = True
  if p < n - 1:
    return
  bids = st["bids"][:, r, :]  # the round is complete: score it
  top = bids.max(axis=1)
  win = bids == top[:, None]
  st["won"][:, r, :] = win
  gain = (st["pc"][:, r] + 1) / win.sum(axis=1)
  st["points"] = st["points"] + np.where(win, gain[:, None], 0.0)
  if r == k - 2:  # the last point card is determined
    rest = np.ones((len(rows), k), dtype=bool)
    np.put_along_axis(rest, st["pc"][:, :k - 1], False, axis=1)
    st["pc"][:, k - 1] = np.argmax(rest, axis=1)


def _decision_level(st: dict, d: int, p: int, r: int, k: int, full: bool
                    ) -> tuple[dict, np.ndarray]:
  """The infosets of one decision depth.

  A decision depth's infosets: their first histories' data and each history's level-local
  infoset. The infoset is the point cards so far, own past bids, and per past round all bids
  (full) or the winner set (limited).
  """
  m = len(st["pre"])
  cols = [st["pc"][:, :r + 1] + 1, st["bids"][:, :r, p] + 1]
  cols.append((st["bids"][:, :r, :] + 1).reshape(m, -1) if full
              else st["won"][:, :r, :].reshape(m, -1).astype(np.int64))
  first, inv = _row_keys(np.concatenate(cols, axis=1), k + 2)
  level = dict(depth=d, player=p, round=r, first_pre=st["pre"][first],
               legal=~st["used"][first, p, :], pc=st["pc"][first], bids=st["bids"][first],
               won=st["won"][first])
  return level, inv


def _tree_arrays(game: TeamGoofspielGame) -> dict:
  """`GameTree`'s arrays of `team_goofspiel`, built level by level without walking states.

  Every history at a depth has the same number of children (chance: the point cards left;
  a player: the cards in its hand; the last round has one legal bid and no chance node), so
  the depth-first discovery order within a depth is the mixed-radix order of the children's
  positions, each level is its parent level repeated, and the state (point cards, bids, hands,
  winners, points) is carried as arrays. The rules are those of `TeamGoofspielState` (the
  highest bid wins the point card, ties split it, returns are points minus the mean), and the
  information-state strings those of `TeamGoofspielObserver` with perfect recall;
  `tests/tree/test_fast_tree.py` checks every array and key against the pyspiel walk.

  Returns:
    dict of the fields of the tree's array schema (`node_parent`, `node_action`,
    `node_player`, `node_depth`, `node_infoset`, `node_chance_prob`, `node_returns`,
    `infoset_player`, `infoset_legal`) and `infoset_keys`, a function returning the key list
    (in infoset-id order = order of discovery in the walk); the strings are only made when
    asked for (the solvers on arrays never need them; 32G has 240,585 infosets).
  """
  params = game.get_parameters()
  n, k = int(params["players"]), int(params["num_cards"])
  full = str(params["info"]) == "full"
  schedule, fan, size = _schedule(n, k)
  # State of the current level's histories, and its preorder index (its place in the walk).
  st = dict(pc=np.full((1, k), -1, dtype=np.int64),  # point card of each round
            bids=np.full((1, k, n), -1, dtype=np.int64),  # bids (the current round partial)
            used=np.zeros((1, n, k), dtype=bool),  # cards each player has bid
            won=np.zeros((1, k, n), dtype=bool),  # highest bidders of completed rounds
            points=np.zeros((1, n)), pre=np.zeros(1, dtype=np.int64))
  if k == 1:
    st["pc"][:, 0] = 0
  parent, action, player, depth, chance_prob = [], [], [], [], []
  infoset_level, returns = [], None
  levels = []  # per decision depth: its infosets' first histories' data
  offset = 0
  par, act, prob = np.full(1, -1, dtype=np.int64), np.full(1, -1, dtype=np.int64), np.ones(1)
  for d, (kind, r) in enumerate(schedule):
    m = len(st["pre"])
    parent.append(par)
    action.append(act)
    player.append(np.full(m, kind, dtype=np.int64))
    depth.append(np.full(m, d, dtype=np.int32))
    chance_prob.append(prob)
    if kind == _TERMINAL:
      total = st["points"][:, 0].copy()
      for q in range(1, n):
        total = total + st["points"][:, q]
      returns = st["points"] - (total / n)[:, None]
      infoset_level.append(np.full(m, -1, dtype=np.int64))
      break
    if kind == _CHANCE:
      left = np.ones((m, k), dtype=bool)  # the point cards not dealt yet
      if r:
        np.put_along_axis(left, st["pc"][:, :r], False, axis=1)
      infoset_level.append(np.full(m, -1, dtype=np.int64))
    else:
      left = ~st["used"][:, kind, :]
      level, inv = _decision_level(st, d, kind, r, k, full)
      levels.append(level)
      infoset_level.append(inv)  # level-local for now
    b = fan[d]
    # Children: the first b cards of `left` in increasing order.
    child_act = np.argsort(~left, axis=1, kind="stable")[:, :b].reshape(-1)
    par = offset + np.repeat(np.arange(m), b)
    offset += m
    act = child_act.astype(np.int64)
    prob = np.full(m * b, 1.0 / b) if kind == _CHANCE else np.ones(m * b)
    pre = np.repeat(st["pre"], b) + 1 + np.tile(np.arange(b), m) * size[d + 1]
    st = {key: np.repeat(v, repeats=b, axis=0) for key, v in st.items() if key != "pre"}
    st["pre"] = pre
    _play(st, kind, r, child_act, n, k)
  return _assemble(game, levels, infoset_level, returns, full, n, k, dict(
      node_parent=parent, node_action=action, node_player=player, node_depth=depth,
      node_chance_prob=chance_prob))


def _assemble(game: TeamGoofspielGame, levels: list, infoset_level: list,
              returns: np.ndarray, full: bool, n: int, k: int, per_level: dict) -> dict:
  """Assembles `_tree_arrays`' arrays from its per-level pieces.

  The arrays of `_tree_arrays` from its per-level pieces: infoset ids in order of discovery
  (their first history's preorder index), returns at the last level, legal actions.
  """
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
  num_nodes = sum(len(x) for x in per_level["node_parent"])
  node_returns = np.zeros((num_nodes, n))
  node_returns[num_nodes - len(returns):] = returns
  legal = np.zeros((num_infosets, game.num_distinct_actions()), dtype=bool)
  infoset_player = np.zeros(num_infosets, dtype=np.int64)
  for lv in levels:
    legal[lv["ids"], :k] = lv["legal"]
    infoset_player[lv["ids"]] = lv["player"]
  arrays = {name: np.concatenate(pieces) for name, pieces in per_level.items()}
  return dict(
      **arrays, node_infoset=np.concatenate(infoset_level), node_returns=node_returns,
      infoset_player=infoset_player, infoset_legal=legal,
      infoset_keys=lambda: _goofspiel_keys(levels, num_infosets, full))


def _goofspiel_keys(levels: list, num_infosets: int, full: bool) -> list:
  """The information-state strings of `_tree_arrays`' infosets, in id order.

  The information-state strings of `_tree_arrays`' infosets (the observer's format,
  `TeamGoofspielObserver.string_from` with perfect recall), in infoset-id order.
  """
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


pyspiel.register_game(_GAME_TYPE, TeamGoofspielGame)
