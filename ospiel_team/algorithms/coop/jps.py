"""Joint Policy Search (JPS): exact tabular and sample-based, on the array game tree.

Tian, Gong, Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495 (Sections 4-6).

For a policy sigma and a candidate sigma' that differs from it only on an *active set* of
information sets, Theorem 1 (Eq. 4) gives the change of game value as a sum over the active
infosets of the policy-change density (Eq. 5)

    rho(h) = pi^{sigma'}(h) * (sum_a sigma'(I, a) v^sigma(ha) - v^sigma(h)),   h in I,

where only the altered reach pi^{sigma'} of the active histories has to be recomputed:
pi^sigma and v^sigma come from one sweep over the tree. JPS (Algorithm 1) searches over chains
of active infosets I1 -a1-> I2 in succ(I1, a1) -a2-> ... (one active infoset per depth, at
most D of them), each set one-hot to its chosen action (Eq. 6), values every chain with
Theorem 1 and applies the best one. "No change" is always a candidate, so no step lowers the
value (Theorem 2).

Implementation (all vectorized over the tree arrays, no per-history Python loop):

* The search is breadth-first over the levels of the search tree: level k holds every chain of
  k active infosets. The candidate infosets of level k+1 are succ(I_k, a_k) for every chain,
  and all their histories are processed at once. The altered reach of a history h is
  pi^sigma(h) with the factor of every active infoset on h's path replaced by the one-hot
  factor; whether h's path goes through active I_j (and with which action) is read off the
  sequence of I_j's player at h (perfect recall), one gather per (history, active infoset).
  Zero probabilities are handled exactly by keeping reach as (product of non-zero edge
  probabilities, number of zero edges).
* J(I, a) = sum_{h in I} pi^{sigma'}(h) (v(ha) - v(h)) is the precomputed J(I, a) under
  pi^sigma plus the contribution of the histories whose reach changed, summed per level by
  the numba kernel `_jps_level`.
* The chain values are then maximized bottom-up (r(I, a) = J(I, a) + max(0, best child)).

Depth D counts active infosets: D=3 means chains I1 -> I2 -> I3 (the text of Sec. 5.1 and 7.3;
Algorithm 1's `d >= D` test with d starting at 1 would allow only D-1). D=None searches to the
end of the game.

Teams: the objective is the mean return of the `team` players (their summed return divided by
the team size, i.e. the common payoff in a common-payoff game); only team infosets become
active, the other players keep their policy, and succ(I, a) is the set of the next *team*
infosets after (I, a) (skipping chance and the other players). Theorem 1 holds for any fixed
policy of the others, so the guarantee carries over.
A result's `value` follows the package's convention: the common payoff in a common-payoff game,
else the team's summed return (team 1's return in a two-team zero-sum game).

Sampled JPS (Sec. 6 "Sample-based JPS", v1 of the paper): each iteration, k histories of
every candidate infoset are drawn with replacement (uniformly, or by reach) and only the
distinct drawn histories enter the sums of Theorem 1. The guarantee is lost, so every step is
evaluated exactly and the best policy seen is returned.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Sequence

import numba
import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team.tree import evaluation
from ospiel_team.tree import traversal
from ospiel_team.tree.game_tree import GameTree

PolicyLike = np.ndarray | policy_lib.Policy | None


# ----------------------------------------------------------------------------------------------
# Results.
@dataclasses.dataclass
class JPSIteration:
  """One JPS iteration: one search from one starting depth, and the change it applied."""
  iteration: int
  start_depth: int
  value: float  # the search objective after the step (the team's mean return)
  predicted_gain: float  # Theorem 1 prediction of the applied change (0 if none)
  true_gain: float  # value after minus value before, by full evaluation
  changes: list[tuple[str, int]]  # (infoset key, action) set one-hot by the step
  num_candidates: int  # chains of active infosets valued in the search
  search_seconds: float  # the search alone (Theorem 1 evaluation of all candidates)
  seconds: float  # the whole iteration (sweep, sampling, search, update, evaluation)

  @classmethod
  def of_step(cls, it: int, depth: int, res, changes: list[tuple[str, int]], value: float,
              new_value: float, t0: float) -> JPSIteration:
    """The record of one step: search result `res` applied (or not) from `value` to `new_value`."""
    return cls(iteration=it, start_depth=int(depth), value=new_value,
               predicted_gain=res.gain if res.chain else 0.0, true_gain=new_value - value,
               changes=changes, num_candidates=res.num_candidates, search_seconds=res.seconds,
               seconds=time.perf_counter() - t0)


@dataclasses.dataclass
class JPSResult:
  """Output of `JointPolicySearch.improve`."""
  policy: policy_lib.TabularPolicy
  policy_array: np.ndarray
  # The package's value convention: the common payoff in a common-payoff game, else the
  # team's summed return (e.g. team 1's return in a two-team zero-sum game).
  value: float
  initial_value: float  # the same quantity for the starting policy
  history: list[JPSIteration]
  best_iteration: int  # iteration whose policy is returned (0 = the initial policy)
  seconds: float


@dataclasses.dataclass
class SearchResult:
  """One search (Algorithm 1's JPS from one starting set)."""
  gain: float  # best predicted gain, max(0, ...) (Theorem 2)
  chain: list[tuple[int, int]]  # (infoset, action) of the best chain; [] = no change
  num_candidates: int
  levels: list  # per level: dict(inf, act, parent, J) arrays (for verification)
  seconds: float


# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True, boundscheck=False)
def _jps_level(codes, row, row_pair, factor, zero_hit, pnz, zc, weight, base_r, dv, jp, acc):
  """J(I, a) of every (chain, next infoset) pair of one search level, in place in `jp` (J under
  sigma on entry): Algorithm 1, line 12, on the (chain, history) entries whose reach the chain
  can alter.

  Entry i is history `row[i]` of pair `row_pair[i]` (entries of a pair contiguous); its altered
  reach is its reach with, for every active infoset j of the chain, the factor
  `factor[codes[j, i]]` (1 / sigma(I_j, a_j), 0 or 1: `JointPolicySearch._structure`) and
  `zero_hit[codes[j, i]]` fewer zero edges. The changes of reach times v(ha) - v(h) are summed
  per pair from its first changed entry on, left to right, then added to J.
  """
  n, num_a, k = len(row), dv.shape[1], codes.shape[0]
  if n == 0:
    return
  cur = row_pair[0]  # the pair being summed (while open_pair)
  open_pair = False
  for i in range(n):
    r = row[i]
    w = weight[r]
    if w == 0.0:
      continue  # sampled JPS: an undrawn history (its change is 0 - 0)
    f = 1.0
    zd = 0
    for j in range(k):
      c = codes[j, i]
      f *= factor[c]
      zd += zero_hit[c]
    nr = w * (pnz[r] * f if zc[r] - zd == 0 else 0.0)
    delta = nr - base_r[r]
    if delta == 0.0:
      continue
    p = row_pair[i]
    if not open_pair or p != cur:
      if open_pair:
        for a in range(num_a):
          jp[cur, a] += acc[a]
      cur = p
      open_pair = True
      for a in range(num_a):
        acc[a] = delta * dv[r, a]
    else:
      for a in range(num_a):
        acc[a] += delta * dv[r, a]
  if open_pair:
    for a in range(num_a):
      jp[cur, a] += acc[a]


def _unsigned(a: np.ndarray) -> np.ndarray:
  """Non-negative int32 / int64 indices viewed (contiguous) as uint32 / uint64."""
  a = np.ascontiguousarray(a)
  return a.view(np.uint32 if a.dtype == np.int32 else np.uint64)


# ----------------------------------------------------------------------------------------------
def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
  """Concatenation of arange(s, s + c) for every (s, c)."""
  total = int(counts.sum())
  if total == 0:
    return np.zeros(0, dtype=np.int64)
  offs = np.cumsum(counts) - counts
  return np.repeat(starts - offs, counts) + np.arange(total)


def _is_int(x) -> bool:
  """Whether `x` is an integer (Python or numpy), not a bool."""
  return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _check_seed(seed, name: str) -> int:
  """`seed` as an int if it is a non-negative integer; ValueError naming `name` otherwise."""
  if not _is_int(seed) or seed < 0:
    raise ValueError(f"{name} must be an int >= 0, got {seed!r}")
  return int(seed)


class JointPolicySearch:
  """Joint Policy Search (Algorithm 1 of the JPS paper) for a team on a finite game.

  Args:
    game: a pyspiel game or an already built `GameTree`.
    team: the players whose policies JPS changes (default: all players, which requires a
      common-payoff game). The objective is the team's mean return.
    fixed_policy: policy of the non-team players (array, OpenSpiel policy); by default their
      rows are taken from the policy handed to `improve`.
    depth: D, the maximal number of active infosets in a chain (None: to the end of the game).
    samples: k for sampled JPS (None: exact JPS).
    sample_by: "uniform" (histories of an infoset equally likely) or "reach" (proportional to
      their current reach, uniform where the infoset is unreached).
    seed: seeds the order of starting depths and the samples: an int >= 0, or None for a seed
      drawn from the operating system's entropy (as numpy's `default_rng(None)`), kept in
      `self.seed` so that the run can be repeated.
    max_iterations: T, the maximal number of iterations (searches); None: no limit for exact
      JPS, 100 for sampled JPS (as in the paper).
    stop_on_quiet_pass: stop when a full pass over the starting depths (in a seeded random
      order) finds no improvement above `improvement_tol` (exact) or applies no change
      (sampled). Default: True for exact JPS; False for sampled JPS, whose samples change
      every iteration (it then runs `max_iterations`, as the paper's 100).
    improvement_tol: a change is applied only if its predicted gain exceeds this.
    start_depths: the starting depths to use (team decision depth: number of team decisions
      before the infoset); default all.
    verify: re-evaluate every candidate of every search by brute force
      (`evaluation.game_value` on the modified policy array) and assert that it equals the
      Theorem 1 prediction (exact JPS only; slow: one full evaluation per candidate).
    verify_atol: tolerance of that check.
    max_rows: refuse searches that would touch more (chain, history) pairs than this.
    tie_break: "first" (default): the first chain of maximal predicted gain is applied, and
      only if that gain exceeds `improvement_tol`. "random" (the authors' code,
      facebookresearch/jps `simple_game/search.h`, `Solver::runSearch`): a uniformly random
      candidate among those of maximal predicted gain ("no change" included) is chosen with
      the seeded generator, and with a depth D it is applied even when its gain is 0 (a
      move along a plateau).
    schedule: "passes" (default): passes over the starting depths in a seeded random order
      until a quiet pass (`stop_on_quiet_pass`). "reference" (the authors' `runSearch`):
      with a depth D, the starting depths are popped from a seeded shuffled list that is
      reshuffled in full after every step gaining more than 1e-4, and JPS stops when the list
      runs out; without a depth, every iteration searches from `start_depths[0]` and JPS
      stops at the first search that finds no gain. Both stop after `max_iterations`
      (default 100 for this schedule, as the authors' `--iter`).
    structure_budget: the searches' policy-independent index arrays (which candidate
      histories lie below which active infoset, with which action) are computed once per
      starting depth and reused by every later search, while they hold at most this many
      entries in all (0: recompute them in every search). The results are the same either
      way (tests/test_jps.py).
  """

  def __init__(self, game: pyspiel.Game | GameTree, team: Sequence[int] | None = None,
               fixed_policy: PolicyLike = None, depth: int | None = None,
               samples: int | None = None, sample_by: str = "uniform", seed: int | None = 0,
               max_iterations: int | None = None, stop_on_quiet_pass: bool | None = None,
               improvement_tol: float = 1e-9, start_depths: Sequence[int] | None = None,
               verify: bool = False, verify_atol: float = 1e-9, max_rows: int = 200_000_000,
               progress: bool = False, tie_break: str = "first", schedule: str = "passes",
               structure_budget: int = 30_000_000):
    self.tree = game if isinstance(game, GameTree) else GameTree(game)
    tree = self.tree
    num_p = tree.num_players
    if team is not None and (isinstance(team, (str, bytes))
                             or not isinstance(team, (Sequence, np.ndarray))):
      raise ValueError(f"team must be a sequence of player ids, got {team!r}")
    if team is not None and any(not _is_int(p) for p in team):
      bad = next(p for p in team if not _is_int(p))
      raise ValueError(f"team={list(team)!r}: player {bad!r} is not an int")
    if team is None:
      ret = tree.node_returns[tree.terminals]
      if num_p > 1 and not np.allclose(ret, ret[:, :1], atol=1e-12):
        raise ValueError(
            f"{tree.game} is not common-payoff (players' returns differ at a terminal); "
            "pass team=[...] (the players JPS optimizes; the others keep fixed_policy)")
      team = list(range(num_p))
    team = [int(p) for p in team]
    if not team or len(set(team)) != len(team) or any(not 0 <= p < num_p for p in team):
      raise ValueError(f"team={team} must be distinct players of the {num_p}-player game")
    self.team = sorted(team)
    ret = tree.node_returns[tree.terminals]
    # A result's value: the common payoff of a common-payoff game, else the team's summed
    # return (the package's value convention); the search maximises the team's mean return.
    self._value_scale = (1 if num_p == 1 or np.allclose(ret, ret[:, :1], atol=1e-12)
                         else len(self.team))
    if depth is not None and (isinstance(depth, bool) or int(depth) != depth or depth < 1):
      raise ValueError(f"depth must be a positive int or None, got {depth!r}")
    self.depth = None if depth is None else int(depth)
    if samples is not None and (isinstance(samples, bool) or int(samples) != samples
                                or samples < 1):
      raise ValueError(f"samples must be a positive int or None, got {samples!r}")
    self.samples = None if samples is None else int(samples)
    if sample_by not in ("uniform", "reach"):
      raise ValueError(f"sample_by must be 'uniform' or 'reach', got {sample_by!r}")
    self.sample_by = sample_by
    if verify and self.samples is not None:
      raise ValueError("verify=True checks Theorem 1, which sampled JPS does not compute")
    if max_iterations is not None and max_iterations < 0:
      raise ValueError(f"max_iterations must be >= 0, got {max_iterations}")
    if tie_break not in ("first", "random"):
      raise ValueError(f"tie_break must be 'first' or 'random', got {tie_break!r}")
    if schedule not in ("passes", "reference"):
      raise ValueError(f"schedule must be 'passes' or 'reference', got {schedule!r}")
    if schedule == "reference" and samples is not None:
      raise ValueError("schedule='reference' is the authors' exact JPS; sampled JPS "
                       f"(samples={samples}) uses schedule='passes'")
    self.tie_break = tie_break
    self.schedule = schedule
    if max_iterations is None and (self.samples is not None or schedule == "reference"):
      max_iterations = 100
    self.max_iterations = max_iterations
    if stop_on_quiet_pass is None:
      stop_on_quiet_pass = self.samples is None
    self.stop_on_quiet_pass = stop_on_quiet_pass
    if improvement_tol < 0:
      raise ValueError(f"improvement_tol must be >= 0, got {improvement_tol}")
    self.improvement_tol = float(improvement_tol)
    self.seed = (int(np.random.SeedSequence().entropy) if seed is None
                 else _check_seed(seed, "seed"))
    self.verify = verify
    self.verify_atol = verify_atol
    self.max_rows = max_rows
    self.progress = progress
    self._fixed = None if fixed_policy is None else self._as_array(fixed_policy)
    # How the histories with altered reach are found: "auto" (cheaper of the two), "always"
    # (subtree intervals below the active histories), "never" (check every candidate history).
    self._row_mode = "auto"
    # Policy-independent part of every search (chains, the histories whose reach a chain can
    # alter, and how), per starting depth, kept while it holds at most `structure_budget`
    # (chain, history, active infoset) entries in all; shared by every search from that depth
    # (every iteration, and every policy handed to `improve`).
    self.structure_budget = int(structure_budget)
    self._structures = {}
    self._structure_entries = 0
    self._build_structure()
    all_depths = np.unique(self._inf_depth[self._team_infosets])
    if start_depths is None:
      self.start_depths = [int(d) for d in all_depths]
    else:
      bad = [d for d in start_depths if d not in set(all_depths.tolist())]
      if bad:
        raise ValueError(f"start_depths {bad} have no team infoset; available: "
                         f"{all_depths.tolist()}")
      self.start_depths = [int(d) for d in start_depths]

  # --------------------------------------------------------------------------------------------
  def _as_array(self, pol: PolicyLike) -> np.ndarray:
    tree = self.tree
    if pol is None:
      return tree.uniform_policy_array()
    if isinstance(pol, policy_lib.Policy):
      pi = tree.policy_array(pol)
    else:
      pi = np.array(pol, dtype=np.float64)
    tree.validate_policy_array(pi)
    return pi

  def _build_structure(self):
    """Policy-independent index arrays: team histories, successors, sequence ancestors."""
    tree = self.tree
    n, A = tree.num_nodes, tree.num_actions
    team_mask = np.zeros(tree.num_players, dtype=bool)
    team_mask[self.team] = True
    self._team_index = np.full(tree.num_players, -1, dtype=np.int64)
    self._team_index[self.team] = np.arange(len(self.team))
    player = tree.node_player
    is_team = (player >= 0) & team_mask[np.maximum(player, 0)]
    # Nearest team decision ancestor, the action taken there, and the team decision depth.
    tp = np.full(n, -1, dtype=np.int64)
    tpa = np.full(n, -1, dtype=np.int64)
    td = np.zeros(n, dtype=np.int64)
    for s, e in tree.level_slices[1:]:
      par = tree.node_parent[s:e]
      pt = is_team[par]
      tp[s:e] = np.where(pt, par, tp[par])
      tpa[s:e] = np.where(pt, tree.node_action[s:e], tpa[par])
      td[s:e] = td[par] + pt
    nodes = np.nonzero(is_team)[0]
    inf = tree.node_infoset[nodes]
    pre, size = traversal.preorder_and_size(tree.node_parent, tree.level_slices)
    order = np.lexsort((pre[nodes], inf))
    nodes, inf = nodes[order], inf[order]
    self._rows = nodes  # team decision histories, grouped by infoset
    self._row_inf = inf
    counts = np.bincount(inf, minlength=tree.num_infosets)
    self._inf_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    self._team_infosets = np.nonzero(counts)[0]
    self._inf_is_team = counts > 0
    depth_inf = np.full(tree.num_infosets, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(depth_inf, inf, td[nodes])
    self._inf_depth = depth_inf
    # Child of every team history for every action (-1 if illegal).
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[nodes] = np.arange(len(nodes))
    kids = tree.decision_children
    kp = row_of[tree.node_parent[kids]]
    sel = kp >= 0
    child = np.full((len(nodes), A), -1, dtype=np.int64)
    child[kp[sel], tree.node_action[kids[sel]]] = kids[sel]
    self._child = child
    # succ(I, a): team infosets whose histories have (I, a) as their last team decision.
    has = tp[nodes] >= 0
    key = tree.node_infoset[tp[nodes[has]]] * A + tpa[nodes[has]]
    pairs = np.unique(np.stack([key, inf[has]], axis=1), axis=0) if has.any() else \
        np.zeros((0, 2), dtype=np.int64)
    self._succ_val = pairs[:, 1].astype(np.int64)
    scount = np.bincount(pairs[:, 0], minlength=tree.num_infosets * A) if len(pairs) else \
        np.zeros(tree.num_infosets * A, dtype=np.int64)
    self._succ_ptr = np.concatenate([[0], np.cumsum(scount)]).astype(np.int64)
    # Own sequence level of every infoset and its ancestor sequences at each lower level.
    level = np.full(tree.num_infosets, -1, dtype=np.int64)
    max_level = 0
    for p in self.team:
      for k, lev in enumerate(tree.sequences[p].infoset_levels):
        level[lev] = k
        max_level = max(max_level, k)
    self._level = level
    ianc = np.full((tree.num_infosets, max_level + 1), -1, dtype=np.int64)
    for p in self.team:
      seqs = tree.sequences[p]
      for k, lev in enumerate(seqs.infoset_levels):
        if k == 0 or len(lev) == 0:
          continue
        ps = seqs.infoset_parent_seq[lev]
        ianc[lev, :k - 1] = ianc[ps // A, :k - 1]
        ianc[lev, k - 1] = ps
    self._ianc = ianc
    # Each team player's last sequence at every team history, and that sequence's level.
    s_row = tree.node_last_seq[nodes][:, self.team]
    self._s_row = s_row
    self._lev_row = np.where(s_row >= 0, level[np.maximum(s_row, 0) // A], -1)
    # Subtree intervals: h descends from g iff pre[g] <= pre[h] < pre[g] + size[g]. Rows are
    # sorted by (infoset, preorder), so key = infoset * num_nodes + preorder is sorted.
    self._row_key = inf * np.int64(n) + pre[nodes]
    self._row_pre = pre[nodes]
    self._row_size = size[nodes]

  # --------------------------------------------------------------------------------------------
  def objective_values(self, pi: np.ndarray, edge_probs=None) -> np.ndarray:
    """[num_nodes] team mean return of every history under `pi` (v^sigma of the paper)."""
    vals = evaluation.history_values(self.tree, pi, edge_probs=edge_probs, validate=False)
    return vals[:, self.team].mean(axis=1)

  def value(self, pi: np.ndarray) -> float:
    """Objective (team mean return) of the policy array `pi`."""
    return float(evaluation.game_value(self.tree, pi)[self.team].mean())

  def sweep(self, pi: np.ndarray, rng: np.random.Generator | None = None) -> dict:
    """The quantities one search needs (reach, values, J(I, a) under sigma = `pi`).

    `search(sweep, depth)` then runs one search; sampled JPS draws its histories with `rng`.
    """
    if self.samples is not None and rng is None:
      rng = np.random.default_rng(self.seed)
    return self._sweep(pi, rng)

  def _sweep(self, pi: np.ndarray, rng: np.random.Generator | None) -> dict:
    """One pass over the tree: reach and values under sigma, J(I, a) under sigma."""
    tree, A = self.tree, self.tree.num_actions
    ep = evaluation.edge_probabilities(tree, pi, validate=False)  # pi: checked by _as_array
    v = self.objective_values(pi, edge_probs=ep)
    # Reach as (product of non-zero edge probabilities, number of zero edges).
    nz = np.where(ep > 0, ep, 1.0)
    zc = (ep == 0).astype(np.int64)
    pnz = np.ones(tree.num_nodes)
    z = np.zeros(tree.num_nodes, dtype=np.int64)
    last = int(tree.node_depth[self._rows].max()) if len(self._rows) else 0
    for d, (s, e) in enumerate(tree.level_slices[1:], start=1):
      if d > last:
        break
      par = tree.node_parent[s:e]
      pnz[s:e] = pnz[par] * nz[s:e]
      z[s:e] = z[par] + zc[s:e]
    rows = self._rows
    pnz_r, z_r = pnz[rows], z[rows]
    reach_r = np.where(z_r == 0, pnz_r, 0.0)
    child = self._child
    dv = np.where(child >= 0, v[np.maximum(child, 0)] - v[rows][:, None], 0.0)
    weight = np.ones(len(rows))
    if self.samples is not None:
      weight = self._sample_weights(reach_r, rng)
    contrib = (weight * reach_r)[:, None] * dv
    jbase = np.zeros((tree.num_infosets, A))
    ti = self._team_infosets
    if len(rows):
      jbase[ti] = np.add.reduceat(contrib, self._inf_ptr[ti], axis=0)
    if self.samples is not None:
      row_ids = np.nonzero(weight > 0)[0]
      cnt = np.bincount(self._row_inf[row_ids], minlength=tree.num_infosets)
      ptr = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int64)
    else:
      row_ids, ptr = None, self._inf_ptr
    sig = pi
    return dict(row_ids=row_ids, ptr=ptr, pi=pi, value=float(v[0]), pnz=pnz_r, z=z_r,
                reach=reach_r, weight=weight, dv=dv, jbase=jbase,
                inv=np.where(sig > 0, 1.0 / np.where(sig > 0, sig, 1.0), 1.0), zero=sig == 0)

  def _sample_weights(self, reach_r: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """1 for the distinct histories drawn (k draws with replacement per infoset), else 0."""
    ti = self._team_infosets
    start = self._inf_ptr[ti]
    cnt = self._inf_ptr[ti + 1] - start
    k = self.samples
    draw = rng.integers(0, cnt[:, None], size=(len(ti), k))
    if self.sample_by == "reach":
      cs = np.cumsum(reach_r)
      base = np.where(start > 0, cs[np.maximum(start - 1, 0)], 0.0)
      tot = cs[start + cnt - 1] - base
      u = base[:, None] + rng.random((len(ti), k)) * tot[:, None]
      idx = np.searchsorted(cs, u, side="right")
      idx = np.clip(idx, start[:, None], (start + cnt - 1)[:, None]) - start[:, None]
      draw = np.where((tot > 0)[:, None], idx, draw)
    w = np.zeros(len(reach_r))
    w[(start[:, None] + draw).ravel()] = 1.0
    return w

  # --------------------------------------------------------------------------------------------
  def _successor_pairs(self, ch_inf: np.ndarray, ch_act: np.ndarray, act_inf: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(chain index, next infoset) for every team infoset that follows a chain's last
    (infoset, action) and is not already active on that chain."""
    seq = ch_inf * self.tree.num_actions + ch_act
    s0 = self._succ_ptr[seq]
    cnt = self._succ_ptr[seq + 1] - s0
    pair_c = np.repeat(np.arange(len(ch_inf)), cnt)
    pair_inf = self._succ_val[_ranges(s0, cnt)]
    if len(pair_inf):
      again = (act_inf[pair_c] == pair_inf[:, None]).any(axis=1)
      if again.any():  # (cannot happen with perfect recall; kept for safety)
        pair_c, pair_inf = pair_c[~again], pair_inf[~again]
    return pair_c, pair_inf

  def _on_path(self, row: np.ndarray, ij: np.ndarray, aj: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """For histories `row` and active (infoset, action) pairs (ij, aj), one per row: whether the
    history's path passes through infoset ij (`passes`) and takes action aj there (`hit`)."""
    A = self.tree.num_actions
    tj = self._team_index[self.tree.infoset_player[ij]]
    lj = self._level[ij]
    s = self._s_row[row, tj]
    lev = self._lev_row[row, tj]
    deeper = self._ianc[np.maximum(s, 0) // A, np.minimum(lj, self._ianc.shape[1] - 1)]
    anc = np.where(lev == lj, s, np.where(lev > lj, deeper, -1))
    passes = (anc >= 0) & (anc // A == ij)
    return passes, passes & (anc % A == aj)

  @staticmethod
  def _level_J(sweep: dict, kern: dict, pair_inf: np.ndarray, row: np.ndarray,
               row_pair: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """J(I, a) of every (chain, next infoset) pair: J under sigma, corrected by the histories
    whose reach the chain alters (Algorithm 1, line 12; `_jps_level`). `row`, `row_pair` and
    `codes` are `_unsigned`: the kernel's loads then need no negative-index wraparound."""
    jp = sweep["jbase"][pair_inf]
    _jps_level(codes, row, row_pair, kern["factor"], kern["zero_hit"], kern["pnz"], kern["z"],
               kern["weight"], kern["base_r"], kern["dv"], jp, kern["acc"])
    return jp

  def _kernel_inputs(self, sweep: dict) -> dict:
    """The sweep's arrays as `_jps_level` reads them (contiguous, one dtype each)."""
    c64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)
    weight = c64(sweep["weight"])
    return dict(factor=np.concatenate([c64(sweep["inv"]).ravel(), [0.0, 1.0]]),
                zero_hit=np.concatenate([sweep["zero"].ravel(), [False, False]]).astype(
                    np.int64),
                pnz=c64(sweep["pnz"]), z=np.ascontiguousarray(sweep["z"], dtype=np.int64),
                weight=weight, base_r=weight * c64(sweep["reach"]), dv=c64(sweep["dv"]),
                acc=np.empty(self.tree.num_actions))

  def _search_levels(self, sweep: dict, start_depth: int) -> list:
    """Every chain's J(I, a) by level, computing the altered histories as it goes."""
    tree = self.tree
    legal = tree.infoset_legal
    A = tree.num_actions
    na = tree.num_infosets * A
    code_dtype = np.int32 if na + 2 < 2**31 else np.int64
    jbase = sweep["jbase"]
    ptr, row_ids = sweep["ptr"], sweep["row_ids"]
    kern = self._kernel_inputs(sweep)
    start = self._team_infosets[self._inf_depth[self._team_infosets] == start_depth]
    ci, ca = np.nonzero(legal[start])
    ch_inf, ch_act = start[ci], ca.astype(np.int64)
    levels = [dict(inf=ch_inf, act=ch_act, parent=np.full(len(ch_inf), -1, dtype=np.int64),
                   J=jbase[ch_inf, ch_act])]
    act_inf = ch_inf[:, None]
    act_act = ch_act[:, None]
    max_depth = self.depth if self.depth is not None else np.iinfo(np.int64).max
    k = 1
    while k < max_depth and len(ch_inf):
      pair_c, pair_inf = self._successor_pairs(ch_inf, ch_act, act_inf)
      if not len(pair_inf):
        break
      r0 = ptr[pair_inf]
      rcnt = ptr[pair_inf + 1] - r0
      n_rows = int(rcnt.sum())
      # Histories whose reach may change lie below a history of an active infoset: find them
      # by subtree intervals when that is cheaper than checking every candidate history.
      act_cnt = self._inf_ptr[act_inf[pair_c] + 1] - self._inf_ptr[act_inf[pair_c]]
      n_trip = int(act_cnt.sum())
      use_intervals = {"auto": 4 * n_trip < n_rows * k, "always": True,
                       "never": False}[self._row_mode]
      if use_intervals:
        row_pair, row = self._rows_below_active(pair_inf, act_inf[pair_c], act_cnt,
                                                row_ids)
      else:
        if n_rows > self.max_rows:
          raise ValueError(f"the search at depth level {k + 1} would touch {n_rows} "
                           f"(chain, history) pairs > max_rows={self.max_rows}; use a "
                           "smaller depth")
        row_pair = np.repeat(np.arange(len(pair_inf)), rcnt)
        row = _ranges(r0, rcnt)
        if row_ids is not None:
          row = row_ids[row]
      row_chain = pair_c[row_pair]
      # Altered reach pi^{sigma'}(h) (Algorithm 1, line 12): replace the factor of every
      # active infoset on h's path by its one-hot factor (Eq. 6); codes as in `_structure`.
      codes = np.empty((k, len(row)), dtype=code_dtype)
      for j in range(k):
        ij, aj = act_inf[row_chain, j], act_act[row_chain, j]
        passes, hit = self._on_path(row, ij, aj)
        codes[j] = np.where(hit, ij * A + aj, np.where(passes, na, na + 1))
      jp = self._level_J(sweep, kern, pair_inf, _unsigned(row), _unsigned(row_pair),
                         _unsigned(codes))
      pi_, pa = np.nonzero(legal[pair_inf])
      ch_inf = pair_inf[pi_]
      ch_act = pa.astype(np.int64)
      parent = pair_c[pi_]
      levels.append(dict(inf=ch_inf, act=ch_act, parent=parent, J=jp[pi_, pa]))
      act_inf = np.concatenate([act_inf[parent], ch_inf[:, None]], axis=1)
      act_act = np.concatenate([act_act[parent], ch_act[:, None]], axis=1)
      k += 1
    return levels

  def _structure(self, start_depth: int) -> list | None:
    """The policy-independent part of the searches from `start_depth` (cached), or None when
    it would exceed `structure_budget`.

    Per level k >= 1: the chains (parent chain, infoset, action), and for every (chain,
    history) pair whose reach the chain can alter, a code per active infoset j of the chain:
    the flat index I_j * A + a_j where the history's path takes a_j at I_j (its factor
    becomes 1 / sigma(I_j, a_j)), `num_infosets * A` where the path passes I_j with another
    action (factor 0), `num_infosets * A + 1` where it does not pass I_j (factor 1).
    """
    if start_depth in self._structures:
      return self._structures[start_depth]
    tree, A = self.tree, self.tree.num_actions
    legal = tree.infoset_legal
    na = tree.num_infosets * A
    code_dtype = np.int32 if na + 2 < 2**31 else np.int64
    ptr = self._inf_ptr
    start = self._team_infosets[self._inf_depth[self._team_infosets] == start_depth]
    ci, ca = np.nonzero(legal[start])
    ch_inf, ch_act = start[ci], ca.astype(np.int64)
    first = dict(inf=ch_inf, act=ch_act)
    act_inf, act_act = ch_inf[:, None], ch_act[:, None]
    max_depth = self.depth if self.depth is not None else np.iinfo(np.int64).max
    entries = 0
    levels = []
    k = 1
    while k < max_depth and len(ch_inf):
      pair_c, pair_inf = self._successor_pairs(ch_inf, ch_act, act_inf)
      if not len(pair_inf):
        break
      r0 = ptr[pair_inf]
      rcnt = ptr[pair_inf + 1] - r0
      n_rows = int(rcnt.sum())
      act_cnt = self._inf_ptr[act_inf[pair_c] + 1] - self._inf_ptr[act_inf[pair_c]]
      n_trip = int(act_cnt.sum())
      if 4 * n_trip < n_rows * k:
        row_pair, row = self._rows_below_active(pair_inf, act_inf[pair_c], act_cnt, None)
      else:
        row_pair = np.repeat(np.arange(len(pair_inf)), rcnt)
        row = _ranges(r0, rcnt)
      entries += len(row) * (k + 2) + len(pair_inf)
      if self._structure_entries + entries > self.structure_budget:
        self._structures[start_depth] = None
        return None
      row_chain = pair_c[row_pair]
      codes = np.empty((k, len(row)), dtype=code_dtype)
      for j in range(k):
        ij, aj = act_inf[row_chain, j], act_act[row_chain, j]
        passes, hit = self._on_path(row, ij, aj)
        codes[j] = np.where(hit, ij * A + aj, np.where(passes, na, na + 1))
      pi_, pa = np.nonzero(legal[pair_inf])
      ch_inf = pair_inf[pi_]
      ch_act = pa.astype(np.int64)
      parent = pair_c[pi_]
      levels.append(dict(pair_inf=pair_inf, row_pair=_unsigned(row_pair), row=_unsigned(row),
                         codes=_unsigned(codes), pi=pi_,
                         pa=pa, inf=ch_inf, act=ch_act, parent=parent))
      act_inf = np.concatenate([act_inf[parent], ch_inf[:, None]], axis=1)
      act_act = np.concatenate([act_act[parent], ch_act[:, None]], axis=1)
      k += 1
    self._structure_entries += entries
    self._structures[start_depth] = [first] + levels
    return self._structures[start_depth]

  def _search_levels_cached(self, sweep: dict, struct: list) -> list:
    """`_search_levels` from the cached structure: the same arithmetic in the same order.

    Sampled JPS uses the structure of all histories; the histories it did not draw have
    weight 0, so their reach change is 0 and they add nothing, as when left out.
    """
    jbase = sweep["jbase"]
    kern = self._kernel_inputs(sweep)
    ch_inf, ch_act = struct[0]["inf"], struct[0]["act"]
    levels = [dict(inf=ch_inf, act=ch_act, parent=np.full(len(ch_inf), -1, dtype=np.int64),
                   J=jbase[ch_inf, ch_act])]
    for lv in struct[1:]:
      jp = self._level_J(sweep, kern, lv["pair_inf"], lv["row"], lv["row_pair"], lv["codes"])
      levels.append(dict(inf=lv["inf"], act=lv["act"], parent=lv["parent"],
                         J=jp[lv["pi"], lv["pa"]]))
    return levels

  def search(self, sweep: dict, start_depth: int,
             rng: np.random.Generator | None = None) -> SearchResult:
    """Algorithm 1's JPS(sigma, I_cand, 1) with I_cand = all team infosets at `start_depth`.

    With `rng` (tie_break="random"), the chain is a uniformly random one among the candidates
    of maximal predicted gain, "no change" (gain 0) included; it may have gain 0.
    """
    t0 = time.perf_counter()
    struct = None
    if self._row_mode == "auto" and self.structure_budget > 0:
      struct = self._structure(start_depth)
    if struct is None:
      levels = self._search_levels(sweep, start_depth)
    else:
      levels = self._search_levels_cached(sweep, struct)
    # Bottom-up: r(I, a) = J(I, a) + max(0, best child) (Algorithm 1, lines 17-19).
    best = None
    for lvl in reversed(levels):
      b = lvl["J"].copy()
      if best is not None and len(best[0]):
        child_best, child_parent = best
        cm = np.full(len(b), -np.inf)
        up, first = np.unique(child_parent, return_index=True)
        cm[up] = np.maximum.reduceat(child_best, first)
        b += np.maximum(cm, 0.0)
      lvl["best"] = b
      best = (b, lvl["parent"])
    num = int(sum(len(lvl["inf"]) for lvl in levels))
    chain = []
    gain = 0.0
    if rng is not None and len(levels[0]["inf"]):
      return self._random_maximal(levels, num, rng, t0)
    if len(levels[0]["inf"]):
      c = _first_maximal(levels[0]["best"])
      gain = float(max(0.0, levels[0]["best"][c]))
      if gain > self.improvement_tol:
        chain.append((int(levels[0]["inf"][c]), int(levels[0]["act"][c])))
        for lvl in levels[1:]:
          kids = np.nonzero(lvl["parent"] == c)[0]
          if not len(kids):
            break
          kb = lvl["best"][kids]
          if kb.max() <= self.improvement_tol:
            break
          c = int(kids[_first_maximal(kb)])
          chain.append((int(lvl["inf"][c]), int(lvl["act"][c])))
    return SearchResult(gain=gain, chain=chain, num_candidates=num, levels=levels,
                        seconds=time.perf_counter() - t0)

  def _random_maximal(self, levels, num, rng, t0) -> SearchResult:
    """A uniformly random candidate of maximal predicted gain (no change included)."""
    preds = []
    for k, lvl in enumerate(levels):
      preds.append(lvl["J"].copy() if k == 0 else preds[k - 1][lvl["parent"]] + lvl["J"])
    gmax = max(0.0, max(float(p.max()) for p in preds if len(p)))
    tol = _rounding_tolerance(gmax)
    where = [np.nonzero(p >= gmax - tol)[0] for p in preds]
    n_none = 1 if gmax <= tol else 0
    total = n_none + sum(len(w) for w in where)
    pick = int(rng.integers(total))
    chain = []
    if pick >= n_none:
      pick -= n_none
      for k, w in enumerate(where):
        if pick < len(w):
          c = int(w[pick])
          for kk in range(k, -1, -1):
            chain.append((int(levels[kk]["inf"][c]), int(levels[kk]["act"][c])))
            c = int(levels[kk]["parent"][c])
          chain.reverse()
          break
        pick -= len(w)
    return SearchResult(gain=gmax, chain=chain, num_candidates=num, levels=levels,
                        seconds=time.perf_counter() - t0)

  def _rows_below_active(self, pair_inf, pair_act, act_cnt, row_ids):
    """(pair, row) of the candidate histories below a history of an active infoset."""
    n_pairs, k = pair_act.shape
    flat_act = pair_act.ravel()
    cnt = act_cnt.ravel()
    g = _ranges(self._inf_ptr[flat_act], cnt)  # rows (histories) of the active infosets
    trip_pair = np.repeat(np.repeat(np.arange(n_pairs), k), cnt)
    n = np.int64(self.tree.num_nodes)
    base = pair_inf[trip_pair] * n
    keys = self._row_key if row_ids is None else self._row_key[row_ids]
    lo = np.searchsorted(keys, base + self._row_pre[g])
    hi = np.searchsorted(keys, base + self._row_pre[g] + self._row_size[g])
    hit = hi > lo
    trip_pair, lo, hi = trip_pair[hit], lo[hit], hi[hit]
    row = _ranges(lo, hi - lo)
    row_pair = np.repeat(trip_pair, hi - lo)
    if len(row) > self.max_rows:
      raise ValueError(f"the search would touch {len(row)} (chain, history) pairs > "
                       f"max_rows={self.max_rows}; use a smaller depth")
    # A history below several active infosets appears once per infoset: keep one.
    code = np.unique(row_pair * np.int64(len(keys)) + row)
    row_pair, row = code // len(keys), code % len(keys)
    if row_ids is not None:
      row = row_ids[row]
    return row_pair, row

  # --------------------------------------------------------------------------------------------
  def candidates(self, result: SearchResult) -> Iterator[tuple[list[tuple[int, int]], float]]:
    """Every candidate chain of a search with its Theorem 1 predicted gain."""
    levels = result.levels
    preds = [None] * len(levels)
    for k, lvl in enumerate(levels):
      if k == 0:
        preds[k] = lvl["J"].copy()
      else:
        preds[k] = preds[k - 1][lvl["parent"]] + lvl["J"]
    for k, lvl in enumerate(levels):
      for c in range(len(lvl["inf"])):
        chain = []
        kk, cc = k, c
        while kk >= 0:
          chain.append((int(levels[kk]["inf"][cc]), int(levels[kk]["act"][cc])))
          cc = int(levels[kk]["parent"][cc])
          kk -= 1
        yield chain[::-1], float(preds[k][c])

  @staticmethod
  def apply_chain(pi: np.ndarray, chain: Sequence[tuple[int, int]]) -> np.ndarray:
    """sigma' of Eq. 6: `pi` with every (infoset, action) of the chain set one-hot."""
    new = pi.copy()
    for i, a in chain:
      new[i] = 0.0
      new[i, a] = 1.0
    return new

  def brute_force_gains(self, pi: np.ndarray, result: SearchResult,
                        limit: int | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(predicted, brute-force, seconds) gains of the search's candidates (the first `limit`).

    Brute force = `evaluation.game_value` of the modified policy array, one full sweep per
    candidate.
    """
    v0 = self.value(pi)
    pred, true = [], []
    t0 = time.perf_counter()
    for i, (chain, p) in enumerate(self.candidates(result)):
      if limit is not None and i >= limit:
        break
      true.append(self.value(self.apply_chain(pi, chain)) - v0)
      pred.append(p)
    return np.asarray(pred), np.asarray(true), time.perf_counter() - t0

  def _verify(self, pi: np.ndarray, result: SearchResult) -> None:
    pred, true, _ = self.brute_force_gains(pi, result)
    err = np.abs(pred - true)
    tol = self.verify_atol * (1.0 + np.abs(true))
    if np.any(err > tol):
      i = int(np.argmax(err - tol))
      raise AssertionError(f"Theorem 1 prediction {pred[i]} != brute force {true[i]} "
                           f"(candidate {i} of {len(pred)}) on {self.tree.game}")

  # --------------------------------------------------------------------------------------------
  def _improve_reference(self, pi: np.ndarray, rng: np.random.Generator,
                           t_start: float) -> JPSResult:
    """The authors' `Solver::runSearch` schedule (see `schedule` in `JointPolicySearch`)."""
    tree = self.tree
    tie_rng = rng if self.tie_break == "random" else None
    value = initial_value = self.value(pi)
    history: list[JPSIteration] = []
    order: list[int] = []
    if self.depth is not None:
      order = [int(d) for d in rng.permutation(self.start_depths)]
    sweep = None
    limit = self.max_iterations if self.max_iterations is not None else np.iinfo(np.int64).max
    it = 0
    while it < limit and self.start_depths:
      if self.depth is not None:
        if not order:
          break
        d = order.pop()
      else:
        d = self.start_depths[0]
      t0 = time.perf_counter()
      if sweep is None:
        sweep = self._sweep(pi, None)
      res = self.search(sweep, int(d), rng=tie_rng)
      if self.verify:
        self._verify(pi, res)
      gained = res.gain > self.improvement_tol
      if self.depth is None and not gained:
        it += 1
        history.append(JPSIteration(iteration=it, start_depth=int(d), value=value,
                                    predicted_gain=0.0, true_gain=0.0, changes=[],
                                    num_candidates=res.num_candidates,
                                    search_seconds=res.seconds,
                                    seconds=time.perf_counter() - t0))
        break
      changes, new_value = [], value
      if res.chain:
        pi = self.apply_chain(pi, res.chain)
        changes = [(tree.infoset_keys[i], a) for i, a in res.chain]
        sweep = self._sweep(pi, None)
        new_value = sweep["value"]
      it += 1
      history.append(JPSIteration.of_step(it, d, res, changes, value, new_value, t0))
      value = new_value
      if self.depth is not None and (res.gain > 1e-4 or it == 1):
        order = [int(x) for x in rng.permutation(self.start_depths)]
    return JPSResult(policy=tree.tabular_policy(pi), policy_array=pi,
                     value=value * self._value_scale,
                     initial_value=initial_value * self._value_scale, history=history,
                     best_iteration=it,
                     seconds=time.perf_counter() - t_start)

  def reference_start_depths(self) -> list[int]:
    """The starting depths of the authors' code for `depth` (facebookresearch/jps,
    `Solver::runSearch`): the first team decision level only without a depth; with a depth D,
    every level that has at least D - 1 levels below it (levels 0 .. L - D of L levels)."""
    levels = sorted(int(d) for d in np.unique(self._inf_depth[self._team_infosets]))
    if self.depth is None:
      return levels[:1]
    keep = [d for d in levels if d <= levels[-1] + 1 - self.depth]
    return keep or levels[:1]

  def improve(self, initial_policy: PolicyLike = None,
              seed: int | None = None) -> JPSResult:
    """Runs JPS-Main (Algorithm 1) from `initial_policy` (default uniform).

    Args:
      initial_policy: the starting policy (array on the tree, OpenSpiel policy, or None for
        uniform).
      seed: seeds this run's generator (an int >= 0; default: the constructor's `seed`). Runs
        of one `JointPolicySearch` from many policies share the searches' cached structure,
        and each equals the run of a fresh `JointPolicySearch(..., seed=seed)`.
    """
    t_start = time.perf_counter()
    tree = self.tree
    pi = self._as_array(initial_policy)
    if self._fixed is not None:
      others = ~np.isin(tree.infoset_player, self.team)
      pi[others] = self._fixed[others]
    rng = np.random.default_rng(self.seed if seed is None else _check_seed(seed, "seed"))
    if self.schedule == "reference":
      return self._improve_reference(pi, rng, t_start)
    value = self.value(pi)
    initial_value = value
    best_value, best_pi, best_it = value, pi.copy(), 0
    history: list[JPSIteration] = []
    it = 0
    pbar = None
    if self.progress:
      import tqdm
      pbar = tqdm.tqdm(desc=f"JPS {tree.game}", unit=" it")
    done = self.max_iterations == 0 or not self.start_depths
    sweep = None
    while not done:
      improved = False
      for d in rng.permutation(self.start_depths):
        if self.max_iterations is not None and it >= self.max_iterations:
          done = True
          break
        t0 = time.perf_counter()
        # pi^sigma and v^sigma are computed once per policy (Algorithm 1, line 3): exact JPS
        # reuses the sweep while no change is applied; sampled JPS redraws every iteration.
        if sweep is None or self.samples is not None:
          sweep = self._sweep(pi, rng)
        res = self.search(sweep, int(d))
        if self.verify:
          self._verify(pi, res)
        changes = []
        new_value = value
        if res.chain:
          pi = self.apply_chain(pi, res.chain)
          changes = [(tree.infoset_keys[i], a) for i, a in res.chain]
          if self.samples is None:
            sweep = self._sweep(pi, rng)  # also gives the new value: v^sigma'(root)
            new_value = sweep["value"]
          else:
            new_value = self.value(pi)
          improved = True
        it += 1
        history.append(JPSIteration.of_step(it, d, res, changes, value, new_value, t0))
        value = new_value
        if value > best_value + (0.0 if self.samples is None else 1e-12):
          best_value, best_pi, best_it = value, pi.copy(), it
        if pbar is not None:
          pbar.update(1)
          pbar.set_postfix(value=f"{value:.6f}")
      if not improved and self.stop_on_quiet_pass:
        done = True
    if pbar is not None:
      pbar.close()
    if self.samples is None:  # exact JPS never lowers the value: the last policy is the best
      best_pi, best_value, best_it = pi, value, it
    return JPSResult(policy=tree.tabular_policy(best_pi), policy_array=best_pi,
                     value=best_value * self._value_scale,
                     initial_value=initial_value * self._value_scale, history=history,
                     best_iteration=best_it,
                     seconds=time.perf_counter() - t_start)


def _rounding_tolerance(m: float) -> float:
  """Gains within this of the maximum `m` count as tied (both tie-break rules use it).

  Chains whose predicted gains are equal in exact arithmetic (common: symmetric cards, or
  changes on histories of equal value) are sums over different histories, so their computed
  gains can differ in the last bits; without this tolerance rounding, not the tie-break rule,
  would choose among them.
  """
  return 1e-9 * (1.0 + abs(m))


def _first_maximal(x: np.ndarray) -> int:
  """The first index whose value is tied with the maximum (`_rounding_tolerance`)."""
  m = float(x.max())
  return int(np.argmax(x >= m - _rounding_tolerance(m)))


def joint_policy_search(game: pyspiel.Game | GameTree, initial_policy: PolicyLike = None,
                        **kwargs) -> JPSResult:
  """Functional form: `JointPolicySearch(game, **kwargs).improve(initial_policy)`."""
  return JointPolicySearch(game, **kwargs).improve(initial_policy)


def purified_policy_array(tree: GameTree, pi: np.ndarray) -> np.ndarray:
  """The argmax (first maximal legal action) policy of `pi` (the paper's "purified" CFR)."""
  return tree.purified_policy_array(pi)
