"""Cached game trees for the team solvers: a tree loaded from its arrays is the walked tree.

`cache.load_tree` replays the representative pyspiel states only on first use; the arrays
that the team LP and the belief DAG use must equal the pyspiel walk's node for node, the
lazily replayed states must be the walked ones, and the solvers must give the same values.
"""

import os
import sys

import numpy as np
import pyspiel
import pytest

import ospiel_team
from ospiel_team.algorithms.team import team_lp
from ospiel_team.games import team_instances
from ospiel_team.tree import cache as tree_cache
from ospiel_team.tree.game_tree import GameTree


@pytest.mark.parametrize("instance", ["21K4", "21GL"])
def test_cached_tree_equals_the_walk_node_for_node(tmp_path, instance):
  game_string, teams = team_instances.TABLE1_INSTANCES[instance]
  game = pyspiel.load_game(game_string)
  walked = GameTree(game)
  tree_cache.cached_tree(game, str(tmp_path))  # walks and stores
  loaded = tree_cache.cached_tree(game, str(tmp_path))  # loads the arrays
  assert loaded.builder == "cache" and "infoset_states" not in vars(loaded)  # not replayed yet
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
  import json

  from tests.algorithms.team.test_solve import _cli
  runs = []
  for _ in range(2):
    rc, out, _ = _cli(["--instance", "21K4", "--tree_cache", str(tmp_path), "--json"])
    assert rc == 0
    runs.append(json.loads(out))
  assert [r["tree_cache"] for r in runs] == ["miss", "hit"]
  assert runs[0]["value"] == runs[1]["value"] == pytest.approx(-1.0 / 24.0, abs=1e-9)
  assert all(r["seconds"] >= r["tree_seconds"] for r in runs)


def _register_copy_of_python_kuhn(tmp_path, name):
  """OpenSpiel's Python Kuhn poker, written to a module file of its own as game `name`."""
  import importlib.util

  from open_spiel.python.games import kuhn_poker
  source = open(kuhn_poker.__file__, encoding="utf-8").read()
  source = source.replace('short_name="python_kuhn_poker"', f'short_name="{name}"')
  path = tmp_path / f"{name}.py"
  path.write_text(source)
  spec = importlib.util.spec_from_file_location(name, path)
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module  # as an import does
  spec.loader.exec_module(module)
  return path, module


def test_a_changed_game_definition_misses_the_cache(tmp_path, monkeypatch):
  path, module = _register_copy_of_python_kuhn(tmp_path, "cache_test_kuhn")
  game = pyspiel.load_game("cache_test_kuhn")
  cache_dir = str(tmp_path / "cache")
  stored = tree_cache.cache_path(game, cache_dir)
  tree_cache.cached_tree(game, cache_dir)
  assert tree_cache.cache_path(game, cache_dir) == stored and os.path.exists(stored)
  # Its rules' source changes (the ante doubles in the returns): another key, a miss.
  source = path.read_text()
  assert source.count("pot = self.pot") == 1
  path.write_text(source.replace("pot = self.pot", "pot = 2 * self.pot"))
  assert tree_cache.cache_path(game, cache_dir) != stored
  path.write_text(source)
  assert tree_cache.cache_path(game, cache_dir) == stored
  # A rule changed at run time in the first levels (the deal): a miss too.
  state_class = type(game.new_initial_state())
  real = state_class.chance_outcomes
  monkeypatch.setattr(state_class, "chance_outcomes",
                      lambda self: [(a, p) for a, p in real(self)][::-1])
  assert tree_cache.cache_path(game, cache_dir) != stored
  monkeypatch.undo()
  assert tree_cache.cache_path(game, cache_dir) == stored
  # Another package version: a miss.
  monkeypatch.setattr(ospiel_team, "__version__", "99.0")
  assert tree_cache.cache_path(game, cache_dir) != stored
  del module


def test_a_stored_tree_of_another_definition_is_refused_on_load(tmp_path, monkeypatch):
  game = pyspiel.load_game("kuhn_poker")
  path = str(tmp_path / "kuhn.npz")
  tree_cache.save_tree(GameTree(game), path)
  assert tree_cache.load_tree(game, path).num_nodes == 58
  monkeypatch.setattr(ospiel_team, "__version__", "99.0")
  with pytest.raises(ValueError, match="another definition"):
    tree_cache.load_tree(game, path)
