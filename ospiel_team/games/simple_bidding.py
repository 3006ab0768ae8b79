"""Simple Bidding Game of size N (Definition 2 of the JPS paper).

Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495, Section 6, Definition 2:

* Chance deals s1, then s2, independently and uniformly from {0, ..., N-1}
  (two separate chance nodes). Player i sees only s_i.
* Bids are the powers of two 2^0, ..., 2^k with k = ceil(log2 N), which is
  also the exponent of the largest power of two <= 2(N-1) (the largest sum
  s1 + s2). Actions: 0 = Pass, j + 1 = bid 2^j (increasing order).
* P1 (player 0) moves first and the players alternate. P1's first action must
  be a bid: Pass is not legal then (so every game has a last bid; Definition 2
  leaves the no-bid case undefined). Every bid is strictly higher than the
  previous one; after the top bid 2^k only Pass is legal.
* The first Pass ends the game. Both players get 2^j for the last bid 2^j if
  s1 + s2 >= 2^j, else 0 (utility IDENTICAL).

Load it with `pyspiel.load_game("simple_bidding(size=N)")` after
`import ospiel_team` (default N=4: bids 1, 2, 4).

Tree size, with K = k + 1 bids: an auction is a non-empty increasing subset of
the bids followed by Pass, so there are N^2 (2^K - 1) terminal histories;
decision nodes are (empty or non-empty increasing bid sequence) x deal, so
N^2 2^K decision histories and N 2^K infosets (own number x public
sequence), split between P1 and P2 by the parity of the sequence length.
`size` must be an int with 2 <= size <= 181: 181 is the largest size with at
most 2^24 terminal histories (our bound for a tree that an array game tree can
hold in memory); size 182 has 182^2 * 511 > 2^24.

Information state (perfect recall): the player, their own number and the full
public bid sequence. Default observation (not perfect recall): the player,
their own number and the last bid (or "none"), which fixes the legal actions.

State objects are light (`clone` deep-copies `__dict__`): a state holds the
bytes of its history [s1, s2, actions...] and two ints.
"""


import pyspiel

from ospiel_team.games import observer_layout

_NUM_PLAYERS = 2
_DEFAULT_SIZE = 4
_MAX_TERMINAL_HISTORIES = 2 ** 24
MAX_SIZE = 181
PASS = 0

_GAME_TYPE = pyspiel.GameType(
    short_name="simple_bidding",
    long_name="JPS Simple Bidding Game",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.IDENTICAL,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"size": _DEFAULT_SIZE})


def num_bids(size: int) -> int:
  """K = k + 1, where 2^k (k = ceil(log2 N)) is the top bid.

  Args:
    size: N, the number of private values.

  Returns:
    K.
  """
  return (size - 1).bit_length() + 1


def num_terminal_histories(size: int) -> int:
  """Closed form N^2 (2^K - 1) (see the module docstring).

  Args:
    size: N.

  Returns:
    N^2 (2^K - 1).
  """
  return size * size * (2 ** num_bids(size) - 1)


def _check_size(params: dict) -> int:
  """Returns the validated `size` parameter or raises ValueError."""
  size = params.get("size", _DEFAULT_SIZE)
  if isinstance(size, bool) or not isinstance(size, int):
    raise ValueError(
        f"simple_bidding: size must be an int, got size={size!r}")
  if size < 2:
    raise ValueError(f"simple_bidding: size must be >= 2, got size={size}")
  if size > MAX_SIZE:
    raise ValueError(
        f"simple_bidding: size={size} gives {num_terminal_histories(size)} "
        f"terminal histories, more than 2^24; the limit is size <= {MAX_SIZE}")
  return size


def bid_value(action: int) -> int:
  """The bid 2^(action - 1) of a bid action (action >= 1).

  Args:
    action: a bid action id (>= 1).

  Returns:
    2^(action - 1).
  """
  return 1 << (action - 1)


def _token(action: int) -> str:
  return "P" if action == PASS else str(bid_value(action))


class SimpleBiddingGame(pyspiel.Game):
  """The Simple Bidding Game (Definition 2 of the JPS paper)."""

  def __init__(self, params: dict | None = None):
    params = dict(params or {})
    size = _check_size(params)
    params["size"] = size
    self.size = size
    self.num_bids = num_bids(size)
    game_info = pyspiel.GameInfo(
        num_distinct_actions=self.num_bids + 1,
        max_chance_outcomes=size,
        num_players=_NUM_PLAYERS,
        min_utility=0.0,
        max_utility=float(bid_value(self.num_bids)),
        utility_sum=None,
        max_game_length=self.num_bids + 1)
    super().__init__(_GAME_TYPE, game_info, params)

  # The game tree may rely on `min_terminal_histories` being exact (`tree.game_support`).
  TERMINAL_HISTORIES_EXACT = True

  def min_terminal_histories(self) -> int:
    """The exact number of terminal histories (GameTree checks it before walking).

    Returns:
      N^2 (2^K - 1).
    """
    n = int(self.get_parameters()["size"])
    bids = (n - 1).bit_length() + 1  # 2^0 .. 2^k, k = ceil(log2 n)
    return n * n * (2 ** bids - 1)  # deal x non-empty increasing bid sequence

  def new_initial_state(self) -> "SimpleBiddingState":
    """Returns the state before the deal."""
    return SimpleBiddingState(self)

  def max_chance_nodes_in_history(self) -> int:
    return 2

  def make_py_observer(self, iig_obs_type=None,
                       params=None) -> "SimpleBiddingObserver":
    """Returns an observer (information state when perfect_recall=True)."""
    return SimpleBiddingObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
        self.size, self.num_bids, params)


class SimpleBiddingState(pyspiel.State):
  """A state: the bytes [s1, s2, action_1, ..., action_t]."""

  def __init__(self, game: SimpleBiddingGame):
    super().__init__(game)
    self._h = b""
    self._n = game.size
    self._k = game.num_bids

  @property
  def moves(self) -> bytes:
    """Every action taken so far, chance's included, one byte each (what the observer reads)."""
    return self._h

  def current_player(self) -> int:
    h = self._h
    n = len(h)
    if n < 2:
      return pyspiel.PlayerId.CHANCE
    if n > 2 and h[-1] == PASS:
      return pyspiel.PlayerId.TERMINAL
    return n & 1  # n - 2 actions so far: even -> P1 (0), odd -> P2 (1).

  def _legal_actions(self, player: int) -> list[int]:
    h = self._h
    if len(h) == 2:
      return list(range(1, self._k + 1))  # First-bid rule: no Pass.
    return [PASS] + list(range(h[-1] + 1, self._k + 1))

  def chance_outcomes(self) -> list[tuple[int, float]]:
    p = 1.0 / self._n
    return [(s, p) for s in range(self._n)]

  def _apply_action(self, action: int) -> None:
    h = self._h
    n = len(h)
    if n < 2:
      ok = 0 <= action < self._n  # Deal of s1 or s2.
    elif n == 2:
      ok = 1 <= action <= self._k  # First-bid rule: P1 must bid.
    else:
      ok = h[-1] != PASS and (action == PASS or h[-1] < action <= self._k)
    if not ok:
      raise ValueError(
          f"simple_bidding: illegal action {action} in state '{self}'")
    self._h = h + bytes((action,))

  def _action_to_string(self, player: int, action: int) -> str:
    if player == pyspiel.PlayerId.CHANCE:
      return f"s{min(len(self._h), 1) + 1}={action}"
    if action == PASS:
      return "Pass"
    return f"Bid {bid_value(action)}"

  def is_terminal(self) -> bool:
    h = self._h
    return len(h) > 2 and h[-1] == PASS

  def returns(self) -> list[float]:
    h = self._h
    if len(h) > 2 and h[-1] == PASS:
      bid = bid_value(h[-2])
      if h[0] + h[1] >= bid:
        return [float(bid), float(bid)]
    return [0.0, 0.0]

  def bids(self) -> str:
    """The public auction so far, e.g. '1 2 P'.

    Returns:
      The bids' tokens joined by spaces.
    """
    return " ".join(_token(a) for a in self._h[2:])

  def __str__(self) -> str:
    h = self._h
    deal = " ".join(f"s{i + 1}={h[i] if i < len(h) else '?'}"
                    for i in range(2))
    return f"{deal} bids:{self.bids()}"


class SimpleBiddingObserver:
  """Observer, conforming to OpenSpiel's PyObserver (`open_spiel/python/observation.py`).

  Pieces: `player` (2); private info: `card` (N, own number) for
  SINGLE_PLAYER, `cards` (2 x N) for ALL_PLAYERS; public info:
  `history` (K+1 x K+1 one-hot actions) with perfect recall, else `last_bid`
  (K+1 one-hot: index 0 = no bid yet, j + 1 = bid 2^j) and `ended` (1).
  """

  def __init__(self, iig_obs_type, size: int, k: int, params):
    if params:
      raise ValueError(f"Observation parameters not supported; passed {params}")
    self._private = iig_obs_type.private_info
    self._public = iig_obs_type.public_info
    self._recall = iig_obs_type.perfect_recall
    pieces = [("player", 2, (2,))]
    if self._private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      pieces.append(("card", size, (size,)))
    elif self._private == pyspiel.PrivateInfoType.ALL_PLAYERS:
      pieces.append(("cards", 2 * size, (2, size)))
    if self._public:
      if self._recall:
        pieces.append(("history", (k + 1) ** 2, (k + 1, k + 1)))
      else:
        pieces.append(("last_bid", k + 1, (k + 1,)))
        pieces.append(("ended", 1, (1,)))
    self.tensor, self.dict = observer_layout.tensor_and_views(pieces)

  def set_from(self, state: SimpleBiddingState, player: int) -> None:
    """Updates `tensor` and `dict` to reflect `state` from `player`'s view."""
    self.tensor.fill(0)
    self.dict["player"][player] = 1
    h = state.moves
    if "card" in self.dict and len(h) > player:
      self.dict["card"][h[player]] = 1
    if "cards" in self.dict:
      for i, c in enumerate(h[:2]):
        self.dict["cards"][i, c] = 1
    if "history" in self.dict:
      for t, a in enumerate(h[2:]):
        self.dict["history"][t, a] = 1
    if "last_bid" in self.dict:
      bids = [a for a in h[2:] if a != PASS]
      self.dict["last_bid"][bids[-1] if bids else 0] = 1
      self.dict["ended"][0] = float(len(h) > 2 and h[-1] == PASS)

  def string_from(self, state: SimpleBiddingState, player: int) -> str:
    """E.g. 'p0 card:1 bids:1 2' (info state) or 'p0 card:1 last:2'."""
    h = state.moves
    text = f"p{player}"
    if self._private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      if len(h) > player:
        text += f" card:{h[player]}"
    elif self._private == pyspiel.PrivateInfoType.ALL_PLAYERS:
      text += " cards:" + ",".join(str(c) for c in h[:2])
    if self._public:
      if self._recall:
        text += " bids:" + " ".join(_token(a) for a in h[2:])
      else:
        bids = [a for a in h[2:] if a != PASS]
        text += f" last:{bid_value(bids[-1]) if bids else '-'}"
        if len(h) > 2 and h[-1] == PASS:
          text += " ended"
    return text


pyspiel.register_game(_GAME_TYPE, SimpleBiddingGame)
