"""The argument-check family (`ospiel_team.checks`) against hand-written cases and Python's own
number semantics (hypothesis)."""

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ospiel_team import checks
from ospiel_team.errors import UserError

BOOLS = [True, False, np.bool_(True)]


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_check_int_accepts_python_and_numpy_integers(value):
  out = checks.check_int("n", value, minimum=1)
  assert out == 3 and type(out) is int


@pytest.mark.parametrize("value", [*BOOLS, 3.0, np.float32(3), "3", None, [3]])
def test_check_int_refuses_non_integers_naming_argument_and_value(value):
  with pytest.raises(UserError, match=r"^n must be an integer >= 1, got "):
    checks.check_int("n", value, minimum=1)


def test_check_int_bounds_are_inclusive():
  assert checks.check_int("n", 1, minimum=1, maximum=1) == 1
  with pytest.raises(UserError, match="n must be an integer from 1 to 2, got 3"):
    checks.check_int("n", 3, minimum=1, maximum=2)
  assert checks.check_int("n", None, allow_none=True) is None
  with pytest.raises(UserError, match="or None, got 0"):
    checks.check_int("n", 0, minimum=1, allow_none=True)


@pytest.mark.parametrize("value", [1.5, np.float32(1.5), np.float64(1.5), 2, np.int32(2)])
def test_check_real_accepts_numpy_scalars(value):
  out = checks.check_real("alpha", value, above=0)
  assert out == float(value) and type(out) is float


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float32("nan"), *BOOLS,
                                   "1", None, 1j])
def test_check_real_refuses_nonfinite_bools_and_strings(value):
  with pytest.raises(UserError, match=r"^alpha must be a finite number >= 0, got "):
    checks.check_real("alpha", value, minimum=0)


def test_check_real_exclusive_bounds():
  with pytest.raises(UserError, match=r"gamma must be a finite number > 0 and < 1, got 1"):
    checks.check_real("gamma", 1, above=0, below=1)
  with pytest.raises(UserError, match=r"gamma must be a finite number > 0 and < 1, got 0"):
    checks.check_real("gamma", 0, above=0, below=1)
  assert checks.check_real("gamma", 0.5, above=0, below=1) == 0.5


@given(st.floats(allow_nan=True, allow_infinity=True),
       st.one_of(st.none(), st.floats(-10, 10)), st.one_of(st.none(), st.floats(-10, 10)))
def test_check_real_agrees_with_direct_comparison(x, lo, hi):
  ok = math.isfinite(x) and (lo is None or x >= lo) and (hi is None or x <= hi)
  try:
    checks.check_real("x", x, minimum=lo, maximum=hi)
    accepted = True
  except UserError as e:
    accepted = False
    assert str(e).startswith("x must be a finite number") and repr(x) in str(e)
  assert accepted == ok


@given(st.integers(-10**20, 10**20), st.integers(-5, 5))
def test_check_int_agrees_with_direct_comparison(n, lo):
  try:
    out = checks.check_int("n", n, minimum=lo)
    assert out == n
    accepted = True
  except UserError:
    accepted = False
  assert accepted == (n >= lo)


def test_check_bool():
  assert checks.check_bool("verify", np.bool_(False)) is False
  for value in (0, 1, "True", None):
    with pytest.raises(UserError, match=r"^verify must be a bool, got "):
      checks.check_bool("verify", value)
  assert checks.check_bool("verify", None, allow_none=True) is None


def test_check_choice_and_type():
  assert checks.check_choice("schedule", "passes", ("passes", "reference")) == "passes"
  with pytest.raises(UserError, match="schedule must be one of 'passes', 'reference', got 1"):
    checks.check_choice("schedule", 1, ("passes", "reference"))
  with pytest.raises(UserError, match="game must be a pyspiel.Game, got str 'kuhn_poker'"):
    checks.check_type("game", "kuhn_poker", (int,), "a pyspiel.Game")


def test_check_int_sequence():
  assert checks.check_int_sequence("team", np.array([0, 2]), minimum=0) == (0, 2)
  for value in ("01", [0, 1.0], [0, True], [-1], 5):
    with pytest.raises(UserError, match="team"):
      checks.check_int_sequence("team", value, minimum=0)


def test_requirement_phrases():
  assert checks.requirement(integer=True, minimum=1) == "an integer >= 1"
  assert checks.requirement(minimum=0, maximum=1) == "a finite number from 0 to 1"
  assert checks.requirement(above=0) == "a finite number > 0"
  assert checks.requirement(above=0, maximum=2) == "a finite number > 0 and <= 2"


def test_integers_beyond_float_range_are_compared_exactly():
  huge = 10**400  # float(huge) would raise OverflowError
  assert checks.check_int("n", huge, minimum=1) == huge
  with pytest.raises(UserError, match=r"^n must be an integer from 1 to 5, got 1000"):
    checks.check_int("n", huge, minimum=1, maximum=5)
  with pytest.raises(UserError, match=r"^x must be a finite number >= 0, got 1000"):
    checks.check_real("x", huge, minimum=0)
  assert checks.check_int_sequence("seeds", [huge], minimum=0) == (huge,)


def test_check_game_tree_and_load_game():
  import pyspiel

  from ospiel_team.tree.game_tree import GameTree
  game = pyspiel.load_game("kuhn_poker")
  tree = GameTree(game)
  assert checks.check_game("game", game) is game
  assert checks.check_game("game", tree, allow_tree=True) is tree
  assert checks.check_game("game", "kuhn_poker", allow_string=True) == "kuhn_poker"
  assert checks.check_tree("tree", tree) is tree
  for value, allowed in [("kuhn_poker", "a pyspiel.Game, got str"),
                         (tree, "a pyspiel.Game, got GameTree"), (None, "a pyspiel.Game, got")]:
    with pytest.raises(UserError, match=f"^game must be {allowed}"):
      checks.check_game("game", value)
  with pytest.raises(UserError, match="^game must be a pyspiel.Game, a game string or a "
                                      "GameTree, got int 3"):
    checks.check_game("game", 3, allow_string=True, allow_tree=True)
  with pytest.raises(UserError, match="^tree must be a GameTree, got Game"):
    checks.check_tree("tree", game)
  assert str(checks.load_game("game", "kuhn_poker(players=3)")) == "kuhn_poker(players=3)"
  for text in ("no_such_game", "kuhn_poker(players=", ""):
    with pytest.raises(UserError, match=f"^game={re.escape(repr(text))} is not a game|"
                                        "^game must be a game string"):
      checks.load_game("game", text)
