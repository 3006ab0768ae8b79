"""TreeCFRSolver equals OpenSpiel's CFRSolver / CFRPlusSolver policies, iteration by iteration."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as os_cfr

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.algorithms.nash import cfr as tree_cfr
from ospiel_team.tree.game_tree import GameTree

GAMES = ["kuhn_poker", "tiny_hanabi", "comm(length=2)", "simple_bidding(size=3)",
         "mini_bridge(size=2)", "kuhn_poker(players=3)"]


def _max_diff(tree, reference, ours):
  cur = np.abs(tree.policy_array(reference.current_policy()) - ours.current_policy_array())
  avg = np.abs(tree.policy_array(reference.average_policy()) - ours.average_policy_array())
  return max(cur.max(), avg.max())


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("seed", [None, 7])
def test_equals_openspiel_cfr(game_name, seed):
  game = pyspiel.load_game(game_name)
  tree = GameTree(game)
  init = None if seed is None else tree_cfr.random_policy_array(tree, seed)
  reference = tree_cfr.openspiel_cfr_solver(game, tree, init)
  ours = tree_cfr.TreeCFRSolver(tree, initial_policy=init)
  for _ in range(8):
    reference.evaluate_and_update_policy()
    ours.evaluate_and_update_policy()
    # Same floating-point operations in the same order: equal, not just close.
    assert _max_diff(tree, reference, ours) <= 1e-14


@pytest.mark.parametrize("game_name", ["kuhn_poker", "comm(length=2)", "simple_bidding(size=3)"])
def test_equals_openspiel_cfr_plus(game_name):
  game = pyspiel.load_game(game_name)
  tree = GameTree(game)
  init = tree_cfr.random_policy_array(tree, 3)
  reference = tree_cfr.openspiel_cfr_solver(game, tree, init, plus=True)
  ours = tree_cfr.TreeCFRPlusSolver(tree, initial_policy=init)
  for _ in range(8):
    reference.evaluate_and_update_policy()
    ours.evaluate_and_update_policy()
    assert _max_diff(tree, reference, ours) <= 1e-14


@pytest.mark.parametrize("game_name", ["kuhn_poker", "tiny_hanabi", "simple_bidding(size=3)"])
def test_equals_openspiel_simultaneous_updates(game_name):
  game = pyspiel.load_game(game_name)
  tree = GameTree(game)
  reference = os_cfr._CFRSolver(game, alternating_updates=False,
                                linear_averaging=False, regret_matching_plus=False)
  ours = tree_cfr.TreeCFRSolver(tree, alternating_updates=False)
  for _ in range(8):
    reference.evaluate_and_update_policy()
    ours.evaluate_and_update_policy()
    assert _max_diff(tree, reference, ours) <= 1e-14


def test_random_initial_policy_is_seeded_and_valid():
  tree = GameTree(pyspiel.load_game("simple_bidding(size=3)"))
  a = tree_cfr.random_policy_array(tree, 1)
  tree.validate_policy_array(a)
  np.testing.assert_array_equal(a, tree_cfr.random_policy_array(tree, 1))
  assert not np.allclose(a, tree_cfr.random_policy_array(tree, 2))
  with pytest.raises(ValueError):
    tree_cfr.TreeCFRSolver(tree, initial_policy=np.ones((tree.num_infosets, tree.num_actions)))


# ------------------------------------------------------------------------------------------
# BatchedTreeCFRSolver: a seed axis over the same arrays, equal seed by seed to batches of one
# (TreeCFRSolver, which the tests above check against OpenSpiel): seeds do not interact.
@pytest.mark.parametrize("game_name", ["tiny_hanabi", "comm(length=2)", "simple_bidding(size=3)",
                                       "mini_bridge(size=2)", "kuhn_poker(players=3)"])
@pytest.mark.parametrize("alternating", [True, False])
def test_batched_equals_unbatched_seed_by_seed(game_name, alternating):
  tree = GameTree(pyspiel.load_game(game_name))
  seeds = [0, 5, 11]
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in seeds])
  batched = tree_cfr.BatchedTreeCFRSolver(tree, init, alternating_updates=alternating)
  single = [tree_cfr.TreeCFRSolver(tree, alternating_updates=alternating, initial_policy=p)
            for p in init]
  for _ in range(6):
    batched.evaluate_and_update_policy()
    for s in single:
      s.evaluate_and_update_policy()
    cur, avg = batched.current_policy_array(), batched.average_policy_array()
    for b, s in enumerate(single):
      np.testing.assert_array_equal(cur[b], s.current_policy_array())
      np.testing.assert_array_equal(avg[b], s.average_policy_array())


def test_batched_simultaneous_equals_openspiel():
  """The batch, seed by seed, equals OpenSpiel's simultaneous-update CFR from the same start."""
  game = pyspiel.load_game("tiny_hanabi")
  tree = GameTree(game)
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in (1, 2)])
  batched = tree_cfr.BatchedTreeCFRSolver(tree, init, alternating_updates=False)
  refs = []
  for p in init:
    ref = os_cfr._CFRSolver(game, alternating_updates=False,
                            linear_averaging=False, regret_matching_plus=False)
    ref.current_policy().action_probability_array[:] = tree.tabular_policy(
        p, template=ref.current_policy()).action_probability_array
    refs.append(ref)
  for _ in range(5):
    batched.evaluate_and_update_policy()
    for r in refs:
      r.evaluate_and_update_policy()
  cur, avg = batched.current_policy_array(), batched.average_policy_array()
  for b, r in enumerate(refs):
    assert np.abs(tree.policy_array(r.current_policy()) - cur[b]).max() <= 1e-14
    assert np.abs(tree.policy_array(r.average_policy()) - avg[b]).max() <= 1e-14


def test_batched_exploration_is_per_seed_and_only_where_no_regret_is_positive():
  tree = GameTree(pyspiel.load_game("comm(length=2)"))
  seeds = [3, 4, 9]
  # Pure starting policies leave infosets unreached, whose regrets stay 0 (noise there).
  init = np.stack([tree.purified_policy_array(tree_cfr.random_policy_array(tree, s))
                   for s in seeds])
  kw = dict(alternating_updates=False, exploration=0.01)
  batched = tree_cfr.BatchedTreeCFRSolver(tree, init, noise_seeds=seeds, **kw)
  single = [tree_cfr.BatchedTreeCFRSolver(tree, init[b:b + 1], noise_seeds=[s], **kw)
            for b, s in enumerate(seeds)]
  for _ in range(2):
    for s in [batched] + single:
      s.evaluate_and_update_policy()
  cur = batched.current_policy_array()
  for b, s in enumerate(single):
    np.testing.assert_array_equal(cur[b], s.current_policy_array()[0])
  # Where some cumulative regret is positive, the policy is plain regret matching.
  cum = np.moveaxis(batched._cum_regret, -1, 0)
  pos = np.where(tree.infoset_legal, np.maximum(cum, 0.0), 0.0)
  positive = pos.sum(axis=2) > 0
  rm = pos[positive] / pos[positive].sum(axis=1, keepdims=True)
  np.testing.assert_allclose(cur[positive], rm, rtol=0, atol=1e-15)
  noisy = cur[~positive]
  assert len(noisy) and np.all(noisy >= 0) and np.allclose(noisy.sum(axis=1), 1.0)
  uniform = tree.uniform_policy_array()[np.nonzero(~positive)[1]]
  assert not np.allclose(noisy, uniform)  # the noise is there
  assert np.abs(noisy - uniform).max() < 0.1  # and small (sd 0.01)


def test_batched_rejects_bad_input():
  tree = GameTree(pyspiel.load_game("tiny_hanabi"))
  good = tree.uniform_policy_array()[None]
  with pytest.raises(ValueError, match="shape"):
    tree_cfr.BatchedTreeCFRSolver(tree, good[0])
  with pytest.raises(ValueError, match="exploration"):
    tree_cfr.BatchedTreeCFRSolver(tree, good, exploration=-1.0)
  with pytest.raises(ValueError, match="noise seed"):
    tree_cfr.BatchedTreeCFRSolver(tree, good, exploration=0.01)


def test_batched_equals_unbatched_where_infosets_differ_in_size():
  """leduc_poker: (infoset, action) pairs with different numbers of histories (the batched
  solver's ungrouped accumulation path) and a zero-sum game (values per player)."""
  tree = GameTree(pyspiel.load_game("leduc_poker"))
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in (2, 7)])
  batched = tree_cfr.BatchedTreeCFRSolver(tree, init, alternating_updates=False)
  single = [tree_cfr.TreeCFRSolver(tree, alternating_updates=False, initial_policy=p)
            for p in init]
  for _ in range(3):
    for s in [batched] + single:
      s.evaluate_and_update_policy()
  cur, avg = batched.current_policy_array(), batched.average_policy_array()
  for b, s in enumerate(single):
    np.testing.assert_array_equal(cur[b], s.current_policy_array())
    np.testing.assert_array_equal(avg[b], s.average_policy_array())


def test_batched_float32_is_close_to_float64():
  """float32 (the JPS authors' arithmetic) follows float64 closely but is its own run."""
  tree = GameTree(pyspiel.load_game("simple_bidding(size=3)"))
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in (0, 1, 2)])
  kw = dict(alternating_updates=False)
  f64 = tree_cfr.BatchedTreeCFRSolver(tree, init, **kw)
  f32 = tree_cfr.BatchedTreeCFRSolver(tree, init, dtype=np.float32, **kw)
  for _ in range(30):
    f64.evaluate_and_update_policy()
    f32.evaluate_and_update_policy()
  c64, c32 = f64.current_policy_array(), f32.current_policy_array()
  assert c32.dtype == np.float32 and c64.dtype == np.float64
  assert np.abs(c64 - c32).max() < 1e-4
  assert np.abs(f64.average_policy_array() - f32.average_policy_array()).max() < 1e-4
  with pytest.raises(ValueError, match="dtype"):
    tree_cfr.BatchedTreeCFRSolver(tree, init, dtype=np.float16)


# ------------------------------------------------------------------------------------------
# The numba kernels of BatchedTreeCFRSolver in every configuration against OpenSpiel's own
# solver, seed by seed (pure starts exercise OpenSpiel's pruning of unreached histories).
@pytest.mark.parametrize("game_name,kw", [
    ("mini_bridge(size=2)", dict(alternating_updates=False, pure=True)),
    ("comm(length=2)", dict(alternating_updates=True)),
    ("simple_bidding(size=3)", dict(alternating_updates=True)),
    ("kuhn_poker(players=3)", dict(alternating_updates=True, linear_averaging=True)),
    ("leduc_poker", dict(alternating_updates=False, regret_matching_plus=True)),
    ("leduc_poker", dict(alternating_updates=True, linear_averaging=True,
                         regret_matching_plus=True))])
def test_batched_kernels_equal_openspiel(game_name, kw):
  kw = dict(dict(linear_averaging=False, regret_matching_plus=False), **kw)
  game = pyspiel.load_game(game_name)
  tree = GameTree(game)
  seeds = [0, 3, 8]
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in seeds])
  pure = kw.pop("pure", False)
  if pure:
    init = np.stack([tree.purified_policy_array(p) for p in init])
  batched = tree_cfr.BatchedTreeCFRSolver(tree, init, **kw)
  single = [tree_cfr.TreeCFRSolver(tree, initial_policy=p, **kw) for p in init]
  refs = []
  for p in init:
    ref = os_cfr._CFRSolver(game, **kw)
    ref.current_policy().action_probability_array[:] = tree.tabular_policy(
        p, template=ref.current_policy()).action_probability_array
    refs.append(ref)
  pruned_seen = False
  for _ in range(3 if game_name == "leduc_poker" else 8):
    for s in [batched] + single + refs:
      s.evaluate_and_update_policy()
    pruned_seen = pruned_seen or bool(batched._k["dpruned"].any())
  assert pruned_seen or not pure
  cur, avg = batched.current_policy_array(), batched.average_policy_array()
  for b in range(len(seeds)):
    np.testing.assert_array_equal(cur[b], single[b].current_policy_array())
    np.testing.assert_array_equal(avg[b], single[b].average_policy_array())
    assert np.abs(tree.policy_array(refs[b].current_policy()) - cur[b]).max() <= 1e-14
    assert np.abs(tree.policy_array(refs[b].average_policy()) - avg[b]).max() <= 1e-14
