"""Exact optima of cooperative games (a single team, no opponent).

In a cooperative game the best correlated plan of the team is its best joint pure strategy
(the objective is linear, so a vertex of the plan polytope is optimal). Exact methods:

* `method="lp"`: the team LP (`team_lp`, Theorem 3.21 of Zhang & Sandholm) with no opponent:
  max sum_z w[z] x[z] over the tree-decomposition polytope, which is exactly the convex hull of
  the team's pure plans (Prop. 2.9). A pure strategy in the optimal plan's support is optimal.
  Used when the number of local solutions stays under `lp_max_local`.
* `method="mip"`: a mixed-integer program over the players' pure sequence-form plans (HiGHS
  MIP): binary r_p[sigma] with r_p[parent(I)] = sum_a r_p[I a] for every infoset I of player p,
  and one continuous x_g in [0, 1] per group g of terminals with the same tuple of the members'
  last sequences, linearising the product prod_p r_p[sigma_p(g)]: x_g <= r_p[sigma_p] when the
  group's weight is positive, x_g >= sum_p r_p[sigma_p] - (k - 1) when negative. Exact; HiGHS
  reports the optimality gap when stopped by the time limit.

* `method="bidding_bb"` (simple_bidding only): the exact branch and bound over reach sets of
  `simple_bidding_optimum` (N = 8 in about a second, where the MIP needs 80 s).

All return the optimal joint policy as a `TabularPolicy` whose value the array game tree
(`evaluation.game_value`) confirms. `brute_force_optimum` enumerates joint pure strategies of one
or two players (the smallest games; an independent check).

Values are per member (the common payoff in a common-payoff game) unless stated: the team
utility is the sum of the members' returns (`teams.py`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Dict, Optional, Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team.algorithms import evaluation
from ospiel_team.algorithms import highs
from ospiel_team.algorithms import simple_bidding_optimum
from ospiel_team.algorithms import team_decomposition
from ospiel_team.algorithms import teams as teams_lib
from ospiel_team.algorithms.game_tree import GameTree

DEFAULT_LP_MAX_LOCAL = 2_000_000
# 'bidding_bb': simple_bidding only, the reach-set branch and bound of simple_bidding_optimum.
METHODS = ("auto", "lp", "mip", "brute_force", "bidding_bb")


@dataclasses.dataclass
class JointPureResult:
  """A best joint pure strategy of a team against fixed terminal weights."""
  value: float  # sum_z w[z] x[z] of the strategy found
  bound: float  # proven upper bound (== value when proven optimal)
  proven_optimal: bool
  gap: float  # (bound - value) / max(1, |value|)
  seconds: float
  strategy: Dict[int, int]  # infoset -> action for the team's infosets
  method: str


def _chance_reach(tree: GameTree) -> np.ndarray:
  return tree.chance_reach()


def best_joint_pure_strategy_mip(tree: GameTree, members: Sequence[int],
                                 terminal_weights: np.ndarray,
                                 time_limit: Optional[float] = None,
                                 threads: Optional[int] = None,
                                 mip_gap: float = 0.0,
                                 formulation: str = "flow",
                                 initial_strategy: Optional[Dict[int, int]] = None
                                 ) -> JointPureResult:
  """max over the members' joint pure strategies of sum_z w[z] prod_p r_p[sigma_p(z)] (MIP).

  `formulation="flow"` (default): binary r_p as below, and one continuous e[v, a] per team
  sequence (team-tree node v where the team acts, action a; `team_lp` merges histories with the
  same team sequence) with the flow rows sum_a e[v, a] = e[edge into v] (= 1 at the top) and
  e[v, a] <= r_p[I(v) a]. With binary r the flow is exactly the product of the members' reach
  (the acting member plays exactly one action at a reached infoset), for weights of any sign;
  its LP relaxation is the team's perfect-recall relaxation, much tighter than McCormick's.
  `formulation="mccormick"`: the per-terminal-group product linearisation described in the
  module docstring.
  `initial_strategy` (infoset -> action for the members' infosets, e.g. JPS's purified policy;
  flow formulation only) is handed to HiGHS as its first incumbent, so the MIP never returns a
  worse strategy and can prune with its value from the start.
  """
  if formulation == "flow":
    return _mip_flow(tree, members, terminal_weights, time_limit, threads, mip_gap,
                     initial_strategy)
  if initial_strategy is not None:
    raise ValueError("initial_strategy needs formulation='flow'")
  if formulation != "mccormick":
    raise ValueError(f"unknown MIP formulation {formulation!r}; use 'flow' or 'mccormick'")
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
  from scipy import sparse  # pylint: disable=g-import-not-at-top
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
  a_mat: "sparse.csr_matrix"
  lo: list
  hi: list
  integrality: np.ndarray
  terminal_edge: np.ndarray
  dec: object
  edge_index: np.ndarray
  into: np.ndarray

  @property
  def num_cols(self) -> int:
    return self.a_mat.shape[1]

  def cost(self, terminal_weights: np.ndarray):
    """(column costs, constant) of the objective sum_z w[z] reach(z)."""
    t_edge = self.terminal_edge
    const = float(terminal_weights[t_edge < 0].sum())
    cost = np.zeros(self.num_cols)
    np.add.at(cost, t_edge[t_edge >= 0], terminal_weights[t_edge >= 0])
    return cost, const


def flow_model(tree: GameTree, members: Sequence[int]) -> FlowModel:
  """Builds the flow MIP's rows for `members` (see `best_joint_pure_strategy_mip`)."""
  from scipy import sparse  # pylint: disable=g-import-not-at-top
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
                  np.ones(n_cols), True, time_limit, threads, "", integrality=integrality,
                  mip_gap=mip_gap, initial_solution=x0)
  status = h.modelStatusToString(h.getModelStatus())
  info = h.getInfo()
  if info.primal_solution_status < 2 and status != "Optimal":
    raise RuntimeError(f"MIP found no feasible joint strategy ({status})")
  sol = np.asarray(h.getSolution().col_value)
  strategy: Dict[int, int] = {}
  for k in np.nonzero(sol[:n_bin] > 0.5)[0]:
    strategy[int(team_inf[inf_rep[k]])] = int(act[k])
  for i in team_inf:
    if int(i) not in strategy:
      strategy[int(i)] = int(np.nonzero(tree.infoset_legal[i])[0][0])
  value = float(info.objective_function_value) + const
  bound = float(info.mip_dual_bound) + const
  proven = status == "Optimal"
  if proven or not np.isfinite(bound):
    bound = value if proven else bound
  gap = max(0.0, bound - value) / max(1.0, abs(value)) if np.isfinite(bound) else float("inf")
  return JointPureResult(value=value, bound=bound, proven_optimal=proven, gap=gap,
                         seconds=time.perf_counter() - start, strategy=strategy, method=method)


def pure_plans(tree: GameTree, player: int, max_plans: int = 1_000_000) -> np.ndarray:
  """[num_plans, num_infosets] every reduced pure strategy of `player` (-1 where unreached)."""
  seqs = tree.sequences[player]
  order = [i for level in seqs.infoset_levels for i in level]
  plans = [np.full(tree.num_infosets, -1, dtype=np.int64)]
  a_count = tree.num_actions
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
    plans = new
    if len(plans) > max_plans:
      raise ValueError(f"player {player} has more than max_plans={max_plans} pure plans")
  return np.stack(plans)


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
                           max_pairs: int = 50_000_000) -> JointPureResult:
  """Enumerates the joint reduced pure strategies of one or two members (small games only)."""
  start = time.perf_counter()
  members = [int(p) for p in members]
  if len(members) not in (1, 2):
    raise ValueError(f"brute force handles teams of 1 or 2 players, got {members}")
  plans = [pure_plans(tree, p) for p in members]
  reach = [_plan_reach(tree, p, pl) for p, pl in zip(members, plans)]
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
  for p, pl, b in zip(members, plans, best):
    for i in np.nonzero(tree.infoset_player == p)[0]:
      a = int(pl[b][i])
      strategy[int(i)] = a if a >= 0 else int(np.nonzero(tree.infoset_legal[i])[0][0])
  return JointPureResult(value=value, bound=value, proven_optimal=True, gap=0.0,
                         seconds=time.perf_counter() - start, strategy=strategy,
                         method="brute_force")


@dataclasses.dataclass
class CoopOptimum:
  """The exact optimum of a cooperative game."""
  game: str
  value: float  # per-member value (the common payoff of a common-payoff game)
  team_value: float  # sum of members' expected returns
  bound: float  # proven upper bound on `value`
  proven_optimal: bool
  gap: float
  seconds: float
  method: str
  policy: policy_lib.TabularPolicy
  policy_array: np.ndarray
  evaluated_value: float  # per-member value of `policy` by evaluation.game_value
  details: Dict

  def summary(self) -> Dict:
    return dict(game=self.game, value=self.value, team_value=self.team_value, bound=self.bound,
                proven_optimal=self.proven_optimal, gap=self.gap,
                seconds=round(self.seconds, 3), method=self.method,
                evaluated_value=self.evaluated_value, **self.details)


def _pure_policy_array(tree: GameTree, strategy: Dict[int, int]) -> np.ndarray:
  pi = tree.uniform_policy_array()
  for i, a in strategy.items():
    pi[i] = 0.0
    pi[i, a] = 1.0
  return pi


def team_weights(tree: GameTree, members: Sequence[int]) -> np.ndarray:
  """[num_terminals] chance reach x team utility (sum of members' returns)."""
  chance = _chance_reach(tree)[tree.terminals]
  return chance * tree.node_returns[tree.terminals][:, list(members)].sum(axis=1)


def check_common_payoff(tree: GameTree, atol: float = 1e-9) -> None:
  """Raises ValueError naming the game unless every player gets the same return at every
  terminal history (the cooperative games this module optimises)."""
  returns = tree.node_returns[tree.terminals]
  diff = np.abs(returns - returns[:, :1]).max(axis=1) if returns.size else np.zeros(0)
  bad = np.nonzero(diff > atol)[0]
  if len(bad):
    z = int(tree.terminals[bad[0]])
    raise ValueError(
        f"{tree.game} is not a common-payoff (cooperative) game: the players' returns differ "
        f"at {len(bad)} terminal histories, e.g. {list(map(float, tree.node_returns[z]))}; "
        f"for two teams use team_solve / team_lp")


def solve(game: pyspiel.Game | str | GameTree, method: str = "auto",
          time_limit: Optional[float] = None, lp_max_local: int = DEFAULT_LP_MAX_LOCAL,
          threads: Optional[int] = None,
          initial_policy: Optional[np.ndarray | policy_lib.Policy] = None) -> CoopOptimum:
  """Exact optimal joint pure strategy of a cooperative game (all players form one team).

  `initial_policy` (a policy array or OpenSpiel policy, e.g. a JPS result; purified by argmax)
  is the MIP's first incumbent: the MIP then returns a strategy at least as good.
  """
  start = time.perf_counter()
  if isinstance(game, str):
    game = pyspiel.load_game(game)
  n = (game.num_players if isinstance(game, GameTree) else game.num_players())
  if callable(n):
    n = n()
  if method not in METHODS:
    raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
  if method == "bidding_bb":
    name = game.game.get_type().short_name if isinstance(game, GameTree) else (
        game.get_type().short_name)
    if name != "simple_bidding":
      raise ValueError(f"method 'bidding_bb' solves simple_bidding only, not {name}")
    if time_limit is not None:
      raise ValueError(f"method 'bidding_bb' runs to the end (no time limit), got "
                       f"time_limit={time_limit}; limit the process instead")
  time_limit = highs.check_time_limit(time_limit)
  tree, teams = teams_lib.check_assumptions(game, [list(range(n))])
  check_common_payoff(tree)
  members = teams.teams[0]
  w = team_weights(tree, members)
  details: Dict = {}
  res = None
  if method in ("auto", "lp"):
    try:
      dec = team_decomposition.TeamDecomposition(tree, members, max_local=lp_max_local)
    except MemoryError:
      if method == "lp":
        raise
      dec = None
    if dec is not None:
      br = team_decomposition.team_best_response_lp(tree, members, w, decomposition=dec,
                                                      time_limit=time_limit)
      strategy = br.plan.sample_pure_strategy(greedy=True)
      details.update(local_solutions=dec.num_local, sequences=dec.num_sequences)
      res = JointPureResult(value=br.value, bound=br.value, proven_optimal=True, gap=0.0,
                            seconds=br.seconds, strategy=strategy, method="lp")
  start_strategy = None
  if initial_policy is not None:
    pi0 = (tree.policy_array(initial_policy) if isinstance(initial_policy, policy_lib.Policy)
           else np.asarray(initial_policy, dtype=np.float64))
    if pi0.shape != (tree.num_infosets, tree.num_actions):
      raise ValueError(f"initial_policy has shape {pi0.shape}; the tree needs "
                       f"{(tree.num_infosets, tree.num_actions)}")
    start_strategy = {i: int(a) for i, a in
                      enumerate(np.argmax(tree.purified_policy_array(pi0), axis=1))}
    details["initial_value"] = float(sum(evaluation.game_value(
        tree, _pure_policy_array(tree, start_strategy))[p] for p in members)) / len(members)
  if res is None and method in ("auto", "mip"):
    res = best_joint_pure_strategy_mip(tree, members, w, time_limit=time_limit, threads=threads,
                                       initial_strategy=start_strategy)
  if res is None and method == "brute_force":
    res = brute_force_best_joint(tree, members, w)
  if res is None and method == "bidding_bb":
    size = int(tree.game.get_parameters()["size"])
    bb = simple_bidding_optimum.solve(size)
    pi_bb = tree.policy_array(simple_bidding_optimum.tabular_policy(tree.game, bb.strategy))
    k = len(members)
    strategy = {i: int(a) for i, a in enumerate(np.argmax(pi_bb, axis=1))
                if tree.infoset_player[i] in members}
    details.update(bb_total=bb.total, bb_states=bb.states, bb_backend=bb.backend)
    res = JointPureResult(value=bb.value * k, bound=bb.value * k, proven_optimal=True, gap=0.0,
                          seconds=bb.seconds, strategy=strategy, method="bidding_bb")
  pi = _pure_policy_array(tree, res.strategy)
  v = evaluation.game_value(tree, pi)
  evaluated_team = float(sum(v[p] for p in members))
  k = len(members)
  if res.method == "lp" and abs(evaluated_team - res.value) > 1e-6 * max(1.0, abs(res.value)):
    # The LP value is exact, but the greedy pure strategy read off a numerically noisy plan
    # may not be optimal: fall back to the MIP, which returns an optimal pure strategy.
    details["lp_value"] = res.value
    res = best_joint_pure_strategy_mip(tree, members, w, time_limit=time_limit, threads=threads,
                                       initial_strategy=start_strategy)
    pi = _pure_policy_array(tree, res.strategy)
    v = evaluation.game_value(tree, pi)
    evaluated_team = float(sum(v[p] for p in members))
  return CoopOptimum(
      game=str(tree.game), value=evaluated_team / k, team_value=evaluated_team,
      bound=res.bound / k, proven_optimal=res.proven_optimal, gap=res.gap,
      seconds=time.perf_counter() - start, method=res.method, policy=tree.tabular_policy(pi),
      policy_array=pi, evaluated_value=evaluated_team / k,
      details=dict(details, solver_value=res.value / k))


WARM_STARTS = ("none", "jps", "cfr_jps")


def warm_start_policy(tree: GameTree, kind: str, depth: int = 3, cfr_iterations: int = 1000,
                      seed: int = 0) -> Optional[np.ndarray]:
  """A good joint policy to start the MIP from: JPS (from uniform, or from the last iterate of
  `cfr_iterations` of CFR started at a seeded random policy); None for kind="none"."""
  if kind not in WARM_STARTS:
    raise ValueError(f"unknown warm start {kind!r}; use one of {WARM_STARTS}")
  if kind == "none":
    return None
  from ospiel_team.algorithms import jps  # pylint: disable=g-import-not-at-top
  from ospiel_team.algorithms import tree_cfr  # pylint: disable=g-import-not-at-top
  start = None
  if kind == "cfr_jps":
    if cfr_iterations < 1:
      raise ValueError(f"cfr_iterations must be positive, got {cfr_iterations}")
    solver = tree_cfr.TreeCFRSolver(tree, initial_policy=tree_cfr.random_policy_array(tree, seed))
    for _ in range(cfr_iterations):
      solver.evaluate_and_update_policy()
    start = solver.current_policy_array()
  return jps.joint_policy_search(tree, start, depth=depth, seed=seed).policy_array


if __name__ == "__main__":
  # The command line lives in ospiel_team/cli/ (run as a script, not imported: no import cycle).
  import runpy  # pylint: disable=g-import-not-at-top
  runpy.run_module("ospiel_team.cli.coop_optimum_cli", run_name="__main__")
