"""`bidder_conformance(bidder)`: what every bridge bidder must do, checked on real auctions.

A test helper (it only reads `ospiel_team.bridge.agents`): the bidder, a `bidders.Bidder`,
bids all four seats of seeded random tables (`BiddingEngine`) to the end of their auctions
through the entry point a match uses, ``act_auction(auctions, hands, rows, uniforms)``, and is
asked the same positions through the other, ``act(observations, uniforms)``; every answer is
checked:

* one integer call per table asked, each legal at its table (the engine's legal mask), from
  both entry points (and the same from both for a bidder that decides from the observation);
* the same inputs give the same calls (a bidder is a function of the position and the
  match's uniforms: duplicate matches replay boards);
* every auction ends (at most `MAX_CALLS` calls: 35 bids, each followed by at most six calls,
  and the opening passes).
"""

import numpy as np

from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents import bidders

MAX_CALLS = 4 + 35 * 7 + 3  # four opening passes at most, then at most 7 calls per bid


def _calls(bidder, engine, rows, uniforms):
  return bidder.act_auction(engine.auctions, engine.hands, rows, uniforms)


def _checked(calls, rows, engine, step, entry) -> np.ndarray:
  calls = np.asarray(calls)
  assert calls.shape == (len(rows),), f"step {step}, {entry}: {calls.shape} calls for {len(rows)}"
  assert np.issubdtype(calls.dtype, np.integer), f"step {step}, {entry}: dtype {calls.dtype}"
  legal = engine.legal_mask()[rows, calls]
  assert legal.all(), (f"step {step}, {entry}, table {int(rows[np.argmin(legal)])}: illegal "
                       f"call {int(calls[np.argmin(legal)])}")
  return calls


def bidder_conformance(bidder, *, tables: int = 16, seed: int = 0,
                       observations_every: int = 1) -> int:
  """Plays `tables` seeded random auctions with `bidder` at every seat and checks each call.

  Args:
    bidder: the bidder (`bidders.make_bidder`'s kind).
    tables: how many tables.
    seed: seeds the deals, dealers, vulnerabilities and uniforms.
    observations_every: ask ``act`` every this many steps (1: at every step; it costs as much
      as ``act_auction``).

  Returns:
    The number of calls checked.

  Raises:
    AssertionError: naming the table and the step of the first call that breaks the contract.
  """
  assert isinstance(bidder, bidders.Bidder), f"{type(bidder).__name__} is not a bidders.Bidder"
  assert isinstance(bidder.name, str) and bidder.name, "a bidder has a name"
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
    calls = _checked(_calls(bidder, engine, rows, uniforms), rows, engine, step, "act_auction")
    if step % observations_every == 0:
      from_obs = _checked(bidder.act(engine.observation()[rows], uniforms.copy()), rows, engine,
                          step, "act")
      if isinstance(bidder, bidders.ObservationBidder):
        assert np.array_equal(from_obs, calls), f"step {step}: act and act_auction differ"
    again = np.asarray(_calls(bidder, engine, rows, uniforms.copy()))
    assert np.array_equal(again, calls), f"step {step}: the same position gave other calls"
    full = np.zeros(tables, np.int64)
    full[rows] = calls
    engine.step(full)
    checked += len(rows)
  raise AssertionError("unreachable")
