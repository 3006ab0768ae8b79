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
plan) is `plan.TeamPlan`; the LP over both teams' decompositions is `algorithms.team.team_lp`, and
exact team best responses over one decomposition are in `best_response.py`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.lp import local_solutions
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import TERMINAL
from ospiel_team.tree.game_tree import GameTree

_T = TypeVar("_T")

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


class TeamDecomposition:
  """Team tree, team-public states and reachable local solutions of one team (Secs. 3-4)."""

  def __init__(self, tree: GameTree, members: Sequence[int],
               max_local: int = DEFAULT_MAX_LOCAL, *, team_tree_only: bool = False):
    """Builds the team tree, public states, local solutions and leaf plan of one team.

    Args:
      tree: the game tree.
      members: the team's players.
      max_local: the most local solutions (LP columns) the team may have.
      team_tree_only: stop after the merged team tree (no public states).

    Raises:
      errors.SizeLimitError: the team has more than `max_local` local solutions (before they
        are built).
      errors.UserError: a bad argument, named (`members` not distinct players of the game,
        `max_local` not an integer >= 1, ...).
    """
    checks.check_tree("tree", tree)
    checked = checks.check_int_sequence("members", members, what="players")
    max_local = checks.check_int("max_local", max_local, minimum=1)
    checks.check_bool("team_tree_only", team_tree_only)
    self.tree = tree
    self.members = tuple(checked or ())
    if not self.members or len(set(self.members)) != len(self.members) or any(
        not 0 <= p < tree.num_players for p in self.members):
      raise errors.UserError(f"members={list(members)!r}: give distinct players of the "
                       f"{tree.num_players}-player game {tree.game}")
    self.max_local = max_local
    self._derived: dict[str, object] = {}
    self._team_tree()
    if team_tree_only:  # the merged team tree alone (used by `plan_mip`)
      return
    teams_lib.check_timeable(tree)
    self._public_states()
    self._local_solutions()
    self._leaf_plan()

  def derived(self, key: str, build: Callable[[], _T]) -> _T:
    """An object derived from this decomposition (e.g. its belief DAG), built once and kept.

    The cache lives on the decomposition and dies with it; the modules that derive objects
    (`algorithms.team.restricted`) use this method, never an attribute of their own on it.

    Args:
      key: what is derived ("belief_dag").
      build: makes the object on the first call for `key`.

    Returns:
      The object kept for `key`.
    """
    if key not in self._derived:
      self._derived[key] = build()
    return self._derived[key]  # type: ignore[return-value]

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
    """Algorithm 1: the acting public states with their local solutions.

    Algorithm 1: the acting public states in depth order, each with its anchor, reachable
    sets and local solutions (built by `local_solutions.build`, wrapped as per-state views).
    """
    grouped, bounds, loc_inf, slot_infosets, inf_bounds = self._acting_states()
    slot_of_node = np.where(self.tt_ps >= 0, self.ps_slot[np.maximum(self.tt_ps, 0)], -1)
    legal_count, legal_order = self._legal_tables()
    try:
      flat = local_solutions.build(
          grouped, bounds, loc_inf, slot_infosets, inf_bounds, self.tt_anchor_child,
          self.tt_parent, self.tt_action, slot_of_node, legal_count, legal_order,
          self.max_local)
    except local_solutions.TooManyLocalSolutions:
      self._too_many_local()
    self.tt_local, self.tt_local_inf = flat.tt_local, flat.tt_local_inf
    self._single = (np.diff(bounds) == 1) & (self.tt_infoset[grouped[bounds[:-1]]] >= 0)
    self._flat = flat
    self._acting = (grouped, bounds, slot_infosets, inf_bounds)
    self.state_offsets = flat.local_off[:-1]
    self.num_local = int(flat.local_off[-1])

  def _acting_states(self):
    """The acting public states in depth order, with their nodes and team infosets.

    The acting public states in depth order (`ps_slot`), their nodes `grouped` (state after
    state, `bounds`), each node's index among its state's distinct team infosets (`loc_inf`,
    -1: not the team's) and those infosets, increasing (`slot_infosets`, `inf_bounds`).
    """
    ps = self.tt_ps
    team_nodes = np.nonzero((ps >= 0) & self.ps_team[np.maximum(ps, 0)])[0]
    # Order public states by depth (nodes are level ordered, so by first node).
    order_ps, first = np.unique(ps[team_nodes], return_index=True)
    order_ps = order_ps[np.argsort(team_nodes[first], kind="stable")]
    self.ps_slot = np.full(self.num_public_states, -1, dtype=np.int64)
    self.ps_slot[order_ps] = np.arange(len(order_ps))
    slot_of_node = self.ps_slot[ps[team_nodes]]
    sort = np.argsort(slot_of_node, kind="stable")
    grouped = team_nodes[sort]
    slot_sorted = slot_of_node[sort]
    bounds = np.searchsorted(slot_sorted, np.arange(len(order_ps) + 1))
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
    loc_inf = np.full(len(grouped), -1, dtype=np.int64)
    loc_inf[idx[o]] = c - base
    inf_bounds = np.searchsorted(s_o[new_inf], np.arange(len(order_ps) + 1))
    return grouped, bounds, loc_inf, i_o[new_inf], inf_bounds

  @functools.cached_property
  def states(self) -> list[_PublicState]:
    """The acting public states in depth order, as views into flat arrays.

    Read-only views into the flat arrays of `local_solutions.build`, made on first use (the
    LP and its size estimate need none).
    """
    flat = self._flat
    grouped, bounds, slot_infosets, inf_bounds = self._acting
    states = []
    lo, ro, ao, po = (x.tolist() for x in (flat.local_off, flat.reach_off, flat.act_off,
                                           flat.pts_off))
    bd, ib = bounds.tolist(), inf_bounds.tolist()
    for slot, (anchor, num_sets) in enumerate(zip(flat.anchor.tolist(), flat.num_sets.tolist(),
                                                  strict=True)):
      n, k, nl = bd[slot + 1] - bd[slot], ib[slot + 1] - ib[slot], lo[slot + 1] - lo[slot]
      states.append(_PublicState(
          index=slot, nodes=grouped[bd[slot]:bd[slot + 1]],
          infosets=slot_infosets[ib[slot]:ib[slot + 1]], anchor=anchor,
          reach=flat.reach[ro[slot]:ro[slot + 1]].reshape(nl, n),
          actions=flat.actions[ao[slot]:ao[slot + 1]].reshape(nl, k),
          local_set=flat.local_set[lo[slot]:lo[slot + 1]], num_sets=num_sets,
          parent_to_set=None if anchor < 0 else flat.parent_to_set[po[slot]:po[slot + 1]],
          offset=lo[slot]))
    return states

  def _legal_tables(self):
    """Each infoset's number of legal actions and those actions first.

    Per infoset of the tree: its number of legal actions and its legal actions first, in
    increasing order.
    """
    lg = self.tree.infoset_legal
    return lg.sum(axis=1), np.argsort(~lg, axis=1, kind="stable")

  def _too_many_local(self):
    raise errors.SizeLimitError(
        f"the team {self.members} of {self.tree.game} has more than max_local="
        f"{self.max_local} local solutions (LP columns); the game has too much uncommon "
        "external information for the team LP (Theorem 4.1)")

  # --- 5. constraint system ---------------------------------------------------------------------
  def constraint_system(self):
    """The constraint system (D, d) of the team's plan polytope.

    (D, d): rows (S, R) of C.2 (and the root-bag rows) over this team's lambdas (built once
    and kept: the LP, its size estimate and the plans' checks share it; do not modify).

    Returns:
      `(D, d)`: the sparse constraint matrix and its right-hand side, so that D @ lambda = d.
    """
    if getattr(self, "_constraints", None) is None:
      self._constraints = self._build_constraint_system()
    return self._constraints

  def _build_constraint_system(self):
    flat = self._flat
    k = len(flat.anchor)
    num_sets, counts, anchors = flat.num_sets, np.diff(flat.local_off), flat.anchor
    row_start = np.concatenate([[0], np.cumsum(num_sets)])
    num_rows = int(row_start[-1])
    if k == 0:
      return sparse.csr_matrix((0, self.num_local)), np.zeros(0)
    # +lambda_S(R, A) in row (S, R).
    local_set = flat.local_set
    rows = [np.repeat(row_start[:-1], counts) + local_set]
    cols = [np.arange(self.num_local)]
    vals = [np.ones(self.num_local)]
    # -lambda(R', A') of the anchor in the row (S, R) it reaches.
    linked = np.nonzero(anchors >= 0)[0]
    if len(linked):
      pts = flat.parent_to_set  # the linked states' parent_to_set, in order
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
      st_reach, st_actions = self._state_arrays(slot)
      sel = rest[rest_slots == slot]
      reached = st_reach[:, self.tt_local[u[sel]]]
      team_u = a[sel] >= 0
      if team_u.any():
        acts = st_actions[:, self.tt_local_inf[u[sel][team_u]]]
        reached[:, team_u] &= acts == a[sel][team_u][None, :]
      j, c = np.nonzero(reached)
      rows.append(base + sel[c])
      cols.append(self.state_offsets[slot] + j)
    if rows:
      r = np.concatenate(rows)
      c = np.concatenate(cols)
    else:
      r = c = np.zeros(0, dtype=np.int64)
    self.leaf_matrix = sparse.csr_matrix((np.ones(len(r)), (r, c)),
                                         shape=(self.num_leaves, self.num_local))

  def _state_arrays(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
    """(reach [num_local, |S|], actions [num_local, num_infosets]) of one acting state."""
    flat, (_, bounds, _, inf_bounds) = self._flat, self._acting
    nl = int(flat.local_off[slot + 1] - flat.local_off[slot])
    reach = flat.reach[flat.reach_off[slot]:flat.reach_off[slot + 1]]
    actions = flat.actions[flat.act_off[slot]:flat.act_off[slot + 1]]
    return (reach.reshape(nl, int(bounds[slot + 1] - bounds[slot])),
            actions.reshape(nl, int(inf_bounds[slot + 1] - inf_bounds[slot])))

  def leaf_values(self, lam: np.ndarray) -> np.ndarray:
    """Plan value x[c] of every leaf sequence (constant leaf: 1).

    Args:
      lam: the team's local-solution weights (lambda).

    Returns:
      The plan value of every leaf sequence.
    """
    x = self.leaf_matrix @ lam
    if self.const_leaf:
      x[0] = 1.0
    return x

  def terminal_reach(self, lam: np.ndarray) -> np.ndarray:
    """[num_terminals] the team's plan value at every terminal (prob. it plays to z).

    Args:
      lam: the team's local-solution weights (lambda).

    Returns:
      [num_terminals] the plan value at every terminal.
    """
    return self.leaf_values(lam)[self.terminal_leaf]

  def sizes(self) -> dict[str, int]:
    """The decomposition's sizes by name (sequences, public states, sets, ...).

    Returns:
      A dict of sequences, public_states, acting_public_states, reachable_sets, local_solutions,
        team_tree_nodes.
    """
    return dict(sequences=self.num_sequences, public_states=self.num_public_states,
                acting_public_states=len(self._flat.anchor),
                reachable_sets=int(self._flat.num_sets.sum()),
                local_solutions=self.num_local, team_tree_nodes=self.num_tt)
