"""Exact optima of cooperative games (a single team, no opponent).

In a cooperative game the best correlated plan of the team is its best joint pure strategy
(the objective is linear, so a vertex of the plan polytope is optimal). Exact methods:

* `method="lp"`: the team LP (`team_lp`, Theorem 3.21 of Zhang & Sandholm) with no opponent:
  max sum_z w[z] x[z] over the tree-decomposition polytope, which is exactly the convex hull of
  the team's pure plans (Prop. 2.9). A pure strategy in the optimal plan's support is optimal.
  Used when the number of local solutions stays under `lp_max_local`.
* `method="mip"`: a mixed-integer program over the players' pure sequence-form plans (HiGHS
  MIP): binary r_p[sigma] with r_p[parent(I)] = sum_a r_p[I a] for every infoset I of player p,
  and one continuous x_g in [0, 1] per group g of terminals with the same tuple of the members'
  last sequences, linearising the product prod_p r_p[sigma_p(g)]: x_g <= r_p[sigma_p] when the
  group's weight is positive, x_g >= sum_p r_p[sigma_p] - (k - 1) when negative. Exact; HiGHS
  reports the optimality gap when stopped by the time limit.

* `method="bidding_bb"` (simple_bidding only): the exact branch and bound over reach sets of
  `simple_bidding_optimum` (N = 8 in about a second, where the MIP needs 80 s).

All return the optimal joint policy as a `TabularPolicy` whose value the array game tree
(`evaluation.game_value`) confirms. `brute_force_optimum` enumerates joint pure strategies of one
or two players (the smallest games; an independent check).

Values follow the package's convention: a cooperative (common-payoff) game reports the common
payoff, the number every player receives (the value of the tables and proven optima of Tian et
al. 2020, "Joint Policy Search for Multi-agent Collaboration with Imperfect Information",
NeurIPS 2020, arXiv 2008.06495). The optimisation itself maximises the team utility (the sum of
the members' returns, `teams.py`), which is that number times the number of players.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.algorithms.coop import simple_bidding_optimum
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.lp import decomposition as team_decomposition
from ospiel_team.lp import highs
from ospiel_team.lp import plan_mip
from ospiel_team.tree import evaluation
from ospiel_team.tree import resolver
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.tree.payoff import check_common_payoff

DEFAULT_LP_MAX_LOCAL = 2_000_000
# 'bidding_bb': simple_bidding only, the reach-set branch and bound of simple_bidding_optimum.
METHODS = ("auto", "lp", "mip", "brute_force", "bidding_bb")


@dataclasses.dataclass(frozen=True)
class CoopOptimum:
  """The exact optimum of a cooperative game."""
  game: str
  value: float  # the common payoff of the optimal joint policy (by `evaluation.game_value`)
  bound: float  # proven upper bound on `value`
  proven_optimal: bool
  gap: float
  seconds: float
  method: str
  policy: policy_lib.TabularPolicy
  policy_array: np.ndarray
  details: dict

  def summary(self) -> dict:
    """The result as one JSON-able dict (the policy left out).

    Returns:
      A dict of game, value, bound, proven_optimal, gap, seconds, method and the method's details.
    """
    return dict(game=self.game, value=self.value, bound=self.bound,
                proven_optimal=self.proven_optimal, gap=self.gap,
                seconds=round(self.seconds, 3), method=self.method, **self.details)


def _pure_policy_array(tree: GameTree, strategy: dict[int, int]) -> np.ndarray:
  pi = tree.uniform_policy_array()
  for i, a in strategy.items():
    pi[i] = 0.0
    pi[i, a] = 1.0
  return pi


def team_weights(tree: GameTree, members: Sequence[int]) -> np.ndarray:
  """[num_terminals] chance reach x team utility (sum of members' returns).

  Args:
    tree: the game tree.
    members: the team's players.

  Returns:
    [num_terminals] chance reach times the members' summed return at every terminal.
  """
  chance = tree.chance_reach()[tree.terminals]
  return chance * tree.node_returns[tree.terminals][:, list(members)].sum(axis=1)


def solve(game: pyspiel.Game | str | GameTree, *, method: str = "auto",
          time_limit: float | None = None, lp_max_local: int = DEFAULT_LP_MAX_LOCAL,
          threads: int | None = None,
          initial_policy: np.ndarray | policy_lib.Policy | None = None) -> CoopOptimum:
  """Exact optimal joint pure strategy of a cooperative game (all players form one team).

  `initial_policy` (a policy array or OpenSpiel policy, e.g. a JPS result; purified by argmax)
  is the MIP's first incumbent: the MIP then returns a strategy at least as good.

  Args:
    game: a cooperative game: pyspiel game, game string or `GameTree`.
    method: "auto", "lp", "mip", "brute_force" or "bidding_bb" (module docstring).
    time_limit: seconds for the solver (None: no limit).
    lp_max_local: the team LP's limit on local solutions ("auto" uses the MIP past it).
    threads: HiGHS threads (None: HiGHS's default).
    initial_policy: the MIP's first incumbent (None: none).

  Returns:
    A `CoopOptimum`: the optimal joint policy, its value, the proven bound and gap.

  Raises:
    errors.UserError: a bad argument, named (a game that is no game, a method, a negative or
      non-finite time limit, lp_max_local or threads not an integer >= 1), checked first.
  """
  if not isinstance(game, GameTree):  # a string is loaded (checked) before the options
    game = resolver.resolve_game(game)
  checks.check_choice("method", method, METHODS)
  time_limit = checks.check_real("time_limit", time_limit, minimum=0, allow_none=True)
  lp_max_local = checks.check_int("lp_max_local", lp_max_local, minimum=1)
  threads = checks.check_int("threads", threads, minimum=1, allow_none=True)
  start = time.perf_counter()
  pyspiel_game = game.game if isinstance(game, GameTree) else game
  _check_method(pyspiel_game, method, time_limit)
  time_limit = highs.check_time_limit(time_limit)
  tree = resolver.resolve(game)
  teams = teams_lib.check_team_game(tree, [list(range(tree.num_players))])
  check_common_payoff(tree)
  members = teams.teams[0]
  w = team_weights(tree, members)
  details: dict = {}
  res = None

  def left() -> float | None:  # the time limit covers every stage of the solve
    return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))

  if method in ("auto", "lp"):
    res = _solve_lp(tree, members, w, method, lp_max_local, left(), details)
  start_strategy = _initial_strategy(tree, members, initial_policy, details)
  if res is None and method in ("auto", "mip"):
    res = plan_mip.best_joint_pure_strategy_mip(tree, members, w, time_limit=left(),
                                                threads=threads, initial_strategy=start_strategy)
  if res is None and method == "brute_force":
    res = plan_mip.brute_force_best_joint(tree, members, w, time_limit=left())
  if res is None and method == "bidding_bb":
    res = _solve_bidding_bb(tree, members, details)
  pi, evaluated_team = _evaluate(tree, members, res)
  if res.method == "lp" and abs(evaluated_team - res.value) > 1e-6 * max(1.0, abs(res.value)):
    # The LP value is exact, but the greedy pure strategy read off a numerically noisy plan
    # may not be optimal: fall back to the MIP, which returns an optimal pure strategy.
    details["lp_value"] = res.value
    res = plan_mip.best_joint_pure_strategy_mip(tree, members, w, time_limit=left(),
                                                threads=threads, initial_strategy=start_strategy)
    pi, evaluated_team = _evaluate(tree, members, res)
  k = len(members)
  return CoopOptimum(
      game=str(tree.game), value=evaluated_team / k, bound=res.bound / k,
      proven_optimal=res.proven_optimal, gap=res.gap, seconds=time.perf_counter() - start,
      method=res.method, policy=tree.tabular_policy(pi), policy_array=pi,
      details=dict(details, solver_value=res.value / k))


def _check_method(game: pyspiel.Game, method: str, time_limit: float | None) -> None:
  """Checks that `method` exists and can run on `game` within the time limit.

  Raises ValueError for an unknown method, or 'bidding_bb' on another game or with a
  time limit.
  """
  if method not in METHODS:
    raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
  if method == "bidding_bb":
    name = game.get_type().short_name
    if name != "simple_bidding":
      raise ValueError(f"method 'bidding_bb' solves simple_bidding only, not {name}")
    if time_limit is not None:
      raise ValueError(f"method 'bidding_bb' runs to the end (no time limit), got "
                       f"time_limit={time_limit}; limit the process instead")


def _solve_lp(tree: GameTree, members: list[int], w: np.ndarray, method: str,
              lp_max_local: int, time_limit: float | None,
              details: dict) -> plan_mip.JointPureResult | None:
  """Solves the team LP and rounds its plan to a greedy pure strategy.

  The team LP's optimum and a greedy pure strategy of its plan; None when `auto` finds more
  than `lp_max_local` local solutions (method "lp": SizeLimitError).
  """
  try:
    dec = team_decomposition.TeamDecomposition(tree, members, max_local=lp_max_local)
  except errors.SizeLimitError:
    if method == "lp":
      raise
    return None
  br = team_best_response.team_best_response_lp(tree, members, w, decomposition=dec,
                                                time_limit=time_limit)
  strategy = br.plan.sample_pure_strategy(greedy=True)
  details.update(local_solutions=dec.num_local, sequences=dec.num_sequences)
  return plan_mip.JointPureResult(value=br.value, bound=br.value, proven_optimal=True, gap=0.0,
                                  seconds=br.seconds, strategy=strategy, method="lp")


def _initial_strategy(tree: GameTree, members: list[int],
                      initial_policy: np.ndarray | policy_lib.Policy | None,
                      details: dict) -> dict[int, int] | None:
  """The purified `initial_policy` as infoset -> action (its value in `details`), or None."""
  if initial_policy is None:
    return None
  pi0 = (tree.policy_array(initial_policy) if isinstance(initial_policy, policy_lib.Policy)
         else np.asarray(initial_policy, dtype=np.float64))
  if pi0.shape != (tree.num_infosets, tree.num_actions):
    raise ValueError(f"initial_policy has shape {pi0.shape}; the tree needs "
                     f"{(tree.num_infosets, tree.num_actions)}")
  start_strategy = {i: int(a) for i, a in
                    enumerate(np.argmax(tree.purified_policy_array(pi0), axis=1))}
  details["initial_value"] = float(sum(evaluation.game_value(
      tree, _pure_policy_array(tree, start_strategy))[p] for p in members)) / len(members)
  return start_strategy


def _solve_bidding_bb(tree: GameTree, members: list[int],
                      details: dict) -> plan_mip.JointPureResult:
  """simple_bidding's exact branch and bound (`simple_bidding_optimum`), in team units."""
  size = int(tree.game.get_parameters()["size"])
  bb = simple_bidding_optimum.solve(size)
  pi_bb = tree.policy_array(simple_bidding_optimum.tabular_policy(tree.game, bb.strategy))
  k = len(members)
  strategy = {i: int(a) for i, a in enumerate(np.argmax(pi_bb, axis=1))
              if tree.infoset_player[i] in members}
  details.update(bb_total=bb.total, bb_states=bb.states)
  return plan_mip.JointPureResult(value=bb.value * k, bound=bb.value * k, proven_optimal=True,
                                  gap=0.0, seconds=bb.seconds, strategy=strategy,
                                  method="bidding_bb")


def _evaluate(tree: GameTree, members: list[int],
              res: plan_mip.JointPureResult) -> tuple[np.ndarray, float]:
  """(policy array of the pure strategy `res.strategy`, its team value by the game tree)."""
  pi = _pure_policy_array(tree, res.strategy)
  v = evaluation.game_value(tree, pi)
  return pi, float(sum(v[p] for p in members))


WARM_STARTS = ("none", "jps", "cfr_jps")


def warm_start_policy(tree: GameTree, kind: str, *, depth: int = 3, cfr_iterations: int = 1000,
                      seed: int = 0) -> np.ndarray | None:
  """A good joint policy to start the MIP from, by the warm start `kind`.

  JPS (from uniform, or from the last iterate of `cfr_iterations` of CFR started at a seeded random
  policy); None for kind="none".

  Args:
    tree: the game tree.
    kind: one of `WARM_STARTS`: "none", "jps" or "cfr_jps".
    depth: JPS's search depth.
    cfr_iterations: CFR iterations before JPS ("cfr_jps").
    seed: the seed of CFR's random start.

  Returns:
    A policy array, or None for kind="none".
  """
  if kind not in WARM_STARTS:
    raise ValueError(f"unknown warm start {kind!r}; use one of {WARM_STARTS}")
  if kind == "none":
    return None
  from ospiel_team.algorithms.coop import jps
  from ospiel_team.algorithms.nash import cfr as tree_cfr
  start = None
  if kind == "cfr_jps":
    if cfr_iterations < 1:
      raise ValueError(f"cfr_iterations must be positive, got {cfr_iterations}")
    solver = tree_cfr.TreeCFRSolver(tree, initial_policy=tree_cfr.random_policy_array(tree, seed))
    for _ in range(cfr_iterations):
      solver.evaluate_and_update_policy()
    start = solver.current_policy_array()
  return jps.joint_policy_search(tree, start, depth=depth, seed=seed).policy_array
