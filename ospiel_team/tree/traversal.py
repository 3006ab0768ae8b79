"""Depth-first preorder of a tree stored level by level (the layout of `GameTree`).

The tree arrays number the nodes breadth-first: depth d is the contiguous slice
`level_slices[d]`, the children of a node are contiguous and in order, and the parents of a level
are non-decreasing. The depth-first walk that built the tree (children in legal-action order)
visits a node right after its parent's earlier children's subtrees, so its preorder index is
its parent's index + 1 + the sizes of the earlier siblings' subtrees.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def subtree_sizes(node_parent: np.ndarray,
                  level_slices: Sequence[tuple[int, int]]) -> np.ndarray:
  """[num_nodes] number of nodes in each node's subtree (the node included).

  Args:
    node_parent: [num_nodes] parent of every node (-1 for the root), numbered level by level.
    level_slices: (start, end) of every depth, the root's level first.
  """
  node_parent = np.asarray(node_parent, dtype=np.int64)
  n = len(node_parent)
  size = np.ones(n, dtype=np.int64)
  for s, e in reversed(list(level_slices)[1:]):
    size += np.bincount(node_parent[s:e], weights=size[s:e], minlength=n).astype(np.int64)
  return size


def preorder_and_size(node_parent: np.ndarray, level_slices: Sequence[tuple[int, int]]
                      ) -> tuple[np.ndarray, np.ndarray]:
  """([num_nodes] depth-first preorder index, [num_nodes] subtree size) of every node.

  Args:
    node_parent: [num_nodes] parent of every node (-1 for the root), numbered level by level
      with the children of a node contiguous and in visiting order.
    level_slices: (start, end) of every depth, the root's level first.

  Returns:
    The preorder index (the root is 0; children in the order they are numbered) and the size
    of every node's subtree.
  """
  node_parent = np.asarray(node_parent, dtype=np.int64)
  levels = list(level_slices)
  for s, e in levels[1:]:
    par = node_parent[s:e]
    if e > s and (np.any(np.diff(par) < 0) or par.min() < 0 or par.max() >= s):
      raise ValueError(f"node_parent[{s}:{e}] is not a level of non-decreasing earlier nodes")
  size = subtree_sizes(node_parent, levels)
  pre = np.zeros(len(node_parent), dtype=np.int64)
  for s, e in levels[1:]:
    if e == s:
      continue
    par = node_parent[s:e]
    csum = np.cumsum(size[s:e]) - size[s:e]  # exclusive sum over the level
    first_of_parent = np.searchsorted(par, par, side="left")  # siblings are contiguous
    pre[s:e] = pre[par] + 1 + csum - csum[first_of_parent]
  return pre, size
