"""GameTree refuses what it cannot hold or represent: policy arrays that are not
distributions (one validator for every entry point) and trees past a memory budget."""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team import errors
from ospiel_team.tree import memory
from ospiel_team.tree.game_tree import GameTree


@pytest.fixture(scope="module")
def kuhn_tree():
  return GameTree(pyspiel.load_game("kuhn_poker"))


def _bad_arrays(tree):
  uniform = tree.uniform_policy_array()
  nan, double, negative = uniform.copy(), uniform.copy(), uniform.copy()
  nan[3, 0] = np.nan
  double[3] *= 2  # a row summing to 2
  negative[3] = [1.5, -0.5]
  return {"nan": nan, "double": double, "negative": negative,
          "transposed": uniform.T.copy()}


@pytest.mark.parametrize("kind,needle", [("nan", "not finite"), ("double", "sums to 2"),
                                         ("negative", "negative probability -0.5"),
                                         ("transposed", "transposed")])
def test_tabular_policy_rejects_what_validate_policy_array_rejects(kuhn_tree, kind, needle):
  pi = _bad_arrays(kuhn_tree)[kind]
  with pytest.raises(ValueError) as expected:
    kuhn_tree.validate_policy_array(pi)
  with pytest.raises(ValueError, match=needle) as got:
    kuhn_tree.tabular_policy(pi)
  assert str(got.value) == str(expected.value)


def test_tabular_policy_of_a_valid_array_round_trips(kuhn_tree):
  pi = kuhn_tree.uniform_policy_array()
  pi[3] = [0.25, 0.75]
  np.testing.assert_array_equal(kuhn_tree.policy_array(kuhn_tree.tabular_policy(pi)), pi)


def test_a_tree_past_its_memory_budget_is_refused_naming_the_size():
  game = pyspiel.load_game("team_leduc(players=6)")
  with pytest.raises(memory.TreeTooLargeError, match="max_memory=100,000,000") as e:
    GameTree(game, max_memory=100_000_000)
  assert isinstance(e.value, errors.SizeLimitError) and isinstance(e.value, ValueError)
  assert not isinstance(e.value, MemoryError)  # a limit the caller set, not the interpreter's
  needed = int(str(e.value).split("needs more than ")[1].split(" bytes")[0].replace(",", ""))
  assert needed > 100_000_000


def test_the_default_budget_comes_from_the_available_memory(monkeypatch):
  monkeypatch.setattr(memory, "available_memory", lambda: 160_000_000)
  assert memory.default_max_memory() == 120_000_000
  with pytest.raises(memory.TreeTooLargeError, match="max_memory=120,000,000"):
    GameTree(pyspiel.load_game("team_leduc(players=6)"))
  # A small game fits the same budget.
  assert GameTree(pyspiel.load_game("team_leduc(players=3)")).num_nodes > 0


def test_available_memory_is_known_here_and_below_the_machine_total():
  with open("/proc/meminfo", encoding="ascii") as f:
    total = int(next(ln for ln in f if ln.startswith("MemTotal:")).split()[1]) * 1024
  room = memory.available_memory()
  assert room is not None and 0 < room <= total


@pytest.mark.parametrize("bad", [0, -5, 1.5, "1GB"])
def test_bad_max_memory_is_named(bad):
  with pytest.raises(ValueError, match=f"max_memory must be .* got {bad!r}"):
    GameTree(pyspiel.load_game("kuhn_poker"), max_memory=bad)
