r"""The tree decomposition of one team's strategy polytope.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022 (arXiv:2109.05284), Sections 3-4 and Appendix C. For a team (a set
of players acting as one imperfect-recall player, `ospiel_team.tree.teams`):

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

`TeamDecomposition(tree, members)` builds all of this. A point of the polytope (a correlated
plan) is `plan.TeamPlan`; the LP over both teams' decompositions is `algorithms.team.lp`, and
exact team best responses over one decomposition are in `best_response.py`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from ospiel_team import errors
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree, TERMINAL

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
  parent_to_set: np.ndarray | None  # [num_local of anchor] R reached in S (-1: none)
  offset: int = 0  # first LP column of this public state's lambdas


@dataclasses.dataclass
class _SingletonBatch:
  """All one-node acting public states of a team, prepared at once (`_singleton_batch`)."""
  pos: list  # slot -> index i among the one-node states (-1: not one)
  inf: np.ndarray  # [k] the node's team infoset
  acts: np.ndarray  # [sum of legal counts, 1] int16: the legal actions, state after state
  act_off: list  # [k + 1] offsets into acts
  ones: np.ndarray  # [len(acts), 1] bool (the reach column, shared as views)
  zeros: np.ndarray  # [len(acts)] int64 (local_set, shared as views)
  anchor: list  # [k] anchor slot (-1: none)
  u: list  # [k] the anchor's node above this state (-1: none)
  a: list  # [k] the action from u (-1: u is not the team's)
  pts: np.ndarray  # parent_to_set of the states whose anchor is a one-node state, concatenated
  pts_off: list  # [k] offset into pts (-1: anchor has several nodes, or none)
  pts_len: list  # [k]


def _unique_rows(packed: np.ndarray):
  """np.unique(packed, axis=0, return_inverse=True) for uint8 rows, via one 1-D unique of the
  rows read as big-endian integers (same sorted order: lexicographic by byte) when they fit
  in 8 bytes; the generic (slower) row unique otherwise."""
  rows, width = packed.shape
  if width == 0 or width > 8:
    uniq, inv = np.unique(packed, axis=0, return_inverse=True)
    return uniq, inv.reshape(-1)
  padded = np.zeros((rows, 8), dtype=np.uint8)
  padded[:, :width] = packed
  keys = padded.view(">u8").reshape(-1).astype(np.uint64)
  ukeys, first, inv = np.unique(keys, return_index=True, return_inverse=True)
  return packed[first], inv.reshape(-1)


class TeamDecomposition:
  """Team tree, team-public states and reachable local solutions of one team (Secs. 3-4)."""

  def __init__(self, tree: GameTree, members: Sequence[int],
               max_local: int = DEFAULT_MAX_LOCAL, team_tree_only: bool = False):
    """Builds the team tree, public states, local solutions and leaf plan of one team.

    Args:
      tree: the game tree.
      members: the team's players.
      max_local: the most local solutions (LP columns) the team may have.
      team_tree_only: stop after the merged team tree (no public states).

    Raises:
      errors.SizeLimitError: the team has more than `max_local` local solutions (before they
        are built).
      errors.UserError: `members` are not distinct players of the game.
    """
    self.tree = tree
    self.members = tuple(int(p) for p in members)
    if not self.members or len(set(self.members)) != len(self.members) or any(
        not 0 <= p < tree.num_players for p in self.members):
      raise errors.UserError(f"members={list(members)!r}: give distinct players of the "
                       f"{tree.num_players}-player game {tree.game}")
    self.max_local = max_local
    self._team_tree()
    if team_tree_only:  # the merged team tree alone (used by `plan_mip`)
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
    ps = self.tt_ps
    team_nodes = np.nonzero((ps >= 0) & self.ps_team[np.maximum(ps, 0)])[0]
    # Order public states by depth (nodes are level ordered, so by first node).
    order_ps, first = np.unique(ps[team_nodes], return_index=True)
    order_ps = order_ps[np.argsort(team_nodes[first], kind="stable")]
    ps_slot = np.full(self.num_public_states, -1, dtype=np.int64)
    ps_slot[order_ps] = np.arange(len(order_ps))
    self.ps_slot = ps_slot
    # Group nodes by public state.
    slot_of_node = ps_slot[ps[team_nodes]]
    sort = np.argsort(slot_of_node, kind="stable")
    grouped = team_nodes[sort]
    num_slots = len(order_ps)
    bounds = np.searchsorted(slot_of_node[sort], np.arange(num_slots + 1))
    self.tt_local = np.full(self.num_tt, -1, dtype=np.int64)
    self.tt_local_inf = np.full(self.num_tt, -1, dtype=np.int64)
    self.states: list[_PublicState] = []
    # One-node public states (the node is the team's: the state is one where the team acts)
    # are prepared in numpy batches; the loop below then only wraps views of them.
    single = (np.diff(bounds) == 1) & (self.tt_infoset[grouped[bounds[:-1]]] >= 0)
    batch = self._singleton_batch(grouped, bounds, single) if single.any() else None
    self._single = single
    # Every state's distinct team infosets (increasing) and each node's index among them, for
    # all states at once.
    slot_sorted = slot_of_node[sort]
    inf_all = self.tt_infoset[grouped]
    idx = np.nonzero(inf_all >= 0)[0]
    o = np.lexsort((inf_all[idx], slot_sorted[idx]))
    s_o, i_o = slot_sorted[idx][o], inf_all[idx][o]
    new_inf = np.ones(len(o), dtype=bool)
    new_inf[1:] = (s_o[1:] != s_o[:-1]) | (i_o[1:] != i_o[:-1])
    new_slot = np.ones(len(o), dtype=bool)
    new_slot[1:] = s_o[1:] != s_o[:-1]
    c = np.cumsum(new_inf) - 1
    base = np.maximum.accumulate(np.where(new_slot, c, 0))
    loc_inf_all = np.full(len(grouped), -1, dtype=np.int64)
    loc_inf_all[idx[o]] = c - base
    slot_infosets = i_o[new_inf]
    inf_bounds = np.searchsorted(s_o[new_inf], np.arange(num_slots + 1))
    total = 0
    for slot in range(num_slots):
      if single[slot]:
        i = batch.pos[slot]
        o, e = batch.act_off[i], batch.act_off[i + 1]
        anchor = batch.anchor[i]
        if anchor < 0:
          parent_to_set = None
        elif batch.pts_off[i] >= 0:
          parent_to_set = batch.pts[batch.pts_off[i]:batch.pts_off[i] + batch.pts_len[i]]
        else:  # the anchor has several nodes: read its reach and actions
          parent_to_set = self._parent_to_singleton(self.states[anchor], batch.u[i],
                                                    batch.a[i])
        b = bounds[slot]
        st = _PublicState(
            index=slot, nodes=grouped[b:b + 1], infosets=batch.inf[i:i + 1], anchor=anchor,
            reach=batch.ones[o:e], actions=batch.acts[o:e], local_set=batch.zeros[o:e],
            num_sets=1, parent_to_set=parent_to_set)
        total += e - o
        if total > self.max_local:
          self._too_many_local()
        self.states.append(st)
        continue
      nodes = grouped[bounds[slot]:bounds[slot + 1]]
      self.tt_local[nodes] = np.arange(len(nodes))
      infosets = slot_infosets[inf_bounds[slot]:inf_bounds[slot + 1]]
      loc_inf = loc_inf_all[bounds[slot]:bounds[slot + 1]]
      self.tt_local_inf[nodes] = loc_inf
      achild = self.tt_anchor_child[nodes]
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
        uniq, inv = _unique_rows(packed)
        nonempty = uniq.any(axis=1)
        new_id = np.cumsum(nonempty) - 1
        new_id[~nonempty] = -1
        parent_to_set = new_id[inv]
        sets = np.unpackbits(uniq[nonempty], axis=1, count=len(nodes)).astype(bool)
      # Local solutions: every joint action of the team infosets meeting each R.
      reach, actions, local_set = self._joint_actions(sets, loc_inf, infosets, total)
      total += len(local_set)
      st = _PublicState(
          index=slot, nodes=nodes, infosets=infosets, anchor=anchor, reach=reach,
          actions=actions, local_set=local_set, num_sets=len(sets),
          parent_to_set=parent_to_set)
      self.states.append(st)
    counts = np.fromiter((len(st.local_set) for st in self.states), dtype=np.int64,
                         count=len(self.states))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    for st, off in zip(self.states, offsets[:-1].tolist(), strict=True):
      st.offset = off
    self.state_offsets = offsets[:-1]
    self.num_local = int(offsets[-1])

  def _joint_actions(self, sets, loc_inf, infosets, total):
    """Local solutions of the reachable sets `sets` [num_sets, |S|] of one public state.

    For each R (in order), every joint action of the infosets meeting R, enumerated like
    `np.meshgrid(..., indexing="ij")` over those infosets in increasing order (the last one
    varies fastest): a mixed-radix count over all sets at once. Returns (reach [num_local, |S|],
    actions [num_local, num_infosets] int16 with -1 off R, local_set [num_local]).
    """
    ns, n = sets.shape
    k = len(infosets)
    team = np.nonzero(loc_inf >= 0)[0]
    onehot = np.zeros((len(team), k), dtype=np.int64)
    onehot[np.arange(len(team)), loc_inf[team]] = 1
    meet = (sets[:, team].astype(np.int64) @ onehot) > 0  # [ns, k]
    legal_count, legal_order = self._legal_tables()
    c = legal_count[infosets]
    radix = np.where(meet, c[None, :], 1)
    # Exact count check before any int64 product can overflow (none can when every product
    # of k radices is below 2^62).
    if k and k * math.log2(max(int(c.max()), 1)) >= 62:
      log_count = np.log2(radix).sum(axis=1)
      if total + float(np.exp2(log_count).sum()) > 2.0 * self.max_local + 1:
        self._too_many_local()
    count = radix.prod(axis=1) if k else np.ones(ns, dtype=np.int64)
    if total + int(count.sum()) > self.max_local:
      self._too_many_local()
    # stride[r, j] = product of the radices after j.
    stride = np.ones((ns, k), dtype=np.int64)
    if k > 1:
      stride[:, :-1] = np.cumprod(radix[:, ::-1], axis=1)[:, ::-1][:, 1:]
    set_id = np.repeat(np.arange(ns), count)
    start = np.concatenate([[0], np.cumsum(count)])
    t = np.arange(int(start[-1])) - np.repeat(start[:-1], count)
    digit = (t[:, None] // stride[set_id]) % radix[set_id]  # [num_local, k]
    # Legal actions of each infoset in increasing order, padded: act_of[j, d].
    order = legal_order[infosets]
    picked = order[np.arange(k)[None, :], digit] if k else digit
    actions = np.where(meet[set_id], picked, -1).astype(np.int16)
    return sets[set_id], actions, set_id

  def _legal_tables(self):
    """Per infoset of the tree: its number of legal actions and its legal actions first, in
    increasing order (computed once per decomposition, used by `_joint_actions`)."""
    if getattr(self, "_legal", None) is None:
      lg = self.tree.infoset_legal
      self._legal = (lg.sum(axis=1), np.argsort(~lg, axis=1, kind="stable"))
    return self._legal

  def _too_many_local(self):
    raise errors.SizeLimitError(
        f"the team {self.members} of {self.tree.game} has more than max_local="
        f"{self.max_local} local solutions (LP columns); the game has too much uncommon "
        "external information for the team LP (Theorem 4.1)")

  def _singleton_batch(self, grouped, bounds, single):
    """Arrays of all one-node acting public states at once (see `_local_solutions`).

    For the i-th such state (slot `slots[i]`): its infoset `inf[i]`, its local solutions (one
    per legal action, increasing) `acts[act_off[i]:act_off[i+1]]`, its anchor slot and, when the
    anchor is itself a one-node state, its `parent_to_set` as `pts[pts_off[i]:...+pts_len[i]]`
    (-1 in pts_off: computed in the loop from the anchor's arrays).
    """
    slots = np.nonzero(single)[0]
    node = grouped[bounds[slots]]
    inf = self.tt_infoset[node]
    self.tt_local[node] = 0
    self.tt_local_inf[node] = 0
    lg = self.tree.infoset_legal[inf]
    cnt = lg.sum(axis=1)
    _, act = np.nonzero(lg)  # row-major: each state's legal actions in increasing order
    act_off = np.concatenate([[0], np.cumsum(cnt)])
    pos = np.full(len(single), -1, dtype=np.int64)
    pos[slots] = np.arange(len(slots))
    achild = self.tt_anchor_child[node]
    has = achild >= 0
    u = np.full(len(slots), -1, dtype=np.int64)
    a = np.full(len(slots), -1, dtype=np.int64)
    anchor = np.full(len(slots), -1, dtype=np.int64)
    u[has] = self.tt_parent[achild[has]]
    a[has] = self.tt_action[achild[has]]
    anchor[has] = self.ps_slot[self.tt_ps[u[has]]]
    # parent_to_set of states whose anchor is a one-node state: 0 where the anchor's local
    # solution (an action of the anchor's node, which is u) is a (or any, if u is not the
    # team's: a = -1), else -1.
    linked = np.nonzero(has & single[np.maximum(anchor, 0)])[0]
    ap = pos[anchor[linked]]
    lengths = cnt[ap]
    pts_off = np.full(len(slots), -1, dtype=np.int64)
    pts_len = np.zeros(len(slots), dtype=np.int64)
    seg = np.concatenate([[0], np.cumsum(lengths)])
    pts_off[linked] = seg[:-1]
    pts_len[linked] = lengths
    within = np.arange(int(seg[-1])) - np.repeat(seg[:-1], lengths)
    parent_act = act[np.repeat(act_off[ap], lengths) + within]
    a_rep = np.repeat(a[linked], lengths)
    pts = np.where((a_rep < 0) | (parent_act == a_rep), 0, -1).astype(np.int64)
    return _SingletonBatch(
        pos=pos.tolist(), inf=inf, acts=act.astype(np.int16)[:, None],
        act_off=act_off.tolist(), ones=np.ones((len(act), 1), dtype=bool),
        zeros=np.zeros(len(act), dtype=np.int64), anchor=anchor.tolist(), u=u.tolist(),
        a=a.tolist(), pts=pts, pts_off=pts_off.tolist(), pts_len=pts_len.tolist())

  def _parent_to_singleton(self, par: _PublicState, u: int, a: int) -> np.ndarray:
    """parent_to_set of a one-node state entered from node u of `par` by action a (-1: any)."""
    col = par.reach[:, self.tt_local[u]].copy()
    if a >= 0:
      col &= par.actions[:, self.tt_local_inf[u]] == a
    return np.where(col, 0, -1)

  # --- 5. constraint system ---------------------------------------------------------------------
  def constraint_system(self):
    """(D, d): rows (S, R) of C.2 (and the root-bag rows) over this team's lambdas (built once
    and kept: the LP, its size estimate and the plans' checks share it; do not modify)."""
    if getattr(self, "_constraints", None) is None:
      self._constraints = self._build_constraint_system()
    return self._constraints

  def _build_constraint_system(self):
    states = self.states
    k = len(states)
    num_sets = np.fromiter((st.num_sets for st in states), dtype=np.int64, count=k)
    counts = np.fromiter((len(st.local_set) for st in states), dtype=np.int64, count=k)
    anchors = np.fromiter((st.anchor for st in states), dtype=np.int64, count=k)
    row_start = np.concatenate([[0], np.cumsum(num_sets)])
    num_rows = int(row_start[-1])
    if k == 0:
      return sparse.csr_matrix((0, self.num_local)), np.zeros(0)
    # +lambda_S(R, A) in row (S, R).
    local_set = np.concatenate([st.local_set for st in states])
    rows = [np.repeat(row_start[:-1], counts) + local_set]
    cols = [np.arange(self.num_local)]
    vals = [np.ones(self.num_local)]
    # -lambda(R', A') of the anchor in the row (S, R) it reaches.
    linked = np.nonzero(anchors >= 0)[0]
    if len(linked):
      pts = np.concatenate([states[i].parent_to_set for i in linked])
      lengths = counts[anchors[linked]]
      seg = np.concatenate([[0], np.cumsum(lengths)])
      within = np.arange(int(seg[-1])) - np.repeat(seg[:-1], lengths)
      col = np.repeat(self.state_offsets[anchors[linked]], lengths) + within
      row = np.repeat(row_start[linked], lengths) + pts
      hit = pts >= 0
      rows.append(row[hit])
      cols.append(col[hit])
      vals.append(-np.ones(int(hit.sum())))
    rhs = np.repeat(np.where(anchors < 0, 1.0, 0.0), num_sets)
    d_mat = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                       np.concatenate(cols))),
                              shape=(num_rows, self.num_local))
    return d_mat, rhs

  # --- leaf plan (C.1 at the leaves) ----------------------------------------------------------
  def _leaf_plan(self):
    """Leaf sequence of every terminal and the map F: lambdas -> leaf plan values."""
    tree = self.tree
    tt_term = self.tt_of_node[tree.terminals]
    leaf = self.tt_anchor_child[tt_term]  # -1: the team never acted before (plan value 1)
    leaves, inv = np.unique(leaf, return_inverse=True)
    inv = inv.reshape(-1)
    self.const_leaf = bool(len(leaves) and leaves[0] < 0)
    self.terminal_leaf = inv
    if self.const_leaf:
      # Index 0 is the constant leaf (x = 1); others follow.
      real = leaves[1:]
      base = 1
    else:
      real = leaves
      base = 0
    self.num_leaves = len(leaves)
    rows, cols = [], []
    u = self.tt_parent[real]
    a = self.tt_action[real]
    slots = self.ps_slot[self.tt_ps[u]]
    rest = np.arange(len(real))
    if len(real):
      # A leaf below a one-node state's node u by the team's action a is reached by exactly
      # one local solution: that action (its rank among u's legal actions).
      fast = np.nonzero(self._single[slots] & (a >= 0))[0]
      if len(fast):
        lg = tree.infoset_legal[self.tt_infoset[u[fast]]]
        if not lg[np.arange(len(fast)), a[fast]].all():
          raise AssertionError("a leaf below an illegal action")
        rank = np.cumsum(lg, axis=1)[np.arange(len(fast)), a[fast]] - 1
        rows.append(base + fast)
        cols.append(self.state_offsets[slots[fast]] + rank)
      rest = np.nonzero(~(self._single[slots] & (a >= 0)))[0]
    rest_slots = slots[rest]
    for slot in np.unique(rest_slots):
      st = self.states[slot]
      sel = rest[rest_slots == slot]
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

  def sizes(self) -> dict[str, int]:
    return dict(sequences=self.num_sequences, public_states=self.num_public_states,
                acting_public_states=len(self.states),
                reachable_sets=int(sum(st.num_sets for st in self.states)),
                local_solutions=self.num_local, team_tree_nodes=self.num_tt)
