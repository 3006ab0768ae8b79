"""Runner adapters for this package's algorithms.

The algorithms: JPS, CFR+ then JPS, CFR+, DCFR, PCFR+, PDCFR+ (the last four on the array tree), ED,
neural ED, team LP.

The algorithm modules (`ospiel_team.algorithms.*`) know nothing of the runner; each adapter
here drives one of them through the runner's `SolverContext` (see `api`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pyspiel

from ospiel_team import checks
from ospiel_team.runner import api
from ospiel_team.runner.adapters import openspiel as openspiel_adapters
from ospiel_team.runner.api import Snapshot
from ospiel_team.runner.api import SolverContext

_JPS_OPTIONS = {"jps.depth": 0, "jps.samples": 0, "jps.max_iterations": 0, "jps.seed": -1}


def _check_jps(game, teams) -> str | None:
  """Why JPS cannot run on `game` with `teams` (None if it can)."""
  if teams is None and game.get_type().utility != pyspiel.GameType.Utility.IDENTICAL:
    return ("needs a common-payoff game, or --teams naming the team it improves (team 1)")
  return None


def _check_jps_options(options: dict[str, str]) -> str | None:
  """Why the jps.* option values are invalid (None if they are valid)."""
  for name in ("jps.depth", "jps.samples", "jps.max_iterations"):
    if name in options and int(options[name]) < 0:
      return f"{name}={options[name]} must be >= 0 (0: {_JPS_ZERO[name]})"
  if "jps.seed" in options and int(options["jps.seed"]) < -1:
    return f"jps.seed={options['jps.seed']} must be >= -1 (-1: the run's seed)"
  return None


_JPS_ZERO = {"jps.depth": "to the end of the game", "jps.samples": "exact JPS",
             "jps.max_iterations": "no limit"}


def _jps(ctx: SolverContext, pi):
  """Joint Policy Search from the policy array `pi` with the jps.* options."""
  from ospiel_team.algorithms.coop import jps
  seed = ctx.option("jps.seed", -1, int)
  team = None if ctx.teams is None else list(ctx.teams.teams[0])
  search = jps.JointPolicySearch(
      ctx.tree, team=team, depth=ctx.option("jps.depth", 0, int) or None,
      samples=ctx.option("jps.samples", 0, int) or None,
      seed=ctx.seed if seed < 0 else seed,
      max_iterations=ctx.option("jps.max_iterations", 0, int) or None)
  result = search.improve(pi)
  # `value` and `initial_value` follow the package's convention, as the runner's `value` metric.
  return result, {"jps_iterations": float(len(result.history)),
                  "jps_seconds": float(result.seconds),
                  "jps_start_value": float(result.initial_value)}


def _with_jps(ctx: SolverContext, step, policies) -> Iterator[Snapshot]:
  """Runs `step()` per iteration; at every checkpoint JPS improves the current policy.

  JPS's CPU time is the solver's own (charged to the budget like every solver's work); the
  snapshot holds CFR's "average" and "current" policies and the judged "jps" variant.
  """
  for it in ctx.iterate():
    step()
    if ctx.is_checkpoint(it):
      snap = policies()
      result, extra = _jps(ctx, snap["current"])
      snap["jps"] = result.policy_array
      yield Snapshot(it, snap, extra)


@api.solver("jps", unit="one vectorized CFR iteration; JPS from the current policy at every "
            "checkpoint, its time charged", options=_JPS_OPTIONS, primary="jps",
            check=_check_jps, check_options=_check_jps_options, seeded=True)
def jps_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs CFR with Joint Policy Search applied to its policy at every checkpoint.

  CFR (`tree_cfr`, OpenSpiel's algorithm vectorized) from a random policy seeded by
  `ctx.seed`; at every checkpoint Joint Policy Search (Tian et al. 2020, "Joint Policy Search
  for Multi-agent Collaboration with Imperfect Information", NeurIPS 2020, arXiv 2008.06495,
  Algorithm 1) improves CFR's current (last-iterate) policy: the variant "jps", by which the
  solver is judged.

  Options: jps.depth (0 = to the end of the game), jps.samples (0 = exact),
  jps.max_iterations (0 = no limit), jps.seed (-1 = the run's seed).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from ospiel_team.algorithms.nash import cfr as tree_cfr
  tree = ctx.tree
  with ctx.excluded("setup"):
    solver = tree_cfr.TreeCFRSolver(
        tree, initial_policy=tree_cfr.random_policy_array(tree, ctx.seed))

  def policies():
    with ctx.excluded("snapshot"):
      return {"average": solver.average_policy_array(),
              "current": solver.current_policy_array()}
  return _with_jps(ctx, solver.evaluate_and_update_policy, policies)


@api.solver("cfr+jps", unit="one CFR+ iteration (OpenSpiel); JPS from the current policy at "
            "every checkpoint, its time charged", options=_JPS_OPTIONS, primary="jps",
            check=_check_jps, check_options=_check_jps_options, seeded=True)
def cfr_plus_jps_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs OpenSpiel's CFR+ with Joint Policy Search applied at every checkpoint.

  OpenSpiel's CFR+ with Joint Policy Search applied to its current policy at every
  checkpoint (variant "jps", by which it is judged): JPS as a booster of CFR+ (the JPS paper's
  CFR1k+JPS, Tian et al. 2020, arXiv 2008.06495). Options as for `jps`.

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from open_spiel.python.algorithms import cfr
  with ctx.excluded("setup"):
    solver = cfr.CFRPlusSolver(ctx.game)
  return _with_jps(ctx, solver.evaluate_and_update_policy,
                   lambda: openspiel_adapters.cfr_policies(ctx, solver))


def _tree_cfr_family(ctx: SolverContext, make) -> Iterator[Snapshot]:
  """Runs the iterations of a tree CFR solver built by `make` on the runner's tree.

  Runs `make(tree)`'s iterations on the runner's tree; the numba kernels' compile (or cache
  load), done by one iteration of a throwaway solver, is excluded from the budget as "jit".
  """
  with ctx.excluded("jit"):
    make(ctx.tree).evaluate_and_update_policy()
  solver = make(ctx.tree)
  for it in ctx.iterate():
    solver.evaluate_and_update_policy()
    if ctx.is_checkpoint(it):
      with ctx.excluded("snapshot"):
        snap = {"average": solver.average_policy_array(),
                "current": solver.current_policy_array()}
      yield Snapshot(it, snap)


@api.solver("tree_cfr_plus", unit="one CFR+ iteration on the array tree (ours, numba; JIT "
            "excluded): OpenSpiel's CFR+ step for step")
def tree_cfr_plus_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs the package's CFR+ on the array tree (`cfr.TreeCFRPlusSolver`).

  The package's CFR+ (`cfr.TreeCFRPlusSolver`: regret matching+, alternating updates,
  linear averaging, as OpenSpiel's `cfr.CFRPlusSolver`, which `cfr_plus` runs), on the array
  tree with the numba kernels of `dcfr`, `pcfr_plus` and `pdcfr_plus`: beside those, a
  comparison of algorithms, not of implementations.

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from ospiel_team.algorithms.nash import cfr as tree_cfr
  return _tree_cfr_family(ctx, tree_cfr.TreeCFRPlusSolver)


def _check_exponent_options(options: dict[str, str]) -> str | None:
  """Why the exponent options (dcfr.alpha, pdcfr_plus.gamma, ...) are invalid, or None.

  Each must lie in its range of `cfr.EXPONENT_RANGES`, as the solver's constructor checks, so
  that a bad value is refused before any run starts.
  """
  from ospiel_team import errors
  from ospiel_team.algorithms.nash import cfr as tree_cfr
  for key, value in options.items():
    try:
      tree_cfr.check_exponents(**{key.split(".", 1)[1]: float(value)})
    except errors.UserError as e:
      return f"{key}={value}: {e}"
  return None


@api.solver("dcfr", unit="one DCFR iteration on the array tree (numba; JIT excluded)",
            options={"dcfr.alpha": 1.5, "dcfr.beta": 0.0, "dcfr.gamma": 2.0},
            check_options=_check_exponent_options)
def dcfr_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs Discounted CFR on the array tree (`cfr.TreeDCFRSolver`).

  Discounted CFR (Brown & Sandholm 2019, "Solving Imperfect-Information Games via
  Discounted Regret Minimization", AAAI 2019, arXiv 1809.04040), `cfr.TreeDCFRSolver`.

  Options: dcfr.alpha (1.5), dcfr.beta (0), dcfr.gamma (2): the paper's DCFR_{3/2,0,2}; alpha
  and gamma from 0 to 10, beta from -10 to 10 (`cfr.EXPONENT_RANGES`).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from ospiel_team.algorithms.nash import cfr as tree_cfr
  return _tree_cfr_family(ctx, lambda tree: tree_cfr.TreeDCFRSolver(
      tree, alpha=ctx.option("dcfr.alpha", 1.5), beta=ctx.option("dcfr.beta", 0.0),
      gamma=ctx.option("dcfr.gamma", 2.0)))


@api.solver("pcfr_plus", unit="one predictive CFR+ iteration on the array tree (numba; JIT "
            "excluded)", options={"pcfr_plus.gamma": 2.0},
            check_options=_check_exponent_options)
def pcfr_plus_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs Predictive CFR+ on the array tree (`cfr.TreePCFRPlusSolver`).

  Predictive CFR+ (Farina, Kroer & Sandholm 2021, "Faster Game Solving via Predictive
  Blackwell Approachability", AAAI 2021, arXiv 2007.14358), `cfr.TreePCFRPlusSolver`.

  Options: pcfr_plus.gamma (2: quadratic averaging), from 0 to 10.

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from ospiel_team.algorithms.nash import cfr as tree_cfr
  return _tree_cfr_family(ctx, lambda tree: tree_cfr.TreePCFRPlusSolver(
      tree, gamma=ctx.option("pcfr_plus.gamma", 2.0)))


@api.solver("pdcfr_plus", unit="one PDCFR+ iteration on the array tree (numba; JIT excluded)",
            options={"pdcfr_plus.alpha": 2.3, "pdcfr_plus.gamma": 5.0},
            check_options=_check_exponent_options)
def pdcfr_plus_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs Predictive discounted CFR+ on the array tree (`cfr.TreePDCFRPlusSolver`).

  Predictive discounted CFR+ (Xu et al. 2024, "Minimizing Weighted Counterfactual Regret
  with Optimistic Online Mirror Descent", IJCAI 2024, arXiv 2404.13891),
  `cfr.TreePDCFRPlusSolver`.

  Options: pdcfr_plus.alpha (2.3), pdcfr_plus.gamma (5), the paper's; each from 0 to 10.

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from ospiel_team.algorithms.nash import cfr as tree_cfr
  return _tree_cfr_family(ctx, lambda tree: tree_cfr.TreePDCFRPlusSolver(
      tree, alpha=ctx.option("pdcfr_plus.alpha", 2.3),
      gamma=ctx.option("pdcfr_plus.gamma", 5.0)))


def _ed_snapshots(ctx: SolverContext, solver) -> Iterator[Snapshot]:
  with ctx.excluded("jit"):
    compile_seconds = solver.warm_up()
  for it in ctx.iterate():
    nash_conv_before = solver.step()
    if ctx.is_checkpoint(it):
      # ED's policy is its current one; there is no average to keep.
      yield Snapshot(it, {"current": solver.current_policy_array()},
                     extra={"nash_conv_before_step": nash_conv_before,
                            "compile_seconds": compile_seconds,
                            "compile_cpu_seconds": solver.warm_up_cpu_seconds})


def _hidden(text: str) -> tuple[int, ...]:
  parts = [t for t in str(text).replace(":", "x").split("x") if t]
  try:
    return tuple(int(t) for t in parts)
  except ValueError as e:
    raise ValueError(f"neural_ed.hidden must look like '64' or '128x128', got {text!r}") from e


@api.solver("ed", unit="one jitted ED step (exact gradient on the whole tree)",
            options={"ed.lr": 1.0, "ed.schedule": "constant", "ed.optimizer": "sgd",
                     "ed.projection": "softmax", "ed.values": "q"}, primary="current",
            check_options=api.options_checker({"ed.lr": checks.Real(above=0)}))
def ed_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Runs tabular Exploitability Descent.

  Tabular Exploitability Descent (Lockhart et al. 2019, "Computing Approximate
  Equilibria in Sequential Adversarial Games by Exploitability Descent", IJCAI 2019,
  arXiv 1903.05614); JIT compilation is excluded from the budget.

  Options: ed.lr (1.0), ed.schedule ("constant"), ed.optimizer ("sgd"): the class's defaults,
  chosen by `benchmarks/ed_defaults.py`; ed.projection ("softmax" or "l2"), ed.values ("q" or
  "counterfactual", for l2).

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from ospiel_team.algorithms.nash import exploitability_descent as ed
  solver = ed.TabularEDSolver(
      ctx.game, learning_rate=ctx.option("ed.lr", 1.0),
      optimizer=ctx.option("ed.optimizer", "sgd"),
      lr_schedule=ctx.option("ed.schedule", "constant"),
      projection=ctx.option("ed.projection", "softmax"),
      values=ctx.option("ed.values", "q"), tree=ctx.tree)
  return _ed_snapshots(ctx, solver)


@api.solver("neural_ed", unit="one jitted neural ED step", seeded=True,
            options={"neural_ed.hidden": "64", "neural_ed.lr": 0.003,
                     "neural_ed.schedule": "constant", "neural_ed.l2": 1e-3,
                     "neural_ed.optimizer": "adam"}, primary="current",
            check_options=api.options_checker({"neural_ed.lr": checks.Real(above=0),
                                               "neural_ed.l2": checks.Real(minimum=0)}))
def neural_ed_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Neural Exploitability Descent (Lockhart et al. 2019, arXiv 1903.05614, Section 5).

  Options: neural_ed.hidden ("64", or "128x128" for two layers), neural_ed.lr (0.003),
  neural_ed.schedule ("constant"), neural_ed.l2 (1e-3), neural_ed.optimizer ("adam"): the
  class's defaults, chosen by `benchmarks/ed_defaults.py`.

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    A `Snapshot` (the policy arrays by variant) at each of the context's checkpoints.
  """
  from ospiel_team.algorithms.nash import exploitability_descent as ed
  solver = ed.NeuralEDSolver(
      ctx.game, hidden_layers=_hidden(ctx.option("neural_ed.hidden", "64")),
      learning_rate=ctx.option("neural_ed.lr", 0.003),
      lr_schedule=ctx.option("neural_ed.schedule", "constant"),
      l2=ctx.option("neural_ed.l2", 1e-3),
      optimizer=ctx.option("neural_ed.optimizer", "adam"), seed=ctx.seed, tree=ctx.tree)
  return _ed_snapshots(ctx, solver)


def _check_team_lp(game, teams) -> str | None:
  """Why the team LP cannot run on `game` (None if it can)."""
  del teams
  if game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL:
    return ("solves two-team zero-sum games; for a common-payoff game use "
            "ospiel-team-coop-optimum (the reference line is its optimum)")
  return None


@api.solver("team_lp", unit="one exact LP solve (a single snapshot)",
            options={"team_lp.teams": ""}, check=_check_team_lp, seeded=True)
def team_lp_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Solves a two-team zero-sum game's TMECor by the team solvers' default path.

  The TMECor of a two-team zero-sum game by the team solvers' default path
  (`algorithms.team.solve(method="auto")`, the answer `ospiel-team-solve` prints): the
  tree-decomposition LP of Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum
  Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284, or, for larger
  games, that LP restricted to the support found on the team belief DAG (Zhang, Farina &
  Sandholm, ICML 2023, arXiv:2202.00789), both exact, as one snapshot.

  A correlated plan is not a per-player policy, so the snapshot gives two views of it:
  "average" = each player's behaviour strategy induced by its team's plan (exact for one-player
  teams, correlation dropped otherwise) and "sampled" = one joint pure strategy per team drawn
  from the plans (seeded). The extra field `tmecor_value` holds the TMECor value (the sum of
  team 1's members' expected returns), `tmecor_method` the method that gave it. Teams:
  `--teams`, else option team_lp.teams, else `teams.default_teams`. A game for which the
  default path answers without plans (column generation or the belief DAG alone, on games
  whose LP is not built) is an error naming the method.

  Args:
    ctx: the run's `SolverContext` (game, tree, budget, options, seed).

  Yields:
    One `Snapshot` of the solution's policy arrays.
  """
  from ospiel_team.algorithms.team import solve
  from ospiel_team.tree import teams as teams_lib
  teams = ctx.teams or ctx.option("team_lp.teams", "") or teams_lib.default_teams(ctx.game)
  res = solve(ctx.tree, teams)
  if res.plans is None:
    raise ValueError(f"team_lp: the default path answered {ctx.game} by {res.method!r}, which "
                     "gives no correlated plans (its value and bracket: ospiel-team-solve)")
  sampled = ctx.tree.uniform_policy_array()
  for plan in res.plans:
    sampled = plan.sample_policy_array(base=sampled, rng=ctx.seed)
  marginal = ctx.tree.uniform_policy_array()
  for plan in res.plans:
    marginal = plan.marginal_policy_array(base=marginal)
  for it in ctx.iterate():  # one iteration: the answer is exact
    yield Snapshot(iteration=it, policies={"average": marginal, "sampled": sampled},
                   extra=dict(tmecor_value=res.value, tmecor_method=res.method,
                              tmecor_exact=res.exact, seconds=round(res.seconds, 4)))
    break
