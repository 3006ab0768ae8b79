"""JPS's options (`JPSConfig`), its team structure cache and its typed results."""

import dataclasses
import gc
import math
import weakref

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.coop.jps import structure
from ospiel_team.algorithms.nash import cfr as tree_cfr
from ospiel_team.errors import SizeLimitError
from ospiel_team.errors import UserError
from ospiel_team.tree.game_tree import GameTree


@pytest.mark.parametrize("name, value", [
    ("max_iterations", 1.5), ("max_iterations", -1), ("max_iterations", True),
    ("depth", 0), ("depth", 2.0), ("depth", "3"), ("samples", 0), ("samples", np.float64(2)),
    ("seed", -1), ("seed", 1.0), ("max_rows", 0), ("structure_budget", -1),
    ("improvement_tol", math.nan), ("improvement_tol", math.inf), ("improvement_tol", -1e-9),
    ("improvement_tol", "0"), ("improvement_tol", True), ("verify_atol", np.float64("nan")),
    ("verify", 1), ("progress", "yes"), ("stop_on_quiet_pass", 0), ("sample_by", "weird"),
    ("tie_break", "last"), ("schedule", "paper"), ("start_depths", [1.5]),
    ("start_depths", 3), ("start_depths", [-1])])
def test_bad_option_is_refused_naming_it(name, value):
  with pytest.raises(UserError, match=name):
    jps.JPSConfig(**{name: value})


@pytest.mark.parametrize("kwargs, message", [
    (dict(samples=2, verify=True), "sampled JPS"),
    (dict(samples=2, schedule="reference"), "sampled JPS"),
    (dict(team=[0, 0]), "distinct"), (dict(team=[]), "distinct"), (dict(team=[-1]), "distinct"),
    (dict(team=[0.5, 1]), "player 0.5 is not an int"), (dict(team="01"), "sequence")])
def test_inconsistent_options_are_refused(kwargs, message):
  with pytest.raises(UserError, match=message):
    jps.JPSConfig(**kwargs)


def test_numpy_scalars_are_accepted_and_stored_as_python_values():
  config = jps.JPSConfig(team=np.array([1, 0]), depth=np.int64(3), samples=np.int32(2),
                         seed=np.uint8(4), max_iterations=np.int64(7),
                         improvement_tol=np.float32(0.5), verify_atol=np.int64(0),
                         progress=np.bool_(False), start_depths=np.array([0, 2]))
  assert config.team == (0, 1) and config.start_depths == (0, 2)
  for name in ("depth", "samples", "seed", "max_iterations"):
    assert type(getattr(config, name)) is int
  assert type(config.improvement_tol) is float and config.improvement_tol == 0.5
  assert config.progress is False
  with pytest.raises(dataclasses.FrozenInstanceError):
    config.depth = 2  # type: ignore[misc]


def test_resolved_defaults():
  assert jps.JPSConfig().iteration_limit == 10_000  # exact JPS: a default cap, no endless loop
  assert jps.JPSConfig(samples=1).iteration_limit == 100
  assert jps.JPSConfig(schedule="reference").iteration_limit == 100
  assert jps.JPSConfig(max_iterations=3, samples=1).iteration_limit == 3
  assert jps.JPSConfig().stops_on_quiet_pass and not jps.JPSConfig(samples=2).stops_on_quiet_pass
  assert not jps.JPSConfig(stop_on_quiet_pass=False).stops_on_quiet_pass


def test_config_and_keyword_options_give_the_same_run():
  tree = GameTree(pyspiel.load_game("simple_bidding(size=4)"))
  pi = tree_cfr.random_policy_array(tree, 1)
  a = jps.JointPolicySearch(tree, depth=2, seed=3).improve(pi)
  b = jps.JointPolicySearch(tree, config=jps.JPSConfig(depth=2, seed=3)).improve(pi)
  np.testing.assert_array_equal(a.policy_array, b.policy_array)
  untimed = lambda r: [dataclasses.replace(h, seconds=0.0, search_seconds=0.0)
                       for h in r.history]
  assert untimed(a) == untimed(b) and a.value == b.value
  with pytest.raises(UserError, match="not both"):
    jps.JointPolicySearch(tree, config=jps.JPSConfig(), depth=2)
  with pytest.raises(TypeError, match="bogus"):
    jps.JointPolicySearch(tree, bogus=1)


def test_seed_none_is_resolved_in_the_config():
  tree = GameTree(pyspiel.load_game("comm(length=1)"))
  search = jps.JointPolicySearch(tree, seed=None)
  assert search.config.seed == search.seed and search.seed >= 0
  assert search.config.team == (0, 1) and search.team == [0, 1]


def test_team_structure_is_computed_once_per_tree_and_kept_off_the_tree():
  tree = GameTree(pyspiel.load_game("kuhn_poker(players=3)"))
  a = jps.JointPolicySearch(tree, team=[2, 0])
  b = jps.JointPolicySearch(tree, team=[0, 2], depth=2)
  assert a.structure is b.structure is structure.team_structure(tree, (0, 2))
  assert structure.team_structure(tree, [0, 1]) is not a.structure
  assert not any(isinstance(v, jps.TeamStructure) for v in vars(tree).values())
  assert not a.structure.rows.flags.writeable
  alive = weakref.ref(tree)
  del a, b, tree
  gc.collect()
  assert alive() is None  # the cache does not keep the tree alive


def test_search_results_are_typed_and_frozen():
  tree = GameTree(pyspiel.load_game("comm(length=2)"))
  search = jps.JointPolicySearch(tree, depth=2)
  pi = tree_cfr.random_policy_array(tree, 0)
  sweep = search.sweep(pi)
  assert isinstance(sweep, jps.Sweep) and sweep.value == pytest.approx(search.value(pi))
  res = search.search(sweep, search.start_depths[0])
  assert isinstance(res, jps.SearchResult) and all(isinstance(lv, jps.Level)
                                                   for lv in res.levels)
  assert len(res.levels) == 2 and res.num_candidates == sum(len(lv.j) for lv in res.levels)
  with pytest.raises(dataclasses.FrozenInstanceError):
    res.gain = 1.0  # type: ignore[misc]
  result = search.improve(pi)
  assert isinstance(result.history, tuple)
  with pytest.raises(dataclasses.FrozenInstanceError):
    result.value = 0.0  # type: ignore[misc]


def test_max_rows_is_a_size_limit():
  tree = GameTree(pyspiel.load_game("comm(length=2)"))
  search = jps.JointPolicySearch(tree, max_rows=1, structure_budget=0)
  with pytest.raises(SizeLimitError, match="max_rows=1"):
    search.search(search.sweep(tree.uniform_policy_array()), 0)


def test_unknown_row_finding_is_refused():
  tree = GameTree(pyspiel.load_game("comm(length=1)"))
  base = jps.JointPolicySearch(tree)
  with pytest.raises(UserError, match="row_finding"):
    jps.ChainSearch(tree, base.structure, base.config, row_finding="always")
