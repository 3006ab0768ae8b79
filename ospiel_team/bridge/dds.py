"""Double-dummy tables with Bo Haglund's DDS library through `endplay`.

`dd_tables(holders)` takes deals in the `holders` convention of `ospiel_team.bridge.deal`
(shape (n, 52) uint8, card = rank * 4 + suit, suits 0=C..3=S, seats 0=N..3=W) and returns
``tricks`` of shape (n, 5, 4) uint8 where ``tricks[i, strain, declarer]`` is the number of tricks
(0..13) declarer's side takes double-dummy with ``strain`` (0=C, 1=D, 2=H, 3=S, 4=NT) trumps
and ``declarer`` (0=N, 1=E, 2=S, 3=W) declaring, i.e. with the player after declarer on lead.
This is the layout of OpenSpiel's ``ddTableResults.resTable[trumps][declarer]``.

Batches go through DDS's multi-threaded ``CalcAllTables`` (the function behind endplay's
`endplay.dds.calc_all_tables`), called on the low-level ``endplay._dds`` structures so that the
deals are written with numpy instead of one Python `Deal` object per board, and for
``SetMaxThreads``, which endplay does not wrap publicly (hence the pin of endplay in
setup.py). DDS accepts at
most ``MAXNOOFTABLES`` = 40 deals per call when all five strains are asked, so batches are
cut into chunks of 40.

DDS's own encoding differs from ours: suits 0=S, 1=H, 2=D, 3=C (NT = 4) and a holding is a
bitmask with bit ``rank + 2`` set for rank 0='2' .. 12='A'; the conversion is in
`_to_dds_cards` / `_from_dds_results`.
"""

from __future__ import annotations

import ctypes

import endplay._dds as _dds
import numpy as np

from ospiel_team.bridge import deal as deal_lib

NUM_STRAINS = 5
# Tables per CalcAllTables call with all five strains (DDS's MAXNOOFTABLES).
MAX_TABLES_PER_CALL = int(_dds.MAXNOOFTABLES)
# Our strain s (0=C..3=S, 4=NT) is DDS strain _OUR_TO_DDS_STRAIN[s].
_OUR_TO_DDS_STRAIN = np.array([3, 2, 1, 0, 4])
_RANK_BITS = (1 << (np.arange(deal_lib.NUM_RANKS, dtype=np.uint32) + 2)).astype(np.uint32)


def set_max_threads(n: int) -> None:
  """Sets the number of DDS threads (0 = DDS's own choice from the machine's cores)."""
  if int(n) != n or n < 0:
    raise ValueError(f"DDS thread count must be a non-negative integer, got {n!r}")
  _dds.SetMaxThreads(int(n))


def _to_dds_cards(holders: np.ndarray) -> np.ndarray:
  """(n, 52) holders -> (n, 4 hands, 4 DDS suits) uint32 holding bitmasks."""
  n = holders.shape[0]
  onehot = (holders.reshape(n, deal_lib.NUM_RANKS, deal_lib.NUM_SUITS, 1)
            == np.arange(deal_lib.NUM_SEATS, dtype=np.uint8))  # (n, rank, suit, hand)
  ours = np.einsum("nrsh,r->nhs", onehot.astype(np.uint32), _RANK_BITS)  # our suit order
  return np.ascontiguousarray(ours[:, :, ::-1]).astype(np.uint32)  # DDS suit = 3 - suit


def _from_dds_results(res: np.ndarray) -> np.ndarray:
  """(n, 5 DDS strains, 4 hands) int -> (n, 5 our strains, 4 hands) uint8."""
  return res[:, _OUR_TO_DDS_STRAIN, :].astype(np.uint8)


def _calc_chunk(cards: np.ndarray) -> np.ndarray:
  """One CalcAllTables call on up to MAX_TABLES_PER_CALL deals of DDS cards (m, 4, 4)."""
  m = cards.shape[0]
  assert 0 < m <= MAX_TABLES_PER_CALL
  deals = _dds.ddTableDeals()
  deals.noOfTables = m
  buf = np.ctypeslib.as_array(
      ctypes.cast(ctypes.addressof(deals.ddTableDeal), ctypes.POINTER(ctypes.c_uint)),
      shape=(len(deals.ddTableDeal), 4, 4))
  buf[:m] = cards
  res = _dds.ddTablesRes()
  par = _dds.allParResults()
  trump_filter = (ctypes.c_int * 5)(0, 0, 0, 0, 0)
  _dds.CalcAllTables(deals, -1, trump_filter, res, par)
  out = np.ctypeslib.as_array(
      ctypes.cast(ctypes.addressof(res.results), ctypes.POINTER(ctypes.c_int)),
      shape=(len(res.results), NUM_STRAINS, 4))
  return out[:m].copy()


def dd_tables(holders_batch: np.ndarray) -> np.ndarray:
  """Double-dummy tricks (n, 5 strains C,D,H,S,NT, 4 declarers N,E,S,W) uint8 of (n, 52) deals.

  Args:
    holders_batch: (n, 52) deals.

  Returns:
    (n, 5, 4) uint8 tricks declarer's side takes double-dummy.
  """
  h = deal_lib.validate_holders(holders_batch, "holders_batch")
  if h.ndim != 2:
    raise ValueError(f"dd_tables takes a batch of shape (n, 52), got shape {h.shape}; "
                     "pass one deal as holders[None]")
  n = h.shape[0]
  out = np.zeros((n, NUM_STRAINS, deal_lib.NUM_SEATS), dtype=np.uint8)
  if n == 0:
    return out
  cards = _to_dds_cards(h)
  for start in range(0, n, MAX_TABLES_PER_CALL):
    stop = min(n, start + MAX_TABLES_PER_CALL)
    out[start:stop] = _from_dds_results(_calc_chunk(cards[start:stop]))
  return out
