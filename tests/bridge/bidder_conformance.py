"""`bidder_conformance(bidder)`: what every bridge bidder must do, checked on real auctions.

A test helper (it only reads `ospiel_team.bridge.agents`): the bidder bids all four seats of
seeded random tables (`BiddingEngine`) to the end of their auctions through the entry point a
match uses (`act(observations, uniforms)`, or `act_auction(auctions, hands, rows, uniforms)`
for a bidder with ``needs_auction``), and every answer is checked:

* one integer call per table asked, each legal at its table (the engine's legal mask);
* the same inputs give the same calls (a bidder is a function of the position and the
  match's uniforms: duplicate matches replay boards);
* every auction ends (at most `MAX_CALLS` calls: 35 bids, each followed by at most six calls,
  and the opening passes).
"""

import numpy as np

from ospiel_team.bridge import engine as engine_lib

MAX_CALLS = 4 + 35 * 7 + 3  # four opening passes at most, then at most 7 calls per bid


def _calls(bidder, engine, rows, uniforms):
  if getattr(bidder, "needs_auction", False):
    return bidder.act_auction(engine.auctions, engine.hands, rows, uniforms)
  return bidder.act(engine.observation()[rows], uniforms)


def bidder_conformance(bidder, *, tables: int = 16, seed: int = 0) -> int:
  """Plays `tables` seeded random auctions with `bidder` at every seat and checks each call.

  Args:
    bidder: the bidder (`bidders.make_bidder`'s kind).
    tables: how many tables.
    seed: seeds the deals, dealers, vulnerabilities and uniforms.

  Returns:
    The number of calls checked.

  Raises:
    AssertionError: naming the table and the step of the first call that breaks the contract.
  """
  assert isinstance(getattr(bidder, "name", None), str) and bidder.name, "a bidder has a name"
  rng = np.random.default_rng(seed)
  engine = engine_lib.BiddingEngine()
  engine.reset_random(rng, tables)
  checked = 0
  for step in range(MAX_CALLS + 1):
    if engine.done.all():
      return checked
    assert step < MAX_CALLS, f"auctions not over after {MAX_CALLS} calls"
    rows = np.flatnonzero(~engine.done)
    uniforms = rng.random(len(rows))
    calls = np.asarray(_calls(bidder, engine, rows, uniforms))
    assert calls.shape == (len(rows),), f"step {step}: {calls.shape} calls for {len(rows)}"
    assert np.issubdtype(calls.dtype, np.integer), f"step {step}: calls of dtype {calls.dtype}"
    legal = engine.legal_mask()[rows, calls]
    assert legal.all(), (f"step {step}, table {int(rows[np.argmin(legal)])}: illegal call "
                         f"{int(calls[np.argmin(legal)])}")
    again = np.asarray(_calls(bidder, engine, rows, uniforms.copy()))
    assert np.array_equal(again, calls), f"step {step}: the same position gave other calls"
    full = np.zeros(tables, np.int64)
    full[rows] = calls
    engine.step(full)
    checked += len(rows)
  raise AssertionError("unreachable")
