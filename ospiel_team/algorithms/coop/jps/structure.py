"""The team's infoset structure that Joint Policy Search reads, computed once per tree and team.

Tian, Gong, Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495. Algorithm 1 needs, besides the policy: the team
histories of every infoset, succ(I, a) (the next team infosets after (I, a), Sec. 5), and, to
recompute the altered reach pi^{sigma'} of Theorem 1 (Eq. 4-5), whether a history's path passes
an active infoset and with which action. All of it depends on the tree and the team only;
`team_structure` builds it once and keeps it (here, never on the tree) while the tree lives.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Sequence

import numpy as np

from ospiel_team import checks
from ospiel_team.errors import SizeLimitError
from ospiel_team.errors import UserError
from ospiel_team.tree import traversal
from ospiel_team.tree.game_tree import GameTree


def ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
  """Concatenation of arange(s, s + c) for every (s, c)."""
  total = int(counts.sum())
  if total == 0:
    return np.zeros(0, dtype=np.int64)
  offs = np.cumsum(counts) - counts
  return np.repeat(starts - offs, counts) + np.arange(total)


@dataclasses.dataclass(frozen=True, eq=False)
class TeamStructure:
  """Policy-independent index arrays of one team on one tree (read-only arrays).

  A *row* is a team decision history; rows are grouped by infoset and, within an infoset,
  sorted by preorder. Sequences are those of `GameTree.sequences` (infoset * A + action).

  Attributes:
    team: the team's players, sorted.
    num_nodes: histories of the tree.
    num_actions: A, the tree's action count.
    infoset_player: [num_infosets] the acting player of every infoset (the tree's array).
    infoset_legal: [num_infosets, A] legal actions (the tree's array).
    team_index: [num_players] position of a player in `team` (-1 for the others).
    rows: [R] the team decision histories, grouped by infoset.
    row_infoset: [R] infoset of every row.
    infoset_ptr: [num_infosets + 1] rows of infoset I are infoset_ptr[I]:infoset_ptr[I + 1].
    team_infosets: the infosets of team players that have a history.
    infoset_depth: [num_infosets] team decision depth (team decisions before the infoset).
    child: [R, A] child history of every row for every action (-1 if illegal).
    succ_ptr, succ_infoset: succ(I, a) (Sec. 5) of the flat sequence I * A + a is
      succ_infoset[succ_ptr[I * A + a]:succ_ptr[I * A + a + 1]].
    seq_level: [num_infosets] level of every team infoset in its player's sequence tree.
    seq_ancestor: [num_infosets, L] the infoset's ancestor sequence at each lower level.
    row_last_seq: [R, len(team)] each team player's last sequence at every row (-1: none).
    row_seq_level: [R, len(team)] that sequence's level (-1: none).
    row_key: [R] infoset * num_nodes + preorder (sorted): finds the rows below a history.
    row_preorder, row_subtree_size: [R] preorder and subtree size of every row.
  """
  team: tuple[int, ...]
  num_nodes: int
  num_actions: int
  infoset_player: np.ndarray
  infoset_legal: np.ndarray
  team_index: np.ndarray
  rows: np.ndarray
  row_infoset: np.ndarray
  infoset_ptr: np.ndarray
  team_infosets: np.ndarray
  infoset_depth: np.ndarray
  child: np.ndarray
  succ_ptr: np.ndarray
  succ_infoset: np.ndarray
  seq_level: np.ndarray
  seq_ancestor: np.ndarray
  row_last_seq: np.ndarray
  row_seq_level: np.ndarray
  row_key: np.ndarray
  row_preorder: np.ndarray
  row_subtree_size: np.ndarray

  def __post_init__(self):
    for field in dataclasses.fields(self):
      value = getattr(self, field.name)
      if isinstance(value, np.ndarray) and field.name not in ("infoset_player",
                                                               "infoset_legal"):
        value.flags.writeable = False

  # --------------------------------------------------------------------------------------------
  @property
  def decision_depths(self) -> list[int]:
    """The team decision depths that have a team infoset (the possible starting depths)."""
    return [int(d) for d in np.unique(self.infoset_depth[self.team_infosets])]

  def start_chains(self, start_depth: int) -> tuple[np.ndarray, np.ndarray]:
    """(infoset, action) of every one-infoset chain from `start_depth`.

    Algorithm 1's I_cand (every team infoset at that depth) with each legal action.

    Args:
      start_depth: the tree depth of the chains' first infoset.

    Returns:
      `(infosets, actions)`: index arrays, one entry per (team infoset at that depth, legal action).
    """
    ti = self.team_infosets
    start = ti[self.infoset_depth[ti] == start_depth]
    ci, ca = np.nonzero(self.infoset_legal[start])
    return start[ci], ca.astype(np.int64)

  def successor_pairs(self, ch_inf: np.ndarray, ch_act: np.ndarray, act_inf: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The (chain, next infoset) pairs that extend each chain by one level.

    (chain index, next infoset) for every I' in succ(I, a) of a chain's last (I, a) that is
    not already active on that chain (`act_inf`: [chains, k] the chains' active infosets).

    Args:
      ch_inf: each chain's last infoset.
      ch_act: each chain's last action.
      act_inf: [chains, k] the chains' active infosets.

    Returns:
      `(chain_index, next_infoset)` arrays, one entry per extension.
    """
    seq = ch_inf * self.num_actions + ch_act
    s0 = self.succ_ptr[seq]
    cnt = self.succ_ptr[seq + 1] - s0
    pair_c = np.repeat(np.arange(len(ch_inf)), cnt)
    pair_inf = self.succ_infoset[ranges(s0, cnt)]
    if len(pair_inf):
      again = (act_inf[pair_c] == pair_inf[:, None]).any(axis=1)
      if again.any():  # (cannot happen with perfect recall; kept for safety)
        pair_c, pair_inf = pair_c[~again], pair_inf[~again]
    return pair_c, pair_inf

  def on_path(self, row: np.ndarray, ij: np.ndarray, aj: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Whether each row's path passes an active infoset and takes its action there.

    For rows `row` and active (infoset, action) pairs (ij, aj), one per row: whether the
    row's path passes infoset ij (`passes`) and takes action aj there (`hit`), read off the
    sequence of ij's player at the row (perfect recall).

    Args:
      row: row (history) indices.
      ij: one active infoset per row.
      aj: its active action per row.

    Returns:
      `(passes, hit)`: bool arrays, one entry per row.
    """
    a = self.num_actions
    tj = self.team_index[self.infoset_player[ij]]
    lj = self.seq_level[ij]
    s = self.row_last_seq[row, tj]
    lev = self.row_seq_level[row, tj]
    anc = self.seq_ancestor
    deeper = anc[np.maximum(s, 0) // a, np.minimum(lj, anc.shape[1] - 1)]
    seq = np.where(lev == lj, s, np.where(lev > lj, deeper, -1))
    passes = (seq >= 0) & (seq // a == ij)
    return passes, passes & (seq % a == aj)

  def rows_below_active(self, pair_inf: np.ndarray, pair_act: np.ndarray,
                        act_cnt: np.ndarray, row_ids: np.ndarray | None,
                        max_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The candidate rows of each (chain, next infoset) pair below an active infoset.

    (pair, row) of the candidate rows of every (chain, next infoset) pair that lie below a
    history of one of the chain's active infosets (found by subtree intervals).

    Args:
      pair_inf: [P] the candidate infoset of every pair.
      pair_act: [P, k] the active infosets of every pair's chain.
      act_cnt: [P, k] the row count of each of those infosets.
      row_ids: the rows that take part (sampled JPS's drawn rows), or None for all.
      max_rows: the most (pair, row) entries allowed.

    Returns:
      (row_pair, row), sorted by pair then row, each (pair, row) once.

    Raises:
      SizeLimitError: more than `max_rows` entries.
    """
    n_pairs, k = pair_act.shape
    cnt = act_cnt.ravel()
    g = ranges(self.infoset_ptr[pair_act.ravel()], cnt)  # rows of the active infosets
    trip_pair = np.repeat(np.repeat(np.arange(n_pairs), k), cnt)
    base = pair_inf[trip_pair] * np.int64(self.num_nodes)
    keys = self.row_key if row_ids is None else self.row_key[row_ids]
    lo = np.searchsorted(keys, base + self.row_preorder[g])
    hi = np.searchsorted(keys, base + self.row_preorder[g] + self.row_subtree_size[g])
    hit = hi > lo
    trip_pair, lo, hi = trip_pair[hit], lo[hit], hi[hit]
    row = ranges(lo, hi - lo)
    row_pair = np.repeat(trip_pair, hi - lo)
    check_rows(len(row), max_rows)
    # A history below several active infosets appears once per infoset: keep one.
    code = np.unique(row_pair * np.int64(len(keys)) + row)
    row_pair, row = code // len(keys), code % len(keys)
    if row_ids is not None:
      row = row_ids[row]
    return row_pair, row


def check_rows(num_rows: int, max_rows: int) -> None:
  """Raises SizeLimitError if a search level would touch more than `max_rows` entries."""
  if num_rows > max_rows:
    raise SizeLimitError(f"the search would touch {num_rows} (chain, history) pairs > "
                         f"max_rows={max_rows}; use a smaller depth or raise max_rows")


# ----------------------------------------------------------------------------------------------
def _team_ancestors(tree: GameTree, is_team: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """Per history: nearest team decision ancestor, the action taken there, team decision depth."""
  n = tree.num_nodes
  tp = np.full(n, -1, dtype=np.int64)
  tpa = np.full(n, -1, dtype=np.int64)
  td = np.zeros(n, dtype=np.int64)
  for s, e in tree.level_slices[1:]:
    par = tree.node_parent[s:e]
    pt = is_team[par]
    tp[s:e] = np.where(pt, par, tp[par])
    tpa[s:e] = np.where(pt, tree.node_action[s:e], tpa[par])
    td[s:e] = td[par] + pt
  return tp, tpa, td


def _successors(tree: GameTree, nodes, inf, tp, tpa) -> tuple[np.ndarray, np.ndarray]:
  """The team infosets that follow each team sequence (I, a), as CSR arrays.

  (succ_ptr, succ_infoset): the team infosets whose histories have (I, a) as their last
  team decision, per flat sequence I * A + a.
  """
  a = tree.num_actions
  has = tp[nodes] >= 0
  key = tree.node_infoset[tp[nodes[has]]] * a + tpa[nodes[has]]
  pairs = np.unique(np.stack([key, inf[has]], axis=1), axis=0) if has.any() else \
      np.zeros((0, 2), dtype=np.int64)
  scount = np.bincount(pairs[:, 0], minlength=tree.num_infosets * a) if len(pairs) else \
      np.zeros(tree.num_infosets * a, dtype=np.int64)
  return (np.concatenate([[0], np.cumsum(scount)]).astype(np.int64),
          pairs[:, 1].astype(np.int64))


def _sequence_ancestors(tree: GameTree, team: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
  """Own sequence level of every team infoset and its ancestor sequences at each lower level."""
  a = tree.num_actions
  level = np.full(tree.num_infosets, -1, dtype=np.int64)
  max_level = 0
  for p in team:
    for k, lev in enumerate(tree.sequences[p].infoset_levels):
      level[lev] = k
      max_level = max(max_level, k)
  ianc = np.full((tree.num_infosets, max_level + 1), -1, dtype=np.int64)
  for p in team:
    seqs = tree.sequences[p]
    for k, lev in enumerate(seqs.infoset_levels):
      if k == 0 or len(lev) == 0:
        continue
      ps = seqs.infoset_parent_seq[lev]
      ianc[lev, :k - 1] = ianc[ps // a, :k - 1]
      ianc[lev, k - 1] = ps
  return level, ianc


def build_team_structure(tree: GameTree, team: Sequence[int]) -> TeamStructure:
  """The `TeamStructure` of `team` (distinct valid players) on `tree`, computed anew."""
  team = tuple(sorted(int(p) for p in team))
  n, a = tree.num_nodes, tree.num_actions
  team_mask = np.zeros(tree.num_players, dtype=bool)
  team_mask[list(team)] = True
  team_index = np.full(tree.num_players, -1, dtype=np.int64)
  team_index[list(team)] = np.arange(len(team))
  player = tree.node_player
  is_team = (player >= 0) & team_mask[np.maximum(player, 0)]
  tp, tpa, td = _team_ancestors(tree, is_team)
  nodes = np.nonzero(is_team)[0]
  inf = tree.node_infoset[nodes]
  pre, size = traversal.preorder_and_size(tree.node_parent, tree.level_slices)
  order = np.lexsort((pre[nodes], inf))
  nodes, inf = nodes[order], inf[order]
  counts = np.bincount(inf, minlength=tree.num_infosets)
  depth_inf = np.full(tree.num_infosets, np.iinfo(np.int64).max, dtype=np.int64)
  np.minimum.at(depth_inf, inf, td[nodes])
  # Child of every team history for every action (-1 if illegal).
  row_of = np.full(n, -1, dtype=np.int64)
  row_of[nodes] = np.arange(len(nodes))
  kids = tree.decision_children
  kp = row_of[tree.node_parent[kids]]
  sel = kp >= 0
  child = np.full((len(nodes), a), -1, dtype=np.int64)
  child[kp[sel], tree.node_action[kids[sel]]] = kids[sel]
  succ_ptr, succ_infoset = _successors(tree, nodes, inf, tp, tpa)
  level, ianc = _sequence_ancestors(tree, team)
  s_row = tree.node_last_seq[nodes][:, list(team)]
  return TeamStructure(
      team=team, num_nodes=n, num_actions=a, infoset_player=tree.infoset_player,
      infoset_legal=tree.infoset_legal, team_index=team_index, rows=nodes, row_infoset=inf,
      infoset_ptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
      team_infosets=np.nonzero(counts)[0], infoset_depth=depth_inf, child=child,
      succ_ptr=succ_ptr, succ_infoset=succ_infoset, seq_level=level, seq_ancestor=ianc,
      row_last_seq=s_row,
      row_seq_level=np.where(s_row >= 0, level[np.maximum(s_row, 0) // a], -1),
      # Subtree intervals: h descends from g iff pre[g] <= pre[h] < pre[g] + size[g]. Rows
      # are sorted by (infoset, preorder), so key = infoset * num_nodes + preorder is sorted.
      row_key=inf * np.int64(n) + pre[nodes], row_preorder=pre[nodes],
      row_subtree_size=size[nodes])


# Per live tree (by id, dropped when the tree is collected): team -> its structure.
_CACHE: dict[int, tuple[weakref.ref, dict[tuple[int, ...], TeamStructure]]] = {}


def team_structure(tree: GameTree, team: Sequence[int]) -> TeamStructure:
  """The `TeamStructure` of `team` on `tree`, cached per (tree, team).

  The `TeamStructure` of `team` on `tree`, computed once per (tree, team) and kept here
  while the tree lives (the tree object itself is never modified).

  Args:
    tree: the game tree.
    team: distinct players of the tree's game (any order).

  Returns:
    The cached structure (read-only; shared by every search on this tree and team).

  Raises:
    UserError: `tree` is not a GameTree or `team` not distinct players of its game (named).
  """
  checks.check_tree("tree", tree)
  players = checks.check_int_sequence("team", team, minimum=0, what="players") or ()
  if not players or len(set(players)) != len(players) or max(players) >= tree.num_players:
    raise UserError(f"team={list(players)} must be distinct players of the "
                    f"{tree.num_players}-player game")
  key = tuple(sorted(players))
  entry = _CACHE.get(id(tree))
  if entry is None or entry[0]() is not tree:
    entry = (weakref.ref(tree), {})
    _CACHE[id(tree)] = entry
    weakref.finalize(tree, _CACHE.pop, id(tree), None)
  structures = entry[1]
  if key not in structures:
    structures[key] = build_team_structure(tree, key)
  return structures[key]
