"""Bridge auction rules, call encoding and the JPS 267-bit observation, vectorized over tables.

This module is the one source of truth for the auction: the pyspiel game `bridge_bidding`
(`ospiel_team/games/bridge_bidding.py`, one table) and the batched engine
(`ospiel_team/bridge/engine.py`, B tables) both hold an `Auctions` object and call the
same `legal_mask`, `apply` and `observation` code.

Calls (OpenSpiel `bridge` order, minus its 52 card actions): ``0 = Pass, 1 = Dbl (double),
2 = RDbl (redouble), 3 = 1C, 4 = 1D, 5 = 1H, 6 = 1S, 7 = 1NT, 8 = 2C, ..., 37 = 7NT``; a bid
``call >= 3`` has ``level = 1 + (call - 3) // 5`` and ``strain = (call - 3) % 5`` (0=C, 1=D,
2=H, 3=S, 4=NT). OpenSpiel's `bridge` action for a call is ``52 + call``.

Rules (Laws of Duplicate Bridge 18-22, as in OpenSpiel's `bridge`): the dealer calls first and
the turn passes clockwise (N, E, S, W); a bid must be higher than the last bid; Dbl is legal
only over an opponent's undoubled last bid; RDbl only over a doubled last bid of one's own
side; four passes at the start pass the deal out (score 0); after a bid, three consecutive
passes end the auction. The declarer is the player of the winning side who first named the
final strain. In an *uncontested* auction (Yeh & Lin 2016's setting) East and West still take
their turns but their only legal call is Pass.

Observation (Appendix D of the JPS paper: Tian, Gong & Jiang, "Joint Policy Search for
Multi-agent Collaboration with Imperfect Information", NeurIPS 2020, arXiv:2008.06495),
267 bits from the point of view of a seat ``p`` (``OBSERVATION_SIZE``):

====================  =========  =============================================================
bits                  size       meaning
====================  =========  =============================================================
``[0, 52)``           52         ``p`` holds card c (card = rank * 4 + suit, OpenSpiel order)
``[52, 87)``          35         bid ``j`` (= call - 3, 1C..7NT) was made by ``p`` itself
``[87, 122)``         35         ... by ``p``'s partner (seat p + 2)
``[122, 157)``        35         ... by ``p``'s left opponent (seat p + 1, who calls after p)
``[157, 192)``        35         ... by ``p``'s right opponent (seat p + 3, who calls before p)
``[192, 227)``        35         bid ``j`` was doubled (stays set if it is then redoubled)
``227``, ``228``      2          North-South vulnerable, East-West vulnerable (absolute sides)
``[229, 267)``        38         call ``k`` is legal for ``p`` now (all zero when it is not
                                 ``p``'s turn or the auction is over)
====================  =========  =============================================================

Interpretations where Appendix D is silent: the two vulnerability bits are absolute (N-S then
E-W, as the appendix says), so the seat itself is not part of the observation; the legal-call
bits are those of ``p`` (zero when another seat is to call); passes and who doubled are not
encoded (the appendix notes this imperfect recall).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ospiel_team import checks
from ospiel_team.bridge import scoring

NUM_SEATS = 4
NUM_CARDS = 52
NUM_STRAINS = 5
NUM_LEVELS = 7
NUM_BIDS = NUM_LEVELS * NUM_STRAINS  # 35 contract bids 1C..7NT
PASS, DOUBLE, REDOUBLE = 0, 1, 2
FIRST_BID = 3
NUM_CALLS = FIRST_BID + NUM_BIDS  # 38
# Longest legal auction: 3 passes, then for each of the 35 bids "bid P P X P P XX P P"
# (9 calls), then the final pass: 3 + 35 * 9 + 1.
MAX_AUCTION_LENGTH = 319

SEAT_CHARS = "NESW"
STRAIN_NAMES = ("C", "D", "H", "S", "NT")
VULNERABILITY_NAMES = ("none", "ns", "ew", "both")  # code = ns + 2 * ew

# Observation layout (see the module docstring).
OBS_CARDS = 0
OBS_BIDS = 52            # 4 segments of 35: self, partner, left opponent, right opponent
OBS_DOUBLED = 192
OBS_VULNERABLE = 227     # [N-S vulnerable, E-W vulnerable]
OBS_LEGAL = 229
OBSERVATION_SIZE = 267
# Seat offsets of the four bid-history segments: self, partner, left opp, right opp.
RELATIVE_SEAT_OFFSETS = np.array([0, 2, 1, 3], dtype=np.int64)
RELATIVE_SEAT_NAMES = ("Own", "Partner", "Left", "Right")


def call_string(call: int) -> str:
  """'Pass', 'Dbl', 'RDbl', '1C', ..., '7NT'."""
  call = int(call)
  if not 0 <= call < NUM_CALLS:
    raise ValueError(f"call {call} out of range 0..{NUM_CALLS - 1}")
  if call == PASS:
    return "Pass"
  if call == DOUBLE:
    return "Dbl"
  if call == REDOUBLE:
    return "RDbl"
  return f"{bid_level(call)}{STRAIN_NAMES[bid_strain(call)]}"


def string_to_call(text: str) -> int:
  """Inverse of `call_string` (case-insensitive; also accepts 'P', 'X', 'XX', 'N' for NT)."""
  t = text.strip().upper()
  aliases = {"P": "PASS", "X": "DBL", "XX": "RDBL", "DOUBLE": "DBL", "REDOUBLE": "RDBL"}
  t = aliases.get(t, t)
  if len(t) == 2 and t[1] == "N":
    t += "T"
  for c, s in enumerate(CALL_STRINGS):
    if s.upper() == t:
      return c
  raise ValueError(f"unknown call {text!r}; expected Pass, Dbl, RDbl or 1C..7NT")


def bid_level(call):
  """Level 1..7 of a bid (call >= 3); works on ints and arrays."""
  lv = 1 + (np.asarray(call) - FIRST_BID) // NUM_STRAINS
  return int(lv) if lv.ndim == 0 else lv


def bid_strain(call):
  """Strain 0..4 (C, D, H, S, NT) of a bid (call >= 3); works on ints and arrays."""
  st = (np.asarray(call) - FIRST_BID) % NUM_STRAINS
  return int(st) if st.ndim == 0 else st


CALL_STRINGS = tuple(call_string(c) for c in range(NUM_CALLS))


def parse_seat(value) -> int:
  """A seat from 0..3 or 'N', 'E', 'S', 'W' (any case); raises ValueError otherwise."""
  if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
    if 0 <= int(value) < NUM_SEATS:
      return int(value)
  elif isinstance(value, str):
    v = value.strip().upper()
    if v in ("0", "1", "2", "3"):
      return int(v)
    names = {"N": 0, "NORTH": 0, "E": 1, "EAST": 1, "S": 2, "SOUTH": 2, "W": 3, "WEST": 3}
    if v in names:
      return names[v]
  raise ValueError(f"seat {value!r} is not one of 0..3 or N, E, S, W")


def parse_vulnerability(value) -> int:
  """A vulnerability code 0..3 (none, ns, ew, both) from its name or code."""
  if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
    if 0 <= int(value) < 4:
      return int(value)
  elif isinstance(value, str):
    v = value.strip().lower().replace("-", "").replace("/", "")
    names = {"none": 0, "ns": 1, "ew": 2, "both": 3, "all": 3}
    if v in names:
      return names[v]
  raise ValueError(f"vulnerability {value!r} is not one of none, ns, ew, both (or 0..3)")


def hands_onehot(holders: np.ndarray) -> np.ndarray:
  """(B, 52) seats of each card -> (B, 4, 52) bool, [b, seat, card] = seat holds card."""
  h = np.asarray(holders)
  return h[:, None, :] == np.arange(NUM_SEATS, dtype=h.dtype)[None, :, None]


def legal_calls(done, current_player, last_bid, last_bidder, double_status, uncontested,
                *, xp=np):
  """Legal calls of the seat to call from an auction's summary: the rules, written once.

  The numpy `Auctions` (batched) and `jax_env` (one table, traced) both call this.

  Args:
    done: whether the auction is over (the fields below have the same leading shape).
    current_player: the seat to call.
    last_bid: the highest bid index 0..34 (-1: none yet).
    last_bidder: the seat that made `last_bid`.
    double_status: 0 (undoubled), 1 (doubled) or 2 (redoubled) of the last bid.
    uncontested: East-West may only pass (bool, or an array of that shape).
    xp: `numpy` or `jax.numpy`.

  Returns:
    (..., 38) bool: the calls the seat to call may make (all False where `done`).
  """
  active = ~done
  has_bid = last_bid >= 0
  opp_bid = (last_bidder & 1) != (current_player & 1)
  dbl = active & has_bid & opp_bid & (double_status == 0)
  rdbl = active & has_bid & ~opp_bid & (double_status == 1)
  bids = active[..., None] & (xp.arange(NUM_BIDS) > last_bid[..., None])
  mask = xp.concatenate([active[..., None], dbl[..., None], rdbl[..., None], bids], axis=-1)
  only_pass = xp.asarray(uncontested) & ((current_player & 1) == 1)
  return xp.where(only_pass[..., None], mask & (xp.arange(NUM_CALLS) == PASS), mask)


def final_contract(last_bid, last_bidder, double_status, first_bidder, *, xp=np):
  """(level (0 = none), strain, double status, declarer) of the current or final contracts.

  The declarer is the player of the winning side who first named the final strain (0 when
  no bid was made). Shared by `Auctions.contract` and `jax_env.contract_one`.

  Args:
    last_bid: the highest bid index 0..34 (-1: none), any leading shape.
    last_bidder: the seat that made `last_bid`.
    double_status: 0 (undoubled), 1 (doubled) or 2 (redoubled) of the last bid.
    first_bidder: (..., 2, 5) the seat of each side that first named each strain.
    xp: `numpy` or `jax.numpy`.

  Returns:
    Four integer arrays of the leading shape.
  """
  has = last_bid >= 0
  j = xp.where(has, last_bid, 0)
  level = xp.where(has, 1 + j // NUM_STRAINS, 0)
  strain = j % NUM_STRAINS
  flat = first_bidder.reshape(first_bidder.shape[:-2] + (2 * NUM_STRAINS,))
  idx = (last_bidder & 1) * NUM_STRAINS + strain
  declarer = xp.take_along_axis(flat, idx[..., None], axis=-1)[..., 0]
  return level, strain, xp.where(has, double_status, 0), xp.where(has, declarer, 0)


def int_array(name: str, value, what: str) -> np.ndarray:
  """`value` as a new int64 numpy array; ValueError naming `name` when it holds no integers.

  Args:
    name: the argument's name, for the message.
    value: an int or an array-like of ints.
    what: what the integers are, for the message ("seats 0..3").

  Returns:
    The array (a copy).

  Raises:
    ValueError: naming `name` and the value when it is not an int or integers (None too).
  """
  try:
    return np.array(value, dtype=np.int64)
  except (TypeError, ValueError):
    raise ValueError(f"{name} must be an integer or an array of integers ({what}), got "
                     f"{type(value).__name__} {value!r:.80}") from None


class Auctions:
  """B bridge auctions advanced together; all fields are numpy arrays with leading axis B.

  Fields: ``dealer`` (B,) seat; ``vulnerable`` (B, 2) bool [N-S, E-W]; ``uncontested`` bool;
  ``num_calls`` (B,); ``history`` (B, 319) calls so far (-1 after the end); ``num_passes``
  consecutive passes; ``last_bid`` highest bid index 0..34 (-1: none yet); ``last_bidder``
  its seat; ``double_status`` 0/1/2 of the last bid; ``first_bidder`` (B, 2, 5) the seat of
  each side that first named each strain (-1: none); ``bids`` (B, 4, 35) bid j made by seat s;
  ``doubled`` (B, 35) bid j was doubled; ``done`` (B,) auction over.
  """

  def __init__(self, dealer, vulnerability, uncontested: bool = False):
    dealer = int_array("dealer", dealer, "seats 0..3").reshape(-1)  # own, writable copies
    vul = int_array("vulnerability", vulnerability, "codes 0..3").reshape(-1)
    checks.check_bool("uncontested", uncontested)
    if dealer.shape != vul.shape:
      raise ValueError(f"dealer {dealer.shape} and vulnerability {vul.shape} shapes differ")
    if np.any((dealer < 0) | (dealer > 3)):
      raise ValueError(f"dealer {dealer[(dealer < 0) | (dealer > 3)][0]} not a seat 0..3")
    if np.any((vul < 0) | (vul > 3)):
      raise ValueError(f"vulnerability {vul[(vul < 0) | (vul > 3)][0]} not a code 0..3")
    b = dealer.shape[0]
    self.batch_size = b
    self.uncontested = bool(uncontested)
    self.dealer = dealer
    self.vulnerability = vul
    self.vulnerable = np.stack([(vul & 1) > 0, (vul & 2) > 0], axis=1)
    self.num_calls = np.zeros(b, np.int64)
    self.history = np.full((b, MAX_AUCTION_LENGTH), -1, np.int8)
    self.num_passes = np.zeros(b, np.int64)
    self.last_bid = np.full(b, -1, np.int64)
    self.last_bidder = np.zeros(b, np.int64)
    self.double_status = np.zeros(b, np.int64)
    self.first_bidder = np.full((b, 2, NUM_STRAINS), -1, np.int64)
    self.bids = np.zeros((b, NUM_SEATS, NUM_BIDS), bool)
    self.doubled = np.zeros((b, NUM_BIDS), bool)
    self.done = np.zeros(b, bool)
    self._rows = np.arange(b)
    self._legal = None  # cached legal_mask(), reset by apply

  def reset_rows(self, rows, dealer, vulnerability) -> None:
    """Restarts the auctions of tables `rows` (int array) with new dealers / vulnerabilities.

    Args:
      rows: the tables' indices.
      dealer: the new dealer seat(s) 0..3 (one, or one per row).
      vulnerability: the new vulnerability code(s) 0..3 (none, ns, ew, both).
    """
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    dealer = np.broadcast_to(np.asarray(dealer, dtype=np.int64), rows.shape)
    vul = np.broadcast_to(np.asarray(vulnerability, dtype=np.int64), rows.shape)
    if np.any((dealer < 0) | (dealer > 3)):
      raise ValueError(f"dealer {dealer[(dealer < 0) | (dealer > 3)][0]} not a seat 0..3")
    if np.any((vul < 0) | (vul > 3)):
      raise ValueError(f"vulnerability {vul[(vul < 0) | (vul > 3)][0]} not a code 0..3")
    self.dealer[rows] = dealer
    self.vulnerability[rows] = vul
    self.vulnerable[rows] = np.stack([(vul & 1) > 0, (vul & 2) > 0], axis=1)
    self.num_calls[rows] = 0
    self.history[rows] = -1
    self.num_passes[rows] = 0
    self.last_bid[rows] = -1
    self.last_bidder[rows] = 0
    self.double_status[rows] = 0
    self.first_bidder[rows] = -1
    self.bids[rows] = False
    self.doubled[rows] = False
    self.done[rows] = False
    self._legal = None

  # Per-table fields (leading axis B); `take` / `concat` / `copy` handle exactly these.
  _TABLE_FIELDS = ("dealer", "vulnerability", "vulnerable", "num_calls", "history",
                   "num_passes", "last_bid", "last_bidder", "double_status", "first_bidder",
                   "bids", "doubled", "done")

  def _with_fields(self, fields: dict, batch_size: int) -> Auctions:
    new = object.__new__(Auctions)
    new.batch_size = int(batch_size)
    new.uncontested = self.uncontested
    for k in self._TABLE_FIELDS:
      setattr(new, k, fields[k])
    new._rows = np.arange(batch_size)
    new._legal = None
    return new

  def copy(self) -> Auctions:
    """An independent copy of all tables.

    Returns:
      A new `Auctions`.
    """
    return self._with_fields({k: getattr(self, k).copy() for k in self._TABLE_FIELDS},
                             self.batch_size)

  def take(self, idx) -> Auctions:
    """A new `Auctions` holding copies of tables `idx` (in that order, repeats allowed).

    Args:
      idx: table indices.

    Returns:
      A new `Auctions` of len(idx) tables.
    """
    idx = np.asarray(idx, np.int64).reshape(-1)
    if np.any((idx < 0) | (idx >= self.batch_size)):
      raise ValueError(f"table {idx[(idx < 0) | (idx >= self.batch_size)][0]} out of range "
                       f"0..{self.batch_size - 1}")
    return self._with_fields({k: getattr(self, k)[idx].copy() for k in self._TABLE_FIELDS},
                             len(idx))

  @staticmethod
  def concat(parts: Sequence[Auctions]) -> Auctions:
    """One `Auctions` with the tables of all `parts`, in order (all must share `uncontested`).

    Args:
      parts: one or more `Auctions`.

    Returns:
      A new `Auctions`.
    """
    parts = list(parts)
    if not parts:
      raise ValueError("Auctions.concat needs at least one part")
    if len({p.uncontested for p in parts}) != 1:
      raise ValueError("Auctions.concat: parts differ in `uncontested`")
    return Auctions._with_fields(
        parts[0],
        {k: np.concatenate([getattr(p, k) for p in parts]) for k in Auctions._TABLE_FIELDS},
        sum(p.batch_size for p in parts))

  @property
  def current_player(self) -> np.ndarray:
    """(B,) seat to call next (dealer + number of calls, clockwise); meaningless when done."""
    return (self.dealer + self.num_calls) & 3

  def legal_mask(self, player=None) -> np.ndarray:
    """(B, 38) bool legal calls of the seat to call (all False where the auction is over).

    With `player` (int or (B,) seats), rows where `player` is not the seat to call are False.
    The result is read-only (it is cached until the next `apply`).

    Args:
      player: an int or (B,) seats (None: the seat to call).

    Returns:
      (B, 38) read-only bool mask.
    """
    legal = self._legal
    if legal is None:
      legal = self._legal = self._compute_legal_mask()
      legal.setflags(write=False)
    if player is None:
      return legal
    return legal & (self.current_player == np.asarray(player))[:, None]

  def _compute_legal_mask(self) -> np.ndarray:
    return legal_calls(self.done, self.current_player, self.last_bid, self.last_bidder,
                       self.double_status, self.uncontested)

  def apply(self, calls: Sequence[int] | np.ndarray) -> None:
    """Makes the seat to call at every unfinished table call `calls[b]` (ignored where done).

    Raises ValueError naming the first table whose call is illegal; no table changes then.

    Args:
      calls: (B,) one call id (0..37) per table.
    """
    calls = np.asarray(calls).reshape(-1).astype(np.int64)
    assert isinstance(calls, np.ndarray)  # (for type checkers)
    if calls.shape[0] != self.batch_size:
      raise ValueError(f"got {calls.shape[0]} calls for {self.batch_size} tables")
    active = ~self.done
    in_range = (calls >= 0) & (calls < NUM_CALLS)
    bad = active & ~in_range
    if np.any(bad):
      t = int(np.flatnonzero(bad)[0])
      raise ValueError(f"table {t}: call {calls[t]} out of range 0..{NUM_CALLS - 1}")
    safe = np.where(in_range, calls, PASS)
    legal = self.legal_mask()[self._rows, safe]
    bad = active & ~legal
    if np.any(bad):
      t = int(np.flatnonzero(bad)[0])
      raise ValueError(f"table {t}: call {call_string(safe[t])} (id {safe[t]}) is illegal for "
                       f"{SEAT_CHARS[self.current_player[t]]} after "
                       f"{' '.join(self.auction_strings(t)) or 'no calls'}")
    cur = self.current_player
    is_pass = active & (safe == PASS)
    is_dbl = active & (safe == DOUBLE)
    is_rdbl = active & (safe == REDOUBLE)
    is_bid = active & (safe >= FIRST_BID)

    rows = np.flatnonzero(active)
    self.history[rows, self.num_calls[rows]] = safe[rows]
    self.num_passes = np.where(is_pass, self.num_passes + 1,
                               np.where(active, 0, self.num_passes))
    r = np.flatnonzero(is_dbl)
    self.doubled[r, self.last_bid[r]] = True
    self.double_status[r] = 1
    self.double_status[is_rdbl] = 2
    r = np.flatnonzero(is_bid)
    if r.size:
      j = safe[r] - FIRST_BID
      seat = cur[r]
      self.last_bid[r] = j
      self.last_bidder[r] = seat
      self.double_status[r] = 0
      self.bids[r, seat, j] = True
      strain = j % NUM_STRAINS
      side = seat & 1
      fb = self.first_bidder[r, side, strain]
      self.first_bidder[r, side, strain] = np.where(fb < 0, seat, fb)
    self.num_calls += active
    self.done |= active & ((self.num_passes == 4) |
                           ((self.num_passes == 3) & (self.last_bid >= 0)))
    self._legal = None

  def observation(self, hands: np.ndarray, player=None, dtype=np.float32) -> np.ndarray:
    """(B, 267) JPS observation of seat `player` (int or (B,); default the seat to call).

    `hands` is the (B, 4, 52) bool output of `hands_onehot` for the tables' deals.

    Args:
      hands: (B, 4, 52) bool hands (`hands_onehot`).
      player: an int or (B,) seats (None: the seat to call).
      dtype: the array's dtype.

    Returns:
      (B, 267) observations.
    """
    if player is None:
      p = self.current_player
    else:
      p = np.broadcast_to(np.asarray(player, dtype=np.int64), (self.batch_size,))
      if np.any((p < 0) | (p > 3)):
        raise ValueError(f"player {p[(p < 0) | (p > 3)][0]} not a seat 0..3")
    rows = self._rows
    out = np.empty((self.batch_size, OBSERVATION_SIZE), dtype)
    out[:, OBS_CARDS:OBS_BIDS] = hands[rows, p]
    seats = (p[:, None] + RELATIVE_SEAT_OFFSETS[None, :]) & 3
    out[:, OBS_BIDS:OBS_DOUBLED] = self.bids[rows[:, None], seats].reshape(self.batch_size, -1)
    out[:, OBS_DOUBLED:OBS_VULNERABLE] = self.doubled
    out[:, OBS_VULNERABLE:OBS_LEGAL] = self.vulnerable
    out[:, OBS_LEGAL:] = self.legal_mask(player=p)
    return out

  def contract(self):
    """Final (or current) contract: level (0 = none), strain, double status, declarer; (B,).

    Returns:
      `(level, strain, double_status, declarer)`, each (B,).
    """
    return final_contract(self.last_bid, self.last_bidder, self.double_status,
                          self.first_bidder)

  def ns_score(self, dd_tricks: np.ndarray) -> np.ndarray:
    """(B,) duplicate score for North-South of the contract, given (B, 5, 4) DDS tricks.

    ``dd_tricks[b, strain, declarer]`` (strains C, D, H, S, NT; declarers N, E, S, W). The
    declaring side scores `scoring.SCORE_TABLE` with its own vulnerability; N-S get that score
    when they declare and its negative otherwise; a passed-out deal scores 0
    (`scoring.ns_score_array`).

    Args:
      dd_tricks: (B, 5, 4) double-dummy tricks of the tables' deals.

    Returns:
      (B,) North-South scores.
    """
    level, strain, doubled, declarer = self.contract()
    tricks = np.asarray(dd_tricks)[self._rows, strain, declarer].astype(np.int64)
    vul = self.vulnerable[self._rows, declarer & 1]
    return scoring.ns_score_array(level, strain, doubled, declarer, vul,
                                  tricks).astype(np.int64)

  def auction_strings(self, table: int) -> list[str]:
    """The calls made so far at `table`, as strings.

    Args:
      table: the table's index.

    Returns:
      One string per call, in order.
    """
    return [CALL_STRINGS[c] for c in self.history[table, :self.num_calls[table]]]
