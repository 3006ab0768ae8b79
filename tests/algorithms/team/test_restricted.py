"""The team LP restricted to a support and grown by exact belief-DAG best responses.

Every answer is compared with the plain tree-decomposition LP (`team_lp.solve`) on the same game;
the certified bracket must hold the LP's value.
"""

import numpy as np
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import restricted
from ospiel_team.algorithms.team import team_lp
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree import teams as teams_lib

GAMES = [
    ("kuhn_poker(players=3)", "0,1|2"),
    ("team_kuhn(players=3,ranks=3)", "0,1|2"),
    ("kuhn_poker(players=3)", "1|0,2"),  # team 2 has two players
    ("kuhn_poker(players=4)", "0,1|2,3"),  # 22K5
    ("team_liars_dice(players=3,sides=2,bidding_rule=reset-quantity,wild=False)", "1|0,2"),
]


def _setup(game, teams):
  tree, teams = teams_lib.check_assumptions(game, teams)
  decs = [TeamDecomposition(tree, t) for t in teams.teams]
  return tree, teams, decs


def _pure_support(dec):
  """The local solutions of one joint pure plan: the DAG's best response to a zero gradient."""
  dag = restricted.belief_dag(dec)
  _, flow = dag.best_response(np.zeros(dec.num_leaves))
  return np.nonzero(dag.to_local(flow))[0]


@pytest.mark.parametrize("game,teams", GAMES)
def test_restricted_lp_from_one_pure_plan_each_matches_the_lp(game, teams):
  tree, teams, decs = _setup(game, teams)
  plain = team_lp.solve(tree, teams, decompositions=decs).value
  res = restricted.solve(tree, teams, decs, [_pure_support(d) for d in decs])
  assert res.exact and res.value == pytest.approx(plain, abs=1e-9)
  assert res.lower - 1e-9 <= plain <= res.upper + 1e-9 and res.upper - res.lower <= 1e-9
  assert res.support[0] <= res.local_solutions[0] and res.support[1] <= res.local_solutions[1]
  # The returned plans certify the bracket: team 2's best response value against team 1's
  # reach is -lower, recomputed here from the terminal reach.
  chance = tree.chance_reach()[tree.terminals]
  u1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  assert float(np.sum(chance * u1 * res.team1_reach * res.team2_reach)) == pytest.approx(
      plain, abs=1e-8)


@pytest.mark.parametrize("game,teams", GAMES)
def test_restricted_lp_from_the_dag_support_matches_the_lp(game, teams):
  tree, teams, decs = _setup(game, teams)
  plain = team_lp.solve(tree, teams, decompositions=decs).value
  dag = team_belief_dag.solve(tree, teams, tol=1e-2, decompositions=decs, keep_flows=True)
  for dec, (last, avg) in zip(decs, dag.flows, strict=True):
    d_mat, rhs = dec.constraint_system()  # both flows are plans of the team's polytope
    assert np.abs(d_mat @ last - rhs).max() < 1e-9 and np.abs(d_mat @ avg - rhs).max() < 1e-9
  supports = [restricted.support_of(f) for f in dag.flows]
  res = restricted.solve(tree, teams, decs, supports)
  assert res.exact and res.value == pytest.approx(plain, abs=1e-9)


@pytest.mark.parametrize("game,teams", GAMES)
def test_team_2_whole_makes_the_lower_end_the_restricted_lps_value(game, teams):
  # With team 2 over its whole polytope, the LP's team-1 plan holds its value against every
  # team-2 plan: team 2's exact best response (a DAG pass) scores the LP's optimum (an HiGHS
  # solve), and that lower end is at most the full LP's value (team 1 on a face).
  tree, teams, decs = _setup(game, teams)
  plain = team_lp.solve(tree, teams, decompositions=decs).value
  res = restricted.solve(tree, teams, decs,
                         [_pure_support(decs[0]), np.arange(decs[1].num_local)], max_rounds=1)
  assert res.lower == pytest.approx(res.value, abs=1e-9)
  assert res.lower <= plain + 1e-9 and res.upper >= plain - 1e-9


@pytest.mark.parametrize("game,teams", GAMES)
def test_one_sided_lps_from_the_dag_support_give_the_lps_value(game, teams):
  # Each team on the DAG's support against the whole other team: the two ends meet at the
  # plain LP's value (HiGHS on the whole LP), and the two plans returned score it.
  tree, teams, decs = _setup(game, teams)
  plain = team_lp.solve(tree, teams, decompositions=decs).value
  dag = team_belief_dag.solve(tree, teams, tol=1e-2, decompositions=decs, keep_flows=True)
  res = restricted.solve_one_sided(tree, teams, decs,
                                   [restricted.support_of(f) for f in dag.flows])
  assert res.exact and res.rounds == 2
  assert res.value == pytest.approx(plain, abs=1e-9)
  assert res.lower == pytest.approx(plain, abs=1e-9)
  assert res.upper == pytest.approx(plain, abs=1e-9)
  chance = tree.chance_reach()[tree.terminals]
  u1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  assert float(np.sum(chance * u1 * res.team1_reach * res.team2_reach)) == pytest.approx(
      plain, abs=1e-8)


def test_one_sided_lps_from_pure_plans_bracket_the_value_without_claiming_it():
  # 22K5's equilibrium is mixed (value -7/190): one pure plan per team misses it on both
  # sides, so the ends do not meet; each is still a certified end.
  tree, teams, decs = _setup("kuhn_poker(players=4)", "0,1|2,3")
  res = restricted.solve_one_sided(tree, teams, decs, [_pure_support(d) for d in decs])
  assert not res.exact
  assert res.lower < -7 / 190 - 1e-3 and res.upper > -7 / 190 + 1e-3


def test_one_round_is_not_exact_from_a_pure_plan():
  """22K5's equilibrium is mixed: one restricted LP over one pure plan per team is not exact,
  and its bracket is still certified (it holds the LP's value)."""
  tree, teams, decs = _setup("kuhn_poker(players=4)", "0,1|2,3")
  res = restricted.solve(tree, teams, decs, [_pure_support(d) for d in decs], max_rounds=1)
  assert not res.exact and res.rounds == 1
  assert res.lower <= -7 / 190 <= res.upper and res.upper - res.lower > 1e-3


def test_build_model_with_full_supports_is_the_lp():
  tree, teams, decs = _setup("kuhn_poker(players=3)", "0,1|2")
  full = team_lp.build_model(tree, teams, *decs)
  same = team_lp.build_model(tree, teams, *decs, support1=np.arange(decs[0].num_local),
                             support2=np.arange(decs[1].num_local))
  assert (full.a_mat != same.a_mat).nnz == 0
  for key in ("cost", "row_lo", "row_hi", "col_lo", "col_hi"):
    assert np.array_equal(getattr(full, key), getattr(same, key))


def test_bad_supports_are_errors():
  tree, teams, decs = _setup("kuhn_poker(players=3)", "0,1|2")
  good = [_pure_support(d) for d in decs]
  with pytest.raises(ValueError, match="supports\\[0\\] has indices outside"):
    restricted.solve(tree, teams, decs, [np.array([decs[0].num_local]), good[1]])
  with pytest.raises(ValueError, match="max_rounds=0"):
    restricted.solve(tree, teams, decs, good, max_rounds=0)
  with pytest.raises(RuntimeError, match="restricted team LP"):  # no plan of team 1 left
    restricted.solve(tree, teams, decs, [np.zeros(0, dtype=int), good[1]])


@pytest.mark.parametrize("game,teams", GAMES[2:])
def test_warm_started_rounds_match_rounds_from_scratch(game, teams):
  """Growing one HiGHS LP (columns and rows added, simplex from the last basis) and rebuilding
  the restricted LP every round give the same exact value, the plain LP's."""
  tree, teams, decs = _setup(game, teams)
  plain = team_lp.solve(tree, teams, decompositions=decs).value
  supports = [_pure_support(d) for d in decs]
  warm = restricted.solve(tree, teams, decs, supports, warm_start=True)
  cold = restricted.solve(tree, teams, decs, supports, warm_start=False)
  assert warm.exact and cold.exact and warm.rounds > 1
  assert warm.value == pytest.approx(plain, abs=1e-9) and cold.value == pytest.approx(plain,
                                                                                       abs=1e-9)


def test_dag_on_check_sees_certified_brackets_and_can_stop():
  """`belief_dag.solve(on_check=...)` is called after every certification with the bracket so
  far and the current flows (plans of the polytope); a true return stops the iterations."""
  tree, teams, decs = _setup("kuhn_poker(players=3)", "0,1|2")
  plain = team_lp.solve(tree, teams, decompositions=decs).value
  seen = []

  def stop_at_third(state):
    seen.append(state)
    for dec, (last, _) in zip(decs, state["flows"](), strict=True):
      d_mat, rhs = dec.constraint_system()
      assert np.abs(d_mat @ last - rhs).max() < 1e-9
    return len(seen) == 3

  dag = team_belief_dag.solve(tree, teams, tol=0.0, decompositions=decs, keep_flows=True,
                              check_every=10, on_check=stop_at_third)
  assert len(seen) == 3 and dag.iterations == 30 and not dag.converged
  assert [s["iteration"] for s in seen] == [10, 20, 30]
  for s in seen:
    assert s["lower"] - 1e-12 <= plain <= s["upper"] + 1e-12
