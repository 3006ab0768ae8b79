"""Kuhn poker with n players and r ranks (the `K` family of Zhang & Sandholm, Sec. 5).

Rules (Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022, arXiv:2109.05284, Sec. 5; family of Farina et al. 2021): a deck of
`ranks` cards of distinct rank 0 < 1 < ... < ranks-1; one card dealt to each player (chance deals
player 0 first, uniformly from the cards left); everybody antes 1. One betting round in seat order:
while nobody has bet a player may pass (check) or bet 1; once someone has bet, every later player
(wrapping round to those who checked) acts once more and may pass (fold) or bet (call 1). Showdown:
the highest card among the players still in takes the pot (if nobody bet, everybody is still in).

Actions are those of OpenSpiel's `kuhn_poker`: 0 = Pass (check/fold), 1 = Bet (bet/call). With
`ranks = players + 1` the game is exactly `kuhn_poker(players=n)`: same histories, returns,
information-state strings and tensors, and observation strings and tensors (checked by the
tests); other `ranks` need this game, e.g. Table 1's `21K3` = `team_kuhn(players=3,ranks=3)`.
"""

import math

import pyspiel

from ospiel_team.games import observer_layout
from ospiel_team.games.cheap_clone import FlatList

PASS = 0
BET = 1

_DEFAULT_PARAMS = {"players": 3, "ranks": 4}
_MAX_PLAYERS = 10

_GAME_TYPE = pyspiel.GameType(
    short_name="team_kuhn",
    long_name="Kuhn poker with n players and r ranks",
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


class TeamKuhnGame(pyspiel.Game):
  """Kuhn poker with `players` players and a deck of `ranks` distinct cards."""

  def __init__(self, params: dict | None = None):
    params = {**_DEFAULT_PARAMS, **(params or {})}
    num_players = int(params["players"])
    ranks = int(params["ranks"])
    if not 2 <= num_players <= _MAX_PLAYERS:
      raise ValueError(f"team_kuhn: players={num_players} must be in [2, {_MAX_PLAYERS}]")
    if ranks < num_players:
      raise ValueError(f"team_kuhn: ranks={ranks} must be >= players={num_players} "
                       "(one card per player)")
    super().__init__(
        _GAME_TYPE,
        pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=ranks,
            num_players=num_players,
            min_utility=-2.0,
            max_utility=2.0 * (num_players - 1),
            utility_sum=0.0,
            max_game_length=2 * num_players - 1),
        params)
    self.ranks = ranks

  # What the game tree may use (`tree.game_support`): an exact terminal count and the shadow
  # walk (the rules below are plain Python on the state's attributes).
  TERMINAL_HISTORIES_EXACT = True
  SHADOW_WALK = True

  def min_terminal_histories(self) -> int:
    """The exact number of terminal histories (GameTree checks it before walking).

    Returns:
      The deals times the betting sequences, 1 + n 2^(n-1).
    """
    p = self.get_parameters()
    n, r = int(p["players"]), int(p["ranks"])
    deals = math.perm(r, n)
    # Betting: everybody checks, or player i bets first and the n-1 others each pass or call.
    return deals * (1 + n * 2 ** (n - 1))

  def new_initial_state(self):
    return TeamKuhnState(self)

  def make_py_observer(self, iig_obs_type=None, params=None):
    return TeamKuhnObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
        self.num_players(), self.ranks, params)


class TeamKuhnState(pyspiel.State):
  """State: the cards dealt so far and the betting actions."""

  def __init__(self, game: TeamKuhnGame):
    super().__init__(game)
    self._n = game.num_players()
    self._ranks = game.ranks
    self.cards: list[int] = FlatList()  # FlatList: cheap clones (see cheap_clone.py)
    self.bets: list[int] = FlatList()
    self.first_bettor = -1
    self.pot = FlatList([1] * self._n)  # each player's contribution
    self._game_over = False

  def current_player(self):
    if self._game_over:
      return pyspiel.PlayerId.TERMINAL
    if len(self.cards) < self._n:
      return pyspiel.PlayerId.CHANCE
    return len(self.bets) % self._n

  def _legal_actions(self, player):
    assert player >= 0
    return [PASS, BET]

  def chance_outcomes(self):
    assert self.is_chance_node()
    left = sorted(set(range(self._ranks)) - set(self.cards))
    p = 1.0 / len(left)
    return [(c, p) for c in left]

  def _apply_action(self, action):
    if self.is_chance_node():
      if action in self.cards or not 0 <= action < self._ranks:
        raise ValueError(f"team_kuhn: card {action} cannot be dealt now")
      self.cards.append(action)
      return
    player = len(self.bets) % self._n
    self.bets.append(action)
    if action == BET:
      if self.first_bettor < 0:
        self.first_bettor = player
      self.pot[player] = 2
    if self.first_bettor < 0:
      self._game_over = len(self.bets) == self._n
    else:
      self._game_over = len(self.bets) == self._n + self.first_bettor

  def _action_to_string(self, player, action):
    if player == pyspiel.PlayerId.CHANCE:
      return f"Deal:{action}"
    return "Pass" if action == PASS else "Bet"

  def is_terminal(self):
    return self._game_over

  def winner(self) -> int:
    """The player with the highest card among those still in (terminal states only).

    Returns:
      The winning player.
    """
    inside = [p for p in range(self._n) if self.first_bettor < 0 or self.pot[p] == 2]
    return max(inside, key=lambda p: self.cards[p])

  def returns(self):
    if not self._game_over:
      return [0.0] * self._n
    total = float(sum(self.pot))
    w = self.winner()
    return [(total - self.pot[p]) if p == w else -float(self.pot[p])
            for p in range(self._n)]

  def __str__(self):
    s = " ".join(str(c) for c in self.cards)
    if self.bets:
      s += " " + "".join("pb"[b] for b in self.bets)
    return s


class TeamKuhnObserver:
  """Observer with the pieces (and strings) of OpenSpiel's C++ `kuhn_poker` observer."""

  def __init__(self, iig_obs_type, num_players: int, ranks: int, params):
    if params:
      raise ValueError(f"team_kuhn: observation parameters not supported; passed {params}")
    self._iig = iig_obs_type
    self._n = num_players
    pieces = []
    if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      pieces += [("player", num_players, (num_players,)),
                 ("private_card", ranks, (ranks,))]
    elif iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      pieces.append(("private_cards", num_players * ranks, (num_players, ranks)))
    if iig_obs_type.public_info:
      if iig_obs_type.perfect_recall:
        pieces.append(("betting", (2 * num_players - 1) * 2, (2 * num_players - 1, 2)))
      else:
        pieces.append(("pot_contribution", num_players, (num_players,)))
    self.tensor, self.dict = observer_layout.tensor_and_views(pieces)

  def set_from(self, state: TeamKuhnState, player: int):
    self.tensor.fill(0)
    if "player" in self.dict:
      self.dict["player"][player] = 1
    if "private_card" in self.dict and len(state.cards) > player:
      self.dict["private_card"][state.cards[player]] = 1
    if "private_cards" in self.dict:
      for p, c in enumerate(state.cards):
        self.dict["private_cards"][p, c] = 1
    if "betting" in self.dict:
      for turn, action in enumerate(state.bets):
        self.dict["betting"][turn, action] = 1
    if "pot_contribution" in self.dict:
      self.dict["pot_contribution"][:] = state.pot

  def string_from(self, state: TeamKuhnState, player: int) -> str:
    return self._private_string(state, player) + self._public_string(state, player)

  def _private_string(self, state: TeamKuhnState, player: int) -> str:
    """The string's private part: the player's card, or every player's cards."""
    iig = self._iig
    if iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      if iig.perfect_recall or iig.public_info:
        return str(state.cards[player]) if len(state.cards) > player else ""
      return f"Received card {state.cards[player]}" if len(state.cards) == 1 + player else ""
    if iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      return "[" + " ".join(str(c) for c in state.cards) + "]"
    return ""

  def _public_string(self, state: TeamKuhnState, player: int) -> str:
    """The string's public part: the bets, the last event, or the pot."""
    iig = self._iig
    if not iig.public_info:
      return ""
    if iig.perfect_recall:
      return "".join("pb"[b] for b in state.bets)
    if iig.private_info == pyspiel.PrivateInfoType.NONE:
      result = ""
      if not state.cards:
        result += "start game"
      elif state.bets:
        result += "Bet" if state.bets[-1] == BET else "Pass"
      if state.cards and not state.bets:
        result += f"Deal to player {len(state.cards) - 1}"
      return result
    return "".join(str(a) for a in state.pot) if len(state.cards) > player else ""


pyspiel.register_game(_GAME_TYPE, TeamKuhnGame)
