"""The hybrid-form team best-response MIP (`TeamOracle(hybrid=True)`).

Only the members other than one (the *free* member) have binary sequence variables; the free
member's plan is re-derived by backward induction. Checked against independently obtained
best responses: brute force over all joint pure strategies and the LP over the team's
tree-decomposition polytope (a different formulation and code path), and the full MIP.
Column generation with hybrid oracles: `tests/algorithms/team/test_cg_oracle.py`.
"""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.lp import plan_mip
from ospiel_team.tree.game_tree import GameTree


@pytest.mark.parametrize("game,members,brute", [
    ("team_kuhn(players=3,ranks=3)", [0, 1], True),
    ("kuhn_poker(players=4)", [1, 3], False),
    ("team_liars_dice(players=3,sides=2,bidding_rule=reset-quantity,wild=False)", [0, 2],
     False),
])
def test_hybrid_oracle_is_exact(game, members, brute):
  tree = GameTree(pyspiel.load_game(game))
  rng = np.random.default_rng(11)
  hybrid = team_best_response.TeamOracle(tree, members, hybrid=True, keep_others=True)
  full = team_best_response.TeamOracle(tree, members)
  for _ in range(2):
    w = rng.normal(size=len(tree.terminals))
    br = hybrid.best_response(w)
    ref = team_best_response.team_best_response_lp(tree, members, w).value
    assert br.value == pytest.approx(ref, abs=1e-9)
    assert br.value == pytest.approx(full.best_response(w).value, abs=1e-9)
    if brute:
      assert br.value == pytest.approx(
          plan_mip.brute_force_best_joint(tree, members, w).value, abs=1e-9)
    assert br.bound == pytest.approx(br.value, abs=1e-8)
    assert float(w @ br.reach) == pytest.approx(br.value, abs=1e-9)  # the plan's own value
    assert set(np.unique(br.reach)) <= {0.0, 1.0}
    for value, reach in br.others:
      assert float(w @ reach) == pytest.approx(value, abs=1e-9) and value <= br.value + 1e-9


def test_hybrid_frees_the_member_with_most_sequences():
  tree = GameTree(pyspiel.load_game("team_kuhn(players=3,ranks=3)"))
  oracle = team_best_response.TeamOracle(tree, [0, 1], hybrid=True)
  counts = {p: int(tree.infoset_legal[tree.infoset_player == p].sum()) for p in (0, 1)}
  assert counts[oracle._free] == max(counts.values())
  assert team_best_response.TeamOracle(tree, [0, 1])._free is None  # default: full MIP
  assert team_best_response.TeamOracle(tree, [2], hybrid=True)._free is None  # one member
