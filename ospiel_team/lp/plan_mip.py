"""Best joint pure plans of a team by mixed-integer programming and by enumeration.

The team's best response to fixed opponents, and the optimum of a cooperative game, are best
joint pure strategies: the objective is linear in the team's correlated plan, so a vertex of
its plan polytope (a pure joint plan) is optimal (Zhang & Sandholm, "Team Correlated Equilibria
in Zero-Sum Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284,
Prop. 2.9). `best_joint_pure_strategy_mip` solves the mixed-integer program over the members'
binary sequence-form plans (HiGHS MIP): binary r_p[sigma] with r_p[parent(I)] = sum_a r_p[I a]
for every infoset I of player p, and one continuous x_g in [0, 1] per group g of terminals with
the same tuple of the members' last sequences, linearising prod_p r_p[sigma_p(g)]. `flow_model`
builds the same program once for repeated solves with changing terminal weights (the
column-generation oracle). `brute_force_best_joint` enumerates pure plans (an independent check
on the smallest games).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from ospiel_team import errors
from ospiel_team.lp import decomposition as team_decomposition
from ospiel_team.lp import highs
from ospiel_team.tree import memory
from ospiel_team.tree.game_tree import GameTree


@dataclasses.dataclass(frozen=True)
class JointPureResult:
  """A best joint pure strategy of a team against fixed terminal weights."""
  value: float  # sum_z w[z] x[z] of the strategy found
  bound: float  # proven upper bound (== value when proven optimal)
  proven_optimal: bool
  gap: float  # (bound - value) / max(1, |value|)
  seconds: float
  strategy: dict[int, int]  # infoset -> action for the team's infosets
  method: str


def best_joint_pure_strategy_mip(tree: GameTree, members: Sequence[int],
                                 terminal_weights: np.ndarray,
                                 *, time_limit: float | None = None,
                                 threads: int | None = None,
                                 mip_gap: float = 0.0,
                                 formulation: str = "flow",
                                 initial_strategy: dict[int, int] | None = None
                                 ) -> JointPureResult:
  """The team's best joint pure strategy against the leaf weights `w`, by a MIP.

  max over the members' joint pure strategies of sum_z w[z] prod_p r_p[sigma_p(z)] (MIP).

  `formulation="flow"` (default): binary r_p as below, and one continuous e[v, a] per team
  sequence (team-tree node v where the team acts, action a; `decomposition` merges histories
  with the same team sequence) with the flow rows sum_a e[v, a] = e[edge into v] (= 1 at the
  top) and e[v, a] <= r_p[I(v) a]. With binary r the flow is exactly the product of the
  members' reach (the acting member plays exactly one action at a reached infoset), for weights
  of any sign; its LP relaxation is the team's perfect-recall relaxation, much tighter than
  McCormick's. `formulation="mccormick"`: the per-terminal-group product linearisation
  described in the module docstring.
  `initial_strategy` (infoset -> action for the members' infosets, e.g. JPS's purified policy;
  flow formulation only) is handed to HiGHS as its first incumbent, so the MIP never returns a
  worse strategy and can prune with its value from the start.

  Args:
    tree: the game tree.
    members: the team's players.
    terminal_weights: [num_terminals] w[z]: chance reach x the others' reach x the team's utility.
    time_limit: HiGHS seconds (None: no limit).
    threads: HiGHS threads (None: HiGHS's default).
    mip_gap: HiGHS's relative MIP gap to stop at (0: proven optimal).
    formulation: "flow" or "mccormick" (above).
    initial_strategy: a joint pure strategy (infoset -> action) handed to HiGHS as the first
      incumbent (None: none).

  Returns:
    A `JointPureResult`: the strategy, its value, the MIP's proven bound and gap.
  """
  if formulation == "flow":
    return _mip_flow(tree, members, terminal_weights, time_limit, threads, mip_gap,
                     initial_strategy)
  if initial_strategy is not None:
    raise ValueError("initial_strategy needs formulation='flow'")
  if formulation != "mccormick":
    raise ValueError(f"unknown MIP formulation {formulation!r}; use 'flow' or 'mccormick'")
  return _mip_mccormick(tree, members, terminal_weights, time_limit, threads, mip_gap)


def _mip_mccormick(tree: GameTree, members: Sequence[int], terminal_weights: np.ndarray,
                   time_limit: float | None, threads: int | None,
                   mip_gap: float) -> JointPureResult:
  """The per-terminal-group product linearisation of the module docstring (McCormick)."""
  start = time.perf_counter()
  members = [int(p) for p in members]
  # Binary columns (every legal (infoset, action) of every member) and sequence-form rows:
  # sum_a r[I a] - r[parent(I)] = 0 (or = 1 for root infosets).
  team_inf, inf_rep, act, col_of_seq, rows, cols, vals, lo, hi = sequence_form_rows(
      tree, members)
  n_bin = len(inf_rep)
  row = len(team_inf)
  # Terminal groups by the members' last sequences.
  last = np.stack([tree.sequences[p].terminal_last_seq for p in members], axis=1)
  keys, inv = np.unique(last, axis=0, return_inverse=True)
  inv = inv.reshape(-1)
  w_group = np.bincount(inv, weights=terminal_weights, minlength=len(keys))
  const = 0.0
  cost = list(np.zeros(n_bin))
  n_cols = n_bin
  for g, key in enumerate(keys):
    w = float(w_group[g])
    active = [int(col_of_seq[int(s)]) for s in key if s >= 0]
    if w == 0.0:
      continue
    if not active:
      const += w
      continue
    if len(active) == 1:
      cost[active[0]] += w
      continue
    xg = n_cols
    n_cols += 1
    cost.append(w)
    if w > 0:
      for c in active:  # x_g - r <= 0
        rows += [row, row]
        cols += [xg, c]
        vals += [1.0, -1.0]
        lo.append(-np.inf)
        hi.append(0.0)
        row += 1
    else:  # x_g - sum r >= 1 - k
      rows.append(row)
      cols.append(xg)
      vals.append(1.0)
      for c in active:
        rows.append(row)
        cols.append(c)
        vals.append(-1.0)
      lo.append(1.0 - len(active))
      hi.append(np.inf)
      row += 1
  a_mat = sparse.csr_matrix((vals, (rows, cols)), shape=(row, n_cols))
  integrality = np.zeros(n_cols, dtype=bool)
  integrality[:n_bin] = True
  return _finish_mip(tree, team_inf, inf_rep, act, n_bin, np.asarray(cost), a_mat, lo, hi,
                     integrality, const, time_limit, threads, mip_gap, start, "mip")


def sequence_form_rows(tree: GameTree, members: Sequence[int]):
  """The members' sequence-form constraints, one column per legal (infoset, action).

  Returns (team_inf, inf_rep, act, col_of_seq, rows, cols, vals, lo, hi): the members' infosets,
  each column's infoset index into team_inf and action, a map flat sequence -> column (-1: none),
  and the constraint triplets with bounds: sum_a r[I a] - r[parent seq of I] = 0, or = 1 when I
  has no parent sequence (Koller, Megiddo & von Stengel 1996).

  Args:
    tree: the game tree.
    members: the team's players.

  Returns:
    `(team_inf, inf_rep, act, col_of_seq, rows, cols, vals, lo, hi)` as above.
  """
  a_count = tree.num_actions
  team_inf = np.nonzero(np.isin(tree.infoset_player, members))[0]
  inf_rep, act = np.nonzero(tree.infoset_legal[team_inf])
  seq_flat = team_inf[inf_rep] * a_count + act
  col_of_seq = np.full(tree.num_infosets * a_count, -1, dtype=np.int64)
  col_of_seq[seq_flat] = np.arange(len(seq_flat))
  rows = list(inf_rep)
  cols = list(range(len(seq_flat)))
  vals = [1.0] * len(seq_flat)
  lo, hi = [], []
  for k, i in enumerate(team_inf):
    ps = int(tree.sequences[int(tree.infoset_player[i])].infoset_parent_seq[i])
    if ps >= 0:
      rows.append(k)
      cols.append(int(col_of_seq[ps]))
      vals.append(-1.0)
      lo.append(0.0)
      hi.append(0.0)
    else:
      lo.append(1.0)
      hi.append(1.0)
  return team_inf, inf_rep, act, col_of_seq, rows, cols, vals, lo, hi


@dataclasses.dataclass
class FlowModel:
  """The flow MIP of a team (`best_joint_pure_strategy_mip`), independent of the weights.

  Columns [r (n_bin binaries) | e (edges)]; `terminal_edge[z]` is the edge column whose value is
  the team's reach of terminal z (-1: the team does not act above z, reach 1).
  """
  team_inf: np.ndarray
  inf_rep: np.ndarray
  act: np.ndarray
  n_bin: int
  a_mat: sparse.csr_matrix
  lo: list
  hi: list
  integrality: np.ndarray
  terminal_edge: np.ndarray
  dec: object
  edge_index: np.ndarray
  into: np.ndarray

  @property
  def num_cols(self) -> int:
    """The number of columns of the constraint matrix."""
    return self.a_mat.shape[1]

  def cost(self, terminal_weights: np.ndarray):
    """(column costs, constant) of the objective sum_z w[z] reach(z).

    Args:
      terminal_weights: [num_terminals] w[z]: chance reach x the others' reach x the team's utility.

    Returns:
      `(cost, constant)`: [num_cols] column costs and the weight of terminals every strategy
        reaches.
    """
    t_edge = self.terminal_edge
    const = float(terminal_weights[t_edge < 0].sum())
    cost = np.zeros(self.num_cols)
    np.add.at(cost, t_edge[t_edge >= 0], terminal_weights[t_edge >= 0])
    return cost, const


def flow_model(tree: GameTree, members: Sequence[int]) -> FlowModel:
  """Builds the flow MIP's rows for `members` (see `best_joint_pure_strategy_mip`).

  Args:
    tree: the game tree.
    members: the team's players.

  Returns:
    The `FlowModel` (rows, columns and the terminals' edges), without objective.
  """
  members = [int(p) for p in members]
  a_count = tree.num_actions
  team_inf, inf_rep, act, col_of_seq, rows, cols, vals, lo, hi = sequence_form_rows(
      tree, members)
  n_bin = len(inf_rep)
  row = len(team_inf)
  dec = team_decomposition.TeamDecomposition(tree, members, team_tree_only=True)
  team_nodes = np.nonzero(dec.tt_infoset >= 0)[0]
  # Edge columns e[v, a]: one per team node and legal action.
  legal = tree.infoset_legal[dec.tt_infoset[team_nodes]]
  v_rep, e_act = np.nonzero(legal)
  n_edge = len(v_rep)
  edge_v = team_nodes[v_rep]
  edge_index = np.full((dec.num_tt, a_count), -1, dtype=np.int64)
  edge_index[edge_v, e_act] = n_bin + np.arange(n_edge)
  # Edge into every team-tree node (-1: none, the constant 1).
  into = np.full(dec.num_tt, -1, dtype=np.int64)
  is_team = dec.tt_infoset >= 0
  for s, e in dec.tt_levels[1:]:
    par = dec.tt_parent[s:e]
    into[s:e] = np.where(is_team[par], edge_index[par, np.maximum(dec.tt_action[s:e], 0)],
                         into[par])
  # Flow rows: sum_a e[v, a] - e[into v] = 0 (or = 1).
  flow_rows = row + np.arange(len(team_nodes))
  rows += list(flow_rows[v_rep])
  cols += list(n_bin + np.arange(n_edge))
  vals += [1.0] * n_edge
  parent_edge = into[team_nodes]
  has = parent_edge >= 0
  rows += list(flow_rows[has])
  cols += list(parent_edge[has])
  vals += [-1.0] * int(has.sum())
  lo += list(np.where(has, 0.0, 1.0))
  hi += list(np.where(has, 0.0, 1.0))
  row += len(team_nodes)
  # Linking rows: e[v, a] - r_p[I(v) a] <= 0.
  r_col = col_of_seq[dec.tt_infoset[edge_v] * a_count + e_act]
  link = row + np.arange(n_edge)
  rows += list(link) + list(link)
  cols += list(n_bin + np.arange(n_edge)) + list(r_col)
  vals += [1.0] * n_edge + [-1.0] * n_edge
  lo += [-np.inf] * n_edge
  hi += [0.0] * n_edge
  row += n_edge
  # The objective lives on the edges into terminals.
  t_edge = into[dec.tt_of_node[tree.terminals]]
  a_mat = sparse.csr_matrix((vals, (rows, cols)), shape=(row, n_bin + n_edge))
  integrality = np.zeros(n_bin + n_edge, dtype=bool)
  integrality[:n_bin] = True
  return FlowModel(team_inf=team_inf, inf_rep=inf_rep, act=act, n_bin=n_bin, a_mat=a_mat, lo=lo,
                   hi=hi, integrality=integrality, terminal_edge=t_edge, dec=dec,
                   edge_index=edge_index, into=into)


def _mip_flow(tree, members, terminal_weights, time_limit, threads, mip_gap,
              initial_strategy=None):
  """The flow formulation of `best_joint_pure_strategy_mip`."""
  start = time.perf_counter()
  members = [int(p) for p in members]
  fm = flow_model(tree, members)
  cost, const = fm.cost(terminal_weights)
  x0 = None
  if initial_strategy is not None:
    x0 = _flow_start(tree, members, fm.dec, initial_strategy, fm.team_inf, fm.inf_rep, fm.act,
                     fm.edge_index, fm.num_cols - fm.n_bin, fm.into)
  return _finish_mip(tree, fm.team_inf, fm.inf_rep, fm.act, fm.n_bin, cost, fm.a_mat, fm.lo,
                     fm.hi, fm.integrality, const, time_limit, threads, mip_gap, start, "mip", x0)


def _flow_start(tree, members, dec, strategy, team_inf, inf_rep, act, edge_index, n_edge,
                into) -> np.ndarray:
  """The flow MIP's columns [r | e] for the joint pure strategy `strategy` (feasible)."""
  a_count = tree.num_actions
  for i in team_inf:
    a = strategy.get(int(i))
    if a is None or not tree.infoset_legal[i, a]:
      raise ValueError(f"initial_strategy: infoset {int(i)} ({tree.infoset_keys[i]!r}) needs "
                       f"a legal action, got {a!r}")
  n_bin = len(inf_rep)
  # r_p[I a] = r_p[parent(I)] * [strategy(I) = a], infosets in own-depth order.
  flat_r = np.zeros(tree.num_infosets * a_count)
  for p in members:
    for level in tree.sequences[p].infoset_levels:
      level = np.asarray(level, dtype=np.int64)
      ps = tree.sequences[p].infoset_parent_seq[level]
      reach = np.where(ps >= 0, flat_r[np.maximum(ps, 0)], 1.0)
      a = np.array([strategy[int(i)] for i in level], dtype=np.int64)
      flat_r[level * a_count + a] = reach
  r = flat_r[team_inf[inf_rep] * a_count + act]
  # e[v, a] = (flow into v) * [strategy(I(v)) = a], team-tree levels top down.
  e = np.zeros(n_edge)
  flow_in = np.ones(dec.num_tt)
  is_team = dec.tt_infoset >= 0
  for s, end in dec.tt_levels:
    for v in range(s, end):
      if into[v] >= 0:
        flow_in[v] = e[into[v] - n_bin]
      if is_team[v]:
        a = strategy[int(dec.tt_infoset[v])]
        e[edge_index[v, a] - n_bin] = flow_in[v]
  return np.concatenate([r, e])


def _finish_mip(tree, team_inf, inf_rep, act, n_bin, cost, a_mat, lo, hi, integrality, const,
                time_limit, threads, mip_gap, start, method, x0=None):
  n_cols = a_mat.shape[1]
  h = highs.solve(np.asarray(cost), a_mat, np.asarray(lo), np.asarray(hi), np.zeros(n_cols),
                  np.ones(n_cols), True, time_limit=time_limit, threads=threads,
                  integrality=integrality, mip_gap=mip_gap, initial_solution=x0)
  status = highs.check_status(h, "the joint pure strategy MIP", time_limit, incumbent_ok=True)
  info = h.getInfo()
  sol = np.asarray(h.getSolution().col_value)
  strategy: dict[int, int] = {}
  for k in np.nonzero(sol[:n_bin] > 0.5)[0]:
    strategy[int(team_inf[inf_rep[k]])] = int(act[k])
  for i in team_inf:
    if int(i) not in strategy:
      strategy[int(i)] = int(np.nonzero(tree.infoset_legal[i])[0][0])
  value = float(info.objective_function_value) + const
  bound = float(info.mip_dual_bound) + const
  proven = status == highs.OPTIMAL
  if proven or not np.isfinite(bound):
    bound = value if proven else bound
  gap = max(0.0, bound - value) / max(1.0, abs(value)) if np.isfinite(bound) else float("inf")
  return JointPureResult(value=value, bound=bound, proven_optimal=proven, gap=gap,
                         seconds=time.perf_counter() - start, strategy=strategy, method=method)


def pure_plans(tree: GameTree, player: int, max_plans: int = 1_000_000, *,
               deadline: float | None = None, max_memory: int | None = None) -> np.ndarray:
  """[num_plans, num_infosets] every reduced pure strategy of `player` (-1 where unreached).

  Args:
    tree: the game tree.
    player: the player.
    max_plans: the most plans to enumerate.
    deadline: a `time.perf_counter()` time to stop at (None: no limit).
    max_memory: bytes the plans may take (None: no limit).

  Returns:
    [num_plans, num_infosets] int64, the action at each of the player's reached infosets.

  Raises:
    ValueError: more than `max_plans` plans.
    errors.SizeLimitError: the plans would take more than `max_memory` bytes (checked as they
      grow, before the memory is spent).
    highs.TimeLimitError: `time.perf_counter()` passed `deadline` while enumerating.
  """
  seqs = tree.sequences[player]
  order = [i for level in seqs.infoset_levels for i in level]
  plans = [np.full(tree.num_infosets, -1, dtype=np.int64)]
  a_count = tree.num_actions
  plan_bytes = 8 * tree.num_infosets + 112  # the array and its Python object
  for i in order:
    ps = int(seqs.infoset_parent_seq[i])
    acts = np.nonzero(tree.infoset_legal[i])[0]
    new = []
    for plan in plans:
      if ps >= 0 and plan[ps // a_count] != ps % a_count:
        new.append(plan)
        continue
      for a in acts:
        p2 = plan.copy()
        p2[i] = a
        new.append(p2)
      if len(new) % 4096 < len(acts):
        _check_limits(f"the pure plans of player {player}", len(new) * plan_bytes, deadline,
                      max_memory)
    plans = new
    if len(plans) > max_plans:
      raise ValueError(f"player {player} has more than max_plans={max_plans} pure plans")
  _check_limits(f"the pure plans of player {player}", 2 * len(plans) * plan_bytes, deadline,
                max_memory)
  return np.stack(plans)


def _check_limits(what: str, nbytes: int, deadline: float | None,
                  max_memory: int | None) -> None:
  """Raises past the deadline, or when `nbytes` for `what` exceed `max_memory`."""
  if deadline is not None and time.perf_counter() > deadline:
    raise highs.TimeLimitError(f"brute force: the time limit ran out while enumerating "
                               f"{what}", bound=float("inf"))
  if max_memory is not None and nbytes > max_memory:
    raise errors.SizeLimitError(f"brute force: {what} need more than {nbytes:,} bytes, over "
                                f"the memory budget of {max_memory:,} bytes (a share of the "
                                "memory available); use the MIP")


def _plan_reach(tree: GameTree, player: int, plans: np.ndarray) -> np.ndarray:
  """[num_plans, num_terminals] 1 where the plan plays to the terminal's last own sequence."""
  last = tree.sequences[player].terminal_last_seq
  a_count = tree.num_actions
  out = np.ones((len(plans), len(last)))
  has = last >= 0
  inf, a = last[has] // a_count, last[has] % a_count
  out[:, has] = (plans[:, inf] == a[None, :]).astype(np.float64)
  # A terminal below an earlier own sequence the plan does not play is caught by the last one:
  # the last sequence is only played (set) when its infoset was reached.
  return out


def brute_force_best_joint(tree: GameTree, members: Sequence[int],
                           terminal_weights: np.ndarray,
                           *, max_pairs: int = 50_000_000, time_limit: float | None = None,
                           max_memory: int | None = -1) -> JointPureResult:
  """Enumerates the joint reduced pure strategies of one or two members (small games only).

  Args:
    tree: the game's tree.
    members: the team (one or two players).
    terminal_weights: the weight of each terminal.
    max_pairs: most joint strategies of two members.
    time_limit: seconds for the whole enumeration (None: no limit), checked as it runs.
    max_memory: bytes the plans and their reach may take (-1: a share of the memory
      available, `memory.default_max_memory`; None: no limit), checked as they grow.

  Returns:
    A `JointPureResult` with the best joint strategy and its value (bound = value).

  Raises:
    highs.TimeLimitError: past `time_limit` (a `TimeoutError`).
    errors.SizeLimitError: past `max_memory`, before the memory is spent.
  """
  start = time.perf_counter()
  deadline = None if time_limit is None else start + time_limit
  if max_memory == -1:
    max_memory = memory.default_max_memory()
  members = [int(p) for p in members]
  if len(members) not in (1, 2):
    raise ValueError(f"brute force handles teams of 1 or 2 players, got {members}")
  plans = [pure_plans(tree, p, deadline=deadline, max_memory=max_memory) for p in members]
  n_z = len(terminal_weights)
  _check_limits("the plans' reach of the terminals", 8 * n_z * sum(len(pl) for pl in plans),
                deadline, max_memory)
  reach = [_plan_reach(tree, p, pl) for p, pl in zip(members, plans, strict=True)]
  if len(members) == 2:
    _check_limits("the joint strategies' values", 8 * (len(plans[0]) * (len(plans[1]) + n_z)),
                  deadline, max_memory)
  if len(members) == 1:
    vals = reach[0] @ terminal_weights
    best = (int(np.argmax(vals)),)
    value = float(vals.max())
  else:
    if len(plans[0]) * len(plans[1]) > max_pairs:
      raise ValueError(f"{len(plans[0])} x {len(plans[1])} joint strategies exceed "
                       f"max_pairs={max_pairs}")
    vals = (reach[0] * terminal_weights[None, :]) @ reach[1].T
    flat = int(np.argmax(vals))
    best = np.unravel_index(flat, vals.shape)
    value = float(vals.max())
  strategy = {}
  for p, pl, b in zip(members, plans, best, strict=True):
    for i in np.nonzero(tree.infoset_player == p)[0]:
      a = int(pl[b][i])
      strategy[int(i)] = a if a >= 0 else int(np.nonzero(tree.infoset_legal[i])[0][0])
  return JointPureResult(value=value, bound=value, proven_optimal=True, gap=0.0,
                         seconds=time.perf_counter() - start, strategy=strategy,
                         method="brute_force")
