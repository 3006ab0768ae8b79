"""Cached game trees for the team solvers: a tree loaded from its arrays is the walked tree.

`cache.load_tree` replays the representative pyspiel states only on first use; the arrays
that the team LP and the belief DAG use must equal the pyspiel walk's node for node, the
lazily replayed states must be the walked ones, and the solvers must give the same values.
"""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import lp as team_lp
from ospiel_team.tree import cache as tree_cache
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.games import team_instances


@pytest.mark.parametrize("instance", ["21K4", "21GL"])
def test_cached_tree_equals_the_walk_node_for_node(tmp_path, instance):
  game_string, teams = team_instances.TABLE1_INSTANCES[instance]
  game = pyspiel.load_game(game_string)
  walked = GameTree(game)
  tree_cache.cached_tree(game, str(tmp_path))  # walks and stores
  loaded = tree_cache.cached_tree(game, str(tmp_path))  # loads the arrays
  assert loaded._infoset_states is None  #  (not replayed yet)
  for name in ["node_parent", "node_action", "node_player", "node_depth", "node_infoset",
               "node_chance_prob", "node_returns", "infoset_player", "infoset_legal",
               "terminals"]:
    np.testing.assert_array_equal(getattr(walked, name), getattr(loaded, name), err_msg=name)
  assert walked.infoset_keys == loaded.infoset_keys
  teams_str = "|".join(",".join(str(p) for p in t) for t in teams)
  assert team_lp.solve(loaded, teams_str).value == pytest.approx(
      team_lp.solve(walked, teams_str).value, abs=1e-9)
  # The representative states, replayed on first use, are the walked ones.
  assert ([s.history() for s in loaded.infoset_states] ==
          [s.history() for s in walked.infoset_states])


def test_cli_tree_cache_miss_then_hit(tmp_path):
  from tests.algorithms.team.test_solve import _cli  #
  import json  #
  runs = []
  for _ in range(2):
    rc, out, _ = _cli(["--instance", "21K4", "--tree_cache", str(tmp_path), "--json"])
    assert rc == 0
    runs.append(json.loads(out))
  assert [r["tree_cache"] for r in runs] == ["miss", "hit"]
  assert runs[0]["value"] == runs[1]["value"] == pytest.approx(-1.0 / 24.0, abs=1e-9)
  assert all(r["seconds"] >= r["tree_seconds"] for r in runs)
