"""Double-dummy tables: batched == endplay's DDS per deal, hand-solved deals, OpenSpiel's DDS.

OpenSpiel's `bridge(use_double_dummy_result=true)` runs its own copy of DDS (compiled into
pyspiel) on the deal made by the 52 chance actions; its `score_by_contract()` and the tricks
it reports at the end of an auction are an independent path (different DDS build, different
card encoding code) to compare with ours.
"""

import re

import numpy as np
import pyspiel
import pytest
from endplay.dds import calc_dd_table
from endplay.types import Deal as EndplayDeal
from endplay.types import Denom
from endplay.types import Player

from ospiel_team.bridge import dataset
from ospiel_team.bridge import dds
from ospiel_team.bridge import deal
from ospiel_team.bridge import scoring

PASS, DBL, RDBL = 52, 53, 54


def endplay_table(holders: np.ndarray) -> np.ndarray:
  """(5, 4) tricks of one deal by endplay's public API from its PBN string (its own parser and
  single-table DDS call)."""
  table = calc_dd_table(EndplayDeal(deal.holders_to_pbn(holders)))
  return np.array([[table[denom, player]
                    for player in (Player.north, Player.east, Player.south, Player.west)]
                   for denom in (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades,
                                 Denom.nt)])


def test_batched_equals_single_calls_across_chunk_boundaries(monkeypatch):
  """CalcAllTables batches (cut into chunks; 3 per call here) == one endplay call per deal."""
  holders = deal.random_holders(np.random.default_rng(2), 7)
  monkeypatch.setattr(dds, "MAX_TABLES_PER_CALL", 3)
  batched = dds.dd_tables(holders)
  assert batched.shape == (len(holders), 5, 4) and batched.dtype == np.uint8
  for i, h in enumerate(holders):
    np.testing.assert_array_equal(endplay_table(h), batched[i], err_msg=f"deal {i}")


def test_hand_solved_one_suit_per_seat_deal():
  # N all spades, E all hearts, S all diamonds, W all clubs. With trumps = the declarer's own
  # suit, the opening lead (declarer's left) is ruffed and declarer takes all 13 tricks. At NT
  # the opening leader runs their own suit: declarer takes 0 whoever declares.
  h = deal.pbn_to_holders("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. "
                          "...AKQJT98765432")
  t = dds.dd_tables(h[None])[0]
  own_suit = {0: 3, 1: 2, 2: 1, 3: 0}  # seat -> strain index (S, H, D, C)
  for seat, strain in own_suit.items():
    assert t[strain, seat] == 13
  np.testing.assert_array_equal(t[4], [0, 0, 0, 0])
  np.testing.assert_array_equal(endplay_table(h), t)


def test_dd_tables_input_validation():
  assert dds.dd_tables(np.zeros((0, 52), np.uint8)).shape == (0, 5, 4)
  with pytest.raises(ValueError, match="seat N holds 14 cards"):
    bad = deal.random_holders(np.random.default_rng(0), 2)
    bad[1, np.flatnonzero(bad[1] == 1)[0]] = 0
    dds.dd_tables(bad)
  with pytest.raises(ValueError, match=r"shape \(n, 52\)"):
    dds.dd_tables(deal.random_holders(np.random.default_rng(0), 1)[0])


def _auction_for(level, strain, doubled, declarer, dealer):
  """Calls from `dealer` after which `declarer` plays level/strain/doubled."""
  calls = [PASS] * ((declarer - dealer) % 4) + [52 + 3 + (level - 1) * 5 + strain]
  if doubled >= 1:
    calls.append(DBL)
  if doubled == 2:
    calls.append(RDBL)
  return calls + [PASS] * 3


def _cross_check_with_openspiel(holders: np.ndarray, ours: np.ndarray, seed: int) -> None:
  rng = np.random.default_rng(seed)
  for i in range(len(holders)):
    dealer = int(rng.integers(0, 4))
    dealer_vul, other_vul = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    game = pyspiel.load_game("bridge", {"use_double_dummy_result": True, "dealer": dealer,
                                        "dealer_vul": dealer_vul, "non_dealer_vul": other_vul})
    state = game.new_initial_state()
    for a in deal.holders_to_openspiel_actions(holders[i]):
      state.apply_action(a)
    # Vulnerability of N-S / E-W given OpenSpiel's dealer-relative parameters.
    vul = [dealer_vul, other_vul] if dealer % 2 == 0 else [other_vul, dealer_vul]
    # score_by_contract: N-S score of each of the 421 contracts with OpenSpiel's DD tricks.
    # The score is strictly increasing in tricks for a fixed contract, so equal scores on all
    # contracts means equal trick counts.
    theirs = np.array(state.score_by_contract())
    expected = [0]
    for level in range(1, 8):
      for strain in range(5):
        for declarer in range(4):
          for dbl in range(3):
            s = scoring.contract_score(level, strain, dbl, vul[declarer % 2],
                                       int(ours[i, strain, declarer]))
            expected.append(s if declarer % 2 == 0 else -s)
    np.testing.assert_array_equal(theirs, expected, err_msg=f"deal {i}")
    # One random contract bid to the end: the tricks OpenSpiel reports and its returns.
    level, strain = int(rng.integers(1, 8)), int(rng.integers(0, 5))
    dbl, declarer = int(rng.integers(0, 3)), int(rng.integers(0, 4))
    for a in _auction_for(level, strain, dbl, declarer, dealer):
      state.apply_action(a)
    assert state.is_terminal()
    tricks = int(re.search(r"Declarer tricks: (\d+)", str(state)).group(1))
    assert tricks == ours[i, strain, declarer], (i, level, strain, declarer)
    score = scoring.contract_score(level, strain, dbl, vul[declarer % 2], tricks)
    assert state.returns()[declarer] == score
    assert state.returns()[(declarer + 1) % 4] == -score


def test_live_tables_agree_with_openspiel_double_dummy():
  holders = deal.random_holders(np.random.default_rng(100), 6)
  _cross_check_with_openspiel(holders, dds.dd_tables(holders), seed=100)


def test_shipped_dataset_tables_agree_with_openspiel_double_dummy_20_deals():
  """The shipped tables were made by `dds.dd_tables` in the builder (40 deals per DDS call)."""
  ds = dataset.load_dataset()
  _cross_check_with_openspiel(ds.holders[:20], ds.dd_tricks[:20], seed=101)


@pytest.mark.slow
def test_tables_agree_with_openspiel_double_dummy_200_deals():
  ds = dataset.load_dataset()
  idx = np.random.default_rng(7).choice(len(ds), 150, replace=False)
  _cross_check_with_openspiel(ds.holders[idx], ds.dd_tricks[idx], seed=200)
  holders = deal.random_holders(np.random.default_rng(201), 50)
  _cross_check_with_openspiel(holders, dds.dd_tables(holders), seed=201)


def test_endplay_is_pinned_to_the_installed_tested_version():
  # dds.py uses the private endplay._dds: setup.py pins the version these tests run on.
  import importlib.metadata

  from tests import repo as tests_repo
  with open(f"{tests_repo.REPO}/setup.py", encoding="utf-8") as f:
    pins = re.findall(r'"endplay==([^"]+)"', f.read())
  assert pins == [importlib.metadata.version("endplay")]
