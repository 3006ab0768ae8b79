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

The recursion runs in a numba kernel (`_search`, on an explicit stack); it identifies a
canonical subgame by two independent 64-bit hashes of its key (a wrong merge needs both to
collide: probability about n^2 / 2^129 for n subgames). The tests check it against the
cooperative-optimum MIP, brute force over joint strategies and OpenSpiel's evaluation of the
strategies it returns.
"""

from __future__ import annotations

import dataclasses
import json
import mmap
import os
import time
from collections.abc import Callable

import numba
import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team import atomic_io
from ospiel_team.games import simple_bidding as sb_game

MAX_SIZE = 29  # the canonical key's bytes and the class tables assume at most 29 cards


@dataclasses.dataclass
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
    return dict(size=self.size, total=self.total, value=self.value,
                proven_optimal=self.proven_optimal, seconds=round(self.seconds, 3),
                states=self.states)


def _num_bids(size: int) -> int:
  return sb_game.num_bids(size)


def _check_size(size) -> int:
  if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
    raise ValueError(f"size must be an int, got size={size!r}")
  size = int(size)
  if not 2 <= size <= MAX_SIZE:
    raise ValueError(f"size must be in [2, {MAX_SIZE}], got size={size}")
  return size


# ----------------------------------------------------------------------------------------------
# The numba kernel. A canonical subgame is identified by two independent 64-bit hashes of its key
# (a wrong merge needs both to collide: probability about n^2 / 2^129 for n subgames), memoised
# in an open-addressing table. The recursion W -> partition search -> W runs on an explicit
# stack: the bids of the W calls on the stack strictly increase, so the W call at bid b owns
# node frame b + 1, and its partition search's depth-first frames are indexed by the class i
# being assigned.
_U = np.uint64
# Columns of the per-node scalars `node[f, :]`.
_N_B, _N_NCLS, _N_NACTS, _N_BEST, _N_FOUND, _N_PARENT, _N_PARENT_I, _N_TH = range(8)
# Columns of the per-frame scalars `frame[f, i, :]`.
_F_PASS, _F_CUR, _F_PHASE, _F_J, _F_X, _F_CTH, _F_APPLIED, _F_OG, _F_OV = range(9)
_ENTER, _RUN, _POP = 0, 1, 2  # what the search loop does next with frame (f, i)
_CAND, _SEL = 0, 1  # a frame's phase: valuing its candidates, or trying them best first
_NEG = -(1 << 60)  # the total of a candidate that cannot matter
_NO_BUDGET = 1 << 62  # a search that never pauses
_CHUNK = 1 << 18  # states solved between two pauses of a checkpointed or monitored search
# The search loop and its entry points are compiled without numba's reference counting
# (`_nrt=False`, numba's own switch of its runtime): they allocate nothing, and the state's arrays
# (taken out of the tuple in every inlined function) would otherwise cost an atomic increment and
# decrement each, per candidate (about a fifth of the search's time).
# Positions in the state tuple of `_new_state`.
(_S_CONSTS, _S_MEMO, _S_CTR, _S_NODE, _S_CLS, _S_SUFFIX, _S_GRP, _S_FRAME, _S_CAND, _S_KEY,
 _S_SCRATCH) = range(11)


def _lazy_zeros(n: int, dtype) -> np.ndarray:
  """n zeros in an anonymous memory mapping, committed 4 KiB page by page as they are touched.

  (numpy asks the kernel for 2 MiB pages for large arrays; the memo table is touched at random,
  and every first touch would zero a whole 2 MiB page.)
  """
  dt = np.dtype(dtype)
  return np.frombuffer(mmap.mmap(-1, max(1, n * dt.itemsize)), dtype=dt, count=n)


def _new_state(size: int, hash_log2: int):
  """The kernel's arrays for simple_bidding(size) with 2^hash_log2 memo slots."""
  k = _num_bids(size)
  frames = k + 1
  slots = 1 << hash_log2
  consts = np.array([size, k, (1 << size) - 1, slots - 1], dtype=np.int64)
  # Memo: keys (0 = empty), second keys, values, exact flags.
  memo = (_lazy_zeros(slots, np.uint64), _lazy_zeros(slots, np.uint64),
          _lazy_zeros(slots, np.int64), _lazy_zeros(slots, np.uint8))
  # Entries, states solved, table-full flag; a paused search's (f, i, mode) and paused flag.
  ctr = np.zeros(7, dtype=np.int64)
  node = np.zeros((frames, 8), dtype=np.int64)
  cls = np.zeros((frames, 3, 33), dtype=np.int64)  # class mask, its optimistic value, pass value
  suffix = np.zeros((frames, 34), dtype=np.int64)
  grp = np.zeros((frames, 4, 8), dtype=np.int64)  # acts, groups, group values, best groups
  frame = np.zeros((frames, 34, 9), dtype=np.int64)
  cand = np.zeros((frames, 34, 3, 8), dtype=np.int64)  # totals, values, order
  node_key = np.zeros((frames, 2), dtype=np.uint64)
  scratch = np.zeros((5, 256), dtype=np.int64)
  return (consts, memo, ctr, node, cls, suffix, grp, frame, cand, node_key, scratch)


@numba.njit(cache=True, boundscheck=False, inline="always")
def _popcount(m):
  """The number of set bits of a card set (m < 2^32), without a loop."""
  m = m - ((m >> 1) & 0x55555555)
  m = (m & 0x33333333) + ((m >> 2) & 0x33333333)
  m = (m + (m >> 4)) & 0x0F0F0F0F
  return ((m * 0x01010101) & 0xFFFFFFFF) >> 24


@numba.njit(cache=True, boundscheck=False, inline="always")
def _above(t, n, full):
  """The cards y with y >= t."""
  if t <= 0:
    return full
  if t >= n:
    return 0
  return (full >> t) << t


@numba.njit(cache=True, boundscheck=False, inline="always")
def _pass_value(b, a, other, n, full):
  """Card a's deals with `other` when it passes at contract 2^b (the contract made or not)."""
  return (1 << b) * _popcount(other & _above((1 << b) - a, n, full))


@numba.njit(cache=True, boundscheck=False, inline="always")
def _known_value(c, a, other, k, n, full):
  """Card a's deals with `other` when the partner knows a: the best contract >= c each."""
  s = 0
  for d in range(c, k):
    hi = _above((1 << d) - a, n, full)
    if d + 1 < k:
      hi &= ~_above((1 << (d + 1)) - a, n, full)
    s += (1 << d) * _popcount(other & hi)
  return s


@numba.njit(cache=True, boundscheck=False)
def _mix(h):
  h ^= h >> _U(33)
  h *= _U(0xff51afd7ed558ccd)
  h ^= h >> _U(33)
  h *= _U(0xc4ceb9fe1a85ec53)
  h ^= h >> _U(33)
  return h


@numba.njit(cache=True, boundscheck=False, inline="always")
def _canonical_key(b, mover, other, st):
  """Two 64-bit hashes of the canonical key of W(b, mover, other): the class sizes of both
  sides and, for every contract >= b, how many of the other side's classes each class meets."""
  consts, scratch = st[_S_CONSTS], st[_S_SCRATCH]
  n, k, full = consts[0], consts[1], consts[2]
  # Rows of `scratch` (indexed in place: a row view would cost reference counting per call):
  # 0 the key's bytes, 1-2 the mover's class representatives and sizes, 3-4 the other's.
  lo = max(b, 0)
  m = 0
  scratch[0, m] = b + 1
  m += 1
  na = 0
  last = -1
  for a in range(n):
    if mover >> a & 1:
      s = 0
      for c in range(lo, k):
        s = s * 33 + _popcount(other & _above((1 << c) - a, n, full))
      if na > 0 and s == last:
        scratch[2, na - 1] += 1
      else:
        scratch[1, na] = a
        scratch[2, na] = 1
        na += 1
        last = s
  nb = 0
  last = -1
  for y in range(n):
    if other >> y & 1:
      s = 0
      for c in range(lo, k):
        s = s * 33 + _popcount(mover & _above((1 << c) - y, n, full))
      if nb > 0 and s == last:
        scratch[4, nb - 1] += 1
      else:
        scratch[3, nb] = y
        scratch[4, nb] = 1
        nb += 1
        last = s
  scratch[0, m] = na
  scratch[0, m + 1] = nb
  m += 2
  for i in range(na):
    scratch[0, m] = scratch[2, i]
    m += 1
  for j in range(nb):
    scratch[0, m] = scratch[4, j]
    m += 1
  for c in range(lo, k):
    for i in range(na):
      cnt = 0
      for j in range(nb):
        if scratch[1, i] + scratch[3, j] >= (1 << c):
          cnt += 1
      scratch[0, m] = cnt
      m += 1
  h1 = _U(1469598103934665603)
  h2 = _U(0x9E3779B97F4A7C15)
  for i in range(m):
    x = _U(scratch[0, i])
    h1 = (h1 ^ x) * _U(1099511628211)
    h2 = (h2 ^ x) * _U(0xff51afd7ed558ccd)
    h2 ^= h2 >> _U(29)
  return h1 | _U(1), h2


@numba.njit(cache=True, boundscheck=False, inline="always")
def _memo_put(k1, k2, v, exact, st):
  consts, memo, ctr = st[_S_CONSTS], st[_S_MEMO], st[_S_CTR]
  keys, keys2, vals, ex = memo
  mask = _U(consts[3])
  if ctr[0] * 10 > consts[3] * 7:
    ctr[2] = 1  # 70% full: the caller raises MemoryError
    return
  i = _mix(k1) & mask
  while keys[i] != _U(0):
    if keys[i] == k1 and keys2[i] == k2:
      vals[i] = v
      ex[i] = exact
      return
    i = (i + _U(1)) & mask
  keys[i] = k1
  keys2[i] = k2
  vals[i] = v
  ex[i] = exact
  ctr[0] += 1


@numba.njit(cache=True, boundscheck=False, inline="always")
def _quick_value(b, mover, other, th, st):
  """(1, W, 0, 0) when W(b, mover, other) needs no search (an empty side, the last two bids,
  or a memoised value that is exact or an upper bound <= th), else (0, 0, key1, key2)."""
  consts, memo = st[_S_CONSTS], st[_S_MEMO]
  n, k, full = consts[0], consts[1], consts[2]
  if mover == 0 or other == 0:
    return 1, 0, _U(0), _U(0)
  if b == k - 1:
    s = 0
    for a in range(n):
      if mover >> a & 1:
        s += _pass_value(b, a, other, n, full)
    return 1, s, _U(0), _U(0)
  if b == k - 2:
    s = 0
    for a in range(n):
      if mover >> a & 1:
        s += max(_pass_value(b, a, other, n, full),
                 _pass_value(k - 1, a, other, n, full))
    return 1, s, _U(0), _U(0)
  k1, k2 = _canonical_key(b, mover, other, st)
  keys, keys2, vals, ex = memo
  mask = _U(consts[3])
  i = _mix(k1) & mask
  while keys[i] != _U(0):
    if keys[i] == k1 and keys2[i] == k2:
      if ex[i] != 0 or vals[i] <= th:
        return 1, vals[i], k1, k2
      break
    i = (i + _U(1)) & mask
  return 0, 0, k1, k2


@numba.njit(cache=True, boundscheck=False, inline="always")
def _setup_node(f, b, mover, other, lower, st):
  """Node frame f for the partition search at (b, mover, other), best so far `lower`: the
  mover's card classes sorted by optimistic value (stable), their suffix sums, the actions."""
  consts, node, cls, suffix = st[_S_CONSTS], st[_S_NODE], st[_S_CLS], st[_S_SUFFIX]
  grp, scratch = st[_S_GRP], st[_S_SCRATCH]
  n, k, full = consts[0], consts[1], consts[2]
  lo = max(b, 0)
  ns = 0
  for a in range(n):
    if mover >> a & 1:
      s = 0
      for c in range(lo, k):
        s = s * 33 + _popcount(other & _above((1 << c) - a, n, full))
      j = -1
      for t in range(ns):
        if scratch[0, t] == s:
          j = t
          break
      if j < 0:
        scratch[0, ns] = s
        cls[f, 0, ns] = 0
        cls[f, 1, ns] = 0
        cls[f, 2, ns] = 0
        j = ns
        ns += 1
      cls[f, 0, j] |= 1 << a
      pv = _pass_value(b, a, other, n, full) if b >= 0 else 0
      best = pv
      for c in range(b + 1, k):
        v = _known_value(c, a, other, k, n, full)
        if v > best:
          best = v
      cls[f, 1, j] += best
      cls[f, 2, j] += pv
  for x in range(1, ns):
    z = x
    while z > 0 and cls[f, 1, z - 1] < cls[f, 1, z]:
      for r in range(3):
        t = cls[f, r, z]
        cls[f, r, z] = cls[f, r, z - 1]
        cls[f, r, z - 1] = t
      z -= 1
  suffix[f, ns] = 0
  for x in range(ns - 1, -1, -1):
    suffix[f, x] = suffix[f, x + 1] + cls[f, 1, x]
  na = 0
  if b >= 0:
    grp[f, 0, 0] = -1
    na = 1
  for c in range(b + 1, k):
    grp[f, 0, na] = c
    na += 1
  for c in range(k):
    grp[f, 1, c] = 0
    grp[f, 2, c] = 0
    grp[f, 3, c] = 0
  node[f, _N_B] = other
  node[f, _N_NCLS] = ns
  node[f, _N_NACTS] = na
  node[f, _N_BEST] = lower
  node[f, _N_FOUND] = 0


@numba.njit(cache=True, boundscheck=False, _nrt=False)  # (no reference counting: above)
def _search(root, st, budget):
  """The partition search of node frame `root` (set up by `_setup_node`), every W it needs
  solved on the explicit stack. On return node[root] holds the best total and whether one
  above the initial bound was found, grp[root, 3] its groups.

  When the states solved reach `budget` the search pauses: it stores its position in the
  counters (ctr[3:6], ctr[6] = 1) and returns; the next call goes on from there, since the
  whole stack lives in the state's arrays."""
  consts, node, cls, suffix, grp = (st[_S_CONSTS], st[_S_NODE], st[_S_CLS], st[_S_SUFFIX],
                                    st[_S_GRP])
  frame, cand, node_key, ctr = st[_S_FRAME], st[_S_CAND], st[_S_KEY], st[_S_CTR]
  k = consts[1]
  if ctr[6] != 0:
    f, i, mode = ctr[3], ctr[4], ctr[5]
    ctr[6] = 0
  else:
    f, i = root, 0
    frame[f, 0, _F_PASS] = 0
    mode = _ENTER
  while True:
    if mode == _ENTER:
      if ctr[2] != 0:
        mode = _POP
        continue
      if ctr[1] >= budget:
        ctr[3], ctr[4], ctr[5], ctr[6] = f, i, mode, 1
        return
      cur = frame[f, i, _F_PASS]
      for c in range(k):
        cur += grp[f, 2, c]
      frame[f, i, _F_CUR] = cur
      frame[f, i, _F_APPLIED] = -1
      if i == node[f, _N_NCLS]:
        if cur > node[f, _N_BEST]:
          node[f, _N_BEST] = cur
          node[f, _N_FOUND] = 1
          for c in range(k):
            grp[f, 3, c] = grp[f, 1, c]
        mode = _POP
      elif cur + suffix[f, i] <= node[f, _N_BEST]:
        mode = _POP
      else:
        frame[f, i, _F_PHASE] = _CAND
        frame[f, i, _F_J] = 0
        mode = _RUN
    elif mode == _RUN:
      cur = frame[f, i, _F_CUR]
      na = node[f, _N_NACTS]
      if frame[f, i, _F_PHASE] == _CAND:
        j = frame[f, i, _F_J]
        called = False
        while j < na:
          c = grp[f, 0, j]
          cand[f, i, 2, j] = j
          if c < 0:
            cand[f, i, 0, j] = cur + cls[f, 2, i]
            cand[f, i, 1, j] = 0
            j += 1
            continue
          th = node[f, _N_BEST] - (cur - grp[f, 2, c]) - suffix[f, i + 1]
          mover, other = node[f, _N_B], grp[f, 1, c] | cls[f, 0, i]
          done, v, k1, k2 = _quick_value(c, mover, other, th, st)
          if done:
            cand[f, i, 1, j] = v
            cand[f, i, 0, j] = cur - grp[f, 2, c] + v if v > th else _NEG
            j += 1
            continue
          # W(c, mover, other, th) needs a search: node frame c + 1.
          frame[f, i, _F_J] = j
          frame[f, i, _F_CTH] = th
          ctr[1] += 1
          g = c + 1
          _setup_node(g, c, mover, other, th, st)
          node[g, _N_PARENT] = f
          node[g, _N_PARENT_I] = i
          node[g, _N_TH] = th
          node_key[g, 0] = k1
          node_key[g, 1] = k2
          f, i = g, 0
          frame[f, 0, _F_PASS] = 0
          mode = _ENTER
          called = True
          break
        if not called:
          for x in range(1, na):  # stable sort of the candidates by total, decreasing
            y = cand[f, i, 2, x]
            z = x
            while z > 0 and cand[f, i, 0, cand[f, i, 2, z - 1]] < cand[f, i, 0, y]:
              cand[f, i, 2, z] = cand[f, i, 2, z - 1]
              z -= 1
            cand[f, i, 2, z] = y
          frame[f, i, _F_PHASE] = _SEL
          frame[f, i, _F_X] = 0
      else:
        x = frame[f, i, _F_X]
        pushed = False
        while x < na:
          j = cand[f, i, 2, x]
          if cand[f, i, 0, j] + suffix[f, i + 1] <= node[f, _N_BEST]:
            break
          x += 1
          frame[f, i, _F_X] = x
          c = grp[f, 0, j]
          if c < 0:
            frame[f, i + 1, _F_PASS] = frame[f, i, _F_PASS] + cls[f, 2, i]
          else:
            frame[f, i, _F_APPLIED] = c
            frame[f, i, _F_OG] = grp[f, 1, c]
            frame[f, i, _F_OV] = grp[f, 2, c]
            grp[f, 1, c] |= cls[f, 0, i]
            grp[f, 2, c] = cand[f, i, 1, j]
            frame[f, i + 1, _F_PASS] = frame[f, i, _F_PASS]
          i += 1
          mode = _ENTER
          pushed = True
          break
        if not pushed:
          mode = _POP
    else:  # _POP: frame (f, i) is done
      if i > 0:
        i -= 1
        c = frame[f, i, _F_APPLIED]
        if c >= 0:
          grp[f, 1, c] = frame[f, i, _F_OG]
          grp[f, 2, c] = frame[f, i, _F_OV]
          frame[f, i, _F_APPLIED] = -1
        mode = _RUN
        continue
      if f == root:
        return
      # W of node f is solved: memoise it and hand it to the candidate that asked.
      th = node[f, _N_TH]
      if node[f, _N_BEST] > th:
        v = node[f, _N_BEST]
        _memo_put(node_key[f, 0], node_key[f, 1], v, 1, st)
      else:
        v = th
        _memo_put(node_key[f, 0], node_key[f, 1], th, 0, st)
      f, i = node[f, _N_PARENT], node[f, _N_PARENT_I]
      j = frame[f, i, _F_J]
      c = grp[f, 0, j]
      cand[f, i, 1, j] = v
      cand[f, i, 0, j] = (frame[f, i, _F_CUR] - grp[f, 2, c] + v
                          if v > frame[f, i, _F_CTH] else _NEG)
      frame[f, i, _F_J] = j + 1
      mode = _RUN


@numba.njit(cache=True, boundscheck=False, _nrt=False)
def _bb_value(b, mover, other, st):
  """W(b, mover, other) exactly."""
  done, v, k1, k2 = _quick_value(b, mover, other, -1, st)
  if done:
    return v
  st[_S_CTR][1] += 1
  f = b + 1
  _setup_node(f, b, mover, other, -1, st)
  _search(f, st, _NO_BUDGET)
  v = st[_S_NODE][f, _N_BEST]
  if v > -1:
    _memo_put(k1, k2, v, 1, st)
    return v
  _memo_put(k1, k2, -1, 0, st)
  return -1


@numba.njit(cache=True, boundscheck=False, _nrt=False)
def _bb_partition(b, mover, other, lower, st, budget):
  """The best assignment of the mover's classes at (b, mover, other) worth more than `lower`:
  (paused, found, its total); its groups in st[_S_GRP][b + 1, 3]. Paused (1) when the states
  solved reach `budget`: the same call with a larger budget goes on."""
  f = b + 1
  if st[_S_CTR][6] == 0:
    _setup_node(f, b, mover, other, lower, st)
  _search(f, st, budget)
  return st[_S_CTR][6], st[_S_NODE][f, _N_FOUND], st[_S_NODE][f, _N_BEST]


# ----------------------------------------------------------------------------------------------
# Checkpoint files. The kernel runs without bounds checks, so a checkpoint is checked whole
# before any of its arrays reaches it: a digest binds the meta to the arrays (a damaged file,
# or a meta edited to another size, is refused), and every array is checked against the state a
# fresh solver of that size and table has (shapes, dtypes, the constants, the counters, the
# memo's slots, and the paused stack's frames, indices and parent links).
_MEMO_FIELDS = ("memo_idx", "memo_k1", "memo_k2", "memo_v", "memo_ex")
_STATE_FIELDS = tuple(f"s{pos}" for pos in range(_S_SCRATCH + 1) if pos != _S_MEMO)


def _checkpoint_digest(meta_json: str, arrays: dict[str, np.ndarray]) -> str:
  """SHA-256 of the meta's JSON text and every array (its name, dtype, shape and bytes)."""
  import hashlib
  h = hashlib.sha256(b"simple_bidding_optimum checkpoint 1\n")
  h.update(meta_json.encode("utf-8") + b"\n")
  for name in _STATE_FIELDS + _MEMO_FIELDS:
    a = np.ascontiguousarray(arrays[name])
    h.update(f"{name} {a.dtype.str} {a.shape}\n".encode())
    h.update(a.tobytes())
  return h.hexdigest()


def _read_checkpoint(path: str) -> tuple[dict, dict[str, np.ndarray]]:
  """(meta, arrays) of the checkpoint at `path`, its digest checked.

  Raises:
    ValueError: naming `path`, if it cannot be read, lacks an entry, or fails its digest.
  """
  import zipfile
  import zlib
  try:
    # Opened here: np.load leaves its own handle open when the zip directory is unreadable.
    with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
      missing = [k for k in ("meta", "digest") + _STATE_FIELDS + _MEMO_FIELDS
                 if k not in z.files]
      if missing:
        raise ValueError(f"checkpoint {path!r} lacks {missing} (damaged, or written by a "
                         "version without the digest: delete it to start afresh)")
      meta_json, stored = str(z["meta"]), str(z["digest"])
      arrays = {k: z[k] for k in _STATE_FIELDS + _MEMO_FIELDS}
  except (OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
    raise ValueError(f"checkpoint {path!r} cannot be read: {type(e).__name__}: {e}") from e
  except ValueError as e:
    if repr(path) in str(e):
      raise
    raise ValueError(f"checkpoint {path!r} cannot be read: {e}") from e
  if _checkpoint_digest(meta_json, arrays) != stored:
    raise ValueError(f"checkpoint {path!r} is damaged or edited: its meta and arrays do not "
                     "match their digest")
  try:
    meta = json.loads(meta_json)
  except ValueError as e:
    raise ValueError(f"checkpoint {path!r}: its meta is not JSON: {e}") from e
  if not isinstance(meta, dict):
    raise ValueError(f"checkpoint {path!r}: its meta is not a JSON object")
  return meta, arrays


def _check_checkpoint(path: str, arrays: dict[str, np.ndarray], st) -> None:
  """Raises ValueError (naming `path`) unless `arrays` can be restored into the state `st`.

  Every index the kernel reads from the restored arrays is checked to be within its array and
  consistent with the search's invariants, so that no file makes the kernel read or write out
  of bounds.

  Raises:
    ValueError: an array of another shape or dtype, constants of another size or table,
      counters out of range, memo slots out of the table or repeated, or a paused stack whose
      frames, class and action counts, candidate orders or parent links are not the search's.
  """
  def bad(what):
    raise ValueError(f"checkpoint {path!r} is damaged: {what}")

  for pos in range(len(st)):
    if pos == _S_MEMO:
      continue
    a, want = arrays[f"s{pos}"], st[pos]
    if a.shape != want.shape or a.dtype != want.dtype:
      bad(f"array s{pos} is {a.dtype}{list(a.shape)}, expected {want.dtype}{list(want.shape)} "
          "(another size or table)")
  consts = arrays[f"s{_S_CONSTS}"]
  if not np.array_equal(consts, st[_S_CONSTS]):
    bad(f"its constants {consts.tolist()} are not those of this size and table "
        f"{st[_S_CONSTS].tolist()}")
  n, k, full, mask = (int(x) for x in st[_S_CONSTS])
  slots = mask + 1
  memo = st[_S_MEMO]
  idx = arrays["memo_idx"]
  if idx.ndim != 1 or idx.dtype.kind not in "iu":
    bad(f"memo_idx is {idx.dtype}{list(idx.shape)}")
  for name, want in zip(_MEMO_FIELDS[1:], memo, strict=True):
    a = arrays[name]
    if a.shape != idx.shape or a.dtype != want.dtype:
      bad(f"{name} is {a.dtype}{list(a.shape)}, expected {want.dtype}{list(idx.shape)}")
  if len(idx) and (idx.min() < 0 or idx.max() >= slots):
    bad(f"memo slots outside the table of {slots}")
  if len(np.unique(idx)) != len(idx):
    bad("a memo slot is stored twice")
  if np.any(arrays["memo_k1"] == 0) or np.any(arrays["memo_ex"] > 1):
    bad("an empty memo key or an exact flag other than 0/1")
  ctr = arrays[f"s{_S_CTR}"]
  if ctr[0] != len(idx) or ctr[0] * 10 > mask * 7 + 10:
    bad(f"the memo counter {ctr[0]} for {len(idx)} stored entries in {slots} slots")
  if ctr[1] < 0 or ctr[2] not in (0, 1) or ctr[6] not in (0, 1):
    bad(f"counters {ctr.tolist()}")
  if ctr[6] == 0:
    return  # not paused: the next search sets its root up afresh
  node, cls, grp = arrays[f"s{_S_NODE}"], arrays[f"s{_S_CLS}"], arrays[f"s{_S_GRP}"]
  frame, cand = arrays[f"s{_S_FRAME}"], arrays[f"s{_S_CAND}"]
  frames = k + 1
  f, i, mode = (int(x) for x in ctr[3:6])
  if mode != _ENTER or not 0 <= f < frames:
    bad(f"the paused position (frame {f}, class {i}, mode {mode})")
  chain = []  # (frame, class level) from the top of the stack down to the root
  level = i
  while True:
    chain.append((f, level))
    if f == 0:
      break
    parent, parent_i = int(node[f, _N_PARENT]), int(node[f, _N_PARENT_I])
    if not 0 <= parent < f:
      bad(f"frame {f} has parent {parent} (bids must increase up the stack)")
    f, level = parent, parent_i
  for depth, (g, level) in enumerate(chain):
    b = g - 1
    ncls, nacts = int(node[g, _N_NCLS]), int(node[g, _N_NACTS])
    want_acts = list(range(k)) if b < 0 else [-1] + list(range(b + 1, k))
    if nacts != len(want_acts) or grp[g, 0, :nacts].tolist() != want_acts:
      bad(f"frame {g}'s actions {grp[g, 0, :max(0, min(nacts, 8))].tolist()}, expected "
          f"{want_acts}")
    if not 1 <= ncls <= n:
      bad(f"frame {g} has {ncls} card classes (size {n})")
    top = depth == 0
    if not (0 <= level <= ncls if top else 0 <= level < ncls):
      bad(f"frame {g} is at class {level} of {ncls}")
    masks = np.concatenate([cls[g, 0, :ncls], grp[g, 1, :k], node[g, _N_B:_N_B + 1]])
    if np.any(masks < 0) or np.any(masks > full):
      bad(f"frame {g} holds card sets outside the {n} cards")
    for x in range(level):  # the classes assigned so far: choosing among sorted candidates
      order = cand[g, x, 2, :nacts]
      if frame[g, x, _F_PHASE] != _SEL or sorted(order.tolist()) != list(range(nacts)):
        bad(f"frame {g} class {x}: phase {frame[g, x, _F_PHASE]}, order {order.tolist()}")
      tried = int(frame[g, x, _F_X])
      applied = int(frame[g, x, _F_APPLIED])
      if not 1 <= tried <= nacts or applied not in [-1] + list(range(max(b, 0), k)):
        bad(f"frame {g} class {x}: candidate {tried} of {nacts}, applied {applied}")
      if applied != grp[g, 0, order[tried - 1]]:
        bad(f"frame {g} class {x} applied {applied}, not its candidate's action")
    if top:
      continue
    # The level that called the frame above: valuing its candidates, the j-th asked.
    child = chain[depth - 1][0]
    j = int(frame[g, level, _F_J])
    if (frame[g, level, _F_PHASE] != _CAND or not 0 <= j < nacts
        or grp[g, 0, j] + 1 != child or frame[g, level, _F_APPLIED] != -1):
      bad(f"frame {g} class {level} does not call frame {child} (phase "
          f"{frame[g, level, _F_PHASE]}, candidate {j})")



class _Solver:
  """W and the root partition through the numba kernel (one memo table per solver)."""

  def __init__(self, size: int, hash_log2: int):
    self.k = _num_bids(size)
    try:
      self._st = _new_state(size, hash_log2)
    except (MemoryError, OSError) as e:
      raise MemoryError(f"cannot allocate the memo table of 2^{hash_log2} slots") from e

  @property
  def states(self) -> int:
    return int(self._st[_S_CTR][1])

  def _check(self):
    if self._st[_S_CTR][2]:
      raise MemoryError("the memo table is 70% full; rerun with a larger hash_log2")

  @property
  def entries(self) -> int:
    return int(self._st[_S_CTR][0])

  @property
  def paused(self) -> bool:
    return bool(self._st[_S_CTR][6])

  def save(self, path: str, meta: dict) -> None:
    """Writes the whole state (the memo's filled slots, the stack, `meta`) atomically, with a
    SHA-256 digest binding `meta` to the arrays (`_checkpoint_digest`)."""
    keys, keys2, vals, ex = self._st[_S_MEMO]
    idx = np.flatnonzero(keys)
    arrays = {f"s{pos}": self._st[pos] for pos in range(len(self._st)) if pos != _S_MEMO}
    arrays.update(memo_idx=idx, memo_k1=keys[idx], memo_k2=keys2[idx], memo_v=vals[idx],
                  memo_ex=ex[idx])
    meta_json = json.dumps(meta)
    atomic_io.savez(path, meta=np.array(meta_json),
                    digest=np.array(_checkpoint_digest(meta_json, arrays)), **arrays)

  def load(self, path: str, expect: dict) -> dict:
    """Restores a state written by `save` whose `meta` has the items of `expect` (size, lower
    bound, table); returns its `meta`.

    The file is read whole, its digest checked, and every array checked against this
    solver's size and table (`_check_checkpoint`) before the kernel's arrays are touched.

    Raises:
      ValueError: naming the file, if it cannot be read (empty, truncated, a bad CRC), its
        digest does not match (damaged, or its meta edited), it is for another size, lower
        bound or table, or an array is out of shape, type or range.
    """
    meta, arrays = _read_checkpoint(path)
    if {key: meta.get(key) for key in expect} != expect:
      raise ValueError(f"checkpoint {path!r} is for {meta}, not {expect}")
    if not isinstance(meta.get("seconds"), (int, float)) or not meta["seconds"] >= 0:
      raise ValueError(f"checkpoint {path!r}: meta 'seconds' is {meta.get('seconds')!r}")
    _check_checkpoint(path, arrays, self._st)
    keys, keys2, vals, ex = self._st[_S_MEMO]
    for pos in range(len(self._st)):
      if pos != _S_MEMO:
        self._st[pos][...] = arrays[f"s{pos}"]
    idx = arrays["memo_idx"]
    keys[idx], keys2[idx], vals[idx], ex[idx] = (arrays["memo_k1"], arrays["memo_k2"],
                                                 arrays["memo_v"], arrays["memo_ex"])
    return meta

  def value(self, b: int, mover: int, other: int) -> int:
    """W(b, mover, other)."""
    v = int(_bb_value(b, mover, other, self._st))
    self._check()
    return v

  def partition(self, b: int, mover: int, other: int, lower: int,
                on_pause: Callable[[], None] | None = None, chunk: int = _CHUNK):
    """(value, groups) of the best assignment worth more than `lower`, else (lower, None).

    With `on_pause`, the search pauses after every `chunk` states solved and calls it (the
    state is then consistent: `save` writes a checkpoint the search resumes from).
    """
    while True:
      budget = _NO_BUDGET if on_pause is None else self.states + chunk
      paused, found, value = _bb_partition(b, mover, other, lower, self._st, budget)
      self._check()
      if not paused:
        break
      on_pause()
    if not found:
      return lower, None
    return int(value), [int(g) for g in self._st[_S_GRP][b + 1, 3, :self.k]]


def _strategy(solver, size: int, k: int, root_groups: list[int]):
  """Public bid sequence -> {card: action} (action: 0 Pass, j + 1 bid 2^j) on the play path."""
  full = (1 << size) - 1
  strategy: dict[tuple[int, ...], dict[int, int]] = {}

  def record(seq, mover, groups):
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
    strategy[seq] = acts

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


def solve(size: int, lower_bound: int | None = None, hash_log2: int = 26,
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
  size = _check_size(size)
  if lower_bound is not None and (isinstance(lower_bound, bool) or lower_bound < 0):
    raise ValueError(f"lower_bound must be a non-negative int total, got {lower_bound!r}")
  if not 10 <= int(hash_log2) <= 34:
    raise ValueError(f"hash_log2 must be in [10, 34], got {hash_log2}")
  if not checkpoint_seconds > 0:
    raise ValueError(f"checkpoint_seconds must be > 0, got {checkpoint_seconds!r}")
  start = time.perf_counter()
  solver = _Solver(size, int(hash_log2))
  k = _num_bids(size)
  full = (1 << size) - 1
  lower = -1 if lower_bound is None else int(lower_bound)
  meta = dict(size=size, lower_bound=lower, hash_log2=int(hash_log2))
  before = 0.0  # seconds spent before the resume
  if checkpoint is not None and os.path.exists(checkpoint):
    before = float(solver.load(checkpoint, meta)["seconds"])
  on_pause = None
  if checkpoint is not None or progress is not None:
    last_save = time.perf_counter()

    def on_pause():
      nonlocal last_save
      if progress is not None:
        progress(solver.states, solver.entries)
      if checkpoint is not None and time.perf_counter() - last_save >= checkpoint_seconds:
        solver.save(checkpoint, dict(meta, seconds=before + time.perf_counter() - start))
        last_save = time.perf_counter()
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
  strategy = _strategy(solver, size, k, groups)
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
  size = _check_size(size)
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
  solver = _Solver(size, int(hash_log2))
  full = (1 << size) - 1
  values = [solver.value(-1, sum(1 << int(c) for c in part), full) for part in parts]
  return sum(values), values


def strategy_action(strategy: dict[tuple[int, ...], dict[int, int]], card: int,
                    bids: tuple[int, ...], legal: list[int]) -> int:
  """The strategy's action for `card` after public `bids`; off the play path the lowest legal
  action (any action there leaves the value unchanged)."""
  acts = strategy.get(tuple(bids))
  if acts is not None and card in acts:
    return acts[card]
  return min(legal)


def tabular_policy(game: pyspiel.Game,
                   strategy: dict[tuple[int, ...], dict[int, int]]) -> policy_lib.TabularPolicy:
  """The joint pure strategy as an OpenSpiel `TabularPolicy` of `game` (simple_bidding)."""
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
