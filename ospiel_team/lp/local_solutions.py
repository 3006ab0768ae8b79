r"""Reachable sets and local solutions of every team-public state, in one numba pass.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022 (arXiv:2109.05284), Algorithm 1 (Sec. 4) and Appendix C.2, for the
acting public states of one team in depth order (an anchor comes before the states it links to):

* the reachable sets R of a state S with no anchor: R = S (the root bag);
* otherwise the distinct non-empty sets C(R', A') n S over the anchor's local solutions
  (R', A'), in increasing lexicographic order of their membership rows (False < True), and
  `parent_to_set`: for each anchor local solution, the index of the set it reaches (-1: none);
* the local solutions (R, A) of S: for each R in order, every joint action A of the team
  infosets meeting R (infosets in increasing order, the last one varying fastest; actions in
  increasing order; -1 for an infoset off R).

`build` returns them as flat arrays (`LocalSolutions`); `TeamDecomposition` wraps per-state
views of them. The kernel is the only implementation; `tests/algorithms/team/
test_decomposition.py` checks it against a per-state numpy reference.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np

from ospiel_team import compile_notice

COMPILE_GROUP = "the team decompositions"
# Kernel status codes.
_OK, _TOO_MANY, _MIXED_ANCHORS, _SEVERAL_ANCHORS = 0, 1, 2, 3


@dataclasses.dataclass(frozen=True)
class LocalSolutions:
  """Flat local solutions of all acting public states (state i's slices: `*_off[i:i + 2]`).

  Attributes:
    anchor: [num_states] anchor state index (-1: none).
    num_sets: [num_states] number of reachable sets.
    local_off: [num_states + 1] offsets of the local solutions (the LP columns).
    reach: bool, state i's block is [num_local_i, |S_i|] row-major from reach_off[i].
    reach_off: [num_states + 1].
    actions: int16, state i's block is [num_local_i, num_infosets_i] from act_off[i].
    act_off: [num_states + 1].
    local_set: [num_local] the reachable set of each local solution.
    parent_to_set: state i's [num_local of its anchor] from pts_off[i] (empty: no anchor).
    pts_off: [num_states + 1].
    tt_local: [num_tt] a node's index among its state's nodes (-1: not in an acting state).
    tt_local_inf: [num_tt] its infoset's index among the state's infosets (-1: none).
  """
  anchor: np.ndarray
  num_sets: np.ndarray
  local_off: np.ndarray
  reach: np.ndarray
  reach_off: np.ndarray
  actions: np.ndarray
  act_off: np.ndarray
  local_set: np.ndarray
  parent_to_set: np.ndarray
  pts_off: np.ndarray
  tt_local: np.ndarray
  tt_local_inf: np.ndarray


class TooManyLocalSolutions(Exception):
  """More local solutions than allowed (the caller names the team and the limit)."""


@numba.njit(cache=True, error_model="numpy")
def _reserve(arr, need):
  """`arr` itself when it holds `need` items, else a copy at least twice as long."""
  if need <= len(arr):
    return arr
  out = np.empty(max(need, 2 * len(arr)), dtype=arr.dtype)
  out[:len(arr)] = arr
  return out


@numba.njit(cache=True, error_model="numpy")
def _row_less(words, i, j):
  """Row i of `words` is lexicographically before row j (unsigned words)."""
  for w in range(words.shape[1]):
    if words[i, w] != words[j, w]:
      return words[i, w] < words[j, w]
  return False


@numba.njit(cache=True, error_model="numpy")
def _sort_rows(words):
  """Row indices of `words` in lexicographic order (a stable bottom-up merge sort)."""
  m = words.shape[0]
  if words.shape[1] == 1:
    return np.argsort(words[:, 0], kind="mergesort")
  idx = np.arange(m)
  tmp = np.empty(m, dtype=np.int64)
  width = 1
  while width < m:
    for lo in range(0, m, 2 * width):
      mid = min(lo + width, m)
      hi = min(lo + 2 * width, m)
      p, q, t = lo, mid, lo
      while p < mid and q < hi:
        if _row_less(words, idx[q], idx[p]):
          tmp[t] = idx[q]
          q += 1
        else:
          tmp[t] = idx[p]
          p += 1
        t += 1
      while p < mid:
        tmp[t] = idx[p]
        p += 1
        t += 1
      while q < hi:
        tmp[t] = idx[q]
        q += 1
        t += 1
    idx, tmp = tmp, idx
    width *= 2
  return idx


@numba.njit(cache=True, error_model="numpy")
def _distinct_rows(words):
  """The distinct non-zero rows of `words`, by open addressing.

  (first, ids): the first row of each distinct non-zero row of `words` (in order of first
  appearance) and each row's index into `first` (-1: a zero row), by open addressing.
  """
  rows, nw = words.shape
  size = 1
  while size < 2 * rows:
    size *= 2
  table = np.full(size, -1, dtype=np.int64)
  first = np.empty(rows, dtype=np.int64)
  ids = np.full(rows, -1, dtype=np.int64)
  count = 0
  for r in range(rows):
    h = np.uint64(1469598103934665603)
    nonzero = False
    for w in range(nw):
      nonzero |= words[r, w] != 0
      h = (h ^ words[r, w]) * np.uint64(1099511628211)
      h ^= h >> np.uint64(29)
    if not nonzero:
      continue
    slot = np.int64(h & np.uint64(size - 1))
    while True:
      f = table[slot]
      if f < 0:
        table[slot] = count
        first[count] = r
        ids[r] = count
        count += 1
        break
      same = True
      for w in range(nw):
        if words[first[f], w] != words[r, w]:
          same = False
          break
      if same:
        ids[r] = f
        break
      slot = (slot + 1) & (size - 1)
  return first[:count], ids


@numba.njit(cache=True, error_model="numpy")
def _reached_sets(words, n):
  """The distinct non-zero membership rows, sorted, and each row's set.

  (sets [num_sets, n] bool, parent_to_set [rows]) from the membership rows `words` (bit j of
  a row: 63 - j % 64 of word j // 64, so that word order is row order): the distinct non-zero
  rows in lexicographic order, and each row's index among them (-1: the empty set).
  """
  first, ids = _distinct_rows(words)
  order = _sort_rows(words[first])
  rank = np.empty(len(first), dtype=np.int64)
  for t in range(len(first)):
    rank[order[t]] = t
  for r in range(len(ids)):
    if ids[r] >= 0:
      ids[r] = rank[ids[r]]
  sets = np.zeros((len(first), n), dtype=np.bool_)
  for t in range(len(first)):
    r = first[order[t]]
    for j in range(n):
      sets[t, j] = (words[r, j >> 6] >> np.uint64(63 - (j & 63))) & np.uint64(1) != 0
  return sets, ids


@numba.njit(cache=True, error_model="numpy")
def _anchor_rows(reach, actions, nl, pn, pk, lu, li, a):
  """Membership rows of C(R', A') n S for the anchor's local solutions.

  Membership rows of C(R', A') n S for the anchor's nl local solutions: node j of S is in it
  when R' holds its anchor node (local index lu[j]) and A' plays a[j] there (any: a[j] < 0).
  """
  n = len(lu)
  words = np.zeros((nl, (n + 63) // 64), dtype=np.uint64)
  for r in range(nl):
    for j in range(n):
      if reach[r * pn + lu[j]] and (a[j] < 0 or actions[r * pk + li[j]] == a[j]):
        words[r, j >> 6] |= np.uint64(1) << np.uint64(63 - (j & 63))
  return words


@numba.njit(cache=True, error_model="numpy")
def _set_radices(sets, loc_inf, infosets, legal_count, k):
  """Which infosets meet each set, and their action counts there.

  (meet, radix) [num_sets, k]: infoset i meets set s (a node of s is in it), and its legal
  action count there (1 where it does not meet s).
  """
  meet = np.zeros((sets.shape[0], k), dtype=np.bool_)
  radix = np.ones((sets.shape[0], k), dtype=np.int64)
  for s in range(sets.shape[0]):
    for j in range(sets.shape[1]):
      if sets[s, j] and loc_inf[j] >= 0:
        meet[s, loc_inf[j]] = True
        radix[s, loc_inf[j]] = legal_count[infosets[loc_inf[j]]]
  return meet, radix


@numba.njit(cache=True, error_model="numpy")
def _counts(radix, total, max_local):
  """Counts the local solutions per set, stopping past `max_local`.

  (local solutions per set, the running total after them), or total -1 past `max_local`
  (checked after every product, so no int64 product can overflow).
  """
  count = np.ones(radix.shape[0], dtype=np.int64)
  for s in range(radix.shape[0]):
    for i in range(radix.shape[1]):
      count[s] *= radix[s, i]
      if total + count[s] > max_local:
        return count, -1
    total += count[s]
  return count, total


@numba.njit(cache=True, error_model="numpy")
def _enumerate(sets, meet, radix, count, infosets, legal_order, reach, rr, actions, ra,
               local_set, row):
  """Writes the local solutions of one public state.

  Writes the local solutions of one state from reach[rr], actions[ra] and local_set[row]:
  for each set s, its count[s] joint actions (a mixed-radix count, the last infoset fastest;
  -1 for an infoset that does not meet s).
  """
  n, k = sets.shape[1], meet.shape[1]
  for s in range(sets.shape[0]):
    for t in range(count[s]):
      for j in range(n):
        reach[rr + j] = sets[s, j]
      rest = t
      for i in range(k - 1, -1, -1):
        if meet[s, i]:
          actions[ra + i] = legal_order[infosets[i], rest % radix[s, i]]
          rest //= radix[s, i]
        else:
          actions[ra + i] = -1
      local_set[row] = s
      row += 1
      rr += n
      ra += k


@numba.njit(cache=True, error_model="numpy")
def _kernel(grouped, bounds, loc_inf_all, slot_infosets, inf_bounds, anchor_child, tt_parent,
            tt_action, slot_of_node, legal_count, legal_order, num_tt, max_local):
  """Every acting state's reachable sets and local solutions, in slot order (module doc)."""
  num_slots = len(bounds) - 1
  tt_local = np.full(num_tt, -1, dtype=np.int64)
  tt_local_inf = np.full(num_tt, -1, dtype=np.int64)
  anchor = np.full(num_slots, -1, dtype=np.int64)
  num_sets = np.zeros(num_slots, dtype=np.int64)
  local_off = np.zeros(num_slots + 1, dtype=np.int64)
  reach_off = np.zeros(num_slots + 1, dtype=np.int64)
  act_off = np.zeros(num_slots + 1, dtype=np.int64)
  pts_off = np.zeros(num_slots + 1, dtype=np.int64)
  reach = np.empty(1024, dtype=np.bool_)
  actions = np.empty(1024, dtype=np.int16)
  local_set = np.empty(1024, dtype=np.int64)
  pts = np.empty(1024, dtype=np.int64)
  for slot in range(num_slots):
    b0, b1 = bounds[slot], bounds[slot + 1]
    n = b1 - b0
    i0 = inf_bounds[slot]
    k = inf_bounds[slot + 1] - i0
    infosets = slot_infosets[i0:i0 + k]
    loc_inf = loc_inf_all[b0:b1]
    for j in range(n):
      tt_local[grouped[b0 + j]] = j
      tt_local_inf[grouped[b0 + j]] = loc_inf[j]
    p_end = pts_off[slot]
    if anchor_child[grouped[b0]] < 0:
      for j in range(n):
        if anchor_child[grouped[b0 + j]] >= 0:
          return _MIXED_ANCHORS, tt_local, tt_local_inf, anchor, num_sets, \
              local_off, reach, reach_off, actions, act_off, local_set, pts, pts_off
      sets = np.ones((1, n), dtype=np.bool_)
    else:
      lu = np.empty(n, dtype=np.int64)
      li = np.empty(n, dtype=np.int64)
      a = np.empty(n, dtype=np.int64)
      anc = slot_of_node[tt_parent[anchor_child[grouped[b0]]]]
      for j in range(n):
        c = anchor_child[grouped[b0 + j]]
        u = tt_parent[c] if c >= 0 else -1
        if u < 0 or slot_of_node[u] != anc:
          return _SEVERAL_ANCHORS, tt_local, tt_local_inf, anchor, num_sets, \
              local_off, reach, reach_off, actions, act_off, local_set, pts, pts_off
        lu[j], li[j], a[j] = tt_local[u], tt_local_inf[u], tt_action[c]
      anchor[slot] = anc
      pl = local_off[anc + 1] - local_off[anc]
      pn = bounds[anc + 1] - bounds[anc]
      pk = inf_bounds[anc + 1] - inf_bounds[anc]
      words = _anchor_rows(reach[reach_off[anc]:reach_off[anc + 1]],
                           actions[act_off[anc]:act_off[anc + 1]], pl, pn, pk, lu, li, a)
      sets, ids = _reached_sets(words, n)
      pts = _reserve(pts, p_end + pl)
      for r in range(pl):
        pts[p_end + r] = ids[r]
      p_end += pl
    pts_off[slot + 1] = p_end
    ns = sets.shape[0]
    num_sets[slot] = ns
    meet, radix = _set_radices(sets, loc_inf, infosets, legal_count, k)
    count, total = _counts(radix, local_off[slot], max_local)
    if total < 0:
      return _TOO_MANY, tt_local, tt_local_inf, anchor, num_sets, local_off, reach, \
          reach_off, actions, act_off, local_set, pts, pts_off
    local_off[slot + 1] = total
    nl = total - local_off[slot]
    reach = _reserve(reach, reach_off[slot] + nl * n)
    actions = _reserve(actions, act_off[slot] + nl * k)
    local_set = _reserve(local_set, total)
    _enumerate(sets, meet, radix, count, infosets, legal_order, reach, reach_off[slot], actions,
               act_off[slot], local_set, local_off[slot])
    rr = reach_off[slot] + nl * n
    ra = act_off[slot] + nl * k
    reach_off[slot + 1] = rr
    act_off[slot + 1] = ra
  return _OK, tt_local, tt_local_inf, anchor, num_sets, local_off, reach, reach_off, actions, \
      act_off, local_set, pts, pts_off


def build(grouped: np.ndarray, bounds: np.ndarray, loc_inf: np.ndarray,
          slot_infosets: np.ndarray, inf_bounds: np.ndarray, anchor_child: np.ndarray,
          tt_parent: np.ndarray, tt_action: np.ndarray, slot_of_node: np.ndarray,
          legal_count: np.ndarray, legal_order: np.ndarray, max_local: int) -> LocalSolutions:
  """Runs the kernel over the acting states (slot order: each anchor before its states).

  Args:
    grouped: the acting states' team-tree nodes, state after state.
    bounds: [num_states + 1] where each state's nodes start in `grouped`.
    loc_inf: [len(grouped)] each node's index among its state's infosets (-1: not the team's).
    slot_infosets: each state's distinct team infosets, increasing.
    inf_bounds: [num_states + 1] where each state's infosets start in `slot_infosets`.
    anchor_child: [num_tt] each node's anchor child: the child of its nearest ancestor whose
      public state is one where the team acts (-1: none).
    tt_parent: [num_tt] each team-tree node's parent.
    tt_action: [num_tt] the action from a team parent (-1 otherwise).
    slot_of_node: [num_tt] the acting state (slot) of each team-tree node (-1: none).
    legal_count: per infoset, its number of legal actions.
    legal_order: per infoset, its legal actions first, increasing.
    max_local: the most local solutions allowed.

  Returns:
    The flat local solutions, every array read-only.

  Raises:
    TooManyLocalSolutions: more than `max_local` local solutions.
    AssertionError: a state whose nodes have mixed or several anchors (a broken team tree).
  """
  i64 = lambda x: np.ascontiguousarray(x, dtype=np.int64)  # noqa: E731
  # The first call of a process says, once, if numba compiles the kernel (`compile_notice`).
  with compile_notice.announce(COMPILE_GROUP, (_kernel,)):
    out = _kernel(i64(grouped), i64(bounds), i64(loc_inf), i64(slot_infosets), i64(inf_bounds),
                  i64(anchor_child), i64(tt_parent), i64(tt_action), i64(slot_of_node),
                  i64(legal_count), i64(legal_order), len(tt_parent), int(max_local))
  status = out[0]
  if status == _TOO_MANY:
    raise TooManyLocalSolutions
  if status == _MIXED_ANCHORS:
    raise AssertionError("public state with mixed anchors")
  if status == _SEVERAL_ANCHORS:
    raise AssertionError("public state with several anchors")
  (tt_local, tt_local_inf, anchor, num_sets, local_off, reach, reach_off, actions, act_off,
   local_set, pts, pts_off) = out[1:]
  res = LocalSolutions(
      anchor=anchor, num_sets=num_sets, local_off=local_off, reach=reach[:reach_off[-1]],
      reach_off=reach_off, actions=actions[:act_off[-1]], act_off=act_off,
      local_set=local_set[:local_off[-1]], parent_to_set=pts[:pts_off[-1]], pts_off=pts_off,
      tt_local=tt_local, tt_local_inf=tt_local_inf)
  for f in dataclasses.fields(res):
    getattr(res, f.name).flags.writeable = False
  return res
