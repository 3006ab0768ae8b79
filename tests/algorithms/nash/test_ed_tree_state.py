"""Exploitability Descent keeps its per-tree state (jitted step functions, precision) itself,
never on the immutable `GameTree`, and that state does not keep the tree alive."""

import functools
import gc
import weakref

import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.nash import exploitability_descent as ed
from ospiel_team.tree.game_tree import GameTree


def test_exploitability_descent_keeps_its_cache_off_the_tree():
  """ED shares one compilation per tree and settings, stores nothing on the tree, and its
  cache does not keep the tree alive."""
  game = pyspiel.load_game("kuhn_poker")
  tree = GameTree(game)
  first = ed.TabularEDSolver(game, tree=tree)
  second = ed.TabularEDSolver(game, tree=tree)
  assert first._step_fn is second._step_fn
  first.step()
  cached = {n for n, v in vars(GameTree).items() if isinstance(v, functools.cached_property)}
  assert set(vars(tree)) - cached == {"game", "arrays", "builder", "num_players", "num_actions",
                                      "num_nodes", "num_infosets", "_walked_states"}
  with pytest.raises(ValueError, match="x64=True"):
    ed.TabularEDSolver(game, tree=tree, x64=False)
  gone = weakref.ref(tree)
  del tree, first, second
  gc.collect()
  assert gone() is None
