"""The JPS authors' published bidders (`ospiel_team.bridge.agents.bidders.jps_paper`): file reader,
network, encodings, bidder.

The model files are not part of the repository (CC BY-NC 4.0, github.com/facebookresearch/jps):
tests that need them read ``../shared/jps_reference`` beside the repository, or the folder in
the environment variable ``JPS_REFERENCE_DIR``, and skip with the reason when it is absent.
The torch cross-checks skip when PyTorch is not installed (the package itself never needs it).
"""
import os

import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import jps_paper as J
from tests import repo as tests_repo

_REPO = tests_repo.REPO
REF_DIR = os.environ.get("JPS_REFERENCE_DIR",
                         os.path.join(_REPO, "..", "shared", "jps_reference"))
_HAVE_REF = os.path.isfile(os.path.join(REF_DIR, "bridge_models", "agent-1610-0.63.pth"))
needs_ref = pytest.mark.skipif(
    not _HAVE_REF, reason=f"the JPS authors' models are not in {REF_DIR} (download "
    "bridge_models/ from github.com/facebookresearch/jps or set JPS_REFERENCE_DIR)")


def _path(name):
  return J.model_file(name, REF_DIR)


# --- conventions, checked against the authors' definitions (cpp/card.h, cpp/bid.h) ---------
def test_card_and_call_maps():
  # Their card = suit * 13 + value, value 0 = A .. 12 = 2; ours = rank * 4 + suit, rank 0 = 2.
  assert deal_lib.card_string(J.OUR_CARD_OF_THEIR_CARD[3 * 13 + 0]) == "SA"
  assert deal_lib.card_string(J.OUR_CARD_OF_THEIR_CARD[0 * 13 + 12]) == "C2"
  assert deal_lib.card_string(J.OUR_CARD_OF_THEIR_CARD[2 * 13 + 3]) == "HJ"
  assert sorted(J.OUR_CARD_OF_THEIR_CARD) == list(range(52))
  # Their action = (level - 1) * 5 + strain for bids; 35 Pass, 36 X, 37 XX, 38 no-op.
  assert J.OUR_CALL_OF_ACTION[0] == A.string_to_call("1C")
  assert J.OUR_CALL_OF_ACTION[34] == A.string_to_call("7NT")
  assert list(J.OUR_CALL_OF_ACTION[35:]) == [A.PASS, A.DOUBLE, A.REDOUBLE, -1]
  np.testing.assert_array_equal(J.OUR_CALL_OF_ACTION[J.ACTION_OF_OUR_CALL],
                                np.arange(A.NUM_CALLS))


def _hand_built_auction():
  """Dealer East, N-S vulnerable: E 1H, S X, W 2H, N Pass, E Pass, S 3C; North to call."""
  ds = engine_lib._as_dataset(None)
  eng = engine_lib.BiddingEngine(ds)
  eng.reset([0], dealer=1, vulnerability=1)
  for c in ["1H", "Dbl", "2H", "Pass", "Pass", "3C"]:
    eng.step([A.string_to_call(c)])
  assert eng.current_player[0] == 3  # West to call
  return eng


def test_encodings_on_a_hand_built_auction():
  eng = _hand_built_auction()
  a, hands = eng.auctions, eng.hands
  # West (seat 3) is to call: E(1) 1H, S(2) X, W(3) 2H, N(0) P, E P, S 3C.
  west = 3
  old = J.old_features(a, hands, [0])[0]
  single = J.single_features(a, hands, [0])[0]
  # Hand: West's cards in the authors' order.
  cards = np.flatnonzero(eng.holders[0] == west)
  expect_hand = np.zeros(52)
  for c in cards:
    expect_hand[(c % 4) * 13 + (12 - c // 4)] = 1
  np.testing.assert_array_equal(old[:52], expect_hand)
  np.testing.assert_array_equal(single[:52], expect_hand)
  # old: own bids at 52 (W: 2H = action 7), partner (E, p+2) at 87 (1H = 2), seat p+3 (S) at
  # 122 (3C = 10), seat p+1 (N) at 157 (none); doubled 192 + 2 (1H was doubled);
  # vulnerability absolute (N-S yes, E-W no) at 227, 228.
  expected_old_ones = {52 + 7, 87 + 2, 122 + 10, 192 + 2, 227}
  legal = set(229 + a_ for a_ in range(11, 35)) | {229 + 35, 229 + 36}  # 3D..7NT, Pass, X
  got = set((np.flatnonzero(old[52:229]) + 52).tolist())
  assert got == expected_old_ones
  assert set(np.flatnonzero(old[229:]) + 229) == legal
  # single: rel_dealer = (E - W) mod 4 = 2: call i at slot i + 2, bit 52 + slot * 39 + action.
  calls = [2, 36, 7, 35, 35, 10]  # 1H, X, 2H, Pass, Pass, 3C
  expected_single_ones = {52 + (i + 2) * 39 + c for i, c in enumerate(calls)}
  expected_single_ones |= {1613}  # relative vulnerability: ours (E-W) no, theirs (N-S) yes
  assert set(np.flatnonzero(single[:1614]).tolist()) - set(
      np.flatnonzero(expect_hand).tolist()) == expected_single_ones
  assert set(np.flatnonzero(single[1614:]) + 229) == legal


def test_old_encoding_two_ways_on_random_auctions():
  eng = engine_lib.BiddingEngine()
  rng = np.random.default_rng(3)
  eng.reset(rng.integers(0, eng.num_deals, 64), rng.integers(0, 4, 64), rng.integers(0, 4, 64))
  rand = bidders_lib.RandomBidder()
  while not eng.done.all():
    rows = np.flatnonzero(~eng.done)
    a = J.old_features(eng.auctions, eng.hands, rows)
    b = J.old_features_from_observation(eng.observation()[rows])
    np.testing.assert_array_equal(a, b)
    calls = np.zeros(eng.batch_size, np.int64)
    calls[rows] = rand.act(eng.observation()[rows], rng.random(len(rows)))
    eng.step(calls)


def test_single_encoding_slots_beyond_40_are_dropped():
  eng = engine_lib.BiddingEngine()
  eng.reset([1], dealer=0, vulnerability=0)
  # 1C P P X P P XX P P 1D ... : long auctions; step until 45 calls.
  seq = []
  for bid in range(5):
    seq += [A.FIRST_BID + bid, A.PASS, A.PASS, A.DOUBLE, A.PASS, A.PASS, A.REDOUBLE, A.PASS,
            A.PASS]
  for c in seq:
    eng.step([c])
  assert eng.auctions.num_calls[0] == 45
  f = J.single_features(eng.auctions, eng.hands, [0])[0]
  # East (45 calls after dealer North) is to call: rel_dealer = (N - E) mod 4 = 3, so slots
  # 0..2 are empty, slot i + 3 holds call i for i = 0..36 and calls 37..44 are dropped.
  assert eng.current_player[0] == 1
  hist = f[52:52 + 40 * 39].reshape(40, 39)
  np.testing.assert_array_equal(hist.sum(axis=1), [0] * 3 + [1] * 37)
  np.testing.assert_array_equal(hist[3:].argmax(axis=1), J.ACTION_OF_OUR_CALL[seq[:37]])


def test_unknown_names_and_missing_folder():
  with pytest.raises(ValueError, match="reference_dir"):
    bidders_lib.make_bidder("jps_paper_0.63")
  with pytest.raises(ValueError, match="not found"):
    bidders_lib.make_bidder("jps_paper_0.63", reference_dir="/nonexistent/folder")
  with pytest.raises(ValueError, match="unknown bidder"):
    bidders_lib.make_bidder("jps_paper_9")


def test_non_torch_file_is_rejected(tmp_path):
  p = tmp_path / "x.pth"
  p.write_bytes(b"not a pickle at all")
  with pytest.raises(ValueError, match="x.pth"):
    J.load_torch_legacy(str(p))
  with pytest.raises(ValueError, match="does not exist"):
    J.load_torch_legacy(str(tmp_path / "missing.pth"))


# --- with the authors' files ---------------------------------------------------------------
@needs_ref
@pytest.mark.parametrize("name", sorted(J.REFERENCE_MODELS))
def test_loader_reads_every_byte(name):
  """Every storage is consumed exactly: file size = pickles + sum(8 + 4 * numel)."""
  path = _path(name)
  obj = J.load_torch_legacy(path)
  sd, args = obj["state_dict"], obj["init_args"]
  assert sd["online_net.linear1.weight"].shape == (args["hid_dim"], args["input_dim"])
  assert sd["online_net.linear_policy.weight"].shape == (39, 200)
  net = J.PaperNet(sd, args)
  assert net.feature == ("old" if args["input_dim"] == 268 else "single")
  assert all(np.isfinite(v).all() for v in sd.values())


@needs_ref
def test_loader_and_forward_match_torch():
  torch = pytest.importorskip("torch", reason="PyTorch not installed (test-only cross-check)")
  F = torch.nn.functional
  for name in ("jps_paper_0.63", "jps_paper_baseline"):
    path = _path(name)
    ref = torch.load(path, map_location="cpu", weights_only=False)
    ours = J.load_torch_legacy(path)
    assert ours["init_args"] == ref["init_args"]
    for k, v in ref["state_dict"].items():
      np.testing.assert_array_equal(ours["state_dict"][k], v.numpy())
    sd = {k[len("online_net."):]: v for k, v in ref["state_dict"].items()}

    def lin(x, layer, sd=sd):
      return F.linear(x, sd[layer + ".weight"], sd[layer + ".bias"])

    def blocks(x, trunk):
      for i in range(2):
        h = torch.relu(lin(x, f"{trunk}.fc.{i}.fc.0"))
        x = torch.relu(lin(h, f"{trunk}.fc.{i}.fc.2")) + x
      return x

    net = J.PaperNet(ours["state_dict"], ours["init_args"])
    rng = np.random.default_rng(0)
    s = (rng.random((16, net.input_dim)) < 0.2).astype(np.float32)
    st = torch.from_numpy(s)
    hand = torch.sigmoid(lin(blocks(lin(st, "linear1"), "enn_partner"), "linear2"))
    h1 = blocks(lin(torch.cat([st, hand], 1), "linear3"), "pnn")
    logits_t = lin(h1, "linear_policy").numpy()
    logits, value, inferred = net.forward(s)
    np.testing.assert_allclose(logits, logits_t, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(value, lin(h1, "linear_value")[:, 0].numpy(), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(inferred, hand.numpy(), rtol=1e-5, atol=1e-5)


@needs_ref
def test_bidders_bid_legally_and_agree_in_the_pyspiel_game():
  import pyspiel

  import ospiel_team  # noqa: F401
  from ospiel_team.bridge.agents.evaluation import match
  for name in ("jps_paper_0.63", "jps_paper_baseline"):
    bidder = bidders_lib.make_bidder(name, reference_dir=REF_DIR)
    res = match.run_match(bidder, bidder, 6, seed=5, progress=False)
    assert (res.imps == 0).all()  # the same greedy bidder at both tables
    for b in range(6):
      d, v = match.board_dealer_vulnerability([b + 1])
      game = pyspiel.load_game("bridge_bidding", {
          "dealer": A.SEAT_CHARS[int(d[0])],
          "vulnerability": A.VULNERABILITY_NAMES[int(v[0])]})
      state = game.new_initial_state()
      state.apply_action(int(res.deal_index[b]))
      while not state.is_terminal():
        hands = state.tables.hands
        call = int(bidder.act_auction(state.auction, hands, np.array([0]))[0])
        assert call in state.legal_actions()
        state.apply_action(call)
      assert " ".join(state.auction.auction_strings(0)) == res.auctions_table1[b]


@needs_ref
def test_sampling_uses_the_uniforms():
  bidder = J.load_bidder("jps_paper_0.63", REF_DIR, greedy=False)
  eng = engine_lib.BiddingEngine()
  eng.reset(np.arange(200), 0, 0)
  obs = eng.observation()
  u = np.random.default_rng(0).random(200)
  c1 = bidder.act(obs, u)
  np.testing.assert_array_equal(c1, bidder.act(obs, u))
  assert eng.legal_mask()[np.arange(200), c1].all()
  pi = bidder.net.policy(J.old_features_from_observation(obs), J.their_legal(eng.legal_mask()))
  # Inverse CDF: u below the first action's mass picks the first legal action with mass.
  low = np.zeros(200)
  first = J.OUR_CALL_OF_ACTION[np.argmax(pi > 0, axis=1)]
  np.testing.assert_array_equal(bidder.act(obs, low), first)


@pytest.mark.slow
@needs_ref
def test_head_to_head_reproduces_the_authors_sign():
  """agent-1610-0.63 beats agent-baseline-15-189 (authors: +0.76 IMPs/b on 50,000 deals)."""
  from ospiel_team.bridge.agents.evaluation import match
  res = match.run_match("jps_paper_0.63", "jps_paper_baseline", 2000, seed=0, progress=False,
                        reference_dir=REF_DIR)
  lo, hi = res.ci95
  assert lo > 0 and lo < 0.76 < hi + 0.3
