"""Simple Communication Game of length L (Definition 1 of the JPS paper).

Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495, Section 6, Definition 1:

* Chance deals P1's private number s1 uniformly from {0, ..., 2^L - 1}.
* P1 (player 0) sees s1 and sends L public binary signals (actions 0 and 1),
  one per turn.
* P2 (player 1) sees only the signals and guesses a2 in {0, ..., 2^L - 1}.
* Both players get the common reward 1[a2 == s1] (utility IDENTICAL).

Load it with `pyspiel.load_game("comm(length=L)")` after `import ospiel_team`
(default L=3). Choices where Definition 1 is silent:

* Action ids: a signal b in {0, 1} is action b; the guess a2 is action a2; so
  `num_distinct_actions` is 2^L (at least 2).
* Only the deal of s1 is a chance node (Definition 1 has no s2).
* Tree size: 2^L * 2^L * 2^L = 2^(3L) terminal histories; P1 has
  2^L * (2^L - 1) infosets (s1 and the signals sent so far), P2 has 2^L (the
  signal word). `length` must be an int with 1 <= length <= 8: length 8 is the
  largest with at most 2^24 terminal histories (our bound for a tree that an
  array game tree can hold in memory); length 9 would have 2^27.
* Information state (perfect recall): the player, P1's s1 (P1 only), and the
  full signal word. The default observation is the same: the public state of
  this game is the whole signal word (P2 needs all of it to guess), so no
  shorter Markov summary exists.

State objects are light (`clone` deep-copies `__dict__`): a state holds the
bytes of its action history and two ints.
"""


import pyspiel

from ospiel_team.games import observer_layout

_NUM_PLAYERS = 2
_DEFAULT_LENGTH = 3
MAX_LENGTH = 8  # 2^(3 * 8) = 2^24 terminal histories.

_GAME_TYPE = pyspiel.GameType(
    short_name="comm",
    long_name="JPS Simple Communication Game",
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
    parameter_specification={"length": _DEFAULT_LENGTH})


def _check_length(params: dict) -> int:
  """Returns the validated `length` parameter or raises ValueError."""
  length = params.get("length", _DEFAULT_LENGTH)
  if isinstance(length, bool) or not isinstance(length, int):
    raise ValueError(f"comm: length must be an int, got length={length!r}")
  if length < 1:
    raise ValueError(f"comm: length must be >= 1, got length={length}")
  if length > MAX_LENGTH:
    raise ValueError(
        f"comm: length={length} gives 2^{3 * length} terminal histories; "
        f"the limit is length <= {MAX_LENGTH} (2^24 terminal histories)")
  return length


def num_terminal_histories(length: int) -> int:
  """Closed form: 2^L deals x 2^L signal words x 2^L guesses.

  Args:
    length: the signal length L.

  Returns:
    2^(3 L).
  """
  return 2 ** (3 * length)


class CommGame(pyspiel.Game):
  """The Simple Communication Game (Definition 1 of the JPS paper)."""

  def __init__(self, params: dict | None = None):
    params = dict(params or {})
    length = _check_length(params)
    params["length"] = length
    self.length = length
    self.num_messages = 2 ** length
    game_info = pyspiel.GameInfo(
        num_distinct_actions=max(2, self.num_messages),
        max_chance_outcomes=self.num_messages,
        num_players=_NUM_PLAYERS,
        min_utility=0.0,
        max_utility=1.0,
        utility_sum=None,
        max_game_length=length + 1)
    super().__init__(_GAME_TYPE, game_info, params)

  # The game tree may rely on `min_terminal_histories` being exact (`tree.game_support`).
  TERMINAL_HISTORIES_EXACT = True

  def min_terminal_histories(self) -> int:
    """The exact number of terminal histories (GameTree checks it before walking).

    Returns:
      2^(3 L) for signal length L.
    """
    p = self.get_parameters()
    return 2 ** (3 * int(p["length"]))  # s1, the signal word, the guess

  def new_initial_state(self) -> "CommState":
    """Returns the state before the deal."""
    return CommState(self)

  def max_chance_nodes_in_history(self) -> int:
    return 1

  def make_py_observer(self, iig_obs_type=None, params=None) -> "CommObserver":
    """Returns an observer (information state when perfect_recall=True)."""
    return CommObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
        self.length, params)


class CommState(pyspiel.State):
  """A state: the bytes [s1, signal_1, ..., signal_t, (guess)]."""

  def __init__(self, game: CommGame):
    super().__init__(game)
    self._h = b""
    self._len = game.length

  @property
  def moves(self) -> bytes:
    """Every action taken so far, chance's included, one byte each (what the observer reads)."""
    return self._h

  def current_player(self) -> int:
    n = len(self._h)
    if n == 0:
      return pyspiel.PlayerId.CHANCE
    if n <= self._len:
      return 0
    if n == self._len + 1:
      return 1
    return pyspiel.PlayerId.TERMINAL

  def _legal_actions(self, player: int) -> list[int]:
    if len(self._h) <= self._len:
      return [0, 1]
    return list(range(1 << self._len))

  def chance_outcomes(self) -> list[tuple[int, float]]:
    m = 1 << self._len
    p = 1.0 / m
    return [(s, p) for s in range(m)]

  def _apply_action(self, action: int) -> None:
    n = len(self._h)
    if n == 0 or n == self._len + 1:
      ok = 0 <= action < (1 << self._len)  # Deal of s1, or P2's guess.
    else:
      ok = n <= self._len and action in (0, 1)  # A signal.
    if not ok:
      raise ValueError(f"comm: illegal action {action} in state '{self}'")
    self._h += bytes((action,))

  def _action_to_string(self, player: int, action: int) -> str:
    if player == pyspiel.PlayerId.CHANCE:
      return f"s1={action}"
    if player == 0:
      return f"Signal {action}"
    return f"Guess {action}"

  def is_terminal(self) -> bool:
    return len(self._h) == self._len + 2

  def returns(self) -> list[float]:
    h = self._h
    if len(h) == self._len + 2 and h[-1] == h[0]:
      return [1.0, 1.0]
    return [0.0, 0.0]

  def signals(self) -> str:
    """The public signal word sent so far, e.g. '010'.

    Returns:
      One character '0' or '1' per signal bit sent.
    """
    return "".join("01"[b] for b in self._h[1:self._len + 1])

  def __str__(self) -> str:
    h = self._h
    if not h:
      return "s1=? signals="
    text = f"s1={h[0]} signals={self.signals()}"
    if len(h) == self._len + 2:
      text += f" guess={h[-1]}"
    return text


class CommObserver:
  """Observer, conforming to OpenSpiel's PyObserver (`open_spiel/python/observation.py`).

  Pieces: `player` (2), `s1` (2^L one-hot, P1's private number; only when
  private info is requested, and only filled for a player who may see it),
  `signals` (L x 2 one-hot of the signal word; when public info is requested).
  """

  def __init__(self, iig_obs_type, length: int, params):
    if params:
      raise ValueError(f"Observation parameters not supported; passed {params}")
    self._len = length
    self._private = iig_obs_type.private_info
    pieces = [("player", 2, (2,))]
    if self._private != pyspiel.PrivateInfoType.NONE:
      pieces.append(("s1", 2 ** length, (2 ** length,)))
    self._public = iig_obs_type.public_info
    if self._public:
      pieces.append(("signals", 2 * length, (length, 2)))
    self.tensor, self.dict = observer_layout.tensor_and_views(pieces)

  def _sees_s1(self, player: int) -> bool:
    return (self._private == pyspiel.PrivateInfoType.ALL_PLAYERS or
            (self._private == pyspiel.PrivateInfoType.SINGLE_PLAYER and
             player == 0))

  def set_from(self, state: CommState, player: int) -> None:
    """Updates `tensor` and `dict` to reflect `state` from `player`'s view."""
    self.tensor.fill(0)
    self.dict["player"][player] = 1
    h = state.moves
    if h and self._sees_s1(player):
      self.dict["s1"][h[0]] = 1
    if self._public:
      sig = self.dict["signals"]
      for t, b in enumerate(h[1:self._len + 1]):
        sig[t, b] = 1

  def string_from(self, state: CommState, player: int) -> str:
    """E.g. 'p0 s1:5 sig:01' for P1, 'p1 sig:01' for P2."""
    h = state.moves
    text = f"p{player}"
    if h and self._sees_s1(player):
      text += f" s1:{h[0]}"
    if self._public:
      text += " sig:" + "".join("01"[b] for b in h[1:self._len + 1])
    return text


pyspiel.register_game(_GAME_TYPE, CommGame)
