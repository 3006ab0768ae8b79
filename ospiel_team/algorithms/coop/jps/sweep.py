"""One sweep over the tree: what every Joint Policy Search from one policy needs.

Tian, Gong, Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495: Algorithm 1, line 3 (pi^sigma and v^sigma), and
J(I, a) = sum_{h in I} pi^sigma(h) (v^sigma(ha) - v^sigma(h)) under sigma, the terms of
Theorem 1 (Eq. 4-5) for histories whose reach a change does not alter. Sampled JPS (Sec. 6)
draws k histories per infoset here; only the drawn ones carry weight.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ospiel_team.algorithms.coop.jps.structure import TeamStructure
from ospiel_team.errors import UserError
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree


@dataclasses.dataclass(frozen=True, eq=False)
class KernelInputs:
  """A sweep's arrays as `_jps_level` reads them (contiguous, one dtype each)."""
  factor: np.ndarray  # [num_infosets * A + 2] 1 / sigma(I, a) (1 where 0), then 0 and 1
  zero_hit: np.ndarray  # [num_infosets * A + 2] sigma(I, a) == 0, then two zeros
  reach_nonzero: np.ndarray  # [R] product of the non-zero edge probabilities to the row
  zero_edges: np.ndarray  # [R] number of zero edges to the row
  weight: np.ndarray  # [R] 1, or sampled JPS's draw indicator
  base_reach: np.ndarray  # [R] weight * reach
  value_change: np.ndarray  # [R, A] v(ha) - v(h)


@dataclasses.dataclass(frozen=True, eq=False)
class Sweep:
  """What every search from one policy sigma needs (Algorithm 1, line 3).

  Attributes:
    policy: sigma, [num_infosets, A].
    value: v^sigma(root), the team's mean return.
    reach: [R] pi^sigma of every team decision history (row of `TeamStructure`).
    weight: [R] 1 for exact JPS; sampled JPS: 1 for the drawn histories, else 0.
    value_change: [R, A] v^sigma(ha) - v^sigma(h) (0 for illegal actions).
    j_base: [num_infosets, A] J(I, a) under sigma: sum_h weight * reach * value_change.
    row_ids: the rows with weight > 0 (sampled JPS) or None (all rows).
    row_ptr: [num_infosets + 1] the `row_ids` of infoset I are row_ptr[I]:row_ptr[I + 1].
    kernel: the same arrays as the kernel reads them.
  """
  policy: np.ndarray
  value: float
  reach: np.ndarray
  weight: np.ndarray
  value_change: np.ndarray
  j_base: np.ndarray
  row_ids: np.ndarray | None
  row_ptr: np.ndarray
  kernel: KernelInputs


def objective_values(tree: GameTree, team: tuple[int, ...], pi: np.ndarray,
                     *, edge_probs: np.ndarray | None = None) -> np.ndarray:
  """[num_nodes] team mean return of every history under `pi` (v^sigma of the paper)."""
  vals = evaluation.history_values(tree, pi, edge_probs=edge_probs, validate=False)
  return vals[:, list(team)].mean(axis=1)


def sweep(tree: GameTree, s: TeamStructure, pi: np.ndarray, *, samples: int | None,
          sample_by: str, rng: np.random.Generator | None) -> Sweep:
  """One pass over the tree: reach and values under sigma = `pi`, J(I, a) under sigma.

  Args:
    tree: the game tree.
    s: the team's structure on `tree`.
    pi: a valid policy array (not checked again here).
    samples: k of sampled JPS (None: exact).
    sample_by: "uniform" or "reach" (`JPSConfig.sample_by`).
    rng: draws sampled JPS's histories (required then; unused by exact JPS).

  Returns:
    The sweep.

  Raises:
    UserError: sampled JPS without `rng`.
  """
  if samples is not None and rng is None:
    raise UserError("sampled JPS draws its histories with rng: pass a numpy Generator")
  ep = evaluation.edge_probabilities(tree, pi, validate=False)
  v = objective_values(tree, s.team, pi, edge_probs=ep)
  pnz_r, z_r = _row_reach(tree, s.rows, ep)
  reach_r = np.where(z_r == 0, pnz_r, 0.0)
  rows, child = s.rows, s.child
  dv = np.where(child >= 0, v[np.maximum(child, 0)] - v[rows][:, None], 0.0)
  weight = np.ones(len(rows))
  if samples is not None:
    weight = _sample_weights(s, reach_r, samples, sample_by, rng)
  contrib = (weight * reach_r)[:, None] * dv
  jbase = np.zeros((tree.num_infosets, tree.num_actions))
  ti = s.team_infosets
  if len(rows):
    jbase[ti] = np.add.reduceat(contrib, s.infoset_ptr[ti], axis=0)
  row_ids, ptr = None, s.infoset_ptr
  if samples is not None:
    row_ids = np.nonzero(weight > 0)[0]
    cnt = np.bincount(s.row_infoset[row_ids], minlength=tree.num_infosets)
    ptr = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int64)
  c64 = lambda x: np.ascontiguousarray(x, dtype=np.float64)
  inv = np.where(pi > 0, 1.0 / np.where(pi > 0, pi, 1.0), 1.0)
  kernel = KernelInputs(
      factor=np.concatenate([c64(inv).ravel(), [0.0, 1.0]]),
      zero_hit=np.concatenate([(pi == 0).ravel(), [False, False]]).astype(np.int64),
      reach_nonzero=c64(pnz_r), zero_edges=np.ascontiguousarray(z_r, dtype=np.int64),
      weight=c64(weight), base_reach=c64(weight) * c64(reach_r), value_change=c64(dv))
  return Sweep(policy=pi, value=float(v[0]), reach=reach_r, weight=weight, value_change=dv,
               j_base=jbase, row_ids=row_ids, row_ptr=ptr, kernel=kernel)


def _row_reach(tree: GameTree, rows: np.ndarray, ep: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
  """Reach of the rows as (product of non-zero edge probabilities, number of zero edges)."""
  nz = np.where(ep > 0, ep, 1.0)
  zc = (ep == 0).astype(np.int64)
  pnz = np.ones(tree.num_nodes)
  z = np.zeros(tree.num_nodes, dtype=np.int64)
  last = int(tree.node_depth[rows].max()) if len(rows) else 0
  for d, (a, b) in enumerate(tree.level_slices[1:], start=1):
    if d > last:
      break
    par = tree.node_parent[a:b]
    pnz[a:b] = pnz[par] * nz[a:b]
    z[a:b] = z[par] + zc[a:b]
  return pnz[rows], z[rows]


def _sample_weights(s: TeamStructure, reach_r: np.ndarray, k: int, sample_by: str,
                    rng: np.random.Generator) -> np.ndarray:
  """1 for the distinct histories drawn (k draws with replacement per infoset), else 0."""
  ti = s.team_infosets
  start = s.infoset_ptr[ti]
  cnt = s.infoset_ptr[ti + 1] - start
  draw = rng.integers(0, cnt[:, None], size=(len(ti), k))
  if sample_by == "reach":
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
