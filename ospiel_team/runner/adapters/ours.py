"""Runner adapters for this package's algorithms: JPS, CFR+ then JPS, ED, neural ED, team LP.

The algorithm modules (`ospiel_team.algorithms.*`) know nothing of the runner; each adapter
here drives one of them through the runner's `SolverContext` (see `api`).
"""

from __future__ import annotations

from collections.abc import Iterator

from ospiel_team.runner import api
from ospiel_team.runner.adapters import openspiel as openspiel_adapters
from ospiel_team.runner.api import Snapshot, SolverContext

_JPS_OPTIONS = {"jps.depth": 0, "jps.samples": 0, "jps.max_iterations": 0, "jps.seed": -1}


def _jps(ctx: SolverContext, pi):
  """Joint Policy Search from the policy array `pi` with the jps.* options."""
  from ospiel_team.algorithms.coop import jps  #
  seed = ctx.option("jps.seed", -1, int)
  team = None if ctx.teams is None else list(ctx.teams.teams[0])
  search = jps.JointPolicySearch(
      ctx.tree, team=team, depth=ctx.option("jps.depth", 0, int) or None,
      samples=ctx.option("jps.samples", 0, int) or None,
      seed=ctx.seed if seed < 0 else seed,
      max_iterations=ctx.option("jps.max_iterations", 0, int) or None)
  result = search.improve(pi)
  # JPS's objective is the team's mean return; the runner's team_value is the members' sum.
  return result, {"jps_iterations": float(len(result.history)),
                  "jps_seconds": float(result.seconds),
                  "jps_start_value": float(result.initial_value) * len(search.team)}


@api.solver("jps", unit="one vectorized CFR iteration; JPS runs once after the last one",
            options=_JPS_OPTIONS)
def jps_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """CFR (`tree_cfr`, OpenSpiel's algorithm vectorized) from a random policy seeded by
  `ctx.seed`, then Joint Policy Search (Tian et al. 2020, "Joint Policy Search for
  Multi-agent Collaboration with Imperfect Information", NeurIPS 2020, arXiv 2008.06495) from
  CFR's current (last-iterate) policy after the last iteration, as the variant "jps".

  Options: jps.depth (0 = to the end of the game), jps.samples (0 = exact),
  jps.max_iterations (0 = no limit), jps.seed (-1 = the run's seed).
  """
  from ospiel_team.algorithms.nash import cfr as tree_cfr  #
  tree = ctx.tree
  solver = tree_cfr.TreeCFRSolver(
      tree, initial_policy=tree_cfr.random_policy_array(tree, ctx.seed))
  for it in ctx.iterate():
    solver.evaluate_and_update_policy()
    if not ctx.is_checkpoint(it):
      continue
    policies = {"average": solver.average_policy_array(),
                "current": solver.current_policy_array()}
    extra = {}
    if ctx.budget_spent(it):
      result, extra = _jps(ctx, policies["current"])
      policies["jps"] = result.policy_array
    yield Snapshot(it, policies, extra)


@api.solver("cfr+jps", unit="one CFR+ iteration (OpenSpiel); JPS time is excluded, reported "
            "as jps_seconds", options=_JPS_OPTIONS)
def cfr_plus_jps_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """OpenSpiel's CFR+ with Joint Policy Search applied to its current policy at every
  checkpoint (variant "jps"): JPS as a booster of CFR+ (the JPS paper's CFR1k+JPS, Tian et
  al. 2020, arXiv 2008.06495). JPS's own time is excluded from the CFR+ budget and reported
  apart. Options as for `jps`.
  """
  from open_spiel.python.algorithms import cfr  #
  solver = cfr.CFRPlusSolver(ctx.game)
  for it in ctx.iterate():
    solver.evaluate_and_update_policy()
    if ctx.is_checkpoint(it):
      policies = openspiel_adapters.cfr_policies(ctx, solver)
      with ctx.excluded("jps"):
        result, extra = _jps(ctx, policies["current"])
      policies["jps"] = result.policy_array
      yield Snapshot(it, policies, extra)


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
                     "ed.projection": "softmax", "ed.values": "q"}, primary="current")
def ed_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Tabular Exploitability Descent (Lockhart et al. 2019, "Computing Approximate
  Equilibria in Sequential Adversarial Games by Exploitability Descent", IJCAI 2019,
  arXiv 1903.05614); JIT compilation is excluded from the budget.

  Options: ed.lr (1.0), ed.schedule ("constant"), ed.optimizer ("sgd"),
  ed.projection ("softmax" or "l2"), ed.values ("q" or "counterfactual", for l2).
  """
  from ospiel_team.algorithms.nash import exploitability_descent as ed  #
  solver = ed.TabularEDSolver(
      ctx.game, learning_rate=ctx.option("ed.lr", 1.0),
      optimizer=ctx.option("ed.optimizer", "sgd"),
      lr_schedule=ctx.option("ed.schedule", "constant"),
      projection=ctx.option("ed.projection", "softmax"),
      values=ctx.option("ed.values", "q"), tree=ctx.tree)
  return _ed_snapshots(ctx, solver)


@api.solver("neural_ed", unit="one jitted neural ED step",
            options={"neural_ed.hidden": "64", "neural_ed.lr": 0.1,
                     "neural_ed.schedule": "inverse_sqrt", "neural_ed.l2": 1e-3,
                     "neural_ed.optimizer": "sgd"}, primary="current")
def neural_ed_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """Neural Exploitability Descent (Lockhart et al. 2019, arXiv 1903.05614, Section 5).

  Options: neural_ed.hidden ("64", or "128x128" for two layers), neural_ed.lr (0.1),
  neural_ed.schedule ("inverse_sqrt"), neural_ed.l2 (1e-3), neural_ed.optimizer ("sgd").
  """
  from ospiel_team.algorithms.nash import exploitability_descent as ed  #
  solver = ed.NeuralEDSolver(
      ctx.game, hidden_layers=_hidden(ctx.option("neural_ed.hidden", "64")),
      init_lr=ctx.option("neural_ed.lr", 0.1),
      lr_schedule=ctx.option("neural_ed.schedule", "inverse_sqrt"),
      l2=ctx.option("neural_ed.l2", 1e-3),
      optimizer=ctx.option("neural_ed.optimizer", "sgd"), seed=ctx.seed, tree=ctx.tree)
  return _ed_snapshots(ctx, solver)


@api.solver("team_lp", unit="one exact LP solve (a single snapshot)",
            options={"team_lp.teams": ""})
def team_lp_solver(ctx: SolverContext) -> Iterator[Snapshot]:
  """The TMECor of a two-team zero-sum game by the team-public-information LP (Zhang, Farina
  and Sandholm 2023, "Team Belief DAG: Generalizing the Sequence Form to Team Games for Fast
  Computation of Correlated Team Max-Min Equilibria via Regret Minimization", ICML 2023,
  arXiv 2210.05170), as one snapshot.

  A correlated plan is not a per-player policy, so the snapshot gives two views of it:
  "average" = each player's behaviour strategy induced by its team's plan (exact for one-player
  teams, correlation dropped otherwise) and "sampled" = one joint pure strategy per team drawn
  from the plans (seeded). The extra field `tmecor_value` holds the exact TMECor value (the sum
  of team 1's members' expected returns). Teams: `--teams`, else option team_lp.teams, else
  `teams.default_teams`.
  """
  #
  from ospiel_team.algorithms.team import lp as team_lp
  from ospiel_team.algorithms.team import teams as teams_lib
  # pylint: enable=g-import-not-at-top
  teams = ctx.teams or ctx.option("team_lp.teams", "") or teams_lib.default_teams(ctx.game)
  res = team_lp.solve(ctx.tree, teams)
  sampled = res.profile_policy(rng=ctx.seed)
  marginal = ctx.tree.uniform_policy_array()
  for plan in res.plans:
    marginal = plan.marginal_policy_array(base=marginal)
  for it in ctx.iterate():  # one iteration: the LP is exact
    yield Snapshot(iteration=it, policies={"average": marginal, "sampled": sampled},
                   extra=dict(tmecor_value=res.value, lp_nonzeros=res.lp_nonzeros,
                              lp_solve_seconds=res.solve_seconds))
    break
