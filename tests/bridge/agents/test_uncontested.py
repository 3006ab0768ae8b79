"""Yeh & Lin 2016's uncontested cost, bidder side: reached contracts and the Q-per-round
baseline (their protocol)."""
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import uncontested_costs as C
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.training import uncontested as U


class ScriptedBidder(bidders.ObservationBidder):
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
  red = C.redeal_east_west(base, k, rng)
  red[:, 0] = base
  tricks = rng.integers(3, 13, size=(n, k, 5, 4)).astype(np.uint8)  # any valid tables
  return {"holders": base, "redeal_holders": red, "dd_tricks": tricks}


def test_reaching_the_best_contract_costs_zero_and_reached_costs_match():
  data = _cost_data()
  costs = C.cost_vectors(data["dd_tricks"])
  best = costs.argmin(axis=1)
  table = {}
  for h, c in zip(data["holders"], best, strict=True):
    table[bytes((h == 0).astype(np.uint8))] = 0 if c == 0 else 2 + c  # contract 1+j -> call 3+j
  bidder = ScriptedBidder(table)
  reached = U.reached_contracts(bidder, data["holders"])
  np.testing.assert_array_equal(reached, best)
  res = U.evaluate_costs(bidder, data)
  assert res["mean_cost"] == 0.0 and res["fraction_best"] == 1.0
  # A fixed 1NT opening: its cost is the 1NT entry of each cost vector.
  res = U.evaluate_costs(ScriptedBidder({k: A.string_to_call("1NT") for k in table}), data)
  assert res["mean_cost"] == pytest.approx(costs[:, 1 + 4].mean())


def test_passing_bidder_reaches_pass_out():
  data = _cost_data(n=5)
  reached = U.reached_contracts(ScriptedBidder({}), data["holders"])
  np.testing.assert_array_equal(reached, 0)


def test_round_q_protocol_with_scripted_q_values():
  q = U.RoundQLearner(rounds=3)
  plan = {0: 1, 1: 5, 2: 0}  # round 1: 1C, round 2: 1NT, round 3: Pass

  def fake_q(t, hands, bids):
    v = np.ones((len(hands), C.NUM_CONTRACTS))
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
  costs = np.full((4000, C.NUM_CONTRACTS), 10.0)
  costs[has_ace, 1 + 18] = 0.0
  costs[~has_ace, 0] = 0.0
  q = U.RoundQLearner(rounds=1, learning_rate=3e-3, seed=1)
  q.train(holders, costs, 300, batch=256, progress=False)
  reached = q.reached(holders[:500])
  expected = np.where(has_ace[:500], 1 + 18, 0)
  assert np.mean(reached == expected) > 0.95
