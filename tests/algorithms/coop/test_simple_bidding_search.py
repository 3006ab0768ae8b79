"""simple_bidding_search: plan counts by hand, and the search reaches the proven optima."""

import pyspiel
import pytest
from open_spiel.python.algorithms import expected_game_score

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo
from ospiel_team.algorithms.coop import simple_bidding_search as sbs


@pytest.mark.parametrize("size,p1,p2", [(4, 4, 6), (16, 40, 330)])
def test_plan_counts_by_hand(size, p1, p2):
  # Bids 1, 2, 4 (size 4): P1 opens 4 (1 plan), 2 (P2 passes or bids 4: 1 plan) or 1 (after
  # P2's 2, P1 passes or bids 4: 2 plans) = 4; P2 answers 1 with Pass, 2 or 4 (3), 2 with Pass
  # or 4 (2), 4 with Pass (1): 3 * 2 * 1 = 6. Bids 1..16 (size 16): P1 has f(j) plans after
  # opening bid j, f(j) = prod over P2's answers b > j of (1 + sum_{c > b} f(c)):
  # f(16) = f(8) = 1, f(4) = 2, f(2) = 6, f(1) = 30: 40; P2 has g(j) = 1 + sum_{c > j} h(c)
  # answers to bid j with h(c) = prod_{d > c} g(d): g = 11, 5, 3, 2, 1: 330.
  a, b = sbs.plans(size)
  assert (len(a), len(b)) == (p1, p2)


@pytest.mark.parametrize("size,restarts,value", [(4, 1, 2.25), (8, 2, 5.0625)])
def test_search_reaches_the_proven_optimum(size, restarts, value):
  # 2.25 and 5.0625: proven by the MIP (coop_optima.json) and by simple_bidding_optimum.
  res = sbs.local_search(size, restarts=restarts)
  assert res.value == pytest.approx(value)
  game = pyspiel.load_game(f"simple_bidding(size={size})")
  pol = sbo.tabular_policy(game, res.strategy)
  assert expected_game_score.policy_value(game.new_initial_state(),
                                          [pol, pol])[0] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("kwargs,match", [
    (dict(size=1), "size must be an integer >= 2, got 1"),
    (dict(size=4, restarts=0), "restarts must be an integer >= 1, got 0"),
    (dict(size=4, seed=-1), "seed must be an integer >= 0, got -1"),
    (dict(size=4, max_plan_pairs=1.5), "max_plan_pairs must be an integer >= 1, got 1.5")])
def test_bad_input(kwargs, match):
  with pytest.raises(ValueError, match=match):
    sbs.local_search(**kwargs)


def _openspiel_value(size, strategy):
  game = pyspiel.load_game(f"simple_bidding(size={size})")
  pol = sbo.tabular_policy(game, strategy)
  return expected_game_score.policy_value(game.new_initial_state(), [pol, pol])[0]


def test_root_partition_search_totals_are_scored_by_openspiel():
  # From a poor opening partition of size 6 (0-3 open 1, 4 opens 2, 5 opens 4): the total it
  # reports must be what OpenSpiel's evaluator gives its strategy, and it may not be below the
  # start's exact value nor above the optimum (simple_bidding_optimum, which equals the MIP at
  # N <= 6: test_simple_bidding_optimum.py).
  start = [0b1111, 0b10000, 0b100000, 0]
  opt = sbo.solve(6, hash_log2=16)
  res = sbs.root_partition_search(6, start, hash_log2=16)
  assert _openspiel_value(6, res.strategy) == pytest.approx(res.total / 36, abs=1e-12)
  assert res.total <= opt.total
  mover = sbo.Solver(6, 16)
  start_total = sum(mover.value(c, 63, g) for c, g in enumerate(start) if g)
  assert res.total >= start_total
  # Started at the optimum's own opening partition it stays there with the optimum's total.
  groups = [0] * 4
  for card, action in opt.strategy[()].items():
    groups[action - 1] |= 1 << card
  at_opt = sbs.root_partition_search(6, groups, hash_log2=16)
  assert at_opt.total == opt.total and at_opt.groups == groups


def test_root_partition_search_rejects_a_bad_start():
  with pytest.raises(ValueError, match="disjoint bitmasks"):
    sbs.root_partition_search(8, [0b1111, 0b11110000, 0, 1])


def test_root_partition_search_pair_moves_only_improve():
  # Size 6 (bids 1, 2, 4, 8): every card opens 1 at the start. Pair moves search a superset of
  # the neighbourhood, so they end at least as high; OpenSpiel scores both strategies, and
  # neither exceeds the optimum (simple_bidding_optimum, which agrees with the MIP at N <= 6).
  start = [0b111111, 0, 0, 0]
  plain = sbs.root_partition_search(6, start, hash_log2=16)
  pairs = sbs.root_partition_search(6, start, hash_log2=16, pair_moves=True)
  opt = sbo.solve(6, hash_log2=16).total
  assert plain.total <= pairs.total <= opt
  for res in (plain, pairs):
    assert _openspiel_value(6, res.strategy) == pytest.approx(res.total / 36, abs=1e-12)
