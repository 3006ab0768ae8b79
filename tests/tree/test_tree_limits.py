"""GameTree refuses what it cannot hold or represent: policy arrays that are not
distributions (one validator for every entry point), trees past a memory budget or a time
limit (before the walk when the size estimate says so, else during it), and bad limits."""

import time

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team import errors
from ospiel_team.tree import builders
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


@pytest.mark.parametrize("bad", [True, np.bool_(True), float("nan"), float("inf"), -2])
def test_bools_and_non_finite_max_memory_are_refused(bad):
  with pytest.raises(errors.UserError, match="max_memory must be a number of bytes"):
    GameTree(pyspiel.load_game("kuhn_poker"), max_memory=bad)


def _no_walk(monkeypatch):
  def walk_arrays(*args, **kwargs):
    raise AssertionError("walked a game that should have been refused before its walk")
  monkeypatch.setattr(builders, "walk_arrays", walk_arrays)


def test_one_byte_is_refused_before_the_walk(monkeypatch):
  _no_walk(monkeypatch)
  with pytest.raises(memory.TreeTooLargeError, match="max_memory=1 bytes") as e:
    GameTree(pyspiel.load_game("comm(length=5)"), max_memory=1)
  # comm(length=5), as its walk counts it: every history at least `BYTES_PER_HISTORY` bytes.
  assert f"at least {_comm_histories(5):,} histories" in str(e.value)
  assert f"{_comm_histories(5) * memory.BYTES_PER_HISTORY:,} bytes" in str(e.value)


def _comm_histories(length: int) -> int:
  """comm(length): the root deals s1 (2^length outcomes), the sender sends the signal word one
  bit a step, then the receiver guesses (2^length terminal histories per word and s1)."""
  n = 2 ** length
  return 1 + n + n * sum(2 ** k for k in range(1, length + 1)) + n * n * n


def test_the_comm_count_is_the_walks():
  assert GameTree(pyspiel.load_game("comm(length=3)")).num_nodes == _comm_histories(3)


@pytest.mark.parametrize("budget", [1.5e9, np.float64(2e9), 10**10])
def test_a_whole_float_budget_is_a_number_of_bytes(budget):
  game = pyspiel.load_game("comm(length=3)")
  tree, free = GameTree(game, max_memory=budget), GameTree(game, max_memory=None)
  assert tree.num_nodes == free.num_nodes == _comm_histories(3)
  for name in ("node_parent", "node_returns", "infoset_legal"):
    np.testing.assert_array_equal(getattr(tree.arrays, name), getattr(free.arrays, name))


@pytest.mark.parametrize("text", ["kuhn_poker(players=3)", "leduc_poker", "tiny_hanabi",
                                  "mini_bridge(size=3)", "team_kuhn(players=4)",
                                  "comm(length=4)"])
def test_the_size_estimate_agrees_with_the_walk(text):
  game = pyspiel.load_game(text)
  size = builders.estimate_size(game)
  walked = GameTree(game, max_memory=None).num_nodes
  assert size.low <= walked  # the refusals rest on the low end: it must not overshoot
  assert walked / 2 <= size.histories <= 2 * walked
  again = builders.estimate_size(game)  # seeded: the same playouts
  assert (again.histories, again.low, again.how) == (size.histories, size.low, size.how)


def test_a_game_far_past_the_machine_is_refused_at_once(monkeypatch):
  _no_walk(monkeypatch)
  t0 = time.monotonic()
  with pytest.raises(errors.SizeLimitError, match="refusing before walking") as e:
    GameTree(pyspiel.load_game("team_leduc(players=6)"))
  assert time.monotonic() - t0 < 10
  assert "random playouts estimate" in str(e.value) and "histories" in str(e.value)


def test_time_limit_stops_a_walk():
  with pytest.raises(memory.WalkTimeLimitError, match="time_limit=1e-06") as e:
    GameTree(pyspiel.load_game("leduc_poker"), time_limit=1e-6)
  assert isinstance(e.value, TimeoutError) and "unfinished" in str(e.value)
  assert GameTree(pyspiel.load_game("leduc_poker"), time_limit=60).num_nodes == 9457


def test_a_walk_estimated_past_its_time_limit_is_refused_before_it_starts(monkeypatch):
  _no_walk(monkeypatch)
  with pytest.raises(memory.WalkTimeLimitError, match="refusing before walking"):
    GameTree(pyspiel.load_game("team_leduc(players=4)"), time_limit=2)


@pytest.mark.parametrize("bad", [-1, float("nan"), True, "10"])
def test_bad_time_limit_is_named(bad):
  with pytest.raises(errors.UserError, match="time_limit"):
    GameTree(pyspiel.load_game("kuhn_poker"), time_limit=bad)
