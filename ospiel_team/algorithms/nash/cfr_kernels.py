"""The numba kernels of `cfr.BatchedTreeCFRSolver`.

One traversal, the regret updates with regret matching, and the JPS authors' exploration noise.

They work in float64 or float32 with the seed axis innermost ([.., B]) and do OpenSpiel's
floating-point operations in OpenSpiel's order (children summed left to right, the histories
of an infoset accumulated in depth-first order): no fused multiply-adds (fastmath=False), so
each seed equals `cfr.TreeCFRSolver` and OpenSpiel's `CFRSolver` bit for bit. They trust
their arguments: `cfr.BatchedTreeCFRSolver` checks and prepares them.
"""

import numba


@numba.njit(cache=True, boundscheck=False, inline="always")
def _counterfactual_reach(reach, node, p, q_own, num_b, before, after):
  """Fills `after` with the counterfactual reach of player p at `node`, per seed.

  after = (product of the players before p) * (product of those after, and chance) at
  `node`, each product left to right (OpenSpiel's order).
  """
  for b in range(num_b):
    after[b] = reach[p + 1, node, b]
  for q in range(p + 2, q_own):
    for b in range(num_b):
      after[b] *= reach[q, node, b]
  if p > 0:
    for b in range(num_b):
      before[b] = reach[0, node, b]
    for q in range(1, p):
      for b in range(num_b):
        before[b] *= reach[q, node, b]
    for b in range(num_b):
      after[b] = before[b] * after[b]


@numba.njit(cache=True, boundscheck=False)
def cfr_traverse(  # noqa: C901 (numba kernel: one compiled frame)
    num_p, parent, owner, dc, dc_flat, dec, lev_start, lev_end, cur, ep, reach, dpruned, npruned,
    val_players, rets, values, acc, before, after, players, val_of, e_off, e_node, e_child, e_flat,
    e_dec, weight, weight_after, cum_regret, cum_policy, stale):
  """One CFR traversal of the tree for every seed.

  One traversal: edge probabilities, reach of the `stale` owners (the others' columns still
  hold their reach: their policies have not changed), OpenSpiel's pruning, values bottom-up,
  then the regrets (added to `cum_regret`) and policy sums of `players` (see
  `cfr.BatchedTreeCFRSolver`). A policy sum adds (weight * reach) * policy, or (reach * policy) *
  weight if `weight_after` (OpenSpiel's CFR and DCFR orders). reach: [owners, nodes, seeds].
  """
  n_nodes, num_b = ep.shape
  q_own = num_p + 1
  for i in range(len(dc)):
    for b in range(num_b):
      ep[dc[i], b] = cur[dc_flat[i], b]
  # Reach of each stale owner, top-down: a child copies its parent's reach, times its edge
  # probability if it is the child's owner (one owner's reach is one contiguous block).
  for j in range(len(stale)):
    q = stale[j]
    r_q = reach[q]
    for n in range(1, r_q.shape[0]):
      p_n = parent[n]
      if owner[n] == q:
        for b in range(num_b):
          r_q[n, b] = r_q[p_n, b] * ep[n, b]
      else:
        for b in range(num_b):
          r_q[n, b] = r_q[p_n, b]
  any_pruned = False
  npruned[:, :] = False
  for d in range(len(dec)):
    for b in range(num_b):
      pr = True
      for q in range(num_p):
        if reach[q, dec[d], b] != 0.0:
          pr = False
      dpruned[d, b] = pr
      npruned[dec[d], b] = pr
      any_pruned = any_pruned or pr
  # Values bottom-up (one array per distinct payoff column), children summed left to right,
  # pruned decision nodes worth 0.
  for k in range(len(val_players)):
    v = values[k]
    ret = rets[val_players[k]]
    for n in range(n_nodes):
      for b in range(num_b):
        v[n, b] = ret[n]
    for lev in range(len(lev_start) - 1, -1, -1):
      cp = parent[lev_start[lev]]  # the parent whose children are being summed
      for n in range(lev_start[lev], lev_end[lev]):
        if any_pruned:
          for b in range(num_b):
            if npruned[n, b]:
              v[n, b] = 0.0
        if n == lev_start[lev] or parent[n] != cp:
          if n != lev_start[lev]:
            for b in range(num_b):
              v[cp, b] += acc[b]
          cp = parent[n]
          for b in range(num_b):
            acc[b] = ep[n, b] * v[n, b]
        else:
          for b in range(num_b):
            acc[b] += ep[n, b] * v[n, b]
      for b in range(num_b):
        v[cp, b] += acc[b]
    # (A pruned node is zeroed at its level, after its children's sums and before its parent
    # reads it; the root, reached with probability 1, is never pruned.)
  # Regrets and policy sums per legal decision edge, added in the edges' order (infoset,
  # depth-first order of the history, action).
  for ip in range(len(players)):
    p = players[ip]
    v = values[val_of[p]]
    for e in range(e_off[p], e_off[p + 1]):
      node, child, flat, dd = e_node[e], e_child[e], e_flat[e], e_dec[e]
      if e == e_off[p] or node != e_node[e - 1]:  # a history's edges are consecutive
        _counterfactual_reach(reach, node, p, q_own, num_b, before, after)
      for b in range(num_b):
        own = reach[p, node, b]
        if weight_after:
          pol = (own * cur[flat, b]) * weight
        else:
          pol = (weight * own) * cur[flat, b]
        reg = after[b] * (v[child, b] - v[node, b])
        if any_pruned and dpruned[dd, b]:
          reg = 0.0
          pol = 0.0
        cum_regret[flat, b] += reg
        cum_policy[flat, b] += pol


@numba.njit(cache=True, boundscheck=False)
def cfr_traverse_one(  # noqa: C901 (numba kernel: one compiled frame)
    num_p, parent, owner, dc, dc_flat, dec, lev_start, lev_end, cur, ep, reach, dpruned, npruned,
    val_players, rets, values, acc, before, after, players, val_of, e_off, e_node, e_child, e_flat,
    e_dec, weight, weight_after, cum_regret, cum_policy, stale):
  """`cfr_traverse` for one seed (B = 1): the same operations in the same order, on scalars.

  The seed loops and the per-seed buffers (acc, before, after: unused) go; a history's
  counterfactual reach, own reach and value are read once for its edges. Bit for bit the
  numbers of `cfr_traverse` (tests/algorithms/nash/test_cfr.py: OpenSpiel's, one seed).
  """
  q_own = num_p + 1
  for i in range(len(dc)):
    ep[dc[i], 0] = cur[dc_flat[i], 0]
  for j in range(len(stale)):
    r_q = reach[stale[j]]
    for n in range(1, r_q.shape[0]):
      r_q[n, 0] = r_q[parent[n], 0] * ep[n, 0] if owner[n] == stale[j] else r_q[parent[n], 0]
  any_pruned = False
  for d in range(len(dec)):
    pr = True
    for q in range(num_p):
      if reach[q, dec[d], 0] != 0.0:
        pr = False
        break
    dpruned[d, 0] = pr
    any_pruned = any_pruned or pr
  if any_pruned:  # (npruned is read only when a history is pruned)
    npruned[:, :] = False
    for d in range(len(dec)):
      npruned[dec[d], 0] = dpruned[d, 0]
  for k in range(len(val_players)):
    v, ret = values[k], rets[val_players[k]]
    for n in range(ep.shape[0]):
      v[n, 0] = ret[n]
    for lev in range(len(lev_start) - 1, -1, -1):
      cp, s = parent[lev_start[lev]], ep[0, 0]  # (typed as the arrays; set at the first n)
      for n in range(lev_start[lev], lev_end[lev]):
        if any_pruned and npruned[n, 0]:
          v[n, 0] = 0.0
        if n == lev_start[lev] or parent[n] != cp:
          if n != lev_start[lev]:
            v[cp, 0] += s
          cp, s = parent[n], ep[n, 0] * v[n, 0]
        else:
          s += ep[n, 0] * v[n, 0]
      v[cp, 0] += s
  for ip in range(len(players)):
    p = players[ip]
    v = values[val_of[p]]
    cf = own = vn = reach[0, 0, 0]  # (typed as the arrays: float32 stays float32)
    for e in range(e_off[p], e_off[p + 1]):
      node, flat = e_node[e], e_flat[e]
      if e == e_off[p] or node != e_node[e - 1]:  # as _counterfactual_reach, in its order
        cf = reach[p + 1, node, 0]
        for q in range(p + 2, q_own):
          cf *= reach[q, node, 0]
        if p > 0:
          b = reach[0, node, 0]
          for q in range(1, p):
            b *= reach[q, node, 0]
          cf = b * cf
        own, vn = reach[p, node, 0], v[node, 0]
      pol = (own * cur[flat, 0]) * weight if weight_after else (weight * own) * cur[flat, 0]
      reg = cf * (v[e_child[e], 0] - vn)
      if any_pruned and dpruned[e_dec[e], 0]:
        reg = pol = 0.0
      cum_regret[flat, 0] += reg
      cum_policy[flat, 0] += pol


# Regret update rules of `cfr_regret_matching` (see `cfr.BatchedTreeCFRSolver`'s `rule`).
RM, RM_PLUS, DISCOUNTED, PREDICTIVE = 0, 1, 2, 3


def rule_code(rule: str, rm_plus: bool) -> int:
  """The regret update of `cfr.BatchedTreeCFRSolver`'s `rule` (plain Python, not a kernel)."""
  if rule == "cfr":
    return RM_PLUS if rm_plus else RM
  return DISCOUNTED if rule == "dcfr" else PREDICTIVE


def discounts(rule: str, t: float, alpha: float, beta: float) -> tuple[float, float, float]:
  """(d_pos, d_neg, d_next) of `cfr_regret_matching` after iteration t (plain Python)."""
  d_pos = d_neg = d_next = 1.0
  if rule == "dcfr":  # OpenSpiel's DCFRSolver: t^a / (t^a + 1) of the summed regrets
    d_pos = t ** alpha / (t ** alpha + 1)
    d_neg = t ** beta / (t ** beta + 1)
  elif rule == "pdcfr+":  # R^{t-1} discounted by (t-1)^a / ((t-1)^a + 1), the prediction
    d_pos = (t - 1) ** alpha / ((t - 1) ** alpha + 1)  # by t^a / (t^a + 1)
    d_next = t ** alpha / (t ** alpha + 1)
  return d_pos, d_neg, d_next


def policy_weight(rule: str, t: float, linear: bool, gamma: float) -> float:
  """Iteration t's weight in the policy sums (plain Python): t or 1 (CFR), t^gamma (else)."""
  if rule == "cfr":
    return t if linear else 1.0
  return t ** gamma  # OpenSpiel's DCFR: reach * policy * t^gamma


@numba.njit(cache=True, boundscheck=False, error_model="numpy")
def cfr_regret_matching(  # noqa: C901 (numba kernel: one compiled frame)
    rule, rows, cum, inst, d_pos, d_neg, d_next, uniform, cur, positive, total):
  """Updates the regrets of the infosets `rows` by `rule`, then regret-matches them.

  The regret update of `rule` then regret matching, on the infosets `rows` and every seed:
  sums over actions left to right; rows with no positive regret get the uniform policy
  (cum, inst, cur: [infosets, actions, seeds]).

  RM: cum as it is; RM_PLUS: cum clipped at 0; DISCOUNTED: cum (which already holds this
  iteration's regrets) times d_pos where >= 0, d_neg where < 0; PREDICTIVE: cum =
  max(cum * d_pos + inst, 0) with inst this iteration's regrets, and the policy matches the
  prediction max(cum * d_next + inst, 0) (inst is used as its buffer, then zeroed).
  """
  num_a, num_b = cum.shape[1], cum.shape[2]
  for r in range(len(rows)):
    i = rows[r]
    src = cum
    if rule == RM_PLUS:
      for a in range(num_a):
        for b in range(num_b):
          if not cum[i, a, b] > 0.0:
            cum[i, a, b] = 0.0
    elif rule == DISCOUNTED:
      for a in range(num_a):
        for b in range(num_b):
          cum[i, a, b] *= d_pos if cum[i, a, b] >= 0.0 else d_neg
    elif rule == PREDICTIVE:
      src = inst
      for a in range(num_a):
        for b in range(num_b):
          x = cum[i, a, b] * d_pos + inst[i, a, b]
          cum[i, a, b] = x if x > 0.0 else 0.0
          inst[i, a, b] = cum[i, a, b] * d_next + inst[i, a, b]
    for b in range(num_b):
      total[b] = src[i, 0, b] if src[i, 0, b] > 0.0 else 0.0
    for a in range(1, num_a):
      for b in range(num_b):
        if src[i, a, b] > 0.0:
          total[b] += src[i, a, b]
    for b in range(num_b):
      positive[i, b] = total[b] > 0.0
    for a in range(num_a):
      for b in range(num_b):
        x = src[i, a, b] if src[i, a, b] > 0.0 else 0.0
        cur[i, a, b] = x / total[b] if total[b] > 0.0 else uniform[i, a]
        if rule == PREDICTIVE:
          inst[i, a, b] = 0.0


@numba.njit(cache=True, boundscheck=False)
def cfr_explore_gather(rows, bs, legal, cur, noise):
  """noise[r, a] = legal ? max(cur[rows[r], a, bs[r]] + noise[r, a], 0) : 0, in place."""
  for r in range(len(rows)):
    i, b = rows[r], bs[r]
    for a in range(noise.shape[1]):
      x = cur[i, a, b] + noise[r, a]
      noise[r, a] = (x if x >= 0.0 else 0.0) if legal[i, a] else 0.0


@numba.njit(cache=True, boundscheck=False, error_model="numpy")
def cfr_explore_scatter(rows, bs, noisy, tot, cur):
  """cur[rows[r], :, bs[r]] = noisy[r] / tot[r] where tot[r] > 0 (else unchanged)."""
  for r in range(len(rows)):
    if tot[r] > 0.0:
      i, b = rows[r], bs[r]
      for a in range(noisy.shape[1]):
        cur[i, a, b] = noisy[r, a] / tot[r]
