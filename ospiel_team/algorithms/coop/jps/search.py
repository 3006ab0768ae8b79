"""One Joint Policy Search: every chain of active infosets valued by Theorem 1, vectorized.

Tian, Gong, Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495 (Sec. 4-6, Algorithm 1).

For a policy sigma and a candidate sigma' that differs from it only on an *active set* of
information sets, Theorem 1 (Eq. 4) gives the change of game value as a sum over the active
infosets of the policy-change density (Eq. 5)

    rho(h) = pi^{sigma'}(h) * (sum_a sigma'(I, a) v^sigma(ha) - v^sigma(h)),   h in I,

where only the altered reach pi^{sigma'} of the active histories has to be recomputed:
pi^sigma and v^sigma come from one sweep over the tree (`sweep.sweep`, Algorithm 1
line 3). A search (Algorithm 1's JPS(sigma, I_cand, 1)) values every chain
I1 -a1-> I2 in succ(I1, a1) -a2-> ... of at most D active infosets, each set one-hot to its
action (Eq. 6), and returns the best; "no change" is always a candidate (Theorem 2).

The search is breadth-first over the levels of the search tree: level k holds every chain of
k + 1 active infosets (`level_indices`, the one level generator). The altered reach of a
history is its reach with the factor of every active infoset on its path replaced by the
one-hot factor; zero probabilities are handled exactly by keeping reach as (product of non-zero
edge probabilities, number of zero edges). J(I, a) (Algorithm 1 line 12) is J under sigma plus
the contribution of the histories whose reach changed, summed by the numba kernel `_jps_level`;
the chain values are then maximized bottom-up (lines 17-19).

Sampled JPS (Sec. 6, v1 of the paper): k histories of every candidate infoset are drawn with
replacement and only the distinct drawn ones enter the sums of Theorem 1.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence

import numba
import numpy as np

from ospiel_team import checks
from ospiel_team.algorithms.coop.jps import sweep as sweep_lib
from ospiel_team.algorithms.coop.jps.config import JPSConfig
from ospiel_team.algorithms.coop.jps.structure import TeamStructure
from ospiel_team.algorithms.coop.jps.structure import check_rows
from ospiel_team.algorithms.coop.jps.structure import ranges
from ospiel_team.algorithms.coop.jps.sweep import Sweep
from ospiel_team.errors import UserError
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree

ROW_FINDING = ("auto", "intervals", "scan")
Chain = tuple[tuple[int, int], ...]  # (infoset, action) of every active infoset, in order


@dataclasses.dataclass(frozen=True, eq=False)
class Level:
  """The chains of one search level, as parallel arrays.

  Chain c extends chain `parent[c]` of the level above (-1 on the first level) by the active
  infoset `infoset[c]` set one-hot to `action[c]`; `j[c]` is its J(I, a) (Algorithm 1,
  line 12) given the parent chain.
  """
  infoset: np.ndarray
  action: np.ndarray
  parent: np.ndarray
  j: np.ndarray


@dataclasses.dataclass(frozen=True, eq=False)
class LevelIndex:
  """The policy-independent part of one search level below the first.

  Attributes:
    pair_infoset: [P] the candidate infoset of every (parent chain, next infoset) pair.
    row_pair, row: (pair, row) of every history whose reach the pair's chain can alter.
    codes: [k, len(row)] per active infoset j of the chain: the flat index I_j * A + a_j
      where the history's path takes a_j at I_j (factor 1 / sigma(I_j, a_j)),
      `num_infosets * A` where it passes I_j with another action (factor 0),
      `num_infosets * A + 1` where it does not pass I_j (factor 1). `row_pair`, `row` and
      `codes` are unsigned (the kernel's loads need no negative-index wraparound).
    pair_of_chain, chain_action: the new chains as (pair, action) (legal actions of the
      pair's infoset).
    infoset, action, parent: the new chains as in `Level`.
  """
  pair_infoset: np.ndarray
  row_pair: np.ndarray
  row: np.ndarray
  codes: np.ndarray
  pair_of_chain: np.ndarray
  chain_action: np.ndarray
  infoset: np.ndarray
  action: np.ndarray
  parent: np.ndarray

  @property
  def num_entries(self) -> int:
    """Array entries held (what `JPSConfig.structure_budget` counts)."""
    return len(self.row) * (self.codes.shape[0] + 2) + len(self.pair_infoset)


@dataclasses.dataclass(frozen=True, eq=False)
class SearchResult:
  """One search (Algorithm 1's JPS from one starting depth).

  Attributes:
    gain: the predicted gain of `chain` (max(0, best), Theorem 2).
    chain: (infoset, action) of the chosen chain; () = no change.
    num_candidates: chains valued.
    levels: every level's chains and J values (for verification and `candidates`).
    seconds: the search's time.
  """
  gain: float
  chain: Chain
  num_candidates: int
  levels: tuple[Level, ...]
  seconds: float


# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True, boundscheck=False)
def _jps_level(  # noqa: C901 (numba kernel: one compiled frame)
    codes, row, row_pair, factor, zero_hit, pnz, zc, weight, base_r, dv, jp, acc):
  """Computes J(I, a) of one search level's (chain, next infoset) pairs in place.

  J(I, a) of every (chain, next infoset) pair of one search level, in place in `jp` (J under
  sigma on entry): Algorithm 1, line 12, on the (chain, history) entries whose reach the chain
  can alter.

  Entry i is history `row[i]` of pair `row_pair[i]` (entries of a pair contiguous); its altered
  reach is its reach with, for every active infoset j of the chain, the factor
  `factor[codes[j, i]]` (1 / sigma(I_j, a_j), 0 or 1: `LevelIndex.codes`) and
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


def _level_j(sweep: Sweep, index: LevelIndex, acc: np.ndarray) -> np.ndarray:
  """J(I, a) of every new chain of a level.

  J under sigma of its pair, corrected by the histories whose reach the chain alters (`_jps_level`).
  """
  kern = sweep.kernel
  jp = sweep.j_base[index.pair_infoset]
  _jps_level(index.codes, index.row, index.row_pair, kern.factor, kern.zero_hit,
             kern.reach_nonzero, kern.zero_edges, kern.weight, kern.base_reach,
             kern.value_change, jp, acc)
  return jp[index.pair_of_chain, index.chain_action]


# ----------------------------------------------------------------------------------------------
def _altered_rows(s: TeamStructure, pair_c, pair_inf, act_inf, k: int, row_ptr, row_ids,
                  row_finding: str, max_rows: int) -> tuple[np.ndarray, np.ndarray]:
  """The (pair, row) entries whose reach a pair's chain may alter.

  (pair, row) of the candidate histories whose reach a pair's chain may alter: those below
  a history of an active infoset, found by subtree intervals when that is cheaper than
  checking every candidate history ("auto"), or always one way ("intervals", "scan").
  """
  r0 = row_ptr[pair_inf]
  rcnt = row_ptr[pair_inf + 1] - r0
  n_rows = int(rcnt.sum())
  act = act_inf[pair_c]
  act_cnt = s.infoset_ptr[act + 1] - s.infoset_ptr[act]
  n_trip = int(act_cnt.sum())
  use_intervals = {"auto": 4 * n_trip < n_rows * k, "intervals": True,
                   "scan": False}[row_finding]
  if use_intervals:
    return s.rows_below_active(pair_inf, act, act_cnt, row_ids, max_rows)
  check_rows(n_rows, max_rows)
  row_pair = np.repeat(np.arange(len(pair_inf)), rcnt)
  row = ranges(r0, rcnt)
  if row_ids is not None:
    row = row_ids[row]
  return row_pair, row


def level_indices(s: TeamStructure, start_depth: int, *, depth: int | None,
                  row_ptr: np.ndarray, row_ids: np.ndarray | None, row_finding: str,
                  max_rows: int) -> Iterator[LevelIndex]:
  """The levels below the first of the search tree from `start_depth`, one at a time.

  Level k + 1 extends every chain of level k by each I' in succ(I_k, a_k) (Algorithm 1,
  lines 13-16) and each legal action of I', while chains have fewer than `depth` infosets.

  Args:
    s: the team's structure.
    start_depth: the team decision depth of the first active infoset.
    depth: D (None: to the end of the game).
    row_ptr: per infoset, where its rows start in `row_ids` (`Sweep.row_ptr`; the structure's
      `infoset_ptr` for all rows).
    row_ids: the rows that take part (`Sweep.row_ids`; None for all).
    row_finding: "auto", "intervals" or "scan" (`_altered_rows`).
    max_rows: the most (chain, history) entries of a level.

  Yields:
    One `LevelIndex` per level.

  Raises:
    SizeLimitError: a level would touch more than `max_rows` entries.
  """
  a = s.num_actions
  na = len(s.infoset_legal) * a
  code_dtype = np.int32 if na + 2 < 2**31 else np.int64
  ch_inf, ch_act = s.start_chains(start_depth)
  act_inf, act_act = ch_inf[:, None], ch_act[:, None]
  max_depth = depth if depth is not None else np.iinfo(np.int64).max
  k = 1
  while k < max_depth and len(ch_inf):
    pair_c, pair_inf = s.successor_pairs(ch_inf, ch_act, act_inf)
    if not len(pair_inf):
      break
    row_pair, row = _altered_rows(s, pair_c, pair_inf, act_inf, k, row_ptr, row_ids,
                                  row_finding, max_rows)
    # Altered reach pi^{sigma'}(h) (Algorithm 1, line 12): the factor of every active
    # infoset on h's path becomes its one-hot factor (Eq. 6); codes as in `LevelIndex`.
    row_chain = pair_c[row_pair]
    codes = np.empty((k, len(row)), dtype=code_dtype)
    for j in range(k):
      ij, aj = act_inf[row_chain, j], act_act[row_chain, j]
      passes, hit = s.on_path(row, ij, aj)
      codes[j] = np.where(hit, ij * a + aj, np.where(passes, na, na + 1))
    pi_, pa = np.nonzero(s.infoset_legal[pair_inf])
    ch_inf, ch_act, parent = pair_inf[pi_], pa.astype(np.int64), pair_c[pi_]
    yield LevelIndex(pair_infoset=pair_inf, row_pair=_unsigned(row_pair), row=_unsigned(row),
                     codes=_unsigned(codes), pair_of_chain=pi_, chain_action=pa,
                     infoset=ch_inf, action=ch_act, parent=parent)
    act_inf = np.concatenate([act_inf[parent], ch_inf[:, None]], axis=1)
    act_act = np.concatenate([act_act[parent], ch_act[:, None]], axis=1)
    k += 1


# ----------------------------------------------------------------------------------------------
def chain_predictions(levels: Sequence[Level]) -> list[np.ndarray]:
  """Theorem 1's predicted gain of every chain, per level: the sum of J along the chain."""
  preds: list[np.ndarray] = []
  for k, lvl in enumerate(levels):
    preds.append(lvl.j.copy() if k == 0 else preds[k - 1][lvl.parent] + lvl.j)
  return preds


def chain_at(levels: Sequence[Level], k: int, c: int) -> Chain:
  """The chain ending at chain `c` of level `k`, first infoset first."""
  chain = []
  for kk in range(k, -1, -1):
    chain.append((int(levels[kk].infoset[c]), int(levels[kk].action[c])))
    c = int(levels[kk].parent[c])
  return tuple(reversed(chain))


def apply_chain(pi: np.ndarray, chain: Iterable[tuple[int, int]]) -> np.ndarray:
  """Sigma' of Eq. 6: `pi` with every (infoset, action) of the chain set one-hot.

  Args:
    pi: the policy array (not modified).
    chain: (infoset, action) pairs to set one-hot.

  Returns:
    A copy of `pi` with each chain infoset's row one-hot at its action.

  Raises:
    UserError: `pi` is not a 2-D numpy array or `chain` not (infoset, action) pairs of it.
  """
  if not isinstance(pi, np.ndarray) or pi.ndim != 2:
    raise UserError(f"pi must be a policy array (a 2-D numpy array), got "
                    f"{type(pi).__name__} {pi!r:.80}")
  if isinstance(chain, (str, bytes)) or not isinstance(chain, Iterable):
    raise UserError(f"chain must be a sequence of (infoset, action) pairs, got "
                    f"{type(chain).__name__} {chain!r:.80}")
  pairs = list(chain)
  for p in pairs:
    if not (isinstance(p, (tuple, list)) and len(p) == 2
            and all(checks.is_integer(x) for x in p)
            and 0 <= p[0] < pi.shape[0] and 0 <= p[1] < pi.shape[1]):
      raise UserError(f"chain: {p!r:.80} is not an (infoset, action) pair of a policy array "
                      f"of shape {pi.shape}")
  new = pi.copy()
  for i, a in pairs:
    new[i] = 0.0
    new[i, a] = 1.0
  return new


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


def _best_below(levels: Sequence[Level]) -> list[np.ndarray]:
  """The predicted gain r(I, a) of every chain, bottom-up.

  r(I, a) = J(I, a) + max(0, best child) of every chain, bottom-up (Algorithm 1, lines
  17-19).
  """
  best: list[np.ndarray] = [np.empty(0)] * len(levels)
  below = None
  for k in range(len(levels) - 1, -1, -1):
    b = levels[k].j.copy()
    if below is not None and len(below[0]):
      child_best, child_parent = below
      cm = np.full(len(b), -np.inf)
      up, first = np.unique(child_parent, return_index=True)
      cm[up] = np.maximum.reduceat(child_best, first)
      b += np.maximum(cm, 0.0)
    best[k] = b
    below = (b, levels[k].parent)
  return best


def _first_maximal_chain(levels: Sequence[Level], tol: float) -> tuple[float, Chain]:
  """The chain of maximal predicted gain (Algorithm 1's choice).

  The first chain of maximal predicted gain, descending while a child gains more than
  `tol`; no change if the best gain is at most `tol`.
  """
  best = _best_below(levels)
  c = _first_maximal(best[0])
  gain = float(max(0.0, best[0][c]))
  if gain <= tol:
    return gain, ()
  chain = [(int(levels[0].infoset[c]), int(levels[0].action[c]))]
  for lvl, b in zip(levels[1:], best[1:], strict=True):
    kids = np.nonzero(lvl.parent == c)[0]
    if not len(kids):
      break
    kb = b[kids]
    if kb.max() <= tol:
      break
    c = int(kids[_first_maximal(kb)])
    chain.append((int(lvl.infoset[c]), int(lvl.action[c])))
  return gain, tuple(chain)


def _random_maximal_chain(levels: Sequence[Level], rng: np.random.Generator
                          ) -> tuple[float, Chain]:
  """A uniformly random candidate of maximal predicted gain ("no change" included)."""
  preds = chain_predictions(levels)
  gmax = max(0.0, max(float(p.max()) for p in preds if len(p)))
  tol = _rounding_tolerance(gmax)
  where = [np.nonzero(p >= gmax - tol)[0] for p in preds]
  n_none = 1 if gmax <= tol else 0
  pick = int(rng.integers(n_none + sum(len(w) for w in where)))
  if pick < n_none:
    return gmax, ()
  pick -= n_none
  for k, w in enumerate(where):
    if pick < len(w):
      return gmax, chain_at(levels, k, int(w[pick]))
    pick -= len(w)
  raise AssertionError("unreachable: the pick is below the candidate count")


# ----------------------------------------------------------------------------------------------
class ChainSearch:
  """Sweeps and searches (Algorithm 1's JPS(sigma, I_cand, 1)) of one team on one tree.

  The searches' policy-independent `LevelIndex` arrays are computed once per starting depth
  and kept while they hold at most `config.structure_budget` entries in all; every later
  search from that depth (every iteration, every policy) reuses them. The results are the
  same, bit for bit, as finding them anew.

  Args:
    tree: the game tree.
    structure: the team's `TeamStructure` on `tree` (`structure.team_structure`).
    config: the options (depth, samples, sample_by, improvement_tol, max_rows,
      structure_budget are read).
    row_finding: how the histories with altered reach are found: "auto" (the cheaper way per
      level; the only mode that uses the kept index arrays), "intervals" (subtree intervals
      below the active histories) or "scan" (check every candidate history).

  Raises:
    UserError: an unknown `row_finding`.
  """

  def __init__(self, tree: GameTree, structure: TeamStructure, config: JPSConfig, *,
               row_finding: str = "auto"):
    checks.check_tree("tree", tree)
    checks.check_type("structure", structure, TeamStructure,
                      "a TeamStructure (jps.team_structure(tree, team))")
    checks.check_type("config", config, JPSConfig, "a JPSConfig")
    if row_finding not in ROW_FINDING:
      raise UserError(f"row_finding must be one of {ROW_FINDING}, got {row_finding!r}")
    self.tree = tree
    self.structure = structure
    self.config = config
    self.row_finding = row_finding
    self._levels: dict[int, tuple[LevelIndex, ...] | None] = {}
    self._entries = 0

  @property
  def kept_index_depths(self) -> dict[int, bool]:
    """Starting depths whose index arrays were computed: True if kept, False if over budget."""
    return {d: v is not None for d, v in self._levels.items()}

  # --------------------------------------------------------------------------------------------
  def objective_values(self, pi: np.ndarray, edge_probs=None) -> np.ndarray:
    """[num_nodes] team mean return of every history under `pi` (v^sigma of the paper).

    Args:
      pi: the joint policy array sigma ([num_infosets, num_actions]).
      edge_probs: `evaluation.edge_probabilities` of `pi` if the caller has it already (None:
        computed).

    Returns:
      [num_nodes] the team's mean return from every history.
    """
    return sweep_lib.objective_values(self.tree, self.structure.team, pi, edge_probs=edge_probs)

  def value(self, pi: np.ndarray) -> float:
    """Objective (team mean return) of the policy array `pi`.

    Args:
      pi: the joint policy array sigma ([num_infosets, num_actions]).

    Returns:
      The team's mean expected return under `pi`.
    """
    return float(evaluation.game_value(self.tree, pi)[list(self.structure.team)].mean())

  def sweep(self, pi: np.ndarray, rng: np.random.Generator | None = None) -> Sweep:
    """`sweep_lib.sweep` of `pi` (Algorithm 1, line 3); sampled JPS draws with `rng`.

    Args:
      pi: the joint policy array sigma ([num_infosets, num_actions]).
      rng: the generator sampled JPS draws its histories with (unused by exact JPS).

    Returns:
      The `Sweep` of `pi`.
    """
    return sweep_lib.sweep(self.tree, self.structure, pi, samples=self.config.samples,
                           sample_by=self.config.sample_by, rng=rng)

  # --------------------------------------------------------------------------------------------
  def _kept_levels(self, start_depth: int) -> tuple[LevelIndex, ...] | None:
    """The kept `LevelIndex` arrays from `start_depth`, or None past the memory budget.

    The kept `LevelIndex` arrays from `start_depth` (computed on first use), or None when
    they would exceed the budget. Sampled JPS reads them too: an undrawn history has weight 0,
    so its reach change is 0 and it adds nothing, as when left out.
    """
    if start_depth not in self._levels:
      levels, entries = [], 0
      for index in level_indices(self.structure, start_depth, depth=self.config.depth,
                                 row_ptr=self.structure.infoset_ptr, row_ids=None,
                                 row_finding="auto", max_rows=self.config.max_rows):
        entries += index.num_entries
        if self._entries + entries > self.config.structure_budget:
          self._levels[start_depth] = None
          return None
        levels.append(index)
      self._entries += entries
      self._levels[start_depth] = tuple(levels)
    return self._levels[start_depth]

  def search(self, sweep: Sweep, start_depth: int,
             rng: np.random.Generator | None = None) -> SearchResult:
    """Algorithm 1's JPS(sigma, I_cand, 1) with I_cand = all team infosets at `start_depth`.

    Args:
      sweep: `sweep(sigma)`.
      start_depth: team decision depth of the first active infoset.
      rng: None: the first chain of maximal predicted gain, applied if its gain exceeds
        `improvement_tol`. A generator (tie_break="random"): a uniformly random one among
        the candidates of maximal predicted gain, "no change" (gain 0) included.

    Returns:
      The chosen chain, its predicted gain, and every level's J values.
    """
    t0 = time.perf_counter()
    indices = None
    if self.row_finding == "auto" and self.config.structure_budget > 0:
      indices = self._kept_levels(start_depth)
    if indices is None:
      indices = level_indices(self.structure, start_depth, depth=self.config.depth,
                              row_ptr=sweep.row_ptr, row_ids=sweep.row_ids,
                              row_finding=self.row_finding, max_rows=self.config.max_rows)
    ch_inf, ch_act = self.structure.start_chains(start_depth)
    levels = [Level(infoset=ch_inf, action=ch_act,
                    parent=np.full(len(ch_inf), -1, dtype=np.int64),
                    j=sweep.j_base[ch_inf, ch_act])]
    acc = np.empty(self.tree.num_actions)
    for index in indices:
      levels.append(Level(infoset=index.infoset, action=index.action, parent=index.parent,
                          j=_level_j(sweep, index, acc)))
    gain, chain = 0.0, ()
    if len(ch_inf):
      gain, chain = (_random_maximal_chain(levels, rng) if rng is not None
                     else _first_maximal_chain(levels, self.config.improvement_tol))
    return SearchResult(gain=gain, chain=chain,
                        num_candidates=int(sum(len(lvl.infoset) for lvl in levels)),
                        levels=tuple(levels), seconds=time.perf_counter() - t0)

  # --------------------------------------------------------------------------------------------
  def candidates(self, result: SearchResult) -> Iterator[tuple[Chain, float]]:
    """Every candidate chain of a search with its Theorem 1 predicted gain.

    Args:
      result: a `SearchResult` of `search`.

    Yields:
      `(chain, predicted_gain)` for every chain the search valued, level by level.
    """
    preds = chain_predictions(result.levels)
    for k, lvl in enumerate(result.levels):
      for c in range(len(lvl.infoset)):
        yield chain_at(result.levels, k, c), float(preds[k][c])

  def brute_force_gains(self, pi: np.ndarray, result: SearchResult,
                        limit: int | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(predicted, brute-force, seconds) gains of the search's candidates (the first `limit`).

    Brute force = `evaluation.game_value` of the modified policy array, one full sweep per
    candidate.

    Args:
      pi: the policy array the search started from.
      result: a `SearchResult` of `search`.
      limit: value only the first `limit` candidates (None: all).

    Returns:
      `(predicted, brute_force, seconds)`: the candidates' Theorem 1 gains, their gains by re-
        evaluating the changed policy, and the seconds the re-evaluations took.
    """
    v0 = self.value(pi)
    pred, true = [], []
    t0 = time.perf_counter()
    for i, (chain, p) in enumerate(self.candidates(result)):
      if limit is not None and i >= limit:
        break
      true.append(self.value(apply_chain(pi, chain)) - v0)
      pred.append(p)
    return np.asarray(pred), np.asarray(true), time.perf_counter() - t0

  def verify(self, pi: np.ndarray, result: SearchResult) -> None:
    """Checks Theorem 1: every candidate's prediction equals its brute-force gain.

    Args:
      pi: the policy array the search started from.
      result: a `SearchResult` of `search`.

    Raises:
      AssertionError: a prediction differs by more than `verify_atol * (1 + |gain|)`.
    """
    pred, true, _ = self.brute_force_gains(pi, result)
    err = np.abs(pred - true)
    tol = self.config.verify_atol * (1.0 + np.abs(true))
    if np.any(err > tol):
      i = int(np.argmax(err - tol))
      raise AssertionError(f"Theorem 1 prediction {pred[i]} != brute force {true[i]} "
                           f"(candidate {i} of {len(pred)}) on {self.tree.game}")
