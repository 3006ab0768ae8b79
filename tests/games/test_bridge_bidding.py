"""The pyspiel game `bridge_bidding` against OpenSpiel's own `bridge` game.

Independent facts used: OpenSpiel's C++ `bridge` game on the same deal, dealer, vulnerability
and calls: its legal actions, its auction observation tensor (re-encoded here into the JPS
267-bit layout by a separate decoder), its end of auction, and its double-dummy returns
(`use_double_dummy_result=true`, DDS computed by OpenSpiel itself). Plus hand-checked auctions
(declarer rule, pass-out, the 1NT score formula) and OpenSpiel's `random_sim_test`.
"""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401  (registers bridge_bidding)
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib

OS_BASE = 52  # OpenSpiel bridge: call action = 52 + call


@pytest.fixture(scope="module")
def ds():
  return dataset_lib.load_dataset()


def _openspiel_game(dealer, vul, dds: bool, use_dealer_param: bool):
  """OpenSpiel bridge for our (dealer, vul code); returns (game, seat map os->ours)."""
  ns, ew = bool(vul & 1), bool(vul & 2)
  dealer_vul = ns if dealer % 2 == 0 else ew
  non_dealer_vul = ew if dealer % 2 == 0 else ns
  params = {"use_double_dummy_result": dds, "dealer_vul": dealer_vul,
            "non_dealer_vul": non_dealer_vul}
  if use_dealer_param:
    params["dealer"] = dealer
    rotation = 0
  else:  # OpenSpiel deals and calls from North; rotate the table so our dealer sits North.
    rotation = dealer
  return pyspiel.load_game("bridge", params), rotation


def _openspiel_dealt_state(game, holders, rotation):
  os_holders = ((holders.astype(np.int64) - rotation) % 4).astype(np.uint8)
  s = game.new_initial_state()
  for a in deal_lib.holders_to_openspiel_actions(os_holders):
    s.apply_action(a)
  return s


def _jps_from_openspiel(os_obs, our_player, legal_os_actions):
  """Re-encodes OpenSpiel's auction observation tensor into the JPS 267-bit layout.

  OpenSpiel's auction tensor: 4 phase bits, [our side not vul, vul], [their side not vul, vul],
  4 opening-pass bits, then per bid 1C..7NT 12 bits (bidder, doubler, redoubler; each by
  relative seat 0=self, 1=left, 2=partner, 3=right), then our 52 cards.
  """
  o = np.asarray(os_obs)
  assert o[0] == 1  # auction phase
  out = np.zeros(A.OBSERVATION_SIZE, np.float32)
  out[0:52] = o[432:484]
  per_bid = o[12:432].reshape(35, 12)
  for segment, rel in enumerate([0, 2, 1, 3]):  # self, partner, left, right
    out[52 + 35 * segment: 52 + 35 * (segment + 1)] = per_bid[:, rel]
  out[192:227] = per_bid[:, 4:8].max(axis=1)  # doubled by anyone
  ours_vul, theirs_vul = o[5], o[7]
  out[227] = ours_vul if our_player % 2 == 0 else theirs_vul
  out[228] = theirs_vul if our_player % 2 == 0 else ours_vul
  for a in legal_os_actions:
    out[229 + a - OS_BASE] = 1
  return out


def _random_call(rng, legal, p_pass):
  legal = list(legal)
  if rng.random() < p_pass:
    return A.PASS
  return int(rng.choice(legal))


def test_game_type_and_sizes():
  game = pyspiel.load_game("bridge_bidding")
  assert game.num_players() == 4
  assert game.num_distinct_actions() == 38
  assert game.observation_tensor_shape() == [267]
  assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
  assert game.max_game_length() == 319
  assert game.max_chance_outcomes() == len(dataset_lib.load_dataset())
  # 7NT redoubled, vulnerable, down 13: 400 + 12 * 600 = 7600 (hand-computed).
  assert game.min_utility() == -7600 and game.max_utility() == 7600


def test_max_auction_length_is_reachable():
  """The longest auction (3 passes, then each bid followed by P P X P P XX P P, final pass)."""
  game = pyspiel.load_game("bridge_bidding")
  s = game.new_initial_state()
  s.apply_action(0)
  calls = [0, 0, 0]
  for bid in range(3, 38):
    calls += [bid, 0, 0, 1, 0, 0, 2, 0, 0]
  calls += [0]
  for c in calls:
    assert c in s.legal_actions(), (c, s.history())
    s.apply_action(c)
  assert s.is_terminal() and len(calls) == 319


@pytest.mark.parametrize("params", [
    {}, {"dealer": "random", "vulnerability": "random"},
    {"dealer": "W", "vulnerability": "both", "uncontested": True},
])
def test_random_sim_and_serialization(params):
  game = pyspiel.load_game("bridge_bidding", params)
  pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
  rng = np.random.default_rng(0)
  s = game.new_initial_state()
  while not s.is_terminal():
    if s.is_chance_node():
      outcomes = s.chance_outcomes()
      s.apply_action(outcomes[rng.integers(len(outcomes))][0])
    else:
      s.apply_action(_random_call(rng, s.legal_actions(), 0.5))
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, s))
    assert s2.history() == s.history() and str(s2) == str(s)
    assert s2.returns() == s.returns()


def test_bad_parameters_raise():
  for params in ({"dealer": "X"}, {"vulnerability": "some"}, {"dealer": "5"}):
    with pytest.raises(ValueError, match=str(list(params.values())[0])):
      pyspiel.load_game("bridge_bidding", params)
  with pytest.raises(ValueError, match="no_such.npz"):
    pyspiel.load_game("bridge_bidding", {"dataset": "/tmp/no_such.npz"})


def test_illegal_call_raises():
  game = pyspiel.load_game("bridge_bidding")
  s = game.new_initial_state()
  s.apply_action(0)
  s.apply_action(A.string_to_call("2D"))  # N: 2D
  with pytest.raises(ValueError, match="1NT"):
    s.apply_action(A.string_to_call("1NT"))  # E: 1NT is lower
  with pytest.raises(ValueError, match="RDbl"):
    s.apply_action(A.REDOUBLE)


def test_chance_nodes():
  game = pyspiel.load_game("bridge_bidding", {"dealer": "random", "vulnerability": "random"})
  s = game.new_initial_state()
  outcomes = s.chance_outcomes()
  assert len(outcomes) == game.max_chance_outcomes()
  assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
  s.apply_action(7)
  assert s.is_chance_node() and [a for a, _ in s.chance_outcomes()] == [0, 1, 2, 3]
  s.apply_action(2)  # dealer S
  s.apply_action(3)  # both vulnerable
  assert s.current_player() == 2
  assert "Dealer S Vul both" in s.information_state_string(2)


def test_hand_checked_auctions(ds):
  game = pyspiel.load_game("bridge_bidding", {"dealer": "E", "vulnerability": "ew"})
  # Pass-out.
  s = game.new_initial_state()
  s.apply_action(3)
  for _ in range(4):
    s.apply_action(A.PASS)
  assert s.is_terminal() and s.returns() == [0, 0, 0, 0]
  # E 1NT, all pass: E-W vulnerable declarer E; 1NT scores 90 + 30 per overtrick, or
  # -100 per undertrick vulnerable.
  s = game.new_initial_state()
  s.apply_action(3)
  for c in ["1NT", "Pass", "Pass", "Pass"]:
    s.apply_action(A.string_to_call(c))
  t = int(ds.dd_tricks[3, 4, 1])
  expected_ew = 90 + 30 * (t - 7) if t >= 7 else -100 * (7 - t)
  assert s.returns() == [-expected_ew, expected_ew, -expected_ew, expected_ew]
  # Declarer = first of the side to name the strain: E 1H, S Pass, W 2H, all pass -> by E.
  s = game.new_initial_state()
  s.apply_action(5)
  for c in ["1H", "Pass", "2H", "Dbl", "Pass", "Pass", "Pass"]:
    s.apply_action(A.string_to_call(c))
  assert s.contract_string() == "2HX by E"
  t = int(ds.dd_tricks[5, 2, 1])
  # 2HX vulnerable: made = 120 (a game) + 500 (vul game) + 50 (insult) + 200 per overtrick;
  # down = 200, 500, 800, 1100, ... (hand-computed from the scoring rules).
  down = 8 - t
  expected_ew = (670 + 200 * (t - 8) if t >= 8 else
                 -(200 + 300 * (down - 1)))
  assert s.returns()[1] == expected_ew


def test_uncontested_east_west_only_pass():
  game = pyspiel.load_game("bridge_bidding", {"uncontested": True, "dealer": "random"})
  rng = np.random.default_rng(1)
  for _ in range(20):
    s = game.new_initial_state()
    while not s.is_terminal():
      if s.is_chance_node():
        outcomes = s.chance_outcomes()
        s.apply_action(outcomes[rng.integers(len(outcomes))][0])
        continue
      legal = s.legal_actions()
      if s.current_player() in (1, 3):
        assert legal == [A.PASS]
        assert s.observation_tensor()[229:] == [1.0] + [0.0] * 37
      elif s.auction.last_bid[0] < 34:  # below 7NT N-S can always bid on
        assert len(legal) > 1
      s.apply_action(_random_call(rng, legal, 0.4))
    level, strain, doubled, declarer = (int(x[0]) for x in s.auction.contract())
    assert level == 0 or (declarer % 2 == 0 and doubled == 0)


def test_legal_actions_and_observations_match_openspiel(ds):
  """Every legal-action set and every seat's observation, against OpenSpiel's bridge."""
  rng = np.random.default_rng(2)
  n_obs = 0
  for trial in range(60):
    idx, dealer, vul = int(rng.integers(len(ds))), int(rng.integers(4)), int(rng.integers(4))
    game = pyspiel.load_game("bridge_bidding", {"dealer": str(dealer),
                                                "vulnerability": A.VULNERABILITY_NAMES[vul]})
    s = game.new_initial_state()
    s.apply_action(idx)
    os_game, rot = _openspiel_game(dealer, vul, dds=False, use_dealer_param=False)
    os_s = _openspiel_dealt_state(os_game, ds.holders[idx], rot)
    p_pass = [0.2, 0.5, 0.8][trial % 3]
    while True:
      if s.is_terminal():
        # OpenSpiel ends the auction at the same call: it is terminal (passed out) or in play.
        assert os_s.is_terminal() or max(os_s.legal_actions()) < OS_BASE
        break
      assert min(os_s.legal_actions()) >= OS_BASE  # still bidding
      cur = s.current_player()
      assert (cur - dealer) % 4 == os_s.current_player()
      assert [a + OS_BASE for a in s.legal_actions()] == os_s.legal_actions()
      for p in range(4):
        k = (p - rot) % 4
        legal = os_s.legal_actions() if p == cur else []
        expected = _jps_from_openspiel(os_s.observation_tensor(k), p, legal)
        np.testing.assert_array_equal(np.array(s.observation_tensor(p)), expected)
        n_obs += 1
      c = _random_call(rng, s.legal_actions(), p_pass)
      s.apply_action(c)
      os_s.apply_action(c + OS_BASE)
  assert n_obs > 1000


@pytest.mark.parametrize("use_dealer_param", [False, True])
def test_returns_match_openspiel_double_dummy(ds, use_dealer_param):
  """Returns equal OpenSpiel bridge(use_double_dummy_result=true) on the same deals/calls.

  OpenSpiel computes the double-dummy tricks itself (DDS inside OpenSpiel), so this also
  checks the dataset's DDS tables on the contracts reached. Without `use_dealer_param` the
  deal is rotated so that our dealer sits North in OpenSpiel; with it, OpenSpiel's own
  `dealer` parameter is used.
  """
  rng = np.random.default_rng(3 + use_dealer_param)
  checked = 0
  for _ in range(6):
    idx, dealer, vul = int(rng.integers(len(ds))), int(rng.integers(4)), int(rng.integers(4))
    game = pyspiel.load_game("bridge_bidding", {"dealer": str(dealer),
                                                "vulnerability": A.VULNERABILITY_NAMES[vul]})
    os_game, rot = _openspiel_game(dealer, vul, dds=True, use_dealer_param=use_dealer_param)
    os_dealt = _openspiel_dealt_state(os_game, ds.holders[idx], rot)
    for j in range(12):
      s = game.new_initial_state()
      s.apply_action(idx)
      os_s = os_dealt.clone()
      while not s.is_terminal():
        c = _random_call(rng, s.legal_actions(), [0.3, 0.6, 0.85][j % 3])
        s.apply_action(c)
        os_s.apply_action(c + OS_BASE)
      assert os_s.is_terminal()
      os_ret = os_s.returns()
      ours = s.returns()
      for p in range(4):
        assert ours[p] == os_ret[(p - rot) % 4], (s.auction_string(), ours, os_ret)
      checked += 1
  assert checked == 72


def test_strings():
  game = pyspiel.load_game("bridge_bidding", {"dealer": "S"})
  s = game.new_initial_state()
  s.apply_action(11)
  for c in ["1C", "Dbl", "RDbl"]:
    s.apply_action(A.string_to_call(c))
  info = s.information_state_string(0)
  hand = deal_lib.holders_to_pbn(s.holders, 0)[2:].split()[0]
  assert "Seat N" in info and hand in info and "Auction 1C Dbl RDbl" in info
  # The observation string carries exactly the tensor's information.
  rng = np.random.default_rng(5)
  seen = {}
  for _ in range(40):
    s = game.new_initial_state()
    s.apply_action(int(rng.integers(3)))
    while not s.is_terminal():
      for p in range(4):
        key = s.observation_string(p)
        tensor = tuple(s.observation_tensor(p))
        assert seen.setdefault(key, tensor) == tensor
      s.apply_action(_random_call(rng, s.legal_actions(), 0.6))
  tensors = list(seen.values())
  assert len(set(tensors)) == len(tensors)  # distinct strings <-> distinct tensors


def test_figure_4_of_the_jps_paper():
  """JPS Appendix D, Fig. 4: South marks 1H (own), 1C and 2C (partner), 1S (left
  opponent) and 1C (double indicator)."""
  game = pyspiel.load_game("bridge_bidding", {"dealer": "N", "vulnerability": "ew"})
  s = game.new_initial_state()
  s.apply_action(0)
  for c in ["1C", "Dbl", "1H", "1S", "2C", "Pass"]:
    s.apply_action(A.string_to_call(c))
  assert s.current_player() == 2
  obs = np.array(s.observation_tensor(2))
  def bids(segment):
    lo = 52 + 35 * segment
    return [A.call_string(j + 3) for j in np.flatnonzero(obs[lo:lo + 35])]
  assert bids(0) == ["1H"] and bids(1) == ["1C", "2C"] and bids(2) == ["1S"] and bids(3) == []
  assert [A.call_string(j + 3) for j in np.flatnonzero(obs[192:227])] == ["1C"]
  assert obs[227:229].tolist() == [0, 1]  # E-W vulnerable
  np.testing.assert_array_equal(obs[:52], (s.holders == 2).astype(np.float32))
  legal = [A.call_string(c) for c in np.flatnonzero(obs[229:])]
  # The last bid (2C) is partner's and undoubled: Pass or any bid above 2C (2D .. 7NT).
  assert legal == ["Pass"] + [A.call_string(c) for c in range(9, 38)]


def _walk_to(state, calls):
  for c in calls:
    state.apply_action(A.string_to_call(c))
  return state


@pytest.mark.parametrize("name", ["bridge_bidding", "bridge_bidding(uncontested=true)"])
def test_clone_and_child_at_every_kind_of_node(name):
  """pyspiel's `PyState::Clone` deep-copies the state's attributes; the game must survive it
  (it used to lose `num_deals`: `new_initial_state().child(0)` raised AttributeError)."""
  game = pyspiel.load_game(name)
  root = game.new_initial_state()
  assert root.is_chance_node()
  dealt = root.child(7)                              # chance node -> first call
  assert dealt.deal_index == 7 and root.deal_index is None
  first = dealt.clone()
  assert first.current_player() == 0 and first.legal_actions() == dealt.legal_actions()
  mid = _walk_to(dealt.clone(), ["1S", "Pass", "2S"])
  mid_clone = mid.clone()
  assert str(mid_clone) == str(mid)
  np.testing.assert_array_equal(mid_clone.observation_tensor(3), mid.observation_tensor(3))
  mid_clone.apply_action(A.PASS)                     # the clone is independent
  assert mid.history() != mid_clone.history()
  assert mid.auction.num_calls[0] == 3
  term = _walk_to(mid.clone(), ["Pass", "Pass", "Pass"])
  assert term.is_terminal()
  term_clone = term.clone()
  assert term_clone.is_terminal() and term_clone.returns() == term.returns()
  # The game is shared, not copied.
  assert term_clone._game is game


@pytest.mark.parametrize("name", ["bridge_bidding", "bridge_bidding(uncontested=true)"])
def test_one_iteration_of_openspiel_outcome_sampling_mccfr(name):
  from open_spiel.python.algorithms import outcome_sampling_mccfr
  game = pyspiel.load_game(name)
  solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
  np.random.seed(0)
  solver.iteration()
  # One sampled auction per player's traversal, each at least 4 calls by 4 different seats:
  # at least 4 information states get regrets / average-policy entries.
  assert len(solver._infostates) >= 4
