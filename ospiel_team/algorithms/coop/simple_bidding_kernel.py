"""The numba kernel of `simple_bidding_optimum`: the branch and bound over reach sets.

The recursion W -> partition search -> W of `simple_bidding_optimum` (its module docstring has
the formulation, from Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration
with Imperfect Information", NeurIPS 2020, arXiv:2008.06495, Definition 2) compiled by numba.
A canonical subgame is identified by two independent 64-bit hashes of its key (a wrong merge
needs both to collide: probability about n^2 / 2^129 for n subgames), memoised in an
open-addressing table. The recursion runs on an explicit stack: the bids of the W calls on the
stack strictly increase, so the W call at bid b owns node frame b + 1, and its partition
search's depth-first frames are indexed by the class i being assigned.

The whole state lives in the arrays of `_new_state` (a tuple indexed by the `_S_*` positions):
a search paused by its budget goes on from them, and `simple_bidding_checkpoint` writes and
checks them. Those modules use the public seam at the end of this module.
"""

from __future__ import annotations

import mmap

import numba
import numpy as np

from ospiel_team.games import simple_bidding as sb_game

_U = np.uint64
# Columns of the per-node scalars `node[f, :]`.
_N_B, _N_NCLS, _N_NACTS, _N_BEST, _N_FOUND, _N_PARENT, _N_PARENT_I, _N_TH = range(8)
# Columns of the per-frame scalars `frame[f, i, :]`.
_F_PASS, _F_CUR, _F_PHASE, _F_J, _F_X, _F_CTH, _F_APPLIED, _F_OG, _F_OV = range(9)
_ENTER, _RUN, _POP = 0, 1, 2  # what the search loop does next with frame (f, i)
_CAND, _SEL = 0, 1  # a frame's phase: valuing its candidates, or trying them best first
_NEG = -(1 << 60)  # the total of a candidate that cannot matter
_NO_BUDGET = 1 << 62  # a search that never pauses
# The search loop and its entry points are compiled without numba's reference counting
# (`_nrt=False`, numba's own switch of its runtime): they allocate nothing, and the state's arrays
# (taken out of the tuple in every inlined function) would otherwise cost an atomic increment and
# decrement each, per candidate (about a fifth of the search's time).
# Positions in the state tuple of `_new_state`.
(_S_CONSTS, _S_MEMO, _S_CTR, _S_NODE, _S_CLS, _S_SUFFIX, _S_GRP, _S_FRAME, _S_CAND, _S_KEY,
 _S_SCRATCH) = range(11)


def _lazy_zeros(n: int, dtype) -> np.ndarray:
  """An array of `n` zeros in an anonymous mapping, committed 4 KiB page by page as touched.

  (numpy asks the kernel for 2 MiB pages for large arrays; the memo table is touched at random,
  and every first touch would zero a whole 2 MiB page.)
  """
  dt = np.dtype(dtype)
  return np.frombuffer(mmap.mmap(-1, max(1, n * dt.itemsize)), dtype=dt, count=n)


def _new_state(size: int, hash_log2: int):
  """The kernel's arrays for simple_bidding(size) with 2^hash_log2 memo slots."""
  k = sb_game.num_bids(size)
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
def _canonical_key(b, mover, other, st):  # noqa: C901 (numba kernel: one compiled frame)
  """Two 64-bit hashes of the canonical key of W(b, mover, other).

  The key holds the class sizes of both sides and, for every contract >= b, how many of the other
  side's classes each class meets.
  """
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
def _quick_value(b, mover, other, th, st):  # noqa: C901 (numba kernel: one compiled frame)
  """W(b, mover, other) when it needs no search, else the keys of its memo entry.

  (1, W, 0, 0) when W(b, mover, other) needs no search (an empty side, the last two bids,
  or a memoised value that is exact or an upper bound <= th), else (0, 0, key1, key2).
  """
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
def _setup_node(f, b, mover, other, lower, st):  # noqa: C901 (numba kernel: one compiled frame)
  """Sets up node frame f for the partition search at (b, mover, other).

  Node frame f for the partition search at (b, mover, other), best so far `lower`: the
  mover's card classes sorted by optimistic value (stable), their suffix sums, the actions.
  """
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
def _search(root, st, budget):  # noqa: C901 (numba kernel: one compiled frame)
  """Runs the partition search of node frame `root` on the explicit stack.

  The partition search of node frame `root` (set up by `_setup_node`), every W it needs
  solved on the explicit stack. On return node[root] holds the best total and whether one
  above the initial bound was found, grp[root, 3] its groups.

  When the states solved reach `budget` the search pauses: it stores its position in the
  counters (ctr[3:6], ctr[6] = 1) and returns; the next call goes on from there, since the
  whole stack lives in the state's arrays.
  """
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
  """Branch and bound over the mover's class assignments at (b, mover, other).

  The best assignment of the mover's classes at (b, mover, other) worth more than `lower`:
  (paused, found, its total); its groups in st[_S_GRP][b + 1, 3]. Paused (1) when the states
  solved reach `budget`: the same call with a larger budget goes on.
  """
  f = b + 1
  if st[_S_CTR][6] == 0:
    _setup_node(f, b, mover, other, lower, st)
  _search(f, st, budget)
  return st[_S_CTR][6], st[_S_NODE][f, _N_FOUND], st[_S_NODE][f, _N_BEST]

# ------------------------------------------------------------------------------------------------
# The kernel's public seam: what `simple_bidding_optimum` (the entry points and the state) and
# `simple_bidding_checkpoint` (the state's layout, which it writes and checks) use. The kernels
# above keep their own names.
CAND = _CAND
ENTER = _ENTER
F_APPLIED = _F_APPLIED
F_J = _F_J
F_PHASE = _F_PHASE
F_X = _F_X
NO_BUDGET = _NO_BUDGET
N_B = _N_B
N_NACTS = _N_NACTS
N_NCLS = _N_NCLS
N_PARENT = _N_PARENT
N_PARENT_I = _N_PARENT_I
SEL = _SEL
S_CAND = _S_CAND
S_CLS = _S_CLS
S_CONSTS = _S_CONSTS
S_CTR = _S_CTR
S_FRAME = _S_FRAME
S_GRP = _S_GRP
S_MEMO = _S_MEMO
S_NODE = _S_NODE
S_SCRATCH = _S_SCRATCH
bb_partition = _bb_partition
bb_value = _bb_value
new_state = _new_state
