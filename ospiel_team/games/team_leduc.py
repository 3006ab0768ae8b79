"""Parameterized Leduc poker (the `L` and `L'` families of Zhang & Sandholm, Sec. 5).

`team_leduc(players=n, bets=b, ranks=r, suits=s, team1_size=k, no_raise_team=t)`.

Rules (Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022, arXiv:2109.05284, Sec. 5; family of Farina et al. 2021): a deck of r
ranks x s suits; suits are indistinguishable for hand strength, and chance deals *ranks* (a rank is
drawn with probability proportional to the cards of that rank left in the deck), exactly like
OpenSpiel's `leduc_poker(suit_isomorphism=True)`; this is what makes Table 1's sizes come out (e.g.
`21L133` has 6,477 terminal histories; dealing distinct cards would give 1,512 + 3,024 * 82). Each
player antes 1 and gets one private card (player 0 first); betting round 1; one public card; betting
round 2. A raise puts in 2 in round 1 and 4 in round 2 (after matching the current stake); at most
`bets` raises per round. Hand strength: a pair with the public card beats any non-pair; otherwise
the higher private card wins (the same order as OpenSpiel's ranking by (higher, lower) card of the
two-card hand, since the public card is shared); ties split the pot; a player who folds loses what
they put in.

Details the spec leaves to OpenSpiel's `leduc_poker` (followed here): actions 0 = Fold,
1 = Call (check when nothing is owed), 2 = Raise; a player may fold only when facing a raise;
both rounds start with player 0 (or the first player after 0 who has not folded); a round ends
when every remaining player has called since the last raise (or all checked); the game ends when
one player is left or round 2 ends. With `bets=2, ranks=players+1, suits=2` the game equals
`leduc_poker(players=n, suit_isomorphism=True)` (same histories, chance probabilities, legal
actions and returns: checked by the tests).

`L'` (Table 1's `31L'132`, `31L'133`): some players may not raise (they may still check, call
and fold). `no_raise_team=1` forbids raising to players `0 .. team1_size-1`, `no_raise_team=2`
to players `team1_size .. n-1`. Table 1's sizes fix which: `31L'132` has 3,834 terminal histories
and 3,991 / 151 team sequences only when the *three-player* team {0,1,2} may not raise
(`no_raise_team=1`); forbidding player 3 instead gives 21,042 / 18,103 / 1,045 (see the tests).
"""

import math

import pyspiel

from ospiel_team.games import observer_layout
from ospiel_team.games.cheap_clone import FlatList
from ospiel_team.games.cheap_clone import NestedList

FOLD = 0
CALL = 1
RAISE = 2
_ACTION_NAMES = ("Fold", "Call", "Raise")
_ACTION_CHARS = "fcr"
_RAISE_SIZE = (2, 4)  # rounds 1 and 2
_MAX_PLAYERS = 10

_DEFAULT_PARAMS = {"players": 3, "bets": 2, "ranks": 4, "suits": 2, "team1_size": 0,
                   "no_raise_team": 0}

_GAME_TYPE = pyspiel.GameType(
    short_name="team_leduc",
    long_name="Leduc poker with n players, b bets, r ranks and s suits",
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


def max_actions_per_round(num_players: int, bets: int) -> int:
  """The largest number of betting actions in one round.

  Most betting actions in one round: n-1 checks, then per raise up to n-2 replies before the
  next raise, and n-1 replies to the last raise.

  Args:
    num_players: n, the number of players.
    bets: the most raises in a round.

  Returns:
    The number of actions.
  """
  if bets == 0:
    return num_players
  return 2 * (num_players - 1) + bets + (bets - 1) * (num_players - 2)


class TeamLeducGame(pyspiel.Game):
  """Leduc poker with `players`, `bets` raises per round, `ranks` ranks and `suits` suits."""

  def __init__(self, params: dict | None = None):
    params = {**_DEFAULT_PARAMS, **(params or {})}
    n = int(params["players"])
    bets = int(params["bets"])
    ranks = int(params["ranks"])
    suits = int(params["suits"])
    team1_size = int(params["team1_size"])
    no_raise_team = int(params["no_raise_team"])
    if not 2 <= n <= _MAX_PLAYERS:
      raise ValueError(f"team_leduc: players={n} must be in [2, {_MAX_PLAYERS}]")
    if bets < 0:
      raise ValueError(f"team_leduc: bets={bets} must be >= 0")
    if ranks < 1 or suits < 1:
      raise ValueError(f"team_leduc: ranks={ranks} and suits={suits} must be >= 1")
    if ranks * suits < n + 1:
      raise ValueError(f"team_leduc: deck of ranks*suits={ranks * suits} cards is too small "
                       f"for {n} private cards and a public card")
    if no_raise_team not in (0, 1, 2):
      raise ValueError(f"team_leduc: no_raise_team={no_raise_team} must be 0 (everybody may "
                       "raise), 1 (players 0..team1_size-1 may not) or 2 (the others may not)")
    if no_raise_team and not 1 <= team1_size <= n - 1:
      raise ValueError(f"team_leduc: no_raise_team={no_raise_team} needs team1_size in "
                       f"[1, {n - 1}], got team1_size={team1_size}")
    if not no_raise_team and team1_size != 0:
      raise ValueError(f"team_leduc: team1_size={team1_size} is only used with "
                       "no_raise_team=1 or 2; leave it 0")
    max_stake = 1 + _RAISE_SIZE[0] * bets + _RAISE_SIZE[1] * bets
    super().__init__(
        _GAME_TYPE,
        pyspiel.GameInfo(
            num_distinct_actions=3,
            max_chance_outcomes=ranks,
            num_players=n,
            min_utility=-float(max_stake),
            max_utility=float(max_stake * (n - 1)),
            utility_sum=0.0,
            max_game_length=2 * max_actions_per_round(n, bets)),
        params)
    self.bets = bets
    self.ranks = ranks
    self.suits = suits
    if no_raise_team == 1:
      self.no_raise = frozenset(range(team1_size))
    elif no_raise_team == 2:
      self.no_raise = frozenset(range(team1_size, n))
    else:
      self.no_raise = frozenset()
    self.max_round_actions = max_actions_per_round(n, bets)

  # The game tree may run the shadow walk (`tree.game_support`): the rules below are plain
  # Python on the state's attributes. `min_terminal_histories` is a lower bound only.
  SHADOW_WALK = True

  def min_terminal_histories(self) -> int:
    """A lower bound on the number of terminal histories (GameTree checks it first).

    The number of private deals (ordered ranks of the n players, each rank at most `suits`
    times: n! [x^n] (sum_{k<=suits} x^k / k!)^ranks): each is followed by at least one
    terminal history.

    Returns:
      The number of private deals.
    """
    p = self.get_parameters()
    n, ranks, suits = int(p["players"]), int(p["ranks"]), int(p["suits"])
    # count[m] = ordered sequences of length m over the ranks seen so far (multinomial DP).
    count = [1] + [0] * n
    for _ in range(ranks):
      count = [sum(count[m - k] * math.comb(m, k) for k in range(min(suits, m) + 1))
               for m in range(n + 1)]
    return count[n]

  def new_initial_state(self):
    return TeamLeducState(self)

  def make_py_observer(self, iig_obs_type=None, params=None):
    return TeamLeducObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self, params)


class TeamLeducState(pyspiel.State):
  """State of parameterized Leduc poker (mirrors OpenSpiel's LeducState)."""

  def __init__(self, game: TeamLeducGame):
    super().__init__(game)
    n = game.num_players()
    self._bets = game.bets
    self._ranks = game.ranks
    self._no_raise = game.no_raise
    self._n = n
    # FlatList / NestedList: cheap clones (see cheap_clone.py).
    self.deck = FlatList([game.suits] * game.ranks)  # cards left per rank
    self.private: list[int] = FlatList()
    self.public = -1
    self.round = 1
    self.cur = pyspiel.PlayerId.CHANCE
    self.stakes = 1
    self.num_calls = 0
    self.num_raises = 0
    self.remaining = n
    self.folded = FlatList([False] * n)
    self.ante = FlatList([1] * n)
    self.sequences: list[list[int]] = NestedList([[], []])
    self._terminal = False

  # -- utilities ---------------------------------------------------------------------------
  def _next_player(self, start_from: int) -> int:
    for i in range(1, self._n + 1):
      p = (start_from + i) % self._n
      if not self.folded[p]:
        return p
    raise RuntimeError("team_leduc: no player left")

  def _ready_for_next_round(self) -> bool:
    if self.num_raises == 0:
      return self.num_calls == self.remaining
    return self.num_calls == self.remaining - 1

  def hand_rank(self, player: int) -> int:
    """Hand strength: pairs above every non-pair, else the private rank.

    Args:
      player: a player (after the public card is dealt).

    Returns:
      ranks + the public rank for a pair, else the private rank.
    """
    card = self.private[player]
    if card == self.public:
      return self._ranks + card
    return card

  def pot(self) -> int:
    """The chips in the pot (every player's contribution).

    Returns:
      The sum of the players' contributions.
    """
    return sum(self.ante)

  # -- OpenSpiel API -----------------------------------------------------------------------
  def current_player(self):
    return pyspiel.PlayerId.TERMINAL if self._terminal else self.cur

  def _legal_actions(self, player):
    actions = []
    if self.stakes > self.ante[player]:
      actions.append(FOLD)
    actions.append(CALL)
    if self.num_raises < self._bets and player not in self._no_raise:
      actions.append(RAISE)
    return actions

  def chance_outcomes(self):
    assert self.is_chance_node()
    total = float(sum(self.deck))
    return [(r, c / total) for r, c in enumerate(self.deck) if c > 0]

  def _apply_action(self, action):
    if self.is_chance_node():
      if not 0 <= action < len(self.deck) or self.deck[action] == 0:
        raise ValueError(f"team_leduc: rank {action} cannot be dealt now")
      self.deck[action] -= 1
      if len(self.private) < self._n:
        self.private.append(action)
        if len(self.private) == self._n:
          self.cur = self._next_player(self._n - 1)
      else:
        self.public = action
        self.cur = self._next_player(self._n - 1)
      return
    player = self.cur
    self.sequences[self.round - 1].append(action)
    if action == FOLD:
      self.folded[player] = True
      self.remaining -= 1
    elif action == CALL:
      self.ante[player] = self.stakes
      self.num_calls += 1
    else:
      self.stakes += _RAISE_SIZE[self.round - 1]
      self.ante[player] = self.stakes
      self.num_raises += 1
      self.num_calls = 0
    if self.remaining == 1:
      self._terminal = True
    elif action != RAISE and self._ready_for_next_round():
      if self.round == 2:
        self._terminal = True
      else:
        self.round = 2
        self.num_calls = 0
        self.num_raises = 0
        self.cur = pyspiel.PlayerId.CHANCE
    else:
      self.cur = self._next_player(player)

  def _action_to_string(self, player, action):
    if player == pyspiel.PlayerId.CHANCE:
      return f"Deal rank {action}"
    return _ACTION_NAMES[action]

  def is_terminal(self):
    return self._terminal

  def returns(self):
    if not self._terminal:
      return [0.0] * self._n
    inside = [p for p in range(self._n) if not self.folded[p]]
    if len(inside) > 1:
      best = max(self.hand_rank(p) for p in inside)
      winners = [p for p in inside if self.hand_rank(p) == best]
    else:
      winners = inside
    share = self.pot() / len(winners)
    return [(share if p in winners else 0.0) - self.ante[p] for p in range(self._n)]

  def __str__(self):
    public = "" if self.public < 0 else f" public:{self.public}"
    rounds = "/".join("".join(_ACTION_CHARS[a] for a in seq) for seq in self.sequences)
    return f"private:{' '.join(map(str, self.private))}{public} bets:{rounds}"


class TeamLeducObserver:
  """Observer: pieces as in OpenSpiel's Leduc observer (cards one-hot by rank)."""

  def __init__(self, iig_obs_type, game: TeamLeducGame, params):
    if params:
      raise ValueError(f"team_leduc: observation parameters not supported; passed {params}")
    self._iig = iig_obs_type
    n, r = game.num_players(), game.ranks
    pieces = [("player", n, (n,))]
    if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      pieces.append(("private_card", r, (r,)))
    elif iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      pieces.append(("private_cards", n * r, (n, r)))
    if iig_obs_type.public_info:
      pieces.append(("community_card", r, (r,)))
      if iig_obs_type.perfect_recall:
        m = game.max_round_actions
        pieces.append(("betting", 2 * m * 3, (2, m, 3)))
      else:
        pieces.append(("pot_contribution", n, (n,)))
    self.tensor, self.dict = observer_layout.tensor_and_views(pieces)

  def set_from(self, state: TeamLeducState, player: int):
    self.tensor.fill(0)
    self.dict["player"][player] = 1
    if "private_card" in self.dict and len(state.private) > player:
      self.dict["private_card"][state.private[player]] = 1
    if "private_cards" in self.dict:
      for p, c in enumerate(state.private):
        self.dict["private_cards"][p, c] = 1
    if "community_card" in self.dict and state.public >= 0:
      self.dict["community_card"][state.public] = 1
    if "betting" in self.dict:
      for rnd, seq in enumerate(state.sequences):
        for i, a in enumerate(seq):
          self.dict["betting"][rnd, i, a] = 1
    if "pot_contribution" in self.dict:
      self.dict["pot_contribution"][:] = state.ante

  def string_from(self, state: TeamLeducState, player: int) -> str:
    iig = self._iig
    out = []
    if iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      card = state.private[player] if len(state.private) > player else -1
      out.append(f"[Observer: {player}][Private: {card}]")
    elif iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      out.append(f"[Privates: {' '.join(map(str, state.private))}]")
    if iig.public_info:
      out.append(f"[Round {state.round}][Player: {state.current_player()}][Pot: {state.pot()}]")
      if state.public >= 0:
        out.append(f"[Public: {state.public}]")
      if iig.perfect_recall:
        out.append("[Round1: " + " ".join(str(a) for a in state.sequences[0]) +
                   "][Round2: " + " ".join(str(a) for a in state.sequences[1]) + "]")
      else:
        out.append("[Ante: " + " ".join(str(a) for a in state.ante) + "]")
    return "".join(out)


pyspiel.register_game(_GAME_TYPE, TeamLeducGame)
