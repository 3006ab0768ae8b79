"""Contract-bridge bidding with a double-dummy reward: the pyspiel game `bridge_bidding`.

The bridge game of the JPS paper (Section 7, Appendices A and D,
Tian, Gong & Jiang, NeurIPS 2020, arXiv:2008.06495) and of Yeh & Lin 2016: four players
``0=N, 1=E, 2=S, 3=W`` in two teams (N-S against E-W) bid; the play is replaced by the
precomputed double-dummy (DDS) result of the final contract.

Load it with ``pyspiel.load_game("bridge_bidding")`` after ``import ospiel_team``.
Parameters:

* ``dataset`` (str, default ``""`` = the shipped training dataset): a shipped dataset by name
  (``train``, ``validation``, ``heldout``, ``heldout2``, as every command's ``--dataset``
  takes them) or the path of a deal + DDS-table dataset
  (`ospiel_team.bridge.dataset.resolve_dataset`).
* ``dealer`` (str, default ``"N"``): ``N``, ``E``, ``S``, ``W`` (a string: pyspiel
  type-checks parameters against this default and rejects ``dealer=0``), or
  ``random``: a chance node after the deal picks the dealer uniformly.
* ``vulnerability`` (str, default ``"none"``): ``none``, ``ns``, ``ew``, ``both``, or
  ``random``: a chance node (after the dealer's) picks one of the four uniformly.
* ``uncontested`` (bool, default False): Yeh & Lin's setting; East and West keep their turns
  (a decision node with the single legal action Pass, as OpenSpiel does for forced moves) so
  that histories, observations and seat order are the same as in the contested game.

Chance: first the deal, one chance node whose outcome ``i`` (uniform over the N deals of the
dataset) is deal ``i`` of the dataset; then the dealer and the vulnerability when random.
Actions: the 38 calls of `ospiel_team.bridge.auction` (Pass=0, Dbl=1, RDbl=2, 1C=3, ...,
7NT=37; OpenSpiel `bridge` action ``52 + call``), with the full legality rules there.
Returns: the duplicate score (`ospiel_team.bridge.scoring`) of the final contract with the
dataset's double-dummy tricks and the board's vulnerability: +score to N and S, -score to E
and W (zero-sum); 0 when passed out.

Observation tensor: the 267 bits of JPS Appendix D (layout in `ospiel_team.bridge.auction`);
all zero before the auction starts. Observation string: the same information in words (own
hand, each relative seat's bids, doubled bids, vulnerability, legal calls). Information-state
string (perfect recall): seat, dealer, vulnerability, own hand and the whole auction.
No information-state tensor is provided (the 267 bits do not have perfect recall).

Relation to OpenSpiel's C++ `bridge(use_double_dummy_result=true)` (tested in
tests/games/test_bridge_bidding.py): call ``c`` here is action ``52 + c`` there; the deal is its 52
chance actions (`deal.holders_to_openspiel_actions`); our dealer ``d`` and vulnerability map
to its ``dealer=d``, ``dealer_vul`` (the dealer's side) and ``non_dealer_vul``, or, without
its ``dealer`` parameter, to dealer North after rotating every seat by ``-d``. Legal calls,
the end of the auction and the returns then agree. (OpenSpiel 2.0.2's auction observation
tensor computes relative seats as if North dealt, so it is only comparable with dealer N.)
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
import pyspiel

from ospiel_team.bridge import auction as auction_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring

_NUM_PLAYERS = 4
_DEFAULT_PARAMS = {
    "dataset": "",
    "dealer": "N",
    "vulnerability": "none",
    "uncontested": False,
}

# Largest |score| of any contract: the score table's extreme values.
_MAX_ABS_SCORE = float(np.abs(scoring.SCORE_TABLE).max())

_GAME_TYPE = pyspiel.GameType(
    short_name="bridge_bidding",
    long_name="Bridge bidding with double-dummy scoring",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS)


@functools.lru_cache(maxsize=8)
def _load_dataset(name_or_path: str):
  """Loads (once per name or path) the dataset; "" is the shipped default (training) set."""
  from ospiel_team.bridge import dataset as dataset_lib
  return dataset_lib.resolve_dataset(name_or_path or None)


def _parse_params(params: dict) -> dict:
  unknown = set(params) - set(_DEFAULT_PARAMS)
  if unknown:
    raise ValueError(f"bridge_bidding: unknown parameter(s) {sorted(unknown)}; "
                     f"known: {sorted(_DEFAULT_PARAMS)}")
  p = dict(_DEFAULT_PARAMS, **params)
  dealer = p["dealer"]
  if isinstance(dealer, str) and dealer.strip().lower() == "random":
    dealer = None
  else:
    try:
      dealer = auction_lib.parse_seat(dealer)
    except ValueError:
      raise ValueError(f"bridge_bidding: dealer {dealer!r} is not one of N, E, S, W or "
                       "random") from None
  vul = p["vulnerability"]
  if isinstance(vul, str) and vul.strip().lower() == "random":
    vul = None
  else:
    vul = auction_lib.parse_vulnerability(vul)
  if not isinstance(p["uncontested"], bool):
    raise ValueError(f"bridge_bidding: uncontested must be a bool, got {p['uncontested']!r}")
  if not isinstance(p["dataset"], str):
    raise ValueError(f"bridge_bidding: dataset must be a shipped name or a path string, got "
                     f"{p['dataset']!r}")
  return {"dataset": p["dataset"], "dealer": dealer, "vulnerability": vul,
          "uncontested": p["uncontested"]}


@dataclasses.dataclass(frozen=True)
class Rules:
  """What a game's parameters define: its dataset, dealer, vulnerability and setting."""
  dataset: Any  # `ospiel_team.bridge.dataset` Dataset (imported on first use)
  num_deals: int
  fixed_dealer: int | None  # None: chosen by chance
  fixed_vulnerability: int | None  # None: chosen by chance
  uncontested: bool
  deal_outcomes: list  # the deal chance node's outcomes: N pairs (i, 1/N), shared: not to modify

  def __deepcopy__(self, memo) -> Rules:
    # Immutable and shared by every state of the game: a state's clone (OpenSpiel deep-copies
    # the state's attributes) must not copy the dataset and the N deal outcomes.
    del memo
    return self


def rules(params: dict) -> Rules:
  """The `Rules` of the game with these parameters (built once per distinct parameters).

  A state reads its rules from its game's parameters rather than from attributes of the Python
  game object: a state restored by OpenSpiel (`pyspiel.deserialize_game_and_state`,
  `game.deserialize_state`, `pickle`) holds a game wrapper without them.

  Args:
    params: the game's parameters.

  Returns:
    The game's `Rules`.
  """
  cfg = _parse_params(dict(params))
  return _rules(cfg["dataset"], cfg["dealer"], cfg["vulnerability"], cfg["uncontested"])


@functools.lru_cache(maxsize=16)
def _rules(dataset: str, dealer: int | None, vulnerability: int | None,
           uncontested: bool) -> Rules:
  data = _load_dataset(dataset)
  num_deals = int(data.holders.shape[0])
  if num_deals < 1:
    raise ValueError(f"bridge_bidding: dataset {dataset!r} holds no deals")
  return Rules(dataset=data, num_deals=num_deals, fixed_dealer=dealer,
               fixed_vulnerability=vulnerability, uncontested=uncontested,
               deal_outcomes=[(i, 1.0 / num_deals) for i in range(num_deals)])


class BridgeBiddingGame(pyspiel.Game):
  """Four-player bridge bidding scored double-dummy (JPS paper, Section 7)."""

  def __init__(self, params: dict | None = None):
    params = dict(params or {})
    self.rules = rules(params)
    game_info = pyspiel.GameInfo(
        num_distinct_actions=auction_lib.NUM_CALLS,
        max_chance_outcomes=max(self.rules.num_deals, 4),
        num_players=_NUM_PLAYERS,
        min_utility=-_MAX_ABS_SCORE,
        max_utility=_MAX_ABS_SCORE,
        utility_sum=0.0,
        max_game_length=auction_lib.MAX_AUCTION_LENGTH)
    super().__init__(_GAME_TYPE, game_info, params)

  def __deepcopy__(self, memo) -> BridgeBiddingGame:
    # A game is immutable: copies share it. OpenSpiel clones a Python state
    # (`PyState::Clone`, python_games.cc) by `copy.deepcopy`-ing every attribute of the state's
    # `__dict__`, including `_game`; pybind11's default deepcopy of a `pyspiel.Game` subclass
    # makes a new wrapper without this object's `__dict__` (no `dataset`, no `num_deals`), which
    # was the AttributeError of `new_initial_state().child(0)`.
    del memo
    return self

  def __copy__(self) -> BridgeBiddingGame:
    return self

  def min_terminal_histories(self) -> int:
    """A lower bound on the number of terminal histories (GameTree checks it first).

    Returns:
      2^35.
    """
    # Per deal, every increasing subset of the 35 contract bids, passed out after the last bid,
    # is a different auction: at least 2^35 terminal histories (doubles and passes add more).
    return 2 ** 35

  def new_initial_state(self) -> BridgeBiddingState:
    return BridgeBiddingState(self)

  def make_py_observer(self, iig_obs_type=None, params=None):
    if params:
      raise ValueError(f"bridge_bidding: observation parameters not supported: {params}")
    perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
    return BridgeBiddingObserver(perfect_recall)


class BridgeBiddingState(pyspiel.State):
  """One table of the game: its deal, dealer, vulnerability and auction engine.

  One table: the deal index, dealer, vulnerability and, once they are known, a
  `BiddingEngine` of one table (`tables`, the package's one auction interface
  `auction_tables.AuctionTables`) that plays, checks and scores the calls.
  """

  holders: np.ndarray | None
  dd_tricks: np.ndarray | None

  def __init__(self, game: BridgeBiddingGame):
    super().__init__(game)
    self._game = game
    self._rules = rules(game.get_parameters())
    self.deal_index: int | None = None
    self.dealer: int | None = self._rules.fixed_dealer
    self.vulnerability: int | None = self._rules.fixed_vulnerability
    self.holders: np.ndarray | None = None      # (52,) seat of each card
    self.dd_tricks: np.ndarray | None = None    # (5, 4) tricks[strain, declarer]
    self.tables: engine_lib.BiddingEngine | None = None  # one table, after the chance nodes

  def __deepcopy__(self, memo):
    # Share the game (and its dataset); copy the small per-table arrays.
    new = self.__class__.__new__(self.__class__)
    pyspiel.State.__init__(new, self._game)
    for k, v in self.__dict__.items():
      if isinstance(v, (np.ndarray, engine_lib.BiddingEngine)):
        v = v.copy()
      new.__dict__[k] = v
    return new

  @property
  def auction(self) -> auction_lib.Auctions | None:
    """The table's `Auctions` (what rule-based bidders read), None before the auction."""
    return None if self.tables is None else self.tables.auctions

  # --- chance ----------------------------------------------------------------------------
  def _chance_stage(self) -> str | None:
    if self.deal_index is None:
      return "deal"
    if self.dealer is None:
      return "dealer"
    if self.vulnerability is None:
      return "vulnerability"
    return None

  def current_player(self) -> int:
    if self._chance_stage() is not None:
      return pyspiel.PlayerId.CHANCE
    if self.tables.done[0]:
      return pyspiel.PlayerId.TERMINAL
    return int(self.tables.current_player[0])

  def chance_outcomes(self) -> list[tuple[int, float]]:
    stage = self._chance_stage()
    if stage is None:
      raise ValueError("bridge_bidding: chance_outcomes called at a non-chance state")
    if stage == "deal":
      return self._rules.deal_outcomes
    return [(i, 0.25) for i in range(4)]

  def _legal_actions(self, player: int) -> list[int]:
    if self.tables is None or self.tables.done[0]:
      return []
    if player != int(self.tables.current_player[0]):
      return []
    return np.flatnonzero(self.tables.legal_mask()[0]).tolist()

  def _apply_action(self, action: int) -> None:
    stage = self._chance_stage()
    if stage == "deal":
      if not 0 <= action < self._rules.num_deals:
        raise ValueError(f"bridge_bidding: deal {action} out of range "
                         f"0..{self._rules.num_deals - 1}")
      self.deal_index = int(action)
      self.holders = np.asarray(self._rules.dataset.holders[action], np.uint8).copy()
      self.dd_tricks = np.asarray(self._rules.dataset.dd_tricks[action], np.int64).copy()
    elif stage == "dealer":
      if not 0 <= action < 4:
        raise ValueError(f"bridge_bidding: dealer chance outcome {action} not in 0..3")
      self.dealer = int(action)
    elif stage == "vulnerability":
      if not 0 <= action < 4:
        raise ValueError(f"bridge_bidding: vulnerability chance outcome {action} not in 0..3")
      self.vulnerability = int(action)
    else:
      self.tables.step([action])
      return
    if self._chance_stage() is None:
      self.tables = engine_lib.BiddingEngine(self._rules.dataset,
                                             uncontested=self._rules.uncontested)
      self.tables.reset([self.deal_index], self.dealer, self.vulnerability)

  def _action_to_string(self, player: int, action: int) -> str:
    if player == pyspiel.PlayerId.CHANCE:
      stage = self._chance_stage()
      if stage == "dealer":
        return f"Dealer {auction_lib.SEAT_CHARS[action]}"
      if stage == "vulnerability":
        return f"Vul {auction_lib.VULNERABILITY_NAMES[action]}"
      return f"Deal {action}"
    return auction_lib.call_string(action)

  def is_terminal(self) -> bool:
    return self.tables is not None and bool(self.tables.done[0])

  def ns_score(self) -> int:
    """N-S duplicate score of the final contract (0 before the end or when passed out).

    Returns:
      The score.
    """
    if not self.is_terminal():
      return 0
    return int(self.tables.ns_score()[0])

  def returns(self) -> list[float]:
    if not self.is_terminal():
      return [0.0] * _NUM_PLAYERS
    return [float(r) for r in self.tables.returns()[0]]

  def contract_string(self) -> str:
    """'4SX by N', 'Pass' (passed out) or '' before the auction ends.

    Returns:
      The contract's text.
    """
    if not self.is_terminal():
      return ""
    level, strain, doubled, declarer = (int(x[0]) for x in self.tables.contract())
    return scoring.contract_string(level, strain, doubled, declarer if level else None)

  # --- strings ---------------------------------------------------------------------------
  def header(self) -> str:
    """The dealer and the vulnerability, as the observation strings start ("Dealer N Vul None").

    Returns:
      The header text.
    """
    return (f"Dealer {auction_lib.SEAT_CHARS[self.dealer]} "
            f"Vul {auction_lib.VULNERABILITY_NAMES[self.vulnerability]}")

  def hand_string(self, player: int) -> str:
    """The player's hand as a PBN hand, spades.hearts.diamonds.clubs, e.g. 'AK84.AKJ9.942.K'.

    Args:
      player: a seat 0..3 (N, E, S, W).

    Returns:
      The hand's PBN text.
    """
    return deal_lib.holders_to_pbn(self.holders, player)[2:].split(" ")[0]

  def auction_string(self) -> str:
    """The calls so far, e.g. '1C Pass 1H' ('' before the deal).

    Returns:
      The calls' strings joined by spaces.
    """
    return " ".join(self.tables.auction_strings(0)) if self.tables is not None else ""

  def __str__(self) -> str:
    if self.deal_index is None:
      return "(no deal yet)"
    parts = [f"Deal {self.deal_index}: {deal_lib.holders_to_pbn(self.holders)}"]
    if self.tables is not None:
      parts.append(self.header())
      parts.append(f"Auction: {self.auction_string()}")
      if self.is_terminal():
        parts.append(f"Contract: {self.contract_string()}  Score N-S: {self.ns_score()}")
    return "\n".join(parts)


class BridgeBiddingObserver:
  """Observer (PyObserver interface): JPS 267-bit tensor, or the information-state string."""

  def __init__(self, perfect_recall: bool):
    self.perfect_recall = perfect_recall
    size = 0 if perfect_recall else auction_lib.OBSERVATION_SIZE
    self.tensor = np.zeros(size, np.float32)
    self.dict = {} if perfect_recall else {"observation": self.tensor}

  def set_from(self, state: BridgeBiddingState, player: int) -> None:
    if self.perfect_recall:
      return
    if state.tables is None:
      self.tensor.fill(0)
      return
    self.tensor[:] = state.tables.observation(player=player)[0]

  def string_from(self, state: BridgeBiddingState, player: int) -> str:
    if state.tables is None:
      return f"Player {player}: dealing"
    if self.perfect_recall:
      return (f"Seat {auction_lib.SEAT_CHARS[player]} {state.header()}\n"
              f"Hand {state.hand_string(player)}\n"
              f"Auction {state.auction_string()}")
    return observation_string(state.tables.observation(player=player)[0])


def observation_string(obs: np.ndarray) -> str:
  """Words for one 267-bit observation: it carries exactly the tensor's information.

  Args:
    obs: (267,) one observation tensor.

  Returns:
    Its text.
  """
  obs = np.asarray(obs) > 0.5
  hand = np.flatnonzero(obs[auction_lib.OBS_CARDS:auction_lib.OBS_BIDS])
  suits = []
  for suit in deal_lib.PBN_SUIT_ORDER:
    ranks = sorted((c // 4 for c in hand if c % 4 == suit), reverse=True)
    suits.append("".join(deal_lib.RANK_CHARS[r] for r in ranks))
  parts = ["Hand " + ".".join(suits)]
  for seg, name in enumerate(auction_lib.RELATIVE_SEAT_NAMES):
    lo = auction_lib.OBS_BIDS + seg * auction_lib.NUM_BIDS
    bids = np.flatnonzero(obs[lo:lo + auction_lib.NUM_BIDS]) + auction_lib.FIRST_BID
    parts.append(f"{name} " + (",".join(auction_lib.CALL_STRINGS[c] for c in bids) or "-"))
  dbl = np.flatnonzero(obs[auction_lib.OBS_DOUBLED:auction_lib.OBS_VULNERABLE])
  parts.append("Doubled " + (",".join(auction_lib.CALL_STRINGS[c + auction_lib.FIRST_BID]
                                      for c in dbl) or "-"))
  ns, ew = obs[auction_lib.OBS_VULNERABLE], obs[auction_lib.OBS_VULNERABLE + 1]
  parts.append(f"Vul {auction_lib.VULNERABILITY_NAMES[int(ns) + 2 * int(ew)]}")
  legal = np.flatnonzero(obs[auction_lib.OBS_LEGAL:])
  parts.append("Legal " + (",".join(auction_lib.CALL_STRINGS[c] for c in legal) or "-"))
  return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, BridgeBiddingGame)
