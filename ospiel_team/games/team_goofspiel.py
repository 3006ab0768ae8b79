"""Goofspiel with n players (the `G` and `GL` families of Zhang & Sandholm, "Team Correlated
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

import math
from typing import Dict, FrozenSet, List, Optional

import numpy as np

import pyspiel

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

  def __init__(self, params: Optional[Dict] = None):
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

  def min_terminal_histories(self) -> int:
    """The exact number of terminal histories (GameTree checks it before walking)."""
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
    self.point_cards: List[int] = FlatList()  # card indices (value - 1), one per round started
    self.past_bids: List[List[int]] = FlatList()  # completed rounds: bid index of each player
    self.bids: List[int] = FlatList()  # current round, seat order
    self.winners: List[FrozenSet[int]] = FlatList()  # completed rounds: the highest bidders
    self.points = FlatList([0.0] * self._n)
    if self._k == 1:
      self.point_cards.append(0)

  @property
  def round(self) -> int:
    return len(self.past_bids)

  def hand(self, player: int) -> List[int]:
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
  """Perfect recall: point cards, own bids, and per past round all bids (full) or the winner
  set (limited). Default observation: current point card, own hand, everybody's points, and
  the last round's bids (full) or winners (limited)."""

  def __init__(self, iig_obs_type, game: TeamGoofspielGame, params):
    if params:
      raise ValueError(f"team_goofspiel: observation parameters not supported; passed {params}")
    self._iig = iig_obs_type
    self._full = game.full_info
    n, k = game.num_players(), game.num_cards
    self._n, self._k = n, k
    single = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
    all_players = iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
    pieces = [("player", n, (n,))]
    if iig_obs_type.perfect_recall:
      if iig_obs_type.public_info:
        pieces.append(("point_cards", k * k, (k, k)))
      if single:
        pieces.append(("own_bids", k * k, (k, k)))
      if all_players or (iig_obs_type.public_info and self._full):
        pieces.append(("all_bids", k * n * k, (k, n, k)))
      if iig_obs_type.public_info and not self._full:
        pieces.append(("winners", k * n, (k, n)))
    else:
      if iig_obs_type.public_info:
        pieces += [("point_card", k, (k,)), ("points", n, (n,))]
        if self._full:
          pieces.append(("last_bids", n * k, (n, k)))
        else:
          pieces.append(("last_winners", n, (n,)))
      if single:
        pieces.append(("hand", k, (k,)))
      if all_players:
        pieces.append(("hands", n * k, (n, k)))
    total = sum(size for _, size, _ in pieces)
    self.tensor = np.zeros(total, np.float32)
    self.dict = {}
    index = 0
    for name, size, shape in pieces:
      self.dict[name] = self.tensor[index:index + size].reshape(shape)
      index += size

  def set_from(self, state: TeamGoofspielState, player: int):
    self.tensor.fill(0)
    d = self.dict
    d["player"][player] = 1
    if "point_cards" in d:
      for r, c in enumerate(state.point_cards):
        d["point_cards"][r, c] = 1
    if "own_bids" in d:
      for r, bids in enumerate(state.past_bids + [state.bids]):
        if len(bids) > player:
          d["own_bids"][r, bids[player]] = 1
    if "all_bids" in d:
      show_current = self._iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
      rounds = state.past_bids + ([state.bids] if show_current else [])
      for r, bids in enumerate(rounds):
        for p, b in enumerate(bids):
          d["all_bids"][r, p, b] = 1
    if "winners" in d:
      for r, win in enumerate(state.winners):
        for p in win:
          d["winners"][r, p] = 1
    if "point_card" in d and len(state.point_cards) > state.round:
      d["point_card"][state.point_cards[state.round]] = 1
    if "points" in d:
      d["points"][:] = state.points
    if "last_bids" in d and state.past_bids:
      for p, b in enumerate(state.past_bids[-1]):
        d["last_bids"][p, b] = 1
    if "last_winners" in d and state.winners:
      for p in state.winners[-1]:
        d["last_winners"][p] = 1
    if "hand" in d:
      for c in state.hand(player):
        d["hand"][c] = 1
    if "hands" in d:
      for p in range(self._n):
        for c in state.hand(p):
          d["hands"][p, c] = 1

  def string_from(self, state: TeamGoofspielState, player: int) -> str:
    iig = self._iig
    single = iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
    all_players = iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
    out = [f"P{player}"]
    if iig.perfect_recall:
      for r, c in enumerate(state.point_cards):  # completed rounds, then the current one
        done = r < state.round
        bids = state.past_bids[r] if done else state.bids
        piece = f"|R{r + 1}"
        if iig.public_info:
          piece += f" point:{c + 1}"
        if single and len(bids) > player:
          piece += f" me:{bids[player] + 1}"
        if all_players or (done and iig.public_info and self._full):
          piece += " bids:" + "".join(str(b + 1) for b in bids)
        if done and iig.public_info and not self._full:
          piece += " won:" + "".join(str(p) for p in sorted(state.winners[r]))
        out.append(piece)
    else:
      if iig.public_info:
        if len(state.point_cards) > state.round:
          out.append(f"point:{state.point_cards[state.round] + 1}")
        out.append("points:" + " ".join(f"{x:g}" for x in state.points))
        if state.past_bids:
          if self._full:
            out.append("last:" + "".join(str(b + 1) for b in state.past_bids[-1]))
          else:
            out.append("last won:" + "".join(str(p) for p in sorted(state.winners[-1])))
      if single:
        out.append("hand:" + "".join(str(c + 1) for c in state.hand(player)))
      if all_players:
        out.append("hands:" + "/".join(
            "".join(str(c + 1) for c in state.hand(p)) for p in range(self._n)))
    return " ".join(out)


pyspiel.register_game(_GAME_TYPE, TeamGoofspielGame)
