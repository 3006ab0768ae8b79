"""2-Suit Mini-Bridge of size N (Definition 3 of the JPS paper).

Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495, Section 6, Definition 3:

* Each player holds N cards of two suits. Chance deals s1, then s2 (two
  separate chance nodes), independently and uniformly from {0, ..., N}:
  s_i is the number of spades of player i, who holds N - s_i hearts.
  Player i sees only s_i.
* Actions: 0 = Pass, then 1H, 1S, 2H, 2S, ..., NH, NS (action 2k - 1 = kH,
  action 2k = kS), the ordered set of Definition 3.
* P1 (player 0) moves first, the players alternate, bids strictly increase
  (after NS only Pass is legal). P1's opening Pass does not end the game
  ("except for the first round"); if P2 then also passes the deal is passed
  out (reward 0). Any other Pass ends the game with the last bid, by either
  player, as the contract.
* kS makes iff s1 + s2 >= N + k; kH makes iff (2N - s1 - s2) >= N + k
  (equivalently s1 + s2 <= N - k, as in Definition 3). Both players get
  2^(k-1) if the contract makes, else -1 (utility IDENTICAL).

Load it with `pyspiel.load_game("mini_bridge(size=N)")` after
`import ospiel_team` (default N=3).

Tree size, with B = 2N bids: the auctions are Pass Pass, (a non-empty
increasing bid sequence) Pass, and Pass (a non-empty increasing bid
sequence) Pass, so there are (N+1)^2 (2^(B+1) - 1) terminal histories.
Decision nodes: the empty auction, [Pass], and the two families of non-empty
bid sequences, so (N+1)^2 2^(B+1) decision histories and (N+1) 2^(B+1)
infosets (own spades x public auction). `size` must be an int with
2 <= size <= 8: 8 is the largest size with at most 2^24 terminal histories
(our bound for a tree that an array game tree can hold in memory; size 8 has
81 * (2^17 - 1) ~ 10.6M, size 9 has 100 * (2^19 - 1) ~ 52M).

Information state (perfect recall): the player, their own number of spades
and the full public auction. Default observation (not perfect recall): the
player, their own spades, the last bid (or none), whether the auction opened
with Pass, and whether it has ended; this fixes the legal actions.

State objects are light (`clone` deep-copies `__dict__`): a state holds the
bytes of its history [s1, s2, actions...] and one int.
"""


import pyspiel

from ospiel_team.games import observer_layout

_NUM_PLAYERS = 2
_DEFAULT_SIZE = 3
MAX_SIZE = 8
PASS = 0

_GAME_TYPE = pyspiel.GameType(
    short_name="mini_bridge",
    long_name="JPS 2-Suit Mini-Bridge",
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


def num_terminal_histories(size: int) -> int:
  """Closed form (N+1)^2 (2^(2N+1) - 1) (see the module docstring).

  Args:
    size: N.

  Returns:
    (N+1)^2 (2^(2N+1) - 1).
  """
  return (size + 1) ** 2 * (2 ** (2 * size + 1) - 1)


def _check_size(params: dict) -> int:
  """Returns the validated `size` parameter or raises ValueError."""
  size = params.get("size", _DEFAULT_SIZE)
  if isinstance(size, bool) or not isinstance(size, int):
    raise ValueError(f"mini_bridge: size must be an int, got size={size!r}")
  if size < 2:
    raise ValueError(f"mini_bridge: size must be >= 2, got size={size}")
  if size > MAX_SIZE:
    raise ValueError(
        f"mini_bridge: size={size} gives {num_terminal_histories(size)} "
        f"terminal histories, more than 2^24; the limit is size <= {MAX_SIZE}")
  return size


def bid_level(action: int) -> int:
  """The level k of bid action 2k - 1 (kH) or 2k (kS).

  Args:
    action: a bid action id (>= 1).

  Returns:
    The level k.
  """
  return (action + 1) >> 1


def is_spades(action: int) -> bool:
  """True for kS (even action ids), False for kH (odd ids).

  Args:
    action: a bid action id.

  Returns:
    Whether the bid is in spades.
  """
  return action % 2 == 0


def action_name(action: int) -> str:
  """'Pass', '1H', '1S', '2H', ...

  Args:
    action: an action id (0: Pass).

  Returns:
    The call's name.
  """
  if action == PASS:
    return "Pass"
  return f"{bid_level(action)}{'S' if is_spades(action) else 'H'}"


def contract_score(size: int, s1: int, s2: int, action: int) -> float:
  """Reward of the contract `action` for spades s1, s2 (Definition 3).

  Args:
    size: N, the number of cards per suit.
    s1: the first player's spades.
    s2: the second player's spades.
    action: the final bid's action id.

  Returns:
    2^(k-1) if the fit in the bid suit reaches N + k, else -1.
  """
  k = bid_level(action)
  fit = s1 + s2 if is_spades(action) else 2 * size - s1 - s2
  return float(2 ** (k - 1)) if fit >= size + k else -1.0


class MiniBridgeGame(pyspiel.Game):
  """2-Suit Mini-Bridge (Definition 3 of the JPS paper)."""

  def __init__(self, params: dict | None = None):
    params = dict(params or {})
    size = _check_size(params)
    params["size"] = size
    self.size = size
    game_info = pyspiel.GameInfo(
        num_distinct_actions=2 * size + 1,
        max_chance_outcomes=size + 1,
        num_players=_NUM_PLAYERS,
        min_utility=-1.0,
        max_utility=float(2 ** (size - 1)),
        utility_sum=None,
        max_game_length=2 * size + 2)  # Pass, all 2N bids, Pass.
    super().__init__(_GAME_TYPE, game_info, params)

  # The game tree may rely on `min_terminal_histories` being exact (`tree.game_support`).
  TERMINAL_HISTORIES_EXACT = True

  def min_terminal_histories(self) -> int:
    """The exact number of terminal histories (GameTree checks it before walking).

    Returns:
      (N+1)^2 (2^(2N+1) - 1) for size N.
    """
    n = int(self.get_parameters()["size"])
    return (n + 1) ** 2 * (2 ** (2 * n + 1) - 1)  # see the module docstring

  def new_initial_state(self) -> "MiniBridgeState":
    """Returns the state before the deal."""
    return MiniBridgeState(self)

  def max_chance_nodes_in_history(self) -> int:
    return 2

  def make_py_observer(self, iig_obs_type=None,
                       params=None) -> "MiniBridgeObserver":
    """Returns an observer (information state when perfect_recall=True)."""
    return MiniBridgeObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
        self.size, params)


def _ended(h: bytes) -> bool:
  """True when the auction in history h = [s1, s2, actions...] is over."""
  return len(h) > 3 and h[-1] == PASS


class MiniBridgeState(pyspiel.State):
  """A state: the bytes [s1, s2, action_1, ..., action_t]."""

  def __init__(self, game: MiniBridgeGame):
    super().__init__(game)
    self._h = b""
    self._n = game.size

  @property
  def moves(self) -> bytes:
    """Every action taken so far, chance's included, one byte each (what the observer reads)."""
    return self._h

  def current_player(self) -> int:
    h = self._h
    n = len(h)
    if n < 2:
      return pyspiel.PlayerId.CHANCE
    if n > 3 and h[-1] == PASS:
      return pyspiel.PlayerId.TERMINAL
    return n & 1  # n - 2 actions so far: even -> P1 (0), odd -> P2 (1).

  def _legal_actions(self, player: int) -> list[int]:
    last = max(self._h[2:], default=PASS)  # Bids increase: last bid = max.
    if last == PASS:
      return list(range(2 * self._n + 1))  # Opening, or P2 after a Pass.
    return [PASS] + list(range(last + 1, 2 * self._n + 1))

  def chance_outcomes(self) -> list[tuple[int, float]]:
    p = 1.0 / (self._n + 1)
    return [(s, p) for s in range(self._n + 1)]

  def _apply_action(self, action: int) -> None:
    h = self._h
    if len(h) < 2:
      ok = 0 <= action <= self._n  # Deal of s1 or s2.
    else:
      ok = not _ended(h) and (
          action == PASS or max(h[2:], default=PASS) < action <= 2 * self._n)
    if not ok:
      raise ValueError(
          f"mini_bridge: illegal action {action} in state '{self}'")
    self._h = h + bytes((action,))

  def _action_to_string(self, player: int, action: int) -> str:
    if player == pyspiel.PlayerId.CHANCE:
      return f"s{min(len(self._h), 1) + 1}={action}"
    return action_name(action)

  def is_terminal(self) -> bool:
    return _ended(self._h)

  def returns(self) -> list[float]:
    h = self._h
    if not _ended(h):
      return [0.0, 0.0]
    last = max(h[2:])
    if last == PASS:
      return [0.0, 0.0]  # Passed out.
    r = contract_score(self._n, h[0], h[1], last)
    return [r, r]

  def auction(self) -> str:
    """The public auction so far, e.g. 'Pass 1S 2H Pass'.

    Returns:
      The calls' names joined by spaces.
    """
    return " ".join(action_name(a) for a in self._h[2:])

  def __str__(self) -> str:
    h = self._h
    n = self._n
    hands = []
    for i in range(2):
      hands.append(f"P{i + 1}:{h[i]}S{n - h[i]}H" if i < len(h)
                   else f"P{i + 1}:?")
    return f"{' '.join(hands)} auction:{self.auction()}"


class MiniBridgeObserver:
  """Observer, conforming to OpenSpiel's PyObserver (`open_spiel/python/observation.py`).

  Pieces: `player` (2); private info: `spades` (N+1, own number of spades)
  for SINGLE_PLAYER, `all_spades` (2 x N+1) for ALL_PLAYERS; public info:
  `history` (2N+2 x 2N+1 one-hot actions) with perfect recall, else
  `last_bid` (2N+1 one-hot, index 0 = no bid yet), `opening_pass` (1) and
  `ended` (1).
  """

  def __init__(self, iig_obs_type, size: int, params):
    if params:
      raise ValueError(f"Observation parameters not supported; passed {params}")
    self._n = size
    self._private = iig_obs_type.private_info
    self._public = iig_obs_type.public_info
    self._recall = iig_obs_type.perfect_recall
    num_actions = 2 * size + 1
    pieces = [("player", 2, (2,))]
    if self._private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      pieces.append(("spades", size + 1, (size + 1,)))
    elif self._private == pyspiel.PrivateInfoType.ALL_PLAYERS:
      pieces.append(("all_spades", 2 * (size + 1), (2, size + 1)))
    if self._public:
      if self._recall:
        pieces.append(("history", (num_actions + 1) * num_actions,
                       (num_actions + 1, num_actions)))
      else:
        pieces.append(("last_bid", num_actions, (num_actions,)))
        pieces.append(("opening_pass", 1, (1,)))
        pieces.append(("ended", 1, (1,)))
    self.tensor, self.dict = observer_layout.tensor_and_views(pieces)

  def set_from(self, state: MiniBridgeState, player: int) -> None:
    """Updates `tensor` and `dict` to reflect `state` from `player`'s view."""
    self.tensor.fill(0)
    self.dict["player"][player] = 1
    h = state.moves
    if "spades" in self.dict and len(h) > player:
      self.dict["spades"][h[player]] = 1
    if "all_spades" in self.dict:
      for i, c in enumerate(h[:2]):
        self.dict["all_spades"][i, c] = 1
    if "history" in self.dict:
      for t, a in enumerate(h[2:]):
        self.dict["history"][t, a] = 1
    if "last_bid" in self.dict:
      self.dict["last_bid"][max(h[2:], default=PASS)] = 1
      self.dict["opening_pass"][0] = float(len(h) > 2 and h[2] == PASS)
      self.dict["ended"][0] = float(_ended(h))

  def string_from(self, state: MiniBridgeState, player: int) -> str:
    """E.g. 'p1 spades:2 auction:Pass 1S' or 'p1 spades:2 last:1S open_pass'."""
    h = state.moves
    text = f"p{player}"
    if self._private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      if len(h) > player:
        text += f" spades:{h[player]}"
    elif self._private == pyspiel.PrivateInfoType.ALL_PLAYERS:
      text += " spades:" + ",".join(str(c) for c in h[:2])
    if self._public:
      if self._recall:
        text += " auction:" + " ".join(action_name(a) for a in h[2:])
      else:
        last = max(h[2:], default=PASS)
        text += f" last:{action_name(last) if last != PASS else '-'}"
        if len(h) > 2 and h[2] == PASS:
          text += " open_pass"
        if _ended(h):
          text += " ended"
    return text


pyspiel.register_game(_GAME_TYPE, MiniBridgeGame)
