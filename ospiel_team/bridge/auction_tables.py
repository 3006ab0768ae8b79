"""The one auction interface: B bridge auctions over known deals, advanced together.

Three front ends play the auction of `ospiel_team.bridge.auction` (its rules: `legal_calls`,
`final_contract`; its scores: `ospiel_team.bridge.scoring`), and all present it through
`AuctionTables`:

* `ospiel_team.bridge.engine.BiddingEngine`: numpy, mutable, B tables (self-play, matches);
* `ospiel_team.bridge.jax_env.JaxAuctionTables`: the pure-JAX auction (`jax_env`) behind a
  host-side object (the JAX trainer jits the pure functions themselves);
* the pyspiel game `bridge_bidding` (`ospiel_team.games.bridge_bidding`): each state holds a
  `BiddingEngine` of one table.

tests/bridge/test_auction_tables.py drives the numpy and JAX implementations with the same
random auctions and checks that they agree call by call.
"""

from __future__ import annotations

from typing import Protocol
from typing import runtime_checkable

import numpy as np


@runtime_checkable
class AuctionTables(Protocol):
  """B auctions of deals with known double-dummy tables (all arrays have leading axis B).

  Seats are 0 N, 1 E, 2 S, 3 W; calls are the 38 of `auction` (0 Pass, 1 Dbl, 2 RDbl,
  3 = 1C ... 37 = 7NT).
  """

  @property
  def batch_size(self) -> int:
    """B, the number of tables."""

  @property
  def done(self) -> np.ndarray:
    """(B,) bool: the auction at the table is over."""

  @property
  def current_player(self) -> np.ndarray:
    """(B,) seat to call (meaningless where done)."""

  def legal_mask(self) -> np.ndarray:
    """(B, 38) bool legal calls of the seat to call (all False where done).

    Returns:
      (B, 38) bool.
    """

  def step(self, calls) -> None:
    """The seat to call at each unfinished table makes `calls[b]`; finished tables ignore it.

    Args:
      calls: (B,) one call id (0..37) per table.

    Raises:
      ValueError: naming the first unfinished table whose call is illegal (nothing changes).
    """

  def observation(self, player=None, dtype=np.float32) -> np.ndarray:
    """(B, 267) JPS observations of `player` (int or (B,) seats; default the seat to call).

    Args:
      player: the observing seat: an int, (B,) seats, or None for the seat to call at each table.
      dtype: the array's dtype.

    Returns:
      (B, 267) observations.
    """

  def contract(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(level (0 = passed out / none yet), strain, double status, declarer), each (B,).

    Returns:
      The four (B,) arrays.
    """

  def ns_score(self) -> np.ndarray:
    """(B,) North-South duplicate score of each final contract (0 where not done).

    Returns:
      (B,) North-South scores.
    """

  def returns(self) -> np.ndarray:
    """(B, 4) returns by seat: +N-S score to N and S, its negative to E and W.

    Returns:
      (B, 4) returns.
    """
