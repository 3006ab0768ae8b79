"""The one game resolver (`tree.resolve`) and the typed errors of the game assumptions."""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.algorithms.team import solver as team_solver
from ospiel_team.tree import game_tree
from ospiel_team.tree import memory
from ospiel_team.tree import resolve
from ospiel_team.tree import resolve_game
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.arrays import TreeArrays
from ospiel_team.tree.game_tree import GameTree


def test_string_game_and_tree_resolve_to_the_same_tree():
  by_string = resolve("kuhn_poker(players=3)")
  game = pyspiel.load_game("kuhn_poker(players=3)")
  by_game = resolve(game)
  assert by_game.game is game
  assert str(by_string.game) == str(game)
  for name in ("node_parent", "node_action", "node_player", "node_returns"):
    np.testing.assert_array_equal(getattr(by_string, name), getattr(by_game, name))
  assert resolve(by_game) is by_game  # a tree is returned as it is, never walked again
  assert resolve_game(by_game) is game
  assert resolve_game("kuhn_poker").get_type().short_name == "kuhn_poker"


def test_bad_game_likes_name_the_argument():
  with pytest.raises(errors.UserError, match=r"^game='kuhn_pokr' .*unknown game 'kuhn_pokr'; "
                                             "did you mean kuhn_poker"):
    resolve("kuhn_pokr")
  with pytest.raises(errors.UserError, match=r"^--game='kuhn_poker\(players=1\)'"):
    resolve("kuhn_poker(players=1)", name="--game")
  with pytest.raises(errors.UserError, match="^tree_like must be"):
    resolve(3, name="tree_like")


def test_time_limit_and_turn_based_are_checked_at_the_edge():
  with pytest.raises(memory.WalkTimeLimitError):
    resolve("leduc_poker", time_limit=1e-6)
  with pytest.raises(errors.NotTurnBasedError, match="turn_based_simultaneous_game"):
    resolve("goofspiel(num_cards=3)", turn_based=True)


def _imperfect_recall_arrays() -> TreeArrays:
  """Player 0 moves at the root (infoset A), then again at both children in one infoset B.

  B's two histories follow different own actions at A: player 0 forgot its first move.
  """
  int64 = lambda *v: np.asarray(v, dtype=np.int64)  # noqa: E731
  returns = np.zeros((7, 2))
  returns[3:, 0] = [1.0, -1.0, 2.0, -2.0]
  returns[:, 1] = -returns[:, 0]
  return TreeArrays(
      node_parent=int64(-1, 0, 0, 1, 1, 2, 2), node_action=int64(-1, 0, 1, 0, 1, 0, 1),
      node_player=int64(0, 0, 0, -4, -4, -4, -4),
      node_depth=np.asarray([0, 1, 1, 2, 2, 2, 2], dtype=np.int32),
      node_infoset=int64(0, 1, 1, -1, -1, -1, -1), node_chance_prob=np.ones(7),
      node_returns=returns, infoset_player=int64(0, 0), infoset_legal=np.ones((2, 2), bool),
      infoset_keys=("A", "B"))


def test_imperfect_recall_is_its_own_error_type():
  game = pyspiel.load_game("kuhn_poker")
  with pytest.raises(errors.ImperfectRecallError, match="perfect recall for player 0"):
    GameTree.from_arrays(game, _imperfect_recall_arrays())
  assert issubclass(errors.ImperfectRecallError, errors.GameAssumptionError)
  assert issubclass(errors.GameAssumptionError, errors.UserError)


def test_assumption_errors_are_typed():
  with pytest.raises(errors.NotZeroSumError, match="not zero-sum"):
    teams_lib.check_assumptions("tiny_hanabi", "0|1")
  tree = resolve("tiny_hanabi")
  with pytest.raises(errors.NotZeroSumError):
    teams_lib.check_team_game(tree, "0|1")


def test_team_solve_resolves_its_game_once(monkeypatch):
  """A game string is loaded once, walked once and checked once by `solve`, however deep it
  goes (its methods and decompositions check the tree they are given again: answered by
  `teams`' record of the trees it checked)."""
  loads, walks, timeable = [], [], []
  real_timeable = teams_lib._check_timeable
  real_load, real_init = checks.load_game, game_tree.GameTree.__init__

  def counting_load(name, text):
    loads.append(text)
    return real_load(name, text)

  def counting_init(self, game, **kwargs):
    walks.append(str(game))
    real_init(self, game, **kwargs)

  monkeypatch.setattr(checks, "load_game", counting_load)
  monkeypatch.setattr(teams_lib, "_check_timeable",
                      lambda tree: timeable.append(tree) or real_timeable(tree))
  monkeypatch.setattr(game_tree.GameTree, "__init__", counting_init)
  res = team_solver.solve("kuhn_poker(players=3)", "0,1|2", method="lp")
  assert loads == ["kuhn_poker(players=3)"] and walks == ["kuhn_poker(players=3)"]
  assert len(timeable) == 1
  assert round(res.value, 4) == -0.0417  # 21K4's TMECor value (Zhang & Sandholm, Table 1)
