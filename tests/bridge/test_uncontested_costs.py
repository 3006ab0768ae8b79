"""Yeh & Lin 2016's uncontested cost, data side: hand-computed costs, redeals, cost datasets."""
import os

import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import dds
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import uncontested_costs as C


def _tiny_case():
  """One N-S pair, k = 2 redeals; only NT makes tricks (others: 0 tricks)."""
  t = np.zeros((1, 2, 5, 4), np.uint8)
  t[0, 0, 4] = [9, 4, 7, 4]    # redeal 1: N 9 NT tricks, S 7 -> best N-S declarer takes 9
  t[0, 1, 4] = [8, 3, 10, 3]   # redeal 2: S takes 10
  return t


def test_cost_matches_hand_computation():
  costs = C.cost_vectors(_tiny_case())[0]
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


def test_redeals_keep_north_south_and_deal_east_west():
  rng = np.random.default_rng(3)
  base = deal_lib.random_holders(rng, 4)
  red = C.redeal_east_west(base, 5, rng)
  for i in range(4):
    for j in range(5):
      deal_lib.validate_holders(red[i, j])
      ns = (base[i] == 0) | (base[i] == 2)
      np.testing.assert_array_equal(red[i, j][ns], base[i][ns])
      assert set(np.unique(red[i, j][~ns])) == {1, 3}
  assert len({bytes(red[i, j]) for i in range(4) for j in range(5)}) == 20


def test_single_deal_costs_use_the_actual_table():
  d = dataset_lib.load_dataset()
  c1 = C.single_deal_costs(d.dd_tricks[:20])
  c2 = C.cost_vectors(np.repeat(d.dd_tricks[:20, None], 3, axis=1))  # k identical redeals
  np.testing.assert_array_equal(c1, c2)
  assert np.all(c1.min(axis=1) == 0)


def test_cost_dataset_build_resume_and_dds(tmp_path):
  out = str(tmp_path / "cost.npz")
  d1 = C.build_cost_dataset(2, out, k=2, chunk=1, progress=False, keep_chunks=True)
  loaded = C.load_cost_dataset(out)
  np.testing.assert_array_equal(loaded["dd_tricks"], d1["dd_tricks"])
  np.testing.assert_array_equal(dds.dd_tables(loaded["redeal_holders"][1, 1:2])[0],
                                loaded["dd_tricks"][1, 1])
  os.remove(out)
  d2 = C.build_cost_dataset(2, out, k=2, chunk=1, progress=False)  # from the chunk files
  np.testing.assert_array_equal(d2["redeal_holders"], d1["redeal_holders"])
  with pytest.raises(ValueError, match="does not exist"):
    C.load_cost_dataset(str(tmp_path / "nope.npz"))
  with pytest.raises(ValueError, match="k must be"):
    C.redeal_east_west(d1["holders"], 0, np.random.default_rng(0))


def test_oracle_pays_for_the_best_contract_of_the_actual_deal():
  t = _tiny_case()  # the actual deal (redeal 1) makes 9 NT tricks: 3NT, the best on average
  np.testing.assert_array_equal(C.oracle_bidder_costs({"dd_tricks": t}), [0])
  t[0, 0, 4] = [12, 4, 7, 4]  # actual deal: 12 NT tricks, so the oracle bids 6NT (990) ...
  t[0, 1, 4] = [9, 3, 8, 3]   # ... but the other redeal makes 9: 6NT averages (990 - 150) / 2
  costs = C.cost_vectors(t)[0]  # = 420, 3NT (490 + 400) / 2 = 445, the best: 25 -> 1 IMP
  six_nt, three_nt = 1 + 5 * 5 + 4, 1 + 2 * 5 + 4
  assert costs[three_nt] == 0 and costs[six_nt] == 1
  assert C.oracle_bidder_costs({"dd_tricks": t})[0] == 1


def test_shipped_cost_dataset_is_consistent():
  d = C.load_cost_dataset(C.SHIPPED_COST_DATASET)
  n, k = d["redeal_holders"].shape[:2]
  assert k == 5 and n >= 100
  np.testing.assert_array_equal(d["holders"], d["redeal_holders"][:, 0])
  np.testing.assert_array_equal(dds.dd_tables(d["redeal_holders"][:2, 1]), d["dd_tricks"][:2, 1])
