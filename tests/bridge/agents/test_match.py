"""Duplicate matches and the built-in bidders.

Independent facts used: a bidder against itself scores exactly 0 IMPs (both tables bid the
same auction); swapping A and B negates every board; a table's score replayed through the
pyspiel game; the standard duplicate board cycle (Law 2); hand-checked natural-bidding calls
on constructed hands; the measured margin of natural over random-legal bidding.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.bidders import rule_based
from ospiel_team.bridge.agents.evaluation import match


@pytest.fixture(scope="module")
def ds():
  return dataset_lib.load_dataset()


@pytest.mark.parametrize("name", ["pass", "random", "natural"])
def test_self_match_is_exactly_zero(ds, name):
  r = match.run_match(name, name, 200, dataset=ds, seed=1, progress=False)
  assert r.boards == 200
  assert np.all(r.imps == 0) and r.mean_imps == 0.0
  assert r.auctions_table1 == r.auctions_table2


def test_swapping_bidders_negates_imps(ds):
  r1 = match.run_match("natural", "pass", 150, dataset=ds, seed=2, progress=False)
  r2 = match.run_match("pass", "natural", 150, dataset=ds, seed=2, progress=False)
  np.testing.assert_array_equal(r1.imps, -r2.imps)
  # Table 1 of the first match seats natural N-S and pass E-W, as table 2 of the second.
  np.testing.assert_array_equal(r1.ns_score_table1, r2.ns_score_table2)
  assert r1.auctions_table1 == r2.auctions_table2


def test_natural_beats_random_and_pass(ds):
  # Measured first (300 boards, seeds 0..2): natural vs random about +23.5 IMPs/board
  # (standard error 0.15); natural vs pass about +3.4 (s.e. 0.3).
  r = match.run_match("natural", "random", 300, dataset=ds, seed=0, progress=False)
  assert r.mean_imps - 5 * r.stderr_imps > 10.0
  r = match.run_match("natural", "pass", 300, dataset=ds, seed=0, progress=False)
  assert r.mean_imps - 3 * r.stderr_imps > 1.0


def test_table_scores_replay_in_pyspiel_game(ds):
  r = match.run_match("natural", "random", 12, dataset=ds, seed=4, progress=False)
  for i in range(r.boards):
    game = pyspiel.load_game("bridge_bidding", {
        "dealer": str(int(r.dealer[i])),
        "vulnerability": A.VULNERABILITY_NAMES[int(r.vulnerability[i])]})
    for auction, score in ((r.auctions_table1[i], r.ns_score_table1[i]),
                           (r.auctions_table2[i], r.ns_score_table2[i])):
      s = game.new_initial_state()
      s.apply_action(int(r.deal_index[i]))
      for c in auction.split():
        s.apply_action(A.string_to_call(c))
      assert s.is_terminal() and s.returns()[0] == score


def test_command_line_writes_reports(tmp_path):
  out = tmp_path / "m"
  proc = subprocess.run(
      [sys.executable, "-m", "ospiel_team.cli.match", "--bidder_a", "natural",
       "--bidder_b", "random", "--boards", "24", "--seed", "3", "--out", str(out)],
      capture_output=True, text=True, timeout=300, check=False)
  assert proc.returncode == 0, proc.stderr[-2000:]
  data = json.loads((out / "match.json").read_text())
  assert data["summary"]["boards"] == 24 and len(data["boards"]) == 24
  imps = [b["imps_for_a"] for b in data["boards"]]
  assert data["summary"]["imps_per_board_for_a"] == pytest.approx(np.mean(imps))
  assert data["summary"]["stderr"] == pytest.approx(np.std(imps, ddof=1) / np.sqrt(24))
  assert "IMPs per board for A" in (out / "match.md").read_text()
  assert not [f for f in os.listdir(out) if f.startswith(".tmp_")]
  # All deals distinct: the clustered s.e. equals the per-board one; the interval is +-1.96 s.e.
  summ = data["summary"]
  assert summ["clusters"] == 24
  assert summ["stderr_clustered"] == pytest.approx(summ["stderr"])
  assert summ["ci95_low"] == pytest.approx(np.mean(imps) - 1.959964 * summ["stderr"])
  assert summ["ci95_high"] == pytest.approx(np.mean(imps) + 1.959964 * summ["stderr"])
  assert "95% interval" in proc.stdout


def test_command_line_heldout_and_user_errors(tmp_path):
  def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "ospiel_team.cli.match", *args,
                           "--out", str(tmp_path / "m")], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
  proc = run("--bidder_a", "natural", "--bidder_b", "pass", "--boards", "8",
             "--dataset", "heldout")
  assert proc.returncode == 0, proc.stderr[-2000:]
  data = json.loads((tmp_path / "m" / "match.json").read_text())
  heldout = dataset_lib.resolve_dataset("heldout")
  assert data["settings"]["dataset"] == "heldout"
  assert data["boards"][0]["deal"] == deal_lib.holders_to_pbn(
      heldout.holders[data["boards"][0]["deal_index"]])
  for args, msg in [(("--bidder_a", "jps_paper_0.63", "--reference_dir", str(tmp_path)),
                     "not found"),
                    (("--bidder_a", "wizard"), "unknown bidder 'wizard'"),
                    (("--dataset", "nowhere.npz"), "does not exist")]:
    proc = run(*args, "--boards", "4")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert msg in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
  # The authors' models are found only where the user says: --reference_dir or
  # JPS_REFERENCE_DIR (no default folder); without either the error says what to pass.
  env = {k: v for k, v in os.environ.items() if k != "JPS_REFERENCE_DIR"}
  proc = run("--bidder_a", "jps_paper_0.63", "--boards", "4", env=env)
  assert proc.returncode != 0 and "Traceback" not in proc.stderr
  assert "--reference_dir" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
  proc = run("--bidder_a", "jps_paper_0.63", "--boards", "4",
             env=dict(env, JPS_REFERENCE_DIR=str(tmp_path)))
  assert proc.returncode != 0 and "not found" in proc.stderr and str(tmp_path) in proc.stderr


def test_clustered_stderr_by_hand():
  # Two clusters {1, 3} and {5}: mean 3, residual sums -2 and 2; G = 2:
  # sqrt(2 / 1 * (4 + 4)) / 3 = 4 / 3.
  assert match.clustered_stderr(np.array([1.0, 3.0, 5.0]), np.array([0, 0, 1])) == \
      pytest.approx(4 / 3)
  x = np.array([1.0, 4.0, 2.0, 8.0])
  assert match.clustered_stderr(x, np.arange(4)) == pytest.approx(np.std(x, ddof=1) / 2)


def test_standard_board_cycle():
  # Law 2 of the Laws of Duplicate Bridge: boards 1-16.
  expected = {1: ("N", "none"), 2: ("E", "ns"), 3: ("S", "ew"), 4: ("W", "both"),
              5: ("N", "ns"), 6: ("E", "ew"), 7: ("S", "both"), 8: ("W", "none"),
              9: ("N", "ew"), 10: ("E", "both"), 11: ("S", "none"), 12: ("W", "ns"),
              13: ("N", "both"), 14: ("E", "none"), 15: ("S", "ns"), 16: ("W", "ew"),
              17: ("N", "none"), 32: ("W", "ew")}
  dealer, vul = match.board_dealer_vulnerability(list(expected))
  for (d, v), (ed, ev) in zip(zip(dealer, vul, strict=True), expected.values(), strict=True):
    assert A.SEAT_CHARS[d] == ed and A.VULNERABILITY_NAMES[v] == ev
  with pytest.raises(ValueError, match="board number 0"):
    match.board_dealer_vulnerability([0])


def test_bad_arguments(ds):
  with pytest.raises(ValueError, match="unknown bidder 'wizard'"):
    match.run_match("wizard", "pass", 2, dataset=ds, progress=False)
  with pytest.raises(ValueError, match="exceeds"):
    match.run_match("pass", "pass", len(ds) + 1, dataset=ds, progress=False)


class _OneDeal:
  """A one-deal dataset for hand-built positions (the DDS table is irrelevant here)."""

  def __init__(self, north, south=None):
    """North's (and South's) PBN hand 'S.H.D.C'; the other cards go to E, W (and S)."""
    holders = np.full(52, 255, np.uint8)
    for seat, hand in ((0, north), (2, south)):
      if hand is None:
        continue
      for suit, holding in zip((3, 2, 1, 0), hand.split("."), strict=True):
        for ch in holding:
          holders[deal_lib.RANK_CHARS.index(ch) * 4 + suit] = seat
    if ((holders == 0).sum(), (holders == 2).sum()) != (13, 13 if south else 0):
      raise ValueError(f"bad or overlapping hands {north!r}, {south!r}")
    need = [s for s in (1, 3, 2) for _ in range(13 - (holders == s).sum())]
    holders[holders == 255] = need
    self.holders = deal_lib.validate_holders(holders)[None]
    self.dd_tricks = np.zeros((1, 5, 4), np.uint8)


def _natural_call(calls_before, north, south=None, dealer=0):
  eng = engine_lib.BiddingEngine(_OneDeal(north, south))
  eng.reset([0], dealer=dealer, vulnerability=0)
  for c in calls_before:
    eng.step([A.string_to_call(c)])
  return A.call_string(bidders.NaturalBidder().act(eng.observation(), np.zeros(1))[0])


def test_natural_openings_hand_checked():
  assert _natural_call([], "AQ2.KJ3.Q982.K54") == "1NT"     # 15 HCP, 3-3-4-3
  assert _natural_call([], "AKJ76.K2.Q98.542") == "1S"      # 13 HCP, five spades
  assert _natural_call([], "AKJ76.82.Q98.542") == "Pass"    # 10 HCP
  assert _natural_call([], "AK.K982.QJ983.K5") == "1D"      # 16 HCP, 2-4-5-2 unbalanced
  assert _natural_call([], "A2.K98.QJ98.KJ52") == "1D"      # 14 HCP, 4-4 minors
  assert _natural_call([], "AK32.Q52.Q98.K52") == "1C"      # 14 HCP, 3-3 minors
  assert _natural_call([], "AK2.KQ3.AQ82.K54") == "2NT"     # 21 HCP balanced
  # N passes, E opens 1C, South overcalls its five spades (13 HCP) at the 1-level.
  assert _natural_call(["Pass", "1C"], "T3.T9876.T76.T98", "AKJ76.K2.Q98.542") == "1S"


def test_natural_overcall_falls_back_to_the_suit_when_1nt_is_illegal():
  # South: 17 HCP, 5-2-3-3 balanced with five spades; East (dealer) opens.
  south = "AKJ76.K2.Q98.A54"
  assert _natural_call(["1H"], "T3.T9876.T76.T98", south, dealer=1) == "1NT"
  assert _natural_call(["2C"], "T3.T9876.T76.T98", south, dealer=1) == "2S"  # 1NT illegal


def test_the_first_applicable_legal_proposal_is_made():
  """Four seats by hand: the first proposal (legal); the second (the first is illegal); a
  negative call is no proposal; none applies: Pass."""
  legal = np.zeros((4, A.NUM_CALLS), bool)
  legal[:, A.PASS] = True
  one_c, one_nt, two_s = (A.string_to_call(c) for c in ("1C", "1NT", "2S"))
  legal[0, [one_c, one_nt]] = True
  legal[1, two_s] = True
  legal[2, [one_c, two_s]] = True
  legal[3, one_c] = True
  proposals = [(np.array([True, True, True, False]), np.array([one_nt, one_nt, -1, one_c])),
               (np.array([True, True, True, False]), two_s),
               (np.ones(4, bool), one_c)]
  calls = rule_based._first_legal_proposal(proposals, legal)
  assert [A.call_string(c) for c in calls] == ["1NT", "2S", "2S", "1C"]
  assert rule_based._first_legal_proposal(proposals[:2], legal)[3] == A.PASS


def test_natural_responses_hand_checked():
  opener = "AKJ76.K2.Q98.542"  # 13 HCP, five spades -> 1S
  # South 11 HCP with four spades: a fit with 10-12 HCP -> limit raise 3S.
  assert _natural_call(["1S", "Pass"], opener, "8543.A54.K54.A76") == "3S"
  # South 1 HCP with a fit: pass.
  assert _natural_call(["1S", "Pass"], opener, "8543.854.J54.T76") == "Pass"
  # South 8 HCP, two spades, no suit above spades: 1NT.
  assert _natural_call(["1S", "Pass"], opener, "85.A954.K54.J976") == "1NT"
  # Over 1D the same South hand bids its four hearts at the 1-level.
  assert _natural_call(["1D", "Pass"], "AK.K82.QJ983.K52", "85.A954.K54.J976") == "1H"
  # North 1NT (15), South 11 HCP balanced: combined 26 -> 3NT.
  assert _natural_call(["1NT", "Pass"], "AQ2.KJ3.Q982.K54", "8543.A54.K54.A76") == "3NT"
  # Opener with a minimum after a simple raise (13 + 8 = 21 < 25) passes.
  assert _natural_call(["1S", "Pass", "2S", "Pass"], opener) == "Pass"
  # Opener with 19 HCP after a simple raise (19 + 8 >= 25): game 4S.
  assert _natural_call(["1S", "Pass", "2S", "Pass"], "AKQ76.AK2.Q98.K2") == "4S"


def test_interval_decision_by_hand():
  from ospiel_team.bridge.agents.evaluation import match as m
  assert m.interval_decision(0.01, 0.2, "x") == "kept (interval above 0)"
  assert m.interval_decision(-0.2, -0.01, "a2c_longer") == (
      "worse than a2c_longer (interval below 0)")
  assert m.interval_decision(-0.062, 0.0005, "x") == "not established"
  assert m.interval_decision(0.0, 0.1, "x") == "not established"  # 0 itself is inside


def test_trainer_evaluation_is_the_validation_match_of_the_shipped_model():
  """`a2c_longer`'s training log evaluated its round-45,000 network (the shipped model) against
  natural on 400 validation boards; the wide-run record's references play that match again."""
  from ospiel_team.bridge.agents.evaluation import match as m
  from tests import repo
  with np.load(os.path.join(repo.REPO, "experiments", "bridge_a2c_training",
                    "checkpoints", "a2c_longer.npz")) as z:
    rows = json.loads(str(z["state"]))["log_rows"]
  (logged,) = [r for r in rows if r["round"] == 45000]
  res = m.run_match("a2c_longer", "natural", logged["eval_boards"], dataset="validation",
                    seed=0, progress=False)
  assert round(res.mean_imps, 4) == logged["eval_imps_vs_natural"]
  assert round(res.stderr_imps, 4) == logged["eval_stderr"]
