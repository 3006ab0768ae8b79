"""`bridge_bidding(dataset=NAME)` takes the shipped dataset names, as every command does."""
import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401  (registers bridge_bidding)
from ospiel_team.bridge import dataset as dataset_lib

# The shipped sets' sizes, as ospiel_team/bridge/dataset.py documents how they were built.
SIZES = {"train": 50_000, "validation": 1_000, "heldout": 2_000, "heldout2": 4_000}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_a_shipped_name_loads_that_dataset(name):
  game = pyspiel.load_game(f"bridge_bidding(dataset={name})")
  assert game.max_chance_outcomes() == SIZES[name]
  # The game's deal i is deal i of the file the name stands for.
  data = dataset_lib.load_dataset(dataset_lib.named_dataset_path(name))
  state = game.new_initial_state()
  state.apply_action(SIZES[name] - 1)
  np.testing.assert_array_equal(state.holders, data.holders[SIZES[name] - 1])


def test_a_path_and_the_default_still_load():
  path = dataset_lib.named_dataset_path("validation")
  assert pyspiel.load_game(f"bridge_bidding(dataset={path})").max_chance_outcomes() == 1_000
  assert pyspiel.load_game("bridge_bidding").max_chance_outcomes() == SIZES["train"]


def test_an_unknown_name_is_an_error_naming_it():
  with pytest.raises(Exception, match="no_such_set"):
    pyspiel.load_game("bridge_bidding(dataset=no_such_set)")
