"""Exact optima of cooperative games: LP, MIP and brute force agree; the policy confirms it."""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.cli import coop_optimum as coop_optimum_cli
from ospiel_team.lp import plan_mip
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree


def _openspiel_value(game_string, policy):
  from open_spiel.python.algorithms import expected_game_score
  game = pyspiel.load_game(game_string)
  return expected_game_score.policy_value(game.new_initial_state(),
                                          [policy] * game.num_players())[0]


def _check_policy(res, game_string):
  """The returned TabularPolicy has the reported value, by two independent evaluations."""
  tree = GameTree(pyspiel.load_game(game_string))
  pi = tree.policy_array(res.policy)
  tree.validate_policy_array(pi)
  assert np.all((pi == 0) | (pi == 1))  # a joint pure strategy
  v = evaluation.game_value(tree, pi)
  assert float(np.mean(v)) == pytest.approx(res.value, abs=1e-9)
  assert _openspiel_value(game_string, res.policy) == pytest.approx(res.value, abs=1e-9)


@pytest.mark.parametrize("game", ["tiny_hanabi", "simple_bidding(size=2)", "comm(length=1)"])
def test_lp_mip_and_brute_force_agree(game):
  values = {}
  for method in ("lp", "mip", "brute_force"):
    res = coop_optimum.solve(game, method=method)
    assert res.proven_optimal and res.gap == 0.0
    assert res.method == method
    _check_policy(res, game)
    values[method] = res.value
  assert values["lp"] == pytest.approx(values["brute_force"], abs=1e-9)
  assert values["mip"] == pytest.approx(values["brute_force"], abs=1e-9)


def test_tiny_hanabi_known_optimum():
  # OpenSpiel's tiny_hanabi is the matrix game of Foerster et al. (2019), optimum 10.
  res = coop_optimum.solve("tiny_hanabi")
  assert res.value == pytest.approx(10.0)  # the common payoff, not the two members' sum
  assert res.summary()["value"] == pytest.approx(10.0) and "team_value" not in res.summary()


@pytest.mark.parametrize("length", [1, 2, 3])
def test_comm_optimum_is_one(length):
  # Closed form: P1 sends the L bits of s1 and P2 decodes them, so the common reward is 1.
  for method in ("mip", "lp") if length < 3 else ("mip",):
    res = coop_optimum.solve(f"comm(length={length})", method=method)
    assert res.value == pytest.approx(1.0)
    _check_policy(res, f"comm(length={length})")


@pytest.mark.parametrize("game", ["tiny_hanabi", "simple_bidding(size=4)"])
def test_mip_matches_brute_force_on_random_weights(game):
  """Both MIP formulations, weights of both signs, equal enumeration."""
  tree = GameTree(pyspiel.load_game(game))
  rng = np.random.default_rng(0)
  for _ in range(5):
    w = rng.normal(size=len(tree.terminals))
    b = plan_mip.brute_force_best_joint(tree, [0, 1], w)
    for formulation in ("flow", "mccormick"):
      a = plan_mip.best_joint_pure_strategy_mip(tree, [0, 1], w, formulation=formulation)
      assert a.value == pytest.approx(b.value, abs=1e-9)
      assert a.proven_optimal


def test_bad_method():
  with pytest.raises(ValueError, match="'nope'"):
    coop_optimum.solve("tiny_hanabi", method="nope")


@pytest.mark.slow
def test_mini_bridge_3_lp_and_mip():  # about 40 s
  a = coop_optimum.solve("mini_bridge(size=3)", method="lp")
  b = coop_optimum.solve("mini_bridge(size=3)", method="mip")
  assert a.value == pytest.approx(b.value, abs=1e-9)
  _check_policy(a, "mini_bridge(size=3)")
  _check_policy(b, "mini_bridge(size=3)")


def test_mip_warm_start_is_the_first_incumbent():
  """Stopped almost at once, the warm-started MIP still returns a strategy worth at least the
  (purified) initial policy, whose value OpenSpiel computes independently; without the warm
  start HiGHS has no strategy yet. Given time, it reaches the same optimum as without it."""
  from open_spiel.python.algorithms import expected_game_score
  game_string = "mini_bridge(size=3)"
  game = pyspiel.load_game(game_string)
  tree = GameTree(game)
  rng = np.random.default_rng(3)
  start = rng.random((tree.num_infosets, tree.num_actions)) * tree.infoset_legal
  pure = np.zeros_like(start)
  pure[np.arange(tree.num_infosets), np.argmax(np.where(tree.infoset_legal, start, -1), 1)] = 1
  start_value = expected_game_score.policy_value(
      game.new_initial_state(), [tree.tabular_policy(pure)] * 2)[0]
  res = coop_optimum.solve(tree, method="mip", time_limit=1e-3, initial_policy=start)
  assert res.details["initial_value"] == pytest.approx(start_value, abs=1e-12)
  assert res.value >= start_value - 1e-12
  _check_policy(res, game_string)
  with pytest.raises(RuntimeError, match="no feasible"):
    coop_optimum.solve(tree, method="mip", time_limit=1e-3)
  full = coop_optimum.solve(tree, method="mip", initial_policy=start)
  cold = coop_optimum.solve(tree, method="mip")
  # 1.125: the team LP finds the same optimum (the slow test_mini_bridge_3_lp_and_mip).
  assert full.proven_optimal and cold.proven_optimal
  assert full.value == pytest.approx(cold.value, abs=1e-9)
  assert full.value == pytest.approx(1.125, abs=1e-9)


def test_warm_start_bad_input():
  tree = GameTree(pyspiel.load_game("simple_bidding(size=4)"))
  with pytest.raises(ValueError, match="shape"):
    coop_optimum.solve(tree, method="mip", initial_policy=np.ones((3, 3)))
  with pytest.raises(ValueError, match="'cfr'"):
    coop_optimum.warm_start_policy(tree, "cfr")
  with pytest.raises(ValueError, match="formulation='flow'"):
    plan_mip.best_joint_pure_strategy_mip(
        tree, [0, 1], coop_optimum.team_weights(tree, [0, 1]), formulation="mccormick",
        initial_strategy={})
  with pytest.raises(ValueError, match="legal action"):
    plan_mip.best_joint_pure_strategy_mip(
        tree, [0, 1], coop_optimum.team_weights(tree, [0, 1]), initial_strategy={})
  with pytest.raises(ValueError, match="cfr_iterations"):
    coop_optimum.warm_start_policy(tree, "cfr_jps", cfr_iterations=0)
  pi = coop_optimum.warm_start_policy(tree, "cfr_jps", cfr_iterations=20)
  tree.validate_policy_array(pi)


def test_not_common_payoff_and_negative_time_limit_are_errors():
  """Issue 15: kuhn_poker used to give "value 0.0, proven optimal True"."""
  with pytest.raises(ValueError, match=r"kuhn_poker\(\) is not a common-payoff"):
    coop_optimum.solve("kuhn_poker")
  with pytest.raises(ValueError, match="time_limit must be a finite number >= 0 or None, got -1"):
    coop_optimum.solve("tiny_hanabi", time_limit=-1)


@pytest.mark.parametrize("args,needle", [
    (["--game", "kuhn_poker"], "kuhn_poker() is not a common-payoff"),
    (["--game", "tiny_hanabi", "--time_limit", "-1"], "time_limit=-1"),
    (["--game", "tiny_hanabi", "--method", "nope"], "'nope'"),
])
def test_cli_user_errors_are_one_line(args, needle):
  import contextlib
  import io
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    rc = coop_optimum_cli.main(["coop_optimum"] + args)
  assert rc == 2 and out.getvalue() == ""
  assert needle in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
