"""Yeh & Lin 2016's uncontested cost: hand-computed cases, the best contract costs 0, redeals."""
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge.agents import uncontested as U


def _tiny_case():
  """One N-S pair, k = 2 redeals; only NT makes tricks (others: 0 tricks)."""
  t = np.zeros((1, 2, 5, 4), np.uint8)
  t[0, 0, 4] = [9, 4, 7, 4]    # redeal 1: N 9 NT tricks, S 7 -> best N-S declarer takes 9
  t[0, 1, 4] = [8, 3, 10, 3]   # redeal 2: S takes 10
  return t


def test_cost_matches_hand_computation():
  costs = U.cost_vectors(_tiny_case())[0]
  # Averages by hand (non-vulnerable, best declarer per redeal: 9 and 10 NT tricks):
  # 3NT: (400 + 430) / 2 = 415 (the best); 1NT: (150 + 180) / 2 = 165;
  # 4NT: (-50 + 430) / 2 = 190; Pass: 0; 1C (0 tricks, 7 down): -350.
  idx = {name: i for i, name in enumerate(["Pass"] + [A.call_string(3 + j) for j in range(35)])}
  assert costs[idx["3NT"]] == 0
  assert costs[idx["1NT"]] == 6    # 250 -> 6 IMPs (220-260)
  assert costs[idx["4NT"]] == 6    # 225 -> 6 IMPs
  assert costs[idx["Pass"]] == 9   # 415 -> 9 IMPs (370-420)
  assert costs[idx["1C"]] == 13    # 765 -> 13 IMPs (750-890)
  assert costs.min() == 0 and np.sum(costs == 0) == 1


class ScriptedBidder:
  """North bids `call_for(hand)` at its first turn, then everybody passes."""
  name = "scripted"

  def __init__(self, table):
    self.table = table  # bytes of North's 52 card bits -> call

  def act(self, obs, uniforms):
    del uniforms
    out = np.zeros(len(obs), np.int64)
    for i, o in enumerate(obs):
      nobody_bid = not o[A.OBS_BIDS:A.OBS_DOUBLED].any()
      key = bytes((o[:52] > 0.5).astype(np.uint8))
      if nobody_bid and key in self.table and o[A.OBS_LEGAL + self.table[key]] > 0.5:
        out[i] = self.table[key]
    return out


def _cost_data(n=30, k=3, seed=0):
  rng = np.random.default_rng(seed)
  base = deal_lib.random_holders(rng, n)
  red = U.redeal_east_west(base, k, rng)
  red[:, 0] = base
  tricks = rng.integers(3, 13, size=(n, k, 5, 4)).astype(np.uint8)  # any valid tables
  return {"holders": base, "redeal_holders": red, "dd_tricks": tricks}


def test_reaching_the_best_contract_costs_zero_and_reached_costs_match():
  data = _cost_data()
  costs = U.cost_vectors(data["dd_tricks"])
  best = costs.argmin(axis=1)
  table = {}
  for h, c in zip(data["holders"], best):
    table[bytes((h == 0).astype(np.uint8))] = 0 if c == 0 else 2 + c  # contract 1+j -> call 3+j
  bidder = ScriptedBidder(table)
  reached = U.reached_contracts(bidder, data["holders"])
  np.testing.assert_array_equal(reached, best)
  res = U.evaluate_costs(bidder, data)
  assert res["mean_cost"] == 0.0 and res["fraction_best"] == 1.0
  # A fixed 1NT opening: its cost is the 1NT entry of each cost vector.
  res = U.evaluate_costs(ScriptedBidder({k: A.bid_call(1, 4) for k in table}), data)
  assert res["mean_cost"] == pytest.approx(costs[:, 1 + 4].mean())


def test_passing_bidder_reaches_pass_out():
  data = _cost_data(n=5)
  reached = U.reached_contracts(ScriptedBidder({}), data["holders"])
  np.testing.assert_array_equal(reached, 0)


def test_redeals_keep_north_south_and_deal_east_west():
  rng = np.random.default_rng(3)
  base = deal_lib.random_holders(rng, 4)
  red = U.redeal_east_west(base, 5, rng)
  for i in range(4):
    for j in range(5):
      deal_lib.validate_holders(red[i, j])
      ns = (base[i] == 0) | (base[i] == 2)
      np.testing.assert_array_equal(red[i, j][ns], base[i][ns])
      assert set(np.unique(red[i, j][~ns])) == {1, 3}
  assert len({bytes(red[i, j]) for i in range(4) for j in range(5)}) == 20


def test_single_deal_costs_use_the_actual_table():
  d = dataset_lib.load_dataset()
  c1 = U.single_deal_costs(d.dd_tricks[:20])
  c2 = U.cost_vectors(np.repeat(d.dd_tricks[:20, None], 3, axis=1))  # k identical redeals
  np.testing.assert_array_equal(c1, c2)
  assert np.all(c1.min(axis=1) == 0)


def test_cost_dataset_build_resume_and_dds(tmp_path):
  from ospiel_team.bridge import dds  # pylint: disable=g-import-not-at-top
  out = str(tmp_path / "cost.npz")
  d1 = U.build_cost_dataset(2, out, k=2, chunk=1, progress=False, keep_chunks=True)
  loaded = U.load_cost_dataset(out)
  np.testing.assert_array_equal(loaded["dd_tricks"], d1["dd_tricks"])
  np.testing.assert_array_equal(dds.dd_table(loaded["redeal_holders"][1, 1]),
                                loaded["dd_tricks"][1, 1])
  import os  # pylint: disable=g-import-not-at-top
  os.remove(out)
  d2 = U.build_cost_dataset(2, out, k=2, chunk=1, progress=False)  # from the chunk files
  np.testing.assert_array_equal(d2["redeal_holders"], d1["redeal_holders"])
  with pytest.raises(ValueError, match="does not exist"):
    U.load_cost_dataset(str(tmp_path / "nope.npz"))
  with pytest.raises(ValueError, match="k must be"):
    U.redeal_east_west(d1["holders"], 0, np.random.default_rng(0))


def test_round_q_protocol_with_scripted_q_values():
  q = U.RoundQLearner(rounds=3)
  plan = {0: 1, 1: 5, 2: 0}  # round 1: 1C, round 2: 1NT, round 3: Pass

  def fake_q(t, hands, bids):
    v = np.ones((len(hands), U.NUM_CONTRACTS))
    v[:, plan[t]] = 0.0
    return v

  q.q_values = fake_q
  holders = deal_lib.random_holders(np.random.default_rng(0), 3)
  np.testing.assert_array_equal(q.reached(holders), [5, 5, 5])
  plan[0] = 0  # a Pass in round 1 passes the deal out
  np.testing.assert_array_equal(q.reached(holders), [0, 0, 0])
  plan.update({0: 10, 1: 3})  # 2NT then an illegal lower bid: the lowest-cost legal call wins
  reached = q.reached(holders)
  assert np.all(reached >= 10)


def test_round_q_learns_a_one_card_rule():
  # Best contract 4S (index 1 + 18) when North holds the spade ace, else Pass.
  rng = np.random.default_rng(0)
  holders = deal_lib.random_holders(rng, 4000)
  has_ace = holders[:, 51] == 0  # card 51 = ace of spades
  costs = np.full((4000, U.NUM_CONTRACTS), 10.0)
  costs[has_ace, 1 + 18] = 0.0
  costs[~has_ace, 0] = 0.0
  q = U.RoundQLearner(rounds=1, learning_rate=3e-3, seed=1)
  q.train(holders, costs, 300, batch=256, progress=False)
  reached = q.reached(holders[:500])
  expected = np.where(has_ace[:500], 1 + 18, 0)
  assert np.mean(reached == expected) > 0.95
