"""TeamDecomposition's vectorised build equals a per-state reference, array for array.

The reference below builds the reachable sets, local solutions, constraint system and leaf map
of Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022 (arXiv:2109.05284; Algorithm 1 and Appendix C, C.1/C.2) one public
state and one reachable set at a time, with plain `np.unique` / `np.meshgrid`, from the team
tree and public states the decomposition computed (steps 1-2).
"""

import math
import re

import numpy as np
import pyspiel
import pytest
from scipy import sparse

import ospiel_team  # noqa: F401
from ospiel_team import errors
from ospiel_team.games import team_instances
from ospiel_team.lp import local_solutions
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree.game_tree import GameTree


def _reference_joint_actions(legal, sets, loc_inf, infosets):
  """Every joint action of the infosets meeting each reachable set R (in order), the last
  infoset varying fastest (`np.meshgrid(..., indexing="ij")`)."""
  reach_rows, act_rows, set_rows = [], [], []
  for r_idx, r in enumerate(sets):
    meet = np.unique(loc_inf[r & (loc_inf >= 0)])
    choices = [np.nonzero(legal[infosets[i]])[0] for i in meet]
    count = math.prod(len(c) for c in choices)
    acts = np.full((count, len(infosets)), -1, dtype=np.int16)
    if choices:
      grid = np.stack(np.meshgrid(*choices, indexing="ij"), axis=-1).reshape(count, -1)
      acts[:, meet] = grid
    reach_rows.append(np.broadcast_to(r, (count, len(r))))
    act_rows.append(acts)
    set_rows.append(np.full(count, r_idx, dtype=np.int64))
  return np.concatenate(reach_rows), np.concatenate(act_rows), np.concatenate(set_rows)


def reference(dec: TeamDecomposition) -> dict:
  """States, tt_local, tt_local_inf, (D, d) and F of `dec`, state by state."""
  legal = dec.tree.infoset_legal
  ps = dec.tt_ps
  team_nodes = np.nonzero((ps >= 0) & dec.ps_team[np.maximum(ps, 0)])[0]
  order_ps, first = np.unique(ps[team_nodes], return_index=True)
  order_ps = order_ps[np.argsort(team_nodes[first], kind="stable")]
  ps_slot = np.full(dec.num_public_states, -1, dtype=np.int64)
  ps_slot[order_ps] = np.arange(len(order_ps))
  tt_local = np.full(dec.num_tt, -1, dtype=np.int64)
  tt_local_inf = np.full(dec.num_tt, -1, dtype=np.int64)
  states = []
  offset = 0
  for slot, p in enumerate(order_ps):
    nodes = team_nodes[ps[team_nodes] == p]
    tt_local[nodes] = np.arange(len(nodes))
    inf = dec.tt_infoset[nodes]
    infosets, inv = np.unique(inf[inf >= 0], return_inverse=True)
    loc_inf = np.full(len(nodes), -1, dtype=np.int64)
    loc_inf[inf >= 0] = inv.reshape(-1)
    tt_local_inf[nodes] = loc_inf
    achild = dec.tt_anchor_child[nodes]
    if achild[0] < 0:
      assert np.all(achild < 0)
      sets, anchor, parent_to_set = np.ones((1, len(nodes)), dtype=bool), -1, None
    else:
      u = dec.tt_parent[achild]
      anchor = int(ps_slot[ps[u[0]]])
      assert np.all(ps_slot[ps[u]] == anchor)
      par = states[anchor]
      a = dec.tt_action[achild]
      reached = par["reach"][:, tt_local[u]].copy()
      team_u = a >= 0
      reached[:, team_u] &= par["actions"][:, tt_local_inf[u[team_u]]] == a[team_u][None, :]
      uniq, inv = np.unique(np.packbits(reached, axis=1), axis=0, return_inverse=True)
      nonempty = uniq.any(axis=1)
      new_id = np.cumsum(nonempty) - 1
      new_id[~nonempty] = -1
      parent_to_set = new_id[inv.reshape(-1)]
      sets = np.unpackbits(uniq[nonempty], axis=1, count=len(nodes)).astype(bool)
    reach, actions, local_set = _reference_joint_actions(legal, sets, loc_inf, infosets)
    states.append(dict(index=slot, nodes=nodes, infosets=infosets, anchor=anchor, reach=reach,
                       actions=actions, local_set=local_set, num_sets=len(sets),
                       parent_to_set=parent_to_set, offset=offset))
    offset += len(local_set)
  num_local = offset
  # Constraint system (C.2 and the root-bag rows).
  rows, cols, vals, rhs = [], [], [], []
  row0 = 0
  for st in states:
    rows.append(row0 + st["local_set"])
    cols.append(st["offset"] + np.arange(len(st["local_set"])))
    vals.append(np.ones(len(st["local_set"])))
    if st["anchor"] < 0:
      rhs.append(np.ones(st["num_sets"]))
    else:
      par = states[st["anchor"]]
      hit = np.nonzero(st["parent_to_set"] >= 0)[0]
      rows.append(row0 + st["parent_to_set"][hit])
      cols.append(par["offset"] + hit)
      vals.append(-np.ones(len(hit)))
      rhs.append(np.zeros(st["num_sets"]))
    row0 += st["num_sets"]
  d_mat = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(row0, num_local))
  # Leaf map F (C.1): leaf c, entered from node u by action a, is reached by the local solutions
  # of u's state whose R holds u and whose A plays a at u (any, if u is not the team's).
  leaves = np.unique(dec.tt_anchor_child[dec.tt_of_node[dec.tree.terminals]])
  base = 1 if len(leaves) and leaves[0] < 0 else 0
  f_rows, f_cols = [], []
  for i, c in enumerate(leaves[base:]):
    u, a = dec.tt_parent[c], dec.tt_action[c]
    st = states[ps_slot[ps[u]]]
    col = st["reach"][:, tt_local[u]].copy()
    if a >= 0:
      col &= st["actions"][:, tt_local_inf[u]] == a
    j = np.nonzero(col)[0]
    f_rows.append(np.full(len(j), base + i))
    f_cols.append(st["offset"] + j)
  r = np.concatenate(f_rows) if f_rows else np.zeros(0, dtype=np.int64)
  c = np.concatenate(f_cols) if f_cols else np.zeros(0, dtype=np.int64)
  leaf = sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(len(leaves), num_local))
  return dict(states=states, num_local=num_local, tt_local=tt_local, tt_local_inf=tt_local_inf,
              constraints=(d_mat, np.concatenate(rhs)), leaf_matrix=leaf)


def assert_same_as_reference(ref: dict, new: TeamDecomposition):
  assert ref["num_local"] == new.num_local
  assert len(ref["states"]) == len(new.states)
  for s0, s1 in zip(ref["states"], new.states, strict=True):
    for f in ("index", "anchor", "num_sets", "offset"):
      assert s0[f] == getattr(s1, f), f
    for f in ("nodes", "infosets", "reach", "actions", "local_set"):
      x, y = s0[f], getattr(s1, f)
      assert x.dtype == y.dtype and x.shape == y.shape, f
      np.testing.assert_array_equal(x, y, err_msg=f)
    assert (s0["parent_to_set"] is None) == (s1.parent_to_set is None)
    if s0["parent_to_set"] is not None:
      np.testing.assert_array_equal(s0["parent_to_set"], s1.parent_to_set)
  d0, r0 = ref["constraints"]
  d1, r1 = new.constraint_system()
  assert d0.shape == d1.shape and (d0 != d1).nnz == 0
  np.testing.assert_array_equal(r0, r1)
  assert ref["leaf_matrix"].shape == new.leaf_matrix.shape
  assert (ref["leaf_matrix"] != new.leaf_matrix).nnz == 0
  np.testing.assert_array_equal(ref["tt_local"], new.tt_local)
  np.testing.assert_array_equal(ref["tt_local_inf"], new.tt_local_inf)


# One instance per family with multi-node public states (Kuhn, Leduc, Liar's Dice) and the
# one-node-state family (Goofspiel), plus a two-player team 2 (22K5).
@pytest.mark.parametrize("name", ["21K4", "22K5", "21L133", "31L'132", "21D3", "21GL"])
def test_decomposition_equals_per_state_reference(name):
  game, teams = team_instances.TABLE1_INSTANCES[name]
  tree = GameTree(pyspiel.load_game(game))
  for members in teams:
    dec = TeamDecomposition(tree, members)
    assert_same_as_reference(reference(dec), dec)


@pytest.mark.parametrize("n", [1, 7, 64, 65, 130])
def test_reached_sets_kernel_equals_numpy_unique(n):
  """The kernel's distinct reachable sets (one and several 64-bit words per row) are numpy's
  sorted unique non-empty rows, and parent_to_set their inverse (-1: the empty set)."""
  rng = np.random.default_rng(n)
  rows = rng.integers(0, 2, size=(300, n)).astype(bool)
  rows[rng.integers(0, 300, size=20)] = rows[0]
  rows[rng.integers(0, 300, size=20)] = False
  words = np.zeros((len(rows), (n + 63) // 64), dtype=np.uint64)
  for j in range(n):
    words[:, j // 64] |= rows[:, j].astype(np.uint64) << np.uint64(63 - j % 64)
  sets, ids = local_solutions._reached_sets(words, n)
  uniq, inv = np.unique(rows, axis=0, return_inverse=True)
  keep = uniq.any(axis=1)
  new_id = np.where(keep, np.cumsum(keep) - 1, -1)
  np.testing.assert_array_equal(sets, uniq[keep])
  np.testing.assert_array_equal(ids, new_id[inv.reshape(-1)])


def test_max_local_refuses():
  game, teams = team_instances.TABLE1_INSTANCES["21K6"]
  tree = GameTree(pyspiel.load_game(game))
  with pytest.raises(errors.SizeLimitError, match="max_local=1000"):
    TeamDecomposition(tree, teams[0], max_local=1000)


@pytest.mark.parametrize("members", [[], [0, 0], [3], [-1]])
def test_bad_members_are_named(members):
  tree = GameTree(pyspiel.load_game("kuhn_poker(players=3)"))
  with pytest.raises(ValueError, match=re.escape(f"members={members!r}")):
    TeamDecomposition(tree, members)
