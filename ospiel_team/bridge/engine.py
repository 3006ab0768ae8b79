"""Batched bridge-auction engine: B tables bid at once, vectorized with numpy.

The engine runs the same auction code as the pyspiel game `bridge_bidding`
(`ospiel_team.bridge.auction.Auctions`), so for the same deal, dealer, vulnerability and calls
it gives the same legal calls, the same 267-bit JPS observations (Appendix D of the JPS paper)
and the same returns; tests/bridge/test_engine.py checks this against the pyspiel game.

Usage::

  from ospiel_team.bridge import engine
  eng = engine.BiddingEngine()                       # the shipped dataset
  eng.reset(deal_index, dealer, vulnerability)       # (B,) arrays; vulnerability 0..3
  while not eng.done.all():
    obs = eng.observation()                          # (B, 267) of the seat to call
    calls = my_policy(obs)                           # must be legal where not done
    eng.step(calls)                                  # ignored at finished tables
  eng.ns_score()                                     # (B,) N-S duplicate scores
  eng.returns()                                      # (B, 4): +score N, S; -score E, W

For continuous self-play, `reset_tables(tables, ...)` restarts only the finished tables.

Vulnerability codes: 0 none, 1 N-S, 2 E-W, 3 both (``ns + 2 * ew``).
"""

from __future__ import annotations

import os

import numpy as np

from ospiel_team import checks
from ospiel_team.bridge import auction as auction_lib
from ospiel_team.bridge import scoring


def _as_dataset(dataset):
  """A dataset object (with .holders and .dd_tricks), a path, or None (shipped default)."""
  if dataset is not None and hasattr(dataset, "holders") and hasattr(dataset, "dd_tricks"):
    return dataset
  from ospiel_team.bridge import dataset as dataset_lib
  checks.check_type("dataset", dataset, (str, os.PathLike, type(None)),
                    "a dataset (.holders, .dd_tricks), a file path or None")
  return dataset_lib.load_dataset(dataset)


class BiddingEngine:
  """B bridge auctions over deals of a dataset, advanced together by `step`.

  The numpy implementation of `ospiel_team.bridge.auction_tables.AuctionTables` (the JAX one
  is `jax_env.JaxAuctionTables`; the pyspiel game `bridge_bidding` holds an engine of one
  table).
  """

  def __init__(self, dataset=None, uncontested: bool = False):
    self.uncontested = checks.check_bool("uncontested", uncontested)
    self.dataset = _as_dataset(dataset)
    self.num_deals = int(self.dataset.holders.shape[0])
    self.auctions: auction_lib.Auctions | None = None
    self.deal_index = np.zeros(0, np.int64)

  # --- set-up ------------------------------------------------------------------------------
  def reset(self, deal_index, dealer=0, vulnerability=0) -> None:
    """Starts B new auctions: deal `deal_index[b]` of the dataset, given dealer and vul.

    `dealer` and `vulnerability` are ints or (B,) arrays (seats 0..3; codes 0..3).

    Args:
      deal_index: (B,) indices of the dataset's deals.
      dealer: the dealer seat(s) 0..3.
      vulnerability: the vulnerability code(s) 0..3 (none, ns, ew, both).
    """
    idx = np.asarray(deal_index, dtype=np.int64).reshape(-1)
    bad = (idx < 0) | (idx >= self.num_deals)
    if np.any(bad):
      raise ValueError(f"deal index {idx[bad][0]} out of range 0..{self.num_deals - 1}")
    b = idx.shape[0]
    dealer = np.broadcast_to(np.asarray(dealer, dtype=np.int64), (b,))
    vul = np.broadcast_to(np.asarray(vulnerability, dtype=np.int64), (b,))
    self.auctions = auction_lib.Auctions(dealer, vul, uncontested=self.uncontested)
    self.deal_index = idx
    self.holders = np.asarray(self.dataset.holders[idx])
    self.dd_tricks = np.asarray(self.dataset.dd_tricks[idx])
    self.hands = auction_lib.hands_onehot(self.holders)

  @classmethod
  def from_auctions(cls, dataset, uncontested: bool, auctions: auction_lib.Auctions,
                    deal_index) -> BiddingEngine:
    """An engine positioned at `auctions` (taken over, not copied) of the dataset's deals.

    Args:
      dataset: the deals (a dataset object, a path, or None: the shipped default).
      uncontested: East-West may only pass (must match `auctions`).
      auctions: the auctions, one per table.
      deal_index: (B,) the deal of each table.

    Returns:
      The engine.
    """
    eng = cls(dataset, uncontested=uncontested)
    idx = np.asarray(deal_index, np.int64).reshape(-1)
    if idx.shape[0] != auctions.batch_size:
      raise ValueError(f"{idx.shape[0]} deals for {auctions.batch_size} auctions")
    eng.auctions = auctions
    eng.deal_index = idx
    eng.holders = np.asarray(eng.dataset.holders[idx])
    eng.dd_tricks = np.asarray(eng.dataset.dd_tricks[idx])
    eng.hands = auction_lib.hands_onehot(eng.holders)
    return eng

  def take(self, tables) -> BiddingEngine:
    """A new engine (sharing the dataset) with copies of tables `tables` (repeats allowed).

    Args:
      tables: table indices.

    Returns:
      A new `BiddingEngine` of len(tables) tables.
    """
    a = self._check()
    idx = np.asarray(tables, np.int64).reshape(-1)
    return BiddingEngine.from_auctions(self.dataset, self.uncontested, a.take(idx),
                                       self.deal_index[idx])

  def copy(self) -> BiddingEngine:
    """An independent copy of every table (the dataset is shared).

    Returns:
      A new `BiddingEngine`.
    """
    return self.take(np.arange(self.batch_size))

  def reset_tables(self, tables, deal_index, dealer=0, vulnerability=0) -> None:
    """Restarts only tables `tables` (indices) with new deals, dealers and vulnerabilities.

    For continuous self-play: read `ns_score()` of finished tables first, then restart them
    (e.g. ``eng.reset_tables(np.flatnonzero(eng.done), new_deals, new_dealers, new_vuls)``).

    Args:
      tables: the tables' indices.
      deal_index: their new deals' indices in the dataset.
      dealer: the dealer seat(s) 0..3.
      vulnerability: the vulnerability code(s) 0..3.
    """
    a = self._check()
    rows = np.asarray(tables, dtype=np.int64).reshape(-1)
    if np.any((rows < 0) | (rows >= a.batch_size)):
      raise ValueError(f"table {rows[(rows < 0) | (rows >= a.batch_size)][0]} out of range "
                       f"0..{a.batch_size - 1}")
    idx = np.broadcast_to(np.asarray(deal_index, dtype=np.int64), rows.shape)
    bad = (idx < 0) | (idx >= self.num_deals)
    if np.any(bad):
      raise ValueError(f"deal index {idx[bad][0]} out of range 0..{self.num_deals - 1}")
    a.reset_rows(rows, dealer, vulnerability)
    self.deal_index[rows] = idx
    self.holders[rows] = self.dataset.holders[idx]
    self.dd_tricks[rows] = self.dataset.dd_tricks[idx]
    self.hands[rows] = auction_lib.hands_onehot(self.holders[rows])

  def reset_random(self, rng: np.random.Generator, batch_size: int,
                   *, dealer: int | str = "random",
                   vulnerability: int | str = "random") -> None:
    """Resets B tables with uniformly random deals (and dealer / vulnerability if 'random').

    Args:
      rng: draws the deals (and the random dealers and vulnerabilities).
      batch_size: B, the number of tables (>= 1).
      dealer: a seat 0..3, or "random".
      vulnerability: a code 0..3, or "random".
    """
    if int(batch_size) != batch_size or batch_size < 1:
      raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    idx = rng.integers(0, self.num_deals, batch_size)
    d = (rng.integers(0, 4, batch_size) if dealer == "random"
         else auction_lib.parse_seat(dealer))
    v = (rng.integers(0, 4, batch_size) if vulnerability == "random"
         else auction_lib.parse_vulnerability(vulnerability))
    self.reset(idx, d, v)

  def _check(self) -> auction_lib.Auctions:
    if self.auctions is None:
      raise ValueError("BiddingEngine: call reset() first")
    return self.auctions

  # --- views -------------------------------------------------------------------------------
  @property
  def batch_size(self) -> int:
    """B, the number of tables."""
    return self._check().batch_size

  @property
  def done(self) -> np.ndarray:
    """(B,) bool: the auction at the table is over."""
    return self._check().done

  @property
  def current_player(self) -> np.ndarray:
    """(B,) seat to call (meaningless where done)."""
    return self._check().current_player

  @property
  def dealer(self) -> np.ndarray:
    """(B,) dealer seat of each table."""
    return self._check().dealer

  @property
  def vulnerability(self) -> np.ndarray:
    """(B, 2) bool vulnerability of [N-S, E-W] at each table."""
    return self._check().vulnerability

  def legal_mask(self) -> np.ndarray:
    """(B, 38) bool legal calls of the seat to call (all False where done).

    Returns:
      (B, 38) bool.
    """
    return self._check().legal_mask()

  def observation(self, player=None, dtype=np.float32) -> np.ndarray:
    """(B, 267) JPS observations of `player` (int or (B,) seats; default the seat to call).

    Args:
      player: an int or (B,) seats (None: the seat to call).
      dtype: the array's dtype.

    Returns:
      (B, 267) observations.
    """
    return self._check().observation(self.hands, player=player, dtype=dtype)

  def step(self, calls) -> None:
    """The seat to call at each unfinished table makes `calls[b]`; finished tables ignore it.

    Raises ValueError (and changes nothing) if a call at an unfinished table is illegal.

    Args:
      calls: (B,) one call id (0..37) per table.
    """
    self._check().apply(calls)

  def ns_score(self) -> np.ndarray:
    """(B,) N-S duplicate score of each table's contract (0 where not done or passed out).

    Returns:
      (B,) North-South scores.
    """
    a = self._check()
    return np.where(a.done, a.ns_score(self.dd_tricks), 0)

  def returns(self) -> np.ndarray:
    """(B, 4) float returns of N, E, S, W: +score to N-S, -score to E-W (0 where not done).

    Returns:
      (B, 4) float64 returns.
    """
    s = self.ns_score().astype(np.float64)
    return scoring.seat_returns(s[:, None], np.arange(auction_lib.NUM_SEATS))

  def contract(self):
    """(level, strain, doubled, declarer) arrays of the (current or final) contracts.

    Returns:
      `(level, strain, doubled, declarer)`, each (B,).
    """
    return self._check().contract()

  def auction_strings(self, table: int) -> list[str]:
    """The calls of table `table` so far, as strings ("1C", "Pass", ...).

    Args:
      table: the table's index.

    Returns:
      One string per call.
    """
    return self._check().auction_strings(table)
