"""simple_bidding_optimum: the reach-set branch and bound (a numba kernel) against the MIP,
brute force, hand-checked totals and OpenSpiel's own evaluation of the strategies it returns."""

import pyspiel
import pytest
from open_spiel.python.algorithms import expected_game_score

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo
from ospiel_team.cli import coop_optimum as coop_optimum_cli


def _openspiel_value(size, strategy):
  game = pyspiel.load_game(f"simple_bidding(size={size})")
  pol = sbo.tabular_policy(game, strategy)
  return expected_game_score.policy_value(game.new_initial_state(), [pol, pol])[0]


# A joint pure strategy of simple_bidding(16) worth 10.75, as found by
# simple_bidding_search.local_search(16, restarts=3, seed=0) (about 5 minutes): public bids
# (actions, 1 = bid 1, ..., 5 = bid 16) -> the action of each card 0..15 of the player to move
# (-1: not reached). Its value here comes from OpenSpiel's evaluator, not from the search.
STRATEGY_16 = {
    "": [3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 4, 1, 1, 1, 1, 2],
    "1": [3, 3, 3, 2, 2, 4, 4, 4, 4, 4, 2, 2, 2, 2, 2, 2],
    "2": [3, 4, 4, 4, 4, 4, 4, 4, 3, 5, 5, 5, 5, 5, 5, 5],
    "3": [0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 5],
    "4": [0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5],
    "1 2": [-1, -1, -1, 3, 3, 4, 4, -1, -1, -1, -1, 4, 3, 5, 5, -1],
    "1 3": [-1, -1, -1, 0, 0, 0, 0, -1, -1, -1, -1, 4, 4, 4, 4, -1],
    "1 4": [-1, -1, -1, 0, 0, 0, 0, -1, -1, -1, -1, 5, 5, 5, 5, -1],
    "2 3": [-1, -1, -1, -1, -1, -1, -1, 0, 4, 4, -1, -1, -1, -1, -1, 4],
    "2 4": [-1, -1, -1, -1, -1, -1, -1, 0, 0, 0, -1, -1, -1, -1, -1, 5],
    "2 5": [-1, -1, -1, -1, -1, -1, -1, 0, 0, 0, -1, -1, -1, -1, -1, 0],
    "3 4": [0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1],
    "3 5": [0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1],
    "4 5": [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1, -1],
    "1 2 3": [-1, -1, -1, 0, 4, -1, -1, -1, -1, -1, 4, 4, 4, 5, 5, 5],
    "1 2 4": [-1, -1, -1, 0, 0, -1, -1, -1, -1, -1, 5, 5, 5, 5, 5, 5],
    "1 2 5": [-1, -1, -1, 0, 0, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0],
    "1 3 4": [0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1],
    "1 4 5": [-1, -1, -1, -1, -1, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1],
    "2 3 4": [0, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1, -1],
    "2 4 5": [-1, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1],
    "1 2 3 4": [-1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1, -1],
    "1 2 3 5": [-1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1],
    "1 2 4 5": [-1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, 0, -1, -1, -1, -1],
    "2 3 4 5": [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, 0],
    "1 2 3 4 5": [-1, -1, -1, -1, 0, -1, -1, -1, -1, -1, 0, 0, 0, -1, -1, -1],
}


def test_strategy_16_is_worth_10_75_by_openspiel():
  # Better than the MIP's 10.703125 (results/coop_optima/optima.md): a new lower bound.
  strategy = {tuple(int(t) for t in k.split()): {c: a for c, a in enumerate(v) if a >= 0}
              for k, v in STRATEGY_16.items()}
  assert _openspiel_value(16, strategy) == pytest.approx(10.75, abs=1e-12)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
def test_strategies_are_worth_their_value_by_openspiel(size):
  res = sbo.solve(size, hash_log2=16)
  assert res.proven_optimal
  assert _openspiel_value(size, res.strategy) == pytest.approx(res.value, abs=1e-12)


def test_size_2_by_hand():
  # Cards {0, 1}, bids 1 and 2. Full information scores 0 + 1 + 1 + 2 = 4 over the deals
  # (0,0), (0,1), (1,0), (1,1). P1 with 1 must open 1 (opening 2 loses (1,0)) and P2 must then
  # raise with 1 and pass with 0; P1 with 0 then loses (0,1) whatever it opens (after 1, P2 with
  # 1 raises to 2; 2 fails). So 3, reached e.g. by P1: 0 -> 1, 1 -> 2, P2 passing.
  res = sbo.solve(2, hash_log2=10)
  assert res.total == 3 and res.value == pytest.approx(0.75)


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_matches_the_mip(size):
  bb = sbo.solve(size, hash_log2=16)
  mip = coop_optimum.solve(f"simple_bidding(size={size})", method="mip")
  assert mip.proven_optimal
  assert bb.value == pytest.approx(mip.value, abs=1e-9)
  if size == 4:
    assert bb.value == pytest.approx(2.25)  # coop_optima.json, proven by the MIP


def test_matches_brute_force_size_3():
  bb = sbo.solve(3, hash_log2=16)
  brute = coop_optimum.solve("simple_bidding(size=3)", method="brute_force")
  assert bb.value == pytest.approx(brute.value, abs=1e-9)


def test_size_8_is_the_mip_optimum():
  # 5.0625 = 324 / 64 is the MIP's proven optimum (results/coop_optima/optima.json, 81 s);
  # test_size_8_mip_agrees re-proves it (slow).
  res = sbo.solve(8, hash_log2=20)
  assert res.total == 324
  assert _openspiel_value(8, res.strategy) == pytest.approx(5.0625, abs=1e-12)
  # With a lower bound equal to the optimum nothing better exists; one below finds it.
  none = sbo.solve(8, lower_bound=324, hash_log2=20)
  assert not none.proven_optimal and none.strategy is None and none.total == 324
  found = sbo.solve(8, lower_bound=323, hash_log2=20)
  assert found.proven_optimal and found.total == 324


@pytest.mark.parametrize("lower_bound", [None, 658])  # 658: the optimum (proves "none better")
def test_interrupted_search_resumes_to_the_same_answer(tmp_path, monkeypatch, lower_bound):
  # Interrupt the root search twice (at its 2nd and then 3rd pause after each resume), resume
  # from the checkpoint each time: the answer, the strategy and even the count of subgames
  # solved equal those of one uninterrupted search (the stack and memo are restored exactly).
  whole = sbo.solve(10, lower_bound=lower_bound, hash_log2=18)
  monkeypatch.setattr(sbo, "_CHUNK", 40)
  ck = str(tmp_path / "bb.npz")
  for stop_at in (2, 3):
    calls = []

    def progress(states, entries, calls=calls, stop_at=stop_at):
      calls.append(states)
      if len(calls) == stop_at:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
      sbo.solve(10, lower_bound=lower_bound, hash_log2=18, checkpoint=ck,
                checkpoint_seconds=1e9, progress=progress)
  resumed = sbo.solve(10, lower_bound=lower_bound, hash_log2=18, checkpoint=ck)
  assert resumed.states == whole.states > 3 * 40
  assert (resumed.total, resumed.proven_optimal) == (whole.total, whole.proven_optimal)
  assert resumed.strategy == whole.strategy
  with pytest.raises(ValueError, match="lower_bound"):
    sbo.solve(10, lower_bound=5, hash_log2=18, checkpoint=ck)
  with pytest.raises(ValueError, match="'size': 9"):
    sbo.solve(9, lower_bound=lower_bound, hash_log2=18, checkpoint=ck)


@pytest.mark.slow
def test_size_8_mip_agrees():
  mip = coop_optimum.solve("simple_bidding(size=8)", method="mip")
  bb = sbo.solve(8)
  assert mip.proven_optimal and mip.value == pytest.approx(bb.value, abs=1e-9)


def test_coop_optimum_method_bidding_bb():
  res = coop_optimum.solve("simple_bidding(size=4)", method="bidding_bb")
  assert res.method == "bidding_bb" and res.proven_optimal
  assert res.value == pytest.approx(2.25)
  with pytest.raises(ValueError, match="simple_bidding only, not tiny_hanabi"):
    coop_optimum.solve("tiny_hanabi", method="bidding_bb")
  with pytest.raises(ValueError, match="time_limit=5"):
    coop_optimum.solve("simple_bidding(size=4)", method="bidding_bb", time_limit=5)


def test_cli_bidding_bb_on_another_game_is_one_line(capsys):
  assert coop_optimum_cli.main(["prog", "--game", "tiny_hanabi", "--method", "bidding_bb"]) == 2
  err = capsys.readouterr().err.strip().splitlines()
  assert len(err) == 1 and "bidding_bb" in err[0]


@pytest.mark.parametrize("kwargs,match", [
    (dict(size=1), "size must be in"), (dict(size=30), "size=30"),
    (dict(size=2.5), "size must be an int"), (dict(size=4, hash_log2=35), "hash_log2"),
    (dict(size=4, lower_bound=-1), "lower_bound"), (dict(size=4, hash_log2=3), "hash_log2"),
])
def test_bad_input_names_the_value(kwargs, match):
  with pytest.raises(ValueError, match=match):
    sbo.solve(**kwargs)


def _full_information_total(size):
  bids = [1 << i for i in range(sbo._num_bids(size))]
  return sum(max([b for b in bids if x + y >= b], default=0)
             for x in range(size) for y in range(size))


@pytest.mark.parametrize("size", [4, 6])
def test_split_bound_brackets_the_optimum(size):
  exact = sbo.solve(size, hash_log2=16).total
  # One part: the game itself.
  one, _ = sbo.split_upper_bound(size, [list(range(size))], hash_log2=16)
  assert one == exact
  # Singletons: P2 is told P1's card, so the bound is the full-information total (closed form).
  singles, _ = sbo.split_upper_bound(size, [[c] for c in range(size)], hash_log2=16)
  assert singles == _full_information_total(size)
  # Any partition lies in between; a coarser one is at least as tight.
  half = size // 2
  two, parts = sbo.split_upper_bound(size, [list(range(half)), list(range(half, size))],
                                     hash_log2=16)
  assert exact <= two <= singles and two == sum(parts)


def test_split_bound_rejects_a_bad_partition():
  with pytest.raises(ValueError, match="partition"):
    sbo.split_upper_bound(4, [[0, 1], [1, 2, 3]])
  with pytest.raises(ValueError, match="card 7"):
    sbo.split_upper_bound(4, [[0, 1], [2, 7]])
