"""52-card bridge deals: the `holders` array, PBN strings and OpenSpiel `bridge` chance actions.

Conventions (identical to OpenSpiel's `bridge` game, checked in tests/bridge/test_deal_scoring.py):

* card index ``card = rank * 4 + suit`` with suits ``0=C, 1=D, 2=H, 3=S`` and ranks
  ``0='2', 1='3', ..., 8='T', 9='J', 10='Q', 11='K', 12='A'``; so card 0 is the club two and
  card 51 the spade ace (this is `Card(suit, rank)` in OpenSpiel's bridge.h).
* seats ``0=N, 1=E, 2=S, 3=W``; N-S (seats 0 and 2) and E-W (1 and 3) are the partnerships.
* a deal is stored as ``holders``: a numpy ``uint8`` array of shape ``(52,)`` whose entry
  ``holders[card]`` is the seat holding that card; a batch of deals is ``(n, 52)``.
* OpenSpiel's `bridge` deals with 52 chance actions; the action value is the card index and the
  ``i``-th chance action (``i = 0..51``) gives that card to seat ``i % 4``
  (``holder_[card] = history_.size() % kNumPlayers`` in bridge.cc).  Any order of a seat's cards
  gives the same deal; `holders_to_openspiel_actions` deals each seat's cards in increasing order.
* PBN deal strings (``"N:AK84.AKJ9.942.K ..."``) list four hands clockwise from the named first
  seat, each hand as ``spades.hearts.diamonds.clubs`` with ranks written ``AKQJT98765432`` from
  high to low and an empty string for a void.

Bad input raises `ValueError` naming the problem (wrong length, a hand without 13 cards,
a duplicated or missing card, an unknown symbol); nothing is repaired silently.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ospiel_team import checks

NUM_CARDS = 52
NUM_SEATS = 4
NUM_SUITS = 4
NUM_RANKS = 13
CARDS_PER_HAND = 13

SEAT_CHARS = "NESW"
SUIT_CHARS = "CDHS"  # suit index order
RANK_CHARS = "23456789TJQKA"  # rank index order
# PBN writes suits from spades down to clubs.
PBN_SUIT_ORDER = (3, 2, 1, 0)


def card_string(card: int) -> str:
  """'C2' .. 'SA' (suit then rank), OpenSpiel's card notation.

  Args:
    card: a card index 0..51 (rank x 4 + suit).

  Returns:
    The two-character card.
  """
  if not 0 <= card < NUM_CARDS:
    raise ValueError(f"card {card} out of range 0..51")
  return SUIT_CHARS[card % 4] + RANK_CHARS[card // 4]


def validate_holders(holders: np.ndarray, name: str = "holders") -> np.ndarray:
  """Checks one deal (52,) or a batch (n, 52) of deals; returns it as uint8.

  Raises ValueError naming the problem: wrong shape, a seat outside 0..3, a hand that does
  not hold exactly 13 cards (with the deal index for a batch).

  Args:
    holders: (52,) or (n, 52) seats 0..3.
    name: the argument's name in error messages.

  Returns:
    The deals as a uint8 array.
  """
  arr = np.asarray(holders)
  if arr.ndim not in (1, 2) or arr.shape[-1] != NUM_CARDS:
    raise ValueError(
        f"{name} must have shape (52,) or (n, 52) (one seat per card), got shape {arr.shape}")
  if arr.size and not np.issubdtype(arr.dtype, np.integer):
    raise ValueError(f"{name} must hold integer seats, got dtype {arr.dtype}")
  if arr.size:
    bad = (arr < 0) | (arr >= NUM_SEATS)
    if bad.any():
      idx = np.argwhere(bad)[0]
      raise ValueError(f"{name}: seat {arr[tuple(idx)]} at index {tuple(idx.tolist())} "
                       "is not in 0..3")
  batch = arr.reshape(-1, NUM_CARDS)
  counts = np.stack([(batch == s).sum(axis=1) for s in range(NUM_SEATS)], axis=1)
  wrong = counts != CARDS_PER_HAND
  if wrong.any():
    d, s = np.argwhere(wrong)[0]
    where = f"deal {d}: " if arr.ndim == 2 else ""
    raise ValueError(f"{name}: {where}seat {SEAT_CHARS[s]} holds {counts[d, s]} cards, not 13")
  return arr.astype(np.uint8, copy=False)


def hands(holders: np.ndarray) -> list[list[int]]:
  """The four hands of a deal as sorted lists of card indices, in seat order N, E, S, W.

  Args:
    holders: (52,) the seat (0..3 = N, E, S, W) holding each card.

  Returns:
    Four lists of card indices.
  """
  h = validate_holders(holders)
  if h.ndim != 1:
    raise ValueError(f"hands() takes one deal of shape (52,), got shape {h.shape}")
  return [np.flatnonzero(h == s).tolist() for s in range(NUM_SEATS)]


def _hand_to_pbn(cards: Sequence[int]) -> str:
  suits = []
  for suit in PBN_SUIT_ORDER:
    ranks = sorted((c // 4 for c in cards if c % 4 == suit), reverse=True)
    suits.append("".join(RANK_CHARS[r] for r in ranks))
  return ".".join(suits)


def holders_to_pbn(holders: np.ndarray, first_seat: int = 0) -> str:
  """PBN deal string, e.g. 'N:AK84.AKJ9.942.K ...', hands clockwise from `first_seat`.

  Args:
    holders: (52,) the seat (0..3 = N, E, S, W) holding each card.
    first_seat: the seat (0..3) whose hand comes first.

  Returns:
    The PBN deal string.
  """
  if first_seat not in range(NUM_SEATS):
    raise ValueError(f"first_seat {first_seat!r} is not a seat in 0..3")
  hs = hands(holders)
  order = [(first_seat + i) % NUM_SEATS for i in range(NUM_SEATS)]
  return SEAT_CHARS[first_seat] + ":" + " ".join(_hand_to_pbn(hs[s]) for s in order)


def pbn_to_holders(pbn: str) -> np.ndarray:
  """Parses a PBN deal string ('N:AK84.AKJ9.942.K ...') into `holders` (52,) uint8.

  Accepts 'T' or '10' for the ten and lower-case letters. Raises ValueError naming the
  problem (missing seat prefix, not four hands, not four suits, unknown rank, duplicated
  card, a hand without 13 cards).

  Args:
    pbn: the PBN deal string.

  Returns:
    (52,) uint8 holders.
  """
  if not isinstance(pbn, str):
    raise ValueError(f"PBN deal must be a string, got {type(pbn).__name__}")
  text = pbn.strip()
  if len(text) < 2 or text[1] != ":" or text[0].upper() not in SEAT_CHARS:
    raise ValueError(f"PBN deal {pbn!r} must start with a seat and a colon, e.g. 'N:'")
  first = SEAT_CHARS.index(text[0].upper())
  parts = text[2:].split()
  if len(parts) != NUM_SEATS:
    raise ValueError(f"PBN deal {pbn!r} has {len(parts)} hands, expected 4")
  holders = np.full(NUM_CARDS, 255, dtype=np.uint8)
  for i, hand in enumerate(parts):
    seat = (first + i) % NUM_SEATS
    for card in _pbn_hand_cards(hand, seat):
      if holders[card] != 255:
        raise ValueError(f"PBN deal {pbn!r}: card {card_string(card)} appears twice "
                         f"(seats {SEAT_CHARS[holders[card]]} and {SEAT_CHARS[seat]})")
      holders[card] = seat
  counts = [(holders == s).sum() for s in range(NUM_SEATS)]
  for s in range(NUM_SEATS):
    if counts[s] != CARDS_PER_HAND:
      raise ValueError(f"PBN deal {pbn!r}: seat {SEAT_CHARS[s]} holds {counts[s]} cards, not 13")
  return holders


def _pbn_hand_cards(hand: str, seat: int) -> list[int]:
  """The cards of one PBN hand ('AK84.AKJ9.942.K') of `seat`; ValueError naming a bad one."""
  suits = hand.split(".")
  if len(suits) != NUM_SUITS:
    raise ValueError(f"PBN hand {hand!r} of seat {SEAT_CHARS[seat]} has {len(suits)} "
                     "suits, expected 4 separated by '.'")
  cards = []
  for suit, holding in zip(PBN_SUIT_ORDER, suits, strict=True):
    holding = holding.upper().replace("10", "T")
    if holding == "-":
      holding = ""
    for ch in holding:
      if ch not in RANK_CHARS:
        raise ValueError(f"PBN hand {hand!r} of seat {SEAT_CHARS[seat]}: unknown rank {ch!r}")
      cards.append(RANK_CHARS.index(ch) * 4 + suit)
  return cards


def holders_to_openspiel_actions(holders: np.ndarray) -> list[int]:
  """The 52 chance actions that deal `holders` in OpenSpiel's `bridge` game.

  Action ``i`` goes to seat ``i % 4``; each seat's cards are dealt in increasing order.

  Args:
    holders: (52,) the seat (0..3 = N, E, S, W) holding each card.

  Returns:
    52 card indices, in dealing order.
  """
  hs = hands(holders)
  return [hs[i % NUM_SEATS][i // NUM_SEATS] for i in range(NUM_CARDS)]


def random_holders(rng: np.random.Generator, n: int) -> np.ndarray:
  """`n` uniformly random deals, shape (n, 52) uint8 (a random permutation of 13 of each seat).

  Args:
    rng: a numpy Generator.
    n: the number of deals (>= 0).

  Returns:
    (n, 52) uint8 holders.
  """
  checks.check_type("rng", rng, np.random.Generator, "a numpy Generator")
  n = checks.check_int("n", n, minimum=0)
  base = np.repeat(np.arange(NUM_SEATS, dtype=np.uint8), CARDS_PER_HAND)
  keys = rng.random((n, NUM_CARDS))
  return base[np.argsort(keys, axis=1)].astype(np.uint8)


def hcp(holders: np.ndarray) -> np.ndarray:
  """High-card points (A=4, K=3, Q=2, J=1) of each seat: shape (..., 4) int.

  Args:
    holders: (..., 52) one deal or a batch.

  Returns:
    (..., 4) high-card points per seat.
  """
  h = validate_holders(holders)
  ranks = np.arange(NUM_CARDS) // 4
  points = np.clip(ranks - 8, 0, 4)  # J=9 -> 1, Q -> 2, K -> 3, A -> 4
  onehot = h[..., :, None] == np.arange(NUM_SEATS)
  return (onehot * points[:, None]).sum(axis=-2)


SUIT_PERMUTATIONS = tuple(itertools.permutations(range(NUM_SUITS)))  # identity first
NUM_SYMMETRIES = len(SUIT_PERMUTATIONS) * NUM_SEATS  # 96


def _suit_permutation_sources() -> np.ndarray:
  """The card permutations of the 24 suit permutations, shape (24, 52).

  (24, 52): row k, entry c = the card whose holder card c takes under suit permutation k
  (card ``(rank, s)`` becomes ``(rank, perm_k[s])``).
  """
  cards = np.arange(NUM_CARDS)
  ranks, suits = cards // 4, cards % 4
  src = np.empty((len(SUIT_PERMUTATIONS), NUM_CARDS), np.int64)
  for k, perm in enumerate(SUIT_PERMUTATIONS):
    src[k, ranks * 4 + np.asarray(perm)[suits]] = cards
  return src


def symmetric_deals(holders: np.ndarray, rotations: bool = True,
                    suit_permutations: bool = True) -> np.ndarray:
  """The images of deals under seat rotations and suit permutations (up to 4 x 24 = 96).

  Symmetry ``(k, r)`` renames suit ``s`` as ``SUIT_PERMUTATIONS[k][s]`` (each card keeps its
  rank) and then moves every card ``r`` seats clockwise (seat ``p`` -> ``p + r mod 4``). Both
  keep a deal's double-dummy table up to a permutation (`symmetric_dd_tricks`), but not its
  score (minors score less than majors; vulnerability is by side), so the images are new deals
  for training (`dataset.augment_deals`) and one cluster for statistics (`canonical_keys`).

  Args:
    holders: deals, shape (n, 52) (or one deal (52,)).
    rotations: include the 4 seat rotations (else rotation 0 only).
    suit_permutations: include the 24 suit permutations (else the identity only).

  Returns:
    (S, n, 52) uint8 holders, S = (24 or 1) x (4 or 1); image ``k * R + r`` (R rotations) is
    symmetry ``(k, r)``, permutations in `SUIT_PERMUTATIONS` order, the identity first.
  """
  h = validate_holders(holders).reshape(-1, NUM_CARDS)
  src = _suit_permutation_sources()[:len(SUIT_PERMUTATIONS) if suit_permutations else 1]
  rots = np.arange(NUM_SEATS if rotations else 1, dtype=np.uint8)
  permuted = np.moveaxis(h[:, src], 1, 0)  # (K, n, 52)
  images = (permuted[:, None] + rots[None, :, None, None]) % NUM_SEATS  # (K, R, n, 52)
  return images.reshape(-1, h.shape[0], NUM_CARDS).astype(np.uint8)


def symmetric_dd_tricks(dd_tricks: np.ndarray, rotations: bool = True,
                        suit_permutations: bool = True) -> np.ndarray:
  """The double-dummy tables of `symmetric_deals`, permuted from `dd_tricks` (no DDS work).

  Renaming suit ``s`` as ``pi(s)`` moves strain row ``s`` to ``pi(s)`` (NT stays); rotating
  by ``r`` seats moves declarer column ``d`` to ``d + r``.

  Args:
    dd_tricks: (n, 5, 4) tables ``[strain, declarer]`` of the deals (`ospiel_team.bridge.dds`).
    rotations: as in `symmetric_deals`.
    suit_permutations: as in `symmetric_deals`.

  Returns:
    (S, n, 5, 4) tables in the order of `symmetric_deals`.
  """
  t = np.asarray(dd_tricks)
  if t.ndim != 3 or t.shape[1:] != (5, NUM_SEATS):
    raise ValueError(f"dd_tricks must have shape (n, 5, 4), got shape {t.shape}")
  perms = SUIT_PERMUTATIONS[:len(SUIT_PERMUTATIONS) if suit_permutations else 1]
  out = []
  for perm in perms:
    tp = t.copy()
    tp[:, list(perm), :] = t[:, :NUM_SUITS, :]
    for r in range(NUM_SEATS if rotations else 1):
      out.append(np.roll(tp, r, axis=2))
  return np.stack(out)


def canonical_keys(holders: np.ndarray, chunk: int = 128) -> np.ndarray:
  """A key per deal, equal for deals that are symmetric to each other.

  One key per deal, equal for two deals iff one is the other under a seat rotation and a
  suit permutation (the 96 `symmetric_deals`, the symmetries training augmentation uses).

  The key is the lexicographically smallest of the 96 images' ``holders`` rows, packed as
  two big-endian uint64 (26 cards x 2 bits each); returned as an (n,) array of 16-byte strings
  (dtype ``S16``), usable in sets, as dict keys and in `np.isin`.

  Args:
    holders: (n, 52) deals.
    chunk: deals processed at a time (memory).

  Returns:
    (n,) keys.
  """
  h = validate_holders(holders).reshape(-1, NUM_CARDS)
  out = np.empty(len(h), dtype="S16")
  weights = (np.uint64(4) ** np.arange(25, -1, -1, dtype=np.uint64)).astype(np.uint64)
  for lo in range(0, len(h), chunk):
    v = symmetric_deals(h[lo:lo + chunk]).astype(np.uint64)  # (96, n, 52)
    n = v.shape[1]
    hi = (v[:, :, :26] * weights).sum(axis=2)  # (96, n)
    lo_ = (v[:, :, 26:] * weights).sum(axis=2)
    best_hi = hi.min(axis=0)
    lo_masked = np.where(hi == best_hi[None, :], lo_, np.iinfo(np.uint64).max)
    best_lo = lo_masked.min(axis=0)
    packed = np.stack([best_hi, best_lo], axis=1).astype(">u8")
    out[lo:lo + n] = packed.view("S16").reshape(n)
  return out
