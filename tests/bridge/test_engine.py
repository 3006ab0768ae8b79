"""The batched engine against the pyspiel game `bridge_bidding`, table by table.

The pyspiel game is itself checked against OpenSpiel's `bridge`
(tests/games/test_bridge_bidding.py); here every table of an engine batch is replayed in its own
pyspiel state with the same calls, and legal calls, all four seats' observations, the end of the
auction and the returns must be identical at every step.
"""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import rule_based


@pytest.fixture(scope="module")
def ds():
  return dataset_lib.load_dataset()


def _pyspiel_state(game_cache, idx, dealer, vul, uncontested):
  key = (dealer, vul, uncontested)
  if key not in game_cache:
    game_cache[key] = pyspiel.load_game("bridge_bidding", {
        "dealer": str(dealer), "vulnerability": A.VULNERABILITY_NAMES[vul],
        "uncontested": uncontested})
  s = game_cache[key].new_initial_state()
  s.apply_action(int(idx))
  return s


@pytest.mark.parametrize("uncontested", [False, True])
def test_engine_equals_pyspiel_game(ds, uncontested):
  rng = np.random.default_rng(10 + uncontested)
  b = 48
  eng = engine_lib.BiddingEngine(ds, uncontested=uncontested)
  eng.reset_random(rng, b)
  cache = {}
  states = [_pyspiel_state(cache, eng.deal_index[t], eng.dealer[t], eng.vulnerability[t],
                           uncontested) for t in range(b)]
  p_pass = np.array([0.1, 0.5, 0.8])[np.arange(b) % 3]
  steps = 0
  while True:
    mask = eng.legal_mask()
    obs_all = [eng.observation(player=p) for p in range(4)]
    obs_cur = eng.observation()
    for t, s in enumerate(states):
      assert bool(eng.done[t]) == s.is_terminal()
      for p in range(4):
        np.testing.assert_array_equal(obs_all[p][t], np.array(s.observation_tensor(p)))
      if s.is_terminal():
        assert not mask[t].any()
        continue
      assert eng.current_player[t] == s.current_player()
      assert np.flatnonzero(mask[t]).tolist() == s.legal_actions()
      np.testing.assert_array_equal(obs_cur[t], obs_all[s.current_player()][t])
    if eng.done.all():
      break
    calls = np.where(rng.random(b) < p_pass, A.PASS,
                     rule_based.sample_legal(mask | eng.done[:, None], rng.random(b)))
    eng.step(calls)
    for t, s in enumerate(states):
      if not s.is_terminal():
        s.apply_action(int(calls[t]))
    steps += 1
  returns = eng.returns()
  for t, s in enumerate(states):
    assert returns[t].tolist() == s.returns()
    assert eng.auction_strings(t) == s.auction_string().split()
  assert steps > 10


def test_illegal_call_changes_nothing(ds):
  eng = engine_lib.BiddingEngine(ds)
  eng.reset([0, 1, 2], dealer=[0, 1, 2], vulnerability=3)
  eng.step([A.string_to_call("2C"), A.PASS, A.string_to_call("1NT")])
  before = eng.auctions.copy()
  with pytest.raises(ValueError, match="table 0: call 1NT"):
    eng.step([A.string_to_call("1NT"), A.PASS, A.PASS])
  with pytest.raises(ValueError, match="table 1: call Dbl"):
    eng.step([A.PASS, A.DOUBLE, A.PASS])
  with pytest.raises(ValueError, match="out of range"):
    eng.step([A.PASS, 38, A.PASS])
  for k, v in before.__dict__.items():
    if isinstance(v, np.ndarray):
      np.testing.assert_array_equal(v, getattr(eng.auctions, k), err_msg=k)


def test_finished_tables_ignore_calls(ds):
  eng = engine_lib.BiddingEngine(ds)
  eng.reset([4, 5], dealer=0, vulnerability=0)
  for _ in range(4):
    eng.step([A.PASS, A.string_to_call("1C") if eng.auctions.num_calls[1] == 0 else A.PASS])
  assert eng.done.tolist() == [True, True]
  assert eng.ns_score()[0] == 0  # passed out
  eng.step([37, 37])  # ignored: both auctions are over
  assert eng.auctions.num_calls.tolist() == [4, 4]


def test_reset_validation(ds):
  eng = engine_lib.BiddingEngine(ds)
  with pytest.raises(ValueError, match="deal index"):
    eng.reset([len(ds)])
  with pytest.raises(ValueError, match="dealer 4"):
    eng.reset([0], dealer=4)
  with pytest.raises(ValueError, match="vulnerability 7"):
    eng.reset([0], vulnerability=7)
  with pytest.raises(ValueError, match="reset"):
    engine_lib.BiddingEngine(ds).legal_mask()


def test_score_sign_and_declarer(ds):
  """N-S declare 1NT by S, E-W declare 1NT by W: signs and declarers from the DDS table."""
  eng = engine_lib.BiddingEngine(ds)
  eng.reset([9, 9], dealer=[2, 3], vulnerability=0)
  for c in ["1NT", "Pass", "Pass", "Pass"]:
    eng.step([A.string_to_call(c)] * 2)
  level, strain, doubled, declarer = eng.contract()
  assert level.tolist() == [1, 1] and strain.tolist() == [4, 4]
  assert declarer.tolist() == [2, 3]
  for t, seat, sign in ((0, 2, 1), (1, 3, -1)):
    tricks = int(ds.dd_tricks[9, 4, seat])
    s = 90 + 30 * (tricks - 7) if tricks >= 7 else -50 * (7 - tricks)
    assert eng.ns_score()[t] == sign * s
    assert eng.returns()[t].tolist() == [sign * s, -sign * s, sign * s, -sign * s]


def test_reset_tables_continuous_play_equals_fresh_games(ds):
  """Finished tables restarted in place behave exactly like fresh pyspiel games."""
  rng = np.random.default_rng(12)
  b = 24
  eng = engine_lib.BiddingEngine(ds)
  eng.reset_random(rng, b)
  cache = {}
  states = [_pyspiel_state(cache, eng.deal_index[t], eng.dealer[t], eng.vulnerability[t], False)
            for t in range(b)]
  finished = 0
  for _ in range(60):
    mask = eng.legal_mask()
    obs = eng.observation()
    for t, s in enumerate(states):
      assert np.flatnonzero(mask[t]).tolist() == s.legal_actions()
      np.testing.assert_array_equal(obs[t], np.array(s.observation_tensor(s.current_player())))
    calls = np.where(rng.random(b) < 0.5, A.PASS, rule_based.sample_legal(mask, rng.random(b)))
    eng.step(calls)
    for t, s in enumerate(states):
      s.apply_action(int(calls[t]))
    done = np.flatnonzero(eng.done)
    scores = eng.ns_score()
    for t in done:
      assert states[t].returns()[0] == scores[t]
    finished += len(done)
    new = rng.integers(0, len(ds), len(done))
    dealers, vuls = rng.integers(0, 4, len(done)), rng.integers(0, 4, len(done))
    eng.reset_tables(done, new, dealers, vuls)
    for k, t in enumerate(done):
      states[t] = _pyspiel_state(cache, new[k], dealers[k], vuls[k], False)
  assert finished > 50
  with pytest.raises(ValueError, match="table 99"):
    eng.reset_tables([99], [0])
