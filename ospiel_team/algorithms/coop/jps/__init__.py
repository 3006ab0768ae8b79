"""Joint Policy Search (JPS): exact tabular and sample-based, on the array game tree.

Tian, Gong, Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495 (Sec. 4-6, Algorithm 1).

JPS improves a joint policy by changing it on chains of *active* information sets
I1 -a1-> I2 in succ(I1, a1) -a2-> ... (at most D of them, each set one-hot to its action,
Eq. 6), valued exactly by Theorem 1 (Eq. 4-5) from one sweep over the tree; the best chain is
applied, and "no change" is always a candidate, so no step lowers the value (Theorem 2).

The parts:

* `structure`: the team's infoset structure (team histories, succ(I, a), sequence ancestors),
  computed once per tree and team (`team_structure`).
* `sweep`: one pass over the tree from a policy (`Sweep`: reach, values, J under sigma).
* `search`: one search (`SearchResult`) from one starting depth, level
  by level with a numba kernel (`ChainSearch`).
* `schedule`: JPS-Main, the order of the searches and when to stop (`run_passes`,
  `run_reference`), and the results (`JPSResult`, `JPSIteration`).
* `config`: the validated options (`JPSConfig`).

Teams: the objective is the mean return of the `team` players (the common payoff in a
common-payoff game); only team infosets become active, the other players keep their policy,
and succ(I, a) skips chance and the other players. Theorem 1 holds for any fixed policy of the
others, so the guarantee carries over. A result's `value` follows the package's convention:
the common payoff in a common-payoff game, else the team's summed return.

Example:
  result = JointPolicySearch(tree, depth=3, seed=0).improve(cfr_policy)
  result = JointPolicySearch(tree, config=JPSConfig(depth=3, seed=0)).improve(cfr_policy)
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator

import numpy as np
from open_spiel.python import policy as policy_lib

from ospiel_team import checks
from ospiel_team.algorithms.coop.jps import schedule as schedule_lib
from ospiel_team.algorithms.coop.jps.config import JPSConfig
from ospiel_team.algorithms.coop.jps.schedule import JPSIteration
from ospiel_team.algorithms.coop.jps.schedule import JPSResult
from ospiel_team.algorithms.coop.jps.search import Chain
from ospiel_team.algorithms.coop.jps.search import ChainSearch
from ospiel_team.algorithms.coop.jps.search import Level
from ospiel_team.algorithms.coop.jps.search import SearchResult
from ospiel_team.algorithms.coop.jps.search import apply_chain
from ospiel_team.algorithms.coop.jps.structure import TeamStructure
from ospiel_team.algorithms.coop.jps.structure import team_structure
from ospiel_team.algorithms.coop.jps.sweep import Sweep
from ospiel_team.errors import UserError
from ospiel_team.tree import resolver
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.tree.payoff import is_common_payoff
from ospiel_team.tree.resolver import GameLike

__all__ = ["JointPolicySearch", "JPSConfig", "JPSResult", "JPSIteration", "SearchResult",
           "Sweep", "Level", "ChainSearch", "TeamStructure", "team_structure", "apply_chain",
           "joint_policy_search", "purified_policy_array"]

PolicyLike = np.ndarray | policy_lib.Policy | None


class JointPolicySearch:
  """Joint Policy Search (Algorithm 1 of the JPS paper) for a team on a finite game.

  Args:
    game: a game string, a pyspiel game or an already built `GameTree` (`tree.resolve`).
    config: the options; or pass them as keyword arguments (`JPSConfig`'s fields), not both.
    fixed_policy: policy of the non-team players (array, OpenSpiel policy); by default their
      rows are taken from the policy handed to `improve`.
    **options: `JPSConfig`'s fields, when `config` is None.

  Raises:
    UserError: a bad option (see `JPSConfig`); a team of players the game lacks; no team in a
      game that is not common-payoff; start depths without a team infoset.
  """

  def __init__(self, game: GameLike, config: JPSConfig | None = None, *,
               fixed_policy: PolicyLike = None, **options):
    if config is not None and options:
      raise UserError(f"pass either config or options, not both (got {sorted(options)})")
    config = JPSConfig(**options) if config is None else checks.check_type(
        "config", config, JPSConfig, "a JPSConfig or None")
    self.tree = resolver.resolve(game)
    num_p = self.tree.num_players
    common = is_common_payoff(self.tree)
    team = config.team
    if team is None:
      if not common:
        raise UserError(
            f"{self.tree.game} is not common-payoff (players' returns differ at a terminal); "
            "pass team=[...] (the players JPS optimizes; the others keep fixed_policy)")
      team = tuple(range(num_p))
    if max(team) >= num_p:
      raise UserError(f"team={list(team)} must be distinct players of the {num_p}-player game")
    seed = int(np.random.SeedSequence().entropy) if config.seed is None else config.seed
    # The config with the team and the seed resolved: the run can be repeated from it.
    self.config = dataclasses.replace(config, team=team, seed=seed)
    # A result's value: the common payoff of a common-payoff game, else the team's summed
    # return (the package's value convention); the search maximises the team's mean return.
    self._value_scale = 1 if common else len(team)
    self.structure = team_structure(self.tree, team)
    self.chain_search = ChainSearch(self.tree, self.structure, self.config)
    self._fixed = None if fixed_policy is None else self._as_array(fixed_policy, "fixed_policy")
    depths = self.structure.decision_depths
    if config.start_depths is None:
      self._start_depths = tuple(depths)
    else:
      bad = [d for d in config.start_depths if d not in depths]
      if bad:
        raise UserError(f"start_depths {bad} have no team infoset; available: {depths}")
      self._start_depths = config.start_depths

  @property
  def team(self) -> list[int]:
    """The team's players, sorted."""
    return list(self.config.team)

  @property
  def seed(self) -> int:
    """The seed of `improve` without one (drawn at construction if the config had None)."""
    return self.config.seed

  @property
  def start_depths(self) -> list[int]:
    """The starting depths searched (team decision depths)."""
    return list(self._start_depths)

  def _as_array(self, pol: PolicyLike, name: str) -> np.ndarray:
    """`pol` as a checked policy array of the tree (UserError naming `name`)."""
    tree = self.tree
    if pol is None:
      return tree.uniform_policy_array()
    if isinstance(pol, policy_lib.Policy):
      pi = tree.policy_array(pol)
    else:
      try:
        pi = np.array(pol, dtype=np.float64)
      except (TypeError, ValueError):
        raise UserError(f"{name} must be a policy array or an OpenSpiel policy, got "
                        f"{type(pol).__name__} {pol!r:.80}") from None
    tree.validate_policy_array(pi, name=name)
    return pi

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
    return self.chain_search.objective_values(pi, edge_probs=edge_probs)

  def value(self, pi: np.ndarray) -> float:
    """Objective (team mean return) of the policy array `pi`.

    Args:
      pi: the joint policy array sigma ([num_infosets, num_actions]).

    Returns:
      The team's mean expected return under `pi`.
    """
    return self.chain_search.value(pi)

  def sweep(self, pi: np.ndarray, rng: np.random.Generator | None = None) -> Sweep:
    """The quantities one search needs (reach, values, J(I, a) under sigma = `pi`).

    `search(sweep, depth)` then runs one search; sampled JPS draws its histories with `rng`
    (default: a generator seeded by `seed`).

    Args:
      pi: the joint policy array sigma ([num_infosets, num_actions]).
      rng: the generator sampled JPS draws its histories with (None: seeded by `seed`; unused by
        exact JPS).

    Returns:
      The `Sweep` of `pi`.
    """
    if self.config.samples is not None and rng is None:
      rng = np.random.default_rng(self.seed)
    return self.chain_search.sweep(pi, rng)

  def search(self, sweep: Sweep, start_depth: int,
             rng: np.random.Generator | None = None) -> SearchResult:
    """Algorithm 1's JPS(sigma, I_cand, 1) from `start_depth` (`ChainSearch.search`).

    Args:
      sweep: the `Sweep` of the current policy (`sweep`).
      start_depth: the depth of the team infosets the chains start from (I_cand).
      rng: draws sampled JPS's histories (None: the config's seed).

    Returns:
      The `SearchResult`: the best chain and its predicted gain (Theorem 1).
    """
    return self.chain_search.search(sweep, start_depth, rng=rng)

  def candidates(self, result: SearchResult) -> Iterator[tuple[Chain, float]]:
    """Every candidate chain of a search with its Theorem 1 predicted gain.

    Args:
      result: a `SearchResult` of `search`.

    Yields:
      `(chain, predicted_gain)` for every chain the search valued, level by level.
    """
    return self.chain_search.candidates(result)

  def brute_force_gains(self, pi: np.ndarray, result: SearchResult,
                        limit: int | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(predicted, brute-force, seconds) gains of the search's candidates (the first `limit`).

    Args:
      pi: the policy array the search started from.
      result: a `SearchResult` of `search`.
      limit: value only the first `limit` candidates (None: all).

    Returns:
      `(predicted, brute_force, seconds)`: the candidates' Theorem 1 gains, their gains by re-
        evaluating the changed policy, and the seconds the re-evaluations took.
    """
    return self.chain_search.brute_force_gains(pi, result, limit)

  apply_chain = staticmethod(apply_chain)

  def reference_start_depths(self) -> list[int]:
    """The starting depths of the authors' code for `depth`.

    As in facebookresearch/jps, `Solver::runSearch`: the first team decision level only
    without a depth; with a depth D, every level that has at least D - 1 levels below it
    (levels 0 .. L - D of L levels).

    Returns:
      The tree depths to start searches from, in increasing order.
    """
    levels = self.structure.decision_depths
    if self.config.depth is None:
      return levels[:1]
    keep = [d for d in levels if d <= levels[-1] + 1 - self.config.depth]
    return keep or levels[:1]

  def improve(self, initial_policy: PolicyLike = None, seed: int | None = None) -> JPSResult:
    """Runs JPS-Main (Algorithm 1) from `initial_policy` (default uniform).

    Args:
      initial_policy: the starting policy (array on the tree, OpenSpiel policy, or None for
        uniform).
      seed: seeds this run's generator (an int >= 0; default: the config's `seed`). Runs of
        one `JointPolicySearch` from many policies share the searches' kept index arrays,
        and each equals the run of a fresh `JointPolicySearch(..., seed=seed)`.

    Returns:
      The improved policy, its value and the iterations.

    Raises:
      UserError: a bad seed.
      ValueError: a policy that is not a valid policy of the tree.
    """
    t_start = time.perf_counter()
    pi = self._as_array(initial_policy, "initial_policy")
    if self._fixed is not None:
      others = ~np.isin(self.tree.infoset_player, self.team)
      pi[others] = self._fixed[others]
    rng = np.random.default_rng(
        self.seed if seed is None else checks.check_int("seed", seed, minimum=0))
    run = schedule_lib.Run(search=self.chain_search, start_depths=self._start_depths,
                           value_scale=self._value_scale, t_start=t_start)
    if self.config.schedule == "reference":
      return schedule_lib.run_reference(run, pi, rng)
    return schedule_lib.run_passes(run, pi, rng)


def joint_policy_search(game: GameLike, initial_policy: PolicyLike = None,
                        **options) -> JPSResult:
  """Functional form: `JointPolicySearch(game, **options).improve(initial_policy)`.

  Args:
    game: a game string, pyspiel game or `GameTree`.
    initial_policy: the policy to improve (None: `improve`'s default).
    **options: `JointPolicySearch`'s options (`JPSConfig` fields, `team`, `config`).

  Returns:
    The `JPSResult` of `improve`.
  """
  return JointPolicySearch(game, **options).improve(initial_policy)


def purified_policy_array(tree: GameTree, pi: np.ndarray) -> np.ndarray:
  """The argmax (first maximal legal action) policy of `pi` (the paper's "purified" CFR).

  Args:
    tree: the array game tree.
    pi: [num_infosets, num_actions] policy array.

  Returns:
    The one-hot policy array at each infoset's first maximal legal action.

  Raises:
    UserError: `tree` is not a GameTree or `pi` not a policy array of it (named).
  """
  checks.check_tree("tree", tree)
  tree.validate_policy_array(pi, name="pi")
  return tree.purified_policy_array(pi)
