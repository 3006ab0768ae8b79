"""Every team method passes the conformance suite; pinned values where OpenSpiel has no twin.

The suite (`algorithms.team.conformance`) checks each method's certified bracket against a
brute-force TMECor value on small games with terminals one team never reaches and chance at the
root and inside. The team LP's cost term of the terminals team 2 never reaches, a team best
response that drops the chance reach, and exact JPS's acceptance rule each fail a test here when
broken (tests/algorithms/coop/test_jps_pinned.py for JPS).
"""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response as openspiel_br

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import belief_dag
from ospiel_team.algorithms.team import column_generation
from ospiel_team.algorithms.team import conformance
from ospiel_team.algorithms.team import solver
from ospiel_team.algorithms.team import team_lp
from ospiel_team.lp import best_response
from ospiel_team.tree import resolve

METHODS = {
    "solve auto": (lambda tree, teams: solver.solve(tree, teams), True),
    "solve lp": (lambda tree, teams: solver.solve(tree, teams, method="lp"), True),
    "solve cg": (lambda tree, teams: solver.solve(tree, teams, method="cg"), False),
    "solve dag": (lambda tree, teams: solver.solve(tree, teams, method="dag"), False),
    "team_lp.solve": (lambda tree, teams: _exact(team_lp.solve(tree, teams)), True),
    "column_generation.solve": (lambda tree, teams: column_generation.solve(tree, teams), False),
    "belief_dag.solve": (lambda tree, teams: belief_dag.solve(tree, teams, tol=1e-7), False),
}


class _exact:  # noqa: N801  (the LP result as a bracket of width 0)
  def __init__(self, res):
    self.lower = self.value = self.upper = res.value


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_team_method_conforms(name):
  solve, exact = METHODS[name]
  ran = conformance.team_solver_conformance(solve, exact=exact)
  assert len(ran) == len(conformance.conformance_cases()) == 6


def test_the_reference_on_a_hand_checked_case():
  """team1_stops: player 0 stops for 0.5, or goes on to a deal player 2 cannot tell apart:
  player 2's action 1 gives -1 and 1 (mean 0), action 0 gives 2 and (player 1's best) 1, so
  player 2 holds team {0, 1} to 0 there and the value is 0.5."""
  case = conformance.conformance_cases()[0]
  assert case.name == "team1_stops 0,1|2"
  assert conformance.brute_force_tmecor(case.tree, case.teams) == pytest.approx(0.5)
  swapped = conformance.conformance_cases()[1]
  assert conformance.brute_force_tmecor(swapped.tree, swapped.teams) == pytest.approx(-0.5)


def test_a_wrong_bracket_fails_the_suite():
  class Wrong:
    lower, value, upper = -1.0, 0.0, -0.5

  with pytest.raises(AssertionError, match="outside its bracket"):
    conformance.team_solver_conformance(lambda tree, teams: Wrong())


def test_team_lp_values_pinned():
  """Table 1 of Zhang & Sandholm (arXiv:2109.05284) to 4 decimals, pinned here to 1e-12."""
  assert team_lp.solve("kuhn_poker(players=3)", "0,1|2").value == pytest.approx(-1 / 24,
                                                                               abs=1e-12)
  assert team_lp.solve("kuhn_poker(players=4)", "0,1|2,3").value == pytest.approx(-7 / 190,
                                                                                 abs=1e-12)
  assert team_lp.solve("team_kuhn(players=3,ranks=3)", "0,1|2").value == pytest.approx(
      0.0, abs=1e-12)


@pytest.mark.parametrize("index", range(6))
def test_team_best_response_equals_brute_force(index):
  case = conformance.conformance_cases()[index]
  rng = np.random.default_rng(index)
  pi = rng.dirichlet(np.ones(2), size=case.tree.num_infosets)
  for team in (0, 1):
    got = best_response.team_value_vs_best_response(case.tree, pi, case.teams, team=team)
    other_best = conformance.brute_force_team_best_response(case.tree, case.teams, 1 - team,
                                                            pi)
    assert got == pytest.approx(-other_best, abs=1e-9), (case.name, team)


def test_team_best_response_on_kuhn_agrees_with_openspiel_and_pinned():
  tree = resolve("kuhn_poker(players=3)")
  pi = tree.uniform_policy_array()
  game = pyspiel.load_game("kuhn_poker(players=3)")
  p2 = openspiel_br.BestResponsePolicy(game, 2, policy_lib.UniformRandomPolicy(game))
  p2_value = p2.value(game.new_initial_state())
  team0 = best_response.team_value_vs_best_response(tree, pi, "0,1|2", team=0)
  assert team0 == pytest.approx(-p2_value, abs=1e-12)  # player 2 alone: OpenSpiel's BR
  assert team0 == pytest.approx(-61 / 96, abs=1e-12)
  # Team {0, 1} best responding jointly to a uniform player 2 has no OpenSpiel twin: pinned.
  team1 = best_response.team_value_vs_best_response(tree, pi, "0,1|2", team=1)
  assert team1 == pytest.approx(-2 / 3, abs=1e-12)
