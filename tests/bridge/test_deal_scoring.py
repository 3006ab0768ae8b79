"""Deals (holders / PBN / OpenSpiel actions), duplicate scoring and IMPs.

Independent facts used: OpenSpiel's `bridge` game (its rendering of each hand, its observation
tensor, its terminal returns and `score_by_contract`), hand-computed textbook scores, the IMP
scale written out as ranges, and a second scoring formula written here.
"""

import re

import numpy as np
import pyspiel
import pytest

from ospiel_team.bridge import deal
from ospiel_team.bridge import scoring

PASS, DBL, RDBL = 52, 53, 54  # OpenSpiel bridge call ids (kBiddingActionBase = 52)


def bid_action(level, strain):
  return 52 + 3 + (level - 1) * 5 + strain


# ---------------------------------------------------------------------------- deals


def _openspiel_hands_from_observation_string(obs: str) -> str:
  """'S.H.D.C' hand (PBN ranks) parsed from OpenSpiel's auction observation string."""
  lines = obs.split("\n")
  suits = []
  for sym in ("♠", "♥", "♦", "♣"):
    line = next(ln for ln in lines if ln.startswith(sym))
    holding = line[len(sym):].strip()
    holding = "" if holding == "none" else holding  # OpenSpiel writes "none" for a void
    suits.append(holding.replace("10", "T").replace(" ", ""))
  return ".".join(suits)


def test_card_convention_matches_openspiel_rendering_and_tensor():
  game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
  rng = np.random.default_rng(7)
  hand_offset = 4 + 2 + 2 + 4 * (1 + 3 * 35)  # auction tensor: types, vul x2, calls, then hand
  for holders in deal.random_holders(rng, 10):
    state = game.new_initial_state()
    for a in deal.holders_to_openspiel_actions(holders):
      state.apply_action(a)
    pbn_hands = deal.holders_to_pbn(holders)[2:].split(" ")
    for seat in range(4):
      obs = state.observation_string(seat)
      assert f"You are {['North', 'East', 'South', 'West'][seat]}" in obs
      assert _openspiel_hands_from_observation_string(obs) == pbn_hands[seat]
      tensor = np.array(state.observation_tensor(seat))
      np.testing.assert_array_equal(tensor[hand_offset:hand_offset + 52],
                                    (holders == seat).astype(float))


def _holders_of_chance_actions(actions) -> np.ndarray:
  """The deal of OpenSpiel's 52 `bridge` chance actions: the i-th action's card goes to seat
  i % 4 (``holder_[card] = history_.size() % kNumPlayers`` in bridge.cc)."""
  holders = np.zeros(52, np.uint8)
  holders[np.asarray(actions)] = np.arange(52) % 4
  return holders


def test_openspiel_actions_round_trip_and_chance_order():
  game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
  rng = np.random.default_rng(3)
  for _ in range(20):
    # Any legal chance sequence of OpenSpiel: our actions for its deal deal the same hands.
    state = game.new_initial_state()
    actions = []
    while state.is_chance_node():
      a = int(rng.choice([o for o, _ in state.chance_outcomes()]))
      actions.append(a)
      state.apply_action(a)
    holders = _holders_of_chance_actions(actions)
    again = game.new_initial_state()
    ours = deal.holders_to_openspiel_actions(holders)
    for a in ours:
      again.apply_action(a)
    assert str(again) == str(state)
    np.testing.assert_array_equal(_holders_of_chance_actions(ours), holders)
  # The i-th chance action goes to seat i % 4, and card i = rank * 4 + suit has suit i % 4, so
  # dealing cards 0..51 in order gives N all clubs, E diamonds, S hearts, W spades.
  h = _holders_of_chance_actions(range(52))
  assert deal.holders_to_pbn(h) == ("N:...AKQJT98765432 ..AKQJT98765432. "
                                    ".AKQJT98765432.. AKQJT98765432...")
  assert deal.holders_to_openspiel_actions(h) == list(range(52))


def test_pbn_round_trip_and_known_deal():
  rng = np.random.default_rng(0)
  for holders in deal.random_holders(rng, 50):
    for first in range(4):
      assert np.array_equal(deal.pbn_to_holders(deal.holders_to_pbn(holders, first)), holders)
  pbn = "N:AK84.AKJ9.942.K3 QJ2.T8743.KQJT.A T53.Q6.A7653.T42 976.52.8.QJ98765"
  h = deal.pbn_to_holders(pbn)
  assert deal.holders_to_pbn(h) == pbn
  assert h[51] == 0  # spade ace (rank 12, suit 3): North
  assert h[11 * 4 + 0] == 0  # club king: North
  assert h[12 * 4 + 0] == 1  # club ace: East
  assert h[8 * 4 + 1] == 1  # diamond ten: East
  assert h[0] == 2  # club two: South
  assert h[10 * 4 + 0] == 3  # club queen: West
  # 'E:' rotates the seats.
  rotated = "E:" + pbn[2:]
  assert np.array_equal(deal.pbn_to_holders(rotated), (h + 1) % 4)
  assert np.array_equal(deal.pbn_to_holders(pbn.replace("T", "10")), h)


def test_hcp_of_known_deal():
  h = deal.pbn_to_holders("N:AK84.AKJ9.942.K3 QJ2.T8743.KQJT.A T53.Q6.A7653.T42 976.52.8.QJ98765")
  # N: AK (7) + AKJ (8) + K (3) = 18; E: QJ (3) + KQJ (6) + A (4) = 13; S: Q + A = 6; W: QJ = 3.
  np.testing.assert_array_equal(deal.hcp(h), [18, 13, 6, 3])
  assert deal.hcp(h).sum() == 40


@pytest.mark.parametrize("bad,msg", [
    ("AK84.AKJ9.942.K3 QJ2.T8743.KQJT.A T53.Q6.A7653.T42 976.52.8.QJ98765", "seat and a colon"),
    ("N:AK84.AKJ9.942.K3 QJ2.T8743.KQJT.A T53.Q6.A7653.T42", "3 hands"),
    ("N:AK84.AKJ9.942 QJ2.T8743.KQJT.A T53.Q6.A7653.T42 976.52.8.QJ98765", "3 suits"),
    ("N:AK84.AKJ9.942.K3 QJ2.T8743.KQJT.A T53.Q6.A7653.T42 976.52.8.QJ9876X", "unknown rank"),
    ("N:AK84.AKJ9.942.K3 QJ2.T8743.KQJT.A T53.Q6.A7653.T42 976.52.8.QJ9876K", "appears twice"),
    ("N:AK84.AKJ9.942.K3 QJ2.T8743.KQJT.A T53.Q6.A7653.T42 976.52.8.QJ9876", "12 cards"),
])
def test_pbn_errors(bad, msg):
  with pytest.raises(ValueError, match=msg):
    deal.pbn_to_holders(bad)


def test_holder_validation():
  good = deal.random_holders(np.random.default_rng(1), 1)[0]
  with pytest.raises(ValueError, match="shape"):
    deal.validate_holders(good[:51])
  bad = good.copy()
  bad[np.flatnonzero(bad == 0)[0]] = 1
  with pytest.raises(ValueError, match="seat N holds 12 cards"):
    deal.validate_holders(bad)
  bad = good.astype(np.int64)
  bad[5] = 4
  with pytest.raises(ValueError, match="seat 4"):
    deal.validate_holders(bad)


def test_symmetric_deals_are_the_96_rotations_and_suit_renamings():
  import itertools
  h = deal.random_holders(np.random.default_rng(4), 2)
  images = deal.symmetric_deals(h)
  assert images.shape == (96, 2, 52) and images.dtype == np.uint8
  for k, perm in enumerate(itertools.permutations(range(4))):
    for r in range(4):
      for i in range(2):
        # Card by card: (rank, suit) -> (rank, perm[suit]), held r seats further on.
        want = np.empty(52, np.uint8)
        for card in range(52):
          want[(card // 4) * 4 + perm[card % 4]] = (h[i, card] + r) % 4
        np.testing.assert_array_equal(images[k * 4 + r, i], want)
  assert deal.symmetric_deals(h, rotations=False).shape == (24, 2, 52)
  np.testing.assert_array_equal(deal.symmetric_deals(h, suit_permutations=False),
                                images[:4])
  with pytest.raises(ValueError, match=r"shape \(n, 5, 4\)"):
    deal.symmetric_dd_tricks(np.zeros((2, 4, 4), np.uint8))


def test_random_holders_are_valid_and_uniform_enough():
  h = deal.random_holders(np.random.default_rng(5), 4000)
  assert h.shape == (4000, 52) and h.dtype == np.uint8
  deal.validate_holders(h)
  # Each card is with each seat 1/4 of the time: 1000 +- ~27 (sd); allow 5 sd.
  counts = np.stack([(h == s).sum(0) for s in range(4)])
  assert np.abs(counts - 1000).max() < 140
  assert len({row.tobytes() for row in h}) == 4000


# ---------------------------------------------------------------------------- scoring


def _textbook_score(level, strain, doubled, vul, tricks):
  """A second, independently written duplicate score (Law 77), declaring side's view."""
  if level == 0:
    return 0
  need = level + 6
  factor = [1, 2, 4][doubled]
  if tricks < need:
    k = need - tricks
    if doubled == 0:
      return -k * (100 if vul else 50)
    per_trick = ([200] + [300] * 12) if vul else ([100, 200, 200] + [300] * 10)
    return -sum(per_trick[:k]) * factor // 2
  if strain == 4:
    points = 40 + 30 * (level - 1)
  elif strain >= 2:
    points = 30 * level
  else:
    points = 20 * level
  points *= factor
  bonus = 50
  if points >= 100:
    bonus = 500 if vul else 300
  slam = {6: (500, 750), 7: (1000, 1500)}.get(level, (0, 0))[int(vul)]
  insult = {0: 0, 1: 50, 2: 100}[doubled]
  over = tricks - need
  if doubled:
    over_points = over * (100 if vul else 50) * factor
  else:
    over_points = over * (20 if strain < 2 else 30)
  return points + bonus + slam + insult + over_points


def test_table_equals_independent_formula_on_all_entries():
  table = scoring.SCORE_TABLE
  assert table.shape == (8, 5, 3, 2, 14)
  for idx in np.ndindex(table.shape):
    level, strain, dbl, vul, tricks = idx
    assert table[idx] == _textbook_score(level, strain, dbl, bool(vul), tricks), idx


@pytest.mark.parametrize("args,expected", [
    # 3NT making 9: 40+30+30 = 100 trick points + 300 game (NV) = 400; vul game 500 -> 600.
    ((3, 4, 0, False, 9), 400),
    ((3, 4, 0, True, 9), 600),
    # 1NT+1: 40 + 50 part-score + 30 overtrick = 120.
    ((1, 4, 0, False, 8), 120),
    # 4S X down 3 NV: 100 + 200 + 200 = 500; vul: 200 + 300 + 300 = 800.
    ((4, 3, 1, False, 7), -500),
    ((4, 3, 1, True, 7), -800),
    # 2H XX making NV: 2*30*4 = 240 (game) + 300 + 100 insult = 640.
    ((2, 2, 2, False, 8), 640),
    # 1NT XX +1 NV: 40*4 = 160 + 300 game + 100 insult + 200 redoubled NV overtrick = 760.
    ((1, 4, 2, False, 8), 760),
    # 7NT vul making: 220 + 500 game + 1500 grand slam = 2220.
    ((7, 4, 0, True, 13), 2220),
    # 1C X making NV: 20*2 = 40 + 50 part-score + 50 insult = 140.
    ((1, 0, 1, False, 7), 140),
    # 2S X making NV: 120 (game) + 300 + 50 = 470; vul 120 + 500 + 50 = 670.
    ((2, 3, 1, False, 8), 470),
    ((2, 3, 1, True, 8), 670),
    # 6S vul making: 180 + 500 + 750 = 1430; NV 180 + 300 + 500 = 980.
    ((6, 3, 0, True, 12), 1430),
    ((6, 3, 0, False, 12), 980),
    # 4H+1 NV: 120 + 300 + 30 = 450. 5C= vul: 100 + 500 = 600. 2D+2 NV: 40 + 50 + 40 = 130.
    ((4, 2, 0, False, 11), 450),
    ((5, 0, 0, True, 11), 600),
    ((2, 1, 0, False, 10), 130),
    # 3NT X -1 vul: 200. 3NT -4 vul undoubled: 400.
    ((3, 4, 1, True, 8), -200),
    ((3, 4, 0, True, 5), -400),
    # 3C X +1 vul: 120 (game) + 500 + 50 + 200 = 870.
    ((3, 0, 1, True, 10), 870),
    # 7NT XX vul, no trick: down 13 = (200 + 12*300) * 2 = 7600 (OpenSpiel's kMaxScore).
    ((7, 4, 2, True, 0), -7600),
    # Passed out.
    ((0, 0, 0, False, 0), 0),
])
def test_textbook_scores(args, expected):
  assert scoring.contract_score(*args) == expected
  arr = scoring.contract_score_array(*[np.array([int(a)]) for a in args])
  assert arr.tolist() == [expected]


def test_score_validation():
  with pytest.raises(ValueError, match="level must be an integer from 0 to 7, got 8"):
    scoring.contract_score(8, 0, 0, False, 7)
  with pytest.raises(ValueError, match="strain must be an integer from 0 to 4, got 5"):
    scoring.contract_score(1, 5, 0, False, 7)
  with pytest.raises(ValueError, match="doubled must be an integer from 0 to 2, got 3"):
    scoring.contract_score(1, 0, 3, False, 7)
  with pytest.raises(ValueError, match="tricks must be an integer from 0 to 13, got 14"):
    scoring.contract_score(1, 0, 0, False, 14)
  with pytest.raises(ValueError, match="tricks -1"):
    scoring.contract_score_array(np.array([1]), np.array([0]), np.array([0]), np.array([0]),
                                 np.array([-1]))


def _auction_for(level, strain, doubled, declarer):
  """Calls (dealer N) after which `declarer` plays level/strain/doubled."""
  calls = [PASS] * declarer + [bid_action(level, strain)]
  if doubled >= 1:
    calls.append(DBL)  # left-hand opponent doubles
  if doubled == 2:
    calls.append(RDBL)  # declarer's partner redoubles
  return calls + [PASS] * 3


def test_scores_agree_with_openspiel_returns_on_random_play():
  """OpenSpiel plays the cards out (random legal plays); its returns are its own Score()."""
  rng = np.random.default_rng(11)
  seen_tricks = set()
  for game_i in range(240):
    ns_vul, ew_vul = bool(game_i % 2), bool((game_i // 2) % 2)
    game = pyspiel.load_game("bridge", {"use_double_dummy_result": False,
                                        "dealer_vul": ns_vul, "non_dealer_vul": ew_vul})
    state = game.new_initial_state()
    holders = deal.random_holders(rng, 1)[0]
    for a in deal.holders_to_openspiel_actions(holders):
      state.apply_action(a)
    level, strain = int(rng.integers(1, 8)), int(rng.integers(0, 5))
    doubled, declarer = int(rng.integers(0, 3)), int(rng.integers(0, 4))
    for a in _auction_for(level, strain, doubled, declarer):
      state.apply_action(a)
    while not state.is_terminal():
      state.apply_action(int(rng.choice(state.legal_actions())))
    tricks = int(re.search(r"Declarer tricks won: (\d+)", str(state)).group(1))
    seen_tricks.add(tricks)
    vul = ns_vul if declarer % 2 == 0 else ew_vul
    ours = scoring.contract_score(level, strain, doubled, vul, tricks)
    sign = 1 if declarer % 2 == 0 else -1
    assert state.returns()[0] == sign * ours, (level, strain, doubled, vul, tricks)
    assert state.returns()[1] == -sign * ours
  assert len(seen_tricks) >= 8  # random play covers a wide range of trick counts


def test_passed_out_scores_zero_in_openspiel_and_ours():
  game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
  state = game.new_initial_state()
  for a in range(52):
    state.apply_action(a)
  for _ in range(4):
    state.apply_action(PASS)
  assert state.is_terminal() and state.returns() == [0, 0, 0, 0]
  assert scoring.contract_score(0, 4, 0, True, 13) == 0


# ---------------------------------------------------------------------------- IMPs

# The standard IMP scale as printed on convention cards: (low, high, imps).
_IMP_RANGES = [
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5),
    (220, 260, 6), (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10),
    (500, 590, 11), (600, 740, 12), (750, 890, 13), (900, 1090, 14), (1100, 1290, 15),
    (1300, 1490, 16), (1500, 1740, 17), (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20),
    (2500, 2990, 21), (3000, 3490, 22), (3500, 3990, 23), (4000, 100000, 24),
]


def test_imps_match_printed_scale_on_all_multiples_of_ten():
  diffs = np.arange(0, 8010, 10)
  expected = np.array([next(i for lo, hi, i in _IMP_RANGES if lo <= d <= hi) for d in diffs])
  np.testing.assert_array_equal(scoring.imps_array(diffs), expected)
  np.testing.assert_array_equal(scoring.imps_array(-diffs), -expected)
  assert [scoring.imps(d) for d in (0, 10, 20, -50, 420, 430, 620, 1430, 3990, 4000)] == \
      [0, 0, 1, -2, 9, 10, 12, 16, 23, 24]


def test_imps_of_classic_swings():
  # Vul game swing: 620 (4S= vul) vs -100 (4S-1 vul) -> 720 -> 12 IMPs.
  diff = scoring.contract_score(4, 3, 0, True, 10) - scoring.contract_score(4, 3, 0, True, 9)
  assert diff == 720 and scoring.imps(diff) == 12
  # Overtrick: 3NT+1 vs 3NT= NV -> 30 -> 1 IMP.
  diff = scoring.contract_score(3, 4, 0, False, 10) - scoring.contract_score(3, 4, 0, False, 9)
  assert diff == 30 and scoring.imps(diff) == 1
  # Shape preserved.
  assert scoring.imps_array(np.zeros((3, 4), int)).shape == (3, 4)
