"""The bidder interface: `Bidder`, with its two entry points, and the two ways to implement it.

Every bridge bidder is a `Bidder` and answers both entry points, batched over tables:

* ``act(observations, uniforms) -> calls``: ``observations`` is (n, 267), the JPS Appendix D
  observations (layout in `ospiel_team.bridge.auction`) of n seats that are to call, e.g. rows
  of `BiddingEngine.observation()` or ``state.observation_tensor(player)`` of the pyspiel
  game;
* ``act_auction(auctions, hands, rows, uniforms) -> calls``: the seats to call at tables
  `rows` of an `Auctions`, with the (B, 4, 52) bool `hands` of its tables; a bidder reads only
  the hand of the seat to call. This is what a duplicate match (`evaluation.match`) and
  behaviour cloning call.

``uniforms`` is (n,) numbers in [0, 1) that a stochastic bidder uses as its only randomness (a
duplicate match gives both tables of a board the same numbers, so that a bidder playing itself
bids identically at both tables); both return (n,) legal call ids.

A bidder implements one entry point and inherits the other:

* `ObservationBidder` (the built-in bidders, `model_bidder.ModelBidder`): implements ``act``;
  ``act_auction`` hands it the observations of the seats to call, so both give the same calls.
* `AuctionBidder` (`jps_paper.PaperBidder`, `search_bidder.SearchBidder`, which read the calls
  in order, passes included, which the 267 bits lack): implements ``act_auction``; ``act``
  plays it on `auctions_from_observations`, the shortest auction whose observation is exactly
  the one given (the passes and the dealer that the observation does not record are the
  fewest that fit it).
"""

from __future__ import annotations

import abc
import itertools

import numpy as np

from ospiel_team.bridge import auction as A

# Calls of the auction between two bids (or after the last one) tried by
# `auctions_from_observations`, shortest first (at most "P P X P P XX P P"), and of one length
# in this order (lexicographic): a double as early, a redouble as late as possible.
_NON_BIDS = (A.DOUBLE, A.PASS, A.REDOUBLE)
_MAX_BETWEEN_BIDS = 8


class Bidder(abc.ABC):
  """What a duplicate match, behaviour cloning and the pyspiel bot need from a bidder.

  Attributes:
    name: the bidder's name in matches and reports.
    greedy: a model bidder's choice: its most probable legal call (True) or one sampled with
      the uniforms (False); None for a bidder without that choice (the rule-based ones).
  """

  name: str
  greedy: bool | None = None

  @abc.abstractmethod
  def act(self, observations: np.ndarray, uniforms: np.ndarray | None) -> np.ndarray:
    """The calls of n seats to call, from their observations.

    Args:
      observations: (n, 267) JPS observations of seats that are to call.
      uniforms: (n,) numbers in [0, 1), the bidder's only randomness (None: the bidder's
        deterministic choice where it has one).

    Returns:
      (n,) legal call ids.
    """

  @abc.abstractmethod
  def act_auction(self, auctions: A.Auctions, hands: np.ndarray, rows,
                  uniforms: np.ndarray | None) -> np.ndarray:
    """The calls of the seats to call at tables `rows` of `auctions`.

    Args:
      auctions: B auctions.
      hands: (B, 4, 52) bool hands of their tables; only each seat to call's own is read.
      rows: the (n,) tables asked (unfinished ones).
      uniforms: (n,) numbers in [0, 1), as for `act`.

    Returns:
      (n,) legal call ids.
    """


class ObservationBidder(Bidder):
  """A bidder that decides from the 267-bit observation: implements `act` only."""

  def act_auction(self, auctions: A.Auctions, hands: np.ndarray, rows,
                  uniforms: np.ndarray | None) -> np.ndarray:
    """`act` on the observations of the seats to call at tables `rows` (see `Bidder`)."""
    rows = np.asarray(rows, np.int64).reshape(-1)
    return self.act(auctions.take(rows).observation(np.asarray(hands)[rows]), uniforms)


class AuctionBidder(Bidder):
  """A bidder that reads the whole auction: implements `act_auction` only."""

  def act(self, observations: np.ndarray, uniforms: np.ndarray | None) -> np.ndarray:
    """`act_auction` on the shortest auctions that fit `observations` (see `Bidder`).

    Raises:
      ValueError: an observation that no seat to call in a legal auction has.
    """
    auctions, hands = auctions_from_observations(observations)
    return self.act_auction(auctions, hands, np.arange(auctions.batch_size), uniforms)


def auctions_from_observations(observations: np.ndarray) -> tuple[A.Auctions, np.ndarray]:
  """Auctions whose seats to call have exactly `observations`, with their hands.

  The observation records who made each bid and which bids were doubled, not the passes, who
  doubled or the dealer. Row i's auction is the shortest one that fits: the first bidder
  deals, and between two bids (and after the last) the fewest passes, doubles and redoubles
  that give the observed doubles, seat order and legal calls (of as many, the one that doubles
  earliest and redoubles latest). The seat to call is North, or East where only Pass is legal
  with bids left: East-West in an uncontested auction (the auctions are then all
  uncontested).

  Args:
    observations: (n, 267) observations of seats to call.

  Returns:
    (`Auctions` of n tables, (n, 4, 52) bool hands: the observed hand at the seat to call,
    the other seats' empty).

  Raises:
    ValueError: naming the first row that no seat to call in a legal auction observes.
  """
  obs = np.asarray(observations)
  if obs.ndim != 2 or obs.shape[1] != A.OBSERVATION_SIZE:
    raise ValueError(f"observations must have shape (n, {A.OBSERVATION_SIZE}), got {obs.shape}")
  bits = obs > 0.5
  legal = bits[:, A.OBS_LEGAL:]
  # Only Pass legal with bids left (7NT not bid): East-West in an uncontested auction.
  seven_nt = bits[:, A.OBS_BIDS:A.OBS_DOUBLED].reshape(-1, A.NUM_SEATS, A.NUM_BIDS)[:, :, -1]
  east_west = legal[:, A.PASS] & ~legal[:, A.DOUBLE:].any(axis=1) & ~seven_nt.any(axis=1)
  parts = [_auction_of(row, i, bool(east_west[i]), bool(east_west.any()))
           for i, row in enumerate(bits)]
  hands = np.zeros((len(bits), A.NUM_SEATS, A.NUM_CARDS), bool)
  if not parts:
    return A.Auctions(np.zeros(0, np.int64), np.zeros(0, np.int64)), hands
  auctions = A.Auctions.concat([a for a, _ in parts])
  hands[np.arange(len(bits)), [seat for _, seat in parts]] = bits[:, A.OBS_CARDS:A.OBS_BIDS]
  rebuilt = auctions.observation(hands) > 0.5
  bad = np.flatnonzero(~(rebuilt == bits).all(axis=1))
  if bad.size:
    raise ValueError(f"observation row {int(bad[0])} is not that of a seat to call in a legal "
                     "auction")
  return auctions, hands


def _auction_of(bits: np.ndarray, row: int, east_west: bool,
                uncontested: bool) -> tuple[A.Auctions, int]:
  """The shortest auction (one table) fitting observation `bits`; its seat to call (E or N)."""
  legal = bits[A.OBS_LEGAL:]
  if not legal.any():
    raise ValueError(f"observation row {row} has no legal call (not a seat to call)")
  by_seat = bits[A.OBS_BIDS:A.OBS_DOUBLED].reshape(A.NUM_SEATS, A.NUM_BIDS)
  doubled = bits[A.OBS_DOUBLED:A.OBS_VULNERABLE]
  if (by_seat.sum(axis=0) > 1).any():
    raise ValueError(f"observation row {row}: a bid made by two seats")
  me = 1 if east_west else 0
  bids = [(j, (me + int(A.RELATIVE_SEAT_OFFSETS[s])) & 3)
          for j in range(A.NUM_BIDS) for s in range(A.NUM_SEATS) if by_seat[s, j]]
  vul = int(bits[A.OBS_VULNERABLE]) + 2 * int(bits[A.OBS_VULNERABLE + 1])
  state = _State(dealer=bids[0][1] if bids else me, uncontested=uncontested)
  for i, (j, seat) in enumerate(bids):
    if i > 0:
      state = _between(state, seat, doubled[bids[i - 1][0]], None, row)
    state = state.then(A.FIRST_BID + j)
  if bids:
    state = _between(state, me, doubled[bids[-1][0]], legal, row)
  elif state.legal().tolist() != legal.tolist():
    raise ValueError(f"observation row {row} is not that of a seat to call in a legal auction")
  auction = A.Auctions(np.array([state.dealer]), np.array([vul]), uncontested=uncontested)
  for call in state.calls:
    auction.apply(np.array([call]))
  return auction, me


class _State:
  """One auction as a list of calls, with the few facts its legal calls depend on."""

  def __init__(self, dealer: int, uncontested: bool, calls: tuple = ()):
    self.dealer, self.uncontested, self.calls = dealer, uncontested, calls
    self.last_bid, self.last_bidder, self.status, self.passes, self.over = -1, -1, 0, 0, False
    for t, call in enumerate(calls):
      seat = (dealer + t) & 3
      self.passes = self.passes + 1 if call == A.PASS else 0
      if call >= A.FIRST_BID:
        self.last_bid, self.last_bidder, self.status = call - A.FIRST_BID, seat, 0
      elif call != A.PASS:
        self.status = call  # DOUBLE = 1, REDOUBLE = 2
      self.over = self.passes == 4 or (self.passes == 3 and self.last_bid >= 0)
    self.doubled = self.status > 0

  @property
  def seat(self) -> int:
    return (self.dealer + len(self.calls)) & 3

  def legal(self) -> np.ndarray:
    """(38,) the legal calls of the seat to call (`auction.legal_calls`, one table)."""
    return A.legal_calls(np.array([self.over]), np.array([self.seat]),
                         np.array([self.last_bid]), np.array([self.last_bidder]),
                         np.array([self.status]), self.uncontested)[0]

  def then(self, call: int) -> _State:
    """The auction after `call` (checked legal)."""
    if not self.legal()[call]:
      raise ValueError(f"call {call} illegal after {self.calls}")
    return _State(self.dealer, self.uncontested, self.calls + (call,))


def _between(state: _State, seat: int, doubled: bool, legal: np.ndarray | None,
             row: int) -> _State:
  """`state` after the fewest passes, doubles and redoubles that bring `seat` to call.

  The last bid ends doubled (or redoubled) iff `doubled`; with `legal`, the seat's legal calls
  must be exactly those.
  """
  for n in range(_MAX_BETWEEN_BIDS + 1):
    for calls in itertools.product(_NON_BIDS, repeat=n):
      s = state
      for call in calls:
        if s.over or not s.legal()[call]:
          break
        s = _State(s.dealer, s.uncontested, s.calls + (call,))
      else:
        if (not s.over and s.seat == seat and s.doubled == bool(doubled)
            and (legal is None or s.legal().tolist() == legal.tolist())):
          return s
  raise ValueError(f"observation row {row} is not that of a seat to call in a legal auction")
