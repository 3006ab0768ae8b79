"""The CFR traversal and regret updates of `cfr.BatchedTreeCFRSolver` as JAX segment sums.

`JaxBatchedTreeCFRSolver` and `JaxTreeCFRSolver` (one seed) are `cfr.BatchedTreeCFRSolver` and
`cfr.TreeCFRSolver` with these jit-compiled functions in place of the numba kernels of
`cfr_kernels`: the same traversal over the same flat arrays of the `GameTree`, written with
array operations that run on an accelerator. Per player's update: the edge probabilities from
the current policy, every owner's reach level by level (a gather of the parent's row), the
histories' values bottom-up (a `jax.ops.segment_sum` of the children into their parents, level
by level), then the player's counterfactual regrets and policy sums per decision edge, summed
into (infoset, action) by one segment sum each, and the rule's regret update with regret
matching on the player's infosets (`cfr_kernels.cfr_regret_matching`'s rules, element-wise).
The algorithms are `cfr`'s, with its citations: CFR (Zinkevich, Johanson, Bowling & Piccione,
"Regret Minimization in Games with Incomplete Information", NeurIPS 2007) and its variants
CFR+ (Tammelin 2014, arXiv:1407.5042), DCFR (Brown & Sandholm, AAAI 2019, arXiv:1809.04040)
and the predictive ones (Farina, Kroer & Sandholm, AAAI 2021, arXiv:2007.14358; Xu et al.,
IJCAI 2024, arXiv:2404.13891).

The numbers are the numba kernels' up to the order of floating-point additions (a segment
sum does not promise OpenSpiel's left-to-right order): tests/algorithms/nash/test_cfr_jax.py
checks the policies equal to 1e-9 in float64 on kuhn_poker and leduc_poker for every rule.
OpenSpiel's pruning of histories that no player reaches zeroes their regrets here too; their
values are not zeroed, which changes nothing a regret reads (a pruned history's value is
weighed by a zero edge probability or a zero counterfactual reach).

Float64 runs inside a local `jax.enable_x64(True)` context: JAX's global flag is untouched.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.algorithms.nash import cfr
from ospiel_team.algorithms.nash import cfr_kernels


def x64_context(dtype: np.dtype):
  """`jax.enable_x64(True)` for float64, else nothing (JAX's default float32).

  Args:
    dtype: the computation's dtype.

  Returns:
    A context manager.
  """
  import jax
  return jax.enable_x64(True) if np.dtype(dtype) == np.float64 else contextlib.nullcontext()


class JaxCFRKernels:
  """The jitted traversal + update of one player (or of all at once) on one tree.

  Args:
    tree: the `GameTree`.
    dtype: float64 or float32.
    weight_after: the policy sums add (reach * policy) * weight (DCFR and the predictive
      rules) instead of (weight * reach) * policy (CFR).
    rule: `cfr_kernels.RM`, `RM_PLUS`, `DISCOUNTED` or `PREDICTIVE`.
  """

  def __init__(self, tree, dtype, *, weight_after: bool, rule: int):
    import jax
    self._jax = jax
    self.dtype = np.dtype(dtype)
    self._weight_after = weight_after
    self._rule = rule
    num_p = tree.num_players
    self._num_p = num_p
    self._shape = (tree.num_infosets, tree.num_actions)
    self._levels = [(int(s), int(e)) for s, e in tree.level_slices]
    self._parent = np.maximum(tree.node_parent, 0).astype(np.int32)
    self._dc = np.asarray(tree.decision_children, dtype=np.int32)
    self._dc_flat = np.asarray(tree.decision_children_flat, dtype=np.int32)
    self._onehot = tree.node_owner[:, None] == np.arange(num_p + 1)[None, :]
    self._chance = np.asarray(tree.node_chance_prob, dtype=self.dtype)
    self._returns = np.asarray(tree.node_returns, dtype=self.dtype)
    legal = tree.infoset_legal
    self._uniform = (legal / legal.sum(axis=1, keepdims=True)).astype(self.dtype)
    owner = tree.node_owner[self._dc]
    # Each player's decision edges: parent history, child history, flat (infoset, action).
    self._edges = []
    for p in range(num_p):
      e = np.nonzero(owner == p)[0]
      self._edges.append((self._parent[self._dc[e]], self._dc[e], self._dc_flat[e]))
    inf_player = tree.node_player[tree.first_node()]
    self._player_rows = np.stack([inf_player == p for p in range(num_p)])
    self._iterate = jax.jit(self._iteration, static_argnums=(1,))

  def _reach_values(self, cur):
    """Edge probabilities, reach [nodes, owners, B] and values [nodes, players, B]."""
    jnp = self._jax.numpy
    segment_sum = self._jax.ops.segment_sum
    num_b = cur.shape[-1]
    flat = cur.reshape(-1, num_b)
    ep = jnp.broadcast_to(self._chance[:, None], (len(self._chance), num_b))
    ep = ep.at[self._dc].set(flat[self._dc_flat])
    factor = jnp.where(self._onehot[:, :, None], ep[:, None, :], 1.0)
    reach = jnp.ones(factor.shape, dtype=factor.dtype)
    for s, e in self._levels[1:]:
      reach = reach.at[s:e].set(reach[self._parent[s:e]] * factor[s:e])
    values = jnp.broadcast_to(self._returns[:, :, None], self._returns.shape + (num_b,))
    for d in range(len(self._levels) - 1, 0, -1):
      s, e = self._levels[d]
      ps, pe = self._levels[d - 1]
      contrib = segment_sum(ep[s:e, None, :] * values[s:e], self._parent[s:e] - ps,
                            num_segments=pe - ps)
      values = values.at[ps:pe].add(contrib)
    return reach, values

  def _player_sums(self, p, cur, reach, values, weight):
    """Player p's regrets and policy sums per (infoset, action): [I * A, B] each."""
    jnp = self._jax.numpy
    segment_sum = self._jax.ops.segment_sum
    h, c, f = self._edges[p]
    others = [q for q in range(self._num_p + 1) if q != p]
    cf = reach[h, others[0]]
    for q in others[1:]:
      cf = cf * reach[h, q]
    # OpenSpiel's pruning: a history no player reaches adds no regret.
    reached = jnp.any(reach[h, :self._num_p] != 0.0, axis=1)
    reg = jnp.where(reached, cf * (values[c, p] - values[h, p]), 0.0)
    own = reach[h, p]
    pol_flat = cur.reshape(-1, cur.shape[-1])[f]
    pol = (own * pol_flat) * weight if self._weight_after else (weight * own) * pol_flat
    n = self._shape[0] * self._shape[1]
    return segment_sum(reg, f, num_segments=n), segment_sum(pol, f, num_segments=n)

  def _update(self, state, player, weight, d_pos, d_neg, d_next, rows):
    """One traversal (of `player`, or of all if None) then the rule's update of `rows`."""
    jnp = self._jax.numpy
    cur, cum_regret, cum_policy, inst = state
    reach, values = self._reach_values(cur)
    players = range(self._num_p) if player is None else [player]
    target = inst if self._rule == cfr_kernels.PREDICTIVE else cum_regret
    shape = cur.shape
    for p in players:
      reg, pol = self._player_sums(p, cur, reach, values, weight)
      target = target + reg.reshape(shape)
      cum_policy = cum_policy + pol.reshape(shape)
    if self._rule == cfr_kernels.PREDICTIVE:
      inst = target
    else:
      cum_regret = target
    rows = rows[:, None, None]
    cum = cum_regret
    if self._rule == cfr_kernels.RM_PLUS:
      cum = jnp.where(cum > 0.0, cum, 0.0)
      src = cum
    elif self._rule == cfr_kernels.DISCOUNTED:
      cum = cum * jnp.where(cum >= 0.0, d_pos, d_neg)
      src = cum
    elif self._rule == cfr_kernels.PREDICTIVE:
      x = cum * d_pos + inst
      cum = jnp.where(x > 0.0, x, 0.0)
      src = cum * d_next + inst
    else:
      src = cum
    positive = jnp.where(src > 0.0, src, 0.0)
    total = positive.sum(axis=1, keepdims=True)
    matched = jnp.where(total > 0.0, positive / jnp.where(total > 0.0, total, 1.0),
                        self._uniform[:, :, None])
    cur = jnp.where(rows, matched, cur)
    cum_regret = jnp.where(rows, cum, cum_regret)
    if self._rule == cfr_kernels.PREDICTIVE:
      inst = jnp.where(rows, 0.0, inst)
    return cur, cum_regret, cum_policy, inst

  def _iteration(self, state, alternating, weight, d_pos, d_neg, d_next, first):
    """One iteration: each player's traversal and update in turn, or all at once.

    The first update of a solver regret-matches every infoset (as OpenSpiel's, which replaces
    the initial policy everywhere); later ones the updated player's.
    """
    jnp = self._jax.numpy
    if not alternating:
      return self._update(state, None, weight, d_pos, d_neg, d_next,
                          jnp.ones(self._shape[0], dtype=bool))
    for p in range(self._num_p):
      rows = self._player_rows[p] | (first & (p == 0))
      state = self._update(state, p, weight, d_pos, d_neg, d_next, rows)
    return state

  def iteration(self, state, *, alternating: bool, weight: float, d_pos: float, d_neg: float,
                d_next: float, first: bool):
    """Runs one jitted iteration (in float64 inside a local x64 context).

    Args:
      state: the kernels' state (device arrays from `put`).
      alternating: update the players one after the other (else simultaneously).
      weight: the iteration's weight in the average policy.
      d_pos: the discount of the positive cumulative regrets (DCFR; of every cumulative regret
        in the predictive rules), from `cfr_kernels.discounts`.
      d_neg: the discount of the negative cumulative regrets (DCFR).
      d_next: the discount of the cumulative regrets in the prediction (predictive rules).
      first: whether this is the first iteration.

    Returns:
      The next state.
    """
    dt = self.dtype.type
    with x64_context(self.dtype):
      return self._iterate(state, alternating, dt(weight), dt(d_pos), dt(d_neg), dt(d_next),
                           np.bool_(first))

  def put(self, *arrays):
    """The arrays as JAX arrays of the kernels' dtype.

    Args:
      *arrays: numpy arrays.

    Returns:
      A tuple of JAX arrays, in the order given.
    """
    jnp = self._jax.numpy
    with x64_context(self.dtype):
      return tuple(jnp.asarray(a, dtype=self.dtype) for a in arrays)


class JaxBatchedTreeCFRSolver(cfr.BatchedTreeCFRSolver):
  """`cfr.BatchedTreeCFRSolver` with its traversal and updates in JAX (`JaxCFRKernels`).

  The same arguments and results as `cfr.BatchedTreeCFRSolver` (every rule, alternating or
  simultaneous updates, float64 or float32), up to the order of floating-point additions;
  exploration is not available.

  Raises:
    errors.UserError: a bad argument, named (as `cfr.BatchedTreeCFRSolver`), exploration > 0,
      or JAX not installed.
  """

  def __init__(self, tree, initial_policies, **options):
    checks.check_tree("tree", tree)
    exploration = checks.check_real("exploration", options.get("exploration", 0.0), minimum=0)
    if exploration:
      raise errors.UserError(f"exploration runs on the numba kernels only "
                             f"(cfr.BatchedTreeCFRSolver), got {options['exploration']!r}")
    if not available():
      raise errors.UserError("JaxBatchedTreeCFRSolver needs JAX installed (pip install jax)")
    super().__init__(tree, initial_policies, **options)

  def _prepare_batched(self):
    """The JAX kernels and state, in place of the numba kernels' index arrays."""
    self._matched = False
    self._kernels = JaxCFRKernels(self.tree, self._dtype, weight_after=self._rule != "cfr",
                                  rule=cfr_kernels.rule_code(self._rule, self._rm_plus))
    inst = self._inst if self._inst is not None else np.zeros_like(self._cum_regret)
    self._state = self._kernels.put(self._current, self._cum_regret, self._cum_policy, inst)
    self._pulled = True

  def evaluate_and_update_policy(self) -> None:
    """One iteration of every seed, one jitted call."""
    self._iteration += 1
    t = float(self._iteration)
    d_pos, d_neg, d_next = cfr_kernels.discounts(self._rule, t, self._alpha, self._beta)
    weight = cfr_kernels.policy_weight(self._rule, t, self._linear, self._gamma)
    self._state = self._kernels.iteration(
        self._state, alternating=self._alternating, weight=weight, d_pos=d_pos, d_neg=d_neg,
        d_next=d_next, first=not self._matched)
    self._matched = True
    self._pulled = False

  def _pull(self) -> None:
    """Copies the JAX arrays into the numpy arrays the accessors read (once per iteration)."""
    if not self._pulled:
      self._current, self._cum_regret, self._cum_policy, inst = (
          np.array(a) for a in self._state)
      if self._inst is not None:
        self._inst = inst
      self._pulled = True

  def current_policy_array(self) -> np.ndarray:
    """[B, num_infosets, num_actions] current (last-iterate) policies.

    Returns:
      [B, num_infosets, num_actions] numpy current policies.
    """
    self._pull()
    return super().current_policy_array()

  def average_policy_array(self) -> np.ndarray:
    """[B, num_infosets, num_actions] average policies (as `cfr.BatchedTreeCFRSolver`).

    Returns:
      [B, num_infosets, num_actions] numpy average policies.
    """
    self._pull()
    return super().average_policy_array()


class JaxTreeCFRSolver(cfr.TreeCFRSolver):
  """`cfr.TreeCFRSolver` (one seed) on the JAX kernels: a `JaxBatchedTreeCFRSolver` of one.

  Args:
    tree: the game tree (of a sequential game).
    initial_policy: the starting current policy (default: uniform).
    **options: `alternating_updates`, `linear_averaging`, `regret_matching_plus`, `rule`,
      `alpha`, `beta`, `gamma`, `dtype`, as `cfr.BatchedTreeCFRSolver` (CFR+:
      `linear_averaging=True, regret_matching_plus=True`; DCFR: `rule="dcfr"`; ...).

  Raises:
    errors.UserError: a bad argument, named.
  """

  def __init__(self, tree, *, initial_policy=None, **options):
    checks.check_tree("tree", tree)
    init = (tree.uniform_policy_array() if initial_policy is None
            else cfr._policy_arrays("initial_policy", tree, initial_policy, batch=False))  # noqa: SLF001
    self.tree = tree
    self._batch = JaxBatchedTreeCFRSolver(tree, init[None], **options)


@functools.lru_cache(maxsize=1)
def available() -> bool:
  """Whether JAX imports."""
  try:
    import jax  # noqa: F401
  except ImportError:
    return False
  return True
