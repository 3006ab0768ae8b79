"""The team belief DAG solver (`team_belief_dag.py`).

Its exact best responses are checked against two independent exact methods (the LP over the
team's tree-decomposition polytope and the flow MIP / brute force), its flows against the
decomposition's constraint system, and its certified brackets against the team LP's value and
against independent best responses to the plans it returns.
"""

import json

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import solver as team_solve
from ospiel_team.algorithms.team import team_lp
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.lp import plan_mip
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from tests.algorithms.team.test_solve import _cli


@pytest.mark.parametrize("game,members", [
    ("team_kuhn(players=3,ranks=3)", [0, 1]),
    ("kuhn_poker(players=3)", [0, 2]),
    ("kuhn_poker(players=4)", [2, 3]),
    ("team_liars_dice(players=3,sides=2,bidding_rule=reset-quantity,wild=False)", [0, 1]),
    ("kuhn_poker(players=3)", [1]),
])
def test_dag_best_response_is_exact(game, members):
  tree = GameTree(pyspiel.load_game(game))
  dec = TeamDecomposition(tree, members)
  dag = team_belief_dag.BeliefDAG(dec)
  d_mat, rhs = dec.constraint_system()
  rng = np.random.default_rng(7)
  for _ in range(3):
    w = rng.normal(size=len(tree.terminals))
    leaf_grad = np.bincount(dec.terminal_leaf, weights=w, minlength=dec.num_leaves)
    value, lam = dag.best_response(leaf_grad)
    # An exact team best response computed two other ways.
    assert value == pytest.approx(
        team_best_response.team_best_response_lp(tree, members, w).value, abs=1e-9)
    if len(members) > 1:
      assert value == pytest.approx(
          plan_mip.best_joint_pure_strategy_mip(tree, members, w).value, abs=1e-8)
    else:
      assert value == pytest.approx(
          team_best_response.single_player_best_response_value(tree, members[0], w), abs=1e-9)
    # The returned flow is a pure plan of the polytope worth `value`.
    assert np.abs(d_mat @ dag.to_local(lam) - rhs).max() < 1e-12 and lam.min() >= 0
    reach = dag.leaf_values(lam)[dec.terminal_leaf]
    assert set(np.unique(reach)) <= {0.0, 1.0}
    assert float(w @ reach) == pytest.approx(value, abs=1e-9)


def test_dag_flows_of_random_local_strategies_are_in_the_polytope():
  tree = GameTree(pyspiel.load_game("kuhn_poker(players=3)"))
  dec = TeamDecomposition(tree, [0, 1])
  dag = team_belief_dag.BeliefDAG(dec)
  sigma = dag.regret_matching(np.random.default_rng(0).normal(size=dag.num_edges))
  lam = dag.flows(sigma)
  d_mat, rhs = dec.constraint_system()
  assert np.abs(d_mat @ dag.to_local(lam) - rhs).max() < 1e-12
  # The expected value of the same local strategies bottom-up equals the flow's value.
  rng = np.random.default_rng(1)
  g = rng.normal(size=dec.num_leaves)
  _, v = dag.values(g, sigma)
  assert dag.root_value(g, v) == pytest.approx(float(g @ dag.leaf_values(lam)), abs=1e-12)


@pytest.mark.parametrize("game,teams,algorithm,tol", [
    ("kuhn_poker(players=3)", "0,1|2", "dcfr", 1e-4),
    ("kuhn_poker(players=3)", "1|0,2", "pcfr+", 1e-4),
    # two DAGs of two players (22D3 in miniature; value 3/32)
    ("team_liars_dice(players=4,sides=2,bidding_rule=reset-quantity,wild=False)", "0,2|1,3",
     "dcfr", 1e-4),
])
def test_dag_bracket_holds_the_lp_value_and_is_certified(game, teams, algorithm, tol):
  tree = GameTree(pyspiel.load_game(game))
  t = teams_lib.parse_teams(teams, tree.num_players)
  lp = team_lp.solve(tree, t).value
  res = team_belief_dag.solve(tree, t, tol=tol, algorithm=algorithm)
  assert res.converged and res.gap <= tol
  assert res.lower - 1e-9 <= lp <= res.upper + 1e-9
  assert abs(res.value - lp) <= res.gap
  # Independent exact best responses (polytope LP) against the returned plans.
  chance = tree.chance_reach()[tree.terminals]
  u = teams_lib.team_terminal_utilities(tree, t)
  br2 = team_best_response.team_best_response_value(
      tree, t, 1, chance * res.team1_reach * u[:, 1], method="lp")
  br1 = team_best_response.team_best_response_value(
      tree, t, 0, chance * res.team2_reach * u[:, 0], method="lp")
  # (HiGHS's LP solves to ~1e-7; the DAG's dynamic programme is exact, so its best responses
  # are never worse than the LP's: lower <= -br2, br1 <= upper.)
  assert res.lower <= -br2 + 1e-9 and -br2 == pytest.approx(res.lower, abs=1e-6)
  assert br1 <= res.upper + 1e-9 and br1 == pytest.approx(res.upper, abs=1e-6)


def test_dag_anytime_stop_and_bad_arguments():
  res = team_belief_dag.solve("kuhn_poker(players=3)", "0,1|2", tol=0.0, max_iterations=20,
                              check_every=10)
  assert not res.converged and res.iterations == 20 and len(res.history) == 2
  assert res.lower <= -1.0 / 24.0 <= res.upper
  for kwargs, needle in ((dict(algorithm="cfr9"), "cfr9"), (dict(time_limit=-3), "-3"),
                         (dict(check_every=0), "check_every=0"),
                         (dict(max_iterations=0), "max_iterations=0"), (dict(tol=-1), "-1"),
                         (dict(average_powers=()), "average_powers"),
                         (dict(average_powers=(2.0, -1.0)), "-1.0")):
    with pytest.raises(ValueError, match=needle):
      team_belief_dag.solve("kuhn_poker(players=3)", "0,1|2", **kwargs)
  # Further averages certify more plans of the same iterates: the bracket can only narrow,
  # and it still holds the value.
  more = team_belief_dag.solve("kuhn_poker(players=3)", "0,1|2", tol=0.0, max_iterations=20,
                               check_every=10, average_powers=(2.0, 5.0, 0.0))
  assert res.lower <= more.lower <= -1.0 / 24.0 <= more.upper <= res.upper


def test_team_solve_and_cli_method_dag():
  res = team_solve.solve("kuhn_poker(players=3)", "0,1|2", method="dag")
  assert res.method == "dag" and not res.exact and round(res.lower, 4) == round(res.upper, 4)
  assert res.lower <= -1.0 / 24.0 <= res.upper
  rc, out, _ = _cli(["--instance", "21K4", "--method", "dag", "--tol", "1e-3", "--json"])
  s = json.loads(out)
  assert rc == 0 and s["method"] == "dag" and s["gap"] <= 1e-3
  assert s["lower"] <= -1.0 / 24.0 <= s["upper"]
  rc, out, err = _cli(["--instance", "21K4", "--method", "dag", "--tol", "-1"])
  assert rc == 2 and out == "" and "-1" in err


def test_certify_rederives_the_bracket_with_independent_oracles():
  """solver.certify: backward induction (one player) and the flow MIP (several) against the
  plans of the DAG solver and of column generation give back their brackets."""
  for method, teams in (("dag", "0,1|2"), ("dag", "1|0,2"), ("cg", "0,1|2")):
    res = team_solve.solve("kuhn_poker(players=3)", teams, method=method, tol=1e-3,
                           certify_time_limit=30)
    d = res.details
    assert d["certified_lower"] == pytest.approx(res.lower, abs=1e-8), (method, teams)
    assert d["certified_upper"] == pytest.approx(res.upper, abs=1e-8), (method, teams)
    assert d["certify_note"] == ""
  with pytest.raises(ValueError, match="certify_time_limit must be .*, got -1"):
    team_solve.solve("kuhn_poker(players=3)", "0,1|2", method="dag", certify_time_limit=-1)


@pytest.mark.parametrize("game,members", [
    ("kuhn_poker(players=3)", [0, 2]),
    ("kuhn_poker(players=3)", [1]),
    ("team_liars_dice(players=4,sides=2,bidding_rule=reset-quantity,wild=False)", [1, 3]),
    ("team_leduc(players=3,ranks=3,suits=2,bets=1)", [0, 1]),
])
def test_kernel_regret_updates_follow_their_formulas(game, members):
  """The numba passes' regret matching and DCFR / predictive CFR+ updates against the formulas
  written out in numpy, from the node values of `values` (themselves checked against the flows
  and against exact best responses above)."""
  tree = GameTree(pyspiel.load_game(game))
  dec = TeamDecomposition(tree, members)
  dag = team_belief_dag.BeliefDAG(dec)
  starts = dag.node_edge_start[:-1]

  def rm(r):
    pos = np.maximum(r, 0.0)
    tot = np.repeat(np.add.reduceat(pos, starts), dag.node_size)
    return np.where(tot > 0, pos / np.where(tot > 0, tot, 1.0), 1.0 / dag.node_size[dag.edge_node])

  rng = np.random.default_rng(3)
  g = rng.normal(size=dec.num_leaves)
  r0 = rng.normal(size=dag.num_edges)
  r0[dag.edge_node == dag.edge_node[0]] = -1.0  # a node without positive regret: uniform
  sigma = dag.regret_matching(r0)
  np.testing.assert_allclose(sigma, rm(r0), rtol=0, atol=1e-15)
  assert np.allclose(sigma[dag.edge_node == dag.edge_node[0]], 1.0 / dag.node_size[0])
  for algorithm in team_belief_dag.ALGORITHMS:
    r, s = rng.normal(size=dag.num_edges), sigma.copy()
    r_ref, s_ref = r.copy(), s.copy()
    for it in range(1, 5):
      q, v = dag.values(g, s_ref)
      vn = v[dag.edge_node]
      inst = q - vn
      inst[np.abs(inst) <= 1e-13 * (1.0 + np.abs(vn))] = 0.0
      if algorithm == "dcfr":
        ta = float(it) ** 1.5
        r_ref = r_ref * np.where(r_ref > 0, ta / (ta + 1.0), 0.5) + inst
        s_ref = rm(r_ref)
      else:
        r_ref = np.maximum(r_ref + inst, 0.0)
        s_ref = rm(r_ref + inst)
      dag.regret_update(g, s, r, algorithm, it)
      np.testing.assert_allclose(r, r_ref, rtol=0, atol=1e-12)
      np.testing.assert_allclose(s, s_ref, rtol=0, atol=1e-12)
  # flows_and_leaves: the flow, F times it, and the running average in one pass.
  avg = np.zeros(dag.num_edges)
  lam, leaf = dag.flows_and_leaves(sigma, avg, 2.5)
  np.testing.assert_array_equal(lam, dag.flows(sigma))
  np.testing.assert_allclose(leaf, dag.leaf_values(lam), rtol=0, atol=1e-15)
  np.testing.assert_allclose(avg, 2.5 * lam, rtol=0, atol=0)
  with pytest.raises(ValueError, match="regret must be a contiguous float64"):
    dag.regret_update(g, s, r.astype(np.float32), "dcfr", 1)
