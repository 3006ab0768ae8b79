"""CFR on the array game tree, step for step the same as OpenSpiel's `CFRSolver`.

`BatchedTreeCFRSolver` (a batch of seeds) and `TreeCFRSolver` (one seed) run the
counterfactual regret minimization of `open_spiel.python.algorithms.cfr` (Zinkevich, Johanson,
Bowling & Piccione, "Regret Minimization in Games with Incomplete Information", NIPS 2007;
regret matching, alternating or simultaneous updates, optional linear averaging and regret
matching+) on the flat arrays of a `GameTree`, in numba kernels over the node arrays instead
of a recursive Python walk over pyspiel states. They reproduce OpenSpiel's floating-point
operations in the same order (children summed left to right, histories of an information set
accumulated in depth-first order, OpenSpiel's pruning of histories that no player reaches), so
their current and average policies equal those of `cfr.CFRSolver` / `cfr.CFRPlusSolver` after
any number of iterations (tests/algorithms/nash/test_cfr.py checks this on kuhn_poker,
tiny_hanabi, comm, simple_bidding, mini_bridge and leduc_poker).

It exists so that the JPS experiments can run CFR1k on games whose Python CFR is too slow
(comm(length=7) has over two million histories).

The same traversal runs three newer regret and average updates (`rule`): Discounted CFR
(`TreeDCFRSolver`, equal to OpenSpiel's Python `discounted_cfr.DCFRSolver`), predictive CFR+
(`TreePCFRPlusSolver`) and predictive discounted CFR+ (`TreePDCFRPlusSolver`); their classes
cite the papers.

Their exponents have the ranges of `EXPONENT_RANGES` (inclusive), checked on construction:
alpha from 0 to 10, beta from -10 to 10, gamma from 0 to 10. In DCFR (Brown & Sandholm,
"Solving Imperfect-Information Games via Discounted Regret Minimization", AAAI 2019,
arXiv:1809.04040, Sec. 3) positive cumulative regrets are multiplied by t^alpha / (t^alpha + 1)
after iteration t, negative ones by t^beta / (t^beta + 1), and iteration t's policy weighs
t^gamma in the average. The paper recommends DCFR_{3/2,0,2}; Linear CFR is DCFR_{1,1,1}, and
the limits alpha = inf (positive regrets kept) and beta = -inf (negative regrets dropped) give
CFR+'s regret update. PDCFR+ uses alpha = 2.3, gamma = 5 and PCFR+ gamma = 2 in the same
roles. alpha < 0 would discount the positive regrets more and more as t grows (the factor
tends to 0: what was learnt is forgotten) and gamma < 0 would give the first iterations the
largest weights (the average is held by the early policies): neither is a setting these
papers use or analyse, and both are refused. beta < 0 (towards CFR+'s clipping) is allowed.
Past |10| nothing changes but the risk of overflow: from t = 42 on, t^10 / (t^10 + 1) is 1 in
float64 (as alpha = inf), from t = 40 on t^-10 / (t^-10 + 1) is below 1e-16 (as beta = -inf),
while t^gamma must stay finite (gamma = 1000 overflows at t = 3).

The numba kernels are in `cfr_kernels` (their first compilation is announced: `compile_notice`);
`cfr_jax.JaxTreeCFRSolver` runs the same traversal as JAX segment sums.

A *seeded random initial policy* (as the JPS paper starts CFR) replaces OpenSpiel's uniform
initial `current_policy()`; `openspiel_cfr_solver` builds OpenSpiel's own solver with the same
start so the two can be compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr as os_cfr

from ospiel_team import checks
from ospiel_team import compile_notice
from ospiel_team import errors
from ospiel_team.algorithms.nash import cfr_kernels
from ospiel_team.tree import traversal
from ospiel_team.tree.game_tree import GameTree

# The exponents' ranges (inclusive; see the module docstring): name -> (minimum, maximum).
EXPONENT_RANGES = {"alpha": (0.0, 10.0), "beta": (-10.0, 10.0), "gamma": (0.0, 10.0)}


def check_exponents(**exponents: Any) -> dict[str, float]:
  """The exponents (alpha, beta, gamma, any of them) as floats if they lie in their ranges.

  Args:
    **exponents: name -> value, names from `EXPONENT_RANGES`.

  Returns:
    name -> the value as a float.

  Raises:
    errors.UserError: naming the first exponent that is not a finite number in its range.
  """
  out = {}
  for name, value in exponents.items():
    lo, hi = EXPONENT_RANGES[name]
    out[name] = checks.check_real(name, value, minimum=lo, maximum=hi)
  return out


def random_policy_array(tree: GameTree, seed: int) -> np.ndarray:
  """A seeded random policy: at each infoset, uniform(0,1) weights on legal actions, normalized.

  Args:
    tree: the array game tree.
    seed: the numpy seed (an integer >= 0).

  Returns:
    [num_infosets, num_actions] float64 policy array.

  Raises:
    errors.UserError: `tree` is not a GameTree or `seed` not an integer >= 0.
  """
  checks.check_tree("tree", tree)
  rng = np.random.default_rng(checks.check_int("seed", seed, minimum=0))
  w = rng.random((tree.num_infosets, tree.num_actions)) * tree.infoset_legal
  s = w.sum(axis=1, keepdims=True)
  if np.any(s <= 0):
    raise ValueError("an infoset has no legal action")
  return w / s


def openspiel_cfr_solver(game: pyspiel.Game, tree: GameTree,
                         initial_policy: np.ndarray | None = None,
                         *, plus: bool = False) -> os_cfr._CFRSolver:
  """OpenSpiel's CFR solver started from `initial_policy` instead of uniform.

  The reference that `TreeCFRSolver` must equal (`CFRPlusSolver` when `plus`).

  Args:
    game: the pyspiel game.
    tree: its `GameTree` (reads `initial_policy` into OpenSpiel's table).
    initial_policy: the starting policy array (None: OpenSpiel's uniform start).
    plus: CFR+ (`CFRPlusSolver`) instead of vanilla CFR.

  Returns:
    OpenSpiel's `CFRSolver` or `CFRPlusSolver`, not yet iterated.

  Raises:
    errors.UserError: naming a bad argument (`game` not a pyspiel game, `tree` not a GameTree,
      `plus` not a bool, `initial_policy` not a policy array of `tree`).
  """
  checks.check_game("game", game)
  checks.check_tree("tree", tree)
  checks.check_bool("plus", plus)
  if initial_policy is not None:
    tree.validate_policy_array(initial_policy, name="initial_policy")
  solver = os_cfr.CFRPlusSolver(game) if plus else os_cfr.CFRSolver(game)
  if initial_policy is not None:
    cur = solver.current_policy()
    cur.action_probability_array[:] = tree.tabular_policy(
        initial_policy, template=cur).action_probability_array
  return solver


def _policy_arrays(name: str, tree: GameTree, value: Any, batch: bool) -> np.ndarray:
  """Converts `value` to a checked float64 policy array on `tree`.

  The shape is [B, infosets, actions] if `batch`; each policy is checked by
  `GameTree.validate_policy_array` (UserError naming `name`).
  """
  try:
    arr = np.asarray(value, dtype=np.float64)
  except (TypeError, ValueError):
    raise errors.UserError(f"{name} must be a numeric array, got {value!r:.80}") from None
  shape = f"[{'B, ' if batch else ''}{tree.num_infosets}, {tree.num_actions}]"
  if arr.ndim != (3 if batch else 2):
    raise errors.UserError(f"{name} must have shape {shape}, got {arr.shape}")
  if batch and arr.shape[0] < 1:
    raise errors.UserError(f"{name} holds no seed (B = 0)")
  for pi in arr if batch else [arr]:  # shape and values, with the offending entry named
    try:
      tree.validate_policy_array(pi)
    except errors.UserError as e:
      raise errors.UserError(f"{name}: {e}") from None
  return arr


class BatchedTreeCFRSolver:
  """OpenSpiel's CFR (`cfr._CFRSolver`) on a `GameTree` for a batch of seeds at once.

  The seeds are an axis over the same tree arrays. Every seed b runs exactly the iterations
  OpenSpiel's solver runs from `initial_policies[b]` (the same floating-point operations in the same
  order; tests/algorithms/nash/test_cfr.py checks the batch equal, seed by seed, to OpenSpiel and to
  batches of one). Internally the seed axis is the last one ([num_nodes, B], [num_infosets,
  num_actions, B]) so that the gathers along the tree read contiguous rows; the public arrays have
  it first ([B, num_infosets, num_actions]).

  `exploration` > 0 adds the JPS authors' exploration to regret matching (their
  `simple_game/cfr_opt.h`, `InfoSet::computeStrategy`, facebookresearch/jps): at an infoset
  with no positive cumulative regret, the uniform policy plus Gaussian noise of standard
  deviation `exploration` on every legal action, clipped at 0 and renormalized (uniform if
  every entry was clipped), drawn from the seed's own generator (`noise_seeds[b]`).
  The authors use 0.01; 0 (the default) is OpenSpiel's regret matching.

  Args:
    tree: the game tree.
    initial_policies: [B, num_infosets, num_actions] initial (current) policies, one per seed.
    alternating_updates: update the players one after the other (OpenSpiel's default) or all
      at once.
    linear_averaging: weight iteration t's policy by t in the average.
    regret_matching_plus: clip cumulative regrets at 0 (CFR+).
    exploration: standard deviation of the exploration noise (0: none).
    noise_seeds: one int per seed for the exploration noise (required if exploration > 0).
    dtype: float64 (default; equal seed by seed to OpenSpiel) or float32
      (the authors' arithmetic, `float` in their `cfr_opt.h`; faster, not bit-equal: its
      policies agree with float64's to about 1e-4 after 1000 iterations, and a purified
      policy may differ where two actions are nearly tied).
    rule: the regret and average update after each player's traversal (one traversal for all):
      "cfr" (OpenSpiel's, with the two flags above), "dcfr" (Discounted CFR, `TreeDCFRSolver`),
      "pcfr+" (predictive CFR+, `TreePCFRPlusSolver`) or "pdcfr+" (predictive discounted CFR+,
      `TreePDCFRPlusSolver`); the last three have their own regret and average updates
      (linear_averaging and regret_matching_plus must be False with them).
    alpha, beta, gamma: the rules' exponents: positive regrets discounted by
      t^alpha / (t^alpha + 1) ("dcfr", "pdcfr+"), negative ones by t^beta / (t^beta + 1)
      ("dcfr"), iteration t's policy weighted by t^gamma in the average (not "cfr").
    The traversal, regret matching and exploration run in the numba kernels of `cfr_kernels`;
    the exploration noise is drawn by numpy's generators.

  Raises:
    errors.UserError: a bad argument, named (exponents outside `EXPONENT_RANGES`, a policy
      that is not a distribution over the legal actions, ...), or a game that is not
      sequential.
  """

  RULES = ("cfr", "dcfr", "pcfr+", "pdcfr+")

  def __init__(self, tree: GameTree, initial_policies: np.ndarray,
               *, alternating_updates: bool = True, linear_averaging: bool = False,
               regret_matching_plus: bool = False, exploration: float = 0.0,
               noise_seeds: np.ndarray | None = None, dtype=np.float64, rule: str = "cfr",
               alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
    checks.check_tree("tree", tree)
    alternating_updates = checks.check_bool("alternating_updates", alternating_updates)
    linear_averaging = checks.check_bool("linear_averaging", linear_averaging)
    regret_matching_plus = checks.check_bool("regret_matching_plus", regret_matching_plus)
    rule = checks.check_choice("rule", rule, self.RULES)
    if rule != "cfr" and (linear_averaging or regret_matching_plus):
      raise errors.UserError(f"rule {rule!r} has its own averaging and regret update: "
                             "linear_averaging and regret_matching_plus must be False")
    exponents = check_exponents(alpha=alpha, beta=beta, gamma=gamma)
    exploration = checks.check_real("exploration", exploration, minimum=0)
    if rule != "cfr" and exploration:
      raise errors.UserError(f"exploration is defined for rule 'cfr' only, got rule {rule!r} "
                             f"with exploration={exploration!r}")
    noise_seeds = checks.check_int_sequence("noise_seeds", noise_seeds, minimum=0,
                                            what="seeds", allow_none=True)
    self._rule = rule
    self._alpha, self._beta, self._gamma = (exponents[k] for k in ("alpha", "beta", "gamma"))
    init = _policy_arrays("initial_policies", tree, initial_policies, batch=True)
    try:  # (np.dtype(None) would be float64, and np.dtype("float64") == None holds)
      self._dtype = None if dtype is None else np.dtype(dtype)
    except TypeError:
      self._dtype = None
    if self._dtype is None or self._dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
      raise errors.UserError(f"dtype must be float64 or float32, got {dtype!r}")
    if tree.game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
      raise errors.UserError(f"CFR needs a sequential game, got {tree.game}")
    self.tree = tree
    self._alternating = alternating_updates
    self._linear = linear_averaging
    self._rm_plus = regret_matching_plus
    self._iteration = 0
    self.batch_size = int(init.shape[0])
    B = self.batch_size
    legal = tree.infoset_legal[:, :, None]
    self._current = np.ascontiguousarray(
        np.where(legal, np.moveaxis(init, 0, -1), 0.0), dtype=self._dtype)
    self._cum_regret = np.zeros((tree.num_infosets, tree.num_actions, B), dtype=self._dtype)
    self._cum_policy = np.zeros((tree.num_infosets, tree.num_actions, B), dtype=self._dtype)
    # This iteration's regrets of the predictive rules (zero between updates).
    self._inst = np.zeros_like(self._cum_regret) if rule in ("pcfr+", "pdcfr+") else None
    self._exploration = float(exploration)
    if self._exploration > 0:
      if noise_seeds is None or len(noise_seeds) != B:
        got = None if noise_seeds is None else len(noise_seeds)
        raise errors.UserError(f"noise_seeds: exploration > 0 needs one noise seed per batch "
                               f"entry ({B}), got {got}")
      self._rngs = [np.random.default_rng(s) for s in noise_seeds]
    else:
      self._rngs = None
    self._prepare_batched()

  def _prepare_batched(self):
    """Index arrays and preallocated [.., B] buffers of the kernels (policy-independent)."""
    tree, B, dt = self.tree, self.batch_size, self._dtype
    num_p = tree.num_players
    dec = tree.decisions
    # Reach is needed down to the deepest decision node's level.
    last = int(tree.node_depth[dec].max()) if len(dec) else 0
    self._reach_size = tree.level_slices[last][1] if len(dec) else 1
    # Index arrays unsigned: the kernels' gathers then need no negative-index wraparound.
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64).view(np.uint64)
    owner = tree.node_owner[1:self._reach_size]
    if np.any((owner < 0) | (owner > num_p)):
      bad = 1 + int(np.nonzero((owner < 0) | (owner > num_p))[0][0])
      raise ValueError(f"node owner {int(tree.node_owner[bad])} of node {bad} out of range")
    levels = [(s, e) for s, e in tree.level_slices[1:] if e > s]
    ret = tree.node_returns
    # Common payoff: every player's values are the same numbers, computed once.
    self._common_values = num_p > 1 and all(
        np.array_equal(ret[:, 0], ret[:, p]) for p in range(1, num_p))
    legal = tree.infoset_legal
    k = dict(parent=i64(np.maximum(tree.node_parent, 0)),  # (the root's -1 is never read)
             owner=i64(np.maximum(tree.node_owner, 0)),
             dc=i64(tree.decision_children), dc_flat=i64(tree.decision_children_flat),
             dec=i64(tree.decisions), lev_start=i64([s for s, _ in levels]),
             lev_end=i64([e for _, e in levels]),
             rets=np.ascontiguousarray(tree.node_returns.T, dtype=dt),
             legal=np.ascontiguousarray(legal),
             uniform=np.ascontiguousarray(legal / legal.sum(axis=1, keepdims=True), dtype=dt))
    # Reach of every owner (players, then chance): [num_p + 1, nodes, B].
    self._reach = np.ones((num_p + 1, self._reach_size, B), dtype=dt)
    # The owners whose reach must be recomputed by the next traversal (their policies changed).
    self._stale = set(range(num_p + 1))
    self._matched = False  # whether every infoset's policy came from regret matching yet
    # Chance probabilities stay; the decision edges are overwritten every traversal.
    self._ep = np.repeat(np.asarray(tree.node_chance_prob, dtype=dt)[:, None], B, axis=1)
    k["dpruned"] = np.zeros((len(tree.decisions), B), dtype=bool)
    k["npruned"] = np.zeros((tree.num_nodes, B), dtype=bool)
    for name in ("acc", "before", "after", "total"):
      k[name] = np.zeros(B, dtype=dt)
    k["positive"] = np.zeros((tree.num_infosets, B), dtype=bool)
    # The infosets of each player (the rows a rule other than "cfr" updates after its traversal).
    inf_player = tree.node_player[tree.first_node()]
    k["all_rows"] = i64(np.arange(tree.num_infosets))
    k["player_rows"] = [i64(np.nonzero(inf_player == p)[0]) for p in range(num_p)]
    k["values"] = np.zeros((1 if self._common_values else num_p, tree.num_nodes, B), dtype=dt)
    # Regrets and policy sums per decision edge (legal actions only), the edges of each player
    # sorted by (infoset, depth-first order of the history, action), so that every (infoset,
    # action) pair adds its histories in OpenSpiel's visiting order, and the edges of a history
    # are consecutive (its reach is read once, its children in a row).
    pre = traversal.preorder_and_size(tree.node_parent, tree.level_slices)[0]
    kids = tree.decision_children
    dec_row = np.full(tree.num_nodes, -1, dtype=np.int64)
    dec_row[dec] = np.arange(len(dec))
    child = np.full((len(dec), tree.num_actions), -1, dtype=np.int64)
    child[dec_row[tree.node_parent[kids]], tree.node_action[kids]] = kids
    parts = []
    for p in range(num_p):
      rows = np.nonzero(tree.node_player[dec] == p)[0]  # decision rows of player p
      inf = tree.node_infoset[dec[rows]]
      r_idx, a_idx = np.nonzero(tree.infoset_legal[inf])
      e_flat = inf[r_idx] * tree.num_actions + a_idx
      order = np.lexsort((a_idx, pre[dec[rows[r_idx]]], inf[r_idx]))
      e_row = rows[r_idx[order]]
      parts.append([dec[e_row], child[e_row, a_idx[order]], e_flat[order], e_row])
    k["e_off"] = i64(np.concatenate([[0], np.cumsum([len(q[0]) for q in parts])]))
    for j, name in enumerate(("e_node", "e_child", "e_flat", "e_dec")):
      k[name] = i64(np.concatenate([q[j] for q in parts]))
    self._k = k
    self._traverse_kernel = cfr_kernels.cfr_traverse_one if B == 1 else cfr_kernels.cfr_traverse

  def _traverse(self, player: int | None):
    """Runs `TreeCFRSolver._traverse` for every seed at once.

    The same floating-point operations in the same order, by the kernel `cfr_kernels.cfr_traverse`.
    """
    k, num_p = self._k, self.tree.num_players
    players = np.arange(num_p) if player is None else np.array([player])
    if self._common_values:
      val_players, val_of = np.zeros(1, dtype=np.int64), np.zeros(num_p, dtype=np.int64)
    else:
      val_players = players
      val_of = np.zeros(num_p, dtype=np.int64)
      val_of[players] = np.arange(len(players))
    B = self.batch_size
    weight = cfr_kernels.policy_weight(self._rule, float(self._iteration), self._linear,
                                       self._gamma)
    weight_after = self._rule != "cfr"  # OpenSpiel's DCFR: reach * policy * t^gamma
    # The predictive rules keep this iteration's regrets apart from the cumulative ones.
    target = self._inst if self._rule in ("pcfr+", "pdcfr+") else self._cum_regret
    self._traverse_kernel(
        num_p, k["parent"], k["owner"], k["dc"], k["dc_flat"], k["dec"], k["lev_start"],
        k["lev_end"], self._current.reshape(-1, B), self._ep, self._reach, k["dpruned"],
        k["npruned"], val_players.astype(np.int64), k["rets"], k["values"], k["acc"],
        k["before"], k["after"], players.astype(np.int64), val_of, k["e_off"], k["e_node"],
        k["e_child"], k["e_flat"], k["e_dec"], self._dtype.type(weight), weight_after,
        target.reshape(-1, B), self._cum_policy.reshape(-1, B),
        np.array(sorted(self._stale), dtype=np.int64))
    self._stale.clear()

  def _update_current_policy(self, player: int | None):
    """Updates the regrets of `player`'s infosets, then their current policies.

    The rule's regret update of `player`'s infosets (None: every player's), then their regret
    matching. (OpenSpiel's CFR matches every infoset, but after the first update, which
    replaces the initial policy everywhere, the other players' regrets are unchanged and so are
    their policies. With exploration every infoset is matched: its noise is drawn anew.)
    """
    k = self._k  # illegal actions never receive regret: their cumulative regret stays 0
    d_pos, d_neg, d_next = cfr_kernels.discounts(self._rule, float(self._iteration),
                                                 self._alpha, self._beta)
    everyone = player is None or self._rngs is not None or not self._matched
    self._matched = True
    rows = k["all_rows"] if everyone else k["player_rows"][player]
    self._stale.update(range(self.tree.num_players) if everyone else [player])
    code = cfr_kernels.rule_code(self._rule, self._rm_plus)
    dt = self._dtype.type
    inst = self._inst if code == cfr_kernels.PREDICTIVE else self._cum_regret
    cfr_kernels.cfr_regret_matching(code, rows, self._cum_regret, inst, dt(d_pos), dt(d_neg),
                                    dt(d_next), k["uniform"], self._current, k["positive"],
                                    k["total"])
    if self._rngs is not None:
      self._explore(self._current, k["positive"])

  def _explore(self, cur: np.ndarray, positive: np.ndarray):
    """The authors' exploration noise, in place, on the rows (per seed) without positive regret.

    Each seed draws its rows' noise from its own generator, in row order, as one
    [rows, num_actions] block (the draws are the only per-seed work); the rest is computed on
    the rows of every seed at once (element-wise and per row, so each seed's numbers are those
    it would get alone: tests/algorithms/nash/test_cfr.py checks a batch against single
    seeds).
    """
    bs, rows = np.nonzero(~positive.T)  # ordered by seed, then row
    if not len(rows):
      return
    counts = np.bincount(bs, minlength=self.batch_size)
    num_a = cur.shape[1]
    noise = np.concatenate([rng.normal(0.0, self._exploration, size=(n, num_a))
                            for rng, n in zip(self._rngs, counts, strict=True) if n])
    rows, bs = rows.astype(np.int64), bs.astype(np.int64)
    cfr_kernels.cfr_explore_gather(rows, bs, self._k["legal"], cur, noise)
    cfr_kernels.cfr_explore_scatter(rows, bs, noise, noise.sum(axis=1), cur)

  def evaluate_and_update_policy(self) -> None:
    """One CFR iteration of every seed (as `CFRSolver.evaluate_and_update_policy`)."""
    self._iteration += 1
    if not compile_notice.done("CFR"):  # the first call: says so if numba compiles the kernels
      with compile_notice.announce("CFR", (self._traverse_kernel,
                                           cfr_kernels.cfr_regret_matching)):
        self._iteration -= 1
        return self.evaluate_and_update_policy()
    if self._alternating:
      for p in range(self.tree.num_players):
        self._traverse(p)
        self._update_current_policy(p)
    else:
      self._traverse(None)
      self._update_current_policy(None)

  @property
  def iteration(self) -> int:
    """The number of iterations done."""
    return self._iteration

  def current_policy_array(self) -> np.ndarray:
    """[B, num_infosets, num_actions] current (last-iterate) policies.

    Returns:
      [B, num_infosets, num_actions], one current policy per game of the batch.
    """
    return np.ascontiguousarray(np.moveaxis(self._current, -1, 0))

  def average_policy_array(self) -> np.ndarray:
    """[B, num_infosets, num_actions] average policies (uniform where nothing accumulated).

    Returns:
      [B, num_infosets, num_actions], one average policy per game of the batch.

    Raises:
      errors.UserError: the policy sums overflowed the dtype (float32 with a large gamma: the
        sum of t^gamma up to T is about T^(gamma + 1) / (gamma + 1), past float32's 3.4e38 at
        T = 3.6e6 for gamma = 5).
    """
    cum = self._cum_policy
    legal = self.tree.infoset_legal[:, :, None]
    total = np.zeros((cum.shape[0], cum.shape[2]))
    for a in range(cum.shape[1]):
      total = total + np.where(legal[:, a], cum[:, a], 0.0)
    if not np.all(np.isfinite(total)):
      raise errors.UserError(
          f"the average policy's sums overflowed {self._dtype.name} after {self._iteration} "
          f"iterations (rule {self._rule!r}, gamma={self._gamma:g}): use dtype=float64 or a "
          "smaller gamma")
    zero = total == 0
    avg = cum / np.where(zero, 1.0, total)[:, None, :]
    uniform = 1.0 / legal.sum(axis=1)[:, None, :]
    out = np.where(legal, np.where(zero[:, None, :], uniform, avg), 0.0)
    return np.ascontiguousarray(np.moveaxis(out, -1, 0))

  def current_policy(self):
    """Not available for a batch: raises NotImplementedError (use `current_policy_array`)."""
    raise NotImplementedError("a batch has one policy per seed: use current_policy_array()")

  def average_policy(self):
    """Not available for a batch: raises NotImplementedError (use `average_policy_array`)."""
    raise NotImplementedError("a batch has one policy per seed: use average_policy_array()")


class TreeCFRSolver:
  """OpenSpiel's CFR (`cfr._CFRSolver`) on a `GameTree`: a `BatchedTreeCFRSolver` of one seed.

  Usage mirrors OpenSpiel: `evaluate_and_update_policy()` runs one iteration;
  `current_policy_array()` / `average_policy_array()` return policy arrays on the tree and
  `current_policy()` / `average_policy()` TabularPolicies. Its policies equal those of
  `cfr.CFRSolver` / `cfr.CFRPlusSolver` after any number of iterations.

  Args:
    tree: the game tree (of a sequential game).
    alternating_updates, linear_averaging, regret_matching_plus: as `BatchedTreeCFRSolver`.
    initial_policy: the starting current policy (default: uniform, as OpenSpiel).
    rule, alpha, beta, gamma: the update rule and its exponents, as `BatchedTreeCFRSolver`
      (the subclasses below set them).

  Raises:
    errors.UserError: a bad argument, named (see `BatchedTreeCFRSolver`).
  """

  def __init__(self, tree: GameTree, *, alternating_updates: bool = True,
               linear_averaging: bool = False, regret_matching_plus: bool = False,
               initial_policy: np.ndarray | None = None, rule: str = "cfr",
               alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
    checks.check_tree("tree", tree)
    init = (tree.uniform_policy_array() if initial_policy is None
            else _policy_arrays("initial_policy", tree, initial_policy, batch=False))
    self.tree = tree
    self._batch = BatchedTreeCFRSolver(
        tree, init[None], alternating_updates=alternating_updates,
        linear_averaging=linear_averaging, regret_matching_plus=regret_matching_plus,
        rule=rule, alpha=alpha, beta=beta, gamma=gamma)

  def evaluate_and_update_policy(self) -> None:
    """One CFR iteration (as `CFRSolver.evaluate_and_update_policy`)."""
    self._batch.evaluate_and_update_policy()

  @property
  def iteration(self) -> int:
    """The number of iterations done."""
    return self._batch.iteration

  def current_policy_array(self) -> np.ndarray:
    """The current (last-iterate) policy array.

    Returns:
      [num_infosets, num_actions] the current policy array.
    """
    return self._batch.current_policy_array()[0]

  def average_policy_array(self) -> np.ndarray:
    """The (reach-weighted) average policy array; uniform where nothing was accumulated.

    Returns:
      [num_infosets, num_actions] the average policy array.
    """
    return self._batch.average_policy_array()[0]

  def current_policy(self) -> policy_lib.TabularPolicy:
    """The current (last-iterate) policy as an OpenSpiel `TabularPolicy`.

    Returns:
      A `TabularPolicy` of the tree's game.
    """
    return self.tree.tabular_policy(self.current_policy_array())

  def average_policy(self) -> policy_lib.TabularPolicy:
    """The average policy as an OpenSpiel `TabularPolicy`.

    Returns:
      A `TabularPolicy` of the tree's game.
    """
    return self.tree.tabular_policy(self.average_policy_array())


class TreeCFRPlusSolver(TreeCFRSolver):
  """CFR+ (regret matching+, alternating updates, linear averaging) as `cfr.CFRPlusSolver`."""

  def __init__(self, tree: GameTree, initial_policy: np.ndarray | None = None):
    super().__init__(tree, alternating_updates=True, linear_averaging=True,
                     regret_matching_plus=True, initial_policy=initial_policy)


class TreeDCFRSolver(TreeCFRSolver):
  """Discounted CFR (DCFR) on a `GameTree`.

  Discounted CFR, DCFR_{alpha, beta, gamma} (Brown & Sandholm, "Solving Imperfect-Information
  Games via Discounted Regret Minimization", AAAI 2019, arXiv:1809.04040), iterate for iterate
  OpenSpiel's `discounted_cfr.DCFRSolver`.

  After player i's traversal of iteration t its cumulative regrets R = R^{t-1} + r^t are
  multiplied by t^alpha / (t^alpha + 1) where R >= 0 and by t^beta / (t^beta + 1) where R < 0;
  the average policy weighs iteration t by t^gamma (the paper's discount (t / (t + 1))^gamma of
  the earlier contributions, up to normalization). Regret matching, alternating updates.

  Args:
    tree: the game tree (of a sequential game).
    alpha, beta, gamma: the paper's DCFR_{3/2, 0, 2} by default (its recommended setting);
      alpha and gamma from 0 to 10, beta from -10 to 10 (`EXPONENT_RANGES`, the module
      docstring says why).
    initial_policy: the starting current policy (default: uniform).

  Raises:
    errors.UserError: an exponent outside its range, or another bad argument, named.
  """

  def __init__(self, tree: GameTree, *, alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0,
               initial_policy: np.ndarray | None = None):
    super().__init__(tree, initial_policy=initial_policy, rule="dcfr", alpha=alpha, beta=beta,
                     gamma=gamma)


class TreePCFRPlusSolver(TreeCFRSolver):
  """Predictive CFR+ (PCFR+) on a `GameTree`.

  Predictive CFR+ (Farina, Kroer & Sandholm, "Faster Game Solving via Predictive Blackwell
  Approachability: Connecting Regret Matching and Mirror Descent", AAAI 2021,
  arXiv:2007.14358): predictive regret matching+ at every infoset, the prediction being the
  infoset's last counterfactual regret vector.

  After player i's traversal of iteration t with regrets r^t: R^t = [R^{t-1} + r^t]^+ and the
  next policy is regret matching on the prediction [R^t + r^t]^+ (uniform where it is 0);
  alternating updates; the average weighs iteration t by t^gamma (quadratic, gamma = 2, as the
  paper's PCFR+ experiments).

  Args:
    tree: the game tree (of a sequential game).
    gamma: the exponent of the average's weights (default 2), from 0 to 10
      (`EXPONENT_RANGES`).
    initial_policy: the starting current policy (default: uniform).

  Raises:
    errors.UserError: gamma outside its range, or another bad argument, named.
  """

  def __init__(self, tree: GameTree, gamma: float = 2.0,
               initial_policy: np.ndarray | None = None):
    super().__init__(tree, initial_policy=initial_policy, rule="pcfr+", gamma=gamma)


class TreePDCFRPlusSolver(TreeCFRSolver):
  """Predictive discounted CFR+ (PDCFR+) on a `GameTree`.

  Predictive discounted CFR+, PDCFR+ (Xu, Li, Fu, Fu, Xing & Cheng, "Minimizing Weighted
  Counterfactual Regret with Optimistic Online Mirror Descent", IJCAI 2024, arXiv:2404.13891):
  PCFR+ with DCFR's discount of the positive regrets.

  After player i's traversal of iteration t with regrets r^t:
  R^t = [R^{t-1} (t-1)^alpha / ((t-1)^alpha + 1) + r^t]^+ and the next policy is regret
  matching on the prediction [R^t t^alpha / (t^alpha + 1) + r^t]^+ (uniform where it is 0);
  alternating updates; the average weighs iteration t by t^gamma.

  Args:
    tree: the game tree (of a sequential game).
    alpha, gamma: the paper's alpha = 2.3, gamma = 5 by default; each from 0 to 10
      (`EXPONENT_RANGES`).
    initial_policy: the starting current policy (default: uniform).

  Raises:
    errors.UserError: an exponent outside its range, or another bad argument, named.
  """

  def __init__(self, tree: GameTree, *, alpha: float = 2.3, gamma: float = 5.0,
               initial_policy: np.ndarray | None = None):
    super().__init__(tree, initial_policy=initial_policy, rule="pdcfr+", alpha=alpha,
                     gamma=gamma)
