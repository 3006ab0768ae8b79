"""Liar's Dice with n players and one d-sided die each (Zhang & Sandholm's `D`).

Liar's Dice with one d-sided die per player and n players (the `D` family of Zhang & Sandholm,
"Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree Decompositions", AAAI 2022,
Sec. 5, Table 1; the game of Farina, Celli, Gatti & Sandholm, "Connecting Optimal Ex-Ante
Collusion in Teams to Extensive-Form Correlation: Faster Algorithms and Positive Complexity
Results", ICML 2021).

Chance rolls one die for player 0, then player 1, ... (chance action i = face i+1, each with
probability 1/d). Players bid in seat order (0, 1, ..., n-1, 0, ...) on claims (quantity, face)
"at least `quantity` of all n dice show `face`", quantity in 1..n, face in 1..d; each bid must
be strictly higher than the previous one, or a player calls "Liar" on the previous bidder (not as
the first action). On a call the dice are revealed: if the claim holds the caller loses,
otherwise the last bidder loses; the loser gets -1, the winner (the other of the two) +1,
everybody else 0. With `wild=true` (default, OpenSpiel's rule) the highest face d is wild: it
counts as every face; with `wild=false` a die counts only for its own face.

Bid order (part of the game's definition), the two orders of OpenSpiel's `liars_dice`:
- `bidding_rule=reset-face` (default, OpenSpiel's default): quantity first, then face:
  1-1 < 1-2 < ... < 1-d < 2-1 < ... < n-d; action id = (quantity-1)*d + (face-1).
- `bidding_rule=reset-quantity`: face first, then quantity:
  1-1 < 2-1 < ... < n-1 < 1-2 < ... < n-d; action id = (face-1)*n + (quantity-1).
Action n*d is "Liar". The tree's shape does not depend on the order (any strictly increasing
sequence of the n*d bids, then "Liar"), so there are d^n * (2^(n*d) - 1) terminal histories
(`21D3`: 27 * 511 = 13,797, as Table 1 says); the returns do.

**The Table 1 instances use `bidding_rule=reset-quantity, wild=false`** (`team_instances.py`).
Why: the sizes of Table 1 (|Z|, #Seq) cannot tell rule variants apart, but the value of 21D3
(teams {0,1} vs {2}; the paper's .2840) can. The team LP on 21D3 gives (loser -1 / winner +1
unless stated): face-first order (`reset-quantity`) 23/81 = 0.283951 with or without the wild
face; quantity-first order (`reset-face`) 1/3 with the wild face, 26/81 = 0.320988 without;
the other payoff splits tried are off too (loser -1 and every other player +1/2: 0.277778
face-first, 1/3 quantity-first; winner +1 and every other player -1/2: 0.5). So the value
fixes the bid order (face first: a raise names a higher face, or the same face with a higher
quantity) and the payoff, but not the wild face: 21D3's value is the same either way, and in
every 2-sided game we tried (n = 2..4, several seatings) face-first values do not depend on the
wild face either, so 33D2/42D2/51D2 are not expected to tell. We use no wild face because the
description of the game by Farina et al. (whose instances the paper reuses) names none; this
part is a documented choice, not a fact checked against a published number.

With n = 2 and `wild=true` this is exactly OpenSpiel's
`liars_dice(numdice=1, dice_sides=d, bidding_rule=...)` (same histories, returns and
information-state strings and tensors: checked by the tests); OpenSpiel's game allows only two
players, hence this one.
"""


import pyspiel

from ospiel_team.games import observer_layout
from ospiel_team.games.cheap_clone import FlatList

_MAX_PLAYERS = 10
_DEFAULT_PARAMS = {"players": 3, "sides": 3, "bidding_rule": "reset-face", "wild": True}
_RULES = ("reset-face", "reset-quantity")

_GAME_TYPE = pyspiel.GameType(
    short_name="team_liars_dice",
    long_name="Liar's Dice with one die per player and n players",
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


class TeamLiarsDiceGame(pyspiel.Game):
  """Liar's Dice, one `sides`-sided die for each of `players` players."""

  def __init__(self, params: dict | None = None):
    params = {**_DEFAULT_PARAMS, **(params or {})}
    n = int(params["players"])
    sides = int(params["sides"])
    rule = str(params["bidding_rule"])
    wild = params["wild"]
    if not isinstance(wild, bool):
      raise ValueError(f"team_liars_dice: wild={wild!r} must be true or false")
    if not 2 <= n <= _MAX_PLAYERS:
      raise ValueError(f"team_liars_dice: players={n} must be in [2, {_MAX_PLAYERS}]")
    if sides < 1:
      raise ValueError(f"team_liars_dice: sides={sides} must be >= 1")
    if rule not in _RULES:
      raise ValueError(f"team_liars_dice: bidding_rule={rule!r} must be one of {_RULES}")
    super().__init__(
        _GAME_TYPE,
        pyspiel.GameInfo(
            num_distinct_actions=n * sides + 1,
            max_chance_outcomes=sides,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=n * sides + 1),
        params)
    self.sides = sides
    self.reset_face = rule == "reset-face"
    self.wild = wild

  # What the game tree may use (`tree.game_support`): an exact terminal count and the shadow
  # walk (the rules below are plain Python on the state's attributes).
  TERMINAL_HISTORIES_EXACT = True
  SHADOW_WALK = True

  def min_terminal_histories(self) -> int:
    """The exact number of terminal histories (GameTree checks it before walking).

    Returns:
      d^n x (2^(n d) - 1) for n players with d-sided dice.
    """
    p = self.get_parameters()
    n, d = int(p["players"]), int(p["sides"])
    return d ** n * (2 ** (n * d) - 1)  # rolls x non-empty increasing bid sequence

  def new_initial_state(self):
    return TeamLiarsDiceState(self)

  def make_py_observer(self, iig_obs_type=None, params=None):
    return TeamLiarsDiceObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
        self.num_players(), self.sides, params)


def unrank_bid(bid: int, num_players: int, sides: int, reset_face: bool) -> tuple[int, int]:
  """Action id -> (quantity, face) (OpenSpiel's `UnrankBid`).

  Args:
    bid: the action id, 0 to num_players x sides - 1.
    num_players: the number of players.
    sides: the dice's sides.
    reset_face: the `bidding_rule=reset-face` order (quantity first, then face), else reset-quantity
      (face first).

  Returns:
    `(quantity, face)`, both from 1.
  """
  if not 0 <= bid < num_players * sides:
    raise ValueError(f"team_liars_dice: {bid} is not a bid id")
  if reset_face:
    return bid // sides + 1, bid % sides + 1
  return bid % num_players + 1, bid // num_players + 1


class TeamLiarsDiceState(pyspiel.State):
  """State: dice rolled so far and the bid sequence."""

  def __init__(self, game: TeamLiarsDiceGame):
    super().__init__(game)
    self._n = game.num_players()
    self._sides = game.sides
    self._reset_face = game.reset_face
    self._wild = game.wild
    self.dice: list[int] = FlatList()  # FlatList: cheap clones (see cheap_clone.py); faces 1..sides
    self.bids: list[int] = FlatList()  # action ids, possibly ending with the call
    self.winner = -1
    self.loser = -1

  @property
  def liar_action(self) -> int:
    return self._n * self._sides

  def current_player(self):
    if self.winner >= 0:
      return pyspiel.PlayerId.TERMINAL
    if len(self.dice) < self._n:
      return pyspiel.PlayerId.CHANCE
    return len(self.bids) % self._n

  def _legal_actions(self, player):
    start = self.bids[-1] + 1 if self.bids else 0
    actions = list(range(start, self.liar_action))
    if self.bids:
      actions.append(self.liar_action)
    return actions

  def chance_outcomes(self):
    assert self.is_chance_node()
    p = 1.0 / self._sides
    return [(i, p) for i in range(self._sides)]

  def bid(self, action: int) -> tuple[int, int]:
    """The (quantity, face) of a bid action (`unrank_bid`).

    Args:
      action: a bid action id.

    Returns:
      `(quantity, face)`.
    """
    return unrank_bid(action, self._n, self._sides, self._reset_face)

  def _apply_action(self, action):
    if self.is_chance_node():
      if not 0 <= action < self._sides:
        raise ValueError(f"team_liars_dice: roll {action} out of range")
      self.dice.append(action + 1)
      return
    caller = len(self.bids) % self._n
    self.bids.append(action)
    if action == self.liar_action:
      quantity, face = self.bid(self.bids[-2])
      matches = sum(1 for f in self.dice if f == face or (self._wild and f == self._sides))
      bidder = (caller - 1) % self._n
      if matches >= quantity:
        self.winner, self.loser = bidder, caller
      else:
        self.winner, self.loser = caller, bidder

  def _action_to_string(self, player, action):
    if player == pyspiel.PlayerId.CHANCE:
      return f"Roll {action + 1}"
    if action == self.liar_action:
      return "Liar"
    quantity, face = self.bid(action)
    return f"{quantity}-{face}"

  def is_terminal(self):
    return self.winner >= 0

  def returns(self):
    r = [0.0] * self._n
    if self.winner >= 0:
      r[self.winner] = 1.0
      r[self.loser] = -1.0
    return r

  def bid_string(self, bids: list[int]) -> str:
    """The bids as text, each preceded by a space.

    Args:
      bids: bid action ids.

    Returns:
      The concatenated action strings.
    """
    return "".join(" " + self._action_to_string(0, b) for b in bids)

  def __str__(self):
    return " ".join(map(str, self.dice)) + self.bid_string(self.bids)


class TeamLiarsDiceObserver:
  """Observer.

  The perfect-recall string and tensor are those of OpenSpiel's `liars_dice` (own die, then every
  bid); the default observation keeps only the last n bids, like OpenSpiel's observation tensor.
  """

  def __init__(self, iig_obs_type, num_players: int, sides: int, params):
    if params:
      raise ValueError(f"team_liars_dice: observation parameters not supported; passed {params}")
    self._iig = iig_obs_type
    self._n = num_players
    pieces = []
    if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      pieces += [("player", num_players, (num_players,)), ("private_die", sides, (sides,))]
    elif iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      pieces += [("player", num_players, (num_players,)),
                 ("all_dice", num_players * sides, (num_players, sides))]
    if iig_obs_type.public_info:
      pieces.append(("bids", num_players * sides + 1, (num_players * sides + 1,)))
    self.tensor, self.dict = observer_layout.tensor_and_views(pieces)

  def _visible_bids(self, state: TeamLiarsDiceState) -> list[int]:
    return state.bids if self._iig.perfect_recall else state.bids[-self._n:]

  def set_from(self, state: TeamLiarsDiceState, player: int):
    self.tensor.fill(0)
    if "player" in self.dict:
      self.dict["player"][player] = 1
    if "private_die" in self.dict and len(state.dice) > player:
      self.dict["private_die"][state.dice[player] - 1] = 1
    if "all_dice" in self.dict:
      for p, f in enumerate(state.dice):
        self.dict["all_dice"][p, f - 1] = 1
    if "bids" in self.dict:
      for b in self._visible_bids(state):
        self.dict["bids"][b] = 1

  def string_from(self, state: TeamLiarsDiceState, player: int) -> str:
    result = ""
    if self._iig.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      if len(state.dice) > player:
        result += str(state.dice[player])
    elif self._iig.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      result += "[" + " ".join(map(str, state.dice)) + "]"
    if self._iig.public_info:
      if not self._iig.perfect_recall:
        result += f" [bids {len(state.bids)}]"
      result += state.bid_string(self._visible_bids(state))
    return result


pyspiel.register_game(_GAME_TYPE, TeamLiarsDiceGame)
