"""The numba kernels of the team belief DAG's passes (`belief_dag.BeliefDAG`).

Zhang, Farina & Sandholm, "Team Belief DAG: Generalizing the Sequence Form to Team Games for
Fast Computation of Correlated Team Max-Min Equilibria via Regret Minimization", ICML 2023
(arXiv:2202.00789). One bottom-up pass computes the edge and node values of local strategies
(or of a best response: max), and updates the regrets and local strategies by DCFR (Brown &
Sandholm, AAAI 2019) or predictive CFR+ (Farina, Kroer & Sandholm, AAAI 2021); one top-down pass
computes a flow, its leaves and a running average. `BeliefDAG` holds the arrays they run on;
the names here are private to it.
"""

from __future__ import annotations

import numba
import numpy as np

# Instantaneous regrets within this (relative to 1 + |v|) of zero are rounding noise (a belief
# whose prescriptions are all worth the same in exact arithmetic, whose computed values differ
# in the last bits): set to 0, else regret matching would turn +1e-16 into a pure strategy and
# -1e-16 into the uniform one, and the iterates would depend on the summation order. Without
# it DCFR still converges on the Table 1 instances, to the same values within the gap, but
# after other numbers of iterations (0.7x to 1.4x on 12 instances).
_NOISE = 1e-13

# numba kernels of the per-iteration passes. Nodes are numbered by depth, so a belief's
# children have larger numbers: the bottom-up pass runs over the nodes in decreasing order, the
# top-down pass in increasing order. Edge e's leaves are row e of F^T (CSR lptr/lidx/lval) and
# its child beliefs row e of the link matrix (cptr/cidx). With skip0 the constant leaf 0 is on
# no edge (its gradient ignored, its value 1).
_VALUES, _MAX, _DCFR, _PCFR_PLUS = 0, 1, 2, 3


@numba.njit(cache=True, boundscheck=False, error_model="numpy", inline="always")
def _regret_match(x, off, sigma, a, b):
  """Regret matching of `x` on the edges a..b-1 into `sigma`.

  sigma[a:b] = positive part of x[a - off:b - off], normalised (uniform where none is
  positive); sums left to right.
  """
  tot = 0.0
  for e in range(a, b):
    if x[e - off] > 0.0:
      tot += x[e - off]
  if tot > 0.0:
    for e in range(a, b):
      sigma[e] = (x[e - off] if x[e - off] > 0.0 else 0.0) / tot
  else:
    u = 1.0 / (b - a)
    for e in range(a, b):
      sigma[e] = u


@numba.njit(cache=True, boundscheck=False, error_model="numpy")
def _dag_bottom_up(  # noqa: C901 (numba kernel: one compiled frame)
    nes, cptr, cidx, lptr, lidx, lval, unit, skip0, g, sigma, r, q, v, mode, pos, neg, pred):
  """Edge values q = F^T g + (values of the child beliefs) and node values v, bottom-up.

  mode _VALUES: v = sum sigma q; _MAX: v = max q; _DCFR: then the DCFR update of r (positive
  regrets times pos, negative ones times neg, plus q - v) and sigma = RM(r); _PCFR_PLUS: then
  predictive CFR+ (r = max(r + q - v, 0), sigma = RM(r + q - v)). pred: scratch of the largest
  node's size. Instantaneous regrets within _NOISE (1 + |v|) of zero are set to 0. (The max
  pass has its own loop, without a mode test per edge; the edge sums and the regret matching
  are written out in the loops, as an inlined function taking the arrays would pay reference
  counting per call.)
  """
  if mode == _MAX:
    for n in range(len(nes) - 2, -1, -1):
      best = -np.inf
      for e in range(nes[n], nes[n + 1]):
        s = 0.0
        if unit:
          for k in range(lptr[e], lptr[e + 1]):
            if not (skip0 and lidx[k] == 0):
              s += g[lidx[k]]
        else:
          for k in range(lptr[e], lptr[e + 1]):
            if not (skip0 and lidx[k] == 0):
              s += lval[k] * g[lidx[k]]
        for k in range(cptr[e], cptr[e + 1]):
          s += v[cidx[k]]
        q[e] = s
        if s > best:
          best = s
      v[n] = best
    return
  for n in range(len(nes) - 2, -1, -1):
    a, b = nes[n], nes[n + 1]
    acc = 0.0
    for e in range(a, b):
      s = 0.0
      if unit:
        for k in range(lptr[e], lptr[e + 1]):
          if not (skip0 and lidx[k] == 0):
            s += g[lidx[k]]
      else:
        for k in range(lptr[e], lptr[e + 1]):
          if not (skip0 and lidx[k] == 0):
            s += lval[k] * g[lidx[k]]
      for k in range(cptr[e], cptr[e + 1]):
        s += v[cidx[k]]
      q[e] = s
      acc += sigma[e] * s
    vn = acc
    v[n] = vn
    if mode == _VALUES:
      continue
    tiny = _NOISE * (1.0 + abs(vn))
    if mode == _DCFR:
      for e in range(a, b):
        inst = q[e] - vn
        if -tiny <= inst <= tiny:
          inst = 0.0
        r[e] = r[e] * (pos if r[e] > 0.0 else neg) + inst
        pred[e - a] = r[e]
    else:
      for e in range(a, b):
        inst = q[e] - vn
        if -tiny <= inst <= tiny:
          inst = 0.0
        x = r[e] + inst
        r[e] = x if x > 0.0 else 0.0
        pred[e - a] = r[e] + inst
    # sigma = regret matching of pred (written out here: a function taking the arrays costs
    # reference counting per node).
    tot = 0.0
    for e in range(a, b):
      if pred[e - a] > 0.0:
        tot += pred[e - a]
    if tot > 0.0:
      for e in range(a, b):
        sigma[e] = (pred[e - a] if pred[e - a] > 0.0 else 0.0) / tot
    else:
      u = 1.0 / (b - a)
      for e in range(a, b):
        sigma[e] = u


@numba.njit(cache=True, boundscheck=False)
def _dag_top_down(  # noqa: C901 (numba kernel: one compiled frame)
    nes, cptr, cidx, lptr, lidx, lval, unit, skip0, sigma, roots, inflow, lam, leaf, with_leaf, avg,
    with_avg, w):
  """Computes the flow `lam` of `sigma` (roots get inflow 1), `leaf` = F lam and `avg` += w lam."""
  inflow[:] = 0.0
  for i in range(len(roots)):
    inflow[roots[i]] = 1.0
  if with_leaf:
    leaf[:] = 0.0
  for n in range(len(nes) - 1):
    x_in = inflow[n]
    for e in range(nes[n], nes[n + 1]):
      x = sigma[e] * x_in
      lam[e] = x
      if with_avg:
        avg[e] += w * x
      for k in range(cptr[e], cptr[e + 1]):
        inflow[cidx[k]] += x
      if with_leaf:
        if unit:
          for k in range(lptr[e], lptr[e + 1]):
            leaf[lidx[k]] += x
        else:
          for k in range(lptr[e], lptr[e + 1]):
            leaf[lidx[k]] += lval[k] * x
  if with_leaf and skip0:
    leaf[0] = 1.0


@numba.njit(cache=True, boundscheck=False)
def _dag_leaf_values(lptr, lidx, lval, unit, skip0, x, leaf):
  """Computes `leaf` = F x (with skip0: leaf[0] = 1)."""
  leaf[:] = 0.0
  for e in range(len(lptr) - 1):
    y = x[e]
    if unit:
      for k in range(lptr[e], lptr[e + 1]):
        leaf[lidx[k]] += y
    else:
      for k in range(lptr[e], lptr[e + 1]):
        leaf[lidx[k]] += lval[k] * y
  if skip0:
    leaf[0] = 1.0


@numba.njit(cache=True, boundscheck=False, error_model="numpy")
def _dag_regret_matching(nes, r, sigma):
  """Sets `sigma` to the regret matching of `r` at every node."""
  for n in range(len(nes) - 1):
    a, b = nes[n], nes[n + 1]
    _regret_match(r, a - a, sigma, a, b)
