"""Column generation's oracles.

The belief-DAG oracle (`column_generation.DagOracle`) is an exact team best response: the same
value as the flow MIP's (`best_response.TeamOracle`) on random weights, a 0/1 plan worth that
value, and the same column-generation value. With hybrid-form MIP oracles
(`TeamOracle(hybrid=True)`, tested in `tests/lp/test_hybrid_oracle.py`) column generation
reaches the LP's value.
"""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import column_generation
from ospiel_team.algorithms.team import team_lp
from ospiel_team.games import team_instances
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.tree.game_tree import GameTree


@pytest.mark.parametrize("name", ["21K3", "21K4", "22K5"])
def test_dag_oracle_equals_mip_oracle(name):
  game, teams = team_instances.TABLE1_INSTANCES[name]
  tree = GameTree(pyspiel.load_game(game))
  rng = np.random.default_rng(0)
  for members in teams:
    if len(members) < 2:
      continue
    dag, mip = column_generation.DagOracle(tree, members), team_best_response.TeamOracle(
        tree, members)
    for _ in range(5):
      w = rng.normal(size=len(tree.terminals))
      a, b = dag.best_response(w), mip.best_response(w)
      assert a.value == pytest.approx(b.value, abs=1e-9)
      assert set(np.unique(a.reach)) <= {0.0, 1.0}
      assert float(w @ a.reach) == pytest.approx(a.value, abs=1e-9)


def test_column_generation_with_dag_oracle_equals_mip():
  game, _ = team_instances.TABLE1_INSTANCES["21K4"]
  a = column_generation.solve(game, "0,1|2", oracle="dag")
  b = column_generation.solve(game, "0,1|2", oracle="mip")
  assert a.converged and b.converged
  assert a.value == pytest.approx(b.value, abs=1e-9)
  assert a.value == pytest.approx(-1 / 24, abs=1e-9)


def test_unknown_oracle_is_named():
  with pytest.raises(ValueError, match="oracle='lp'"):
    column_generation.solve("kuhn_poker(players=3)", "0,1|2", oracle="lp")


@pytest.mark.parametrize("game,teams", [
    ("team_kuhn(players=3,ranks=4)", "0,1|2"),  # single oracle
    ("kuhn_poker(players=3)", "1|0,2"),  # double oracle: team 2's oracle hybrid
])
def test_column_generation_hybrid_matches_lp(game, teams):
  cg = column_generation.solve(game, teams, hybrid=True)
  lp = team_lp.solve(game, teams)
  assert cg.converged
  assert cg.value == pytest.approx(lp.value, abs=1e-6)
