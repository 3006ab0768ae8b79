r"""Team-correlated equilibria by regret minimisation on the team belief DAG.

Zhang, Farina & Sandholm, "Team Belief DAG: Generalizing the Sequence Form to Team Games for
Fast Computation of Correlated Team Max-Min Equilibria via Regret Minimization", ICML 2023
(arXiv:2210.12487). A team's strategy set is the set of flows on its *team belief DAG*
(TB-DAG): decision nodes are beliefs (a public state S with a reachable set R of its
histories), their actions are prescriptions (the joint action A of the team infosets meeting
R), and an observation after (S, R, A) leads to the beliefs (S', R') of the public states S'
below. Its edges are exactly the *local solutions* lambda_S(R, A) of the tree decomposition of
Zhang & Sandholm (AAAI 2022, Sec. 4 and Appendix C), and its flow constraints are their
constraint system D lam = d (`team_decomposition.TeamDecomposition`), so the DAG is built from
that decomposition. Its polytope is the convex hull of the team's joint pure plans (ZFS-23,
Thm. 3.3; Zhang & Sandholm, Prop. 2.9), hence:

* a **team best response** is a bottom-up dynamic programme on the DAG (max over the
  prescriptions of every belief): exact, linear time, no MIP;
* **regret minimisation** works node by node as counterfactual regret minimisation does on a
  tree (every belief's sub-problem is the same whichever parent reaches it). We run Discounted
  CFR (Brown & Sandholm, AAAI 2019, alpha = 1.5, beta = 0, gamma = 2) or predictive CFR+
  (Farina, Kroer & Sandholm, AAAI 2021) for both teams (team 2's DAG is its sequence form when
  it has one player), with alternating updates and the average *flows* (sequence-form
  averages).

Every `check_every` iterations the average plans are certified by the two exact best
responses: team 1's average plan x guarantees L = min_y x^T M y, and team 2's average plan y
holds team 1 to U = max_x x^T M y, so the TMECor value lies in [L, U]. The method stops when
U - L <= tol or at the time limit and returns the best bracket found (anytime).

Public API: `BeliefDAG(decomposition)` (`best_response`, `values`, `flows`) and
`solve(game, teams, ...)` -> `BeliefDAGResult`. One entry point for every team method:
`team_solve.solve(game, teams, method="dag")`.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Dict, List, Optional

import numpy as np
import pyspiel
from scipy import sparse

from ospiel_team.algorithms import highs
from ospiel_team.algorithms import teams as teams_lib
from ospiel_team.algorithms.game_tree import GameTree
from ospiel_team.algorithms.team_decomposition import DEFAULT_MAX_LOCAL
from ospiel_team.algorithms.team_decomposition import TeamDecomposition

ALGORITHMS = ("dcfr", "pcfr+")


class BeliefDAG:
  """The team belief DAG of one team, as flat arrays over its decomposition's local solutions.

  Edges (prescriptions) are the decomposition's local solutions; decision nodes (beliefs) are its
  reachable sets (S, R). Internally both are renumbered by DAG depth (the depth of S in the
  chain of anchors), so that every depth is one contiguous slice and the edges of a node are
  contiguous: the bottom-up and top-down passes are then slices, `reduceat`s and one sparse
  product per depth. `edge_order[i]` is the decomposition's column (local solution) of
  internal edge i; `to_local` maps a flow back to the decomposition's order.
  """

  def __init__(self, dec: TeamDecomposition):
    self.decomposition = dec
    states = dec.states
    n_edges = dec.num_local
    node_offset = np.zeros(len(states) + 1, dtype=np.int64)
    node_offset[1:] = np.cumsum([st.num_sets for st in states])
    n_nodes = int(node_offset[-1])
    self.num_nodes = n_nodes
    self.num_edges = n_edges
    depth = np.zeros(len(states), dtype=np.int64)
    edge_node = np.empty(n_edges, dtype=np.int64)
    link_parent, link_child = [], []
    is_root = np.zeros(n_nodes, dtype=bool)
    for k, st in enumerate(states):
      edge_node[st.offset:st.offset + len(st.local_set)] = node_offset[k] + st.local_set
      if st.anchor < 0:
        is_root[node_offset[k]:node_offset[k + 1]] = True
      else:
        depth[k] = depth[st.anchor] + 1
        hit = np.nonzero(st.parent_to_set >= 0)[0]
        link_parent.append(states[st.anchor].offset + hit)
        link_child.append(node_offset[k] + st.parent_to_set[hit])
    if np.any(np.diff(edge_node) < 0):
      raise AssertionError("local solutions of a belief are not contiguous")
    node_depth = np.repeat(depth, np.diff(node_offset))
    # Renumber nodes and edges by depth (stable: a node's edges stay contiguous).
    node_order = np.argsort(node_depth, kind="stable")
    node_new = np.empty(n_nodes, dtype=np.int64)
    node_new[node_order] = np.arange(n_nodes)
    edge_order = np.argsort(node_depth[edge_node], kind="stable")
    edge_new = np.empty(n_edges, dtype=np.int64)
    edge_new[edge_order] = np.arange(n_edges)
    self.edge_order = edge_order
    self.edge_node = node_new[edge_node[edge_order]]
    if np.any(np.diff(self.edge_node) < 0):
      raise AssertionError("renumbered beliefs out of order")
    self.roots = np.nonzero(is_root[node_order])[0]
    self.node_edge_start = np.searchsorted(self.edge_node, np.arange(n_nodes + 1))
    self.node_size = np.diff(self.node_edge_start)
    if np.any(self.node_size < 1):
      raise AssertionError("a belief without prescriptions")
    lp = edge_new[np.concatenate(link_parent)] if link_parent else np.zeros(0, np.int64)
    lc = node_new[np.concatenate(link_child)] if link_child else np.zeros(0, np.int64)
    self.max_depth = int(depth.max(initial=0))
    nd = node_depth[node_order]
    node_bounds = np.searchsorted(nd, np.arange(self.max_depth + 2))
    edge_bounds = self.node_edge_start[node_bounds]
    # Per depth d: edge slice, node slice, starts of the node runs in the edge slice, and the
    # links from depth-d edges to depth-(d + 1) nodes as a sparse 0/1 matrix [edges_d, nodes_d+1].
    self.levels = []
    link_depth = nd[lc] - 1 if len(lc) else lc
    for d in range(self.max_depth + 1):
      e0, e1 = int(edge_bounds[d]), int(edge_bounds[d + 1])
      n0, n1 = int(node_bounds[d]), int(node_bounds[d + 1])
      starts = self.node_edge_start[n0:n1] - e0
      link = None
      if d < self.max_depth:
        sel = link_depth == d
        c0, c1 = int(node_bounds[d + 1]), int(node_bounds[d + 2])
        link = sparse.csr_matrix((np.ones(int(sel.sum())), (lp[sel] - e0, lc[sel] - c0)),
                                 shape=(e1 - e0, c1 - c0))
        link = (link, link.T.tocsr(), c0, c1)
      self.levels.append((e0, e1, n0, n1, starts, link))
    leaf = dec.leaf_matrix.tocsc()[:, edge_order].tocsr()
    self.leaf_matrix = leaf  # F: [num_leaves, num_edges] (internal edge order)
    self.leaf_matrix_t = leaf.T.tocsr()
    self.const_leaf = dec.const_leaf
    self._uniform = 1.0 / self.node_size[self.edge_node]

  def to_local(self, lam: np.ndarray) -> np.ndarray:
    """A flow in the decomposition's local-solution (LP column) order."""
    out = np.empty_like(lam)
    out[self.edge_order] = lam
    return out

  # --- passes -----------------------------------------------------------------------------------
  def edge_utilities(self, leaf_grad: np.ndarray) -> np.ndarray:
    """Immediate utility of every edge: F^T g (the constant leaf, if any, is on no edge)."""
    g = np.asarray(leaf_grad, dtype=np.float64)
    if self.const_leaf:
      g = g.copy()
      g[0] = 0.0
    return self.leaf_matrix_t @ g

  def _const(self, leaf_grad: np.ndarray) -> float:
    return float(leaf_grad[0]) if self.const_leaf else 0.0

  def values(self, leaf_grad: np.ndarray, sigma: Optional[np.ndarray] = None):
    """Bottom-up: (edge values q, node values v) under the local strategies `sigma` (a
    distribution over each node's edges), or of a best response when `sigma` is None (max)."""
    q = self.edge_utilities(leaf_grad)
    v = np.zeros(self.num_nodes)
    for e0, e1, n0, n1, starts, link in reversed(self.levels):
      if link is not None:  # edges at this depth lead to beliefs one deeper (values known)
        q[e0:e1] += link[0] @ v[link[2]:link[3]]
      if e1 == e0:
        continue
      if sigma is None:
        v[n0:n1] = np.maximum.reduceat(q[e0:e1], starts)
      else:
        v[n0:n1] = np.add.reduceat(q[e0:e1] * sigma[e0:e1], starts)
    return q, v

  def root_value(self, leaf_grad: np.ndarray, v: np.ndarray) -> float:
    return self._const(leaf_grad) + float(v[self.roots].sum())

  def best_response(self, leaf_grad: np.ndarray):
    """(value, flow) of the team's best joint pure plan against the leaf gradient: value =
    sum over leaves of grad * plan (constant leaf included). Exact, by dynamic programming."""
    q, v = self.values(leaf_grad)
    vn = v[self.edge_node]
    idx = np.nonzero(q >= vn - 1e-12 * (1.0 + np.abs(vn)))[0]
    node_of = self.edge_node[idx]
    keep = np.ones(len(idx), dtype=bool)
    keep[1:] = node_of[1:] != node_of[:-1]  # the first maximising prescription of a belief
    sigma = np.zeros(self.num_edges)
    sigma[idx[keep]] = 1.0
    if int(keep.sum()) != self.num_nodes:
      raise AssertionError("a belief without a maximising prescription")
    return self.root_value(leaf_grad, v), self.flows(sigma)

  def flows(self, sigma: np.ndarray) -> np.ndarray:
    """Top-down: the flow (realisation plan lambda) of local strategies `sigma`."""
    inflow = np.zeros(self.num_nodes)
    inflow[self.roots] = 1.0
    lam = np.empty(self.num_edges)
    for e0, e1, n0, n1, starts, link in self.levels:
      lam[e0:e1] = sigma[e0:e1] * np.repeat(inflow[n0:n1], self.node_size[n0:n1])
      if link is not None:
        inflow[link[2]:link[3]] += link[1] @ lam[e0:e1]
    return lam

  def leaf_values(self, lam: np.ndarray) -> np.ndarray:
    x = self.leaf_matrix @ lam
    if self.const_leaf:
      x[0] = 1.0
    return x

  def regret_matching(self, r: np.ndarray) -> np.ndarray:
    """Local strategies proportional to the positive part of `r` (uniform where none)."""
    pos = np.maximum(r, 0.0)
    tot = np.add.reduceat(pos, self.node_edge_start[:-1])
    tot_e = np.repeat(tot, self.node_size)
    return np.where(tot_e > 0, pos / np.where(tot_e > 0, tot_e, 1.0), self._uniform)


@dataclasses.dataclass
class BeliefDAGResult:
  """Certified bracket [lower, upper] on team 1's TMECor value, and the average plans."""
  game: str
  teams: teams_lib.Teams
  terminals: int
  algorithm: str
  value: float  # (lower + upper) / 2 when converged, else `lower`
  lower: float  # team 1's average plan guarantees this (exact team-2 best response)
  upper: float  # team 2's average plan holds team 1 to this (exact team-1 best response)
  gap: float
  converged: bool
  iterations: int
  edges: List[int]  # DAG edges (local solutions) per team
  nodes: List[int]  # DAG decision nodes (beliefs) per team
  team1_reach: np.ndarray  # [num_terminals] team 1's plan certifying `lower`
  team2_reach: np.ndarray  # [num_terminals] team 2's plan certifying `upper`
  seconds: float
  build_seconds: float
  history: List[Dict] = dataclasses.field(default_factory=list)

  def summary(self) -> Dict:
    return dict(game=self.game, teams=str(self.teams), terminals=self.terminals,
                algorithm=self.algorithm, value=self.value, lower=self.lower, upper=self.upper,
                gap=self.gap, converged=self.converged, iterations=self.iterations,
                dag_edges=self.edges, dag_nodes=self.nodes, seconds=round(self.seconds, 4),
                build_seconds=round(self.build_seconds, 4))


def solve(game: pyspiel.Game | str | GameTree, teams: str | teams_lib.Teams = None,
          tol: float = 1e-6, time_limit: Optional[float] = None,
          max_iterations: int = 1_000_000, algorithm: str = "dcfr", check_every: int = 10,
          max_local: int = DEFAULT_MAX_LOCAL, verbose: bool = False) -> BeliefDAGResult:
  """Team 1's TMECor value by regret minimisation on both teams' belief DAGs (anytime).

  Zhang, Farina & Sandholm, "Team Belief DAG: ...", ICML 2023 (arXiv:2210.12487), with DCFR
  (Brown & Sandholm, "Solving Imperfect-Information Games via Discounted Regret
  Minimization", AAAI 2019, arXiv:1809.04040) or predictive CFR+ (Farina, Kroer & Sandholm,
  "Faster Game Solving via Predictive Blackwell Approachability", AAAI 2021, arXiv:2007.14358).

  Args:
    game: a pyspiel game, game string or `GameTree`.
    teams: two teams, e.g. "0,1|2" (default: `teams.default_teams`).
    tol: stop when the certified gap upper - lower <= tol (team 1's units).
    time_limit: wall-clock seconds (None: none; negative: ValueError); on expiry the best
      certified bracket so far is returned (`converged=False`).
    max_iterations: cap on iterations (ValueError if < 1).
    algorithm: "dcfr" or "pcfr+".
    check_every: iterations between two certifications by exact best responses (>= 1).
    max_local: cap on a team's DAG edges (MemoryError past it, as for the team LP).
    verbose: print one line per certification.

  Returns:
    A `BeliefDAGResult` whose `lower`/`upper` are certified by exact team best responses.
  """
  start = time.perf_counter()
  time_limit = highs.check_time_limit(time_limit)
  if algorithm not in ALGORITHMS:
    raise ValueError(f"unknown algorithm {algorithm!r}; use one of {ALGORITHMS}")
  if not tol >= 0:
    raise ValueError(f"tol={tol!r} must be >= 0")
  if max_iterations < 1:
    raise ValueError(f"max_iterations={max_iterations!r} must be >= 1")
  if check_every < 1:
    raise ValueError(f"check_every={check_every!r} must be >= 1")
  tree, teams = teams_lib.check_assumptions(game, teams)
  if teams.num_teams != 2:
    raise ValueError(f"the team belief DAG solver needs two teams (got {teams})")
  dec = [TeamDecomposition(tree, t, max_local) for t in teams.teams]
  dags = [BeliefDAG(d) for d in dec]
  util1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  w = tree.chance_reach()[tree.terminals] * util1
  m_mat = sparse.csr_matrix((w, (dec[0].terminal_leaf, dec[1].terminal_leaf)),
                            shape=(dec[0].num_leaves, dec[1].num_leaves))
  m_t = m_mat.T.tocsr()
  build = time.perf_counter() - start

  # grads: team 1 maximises x^T M y, team 2 maximises -x^T M y.
  def grad(team, leaf_other):
    return m_mat @ leaf_other if team == 0 else -(m_t @ leaf_other)

  regrets = [np.zeros(g.num_edges) for g in dags]
  predict = [np.zeros(g.num_edges) for g in dags]  # pcfr+: last instantaneous regret
  avg = [np.zeros(g.num_edges) for g in dags]
  avg_w = 0.0
  sig = [g.regret_matching(r) for g, r in zip(dags, regrets)]
  lam = [g.flows(s) for g, s in zip(dags, sig)]
  leaf = [g.leaf_values(l) for g, l in zip(dags, lam)]
  lower, upper = -np.inf, np.inf
  best_x = best_y = None
  history: List[Dict] = []
  it = 0
  converged = False
  while True:
    it += 1
    for team in (0, 1):  # alternating updates
      g = dags[team]
      gr = grad(team, leaf[1 - team])
      q, v = g.values(gr, sig[team])
      inst = q - v[g.edge_node]
      if algorithm == "dcfr":
        r = regrets[team]
        ta = it ** 1.5
        r *= np.where(r > 0, ta / (ta + 1.0), 0.5)
        r += inst
        sig_next = g.regret_matching(r)
      else:  # predictive CFR+
        r = np.maximum(regrets[team] + inst, 0.0)
        regrets[team] = r
        predict[team] = inst
        sig_next = g.regret_matching(r + inst)
      sig[team] = sig_next
      lam[team] = g.flows(sig_next)
      leaf[team] = g.leaf_values(lam[team])
    # Average flows: DCFR gamma = 2 weights (t / (t + 1))^2 per step (t^2 weights);
    # predictive CFR+ quadratic weights t^2 too.
    weight = float(it) ** 2
    avg_w += weight
    for team in (0, 1):
      avg[team] += weight * lam[team]
    elapsed = time.perf_counter() - start
    out_of_time = time_limit is not None and elapsed >= time_limit
    if it % check_every == 0 or it >= max_iterations or out_of_time:
      xa = avg[0] / avg_w
      ya = avg[1] / avg_w
      lx = dags[0].leaf_values(xa)
      ly = dags[1].leaf_values(ya)
      br2, _ = dags[1].best_response(grad(1, lx))  # team 2's best value against x
      br1, _ = dags[0].best_response(grad(0, ly))  # team 1's best value against y
      if -br2 > lower:
        lower, best_x = -br2, lx
      if br1 < upper:
        upper, best_y = br1, ly
      history.append(dict(iteration=it, lower=lower, upper=upper,
                          seconds=round(time.perf_counter() - start, 3)))
      if verbose:
        print(f"it {it}: [{lower:.8f}, {upper:.8f}] gap {upper - lower:.2e}  "
              f"{time.perf_counter() - start:.1f} s", flush=True)
      if upper - lower <= tol:
        converged = True
        break
    if it >= max_iterations or out_of_time:
      break
  value = (lower + upper) / 2 if converged else lower
  return BeliefDAGResult(
      game=str(tree.game), teams=teams, terminals=len(tree.terminals), algorithm=algorithm,
      value=float(value), lower=float(lower), upper=float(upper), gap=float(upper - lower),
      converged=converged, iterations=it, edges=[g.num_edges for g in dags],
      nodes=[g.num_nodes for g in dags], team1_reach=best_x[dec[0].terminal_leaf],
      team2_reach=best_y[dec[1].terminal_leaf], seconds=time.perf_counter() - start,
      build_seconds=build, history=history)
