"""Bridge bidding in pure JAX: the auction of `ospiel_team.bridge.auction`, jit- and vmap-able.

The same game as the numpy engine (`ospiel_team.bridge.engine.BiddingEngine`, which runs
`auction.Auctions`): the same 38 calls, the same legality rules, the same 267-bit observation
(Appendix D of the JPS paper: Tian, Gong & Jiang, "Joint Policy Search for Multi-agent
Collaboration with Imperfect Information", NeurIPS 2020, arXiv:2008.06495), the same final
contract and declarer and the same duplicate score: the legality rules, the contract and the
score are the functions of `auction` and `scoring` that the numpy engine calls, given
`jax.numpy`. `JaxAuctionTables` presents this auction through the interface the engine and
the pyspiel game share (`auction_tables.AuctionTables`). tests/bridge/test_jax_env.py and
tests/bridge/test_auction_tables.py check random auctions step by step against the engine.

A batch of B tables is an `AuctionState` pytree of arrays with leading axis B; every function
here is pure, so a whole self-play auction can run inside `jax.jit` and `jax.lax.while_loop`
on an accelerator. The per-table functions (`step_one`, `legal_mask_one`, ...) take one table
(no batch axis); the batched ones (`step`, `legal_mask`, ...) are their `jax.vmap`.

Usage::

  from ospiel_team.bridge import jax_env
  state = jax_env.reset(holders, dd_tricks, dealer, vul)   # (B, 52), (B, 5, 4), (B,), (B,)
  while not state.done.all():
    obs = jax_env.observation(state)                       # (B, 267) of the seat to call
    state = jax_env.step(state, calls)                     # legal calls where not done
  jax_env.ns_score(state)                                  # (B,) N-S duplicate scores

`step` does not check its calls (jitted code cannot raise): an illegal call at an unfinished
table gives a meaningless state. `check_calls` checks calls on the host and raises ValueError
naming the first bad table, as `BiddingEngine.step` does. Finished tables ignore their calls.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import scoring

_REL_OFFSETS = np.asarray(A.RELATIVE_SEAT_OFFSETS, np.int32)


class AuctionState(NamedTuple):
  """B auctions (leading axis B on every field; no batch axis for the ``*_one`` functions).

  Fields: ``hands`` (B, 4, 52) bool seat holds card; ``dd_tricks`` (B, 5, 4) int32 double-dummy
  tricks [strain, declarer]; ``dealer`` (B,) int32; ``vulnerable`` (B, 2) bool [N-S, E-W];
  ``uncontested`` (B,) bool (East-West may only pass); ``num_calls`` (B,) int32;
  ``history`` (B, 319) int32 calls so far (-1 after the end); ``num_passes`` consecutive
  passes; ``last_bid`` highest bid 0..34 (-1: none); ``last_bidder`` its seat;
  ``double_status`` 0/1/2 of the last bid; ``first_bidder`` (B, 2, 5) the seat of each side
  that first named each strain (-1: none); ``bids`` (B, 4, 35) bid j made by seat s;
  ``doubled`` (B, 35) bid j was doubled; ``done`` (B,) bool auction over.
  """
  hands: jax.Array
  dd_tricks: jax.Array
  dealer: jax.Array
  vulnerable: jax.Array
  uncontested: jax.Array
  num_calls: jax.Array
  history: jax.Array
  num_passes: jax.Array
  last_bid: jax.Array
  last_bidder: jax.Array
  double_status: jax.Array
  first_bidder: jax.Array
  bids: jax.Array
  doubled: jax.Array
  done: jax.Array


# ------------------------------------------------------------------------------------------
# One table
# ------------------------------------------------------------------------------------------
def reset_one(holders, dd_tricks, dealer, vulnerability, uncontested=False) -> AuctionState:
  """A new auction of one deal: holders (52,) seats, dd_tricks (5, 4), dealer, vul code 0..3."""
  holders = jnp.asarray(holders, jnp.int32)
  vul = jnp.asarray(vulnerability, jnp.int32)
  return AuctionState(
      hands=holders[None, :] == jnp.arange(A.NUM_SEATS, dtype=jnp.int32)[:, None],
      dd_tricks=jnp.asarray(dd_tricks, jnp.int32),
      dealer=jnp.asarray(dealer, jnp.int32),
      vulnerable=jnp.stack([(vul & 1) > 0, (vul & 2) > 0]),
      uncontested=jnp.asarray(uncontested, jnp.bool_),
      num_calls=jnp.int32(0),
      history=jnp.full((A.MAX_AUCTION_LENGTH,), -1, jnp.int32),
      num_passes=jnp.int32(0),
      last_bid=jnp.int32(-1),
      last_bidder=jnp.int32(0),
      double_status=jnp.int32(0),
      first_bidder=jnp.full((2, A.NUM_STRAINS), -1, jnp.int32),
      bids=jnp.zeros((A.NUM_SEATS, A.NUM_BIDS), jnp.bool_),
      doubled=jnp.zeros((A.NUM_BIDS,), jnp.bool_),
      done=jnp.bool_(False))


def current_player_one(s: AuctionState) -> jax.Array:
  """Seat to call (dealer + calls so far, clockwise); meaningless when done."""
  return (s.dealer + s.num_calls) & 3


def legal_mask_one(s: AuctionState) -> jax.Array:
  """(38,) bool legal calls of the seat to call (all False when the auction is over)."""
  return A.legal_calls(s.done, current_player_one(s), s.last_bid, s.last_bidder,
                       s.double_status, s.uncontested, xp=jnp)


def observation_one(s: AuctionState, player=None, dtype=jnp.float32) -> jax.Array:
  """(267,) JPS observation of seat `player` (default: the seat to call)."""
  cur = current_player_one(s)
  p = cur if player is None else jnp.asarray(player, jnp.int32)
  seats = (p + _REL_OFFSETS) & 3
  legal = legal_mask_one(s) & (cur == p)
  return jnp.concatenate([
      s.hands[p], s.bids[seats].reshape(-1), s.doubled, s.vulnerable, legal]).astype(dtype)


def step_one(s: AuctionState, call) -> AuctionState:
  """The seat to call makes `call` (assumed legal); a finished auction does not change."""
  call = jnp.asarray(call, jnp.int32)
  active = ~s.done
  cur = current_player_one(s)
  is_pass = active & (call == A.PASS)
  is_dbl = active & (call == A.DOUBLE)
  is_rdbl = active & (call == A.REDOUBLE)
  is_bid = active & (call >= A.FIRST_BID)
  pos = jnp.minimum(s.num_calls, A.MAX_AUCTION_LENGTH - 1)
  history = s.history.at[pos].set(jnp.where(active, call, s.history[pos]))
  num_passes = jnp.where(is_pass, s.num_passes + 1, jnp.where(active, 0, s.num_passes))
  lb = jnp.maximum(s.last_bid, 0)
  doubled = s.doubled.at[lb].set(s.doubled[lb] | is_dbl)
  double_status = jnp.where(is_dbl, 1, jnp.where(is_rdbl, 2, jnp.where(is_bid, 0,
                                                                        s.double_status)))
  j = jnp.clip(call - A.FIRST_BID, 0, A.NUM_BIDS - 1)
  bids = s.bids.at[cur, j].set(s.bids[cur, j] | is_bid)
  strain = j % A.NUM_STRAINS
  side = cur & 1
  fb = s.first_bidder[side, strain]
  first_bidder = s.first_bidder.at[side, strain].set(jnp.where(is_bid & (fb < 0), cur, fb))
  last_bid = jnp.where(is_bid, j, s.last_bid)
  last_bidder = jnp.where(is_bid, cur, s.last_bidder)
  num_calls = s.num_calls + active.astype(jnp.int32)
  done = s.done | (active & ((num_passes == 4) | ((num_passes == 3) & (last_bid >= 0))))
  return s._replace(num_calls=num_calls, history=history, num_passes=num_passes,
                    last_bid=last_bid, last_bidder=last_bidder, double_status=double_status,
                    first_bidder=first_bidder, bids=bids, doubled=doubled, done=done)


def contract_one(s: AuctionState):
  """(level (0 = none), strain, double status, declarer) of the current or final contract."""
  return A.final_contract(s.last_bid, s.last_bidder, s.double_status, s.first_bidder, xp=jnp)


def ns_score_one(s: AuctionState) -> jax.Array:
  """N-S duplicate score of the final contract from the DDS table (0 while not done)."""
  level, strain, doubled, declarer = contract_one(s)
  score = scoring.ns_score_array(level, strain, doubled, declarer,
                                 s.vulnerable[declarer & 1], s.dd_tricks[strain, declarer],
                                 xp=jnp)
  return jnp.where(s.done, score, 0)


# ------------------------------------------------------------------------------------------
# Batches of tables (vmap of the one-table functions)
# ------------------------------------------------------------------------------------------
def reset(holders, dd_tricks, dealer, vulnerability, *, uncontested=False) -> AuctionState:
  """B new auctions.

  Args:
    holders: (B, 52) seat 0..3 of each card (`dataset` convention).
    dd_tricks: (B, 5, 4) double-dummy tricks [strain, declarer].
    dealer: (B,) seats 0..3 (or one int for all tables).
    vulnerability: (B,) codes 0..3 = none, N-S, E-W, both (or one int).
    uncontested: East-West may only pass (bool or (B,) bools).

  Returns:
    The `AuctionState` of the B tables before the first call.
  """
  holders = jnp.asarray(holders)
  b = holders.shape[0]
  shape = (b,)
  return jax.vmap(reset_one)(
      holders, jnp.asarray(dd_tricks), jnp.broadcast_to(jnp.asarray(dealer, jnp.int32), shape),
      jnp.broadcast_to(jnp.asarray(vulnerability, jnp.int32), shape),
      jnp.broadcast_to(jnp.asarray(uncontested, jnp.bool_), shape))


def current_player(state: AuctionState) -> jax.Array:
  """(B,) seat to call at each table (meaningless where done)."""
  return (state.dealer + state.num_calls) & 3


def legal_mask(state: AuctionState) -> jax.Array:
  """(B, 38) bool legal calls of the seat to call (all False where the auction is over)."""
  return jax.vmap(legal_mask_one)(state)


def observation(state: AuctionState, player=None, dtype=jnp.float32) -> jax.Array:
  """(B, 267) JPS observations of `player` ((B,) seats or one int; default the seat to call).

  Args:
    state: the tables.
    player: seat(s) whose view to encode; None: the seat to call at each table.
    dtype: output dtype (e.g. jnp.uint8 for a quarter of float32's bytes).
  """
  if player is None:
    return jax.vmap(lambda s: observation_one(s, None, dtype))(state)
  p = jnp.broadcast_to(jnp.asarray(player, jnp.int32), state.done.shape)
  return jax.vmap(lambda s, q: observation_one(s, q, dtype))(state, p)


def step(state: AuctionState, calls) -> AuctionState:
  """Makes one call at each unfinished table.

  Each unfinished table's seat to call makes `calls[b]` (must be legal); finished tables
  stay as they are.

  Args:
    state: the tables.
    calls: (B,) ints 0..37.
  """
  return jax.vmap(step_one)(state, jnp.asarray(calls, jnp.int32))


def contract(state: AuctionState):
  """(level, strain, doubled, declarer) (B,) arrays of the current or final contracts."""
  return jax.vmap(contract_one)(state)


def ns_score(state: AuctionState) -> jax.Array:
  """(B,) int32 N-S duplicate scores (0 where passed out or not done)."""
  return jax.vmap(ns_score_one)(state)


# ------------------------------------------------------------------------------------------
# Host-side checks
# ------------------------------------------------------------------------------------------
def check_calls(state: AuctionState, calls) -> None:
  """Raises ValueError naming the first unfinished table whose call is out of range or illegal.

  Not jittable (it reads the arrays on the host); `step` itself does not check.

  Args:
    state: the tables.
    calls: (B,) calls about to be given to `step`.
  """
  calls = np.asarray(calls).reshape(-1)
  done = np.asarray(state.done)
  if calls.shape[0] != done.shape[0]:
    raise ValueError(f"got {calls.shape[0]} calls for {done.shape[0]} tables")
  active = ~done
  bad = active & ((calls < 0) | (calls >= A.NUM_CALLS))
  if np.any(bad):
    t = int(np.flatnonzero(bad)[0])
    raise ValueError(f"table {t}: call {calls[t]} out of range 0..{A.NUM_CALLS - 1}")
  legal = np.asarray(legal_mask(state))
  safe = np.where(active, calls, A.PASS).astype(np.int64)
  bad = active & ~legal[np.arange(len(safe)), safe]
  if np.any(bad):
    t = int(np.flatnonzero(bad)[0])
    hist = np.asarray(state.history[t, :int(state.num_calls[t])])
    seat = A.SEAT_CHARS[int(current_player(state)[t])]
    raise ValueError(f"table {t}: call {A.call_string(safe[t])} (id {safe[t]}) is illegal for "
                     f"{seat} after {' '.join(A.CALL_STRINGS[c] for c in hist) or 'no calls'}")


# ------------------------------------------------------------------------------------------
# The auction interface
# ------------------------------------------------------------------------------------------
_jit_step = jax.jit(step)
_jit_views = jax.jit(lambda s: (legal_mask(s), current_player(s), contract(s), ns_score(s)))
_jit_observation = jax.jit(observation, static_argnames=("dtype",))


class JaxAuctionTables:
  """`auction_tables.AuctionTables` over the pure-JAX auction.

  A host-side, mutable holder of an `AuctionState` whose views are numpy arrays.

  `step` checks the calls (`check_calls`) before the jitted `step`, so an illegal call raises
  ValueError as the numpy engine's does. For speed, jit the pure functions of this module
  themselves (as `agents.jax_trainer` does); this class is the same auction behind the
  interface that the numpy engine and the pyspiel game share.

  Args:
    holders: (B, 52) seat of each card.
    dd_tricks: (B, 5, 4) double-dummy tricks [strain, declarer].
    dealer: (B,) seats (or one int).
    vulnerability: (B,) codes 0..3 (or one int).
    uncontested: East-West may only pass (a bool or (B,) bools).

  Raises:
    ValueError: naming an argument that holds no integers (no bools for `uncontested`).
  """

  def __init__(self, holders, dd_tricks, dealer=0, vulnerability=0, *, uncontested: bool = False):
    for name, value, what in (("holders", holders, "seats 0..3"),
                              ("dd_tricks", dd_tricks, "tricks 0..13"),
                              ("dealer", dealer, "seats 0..3"),
                              ("vulnerability", vulnerability, "codes 0..3")):
      A.int_array(name, value, what)
    if not (isinstance(uncontested, (bool, np.bool_))
            or getattr(uncontested, "dtype", None) == np.bool_):
      raise ValueError(f"uncontested must be a bool or an array of bools, got "
                       f"{type(uncontested).__name__} {uncontested!r:.80}")
    self.state = reset(np.asarray(holders, np.int32), np.asarray(dd_tricks, np.int32), dealer,
                       vulnerability, uncontested=uncontested)
    self._views = None

  def _view(self, i: int):
    if self._views is None:
      self._views = jax.device_get(_jit_views(self.state))
    return self._views[i]

  @property
  def batch_size(self) -> int:
    """B, the number of tables."""
    return int(self.state.done.shape[0])

  @property
  def done(self) -> np.ndarray:
    """(B,) bool: the auction at the table is over."""
    return np.asarray(self.state.done)

  @property
  def current_player(self) -> np.ndarray:
    """(B,) seat to call (meaningless where done)."""
    return np.asarray(self._view(1), np.int64)

  def legal_mask(self) -> np.ndarray:
    """(B, 38) bool legal calls of the seat to call (all False where done).

    Returns:
      (B, 38) bool.
    """
    return np.asarray(self._view(0))

  def step(self, calls) -> None:
    """The seat to call at each unfinished table makes `calls[b]`; ValueError if illegal.

    Args:
      calls: (B,) one call id (0..37) per table.
    """
    check_calls(self.state, calls)
    self.state = _jit_step(self.state, np.asarray(calls, np.int32).reshape(-1))
    self._views = None

  def observation(self, player=None, dtype=np.float32) -> np.ndarray:
    """(B, 267) JPS observations of `player` (int or (B,) seats; default the seat to call).

    Args:
      player: the observing seat: an int, (B,) seats, or None for the seat to call at each table.
      dtype: the array's dtype.

    Returns:
      (B, 267) observations.
    """
    p = None if player is None else np.broadcast_to(
        np.asarray(player, np.int32), (self.batch_size,))
    return np.asarray(_jit_observation(self.state, p, dtype=jnp.dtype(dtype)))

  def contract(self):
    """(level (0 = none), strain, double status, declarer), each (B,).

    Returns:
      The four (B,) arrays.
    """
    return tuple(np.asarray(x, np.int64) for x in self._view(2))

  def ns_score(self) -> np.ndarray:
    """(B,) North-South duplicate score of each final contract (0 where not done).

    Returns:
      (B,) North-South scores.
    """
    return np.asarray(self._view(3), np.int64)

  def returns(self) -> np.ndarray:
    """(B, 4) returns by seat: +N-S score to N and S, its negative to E and W.

    Returns:
      (B, 4) returns.
    """
    s = self.ns_score().astype(np.float64)
    return scoring.seat_returns(s[:, None], np.arange(A.NUM_SEATS))
