"""CFR on the array game tree, step for step the same as OpenSpiel's `CFRSolver`.

`BatchedTreeCFRSolver` (a batch of seeds) and `TreeCFRSolver` (one seed) run the
counterfactual regret minimization of `open_spiel.python.algorithms.cfr` (Zinkevich, Johanson,
Bowling & Piccione, "Regret Minimization in Games with Incomplete Information", NIPS 2007;
regret matching, alternating or simultaneous updates, optional linear averaging and regret
matching+) on the flat arrays of a `GameTree`, in numba kernels over the node arrays instead
of a recursive Python walk over pyspiel states. They reproduce OpenSpiel's floating-point
operations in the same order (children summed left to right, histories of an information set
accumulated in depth-first order, OpenSpiel's pruning of histories that no player reaches), so
their current and average policies equal those of `cfr.CFRSolver` / `cfr.CFRPlusSolver` after
any number of iterations (tests/algorithms/nash/test_cfr.py checks this on kuhn_poker,
tiny_hanabi, comm, simple_bidding, mini_bridge and leduc_poker).

It exists so that the JPS experiments can run CFR1k on games whose Python CFR is too slow
(comm(length=7) has over two million histories).

The same traversal runs three newer regret and average updates (`rule`): Discounted CFR
(`TreeDCFRSolver`, equal to OpenSpiel's Python `discounted_cfr.DCFRSolver`), predictive CFR+
(`TreePCFRPlusSolver`) and predictive discounted CFR+ (`TreePDCFRPlusSolver`); their classes
cite the papers.

A *seeded random initial policy* (as the JPS paper starts CFR) replaces OpenSpiel's uniform
initial `current_policy()`; `openspiel_cfr_solver` builds OpenSpiel's own solver with the same
start so the two can be compared.
"""

from __future__ import annotations

import numba
import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr as os_cfr

from ospiel_team.tree import traversal
from ospiel_team.tree.game_tree import GameTree


def random_policy_array(tree: GameTree, seed: int) -> np.ndarray:
  """A seeded random policy: at each infoset, uniform(0,1) weights on legal actions, normalized."""
  rng = np.random.default_rng(seed)
  w = rng.random((tree.num_infosets, tree.num_actions)) * tree.infoset_legal
  s = w.sum(axis=1, keepdims=True)
  if np.any(s <= 0):
    raise ValueError("an infoset has no legal action")
  return w / s


def openspiel_cfr_solver(game: pyspiel.Game, tree: GameTree,
                         initial_policy: np.ndarray | None = None,
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


# ----------------------------------------------------------------------------------------------
# numba kernels of BatchedTreeCFRSolver (float64 or float32, the seed axis innermost). They do
# OpenSpiel's floating-point operations in OpenSpiel's order (children summed left to right, the
# histories of an infoset accumulated in depth-first order): no fused multiply-adds
# (fastmath=False), so each seed equals TreeCFRSolver and OpenSpiel's CFRSolver bit for bit.
@numba.njit(cache=True, boundscheck=False, inline="always")
def _counterfactual_reach(reach, node, p, q_own, num_b, before, after):
  """after = (product of the players before p) * (product of those after, and chance) at
  `node`, each product left to right (OpenSpiel's order)."""
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
def _cfr_traverse(num_p, parent, owner, dc, dc_flat, dec, lev_start, lev_end, cur, ep, reach,
                  dpruned, npruned, val_players, rets, values, acc, before, after, players,
                  val_of, e_off, e_node, e_child, e_flat, e_dec, weight, weight_after, cum_regret,
                  cum_policy, stale):
  """One traversal: edge probabilities, reach of the `stale` owners (the others' columns still
  hold their reach: their policies have not changed), OpenSpiel's pruning, values bottom-up,
  then the regrets (added to `cum_regret`) and policy sums of `players` (see
  BatchedTreeCFRSolver). A policy sum adds (weight * reach) * policy, or (reach * policy) *
  weight if `weight_after` (OpenSpiel's CFR and DCFR orders). reach: [owners, nodes, seeds]."""
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


# Regret update rules of `_cfr_regret_matching` (see BatchedTreeCFRSolver's `rule`).
_RM, _RM_PLUS, _DISCOUNTED, _PREDICTIVE = 0, 1, 2, 3


@numba.njit(cache=True, boundscheck=False, error_model="numpy")
def _cfr_regret_matching(rule, rows, cum, inst, d_pos, d_neg, d_next, uniform, cur, positive,
                         total):
  """The regret update of `rule` then regret matching, on the infosets `rows` and every seed:
  sums over actions left to right; rows with no positive regret get the uniform policy
  (cum, inst, cur: [infosets, actions, seeds]).

  _RM: cum as it is; _RM_PLUS: cum clipped at 0; _DISCOUNTED: cum (which already holds this
  iteration's regrets) times d_pos where >= 0, d_neg where < 0; _PREDICTIVE: cum =
  max(cum * d_pos + inst, 0) with inst this iteration's regrets, and the policy matches the
  prediction max(cum * d_next + inst, 0) (inst is used as its buffer, then zeroed)."""
  num_a, num_b = cum.shape[1], cum.shape[2]
  for r in range(len(rows)):
    i = rows[r]
    src = cum
    if rule == _RM_PLUS:
      for a in range(num_a):
        for b in range(num_b):
          if not cum[i, a, b] > 0.0:
            cum[i, a, b] = 0.0
    elif rule == _DISCOUNTED:
      for a in range(num_a):
        for b in range(num_b):
          cum[i, a, b] *= d_pos if cum[i, a, b] >= 0.0 else d_neg
    elif rule == _PREDICTIVE:
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
        if rule == _PREDICTIVE:
          inst[i, a, b] = 0.0


@numba.njit(cache=True, boundscheck=False)
def _cfr_explore_gather(rows, bs, legal, cur, noise):
  """noise[r, a] = legal ? max(cur[rows[r], a, bs[r]] + noise[r, a], 0) : 0, in place."""
  for r in range(len(rows)):
    i, b = rows[r], bs[r]
    for a in range(noise.shape[1]):
      x = cur[i, a, b] + noise[r, a]
      noise[r, a] = (x if x >= 0.0 else 0.0) if legal[i, a] else 0.0


@numba.njit(cache=True, boundscheck=False, error_model="numpy")
def _cfr_explore_scatter(rows, bs, noisy, tot, cur):
  """cur[rows[r], :, bs[r]] = noisy[r] / tot[r] where tot[r] > 0 (else unchanged)."""
  for r in range(len(rows)):
    if tot[r] > 0.0:
      i, b = rows[r], bs[r]
      for a in range(noisy.shape[1]):
        cur[i, a, b] = noisy[r, a] / tot[r]


class BatchedTreeCFRSolver:
  """OpenSpiel's CFR (`cfr._CFRSolver`) on a `GameTree` for a batch of seeds at once (a seed
  axis over the same tree arrays).

  Every seed b runs exactly the iterations OpenSpiel's solver runs from `initial_policies[b]`
  (the same floating-point operations in the same order; tests/algorithms/nash/test_cfr.py
  checks the batch equal, seed by seed, to OpenSpiel and to batches of one). Internally the
  seed axis is the last one ([num_nodes, B], [num_infosets, num_actions, B]) so that the
  gathers along the tree read contiguous rows; the public arrays have it first
  ([B, num_infosets, num_actions]).

  `exploration` > 0 adds the JPS authors' exploration to regret matching (their
  `simple_game/cfr_opt.h`, `InfoSet::computeStrategy`, facebookresearch/jps): at an infoset
  with no positive cumulative regret, the uniform policy plus Gaussian noise of standard
  deviation `exploration` on every legal action, clipped at 0 and renormalized (uniform if
  every entry was clipped), drawn from the seed's own generator (`noise_seeds[b]`).
  The authors use 0.01; 0 (the default) is OpenSpiel's regret matching.

  Args:
    tree: the game tree.
    initial_policies: [B, num_infosets, num_actions] initial (current) policies, one per seed.
    alternating_updates: update the players one after the other (OpenSpiel's default) or all
      at once.
    linear_averaging: weight iteration t's policy by t in the average.
    regret_matching_plus: clip cumulative regrets at 0 (CFR+).
    exploration: standard deviation of the exploration noise (0: none).
    noise_seeds: one int per seed for the exploration noise (required if exploration > 0).
    dtype: float64 (default; equal seed by seed to OpenSpiel) or float32
      (the authors' arithmetic, `float` in their `cfr_opt.h`; faster, not bit-equal: its
      policies agree with float64's to about 1e-4 after 1000 iterations, and a purified
      policy may differ where two actions are nearly tied).
    rule: the regret and average update after each player's traversal (one traversal for all):
      "cfr" (OpenSpiel's, with the two flags above), "dcfr" (Discounted CFR, `TreeDCFRSolver`),
      "pcfr+" (predictive CFR+, `TreePCFRPlusSolver`) or "pdcfr+" (predictive discounted CFR+,
      `TreePDCFRPlusSolver`); the last three have their own regret and average updates
      (linear_averaging and regret_matching_plus must be False with them).
    alpha, beta, gamma: the rules' exponents: positive regrets discounted by
      t^alpha / (t^alpha + 1) ("dcfr", "pdcfr+"), negative ones by t^beta / (t^beta + 1)
      ("dcfr"), iteration t's policy weighted by t^gamma in the average (not "cfr").
    The traversal, regret matching and exploration run in numba kernels (`_cfr_traverse`,
    `_cfr_regret_matching`, `_cfr_explore_*`); the exploration noise is drawn by numpy's
    generators.
  """

  RULES = ("cfr", "dcfr", "pcfr+", "pdcfr+")

  def __init__(self, tree: GameTree, initial_policies: np.ndarray,
               alternating_updates: bool = True, linear_averaging: bool = False,
               regret_matching_plus: bool = False, exploration: float = 0.0,
               noise_seeds: np.ndarray | None = None, dtype=np.float64, rule: str = "cfr",
               alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
    if rule not in self.RULES:
      raise ValueError(f"rule must be one of {', '.join(self.RULES)}, got {rule!r}")
    if rule != "cfr" and (linear_averaging or regret_matching_plus):
      raise ValueError(f"rule {rule!r} has its own averaging and regret update: "
                       "linear_averaging and regret_matching_plus must be False")
    for name, x in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
      if isinstance(x, bool) or not isinstance(x, (int, float)) or not np.isfinite(x):
        raise ValueError(f"{name} must be a finite number, got {x!r}")
    if rule != "cfr" and exploration:
      raise ValueError(f"exploration is defined for rule 'cfr' only, got rule {rule!r} with "
                       f"exploration={exploration!r}")
    self._rule = rule
    self._alpha, self._beta, self._gamma = float(alpha), float(beta), float(gamma)
    init = np.asarray(initial_policies, dtype=np.float64)
    if init.ndim != 3:
      raise ValueError(f"initial_policies must have shape [B, {tree.num_infosets}, "
                       f"{tree.num_actions}], got {init.shape}")
    if init.shape[0] < 1:
      raise ValueError("initial_policies holds no seed (B = 0)")
    for b in range(init.shape[0]):  # shape and values, with the offending entry named
      tree.validate_policy_array(init[b])
    if not np.isfinite(exploration) or exploration < 0:
      raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
    if np.dtype(dtype) not in (np.dtype(np.float64), np.dtype(np.float32)):
      raise ValueError(f"dtype must be float64 or float32, got {dtype!r}")
    self._dtype = np.dtype(dtype)
    if tree.game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
      raise ValueError(f"CFR needs a sequential game, got {tree.game}")
    self.tree = tree
    self._alternating = bool(alternating_updates)
    self._linear = bool(linear_averaging)
    self._rm_plus = bool(regret_matching_plus)
    self._iteration = 0
    self.batch_size = int(init.shape[0])
    B = self.batch_size
    legal = tree.infoset_legal[:, :, None]
    self._current = np.ascontiguousarray(
        np.where(legal, np.moveaxis(init, 0, -1), 0.0), dtype=self._dtype)
    self._cum_regret = np.zeros((tree.num_infosets, tree.num_actions, B), dtype=self._dtype)
    self._cum_policy = np.zeros((tree.num_infosets, tree.num_actions, B), dtype=self._dtype)
    # This iteration's regrets of the predictive rules (zero between updates).
    self._inst = np.zeros_like(self._cum_regret) if rule in ("pcfr+", "pdcfr+") else None
    self._exploration = float(exploration)
    if self._exploration > 0:
      if noise_seeds is None or len(noise_seeds) != B:
        raise ValueError(f"exploration > 0 needs one noise seed per batch entry ({B}), got "
                         f"{None if noise_seeds is None else len(noise_seeds)}")
      self._rngs = [np.random.default_rng(int(s)) for s in noise_seeds]
    else:
      self._rngs = None
    self._prepare_batched()

  def _prepare_batched(self):
    """Index arrays and preallocated [.., B] buffers of the kernels (policy-independent)."""
    tree, B, dt = self.tree, self.batch_size, self._dtype
    num_p = tree.num_players
    dec = tree.decisions
    # Reach is needed down to the deepest decision node's level.
    last = int(tree.node_depth[dec].max()) if len(dec) else 0
    self._reach_size = tree.level_slices[last][1] if len(dec) else 1
    # Index arrays unsigned: the kernels' gathers then need no negative-index wraparound.
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64).view(np.uint64)
    owner = tree.node_owner[1:self._reach_size]
    if np.any((owner < 0) | (owner > num_p)):
      bad = 1 + int(np.nonzero((owner < 0) | (owner > num_p))[0][0])
      raise ValueError(f"node owner {int(tree.node_owner[bad])} of node {bad} out of range")
    levels = [(s, e) for s, e in tree.level_slices[1:] if e > s]
    ret = tree.node_returns
    # Common payoff: every player's values are the same numbers, computed once.
    self._common_values = num_p > 1 and all(
        np.array_equal(ret[:, 0], ret[:, p]) for p in range(1, num_p))
    legal = tree.infoset_legal
    k = dict(parent=i64(np.maximum(tree.node_parent, 0)),  # (the root's -1 is never read)
             owner=i64(np.maximum(tree.node_owner, 0)),
             dc=i64(tree.decision_children), dc_flat=i64(tree.decision_children_flat),
             dec=i64(tree.decisions), lev_start=i64([s for s, _ in levels]),
             lev_end=i64([e for _, e in levels]),
             rets=np.ascontiguousarray(tree.node_returns.T, dtype=dt),
             legal=np.ascontiguousarray(legal),
             uniform=np.ascontiguousarray(legal / legal.sum(axis=1, keepdims=True), dtype=dt))
    # Reach of every owner (players, then chance): [num_p + 1, nodes, B].
    self._reach = np.ones((num_p + 1, self._reach_size, B), dtype=dt)
    # The owners whose reach must be recomputed by the next traversal (their policies changed).
    self._stale = set(range(num_p + 1))
    self._matched = False  # whether every infoset's policy came from regret matching yet
    # Chance probabilities stay; the decision edges are overwritten every traversal.
    self._ep = np.repeat(np.asarray(tree.node_chance_prob, dtype=dt)[:, None], B, axis=1)
    k["dpruned"] = np.zeros((len(tree.decisions), B), dtype=bool)
    k["npruned"] = np.zeros((tree.num_nodes, B), dtype=bool)
    for name in ("acc", "before", "after", "total"):
      k[name] = np.zeros(B, dtype=dt)
    k["positive"] = np.zeros((tree.num_infosets, B), dtype=bool)
    # The infosets of each player (the rows a rule other than "cfr" updates after its traversal).
    inf_player = tree.node_player[tree.first_node()]
    k["all_rows"] = i64(np.arange(tree.num_infosets))
    k["player_rows"] = [i64(np.nonzero(inf_player == p)[0]) for p in range(num_p)]
    k["values"] = np.zeros((1 if self._common_values else num_p, tree.num_nodes, B), dtype=dt)
    # Regrets and policy sums per decision edge (legal actions only), the edges of each player
    # sorted by (infoset, depth-first order of the history, action), so that every (infoset,
    # action) pair adds its histories in OpenSpiel's visiting order, and the edges of a history
    # are consecutive (its reach is read once, its children in a row).
    pre = traversal.preorder_and_size(tree.node_parent, tree.level_slices)[0]
    kids = tree.decision_children
    dec_row = np.full(tree.num_nodes, -1, dtype=np.int64)
    dec_row[dec] = np.arange(len(dec))
    child = np.full((len(dec), tree.num_actions), -1, dtype=np.int64)
    child[dec_row[tree.node_parent[kids]], tree.node_action[kids]] = kids
    parts = []
    for p in range(num_p):
      rows = np.nonzero(tree.node_player[dec] == p)[0]  # decision rows of player p
      inf = tree.node_infoset[dec[rows]]
      r_idx, a_idx = np.nonzero(tree.infoset_legal[inf])
      e_flat = inf[r_idx] * tree.num_actions + a_idx
      order = np.lexsort((a_idx, pre[dec[rows[r_idx]]], inf[r_idx]))
      e_row = rows[r_idx[order]]
      parts.append([dec[e_row], child[e_row, a_idx[order]], e_flat[order], e_row])
    k["e_off"] = i64(np.concatenate([[0], np.cumsum([len(q[0]) for q in parts])]))
    for j, name in enumerate(("e_node", "e_child", "e_flat", "e_dec")):
      k[name] = i64(np.concatenate([q[j] for q in parts]))
    self._k = k

  def _traverse(self, player: int | None):
    """`TreeCFRSolver._traverse` for every seed at once (the same floating-point operations in
    the same order) by the kernel `_cfr_traverse`."""
    k, num_p = self._k, self.tree.num_players
    players = np.arange(num_p) if player is None else np.array([player])
    if self._common_values:
      val_players, val_of = np.zeros(1, dtype=np.int64), np.zeros(num_p, dtype=np.int64)
    else:
      val_players = players
      val_of = np.zeros(num_p, dtype=np.int64)
      val_of[players] = np.arange(len(players))
    B = self.batch_size
    t = float(self._iteration)
    if self._rule == "cfr":
      weight, weight_after = (t if self._linear else 1.0), False
    else:  # OpenSpiel's DCFR: reach * policy * t^gamma
      weight, weight_after = t ** self._gamma, True
    # The predictive rules keep this iteration's regrets apart from the cumulative ones.
    target = self._inst if self._rule in ("pcfr+", "pdcfr+") else self._cum_regret
    _cfr_traverse(num_p, k["parent"], k["owner"], k["dc"], k["dc_flat"], k["dec"],
                  k["lev_start"], k["lev_end"], self._current.reshape(-1, B), self._ep,
                  self._reach, k["dpruned"], k["npruned"], val_players.astype(np.int64),
                  k["rets"], k["values"], k["acc"], k["before"], k["after"],
                  players.astype(np.int64), val_of, k["e_off"], k["e_node"], k["e_child"],
                  k["e_flat"], k["e_dec"], self._dtype.type(weight), weight_after,
                  target.reshape(-1, B), self._cum_policy.reshape(-1, B),
                  np.array(sorted(self._stale), dtype=np.int64))
    self._stale.clear()

  def _update_current_policy(self, player: int | None):
    """The rule's regret update of `player`'s infosets (None: every player's), then their regret
    matching. (OpenSpiel's CFR matches every infoset, but after the first update, which
    replaces the initial policy everywhere, the other players' regrets are unchanged and so are
    their policies. With exploration every infoset is matched: its noise is drawn anew.)"""
    k = self._k  # illegal actions never receive regret: their cumulative regret stays 0
    t, rule = float(self._iteration), self._rule
    d_pos = d_neg = d_next = 1.0
    everyone = player is None or self._rngs is not None or not self._matched
    self._matched = True
    rows = k["all_rows"] if everyone else k["player_rows"][player]
    self._stale.update(range(self.tree.num_players) if everyone else [player])
    if rule == "cfr":
      code = _RM_PLUS if self._rm_plus else _RM
    else:
      if rule == "dcfr":  # OpenSpiel's DCFRSolver: t^a / (t^a + 1) of the summed regrets
        code = _DISCOUNTED
        d_pos = t ** self._alpha / (t ** self._alpha + 1)
        d_neg = t ** self._beta / (t ** self._beta + 1)
      else:
        code = _PREDICTIVE
        if rule == "pdcfr+":  # R^{t-1} discounted by (t-1)^a / ((t-1)^a + 1), the prediction
          d_pos = (t - 1) ** self._alpha / ((t - 1) ** self._alpha + 1)  # by t^a / (t^a + 1)
          d_next = t ** self._alpha / (t ** self._alpha + 1)
    dt = self._dtype.type
    inst = self._inst if code == _PREDICTIVE else self._cum_regret
    _cfr_regret_matching(code, rows, self._cum_regret, inst, dt(d_pos), dt(d_neg), dt(d_next),
                         k["uniform"], self._current, k["positive"], k["total"])
    if self._rngs is not None:
      self._explore(self._current, k["positive"])

  def _explore(self, cur: np.ndarray, positive: np.ndarray):
    """The authors' exploration noise, in place, on the rows (per seed) without positive regret.

    Each seed draws its rows' noise from its own generator, in row order, as one
    [rows, num_actions] block (the draws are the only per-seed work); the rest is computed on
    the rows of every seed at once (element-wise and per row, so each seed's numbers are those
    it would get alone: tests/algorithms/nash/test_cfr.py checks a batch against single
    seeds)."""
    bs, rows = np.nonzero(~positive.T)  # ordered by seed, then row
    if not len(rows):
      return
    counts = np.bincount(bs, minlength=self.batch_size)
    num_a = cur.shape[1]
    noise = np.concatenate([rng.normal(0.0, self._exploration, size=(n, num_a))
                            for rng, n in zip(self._rngs, counts, strict=True) if n])
    rows, bs = rows.astype(np.int64), bs.astype(np.int64)
    _cfr_explore_gather(rows, bs, self._k["legal"], cur, noise)
    _cfr_explore_scatter(rows, bs, noise, noise.sum(axis=1), cur)

  def evaluate_and_update_policy(self) -> None:
    """One CFR iteration of every seed (as `CFRSolver.evaluate_and_update_policy`)."""
    self._iteration += 1
    if self._alternating:
      for p in range(self.tree.num_players):
        self._traverse(p)
        self._update_current_policy(p)
    else:
      self._traverse(None)
      self._update_current_policy(None)

  @property
  def iteration(self) -> int:
    return self._iteration

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


class TreeCFRSolver:
  """OpenSpiel's CFR (`cfr._CFRSolver`) on a `GameTree`: a `BatchedTreeCFRSolver` of one seed.

  Usage mirrors OpenSpiel: `evaluate_and_update_policy()` runs one iteration;
  `current_policy_array()` / `average_policy_array()` return policy arrays on the tree and
  `current_policy()` / `average_policy()` TabularPolicies. Its policies equal those of
  `cfr.CFRSolver` / `cfr.CFRPlusSolver` after any number of iterations.

  Args:
    tree: the game tree (of a sequential game).
    alternating_updates, linear_averaging, regret_matching_plus: as `BatchedTreeCFRSolver`.
    initial_policy: the starting current policy (default: uniform, as OpenSpiel).
    rule, alpha, beta, gamma: the update rule and its exponents, as `BatchedTreeCFRSolver`
      (the subclasses below set them).
  """

  def __init__(self, tree: GameTree, alternating_updates: bool = True,
               linear_averaging: bool = False, regret_matching_plus: bool = False,
               initial_policy: np.ndarray | None = None, rule: str = "cfr",
               alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
    init = tree.uniform_policy_array() if initial_policy is None else initial_policy
    self.tree = tree
    self._batch = BatchedTreeCFRSolver(
        tree, np.asarray(init, dtype=np.float64)[None], alternating_updates=alternating_updates,
        linear_averaging=linear_averaging, regret_matching_plus=regret_matching_plus,
        rule=rule, alpha=alpha, beta=beta, gamma=gamma)

  def evaluate_and_update_policy(self) -> None:
    """One CFR iteration (as `CFRSolver.evaluate_and_update_policy`)."""
    self._batch.evaluate_and_update_policy()

  @property
  def iteration(self) -> int:
    return self._batch.iteration

  def current_policy_array(self) -> np.ndarray:
    """The current (last-iterate) policy array."""
    return self._batch.current_policy_array()[0]

  def average_policy_array(self) -> np.ndarray:
    """The (reach-weighted) average policy array; uniform where nothing was accumulated."""
    return self._batch.average_policy_array()[0]

  def current_policy(self) -> policy_lib.TabularPolicy:
    return self.tree.tabular_policy(self.current_policy_array())

  def average_policy(self) -> policy_lib.TabularPolicy:
    return self.tree.tabular_policy(self.average_policy_array())


class TreeCFRPlusSolver(TreeCFRSolver):
  """CFR+ (regret matching+, alternating updates, linear averaging) as `cfr.CFRPlusSolver`."""

  def __init__(self, tree: GameTree, initial_policy: np.ndarray | None = None):
    super().__init__(tree, alternating_updates=True, linear_averaging=True,
                     regret_matching_plus=True, initial_policy=initial_policy)


class TreeDCFRSolver(TreeCFRSolver):
  """Discounted CFR, DCFR_{alpha, beta, gamma} (Brown & Sandholm, "Solving Imperfect-Information
  Games via Discounted Regret Minimization", AAAI 2019, arXiv:1809.04040), iterate for iterate
  OpenSpiel's `discounted_cfr.DCFRSolver`.

  After player i's traversal of iteration t its cumulative regrets R = R^{t-1} + r^t are
  multiplied by t^alpha / (t^alpha + 1) where R >= 0 and by t^beta / (t^beta + 1) where R < 0;
  the average policy weighs iteration t by t^gamma (the paper's discount (t / (t + 1))^gamma of
  the earlier contributions, up to normalization). Regret matching, alternating updates.

  Args:
    tree: the game tree (of a sequential game).
    alpha, beta, gamma: the paper's DCFR_{3/2, 0, 2} by default (its recommended setting).
    initial_policy: the starting current policy (default: uniform).
  """

  def __init__(self, tree: GameTree, alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0,
               initial_policy: np.ndarray | None = None):
    super().__init__(tree, initial_policy=initial_policy, rule="dcfr", alpha=alpha, beta=beta,
                     gamma=gamma)


class TreePCFRPlusSolver(TreeCFRSolver):
  """Predictive CFR+ (Farina, Kroer & Sandholm, "Faster Game Solving via Predictive Blackwell
  Approachability: Connecting Regret Matching and Mirror Descent", AAAI 2021,
  arXiv:2007.14358): predictive regret matching+ at every infoset, the prediction being the
  infoset's last counterfactual regret vector.

  After player i's traversal of iteration t with regrets r^t: R^t = [R^{t-1} + r^t]^+ and the
  next policy is regret matching on the prediction [R^t + r^t]^+ (uniform where it is 0);
  alternating updates; the average weighs iteration t by t^gamma (quadratic, gamma = 2, as the
  paper's PCFR+ experiments).

  Args:
    tree: the game tree (of a sequential game).
    gamma: the exponent of the average's weights (default 2).
    initial_policy: the starting current policy (default: uniform).
  """

  def __init__(self, tree: GameTree, gamma: float = 2.0,
               initial_policy: np.ndarray | None = None):
    super().__init__(tree, initial_policy=initial_policy, rule="pcfr+", gamma=gamma)


class TreePDCFRPlusSolver(TreeCFRSolver):
  """Predictive discounted CFR+, PDCFR+ (Xu, Li, Fu, Fu, Xing & Cheng, "Minimizing Weighted
  Counterfactual Regret with Optimistic Online Mirror Descent", IJCAI 2024, arXiv:2404.13891):
  PCFR+ with DCFR's discount of the positive regrets.

  After player i's traversal of iteration t with regrets r^t:
  R^t = [R^{t-1} (t-1)^alpha / ((t-1)^alpha + 1) + r^t]^+ and the next policy is regret
  matching on the prediction [R^t t^alpha / (t^alpha + 1) + r^t]^+ (uniform where it is 0);
  alternating updates; the average weighs iteration t by t^gamma.

  Args:
    tree: the game tree (of a sequential game).
    alpha, gamma: the paper's alpha = 2.3, gamma = 5 by default.
    initial_policy: the starting current policy (default: uniform).
  """

  def __init__(self, tree: GameTree, alpha: float = 2.3, gamma: float = 5.0,
               initial_policy: np.ndarray | None = None):
    super().__init__(tree, initial_policy=initial_policy, rule="pdcfr+", alpha=alpha,
                     gamma=gamma)
