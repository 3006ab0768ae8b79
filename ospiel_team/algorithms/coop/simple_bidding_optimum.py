"""Exact cooperative optimum of the Simple Bidding Game by branch and bound over reach sets.

The game is Definition 2 of Tian, Gong & Jiang, "Joint Policy Search for Multi-agent
Collaboration with Imperfect Information", NeurIPS 2020, arXiv:2008.06495 (our
`ospiel_team/games/simple_bidding.py`). Finding an optimal joint strategy of a common-payoff
game is NP-hard in general (Chu & Halpern, "On the NP-completeness of finding an optimal
strategy in games with common payoffs", IJGT 2001); this module exploits the structure of this
one game instead of the generic MIP of `coop_optimum`.

Formulation (exact, for deterministic joint strategies, which suffice: the objective is linear).
Bids are public and a pure strategy maps (own card, public bids) to an action, so the deals
reaching a public node form a rectangle A x B (the cards of the player to move, the other's).
The payoff depends only on the final contract and s1 + s2, so the subgame below a public node
depends only on (last bid b, A, B), not on who moves or how the node was reached. Its optimum
(summed over the deals in A x B, each deal weight 1) is

    W(b, A, B) = max over partitions of A into A_pass, A_c (bids c > b) of
                 sum_{a in A_pass} 2^b |{y in B: a + y >= 2^b}| + sum_c W(c, B, A_c),

with no Pass at the root (b = -1, A = B = all cards; the first bid is compulsory) and only Pass
after the top bid. The optimum of the game is W(-1, N, N) / N^2.

Three facts make the recursion tractable (all exact, no relaxation of the game):
* Card classes. Two cards a, a' of the mover are equivalent at (b, A, B) when
  [a + y >= 2^c] = [a' + y >= 2^c] for every y in B and every contract c >= b. Given any joint
  strategy, letting every card of a class play the plan of its best member (the partner's
  strategy unchanged) does not lower the value, so classes are assigned as a whole.
* Canonical subgames. W(b, A, B) depends only on the class sizes of both sides and on, for each
  contract c >= b and each pair of classes, whether their sum reaches 2^c: subgames with the
  same such structure are memoised once (for example A + k, B - k).
* Bounds. W is subadditive in the mover's set (W(c, B, X u Y) <= W(c, B, X) + W(c, B, Y): the
  restriction of a strategy is a strategy), so a partial assignment is bounded by the values of
  the groups so far plus, for each unassigned class, its value when the partner knows its card
  (the best contract >= the current one per deal). Children are evaluated against a threshold
  (the value they need to matter to the parent): below it only an upper bound is computed and
  memoised (fail-hard alpha pruning), above it the exact value.

The recursion runs in a numba kernel (`simple_bidding_kernel._search`, on an explicit stack);
it identifies a canonical subgame by two independent 64-bit hashes of its key (a wrong merge
needs both to collide: probability about n^2 / 2^129 for n subgames). A long search writes
checkpoints it resumes from (`simple_bidding_checkpoint`: the file format and its checks). The
tests check it against the cooperative-optimum MIP, brute force over joint strategies and
OpenSpiel's evaluation of the strategies it returns.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team.algorithms.coop import simple_bidding_checkpoint as sb_checkpoint
from ospiel_team.algorithms.coop.simple_bidding_kernel import NO_BUDGET
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_CTR
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_GRP
from ospiel_team.algorithms.coop.simple_bidding_kernel import bb_partition
from ospiel_team.algorithms.coop.simple_bidding_kernel import bb_value
from ospiel_team.algorithms.coop.simple_bidding_kernel import new_state
from ospiel_team.games import simple_bidding as sb_game

MAX_SIZE = 29  # the canonical key's bytes and the class tables assume at most 29 cards


@dataclasses.dataclass(frozen=True)
class BiddingOptimum:
  """The exact optimum of simple_bidding(size) and an optimal joint pure strategy."""
  size: int
  total: int  # sum over the size^2 deals of the common payoff (an integer)
  value: float  # total / size^2: the expected common payoff (per member)
  proven_optimal: bool  # False when `lower_bound` was not beaten: then value = lower_bound
  strategy: dict[tuple[int, ...], dict[int, int]] | None  # public bids -> card -> action
  seconds: float
  states: int  # canonical subgames solved (including re-solves with a lower threshold)

  def summary(self) -> dict:
    """The result's fields as a JSON-ready dict (seconds rounded to milliseconds).

    Returns:
      A dict of size, total, value, proven_optimal, seconds and states.
    """
    return dict(size=self.size, total=self.total, value=self.value,
                proven_optimal=self.proven_optimal, seconds=round(self.seconds, 3),
                states=self.states)


def _num_bids(size: int) -> int:
  return sb_game.num_bids(size)


def check_size(size) -> int:
  """`size` as an int in [2, MAX_SIZE] (the N of simple_bidding), or ValueError naming it.

  Args:
    size: the game's N.

  Returns:
    `size` as an int.
  """
  if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
    raise ValueError(f"size must be an int, got size={size!r}")
  size = int(size)
  if not 2 <= size <= MAX_SIZE:
    raise ValueError(f"size must be in [2, {MAX_SIZE}], got size={size}")
  return size


# States solved between two pauses of a checkpointed or monitored search.
_CHUNK = 1 << 18


class Solver:
  """W and the root partition through the numba kernel (one memo table per solver).

  Shared with `simple_bidding_search` (its root partition search), with `check_size` and
  `partition_strategy`.
  """

  def __init__(self, size: int, hash_log2: int):
    self.k = _num_bids(size)
    try:
      self._st = new_state(size, hash_log2)
    except (MemoryError, OSError) as e:
      raise MemoryError(f"cannot allocate the memo table of 2^{hash_log2} slots") from e

  @property
  def states(self) -> int:
    """Subgames solved so far."""
    return int(self._st[S_CTR][1])

  def _check(self):
    if self._st[S_CTR][2]:
      raise MemoryError("the memo table is 70% full; rerun with a larger hash_log2")

  @property
  def entries(self) -> int:
    """Entries of the memo table."""
    return int(self._st[S_CTR][0])

  @property
  def paused(self) -> bool:
    """Whether the last search paused on its budget (the same call goes on)."""
    return bool(self._st[S_CTR][6])

  def save(self, path: str, meta: dict) -> None:
    """Writes the whole state and `meta` to a checkpoint (`simple_bidding_checkpoint.save`).

    Args:
      path: the checkpoint file.
      meta: JSON-ready items stored beside the state (checked by `load`).
    """
    sb_checkpoint.save(path, self._st, meta)

  def load(self, path: str, expect: dict) -> dict:
    """Restores a checkpoint written by `save`; returns its `meta`.

    The checkpoint's `meta` must have the items of `expect` (size, lower bound, table); returns its
    `meta` (`simple_bidding_checkpoint.load`, which checks the file whole before the kernel's arrays
    are touched).

    Args:
      path: the checkpoint file.
      expect: the items its `meta` must have (size, lower bound, table).

    Returns:
      The checkpoint's `meta`.

    Raises:
      ValueError: naming the file, if it is damaged, edited or for another size, lower bound
        or table.
    """
    return sb_checkpoint.load(path, self._st, expect)

  def value(self, b: int, mover: int, other: int) -> int:
    """W(b, mover, other).

    Args:
      b: the last bid's index (-1 at the root, before the compulsory first bid).
      mover: the mover's cards A, a bitmask.
      other: the partner's cards B, a bitmask.

    Returns:
      The subgame's optimum W(b, A, B), summed over its deals.
    """
    v = int(bb_value(b, mover, other, self._st))
    self._check()
    return v

  def partition(self, b: int, mover: int, other: int, lower: int,
                on_pause: Callable[[], None] | None = None, chunk: int = _CHUNK):
    """(value, groups) of the best assignment worth more than `lower`, else (lower, None).

    With `on_pause`, the search pauses after every `chunk` states solved and calls it (the
    state is then consistent: `save` writes a checkpoint the search resumes from).

    Args:
      b: the last bid's index (-1 at the root, before the compulsory first bid).
      mover: the mover's cards A, a bitmask.
      other: the partner's cards B, a bitmask.
      lower: the value the assignment must exceed.
      on_pause: called at every pause (None: no pauses).
      chunk: states solved between pauses.

    Returns:
      `(value, groups)`: the best value and the mover's cards (bitmasks) per bid, or `(lower, None)`
        when nothing exceeds `lower`.
    """
    while True:
      budget = NO_BUDGET if on_pause is None else self.states + chunk
      paused, found, value = bb_partition(b, mover, other, lower, self._st, budget)
      self._check()
      if not paused:
        break
      on_pause()
    if not found:
      return lower, None
    return int(value), [int(g) for g in self._st[S_GRP][b + 1, 3, :self.k]]


def _actions(size: int, mover: int, groups: list[int]) -> dict[int, int]:
  """{card: action} of the mover's cards (bitmask `mover`): group c bids 2^c, the rest pass."""
  acts = {}
  passing = mover
  for c, g in enumerate(groups):
    passing &= ~g
    for a in range(size):
      if g >> a & 1:
        acts[a] = c + 1
  for a in range(size):
    if passing >> a & 1:
      acts[a] = sb_game.PASS
  return acts


def partition_strategy(solver, size: int, k: int, root_groups: list[int]):
  """Public bid sequence -> {card: action} (action: 0 Pass, j + 1 bid 2^j) on the play path.

  Args:
    solver: the `Solver` that found the optimum.
    size: N.
    k: the number of bids K.
    root_groups: the first player's cards (bitmasks) per first bid, from the root's partition.

  Returns:
    The strategy: public bid sequence -> {card: action} on the play path.
  """
  full = (1 << size) - 1
  strategy: dict[tuple[int, ...], dict[int, int]] = {}

  def record(seq, mover, groups):
    strategy[seq] = _actions(size, mover, groups)

  def expand(seq, b, mover, other, groups):
    record(seq, mover, groups)
    for c, g in enumerate(groups):
      if g and c < k - 1:
        child = seq + (c + 1,)
        target = solver.value(c, other, g)
        _, sub = solver.partition(c, other, g, target - 1)
        expand(child, c, other, g, sub)
      elif g:
        record(seq + (c + 1,), other, [0] * k)  # after the top bid only Pass is legal

  expand((), -1, full, full, root_groups)
  return strategy


def _check_solve_args(size, lower_bound, hash_log2, checkpoint_seconds) -> int:
  """Checks the arguments of `solve` (ValueError naming a bad one); returns the size as int."""
  size = check_size(size)
  if lower_bound is not None and (isinstance(lower_bound, bool) or lower_bound < 0):
    raise ValueError(f"lower_bound must be a non-negative int total, got {lower_bound!r}")
  if not 10 <= int(hash_log2) <= 34:
    raise ValueError(f"hash_log2 must be in [10, 34], got {hash_log2}")
  if not checkpoint_seconds > 0:
    raise ValueError(f"checkpoint_seconds must be > 0, got {checkpoint_seconds!r}")
  return size


def _pause_hook(solver, checkpoint: str | None, checkpoint_seconds: float,
                progress: Callable[[int, int], None] | None, meta: dict,
                elapsed: Callable[[], float]) -> Callable[[], None] | None:
  """The callback of the root search's pauses: reports progress, checkpoints when due.

  None when there is neither a checkpoint nor a progress callback. `elapsed` gives the
  search's seconds so far (those before a resume included), stored in each checkpoint.
  """
  if checkpoint is None and progress is None:
    return None
  last_save = time.perf_counter()

  def on_pause():
    nonlocal last_save
    if progress is not None:
      progress(solver.states, solver.entries)
    if checkpoint is not None and time.perf_counter() - last_save >= checkpoint_seconds:
      solver.save(checkpoint, dict(meta, seconds=elapsed()))
      last_save = time.perf_counter()
  return on_pause


def solve(size: int, *, lower_bound: int | None = None, hash_log2: int = 26,
          checkpoint: str | None = None, checkpoint_seconds: float = 600.0,
          progress: Callable[[int, int], None] | None = None) -> BiddingOptimum:
  """The exact optimum of simple_bidding(size) and an optimal joint pure strategy.

  Args:
    size: N of Definition 2 (JPS paper, arXiv:2008.06495); 2 <= size <= 29.
    lower_bound: a total (sum over the N^2 deals of the common payoff) known to be achievable,
      e.g. by a strategy found by search. The root then only looks for strategies worth more:
      if none exists the result has `proven_optimal=False`, `total=lower_bound`, no strategy,
      and proves that no joint strategy is worth more than `lower_bound`. None: no bound.
    hash_log2: log2 of the kernel's memo slots (25 bytes each; 26 -> 1.7 GB at most, committed
      as the table fills).
    checkpoint: a file (.npz) for the root search's state: written atomically every
      `checkpoint_seconds` and when interrupted (KeyboardInterrupt), and resumed from when it
      exists (it must come from the same size, lower_bound and hash_log2). A resumed search
      gives the same answer: every memoised value is a fact about its subgame, and the stack
      is restored where it paused. A digest binds the file's meta to its arrays, and every
      array is checked before the search sees it. None: no checkpoint.
    checkpoint_seconds: seconds between checkpoints (> 0).
    progress: called as progress(states, memo entries) about every 2^18 states solved.

  Returns:
    A `BiddingOptimum` (`seconds` includes the time before a resume); `strategy` maps every
    public bid sequence on which some deal plays to the action of each card of the player to
    move there.

  Raises:
    ValueError: a bad argument, or a `checkpoint` that is damaged (empty, truncated, failing
      its digest or its checks) or from another size, lower_bound or hash_log2 (naming it).
    MemoryError: the memo table cannot be allocated or is 70% full.
  """
  size = _check_solve_args(size, lower_bound, hash_log2, checkpoint_seconds)
  start = time.perf_counter()
  solver = Solver(size, int(hash_log2))
  k = _num_bids(size)
  full = (1 << size) - 1
  lower = -1 if lower_bound is None else int(lower_bound)
  meta = dict(size=size, lower_bound=lower, hash_log2=int(hash_log2))
  before = 0.0  # seconds spent before the resume
  if checkpoint is not None and os.path.exists(checkpoint):
    before = float(solver.load(checkpoint, meta)["seconds"])
  on_pause = _pause_hook(solver, checkpoint, checkpoint_seconds, progress, meta,
                         lambda: before + time.perf_counter() - start)
  try:
    total, groups = solver.partition(-1, full, full, lower, on_pause=on_pause, chunk=_CHUNK)
  except KeyboardInterrupt:
    if checkpoint is not None and solver.paused:
      solver.save(checkpoint, dict(meta, seconds=before + time.perf_counter() - start))
    raise
  seconds = before + time.perf_counter() - start
  if groups is None:
    return BiddingOptimum(size=size, total=int(lower_bound), value=lower_bound / size ** 2,
                          proven_optimal=False, strategy=None, seconds=seconds,
                          states=solver.states)
  strategy = partition_strategy(solver, size, k, groups)
  return BiddingOptimum(size=size, total=total, value=total / size ** 2, proven_optimal=True,
                        strategy=strategy, seconds=before + time.perf_counter() - start,
                        states=solver.states)


def split_upper_bound(size: int, parts: list[list[int]],
                      hash_log2: int = 26) -> tuple[int, list[int]]:
  """An upper bound on the optimum of simple_bidding(size) from a partition of P1's cards.

  If P2 were told which part P1's card lies in, the team could only do better; and then the
  game splits into independent games, one per part (P1's card uniform in the part, P2's in all
  cards). So for every partition L_1, ..., L_m of the cards,
      OPT_total <= sum_i W(-1, L_i, all cards)
  (the restriction of any joint strategy to the deals L_i x all is a strategy of game i). The
  coarser the partition, the tighter the bound; one part is the exact optimum.

  Args:
    size: N of the game (2..29).
    parts: disjoint non-empty lists of cards covering 0..size-1.
    hash_log2: as in `solve`.

  Returns:
    (bound on the total over the size^2 deals, the exact optimum of each part's game).
  """
  size = check_size(size)
  if not 10 <= int(hash_log2) <= 34:
    raise ValueError(f"hash_log2 must be in [10, 34], got {hash_log2}")
  seen: list[int] = []
  for part in parts:
    if not part:
      raise ValueError(f"parts must be non-empty, got {parts}")
    for c in part:
      if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < size:
        raise ValueError(f"card {c!r} is not in [0, {size})")
    seen.extend(int(c) for c in part)
  if sorted(seen) != list(range(size)):
    raise ValueError(f"parts must partition 0..{size - 1} exactly once, got {parts}")
  solver = Solver(size, int(hash_log2))
  full = (1 << size) - 1
  values = [solver.value(-1, sum(1 << int(c) for c in part), full) for part in parts]
  return sum(values), values


def strategy_action(strategy: dict[tuple[int, ...], dict[int, int]], card: int,
                    bids: tuple[int, ...], legal: list[int]) -> int:
  """The strategy's action for `card` after the public `bids`.

  Off the play path it is the lowest legal action (any action there leaves the value unchanged).

  Args:
    strategy: public bid sequence -> {card: action} (`partition_strategy`).
    card: the mover's card.
    bids: the public bids so far.
    legal: the legal actions there.

  Returns:
    The action.
  """
  acts = strategy.get(tuple(bids))
  if acts is not None and card in acts:
    return acts[card]
  return min(legal)


def tabular_policy(game: pyspiel.Game,
                   strategy: dict[tuple[int, ...], dict[int, int]]) -> policy_lib.TabularPolicy:
  """The joint pure strategy as an OpenSpiel `TabularPolicy` of `game` (simple_bidding).

  Args:
    game: the `simple_bidding` game of the strategy's size.
    strategy: public bid sequence -> {card: action} (`partition_strategy`).

  Returns:
    A deterministic `TabularPolicy`.
  """
  pol = policy_lib.TabularPolicy(game)
  for state in pol.states:
    player = state.current_player()
    hist = state.history()
    card = hist[player]
    bids = tuple(hist[2:])
    legal = state.legal_actions()
    a = strategy_action(strategy, card, bids, legal)
    if a not in legal:
      raise ValueError(f"strategy plays illegal action {a} at {state}")
    row = pol.state_index(state)
    pol.action_probability_array[row] = 0.0
    pol.action_probability_array[row, a] = 1.0
  return pol
