"""Vectorized CFR on the array game tree, step for step the same as OpenSpiel's `CFRSolver`.

`TreeCFRSolver` runs the counterfactual regret minimization of
`open_spiel.python.algorithms.cfr` (Zinkevich et al. 2007; regret matching, alternating or
simultaneous updates, optional linear averaging and regret matching+) on the flat arrays of a
`GameTree`, with numpy operations over whole depth levels instead of a recursive Python walk
over pyspiel states. It reproduces OpenSpiel's floating-point operations in the same order
(children summed left to right, histories of an information set accumulated in depth-first
order, OpenSpiel's pruning of histories that no player reaches), so its current and average
policies equal those of `cfr.CFRSolver` / `cfr.CFRPlusSolver` after any number of iterations
(tests/test_tree_cfr.py checks this on kuhn_poker, tiny_hanabi, comm and simple_bidding).

It exists so that the JPS experiments can run CFR1k on games whose Python CFR is too slow
(comm(length=7) has over two million histories).

A *seeded random initial policy* (as the JPS paper starts CFR) replaces OpenSpiel's uniform
initial `current_policy()`; `openspiel_cfr_solver` builds OpenSpiel's own solver with the same
start so the two can be compared.
"""

from __future__ import annotations

import ctypes
from typing import Optional

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr as os_cfr

from ospiel_team import native
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree


def random_policy_array(tree: GameTree, seed: int) -> np.ndarray:
  """A seeded random policy: at each infoset, uniform(0,1) weights on legal actions, normalized."""
  rng = np.random.default_rng(seed)
  w = rng.random((tree.num_infosets, tree.num_actions)) * tree.infoset_legal
  s = w.sum(axis=1, keepdims=True)
  if np.any(s <= 0):
    raise ValueError("an infoset has no legal action")
  return w / s


def sibling_rank(tree: GameTree) -> np.ndarray:
  """[num_nodes] position of each node among its parent's children (0 for the root)."""
  n = tree.num_nodes
  rank = np.zeros(n, dtype=np.int64)
  if n > 1:
    idx = np.arange(1, n)
    par = tree.node_parent[1:]
    start = np.ones(n - 1, dtype=bool)
    start[1:] = par[1:] != par[:-1]
    first = np.maximum.accumulate(np.where(start, idx, 0))
    rank[1:] = idx - first
  return rank


def preorder_index(tree: GameTree) -> np.ndarray:
  """[num_nodes] depth-first preorder position of each node (children in legal-action order)."""
  n = tree.num_nodes
  size = np.ones(n, dtype=np.int64)
  for s, e in reversed(tree.level_slices[1:]):
    size += np.bincount(tree.node_parent[s:e], weights=size[s:e], minlength=n).astype(np.int64)
  pre = np.zeros(n, dtype=np.int64)
  for s, e in tree.level_slices[1:]:
    par = tree.node_parent[s:e]
    cs = np.cumsum(size[s:e]) - size[s:e]  # exclusive cumsum over the level
    start = np.ones(e - s, dtype=bool)
    start[1:] = par[1:] != par[:-1]
    group_first = np.maximum.accumulate(np.where(start, np.arange(e - s), 0))
    pre[s:e] = pre[par] + 1 + cs - cs[group_first]
  return pre


class TreeCFRSolver:
  """OpenSpiel's CFR (`cfr._CFRSolver`) on a `GameTree`, vectorized over depth levels.

  Usage mirrors OpenSpiel: `evaluate_and_update_policy()` runs one iteration;
  `current_policy_array()` / `average_policy_array()` return policy arrays on the tree and
  `current_policy()` / `average_policy()` TabularPolicies.
  """

  def __init__(self, tree: GameTree, alternating_updates: bool = True,
               linear_averaging: bool = False, regret_matching_plus: bool = False,
               initial_policy: Optional[np.ndarray] = None):
    if tree.game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
      raise ValueError(f"CFR needs a sequential game, got {tree.game}")
    self.tree = tree
    self._alternating = alternating_updates
    self._linear = linear_averaging
    self._rm_plus = regret_matching_plus
    num_i, num_a = tree.num_infosets, tree.num_actions
    if initial_policy is None:
      self._current = tree.uniform_policy_array()
    else:
      initial_policy = np.asarray(initial_policy, dtype=np.float64)
      tree.validate_policy_array(initial_policy)
      self._current = np.where(tree.infoset_legal, initial_policy, 0.0)
    self._cum_regret = np.zeros((num_i, num_a))
    self._cum_policy = np.zeros((num_i, num_a))
    self._iteration = 0
    self._prepare()

  # ------------------------------------------------------------------------------------------
  def _prepare(self):
    """Index arrays reused by every iteration (policy-independent)."""
    tree = self.tree
    rank = sibling_rank(tree)
    # Bottom-up sums: for every level, the children grouped by sibling rank (left to right).
    # A level where every parent has the same number c of children is summed as a dense
    # [parents, c] matrix with a sequential cumulative sum (np.add.accumulate is left to right).
    self._rank_groups = []
    for s, e in tree.level_slices[1:]:
      r = rank[s:e]
      par = tree.node_parent[s:e]
      uniq, counts = np.unique(par, return_counts=True)
      if e > s and np.all(counts == counts[0]):
        self._rank_groups.append(((s, e), ("dense", uniq, int(counts[0]))))
        continue
      groups = []
      for k in range(int(r.max()) + 1 if e > s else 0):
        kids = s + np.nonzero(r == k)[0]
        groups.append((kids, tree.node_parent[kids]))
      self._rank_groups.append(((s, e), ("groups", groups)))
    dec = tree.decisions
    last = int(tree.node_depth[dec].max()) if len(dec) else 0
    self._reach_levels = []
    for d, (s, e) in enumerate(tree.level_slices[1:], start=1):
      if d > last:
        break
      owner = tree.node_owner[s:e]
      owned = [s + np.nonzero(owner == q)[0] for q in range(tree.num_players + 1)]
      self._reach_levels.append(((s, e), tree.node_parent[s:e], owned))
    self._reach_size = self._reach_levels[-1][0][1] if self._reach_levels else 1
    self._last_decision_level = int(tree.node_depth[dec].max()) if len(dec) else 0
    # Child of every decision node for every action (-1 if illegal).
    kids = tree.decision_children
    dec_row = np.full(tree.num_nodes, -1, dtype=np.int64)
    dec_row[dec] = np.arange(len(dec))
    child = np.full((len(dec), tree.num_actions), -1, dtype=np.int64)
    child[dec_row[tree.node_parent[kids]], tree.node_action[kids]] = kids
    self._child = child
    # Histories of each player, ordered by (infoset, depth-first order), split by rank within
    # their infoset so that accumulation is sequential in OpenSpiel's visiting order.
    pre = preorder_index(tree)
    self._player_rows = []
    for p in range(tree.num_players):
      rows = np.nonzero(tree.node_player[dec] == p)[0]
      inf = tree.node_infoset[dec[rows]]
      order = np.lexsort((pre[dec[rows]], inf))
      rows, inf = rows[order], inf[order]
      start = np.ones(len(rows), dtype=bool)
      start[1:] = inf[1:] != inf[:-1]
      first = np.maximum.accumulate(np.where(start, np.arange(len(rows)), 0))
      r_in = np.arange(len(rows)) - first
      # Positions (into `rows`) of the k-th history of every infoset, for k = 0, 1, ...
      groups = [np.nonzero(r_in == k)[0] for k in range(int(r_in.max()) + 1 if len(rows) else 0)]
      infs, counts = np.unique(inf, return_counts=True)
      dense = len(rows) > 0 and bool(np.all(counts == counts[0]))
      cols = np.nonzero(tree.infoset_legal[infs].any(axis=0))[0] if len(rows) else \
          np.zeros(0, dtype=np.int64)
      self._player_rows.append(dict(rows=rows, groups=groups, infs=infs, dense=dense,
                                    per_infoset=int(counts[0]) if len(rows) else 0, cols=cols,
                                    inf=inf, nodes=dec[rows],
                                    child=np.maximum(child[rows][:, cols], 0),
                                    legal=tree.infoset_legal[inf][:, cols],
                                    flat=inf[:, None] * tree.num_actions + cols[None, :]))
    self._returns = [np.ascontiguousarray(tree.node_returns[:, p])
                     for p in range(tree.num_players)]

  # ------------------------------------------------------------------------------------------
  def _traverse(self, player: Optional[int]):
    """One OpenSpiel tree traversal updating `player`'s regrets (all players if None)."""
    tree = self.tree
    num_p = tree.num_players
    pi = self._current
    ep = evaluation.edge_probabilities(tree, pi, validate=False)  # our own iterate
    # Reach of every player and chance, top-down (OpenSpiel's reach_probabilities vector),
    # one 1-D array per owner; non-owned edges multiply by 1 (exact), so they are skipped.
    reach = [np.ones(self._reach_size) for _ in range(num_p + 1)]
    for (s, e), par, owned in self._reach_levels:
      for q in range(num_p + 1):
        rq = reach[q]
        rq[s:e] = rq[par]
        idx = owned[q]
        if len(idx):
          rq[idx] *= ep[idx]
    dec = tree.decisions
    pruned = np.ones(len(dec), dtype=bool)  # OpenSpiel skips histories no player reaches
    for q in range(num_p):
      pruned &= reach[q][dec] == 0
    is_pruned = np.zeros(tree.num_nodes, dtype=bool)
    is_pruned[dec[pruned]] = True
    any_pruned = bool(pruned.any())
    players = list(range(num_p)) if player is None else [player]
    # Values bottom-up, children summed left to right; pruned decision nodes are worth 0.
    values = {}
    for p in players:
      v = self._returns[p].copy()
      for (s, e), how in reversed(self._rank_groups):
        if any_pruned:
          v[s + np.nonzero(is_pruned[s:e])[0]] = 0.0
        if how[0] == "dense":
          _, uniq, c = how
          prod = (ep[s:e] * v[s:e]).reshape(-1, c)
          v[uniq] += np.add.accumulate(prod, axis=1)[:, -1]
        else:
          for kids, parents in how[1]:
            v[parents] += ep[kids] * v[kids]
      if any_pruned:
        v[is_pruned] = 0.0
      values[p] = v
    for p in players:
      v = values[p]
      info = self._player_rows[p]
      rows, groups, cols = info["rows"], info["groups"], info["cols"]
      if not len(rows):
        continue
      nodes = info["nodes"]
      keep = ~pruned[rows]
      cf = np.ones(len(nodes))
      for q in range(p):
        cf = cf * reach[q][nodes]
      after = np.ones(len(nodes))
      for q in range(p + 1, num_p + 1):
        after = after * reach[q][nodes]
      cf = cf * after
      inf = info["inf"]
      # Only the columns of actions legal somewhere for this player.
      mask = info["legal"] & keep[:, None] if any_pruned else info["legal"]
      child_v = v[info["child"]]
      regret = np.where(mask, cf[:, None] * (child_v - v[nodes][:, None]), 0.0)
      own = reach[p][nodes]
      if self._linear:
        own = self._iteration * own
      pol = np.where(mask, own[:, None] * pi.ravel()[info["flat"]], 0.0)
      # Sequential accumulation over the histories of each infoset, in depth-first order.
      if info["dense"]:
        infs, m = info["infs"], info["per_infoset"]
        for cum, add in ((self._cum_regret, regret), (self._cum_policy, pol)):
          block = cum[np.ix_(infs, cols)]
          stack = np.concatenate([block[:, None, :], add.reshape(len(infs), m, len(cols))],
                                 axis=1)
          cum[np.ix_(infs, cols)] = np.add.accumulate(stack, axis=1)[:, -1]
      else:
        for gi in groups:
          idx = np.ix_(inf[gi], cols)
          self._cum_regret[idx] += regret[gi]
          self._cum_policy[idx] += pol[gi]

  def _update_current_policy(self):
    cum = self._cum_regret
    legal = self.tree.infoset_legal
    if self._rm_plus:
      np.maximum(cum, 0.0, out=cum)
    total = np.zeros(cum.shape[0])
    for a in range(cum.shape[1]):
      total = total + np.where(legal[:, a] & (cum[:, a] > 0), cum[:, a], 0.0)
    n_legal = legal.sum(axis=1)
    positive = total > 0
    rm = np.maximum(0.0, cum) / np.where(positive, total, 1.0)[:, None]
    uniform = 1.0 / n_legal[:, None]
    self._current = np.where(legal, np.where(positive[:, None], rm, uniform), 0.0)

  def evaluate_and_update_policy(self) -> None:
    """One CFR iteration (as `CFRSolver.evaluate_and_update_policy`)."""
    self._iteration += 1
    if self._alternating:
      for p in range(self.tree.num_players):
        self._traverse(p)
        self._update_current_policy()
    else:
      self._traverse(None)
      self._update_current_policy()

  @property
  def iteration(self) -> int:
    return self._iteration

  def current_policy_array(self) -> np.ndarray:
    """A copy of the current (last-iterate) policy array."""
    return self._current.copy()

  def average_policy_array(self) -> np.ndarray:
    """The (reach-weighted) average policy array; uniform where nothing was accumulated."""
    cum = self._cum_policy
    legal = self.tree.infoset_legal
    total = np.zeros(cum.shape[0])
    for a in range(cum.shape[1]):
      total = total + np.where(legal[:, a], cum[:, a], 0.0)
    zero = total == 0
    avg = cum / np.where(zero, 1.0, total)[:, None]
    uniform = 1.0 / legal.sum(axis=1)[:, None]
    return np.where(legal, np.where(zero[:, None], uniform, avg), 0.0)

  def current_policy(self) -> policy_lib.TabularPolicy:
    return self.tree.tabular_policy(self._current)

  def average_policy(self) -> policy_lib.TabularPolicy:
    return self.tree.tabular_policy(self.average_policy_array())


class TreeCFRPlusSolver(TreeCFRSolver):
  """CFR+ (regret matching+, alternating updates, linear averaging) as `cfr.CFRPlusSolver`."""

  def __init__(self, tree: GameTree, initial_policy: Optional[np.ndarray] = None):
    super().__init__(tree, alternating_updates=True, linear_averaging=True,
                     regret_matching_plus=True, initial_policy=initial_policy)


def openspiel_cfr_solver(game: pyspiel.Game, tree: GameTree,
                         initial_policy: Optional[np.ndarray] = None,
                         plus: bool = False) -> os_cfr._CFRSolver:
  """OpenSpiel's own `CFRSolver` (or `CFRPlusSolver`) started from `initial_policy` (a policy
  array on `tree`) instead of uniform: the reference that `TreeCFRSolver` must equal."""
  solver = os_cfr.CFRPlusSolver(game) if plus else os_cfr.CFRSolver(game)
  if initial_policy is not None:
    tree.validate_policy_array(initial_policy)
    cur = solver.current_policy()
    cur.action_probability_array[:] = tree.tabular_policy(
        initial_policy, template=cur).action_probability_array
  return solver


_C_SOURCE = r"""
#include <stdint.h>
#include <string.h>
typedef int64_t i64;

/* One traversal of BatchedTreeCFRSolver._traverse (float64, the seed axis innermost), the same
   floating-point operations in the same order as the numpy path. */
void cfr_traverse(i64 N, i64 R, i64 B, i64 num_p, i64 A,
                  const i64 *parent, const i64 *owner,
                  i64 n_dc, const i64 *dc, const i64 *dc_flat,
                  i64 n_dec, const i64 *dec,
                  i64 n_levels, const i64 *lev_start, const i64 *lev_end,
                  const double *cur, double *ep, double *reach,
                  uint8_t *dpruned, uint8_t *npruned,
                  i64 n_val, const double *const *rets, const i64 *val_of_player,
                  double *values, double *acc, double *before, double *after,
                  i64 n_players, const i64 *players, const i64 *e_count,
                  const i64 *const *e_node, const i64 *const *e_child,
                  const i64 *const *e_flat, const i64 *const *e_dec,
                  int linear, double iteration,
                  double *cum_regret, double *cum_policy) {
  const i64 Q = num_p + 1;
  (void)A;
  for (i64 i = 0; i < n_dc; i++)
    memcpy(ep + dc[i] * B, cur + dc_flat[i] * B, (size_t)B * sizeof(double));
  /* Reach of every owner, top-down: a child copies its parent's row and multiplies its
     owner's column by its edge probability. */
  for (i64 n = 1; n < R; n++) {
    const double *rp = reach + parent[n] * Q * B;
    double *rn = reach + n * Q * B;
    memcpy(rn, rp, (size_t)(Q * B) * sizeof(double));
    const i64 o = owner[n];
    const double *e = ep + n * B;
    for (i64 b = 0; b < B; b++) rn[o * B + b] = rp[o * B + b] * e[b];
  }
  int any_pruned = 0;
  memset(npruned, 0, (size_t)(N * B));
  for (i64 d = 0; d < n_dec; d++) {
    const double *rn = reach + dec[d] * Q * B;
    for (i64 b = 0; b < B; b++) {
      int pr = 1;
      for (i64 q = 0; q < num_p; q++) pr &= (rn[q * B + b] == 0.0);
      dpruned[d * B + b] = (uint8_t)pr;
      npruned[dec[d] * B + b] = (uint8_t)pr;
      any_pruned |= pr;
    }
  }
  /* Values bottom-up (one array per distinct payoff column), children summed left to right,
     pruned decision nodes worth 0. */
  for (i64 k = 0; k < n_val; k++) {
    double *v = values + k * N * B;
    const double *ret = rets[k];
    for (i64 n = 0; n < N; n++)
      for (i64 b = 0; b < B; b++) v[n * B + b] = ret[n];
    for (i64 L = n_levels - 1; L >= 0; L--) {
      i64 cp = -1;
      for (i64 n = lev_start[L]; n < lev_end[L]; n++) {
        double *vn = v + n * B;
        const double *en = ep + n * B;
        if (any_pruned)
          for (i64 b = 0; b < B; b++)
            if (npruned[n * B + b]) vn[b] = 0.0;
        if (parent[n] != cp) {
          if (cp >= 0)
            for (i64 b = 0; b < B; b++) v[cp * B + b] += acc[b];
          cp = parent[n];
          for (i64 b = 0; b < B; b++) acc[b] = en[b] * vn[b];
        } else {
          for (i64 b = 0; b < B; b++) acc[b] += en[b] * vn[b];
        }
      }
      if (cp >= 0)
        for (i64 b = 0; b < B; b++) v[cp * B + b] += acc[b];
    }
    if (any_pruned)
      for (i64 n = 0; n < N * B; n++)
        if (npruned[n]) v[n] = 0.0;
  }
  /* Regrets and policy sums per legal decision edge, added in the edges' order (infoset,
     action, depth-first order of the history). */
  for (i64 ip = 0; ip < n_players; ip++) {
    const i64 p = players[ip];
    const double *v = values + val_of_player[p] * N * B;
    const i64 *en = e_node[p], *ec = e_child[p], *ef = e_flat[p], *ed = e_dec[p];
    for (i64 e = 0; e < e_count[p]; e++) {
      const double *rn = reach + en[e] * Q * B;
      const double *vc = v + ec[e] * B, *vh = v + en[e] * B, *pi = cur + ef[e] * B;
      double *cr = cum_regret + ef[e] * B, *cs = cum_policy + ef[e] * B;
      const uint8_t *pr = dpruned + ed[e] * B;
      /* cf = (product of the players before p) * (product of those after, and chance),
         each product left to right. */
      for (i64 b = 0; b < B; b++) after[b] = rn[(p + 1) * B + b];
      for (i64 q = p + 2; q < Q; q++)
        for (i64 b = 0; b < B; b++) after[b] *= rn[q * B + b];
      if (p > 0) {
        for (i64 b = 0; b < B; b++) before[b] = rn[b];
        for (i64 q = 1; q < p; q++)
          for (i64 b = 0; b < B; b++) before[b] *= rn[q * B + b];
        for (i64 b = 0; b < B; b++) after[b] = before[b] * after[b];
      }
      for (i64 b = 0; b < B; b++) {
        double own = rn[p * B + b];
        if (linear) own = iteration * own;
        double reg = after[b] * (vc[b] - vh[b]);
        double pol = own * pi[b];
        if (any_pruned && pr[b]) { reg = 0.0; pol = 0.0; }
        cr[b] += reg;
        cs[b] += pol;
      }
    }
  }
}

/* Regret matching (BatchedTreeCFRSolver._update_current_policy without the exploration):
   sums over actions left to right; rows with no positive regret get the uniform policy. */
void cfr_regret_matching(i64 I, i64 A, i64 B, int rm_plus, double *cum, const double *uniform,
                         double *cur, uint8_t *positive, double *total) {
  for (i64 i = 0; i < I; i++) {
    double *c = cum + i * A * B;
    double *o = cur + i * A * B;
    if (rm_plus)
      for (i64 k = 0; k < A * B; k++) c[k] = c[k] > 0.0 ? c[k] : 0.0;
    for (i64 b = 0; b < B; b++) total[b] = c[b] > 0.0 ? c[b] : 0.0;
    for (i64 a = 1; a < A; a++)
      for (i64 b = 0; b < B; b++) total[b] += c[a * B + b] > 0.0 ? c[a * B + b] : 0.0;
    for (i64 b = 0; b < B; b++) positive[i * B + b] = total[b] > 0.0;
    for (i64 a = 0; a < A; a++)
      for (i64 b = 0; b < B; b++) {
        const double x = c[a * B + b] > 0.0 ? c[a * B + b] : 0.0;
        o[a * B + b] = total[b] > 0.0 ? x / total[b] : uniform[i * A + a];
      }
  }
}

/* The exploration noise on the R rows (rows[r], seed bs[r]) without positive regret, in two
   halves around numpy's row sums (kept in numpy: its pairwise summation is numpy's own):
   noisy[r, a] = legal ? max(cur + noise, 0) : 0, in place of noise. */
void cfr_explore_gather(i64 R, i64 A, i64 B, const i64 *rows, const i64 *bs,
                        const uint8_t *legal, const double *cur, double *noise) {
  for (i64 r = 0; r < R; r++) {
    const i64 i = rows[r], b = bs[r];
    for (i64 a = 0; a < A; a++) {
      const double x = cur[(i * A + a) * B + b] + noise[r * A + a];
      noise[r * A + a] = legal[i * A + a] ? (x >= 0.0 ? x : 0.0) : 0.0;
    }
  }
}

/* cur[rows[r], :, bs[r]] = noisy / tot where tot > 0 (else unchanged). */
void cfr_explore_scatter(i64 R, i64 A, i64 B, const i64 *rows, const i64 *bs,
                         const double *noisy, const double *tot, double *cur) {
  for (i64 r = 0; r < R; r++) {
    if (!(tot[r] > 0.0)) continue;
    const i64 i = rows[r], b = bs[r];
    for (i64 a = 0; a < A; a++) cur[(i * A + a) * B + b] = noisy[r * A + a] / tot[r];
  }
}
"""


def _c_kernels() -> Optional[ctypes.CDLL]:
  """The batched CFR kernels (compiled on first use; None without a C compiler).

  Compiled with -ffp-contract=off: no fused multiply-adds, so that every operation rounds as
  numpy's does and the C path stays bit-equal to the numpy path."""
  return native.compile_c("tree_cfr", _C_SOURCE, flags=("-O3", "-ffp-contract=off"))


class BatchedTreeCFRSolver(TreeCFRSolver):
  """`TreeCFRSolver` over a batch of seeds at once (a seed axis over the same tree arrays).

  Every seed b runs exactly the iterations `TreeCFRSolver` runs from `initial_policies[b]`
  (the same floating-point operations in the same order; tests/test_tree_cfr.py checks the
  batch equal, seed by seed, to unbatched solvers). Internally the seed axis is the last one
  ([num_nodes, B], [num_infosets, num_actions, B]) so that the gathers along the tree read
  contiguous rows; the public arrays have it first ([B, num_infosets, num_actions]).

  `exploration` > 0 adds the JPS authors' exploration to regret matching (their
  `simple_game/cfr_opt.h`, `InfoSet::computeStrategy`, facebookresearch/jps): at an infoset
  with no positive cumulative regret, the uniform policy plus Gaussian noise of standard
  deviation `exploration` on every legal action, clipped at 0 and renormalized (uniform if
  every entry was clipped), drawn from the seed's own generator (`noise_seeds[b]`).
  The authors use 0.01; 0 (the default) is OpenSpiel's regret matching.

  Args:
    tree: the game tree.
    initial_policies: [B, num_infosets, num_actions] initial (current) policies, one per seed.
    alternating_updates, linear_averaging, regret_matching_plus: as `TreeCFRSolver`.
    exploration: standard deviation of the exploration noise (0: none).
    noise_seeds: one int per seed for the exploration noise (required if exploration > 0).
    dtype: float64 (default; equal seed by seed to `TreeCFRSolver` and OpenSpiel) or float32
      (the authors' arithmetic, `float` in their `cfr_opt.h`; faster, not bit-equal: its
      policies agree with float64's to about 1e-4 after 1000 iterations, and a purified
      policy may differ where two actions are nearly tied).
    backend: "auto" (default: the C kernels for float64 when a C compiler is available, else
      numpy), "c" (an error if the kernels cannot be compiled or dtype is float32) or "numpy"
      (the reference: tests/test_tree_cfr.py checks the two bit-equal). The exploration
      noise is drawn by numpy's generators on both paths.
  """

  def __init__(self, tree: GameTree, initial_policies: np.ndarray,
               alternating_updates: bool = True, linear_averaging: bool = False,
               regret_matching_plus: bool = False, exploration: float = 0.0,
               noise_seeds: Optional[np.ndarray] = None, dtype=np.float64,
               backend: str = "auto"):
    init = np.asarray(initial_policies, dtype=np.float64)
    if init.ndim != 3 or init.shape[1:] != (tree.num_infosets, tree.num_actions):
      raise ValueError(f"initial_policies must have shape [B, {tree.num_infosets}, "
                       f"{tree.num_actions}], got {init.shape}")
    if init.shape[0] < 1:
      raise ValueError("initial_policies holds no seed (B = 0)")
    for b in range(init.shape[0]):
      tree.validate_policy_array(init[b])
    if not np.isfinite(exploration) or exploration < 0:
      raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
    if np.dtype(dtype) not in (np.dtype(np.float64), np.dtype(np.float32)):
      raise ValueError(f"dtype must be float64 or float32, got {dtype!r}")
    self._dtype = np.dtype(dtype)
    if backend not in ("auto", "c", "numpy"):
      raise ValueError(f"backend must be 'auto', 'c' or 'numpy', got {backend!r}")
    self._lib = None
    if backend != "numpy" and self._dtype == np.dtype(np.float64):
      self._lib = _c_kernels()
    if backend == "c" and self._lib is None:
      raise ValueError("backend='c' needs dtype float64 and a C compiler "
                       f"(dtype {self._dtype}, compiler {'missing' if self._dtype == np.float64 else 'not tried'})")
    super().__init__(tree, alternating_updates=alternating_updates,
                     linear_averaging=linear_averaging, regret_matching_plus=regret_matching_plus)
    self.batch_size = int(init.shape[0])
    B = self.batch_size
    legal = tree.infoset_legal[:, :, None]
    self._current = np.ascontiguousarray(
        np.where(legal, np.moveaxis(init, 0, -1), 0.0), dtype=self._dtype)
    self._cum_regret = np.zeros((tree.num_infosets, tree.num_actions, B), dtype=self._dtype)
    self._cum_policy = np.zeros((tree.num_infosets, tree.num_actions, B), dtype=self._dtype)
    self._exploration = float(exploration)
    if self._exploration > 0:
      if noise_seeds is None or len(noise_seeds) != B:
        raise ValueError(f"exploration > 0 needs one noise seed per batch entry ({B}), got "
                         f"{None if noise_seeds is None else len(noise_seeds)}")
      self._rngs = [np.random.default_rng(int(s)) for s in noise_seeds]
    else:
      self._rngs = None
    self._prepare_batched()
    if self._lib is not None:
      self._prepare_c()

  @property
  def backend(self) -> str:
    """"c" or "numpy": the path this solver runs."""
    return "numpy" if self._lib is None else "c"

  def _prepare_c(self):
    """Index arrays and buffers of the C kernels (int64 / float64, C-contiguous)."""
    tree, B = self.tree, self.batch_size
    num_p = tree.num_players
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)
    ptr = lambda a: ctypes.c_void_p(a.ctypes.data)
    levels = [(s, e) for s, e in tree.level_slices[1:] if e > s]
    c = dict(parent=i64(tree.node_parent), owner=i64(tree.node_owner),
             dc=i64(tree.decision_children), dc_flat=i64(tree.decision_children_flat),
             dec=i64(tree.decisions), lev_start=i64([s for s, _ in levels]),
             lev_end=i64([e for _, e in levels]))
    c["dpruned"] = np.zeros((len(tree.decisions), B), dtype=np.uint8)
    c["npruned"] = np.zeros((tree.num_nodes, B), dtype=np.uint8)
    c["acc"] = np.zeros(B)
    c["before"] = np.zeros(B)
    c["after"] = np.zeros(B)
    c["legal"] = np.ascontiguousarray(tree.infoset_legal, dtype=np.uint8)
    c["rets"] = [np.ascontiguousarray(self._returns[p], dtype=np.float64) for p in range(num_p)]
    c["values"] = np.zeros((1 if self._common_values else num_p, tree.num_nodes, B))
    edges = []
    for p in range(num_p):
      ed = self._b_edges[p]
      info = self._player_rows[p]
      if ed is None:
        edges.append([np.zeros(0, dtype=np.int64)] * 4)
        continue
      edges.append([i64(info["nodes"][ed["row"]]), i64(ed["child"]), i64(ed["flat"]),
                    i64(info["rows"][ed["row"]])])
    c["edges"] = edges
    c["e_count"] = i64([len(e[0]) for e in edges])
    for k in range(4):
      c[f"e_ptr{k}"] = (ctypes.c_void_p * num_p)(*[ptr(e[k]) for e in edges])
    c["uniform"] = np.ascontiguousarray(self._uniform[:, :, 0], dtype=np.float64)
    c["positive"] = np.zeros((tree.num_infosets, B), dtype=np.uint8)
    c["total"] = np.zeros(B)
    self._current = np.ascontiguousarray(self._current)
    self._c = c

  def _c_traverse(self, player: Optional[int]):
    """`_traverse` by the C kernel (bit-equal to the numpy path)."""
    tree, B, c = self.tree, self.batch_size, self._c
    num_p = tree.num_players
    ptr = lambda a: ctypes.c_void_p(a.ctypes.data)
    players = list(range(num_p)) if player is None else [player]
    if self._common_values:
      val_players, val_of = [0], [0] * num_p
    else:
      val_players, val_of = players, [players.index(p) if p in players else 0
                                      for p in range(num_p)]
    rets = (ctypes.c_void_p * len(val_players))(*[ptr(c["rets"][p]) for p in val_players])
    val_of = np.asarray(val_of, dtype=np.int64)
    players_arr = np.asarray(players, dtype=np.int64)
    L = ctypes.c_int64
    self._lib.cfr_traverse(
        L(tree.num_nodes), L(self._reach_size), L(B), L(num_p), L(tree.num_actions),
        ptr(c["parent"]), ptr(c["owner"]), L(len(c["dc"])), ptr(c["dc"]), ptr(c["dc_flat"]),
        L(len(c["dec"])), ptr(c["dec"]), L(len(c["lev_start"])), ptr(c["lev_start"]),
        ptr(c["lev_end"]), ptr(self._current), ptr(self._ep), ptr(self._reach),
        ptr(c["dpruned"]), ptr(c["npruned"]), L(len(val_players)), rets, ptr(val_of),
        ptr(c["values"]), ptr(c["acc"]), ptr(c["before"]), ptr(c["after"]), L(len(players)), ptr(players_arr), ptr(c["e_count"]),
        c["e_ptr0"], c["e_ptr1"], c["e_ptr2"], c["e_ptr3"], ctypes.c_int(int(self._linear)),
        ctypes.c_double(float(self._iteration)), ptr(self._cum_regret), ptr(self._cum_policy))

  def _prepare_batched(self):
    """Preallocated [.., B] buffers and per-level index arrays of the batched traversal."""
    tree, B, dt = self.tree, self.batch_size, self._dtype
    num_p = tree.num_players
    # Reach of every owner (players, then chance) in one [nodes, num_p + 1, B] array, so that a
    # level is one gather of its parents' rows and one multiply at the owner's column.
    self._reach = np.ones((self._reach_size, num_p + 1, B), dtype=dt)
    self._b_reach = []
    for (s, e), par, _ in self._reach_levels:
      owner = tree.node_owner[s:e]
      if np.any((owner < 0) | (owner > num_p)):
        raise ValueError(f"node owners out of range at nodes {s}..{e}")
      self._b_reach.append((s, e, par, np.arange(e - s), owner))
    # Chance probabilities stay; the decision edges are overwritten every traversal.
    self._ep = np.repeat(np.asarray(tree.node_chance_prob, dtype=dt)[:, None], B, axis=1)
    # Bottom-up sums: a level whose parents do not all have the same number of children is
    # gathered into a [parents, max children, B] block padded with a zero row (x + 0 == x).
    self._b_values = []
    for (s, e), how in self._rank_groups:
      if how[0] == "dense":
        _, uniq, c = how
        self._b_values.append((s, e, uniq, c, None))
        continue
      if e == s:
        continue
      par = tree.node_parent[s:e]
      uniq, first, counts = np.unique(par, return_index=True, return_counts=True)
      cmax = int(counts.max())
      idx = np.full((len(uniq), cmax), e - s, dtype=np.int64)
      grp = np.repeat(np.arange(len(uniq)), counts)
      idx[grp, np.arange(e - s) - first[grp]] = np.arange(e - s)
      self._b_values.append((s, e, uniq, cmax, idx))
    ret = tree.node_returns
    # Common payoff: every player's values are the same numbers, computed once.
    legal = tree.infoset_legal
    self._uniform = (legal / legal.sum(axis=1, keepdims=True))[:, :, None].astype(dt)
    self._common_values = num_p > 1 and all(
        np.array_equal(ret[:, 0], ret[:, p]) for p in range(1, num_p))
    self._b_returns = [np.repeat(np.asarray(self._returns[p], dtype=dt)[:, None], B, axis=1)
                       for p in range(num_p)]
    # Regrets and policy sums per decision edge (legal actions only), the edges of each player
    # sorted by (infoset, action, depth-first order of the history): the k-th column of a
    # [pairs, m] block is every pair's k-th history, added in OpenSpiel's visiting order.
    pre = preorder_index(tree)
    self._b_edges = []
    for p in range(num_p):
      info = self._player_rows[p]
      nodes = info["nodes"]
      if not len(nodes):
        self._b_edges.append(None)
        continue
      r_idx, c_idx = np.nonzero(info["legal"])
      e_row = r_idx
      e_child = info["child"][r_idx, c_idx]
      e_flat = info["flat"][r_idx, c_idx]
      order = np.lexsort((pre[nodes[e_row]], e_flat))
      e_row, e_child, e_flat = e_row[order], e_child[order], e_flat[order]
      flats, first, counts = np.unique(e_flat, return_index=True, return_counts=True)
      if np.all(counts == counts[0]):
        layout = ("dense", int(counts[0]))
      else:
        r_in = np.arange(len(e_flat)) - np.repeat(first, counts)
        layout = ("groups", [np.nonzero(r_in == k)[0] for k in range(int(r_in.max()) + 1)])
      self._b_edges.append(dict(row=e_row, child=e_child, flat=e_flat, flats=flats,
                                layout=layout))

  def _values(self, p: int, ep: np.ndarray, is_pruned: Optional[np.ndarray]) -> np.ndarray:
    """[num_nodes, B] values of player p, children summed left to right (pruned nodes 0)."""
    B = self.batch_size
    v = self._b_returns[p].copy()
    for s, e, uniq, c, idx in reversed(self._b_values):
      if is_pruned is not None:
        v[s:e][is_pruned[s:e]] = 0.0
      prod = ep[s:e] * v[s:e]
      if idx is None:
        g = prod.reshape(-1, c, B)
      else:
        g = np.concatenate([prod, np.zeros((1, B), dtype=prod.dtype)])[idx]
      acc = g[:, 0].copy()
      for j in range(1, c):
        acc += g[:, j]
      v[uniq] += acc
    if is_pruned is not None:
      v[is_pruned] = 0.0
    return v

  def _traverse(self, player: Optional[int]):
    """`TreeCFRSolver._traverse` with a trailing seed axis on every per-node array (the same
    floating-point operations in the same order, vectorized differently)."""
    if self._lib is not None:
      return self._c_traverse(player)
    tree = self.tree
    num_p = tree.num_players
    B = self.batch_size
    flat_pi = self._current.reshape(-1, B)
    ep = self._ep
    ep[tree.decision_children] = flat_pi[tree.decision_children_flat]
    reach = self._reach
    for s, e, par, loc, owner in self._b_reach:
      blk = reach[par]
      blk[loc, owner] *= ep[s:e]
      reach[s:e] = blk
    dec = tree.decisions
    pruned = (reach[dec, :num_p] == 0).all(axis=1)  # [decisions, B]
    is_pruned = None
    if pruned.any():
      is_pruned = np.zeros((tree.num_nodes, B), dtype=bool)
      is_pruned[dec] = pruned
    players = list(range(num_p)) if player is None else [player]
    values = {}
    for p in players:
      if self._common_values and values:
        values[p] = next(iter(values.values()))
      else:
        values[p] = self._values(p, ep, is_pruned)
    for p in players:
      v = values[p]
      info = self._player_rows[p]
      rows = info["rows"]
      if not len(rows):
        continue
      nodes = info["nodes"]
      rn = reach[nodes]  # [rows, num_p + 1, B]
      cf = None  # (product of the players before p) * (product of those after, and chance)
      for q in range(p):
        cf = rn[:, q] if cf is None else cf * rn[:, q]
      after = None
      for q in range(p + 1, num_p + 1):
        after = rn[:, q] if after is None else after * rn[:, q]
      cf = after if cf is None else cf * after
      own = rn[:, p]
      if self._linear:
        own = self._iteration * own
      edges = self._b_edges[p]
      er = edges["row"]
      regret = cf[er] * (v[edges["child"]] - v[nodes][er])
      pol = own[er] * flat_pi[edges["flat"]]
      if is_pruned is not None:
        keep = ~pruned[rows][er]
        regret = np.where(keep, regret, 0.0)
        pol = np.where(keep, pol, 0.0)
      flats = edges["flats"]
      layout = edges["layout"]
      for cum, add in ((self._cum_regret, regret), (self._cum_policy, pol)):
        cum_flat = cum.reshape(-1, B)
        if layout[0] == "dense":
          m = layout[1]
          acc = cum_flat[flats]
          add = add.reshape(len(flats), m, B)
          for j in range(m):  # sequential: (((cum + h0) + h1) + ...), as OpenSpiel
            acc += add[:, j]
          cum_flat[flats] = acc
        else:
          for gi in layout[1]:
            cum_flat[edges["flat"][gi]] += add[gi]

  def _update_current_policy(self):
    cum = self._cum_regret  # illegal actions never receive regret: they stay 0
    if self._lib is not None:
      c = self._c
      ptr = lambda a: ctypes.c_void_p(a.ctypes.data)
      L = ctypes.c_int64
      self._lib.cfr_regret_matching(
          L(cum.shape[0]), L(cum.shape[1]), L(self.batch_size), ctypes.c_int(int(self._rm_plus)),
          ptr(cum), ptr(c["uniform"]), ptr(self._current), ptr(c["positive"]), ptr(c["total"]))
      if self._rngs is not None:
        self._explore(self._current, c["positive"].view(bool))
      return
    if self._rm_plus:
      np.maximum(cum, 0.0, out=cum)
    pos = np.maximum(cum, 0.0)
    total = pos[:, 0].copy()
    for a in range(1, cum.shape[1]):  # sequential, as OpenSpiel's sum
      total += pos[:, a]
    positive = total > 0
    np.divide(pos, np.where(positive, total, 1.0)[:, None, :], out=pos)
    cur = pos if positive.all() else np.where(positive[:, None, :], pos, self._uniform)
    if self._rngs is not None:
      self._explore(cur, positive)
    self._current = cur

  def _explore(self, cur: np.ndarray, positive: np.ndarray):
    """The authors' exploration noise, in place, on the rows (per seed) without positive regret.

    Each seed draws its rows' noise from its own generator, in row order, as one
    [rows, num_actions] block (the draws are the only per-seed work); the rest is computed on
    the rows of every seed at once (element-wise and per row, so each seed's numbers are those
    it would get alone: tests/test_tree_cfr.py checks a batch against single seeds)."""
    bs, rows = np.nonzero(~positive.T)  # ordered by seed, then row
    if not len(rows):
      return
    counts = np.bincount(bs, minlength=self.batch_size)
    num_a = cur.shape[1]
    noise = np.concatenate([rng.normal(0.0, self._exploration, size=(n, num_a))
                            for rng, n in zip(self._rngs, counts) if n])
    if self._lib is not None:
      ptr = lambda a: ctypes.c_void_p(a.ctypes.data)
      L = ctypes.c_int64
      rows, bs = np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(bs, dtype=np.int64)
      args = (L(len(rows)), L(num_a), L(self.batch_size), ptr(rows), ptr(bs))
      self._lib.cfr_explore_gather(*args, ptr(self._c["legal"]), ptr(cur), ptr(noise))
      tot = np.ascontiguousarray(noise.sum(axis=1))
      self._lib.cfr_explore_scatter(*args, ptr(noise), ptr(tot), ptr(cur))
      return
    base = cur[rows, :, bs]  # [rows of every seed, num_actions]
    noisy = np.where(self.tree.infoset_legal[rows], np.maximum(base + noise, 0.0), 0.0)
    tot = noisy.sum(axis=1, keepdims=True)
    cur[rows, :, bs] = np.where(tot > 0, noisy / np.where(tot > 0, tot, 1.0), base)

  def current_policy_array(self) -> np.ndarray:
    """[B, num_infosets, num_actions] current (last-iterate) policies."""
    return np.ascontiguousarray(np.moveaxis(self._current, -1, 0))

  def average_policy_array(self) -> np.ndarray:
    """[B, num_infosets, num_actions] average policies (uniform where nothing accumulated)."""
    cum = self._cum_policy
    legal = self.tree.infoset_legal[:, :, None]
    total = np.zeros((cum.shape[0], cum.shape[2]))
    for a in range(cum.shape[1]):
      total = total + np.where(legal[:, a], cum[:, a], 0.0)
    zero = total == 0
    avg = cum / np.where(zero, 1.0, total)[:, None, :]
    uniform = 1.0 / legal.sum(axis=1)[:, None, :]
    out = np.where(legal, np.where(zero[:, None, :], uniform, avg), 0.0)
    return np.ascontiguousarray(np.moveaxis(out, -1, 0))

  def current_policy(self):
    raise NotImplementedError("a batch has one policy per seed: use current_policy_array()")

  def average_policy(self):
    raise NotImplementedError("a batch has one policy per seed: use average_policy_array()")
