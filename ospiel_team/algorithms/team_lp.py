r"""Team-correlated equilibria by tree decomposition: one LP solved with HiGHS.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions" (`../shared/papers/team_correlated_equilibria_tree_decomposition.txt`).

For each team (a set of players acting as one imperfect-recall player, `teams.py`):

1. **Team tree.** Histories with the same *team sequence* (the team infosets reached and the
   team's actions on the path, plus the team infoset at the history itself) are merged, level by
   level (Sec. 3: "no two nodes at the same depth have the same sequence ... merging nodes with
   the same sequence").
2. **Team-public states** (Sec. 3): at each depth, the classes of the transitive closure of
   h ~ h' iff some team infoset has descendants of both (in particular, h and h' share an
   infoset). Computed bottom-up with connected components.
3. **Tree decomposition** (Theorem 3.20): bags S u C(S) linked parent to child. Public states at
   which no team member acts carry a single local solution per reachable set, so they are
   eliminated: each public state at which the team acts is linked to its nearest ancestor public
   state at which the team acts (its *anchor*), and a history's reach is read off the anchor.
4. **Reachable locally feasible sets** (Algorithm 1, Sec. 4): top-down, the reachable subsets
   R of a public state S are the non-empty sets C(R', A') n S over the anchor's local solutions
   (R', A'); the local solutions of S are the pairs (R, A) with A a joint action of the team
   infosets meeting R.
5. **Constraint system** (Appendix C, C.1/C.2): one variable lambda_S(R, A) >= 0 per local
   solution; for every public state S and reachable R:
   sum_A lambda_S(R, A) = sum_{(R', A') at the anchor : C(R', A') n S = R} lambda(R', A')
   (= 1 when S has no anchor: the root bag). The plan value x[c] of every leaf sequence c
   (the team-tree child through which terminals are reached) is the sum of the lambdas that
   reach c (C.1).
6. **The LP** (Sec. 3, after Theorem 3.20): max_x min_y x^T M y over both teams' polytopes, the
   inner minimisation dualised (Luce & Raiffa 1957), so that

       max   e2 . v + M[:, const2] . x1
       s.t.  D1 lam1 = d1,  x1 = F1 lam1,  u = M^T x1,  E2^T v <= G2^T u,  lam1 >= 0,

   where M[c1, c2] sums chance x team-1 utility over terminals with leaf sequences (c1, c2).
   Team 2's correlated plan is the dual solution of the `<=` rows (mu = its lambdas).

Public API: `solve(game, teams)` -> `TeamLPResult` (value, both teams' plans, sizes, seconds);
`TeamPlan.sample_pure_strategy(rng)` samples a joint pure strategy of the team from its plan
(junction-tree sampling, top-down); `team_best_response_lp` (a team's exact best response
against fixed terminal weights, an LP over its polytope); the CLI

  python -m ospiel_team.algorithms.team_lp --game "kuhn_poker(players=3)" --teams "0,1|2" [--json]
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import time
from typing import Dict, Iterator, List, Optional, Sequence

import numpy as np
import pyspiel
from scipy import sparse
from scipy.sparse import csgraph

from ospiel_team.algorithms import teams as teams_lib
from ospiel_team.algorithms.game_tree import GameTree, TERMINAL

DEFAULT_MAX_LOCAL = 20_000_000  # cap on the number of local solutions (LP columns) of a team


# ------------------------------------------------------------------------------------------------
# The team tree, public states and the tree decomposition of one team.
@dataclasses.dataclass
class _PublicState:
  """A public state at which the team acts, with its reachable sets and local solutions."""
  index: int
  nodes: np.ndarray  # team-tree nodes of S
  infosets: np.ndarray  # original team infosets with histories in S (local infoset order)
  anchor: int  # index (in TeamPlan.states) of the anchor public state, -1 for none
  reach: np.ndarray  # [num_local, |S|] bool: the reachable set R of each local solution
  actions: np.ndarray  # [num_local, num_infosets] int: joint action A (-1: infoset not in R)
  local_set: np.ndarray  # [num_local] index of the reachable set R of each local solution
  num_sets: int  # number of reachable sets R (non-empty)
  parent_to_set: Optional[np.ndarray]  # [num_local of anchor] R reached in S (-1: none)
  offset: int = 0  # first LP column of this public state's lambdas


class TeamDecomposition:
  """Team tree, team-public states and reachable local solutions of one team (Secs. 3-4)."""

  def __init__(self, tree: GameTree, members: Sequence[int],
               max_local: int = DEFAULT_MAX_LOCAL, team_tree_only: bool = False):
    self.tree = tree
    self.members = tuple(int(p) for p in members)
    self.max_local = max_local
    self._team_tree()
    if team_tree_only:  # the merged team tree alone (used by coop_optimum's MIP)
      return
    teams_lib.check_timeable(tree)
    self._public_states()
    self._local_solutions()
    self._leaf_plan()

  # --- 1. team tree -----------------------------------------------------------------------------
  def _team_tree(self):
    tree = self.tree
    is_team = np.isin(tree.node_player, self.members)
    self.node_is_team = is_team
    tt_of_node = np.empty(tree.num_nodes, dtype=np.int64)
    parents, actions, infosets, terminal, depth = [], [], [], [], []
    offset = 0
    for d, (s, e) in enumerate(tree.level_slices):
      if d == 0:
        pre_par = np.full(e - s, -1, dtype=np.int64)
        pre_act = np.full(e - s, -1, dtype=np.int64)
      else:
        par = tree.node_parent[s:e]
        pre_par = tt_of_node[par]
        pre_act = np.where(is_team[par], tree.node_action[s:e], -1)
      inf = np.where(is_team[s:e], tree.node_infoset[s:e], -1)
      term = tree.node_player[s:e] == TERMINAL
      keys = np.stack([pre_par, pre_act, inf, term.astype(np.int64)], axis=1)
      uniq, first, inv = np.unique(keys, axis=0, return_index=True, return_inverse=True)
      inv = inv.reshape(-1)
      tt_of_node[s:e] = offset + inv
      parents.append(uniq[:, 0])
      actions.append(uniq[:, 1])
      infosets.append(uniq[:, 2])
      terminal.append(uniq[:, 3].astype(bool))
      depth.append(np.full(len(uniq), d, dtype=np.int64))
      offset += len(uniq)
    self.tt_of_node = tt_of_node
    self.tt_parent = np.concatenate(parents)
    self.tt_action = np.concatenate(actions)  # action from a team parent, -1 otherwise
    self.tt_infoset = np.concatenate(infosets)  # team infoset at the node, -1 otherwise
    self.tt_terminal = np.concatenate(terminal)
    self.tt_depth = np.concatenate(depth)
    self.num_tt = offset
    starts = np.searchsorted(self.tt_depth, np.arange(len(tree.level_slices) + 1))
    self.tt_levels = [(int(starts[d]), int(starts[d + 1])) for d in range(len(tree.level_slices))]
    # Team sequences (as in Table 1's #Seq): the empty one plus one per (team node, action).
    legal = tree.infoset_legal[self.tt_infoset[self.tt_infoset >= 0]]
    self.num_sequences = 1 + int(legal.sum())

  # --- 2. public states -------------------------------------------------------------------------
  def _public_states(self):
    ps = np.full(self.num_tt, -1, dtype=np.int64)
    num_ps = 0
    next_ps_nodes = None  # (child public state ids, their parents) from the level below
    for d in range(len(self.tt_levels) - 1, -1, -1):
      s, e = self.tt_levels[d]
      nodes = np.arange(s, e)
      nodes = nodes[~self.tt_terminal[s:e]]
      k = len(nodes)
      if k == 0:
        next_ps_nodes = None
        continue
      local = np.full(e - s, -1, dtype=np.int64)
      local[nodes - s] = np.arange(k)
      rows, cols = [], []
      # Nodes sharing a team infoset.
      inf = self.tt_infoset[nodes]
      has = inf >= 0
      if has.any():
        _, inf_id = np.unique(inf[has], return_inverse=True)
        rows.append(np.arange(k)[has])
        cols.append(k + inf_id.reshape(-1))
        extra = int(inf_id.max()) + 1
      else:
        extra = 0
      # Parents of nodes sharing a public state one level below.
      if next_ps_nodes is not None:
        child_ps, child_par = next_ps_nodes
        _, cps = np.unique(child_ps, return_inverse=True)
        rows.append(local[child_par - s])
        cols.append(k + extra + cps.reshape(-1))
        extra += int(cps.max()) + 1
      n = k + extra
      if rows:
        r = np.concatenate(rows)
        c = np.concatenate(cols)
        g = sparse.coo_matrix((np.ones(len(r)), (r, c)), shape=(n, n)).tocsr()
        _, labels = csgraph.connected_components(g, directed=False)
        labels = labels[:k]
        _, labels = np.unique(labels, return_inverse=True)
        labels = labels.reshape(-1)
      else:
        labels = np.arange(k)
      ps[nodes] = num_ps + labels
      num_ps += int(labels.max()) + 1
      # Level d's nonterminal nodes with their parents, for level d - 1.
      if d > 0:
        next_ps_nodes = (ps[nodes], self.tt_parent[nodes])
    self.tt_ps = ps
    self.num_public_states = num_ps
    # Public states at which the team acts.
    team_ps = np.zeros(num_ps, dtype=bool)
    team_ps[ps[self.tt_infoset >= 0]] = True
    self.ps_team = team_ps
    # Anchor child of every team-tree node: the child of its nearest ancestor whose public state
    # is one where the team acts (-1: none).
    anchor_child = np.full(self.num_tt, -1, dtype=np.int64)
    for s, e in self.tt_levels[1:]:
      par = self.tt_parent[s:e]
      anchor_child[s:e] = np.where(team_ps[ps[par]], np.arange(s, e), anchor_child[par])
    self.tt_anchor_child = anchor_child

  # --- 3./4. decomposition and reachable local solutions ------------------------------------
  def _local_solutions(self):
    tree = self.tree
    ps = self.tt_ps
    team_nodes = np.nonzero((ps >= 0) & self.ps_team[np.maximum(ps, 0)])[0]
    # Order public states by depth (nodes are level ordered, so by first node).
    order_ps, first = np.unique(ps[team_nodes], return_index=True)
    order_ps = order_ps[np.argsort(team_nodes[first], kind="stable")]
    ps_slot = np.full(self.num_public_states, -1, dtype=np.int64)
    ps_slot[order_ps] = np.arange(len(order_ps))
    # Group nodes by public state.
    slot_of_node = ps_slot[ps[team_nodes]]
    sort = np.argsort(slot_of_node, kind="stable")
    grouped = team_nodes[sort]
    bounds = np.searchsorted(slot_of_node[sort], np.arange(len(order_ps) + 1))
    self.tt_local = np.full(self.num_tt, -1, dtype=np.int64)
    self.tt_local_inf = np.full(self.num_tt, -1, dtype=np.int64)
    self.states: List[_PublicState] = []
    total = 0
    legal = tree.infoset_legal
    for slot in range(len(order_ps)):
      nodes = grouped[bounds[slot]:bounds[slot + 1]]
      self.tt_local[nodes] = np.arange(len(nodes))
      inf = self.tt_infoset[nodes]
      infosets, inv = np.unique(inf[inf >= 0], return_inverse=True)
      loc_inf = np.full(len(nodes), -1, dtype=np.int64)
      loc_inf[inf >= 0] = inv.reshape(-1)
      self.tt_local_inf[nodes] = loc_inf
      achild = self.tt_anchor_child[nodes]
      if len(nodes) == 1:
        # Fast path (most public states of games with little uncommon external information):
        # one node, reachable set {node}, one local solution per legal action.
        st = self._singleton_state(slot, nodes, infosets, achild[0], ps_slot)
        total += len(st.local_set)
        if total > self.max_local:
          raise MemoryError(
              f"the team {self.members} of {tree.game} has more than max_local="
              f"{self.max_local} local solutions (LP columns); the game has too much uncommon "
              "external information for the team LP (Theorem 4.1)")
        self.states.append(st)
        continue
      if achild[0] < 0:
        if np.any(achild >= 0):
          raise AssertionError("public state with mixed anchors")
        sets = np.ones((1, len(nodes)), dtype=bool)
        anchor = -1
        parent_to_set = None
      else:
        u = self.tt_parent[achild]
        anchor = int(ps_slot[ps[u[0]]])
        if np.any(ps_slot[ps[u]] != anchor):
          raise AssertionError("public state with several anchors")
        par = self.states[anchor]
        a = self.tt_action[achild]
        reached = par.reach[:, self.tt_local[u]]
        team_u = a >= 0
        if team_u.any():
          acts = par.actions[:, self.tt_local_inf[u[team_u]]]
          reached[:, team_u] &= acts == a[team_u][None, :]
        packed = np.packbits(reached, axis=1)
        uniq, inv = np.unique(packed, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        nonempty = uniq.any(axis=1)
        new_id = np.cumsum(nonempty) - 1
        new_id[~nonempty] = -1
        parent_to_set = new_id[inv]
        sets = np.unpackbits(uniq[nonempty], axis=1, count=len(nodes)).astype(bool)
      # Local solutions: every joint action of the team infosets meeting each R.
      reach_rows, act_rows, set_rows = [], [], []
      for r_idx, r in enumerate(sets):
        meet = np.unique(loc_inf[r & (loc_inf >= 0)])
        choices = [np.nonzero(legal[infosets[i]])[0] for i in meet]
        count = math.prod(len(c) for c in choices)  # exact (no int64 overflow)
        total += count
        if total > self.max_local:
          raise MemoryError(
              f"the team {self.members} of {tree.game} has more than max_local="
              f"{self.max_local} local solutions (LP columns); the game has too much uncommon "
              "external information for the team LP (Theorem 4.1)")
        acts = np.full((count, len(infosets)), -1, dtype=np.int16)
        if choices:
          grid = np.stack(np.meshgrid(*choices, indexing="ij"), axis=-1).reshape(count, -1)
          acts[:, meet] = grid
        reach_rows.append(np.broadcast_to(r, (count, len(nodes))))
        act_rows.append(acts)
        set_rows.append(np.full(count, r_idx, dtype=np.int64))
      st = _PublicState(
          index=slot, nodes=nodes, infosets=infosets, anchor=anchor,
          reach=np.concatenate(reach_rows), actions=np.concatenate(act_rows),
          local_set=np.concatenate(set_rows), num_sets=len(sets), parent_to_set=parent_to_set)
      self.states.append(st)
    offset = 0
    for st in self.states:
      st.offset = offset
      offset += len(st.local_set)
    self.num_local = offset
    self.ps_slot = ps_slot

  def _singleton_state(self, slot, nodes, infosets, achild, ps_slot) -> _PublicState:
    """A public state with one node (see `_local_solutions`)."""
    if achild < 0:
      anchor, parent_to_set = -1, None
    else:
      u = self.tt_parent[achild]
      anchor = int(ps_slot[self.tt_ps[u]])
      par = self.states[anchor]
      col = par.reach[:, self.tt_local[u]].copy()
      a = self.tt_action[achild]
      if a >= 0:
        col &= par.actions[:, self.tt_local_inf[u]] == a
      parent_to_set = np.where(col, 0, -1)
    if len(infosets):
      acts = np.nonzero(self.tree.infoset_legal[infosets[0]])[0].astype(np.int16)[:, None]
    else:
      acts = np.full((1, 0), -1, dtype=np.int16)
    count = len(acts)
    return _PublicState(
        index=slot, nodes=nodes, infosets=infosets, anchor=anchor,
        reach=np.ones((count, 1), dtype=bool), actions=acts,
        local_set=np.zeros(count, dtype=np.int64), num_sets=1, parent_to_set=parent_to_set)

  # --- 5. constraint system ---------------------------------------------------------------------
  def constraint_system(self):
    """(D, d): rows (S, R) of C.2 (and the root-bag rows) over this team's lambdas."""
    rows, cols, vals, rhs = [], [], [], []
    row0 = 0
    for st in self.states:
      rows.append(row0 + st.local_set)
      cols.append(st.offset + np.arange(len(st.local_set)))
      vals.append(np.ones(len(st.local_set)))
      if st.anchor < 0:
        rhs.append(np.ones(st.num_sets))
      else:
        par = self.states[st.anchor]
        hit = np.nonzero(st.parent_to_set >= 0)[0]
        rows.append(row0 + st.parent_to_set[hit])
        cols.append(par.offset + hit)
        vals.append(-np.ones(len(hit)))
        rhs.append(np.zeros(st.num_sets))
      row0 += st.num_sets
    d_mat = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                       np.concatenate(cols))),
                              shape=(row0, self.num_local))
    return d_mat, np.concatenate(rhs) if rhs else np.zeros(0)

  # --- leaf plan (C.1 at the leaves) ----------------------------------------------------------
  def _leaf_plan(self):
    """Leaf sequence of every terminal and the map F: lambdas -> leaf plan values."""
    tree = self.tree
    tt_term = self.tt_of_node[tree.terminals]
    leaf = self.tt_anchor_child[tt_term]  # -1: the team never acted before (plan value 1)
    leaves, inv = np.unique(leaf, return_inverse=True)
    inv = inv.reshape(-1)
    self.const_leaf = bool(len(leaves) and leaves[0] < 0)
    if self.const_leaf:
      # Index 0 is the constant leaf (x = 1); others follow.
      self.terminal_leaf = inv
      real = leaves[1:]
      base = 1
    else:
      self.terminal_leaf = inv
      real = leaves
      base = 0
    self.num_leaves = len(leaves)
    rows, cols = [], []
    u = self.tt_parent[real]
    a = self.tt_action[real]
    slots = self.ps_slot[self.tt_ps[u]]
    for slot in np.unique(slots):
      st = self.states[slot]
      sel = np.nonzero(slots == slot)[0]
      reached = st.reach[:, self.tt_local[u[sel]]].copy()
      team_u = a[sel] >= 0
      if team_u.any():
        acts = st.actions[:, self.tt_local_inf[u[sel][team_u]]]
        reached[:, team_u] &= acts == a[sel][team_u][None, :]
      j, c = np.nonzero(reached)
      rows.append(base + sel[c])
      cols.append(st.offset + j)
    if rows:
      r = np.concatenate(rows)
      c = np.concatenate(cols)
    else:
      r = c = np.zeros(0, dtype=np.int64)
    self.leaf_matrix = sparse.csr_matrix((np.ones(len(r)), (r, c)),
                                         shape=(self.num_leaves, self.num_local))

  def leaf_values(self, lam: np.ndarray) -> np.ndarray:
    """Plan value x[c] of every leaf sequence (constant leaf: 1)."""
    x = self.leaf_matrix @ lam
    if self.const_leaf:
      x[0] = 1.0
    return x

  def terminal_reach(self, lam: np.ndarray) -> np.ndarray:
    """[num_terminals] the team's plan value at every terminal (prob. it plays to z)."""
    return self.leaf_values(lam)[self.terminal_leaf]

  def sizes(self) -> Dict[str, int]:
    return dict(sequences=self.num_sequences, public_states=self.num_public_states,
                acting_public_states=len(self.states),
                reachable_sets=int(sum(st.num_sets for st in self.states)),
                local_solutions=self.num_local, team_tree_nodes=self.num_tt)


# ------------------------------------------------------------------------------------------------
# Plans and sampling.
@dataclasses.dataclass
class TeamPlan:
  """A team's correlated plan: one local distribution per public state (Prop. 2.9)."""
  decomposition: TeamDecomposition
  lam: np.ndarray  # [num_local] lambda_S(R, A)

  @property
  def members(self):
    return self.decomposition.members

  def terminal_reach(self) -> np.ndarray:
    """[num_terminals] probability that the team plays to each terminal (x[z])."""
    return self.decomposition.terminal_reach(self.lam)

  def constraint_violation(self) -> float:
    """Max violation of C.2/root rows and of lambda >= 0."""
    d_mat, rhs = self.decomposition.constraint_system()
    res = np.abs(d_mat @ self.lam - rhs).max(initial=0.0)
    return float(max(res, -self.lam.min(initial=0.0)))

  def sample_pure_strategy(self, rng: np.random.Generator | int | None = None,
                           greedy: bool = False) -> Dict[int, int]:
    """Samples a joint pure strategy of the team: {infoset: action} for every team infoset.

    Top-down over the decomposition: at each public state, the reachable set R is fixed by the
    anchor's sampled local solution, and A is drawn from lambda_S(R, .) / sum_A lambda_S(R, A)
    (junction-tree sampling); each local solution is thus drawn with probability lambda.
    Infosets the sampled strategy never reaches get their first legal action. `greedy=True`
    takes the most likely A instead of sampling (a pure strategy in the plan's support).
    """
    rng = np.random.default_rng(rng)
    dec = self.decomposition
    tree = dec.tree
    chosen = np.full(len(dec.states), -1, dtype=np.int64)  # local solution sampled per state
    strategy: Dict[int, int] = {}
    for st in dec.states:
      if st.anchor < 0:
        r = 0
      else:
        j = chosen[st.anchor]
        if j < 0:
          continue
        r = st.parent_to_set[j]
        if r < 0:
          continue
      cand = np.nonzero(st.local_set == r)[0]
      w = np.maximum(self.lam[st.offset + cand], 0.0)
      total = w.sum()
      if greedy or total <= 1e-12:
        k = cand[int(np.argmax(w))]
      else:
        k = cand[rng.choice(len(cand), p=w / total)]
      chosen[st.index] = k
      acts = st.actions[k]
      for i, a in zip(st.infosets, acts):
        if a >= 0:
          strategy[int(i)] = int(a)
    for i in np.nonzero(np.isin(tree.infoset_player, dec.members))[0]:
      if int(i) not in strategy:
        strategy[int(i)] = int(np.nonzero(tree.infoset_legal[i])[0][0])
    return strategy

  def marginal_policy_array(self, base: Optional[np.ndarray] = None) -> np.ndarray:
    """Each member's behaviour strategy induced by the plan (P(a | infoset reached)).

    Exact (Kuhn's theorem) for a team of one player; for several players it drops the
    correlation between teammates. Infosets the plan never reaches keep `base` (uniform).
    """
    dec = self.decomposition
    tree = dec.tree
    pi = tree.uniform_policy_array() if base is None else np.array(base, dtype=np.float64)
    mass = np.zeros((tree.num_infosets, tree.num_actions))
    for st in dec.states:
      lam = np.maximum(self.lam[st.offset:st.offset + len(st.local_set)], 0.0)
      for k, info in enumerate(st.infosets):
        a = st.actions[:, k]
        ok = a >= 0
        np.add.at(mass[info], a[ok], lam[ok])
    total = mass.sum(axis=1)
    rows = np.nonzero(total > 1e-12)[0]
    pi[rows] = mass[rows] / total[rows, None]
    return pi

  def sample_policy_array(self, base: Optional[np.ndarray] = None,
                          rng: np.random.Generator | int | None = None,
                          greedy: bool = False) -> np.ndarray:
    """A policy array with the team's rows set to a sampled joint pure strategy."""
    tree = self.decomposition.tree
    pi = tree.uniform_policy_array() if base is None else np.array(base, dtype=np.float64)
    for i, a in self.sample_pure_strategy(rng, greedy=greedy).items():
      pi[i] = 0.0
      pi[i, a] = 1.0
    return pi

  def pure_strategy_distribution(self, max_support: int = 100_000):
    """Exact distribution over the joint pure strategies the plan samples (small games only).

    Returns a list of (probability, {infoset: action}) restricted to reached infosets.
    """
    dec = self.decomposition
    partial = [(1.0, {}, {})]  # (prob, strategy, chosen local solution per state)
    for st in dec.states:
      new = []
      for prob, strat, chosen in partial:
        if st.anchor < 0:
          r = 0
        else:
          j = chosen.get(st.anchor, -1)
          r = st.parent_to_set[j] if j >= 0 else -1
        if r < 0:
          new.append((prob, strat, chosen))
          continue
        cand = np.nonzero(st.local_set == r)[0]
        w = np.maximum(self.lam[st.offset + cand], 0.0)
        total = w.sum()
        if total <= 1e-12:
          w = np.zeros(len(cand))
          w[0] = 1.0
          total = 1.0
        for k, wk in zip(cand, w / total):
          if wk <= 1e-12:
            continue
          s2 = dict(strat)
          for i, a in zip(st.infosets, st.actions[k]):
            if a >= 0:
              s2[int(i)] = int(a)
          c2 = dict(chosen)
          c2[st.index] = int(k)
          new.append((prob * wk, s2, c2))
      partial = new
      if len(partial) > max_support:
        raise ValueError(f"more than max_support={max_support} pure strategies in the support")
    merged: Dict[tuple, float] = {}
    for prob, strat, _ in partial:
      key = tuple(sorted(strat.items()))
      merged[key] = merged.get(key, 0.0) + prob
    return sorted(((p, dict(k)) for k, p in merged.items()), key=lambda t: -t[0])


# ------------------------------------------------------------------------------------------------
# The LP.
@dataclasses.dataclass
class TeamLPResult:
  """Solution of the team LP: value, both teams' correlated plans, sizes and timings."""
  game: str
  teams: teams_lib.Teams
  terminals: int
  value: float  # team 1's (max) value = team 1's utility under the equilibrium
  plans: List[TeamPlan]
  sequences: List[int]  # #team sequences (Table 1's #Seq)
  local_solutions: List[int]  # LP columns per team (lambdas)
  lp_rows: int
  lp_cols: int
  lp_nonzeros: int  # Table 1's "LP size"
  build_seconds: float
  solve_seconds: float
  status: str

  @property
  def seconds(self) -> float:
    return self.build_seconds + self.solve_seconds

  def value_per_member(self) -> List[float]:
    v = [self.value, -self.value]
    return [v[i] / len(t) for i, t in enumerate(self.teams.teams)]

  def summary(self) -> Dict:
    return dict(game=self.game, teams=str(self.teams), terminals=self.terminals,
                value=self.value,
                value_team2=-self.value, value_per_member=self.value_per_member(),
                sequences=self.sequences, local_solutions=self.local_solutions,
                lp_rows=self.lp_rows, lp_cols=self.lp_cols, lp_nonzeros=self.lp_nonzeros,
                build_seconds=round(self.build_seconds, 4),
                solve_seconds=round(self.solve_seconds, 4),
                seconds=round(self.seconds, 4), status=self.status)

  def profile_policy(self, rng=None) -> np.ndarray:
    """A pure profile: each team's sampled joint pure strategy (a policy array)."""
    tree = self.plans[0].decomposition.tree
    pi = tree.uniform_policy_array()
    for plan in self.plans:
      pi = plan.sample_policy_array(base=pi, rng=rng)
    return pi


def _payoff(tree: GameTree, dec1: TeamDecomposition, dec2: TeamDecomposition,
            util1: np.ndarray) -> sparse.csr_matrix:
  """M[c1, c2] = sum over terminals z with leaves (c1, c2) of chance(z) * u1(z)."""
  w = tree.chance_reach()[tree.terminals] * util1
  return sparse.csr_matrix((w, (dec1.terminal_leaf, dec2.terminal_leaf)),
                           shape=(dec1.num_leaves, dec2.num_leaves))


def _solve_highs(c, a_mat, row_lo, row_hi, col_lo, col_hi, sense_max: bool,
                 time_limit: Optional[float], threads: Optional[int], solver: str,
                 integrality: Optional[np.ndarray] = None, mip_gap: Optional[float] = None,
                 options: Optional[Dict] = None,
                 initial_solution: Optional[np.ndarray] = None):
  """Solves min/max c.x, row_lo <= A x <= row_hi, col bounds, with highspy (`initial_solution`:
  a feasible point handed to the MIP solver as its first incumbent)."""
  import highspy  # pylint: disable=g-import-not-at-top
  h = highspy.Highs()
  h.setOptionValue("output_flag", False)
  if time_limit is not None:
    h.setOptionValue("time_limit", float(time_limit))
  if threads is not None:
    h.setOptionValue("threads", int(threads))
  if solver:
    h.setOptionValue("solver", solver)
  if mip_gap is not None:
    h.setOptionValue("mip_rel_gap", float(mip_gap))
  for key, value in (options or {}).items():
    h.setOptionValue(key, value)
  a_csc = sparse.csc_matrix(a_mat)
  a_csc.sort_indices()
  lp = highspy.HighsLp()
  lp.num_col_ = a_csc.shape[1]
  lp.num_row_ = a_csc.shape[0]
  lp.col_cost_ = np.asarray(c, dtype=np.float64)
  lp.col_lower_ = np.asarray(col_lo, dtype=np.float64)
  lp.col_upper_ = np.asarray(col_hi, dtype=np.float64)
  lp.row_lower_ = np.asarray(row_lo, dtype=np.float64)
  lp.row_upper_ = np.asarray(row_hi, dtype=np.float64)
  lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
  lp.a_matrix_.start_ = a_csc.indptr.astype(np.int32)
  lp.a_matrix_.index_ = a_csc.indices.astype(np.int32)
  lp.a_matrix_.value_ = a_csc.data.astype(np.float64)
  lp.sense_ = highspy.ObjSense.kMaximize if sense_max else highspy.ObjSense.kMinimize
  if integrality is not None:
    lp.integrality_ = [highspy.HighsVarType.kInteger if b else highspy.HighsVarType.kContinuous
                       for b in integrality]
  h.passModel(lp)
  if initial_solution is not None:
    start = highspy.HighsSolution()
    start.col_value = list(np.asarray(initial_solution, dtype=np.float64))
    h.setSolution(start)
  h.run()
  return h


def solve(game: pyspiel.Game | str | GameTree, teams: str | teams_lib.Teams = None,
          time_limit: Optional[float] = None, threads: Optional[int] = None,
          solver: str = "ipm", max_local: int = DEFAULT_MAX_LOCAL,
          highs_options: Optional[Dict] = None) -> TeamLPResult:
  """Solves the zero-sum team game exactly for its team-correlated equilibrium (Thm. 3.21)."""
  start = time.perf_counter()
  if isinstance(game, str):
    game = pyspiel.load_game(game)
  if teams is None:
    teams = teams_lib.default_teams(game.game if isinstance(game, GameTree) else game)
  tree, teams = teams_lib.check_assumptions(game, teams)
  if teams.num_teams != 2:
    raise ValueError(f"solve needs two teams; for one team use coop_optimum (got {teams})")
  dec1 = TeamDecomposition(tree, teams.teams[0], max_local)
  dec2 = TeamDecomposition(tree, teams.teams[1], max_local)
  util1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  m_mat = _payoff(tree, dec1, dec2, util1)
  d1, rhs1 = dec1.constraint_system()
  e2, rhs2 = dec2.constraint_system()
  # Columns: [lam1 (n1) | x1 (L1) | u (L2) | v (r2)].
  n1, l1, l2, r2 = dec1.num_local, dec1.num_leaves, dec2.num_leaves, e2.shape[0]
  f1 = dec1.leaf_matrix
  g2 = dec2.leaf_matrix
  c2_const = 0 if dec2.const_leaf else None
  eye_l1 = sparse.identity(l1, format="csr")
  eye_l2 = sparse.identity(l2, format="csr")
  zero = lambda r, c: sparse.csr_matrix((r, c))  # noqa: E731
  # Leaf rows of team 1 (the constant leaf, if any, is fixed by its bounds instead).
  f_rows = sparse.hstack([-f1, eye_l1, zero(l1, l2), zero(l1, r2)])
  keep1 = np.arange(l1)[1:] if dec1.const_leaf else np.arange(l1)
  f_rows = f_rows.tocsr()[keep1]
  # u = M^T x1 for the non-constant leaves of team 2.
  keep2 = np.arange(l2)[1:] if dec2.const_leaf else np.arange(l2)
  u_rows = sparse.hstack([zero(l2, n1), -m_mat.T, eye_l2, zero(l2, r2)]).tocsr()[keep2]
  # E2^T v - G2^T u <= 0 (one row per team-2 local solution); constant leaf's u column unused.
  g2_t = g2.T.tocsr()
  if dec2.const_leaf:
    g2_t = g2_t.tolil()
    g2_t[:, 0] = 0
    g2_t = g2_t.tocsr()
  dual_rows = sparse.hstack([zero(dec2.num_local, n1 + l1), -g2_t, e2.T]).tocsr()
  d_rows = sparse.hstack([d1, zero(d1.shape[0], l1 + l2 + r2)]).tocsr()
  a_mat = sparse.vstack([d_rows, f_rows, u_rows, dual_rows]).tocsr()
  a_mat.eliminate_zeros()
  n_cols = n1 + l1 + l2 + r2
  cost = np.zeros(n_cols)
  cost[n1 + l1 + l2:] = rhs2  # e2 . v
  if c2_const is not None:
    cost[n1:n1 + l1] += m_mat[:, 0].toarray().reshape(-1)  # M[:, const2] . x1
  col_lo = np.concatenate([np.zeros(n1), np.full(l1, -np.inf), np.full(l2 + r2, -np.inf)])
  col_hi = np.full(n_cols, np.inf)
  if dec1.const_leaf:
    col_lo[n1] = col_hi[n1] = 1.0
  if dec2.const_leaf:
    col_lo[n1 + l1] = col_hi[n1 + l1] = 0.0  # unused
  row_lo = np.concatenate([rhs1, np.zeros(len(keep1) + len(keep2)),
                           np.full(dec2.num_local, -np.inf)])
  row_hi = np.concatenate([rhs1, np.zeros(len(keep1) + len(keep2)), np.zeros(dec2.num_local)])
  build = time.perf_counter() - start
  t0 = time.perf_counter()
  h = _solve_highs(cost, a_mat, row_lo, row_hi, col_lo, col_hi, True, time_limit, threads,
                   solver, options=highs_options)
  solve_seconds = time.perf_counter() - t0
  status = h.modelStatusToString(h.getModelStatus())
  if status != "Optimal":
    raise RuntimeError(f"HiGHS did not solve the team LP of {tree.game}: {status}")
  sol = h.getSolution()
  x = np.asarray(sol.col_value)
  duals = np.asarray(sol.row_dual)
  value = float(h.getInfo().objective_function_value)
  lam1 = np.maximum(x[:n1], 0.0)
  mu = np.abs(duals[-dec2.num_local:])
  plan1 = TeamPlan(dec1, lam1)
  plan2 = TeamPlan(dec2, mu)
  return TeamLPResult(
      game=str(tree.game), teams=teams, terminals=len(tree.terminals), value=value, plans=[plan1, plan2],
      sequences=[dec1.num_sequences, dec2.num_sequences],
      local_solutions=[dec1.num_local, dec2.num_local], lp_rows=a_mat.shape[0],
      lp_cols=a_mat.shape[1], lp_nonzeros=int(a_mat.nnz), build_seconds=build,
      solve_seconds=solve_seconds, status=status)


@dataclasses.dataclass
class TeamBestResponse:
  value: float
  plan: TeamPlan
  seconds: float


def team_best_response_lp(tree: GameTree, members: Sequence[int], terminal_weights: np.ndarray,
                          decomposition: Optional[TeamDecomposition] = None,
                          time_limit: Optional[float] = None) -> TeamBestResponse:
  """max over the team's correlated plans of sum_z w[z] x[z]: an exact team best response.

  The plan polytope of the decomposition is the convex hull of pure plans (Prop. 2.9), so the
  LP optimum is the best joint pure strategy's value; sampling the plan gives one.
  """
  start = time.perf_counter()
  dec = decomposition or TeamDecomposition(tree, members)
  w_leaf = np.bincount(dec.terminal_leaf, weights=terminal_weights, minlength=dec.num_leaves)
  const = 0.0
  if dec.const_leaf:
    const = float(w_leaf[0])
    w_leaf = w_leaf.copy()
    w_leaf[0] = 0.0
  cost = np.asarray(dec.leaf_matrix.T @ w_leaf).reshape(-1)
  d_mat, rhs = dec.constraint_system()
  h = _solve_highs(cost, d_mat, rhs, rhs, np.zeros(dec.num_local), np.full(dec.num_local, np.inf),
                   True, time_limit, None, "simplex")
  status = h.modelStatusToString(h.getModelStatus())
  if status != "Optimal":
    raise RuntimeError(f"HiGHS did not solve the team best-response LP: {status}")
  lam = np.maximum(np.asarray(h.getSolution().col_value), 0.0)
  value = float(h.getInfo().objective_function_value) + const
  return TeamBestResponse(value=value, plan=TeamPlan(dec, lam),
                          seconds=time.perf_counter() - start)


# ------------------------------------------------------------------------------------------------
# CLI.
def main(argv: Optional[Sequence[str]] = None) -> int:
  import argparse  # pylint: disable=g-import-not-at-top
  import ospiel_team  # noqa: F401  pylint: disable=g-import-not-at-top,unused-import
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--game", required=True, help="pyspiel game string")
  parser.add_argument("--teams", default=None, help='teams, e.g. "0,1|2"')
  parser.add_argument("--json", action="store_true", help="print one JSON object")
  parser.add_argument("--time_limit", type=float, default=None)
  parser.add_argument("--solver", default="ipm", help="HiGHS solver: ipm (default, with crossover), simplex, choose")
  args = parser.parse_args(argv)
  res = solve(args.game, args.teams, time_limit=args.time_limit, solver=args.solver)
  s = res.summary()
  if args.json:
    print(json.dumps(s))
  else:
    print(f"game {s['game']}  teams {s['teams']}")
    print(f"value (team 1) {s['value']:.10f}   per member {s['value_per_member']}")
    print(f"#sequences per team {s['sequences']}   local solutions {s['local_solutions']}")
    print(f"LP: {s['lp_rows']} rows, {s['lp_cols']} columns, {s['lp_nonzeros']} nonzeros")
    print(f"seconds: build {s['build_seconds']}, solve {s['solve_seconds']}, "
          f"total {s['seconds']}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
