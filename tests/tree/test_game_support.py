"""The tree core names no game: what it uses from a game comes from the game's own class."""

import ast
import os
import re

import pyspiel
import pytest

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.tree import game_support
from ospiel_team.tree.game_tree import GameTree
from tests import repo as tests_repo

TREE_DIR = os.path.join(tests_repo.REPO, "ospiel_team", "tree")
GAMES_DIR = os.path.join(tests_repo.REPO, "ospiel_team", "games")


def _package_game_names():
  """Short names of this package's games, read from their modules' `pyspiel.GameType`s."""
  names = set()
  for f in os.listdir(GAMES_DIR):
    if not f.endswith(".py"):
      continue
    tree = ast.parse(open(os.path.join(GAMES_DIR, f), encoding="utf-8").read())
    for node in ast.walk(tree):
      if isinstance(node, ast.keyword) and node.arg == "short_name":
        names.add(node.value.value)
  return names


def test_tree_modules_import_no_game_module_and_name_no_game():
  names = _package_game_names()
  assert {"team_goofspiel", "team_leduc", "bridge_bidding"} <= names  # parsed at all
  for f in sorted(os.listdir(TREE_DIR)):
    if not f.endswith(".py"):
      continue
    tree = ast.parse(open(os.path.join(TREE_DIR, f), encoding="utf-8").read())
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    for node in ast.walk(tree):
      if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ospiel_team.games"):
        # cheap_clone holds list types shared by the games' states, not a game; team_instances
        # is the list of Table 1 instances (game strings and teams) that `teams` looks up.
        allowed = {"cheap_clone"} | ({"team_instances"} if f == "teams.py" else set())
        assert node.module in {f"ospiel_team.games.{m}" for m in allowed} or (
            node.module == "ospiel_team.games" and {a.name for a in node.names} <= allowed), (
                f, node.module)
      if isinstance(node, ast.Import):
        assert not any(a.name.startswith("ospiel_team.games") for a in node.names), f
      if (isinstance(node, ast.Constant) and isinstance(node.value, str)
          and id(node) not in docstrings):
        # a game's name as a word ("comm" in "comm(length=3)", not in "is_common_payoff")
        assert not any(re.search(rf"\b{re.escape(name)}\b", node.value) for name in names), (
            f, node.value)


@pytest.mark.parametrize("game_string, exact, shadow, vector", [
    ("team_goofspiel(players=2,num_cards=2)", True, True, True),
    ("team_kuhn(players=3,ranks=4)", True, True, False),
    ("team_leduc(players=3,ranks=2,suits=2)", False, True, False),
    ("team_liars_dice(players=2,sides=2)", True, True, False),
    ("comm(length=1)", True, False, False),
    ("kuhn_poker", False, False, False),
])
def test_lookup_reads_the_game_class(game_string, exact, shadow, vector):
  game = pyspiel.load_game(game_string)
  support = game_support.lookup(game)
  assert support.name == game.get_type().short_name
  assert support.terminal_count_exact == exact
  assert support.shadow_walk == shadow
  assert (support.vector_builder is not None) == vector
  assert (support.terminal_count is None) == (game_string == "kuhn_poker")
  assert game_support.lookup(game) is support  # kept per game name
  assert GameTree(game).builder == ("vector" if vector else "shadow" if shadow else "walk")


def test_refusal_says_at_least_for_a_lower_bound_only():
  with pytest.raises(ValueError, match=r"has at least 6 terminal histories"):
    GameTree(pyspiel.load_game("team_leduc(players=3,ranks=2,suits=2)"), max_nodes=5)
  with pytest.raises(ValueError, match=r"has 312 terminal histories"):
    GameTree(pyspiel.load_game("team_kuhn(players=3,ranks=4)"), max_nodes=100)
