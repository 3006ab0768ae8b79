"""Vectorized evaluation on the array game tree: reach, values, best responses, NashConv.

All functions take a `GameTree` and a policy array `pi` of shape [num_infosets, num_actions]
(see `game_tree.py`) and loop only over the tree's depth levels, never over states. Each has a
numpy backend (float64, the default) and a JAX backend (`backend="jax"`) that can be
jit-compiled with the tree closed over, e.g.
`jax.jit(lambda pi: nash_conv(tree, pi, backend="jax"))`.

Every public function checks its arguments first (`tree` a `GameTree`, `backend` "numpy" or
"jax", `validate` a bool, `player` a player of the game: `errors.UserError` naming the
argument) and validates `pi` (`GameTree.validate_policy_array`: shape, finite, non-negative,
zero on illegal actions, rows summing to 1), raising `errors.UserError` naming the problem and
the first bad infoset. Trusted internal callers that pass arrays they built
themselves skip the check with `validate=False`; JAX tracers (inside `jax.jit`) are never
checked.

Definitions follow OpenSpiel: the value of player p is its expected return; its best-response
value is the maximum over its pure strategies of its expected return with the other players'
policies fixed; NashConv is the sum over players of best-response value minus value
(Lanctot et al. 2017, as in `open_spiel.python.algorithms.exploitability.nash_conv`).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import numpy as np

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.tree.game_tree import GameTree

Array = Any
BACKENDS = ("numpy", "jax")


class _Ops:
  """The few array operations that differ between numpy and JAX."""

  def __init__(self, backend: str):
    if backend == "numpy":
      self.xp = np
      self.jax = False
    elif backend == "jax":
      import jax.numpy as jnp
      self.xp = jnp
      self.jax = True
    else:
      checks.check_choice("backend", backend, BACKENDS)

  def segment_sum(self, data, ids, n):
    if self.jax:
      import jax
      return jax.ops.segment_sum(data, ids, num_segments=n)
    if data.ndim == 1:
      return np.bincount(ids, weights=data, minlength=n)
    return np.stack([np.bincount(ids, weights=data[:, j], minlength=n)
                     for j in range(data.shape[1])], axis=1)

  def set_slice(self, arr, s, e, vals):
    if self.jax:
      return arr.at[s:e].set(vals)
    arr[s:e] = vals
    return arr


_OPS = {}


def _is_tracer(pi) -> bool:
  if "jax" not in sys.modules:
    return False
  import jax
  return isinstance(pi, jax.core.Tracer)


def check_policy(tree: GameTree, pi: Array, validate: bool = True) -> None:
  """Validates `pi` for `tree` unless `validate` is False or `pi` is a JAX tracer.

  Args:
    tree: the array game tree.
    pi: the policy array to check (a JAX tracer is not checked).
    validate: False: check nothing but `tree` and `validate`.

  Raises:
    errors.UserError: `tree` is not a GameTree, `validate` not a bool, or `pi` not a policy
      array of the tree.
  """
  checks.check_tree("tree", tree)
  if checks.check_bool("validate", validate) and not _is_tracer(pi):
    tree.validate_policy_array(pi, name="pi")


def _check_node_array(name: str, value: Any, shape: tuple[int, ...]) -> None:
  """UserError naming `name` unless `value` is an array of `shape` (None, tracers: unchecked).

  Only the shape is read (no copy of a device array).
  """
  if value is None or _is_tracer(value):
    return
  got = getattr(value, "shape", None)
  if got is None or tuple(got) != shape:
    raise errors.UserError(f"{name} must be an array of shape {shape} or None, got "
                           f"{type(value).__name__} {value!r:.80}")


def _ops(backend: str) -> _Ops:
  ops = _OPS.get(backend) if isinstance(backend, str) else None
  if ops is None:
    checks.check_choice("backend", backend, BACKENDS)
    ops = _OPS[backend] = _Ops(backend)
  return ops


def edge_probabilities(tree: GameTree, pi: Array, *, backend: str = "numpy",
                       validate: bool = True) -> Array:
  """Probability of the edge into every node: pi(I, a) after decisions, chance prob else.

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    [num_nodes] the probability of the edge into every node (1 at the root).
  """
  check_policy(tree, pi, validate)
  ops = _ops(backend)
  xp = ops.xp
  flat = xp.reshape(xp.asarray(pi), (-1,))
  ep = xp.asarray(tree.node_chance_prob)
  if ops.jax:
    return ep.at[tree.decision_children].set(flat[tree.decision_children_flat])
  ep = ep.copy()
  ep[tree.decision_children] = flat[tree.decision_children_flat]
  return ep


def reach_by_owner(tree: GameTree, pi: Array, *, backend: str = "numpy",
                   validate: bool = True) -> Array:
  """[num_nodes, num_players + 1]: each player's (and, last column, chance's) reach product.

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    [num_nodes, num_players + 1] the product, along the path to every history, of each player's
      action probabilities (last column: chance's).
  """
  ops = _ops(backend)
  xp = ops.xp
  ep = edge_probabilities(tree, pi, backend=backend, validate=validate)
  onehot = tree.node_owner[:, None] == np.arange(tree.num_players + 1)[None, :]
  factor = xp.where(onehot, ep[:, None], 1.0)
  reach = xp.ones((tree.num_nodes, tree.num_players + 1), dtype=factor.dtype)
  for s, e in tree.level_slices[1:]:
    reach = ops.set_slice(reach, s, e, reach[tree.node_parent[s:e]] * factor[s:e])
  return reach


@dataclasses.dataclass(frozen=True)
class Reach:
  """Reach probabilities of every history (Sec. 2 of the JPS paper: pi^sigma(h))."""
  total: Array  # [num_nodes] product of all players' and chance's contributions
  player: Array  # [num_nodes, num_players] each player's own contribution
  chance: Array  # [num_nodes] chance's contribution


def reach_probabilities(tree: GameTree, pi: Array, *, backend: str = "numpy",
                        validate: bool = True) -> Reach:
  """Total, per-player and chance reach probabilities of every history.

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    A `Reach` with the total, per-player and chance reach of every history.
  """
  xp = _ops(backend).xp
  r = reach_by_owner(tree, pi, backend=backend, validate=validate)
  return Reach(total=xp.prod(r, axis=1), player=r[:, :tree.num_players],
               chance=r[:, tree.num_players])


def counterfactual_reach(tree: GameTree, pi: Array, player: int,
                         *, backend: str = "numpy", reach: Array = None,
                         validate: bool = True) -> Array:
  """[num_nodes] reach of every history with `player`'s own contribution left out.

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    player: the player whose own contribution is left out.
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    reach: `reach_by_owner(tree, pi)` if the caller has it already (None: computed).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    [num_nodes] the product of the other players' and chance's reach of every history.
  """
  xp = _ops(backend).xp
  r = reach_by_owner(tree, pi, backend=backend, validate=validate) if reach is None else reach
  keep = np.arange(tree.num_players + 1) != player
  return xp.prod(r[:, keep], axis=1)


def history_values(tree: GameTree, pi: Array, *, backend: str = "numpy",
                   edge_probs: Array = None, validate: bool = True) -> Array:
  """[num_nodes, num_players] expected returns of every history under `pi` (v^sigma(h)).

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    edge_probs: `edge_probabilities(tree, pi)` if the caller has it already (None: computed; then
      `pi` is not read).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    [num_nodes, num_players] each player's expected return from every history.
  """
  ops = _ops(backend)
  checks.check_tree("tree", tree)
  _check_node_array("edge_probs", edge_probs, (tree.num_nodes,))
  if edge_probs is None:
    ep = edge_probabilities(tree, pi, backend=backend, validate=validate)
  else:
    ep = edge_probs
  values = ops.xp.asarray(tree.node_returns)
  if not ops.jax:
    values = values.copy()
  slices = tree.level_slices
  for d in range(len(slices) - 1, 0, -1):
    s, e = slices[d]
    ps, pe = slices[d - 1]
    contrib = ops.segment_sum(ep[s:e, None] * values[s:e], tree.node_parent[s:e] - ps, pe - ps)
    values = ops.set_slice(values, ps, pe, values[ps:pe] + contrib)
  return values


def game_value(tree: GameTree, pi: Array, *, backend: str = "numpy",
               validate: bool = True) -> Array:
  """[num_players] expected returns at the root.

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    [num_players] each player's expected return under `pi`.
  """
  return history_values(tree, pi, backend=backend, validate=validate)[0]


@dataclasses.dataclass(frozen=True)
class BestResponse:
  """A pure best response of one player (Sec. 2 of the ED paper: b_i(pi_{-i}))."""
  player: int
  value: Array  # the best responder's expected return
  actions: Array  # [num_infosets] chosen action at the player's infosets (-1 elsewhere)
  policy: Array  # [num_infosets, num_actions] pi with the player's rows replaced one-hot


def best_response(tree: GameTree, pi: Array, player: int, *, backend: str = "numpy",
                  reach: Array = None, validate: bool = True) -> BestResponse:
  """Exact best response of `player` to the others' policies in `pi`.

  Bottom-up over the player's sequence tree: each sequence collects the counterfactual-reach
  weighted returns of the terminals it leads to, plus the best values of the infosets it
  leads to; an infoset takes the max over its legal actions (first maximal action on ties,
  as OpenSpiel's `best_response.BestResponsePolicy`).

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    player: the best-responding player (0 to num_players - 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    reach: `reach_by_owner(tree, pi)` if the caller has it already (None: computed).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    A `BestResponse`: the player, its best-response value, its chosen action at each of its infosets
      (-1 elsewhere) and `pi` with its rows replaced one-hot.

  Raises:
    errors.UserError: `player` is not a player of the game (0 to num_players - 1), or another
      bad argument (see `check_policy`).
  """
  checks.check_tree("tree", tree)
  player = checks.check_int("player", player, minimum=0, maximum=tree.num_players - 1)
  check_policy(tree, pi, validate)
  _check_node_array("reach", reach, (tree.num_nodes, tree.num_players + 1))
  xp = _ops(backend).xp
  cf = counterfactual_reach(tree, pi, player, backend=backend, reach=reach, validate=False)
  term = tree.terminals
  weights = cf[term] * xp.asarray(tree.node_returns[term, player])
  value, actions = sequence_backward_induction(tree, player, weights, backend=backend)
  own = np.zeros(tree.num_infosets, dtype=bool)
  own[tree.sequences[player].infosets] = True
  onehot = (actions[:, None] == np.arange(tree.num_actions)[None, :]).astype(value.dtype)
  br_policy = xp.where(own[:, None], onehot, xp.asarray(pi))
  return BestResponse(player=player, value=value, actions=actions, policy=br_policy)


def sequence_backward_induction(tree: GameTree, player: int, terminal_weights: Array,
                                *, backend: str = "numpy") -> tuple[Array, Array]:
  """The best pure strategy of `player` against fixed terminal weights, by backward induction.

  Maximises sum_z w[z] 1(the player's strategy plays to z) over the player's pure strategies:
  bottom-up over the player's sequence tree (a tree by perfect recall), each sequence collects
  the weights of the terminals it leads to plus the best values of the infosets it leads to;
  an infoset takes the max over its legal actions (the first maximal action on ties, as
  OpenSpiel's `best_response.BestResponsePolicy`). The one implementation behind `best_response`
  and the team best responses of `ospiel_team.lp.best_response`.

  Args:
    tree: the game tree.
    player: the responding player.
    terminal_weights: [num_terminals] w[z]: the other players' and chance's reach times the
      player's (or its team's) utility.
    backend: "numpy" or "jax".

  Returns:
    `(value, actions)`: the best value (a 0-d array) and [num_infosets] the action chosen at
    each of the player's infosets (-1 elsewhere).
  """
  ops = _ops(backend)
  xp = ops.xp
  a_count = tree.num_actions
  n_seq = tree.num_infosets * a_count + 1  # index 0: the empty sequence
  seqs = tree.sequences[player]
  seq_value = ops.segment_sum(terminal_weights, seqs.terminal_last_seq + 1, n_seq)
  actions = xp.full((tree.num_infosets,), -1, dtype=np.int32)
  for level in reversed(seqs.infoset_levels):
    q = seq_value[1 + level[:, None] * a_count + np.arange(a_count)[None, :]]
    q = xp.where(tree.infoset_legal[level], q, -np.inf)
    best = xp.argmax(q, axis=1)
    best_value = xp.max(q, axis=1)
    if ops.jax:
      actions = actions.at[level].set(best.astype(np.int32))
    else:
      actions[level] = best
    seq_value = seq_value + ops.segment_sum(best_value, seqs.infoset_parent_seq[level] + 1, n_seq)
  return seq_value[0], actions


def best_response_values(tree: GameTree, pi: Array, *, backend: str = "numpy",
                         validate: bool = True) -> Array:
  """[num_players] each player's best-response value against the others.

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    [num_players] each player's best-response value against the others' policies in `pi`.
  """
  xp = _ops(backend).xp
  reach = reach_by_owner(tree, pi, backend=backend, validate=validate)
  return xp.stack([best_response(tree, pi, p, backend=backend, reach=reach, validate=False).value
                   for p in range(tree.num_players)])


def nash_conv(tree: GameTree, pi: Array, *, backend: str = "numpy",
              validate: bool = True) -> Array:
  """NashConv: sum over players of best-response value minus value.

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    The NashConv of `pi` (a scalar; 0 at a Nash equilibrium), as a numpy or JAX array.
  """
  xp = _ops(backend).xp
  return xp.sum(player_improvements(tree, pi, backend=backend, validate=validate))


def player_improvements(tree: GameTree, pi: Array, *, backend: str = "numpy",
                        validate: bool = True) -> Array:
  """[num_players] best-response value minus value, per player (OpenSpiel's name).

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    [num_players] how much each player gains by best responding to the others.
  """
  return (best_response_values(tree, pi, backend=backend, validate=validate) -
          game_value(tree, pi, backend=backend, validate=False))


def counterfactual_action_values(tree: GameTree, pi: Array, *, backend: str = "numpy",
                                 validate: bool = True):
  """Counterfactual action values and reaches of every infoset.

  Returns `(q, cf_reach)`: `q[I, a] = sum_{h in I} cf(h) v_p(ha)` with p the infoset's player
  and cf(h) the reach of h without p's own contribution; `cf_reach[I] = sum_{h in I} cf(h)`.
  `q[I, a] / cf_reach[I]` is the expected value of action a at I (Eq. 1 of the ED paper).

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array (rows of legal actions summing to 1).
    backend: "numpy" (float64) or "jax" (traceable under `jax.jit`).
    validate: check `tree` and `pi` first (False: trusted arrays the caller built).

  Returns:
    `(q, cf_reach)`: q [num_infosets, num_actions] counterfactual action values, cf_reach
      [num_infosets] counterfactual reach of each infoset.
  """
  ops = _ops(backend)
  xp = ops.xp
  reach = reach_by_owner(tree, pi, backend=backend, validate=validate)
  ep = edge_probabilities(tree, pi, backend=backend, validate=False)
  values = history_values(tree, pi, backend=backend, edge_probs=ep)
  cf_all = xp.stack([counterfactual_reach(tree, pi, p, backend=backend, reach=reach)
                     for p in range(tree.num_players)], axis=1)
  dec = tree.decisions
  owner_dec = tree.node_player[dec]
  cf_reach = ops.segment_sum(cf_all[dec, owner_dec], tree.node_infoset[dec], tree.num_infosets)
  kids = tree.decision_children
  owner = tree.node_owner[kids]
  contrib = cf_all[tree.node_parent[kids], owner] * values[kids, owner]
  q = ops.segment_sum(contrib, tree.decision_children_flat, tree.num_infosets * tree.num_actions)
  return xp.reshape(q, (tree.num_infosets, tree.num_actions)), cf_reach
