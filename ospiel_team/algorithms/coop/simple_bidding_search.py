"""Local search for good joint strategies of the Simple Bidding Game (lower bounds).

The game is Definition 2 of Tian, Gong & Jiang, "Joint Policy Search for Multi-agent
Collaboration with Imperfect Information", NeurIPS 2020, arXiv:2008.06495. Every joint pure
strategy is a pair (p, q): P1's reduced plan p(s1) for each card (a plan fixes P1's action at
every public sequence it can reach; 40 plans for 5 bids) and P2's plan q(s2) (330 for 5 bids).
The value is sum_{s1, s2} payoff(contract(p(s1), q(s2)), s1 + s2) / N^2, so for a fixed p, P2's
best response is one independent maximum per card. The search is coordinate ascent over p
(one card, then pairs of cards, each against P2's best response) from random starts; it
returns the best strategy found. Unlike JPS (which changes a few infosets jointly) it re-plans
whole cards. It proves nothing: `simple_bidding_optimum` bounds the optimum.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from ospiel_team import checks
from ospiel_team.games import simple_bidding as sb_game

Seq = tuple[int, ...]  # public bid sequence, as actions (1 = bid 1, 2 = bid 2, ...)


def _plans(seq: Seq, k: int) -> list[dict[Seq, int]]:
  """A player's reduced pure plans below public sequence `seq` (the player moves at `seq`).

  The player either passes or bids higher; after a bid `a` the partner's replies `c > a` (its
  pass ends the game) each lead back to this player, whose plan must say what it does at
  every one of them. At the root (`seq == ()`) the first player may not pass.
  """
  last = seq[-1] if seq else 0
  acts = ([sb_game.PASS] if seq else []) + list(range(last + 1, k + 1))
  out = []
  for a in acts:
    if a == sb_game.PASS:
      out.append({seq: a})
      continue
    after = seq + (a,)
    subs = [_plans(after + (c,), k) for c in range(a + 1, k + 1)]
    for combo in itertools.product(*subs):
      plan = {seq: a}
      for d in combo:
        plan.update(d)
      out.append(plan)
  return out


def plans(size: int) -> tuple[list[dict[Seq, int]], list[dict[Seq, int]]]:
  """All reduced pure plans of P1 and of P2 (dicts: public sequence -> action)."""
  k = sb_game.num_bids(size)
  p1 = _plans((), k)
  p2 = [{}]
  for first in range(1, k + 1):
    p2 = [{**a, **b} for a in p2 for b in _plans((first,), k)]
  return p1, p2


def _contract(p: dict[Seq, int], q: dict[Seq, int]) -> int:
  seq: Seq = ()
  turn = 0
  while True:
    a = (p if turn == 0 else q)[seq]
    if a == sb_game.PASS:
      return sb_game.bid_value(seq[-1])
    seq = seq + (a,)
    turn ^= 1


@dataclasses.dataclass(frozen=True)
class SearchResult:
  """A strategy found by `local_search`, with its exact value."""
  total: int  # sum over the N^2 deals of the common payoff
  value: float  # total / N^2
  strategy: dict[Seq, dict[int, int]]  # public sequence -> card -> action (play path only)


def _plan_payoffs(size: int, p1: list[dict[Seq, int]], p2: list[dict[Seq, int]]) -> np.ndarray:
  """pay[p, q, x, y]: the payoff of deal (x, y) when P1's card x plays plan p, P2's y plan q."""
  contract = np.array([[_contract(p, q) for q in p2] for p in p1], dtype=np.int64)
  sums = np.add.outer(np.arange(size), np.arange(size))
  return np.where(sums[None, None] >= contract[:, :, None, None], contract[:, :, None, None], 0)


def _single_moves(pay: np.ndarray, p: np.ndarray, s: np.ndarray, cur: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, int, bool]:
  """One pass of single-card plan changes in random card order, each kept if it gains.

  Updates `p` in place; returns (P2's plan sums `s`, the total, whether any change was kept).
  """
  improved = False
  for x in rng.permutation(len(p)):
    base = s - pay[p[x], :, x, :]
    cand = (base[None] + pay[:, :, x, :]).max(1).sum(1)
    a = int(cand.argmax())
    if cand[a] > cur:
      s, p[x], cur, improved = base + pay[a, :, x, :], a, int(cand[a]), True
  return s, cur, improved


def _pair_moves(pay: np.ndarray, p: np.ndarray, s: np.ndarray,
                cur: int) -> tuple[np.ndarray, int, bool]:
  """One pass of joint plan changes of two cards, each kept if it gains (as `_single_moves`)."""
  size = len(p)
  cards = np.arange(size)
  improved = False
  for x1 in range(size):
    for x2 in range(x1 + 1, size):
      base = s - pay[p[x1], :, x1, :] - pay[p[x2], :, x2, :]
      cand = (base[None, None] + pay[:, None, :, x1, :] + pay[None, :, :, x2, :]
              ).max(2).sum(2)
      a1, a2 = np.unravel_index(int(cand.argmax()), cand.shape)
      if cand[a1, a2] > cur:
        p[x1], p[x2], cur, improved = a1, a2, int(cand[a1, a2]), True
        s = pay[p, :, cards, :].sum(0)
  return s, cur, improved


def _climb(pay: np.ndarray, p: np.ndarray, rng: np.random.Generator) -> int:
  """Coordinate ascent from P1's plans `p` (changed in place) to a local optimum; its total.

  Single-card changes first; pairs of cards only when no single change gains.
  """
  cards = np.arange(len(p))
  cur = int(pay[p, :, cards, :].sum(0).max(0).sum())
  improved = True
  while improved:
    s = pay[p, :, cards, :].sum(0)  # [plans of P2, card y]
    s, cur, improved = _single_moves(pay, p, s, cur, rng)
    if improved:
      continue
    s, cur, improved = _pair_moves(pay, p, s, cur)
  return cur


def _play_path_strategy(size: int, plan1: list[dict[Seq, int]],
                        plan2: list[dict[Seq, int]]) -> dict[Seq, dict[int, int]]:
  """Public sequence -> card -> action on the play path, card x of P1 playing plan1[x]."""
  strategy: dict[Seq, dict[int, int]] = {}
  for x in range(size):
    for y in range(size):
      seq: Seq = ()
      turn = 0
      while True:
        plan, card = (plan1[x], x) if turn == 0 else (plan2[y], y)
        a = plan[seq]
        strategy.setdefault(seq, {})[card] = a
        if a == sb_game.PASS:
          break
        seq = seq + (a,)
        turn ^= 1
  return strategy


def local_search(size: int, *, restarts: int = 3, seed: int = 0,
                 max_plan_pairs: int = 5_000_000) -> SearchResult:
  """Best joint pure strategy found by coordinate ascent over P1's plans (P2 best-responds).

  Args:
    size: N of the game (>= 2).
    restarts: random starting points (>= 1); the best local optimum is returned.
    seed: numpy seed of the starting points.
    max_plan_pairs: refuse games with more (P1 plan, P2 plan) pairs than this.

  Returns:
    A `SearchResult`.
  """
  size = checks.check_int("size", size, minimum=2)
  restarts = checks.check_int("restarts", restarts, minimum=1)
  seed = checks.check_int("seed", seed, minimum=0)
  max_plan_pairs = checks.check_int("max_plan_pairs", max_plan_pairs, minimum=1)
  p1, p2 = plans(size)
  if len(p1) * len(p2) > max_plan_pairs:
    raise ValueError(f"{len(p1)} x {len(p2)} plan pairs exceed max_plan_pairs={max_plan_pairs}")
  pay = _plan_payoffs(size, p1, p2)
  cards = np.arange(size)
  rng = np.random.default_rng(seed)
  best_total, best_p = -1, None
  for _ in range(restarts):
    p = rng.integers(0, len(p1), size)
    cur = _climb(pay, p, rng)
    if cur > best_total:
      best_total, best_p = cur, p.copy()
  q = pay[best_p, :, cards, :].sum(0).argmax(0)
  strategy = _play_path_strategy(size, [p1[i] for i in best_p], [p2[j] for j in q])
  return SearchResult(total=best_total, value=best_total / size ** 2, strategy=strategy)


@dataclasses.dataclass(frozen=True)
class RootSearchResult:
  """The best opening partition found by `root_partition_search`, with its strategy."""
  total: int  # sum over the N^2 deals of the common payoff (exact for `groups`)
  value: float  # total / N^2
  groups: list[int]  # groups[c]: bitmask of P1's cards that open bid 2^c
  strategy: dict[Seq, dict[int, int]]  # public sequence -> card -> action (play path only)
  evaluations: int  # exact opening-group values computed (memoised ones included)


def root_partition_search(size: int, start: list[int], *, max_rounds: int = 50,
                          hash_log2: int = 26,
                          log=None, pair_moves: bool = False) -> RootSearchResult:
  """Hill climbing over P1's opening partition, every partition scored EXACTLY.

  Once P1 has opened, P2 learns only the group G_c of cards that open bid 2^c, and the games
  below the K openings are independent, so a joint strategy's best value for a fixed opening
  partition (G_0, ..., G_{K-1}) is sum_c W(c, all cards, G_c), each term the exact optimum of
  `simple_bidding_optimum` (P2 to move with all cards, P1's card in G_c). This search moves one
  card to another opening, then swaps two cards of different openings, then (with
  `pair_moves`) sends any two cards to any two openings, keeping any change that raises the
  exact total, until none does (or `max_rounds`). It is a lower bound (a
  strategy), never a proof; the returned strategy is the optimal continuation of the final
  partition (`simple_bidding_optimum.partition_strategy`).

  Args:
    size: N of Definition 2 (JPS paper, arXiv:2008.06495), 2..29.
    start: K bitmasks partitioning the cards 0..N-1 (start[c]: the cards opening bid 2^c).
    max_rounds: at most this many improving changes.
    hash_log2: as in `simple_bidding_optimum.solve`.
    log: optional callable(str) for progress lines (the incumbent after each improvement).
    pair_moves: also try every pair of cards sent to every pair of openings (K^2 N(N-1)/2
      partitions per round).

  Returns:
    A `RootSearchResult`.
  """
  from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo
  size = sbo.check_size(size)
  k = sb_game.num_bids(size)
  full = (1 << size) - 1
  start = [int(g) for g in start]
  if len(start) != k or any(g < 0 for g in start) or sum(start) != full or \
      any(start[i] & start[j] for i in range(k) for j in range(i + 1, k)):
    raise ValueError(f"start must be {k} disjoint bitmasks covering the {size} cards, got {start}")
  climb = _RootClimb(sbo.Solver(size, int(hash_log2)), size, k, start)
  if log:
    log(f"start total={climb.total} value={climb.total / size ** 2:.6f}")
  for _ in range(max_rounds):
    improved = climb.move_one_card()
    if not improved:
      improved = climb.swap_two_cards()
    if not improved and pair_moves:
      improved = climb.send_two_cards()
    if log:
      log(f"total={climb.total} value={climb.total / size ** 2:.6f} groups={climb.groups} "
          f"improved={improved} evaluations={len(climb.cache)}")
    if not improved:
      break
  strategy = sbo.partition_strategy(climb.solver, size, k, climb.groups)
  return RootSearchResult(total=climb.total, value=climb.total / size ** 2, groups=climb.groups,
                          strategy=strategy, evaluations=len(climb.cache))


class _RootClimb:
  """The hill climb of `root_partition_search` over P1's opening partitions.

  It holds P1's opening partition `groups`, its exact `total`, and the memoised exact values of the
  opening groups tried (`cache`).
  """

  def __init__(self, solver, size: int, k: int, start: list[int]):
    self.solver, self.size, self.k = solver, size, k
    self.full = (1 << size) - 1
    self.cache: dict[tuple[int, int], int] = {}
    self.groups = list(start)
    self.total = sum(self.val(c, g) for c, g in enumerate(self.groups))

  def val(self, c: int, g: int) -> int:
    """The exact value W(c, all cards, g) of the cards g opening bid 2^c (0 for none)."""
    if (c, g) not in self.cache:
      self.cache[(c, g)] = self.solver.value(c, self.full, g) if g else 0
    return self.cache[(c, g)]

  def apply(self, change: dict[int, int]) -> bool:
    """Takes the change {opening: new card set} if it raises the total; says whether it did."""
    new = self.total + sum(self.val(c, g) - self.val(c, self.groups[c])
                           for c, g in change.items())
    if new <= self.total:
      return False
    for c, g in change.items():
      self.groups[c] = g
    self.total = new
    return True

  def _where(self) -> dict[int, int]:
    """The opening that each card is in."""
    return {x: c for c, g in enumerate(self.groups) for x in range(self.size) if g >> x & 1}

  def move_one_card(self) -> bool:
    """The first move of one card to another opening that raises the total."""
    groups, where = self.groups, self._where()
    for x in range(self.size):
      a = where[x]
      for b in range(self.k):
        if b == a:
          continue
        if self.apply({a: groups[a] & ~(1 << x), b: groups[b] | (1 << x)}):
          return True
    return False

  def swap_two_cards(self) -> bool:
    """The first swap of two cards of different openings that raises the total."""
    groups, where = self.groups, self._where()
    for x in range(self.size):
      for y in range(x + 1, self.size):
        a, b = where[x], where[y]
        if a == b:
          continue
        if self.apply({a: groups[a] & ~(1 << x) | (1 << y), b: groups[b] & ~(1 << y) | (1 << x)}):
          return True
    return False

  def send_two_cards(self) -> bool:
    """The first pair of cards sent to any two openings that raises the total."""
    groups, where = self.groups, self._where()
    for x, y in itertools.combinations(range(self.size), 2):
      for bx, by in itertools.product(range(self.k), repeat=2):
        if (bx, by) == (where[x], where[y]):
          continue
        new_groups = list(groups)
        new_groups[where[x]] &= ~(1 << x)
        new_groups[where[y]] &= ~(1 << y)
        new_groups[bx] |= 1 << x
        new_groups[by] |= 1 << y
        if self.apply({c: new_groups[c] for c in range(self.k) if new_groups[c] != groups[c]}):
          return True
    return False
