"""Tests of the JPS collaborative games: comm, simple_bidding, mini_bridge.

Rules are checked against oracles written here from the paper text
(Definitions 1-3 of the JPS paper), independently of the game modules: the
oracles work on bid *values* and card counts, not on the modules' action ids
or helpers. Tree sizes are checked against closed forms derived by hand (see
the module docstrings), and small optimal / policy values against values
computed by hand and by OpenSpiel's `expected_game_score.policy_value`.
"""

import itertools
import math
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python import observation
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.games import comm
from ospiel_team.games import mini_bridge
from ospiel_team.games import simple_bidding

CHANCE = pyspiel.PlayerId.CHANCE


# ----------------------------------------------------------------- oracles --
# Each oracle maps (params, deal, public actions) to the expected legal
# actions (as a list of action ids, derived from the ordered action list of
# the paper's definitions) or the expected reward at a terminal.


def _sb_bid_values(n):
  """Bids 2^0..2^k, k = exponent of the largest power of two <= 2(N-1)."""
  top = 1
  while top * 2 <= 2 * (n - 1):
    top *= 2
  values = []
  b = 1
  while b <= top:
    values.append(b)
    b *= 2
  return values  # Action id of values[j] is j + 1; Pass is 0.


def _sb_oracle_legal(n, actions):
  values = _sb_bid_values(n)
  bids = [values[a - 1] for a in actions if a != 0]
  if not actions:
    allowed = values  # First-bid rule: no Pass.
    return [values.index(v) + 1 for v in allowed]
  allowed = [v for v in values if v > bids[-1]]
  return [0] + [values.index(v) + 1 for v in allowed]


def _sb_oracle_reward(n, s1, s2, actions):
  values = _sb_bid_values(n)
  last = [values[a - 1] for a in actions if a != 0][-1]
  return float(last) if s1 + s2 >= last else 0.0


def _mb_names(n):
  names = ["Pass"]
  for k in range(1, n + 1):
    names += [f"{k}H", f"{k}S"]
  return names  # Action id = index in this ordered list.


def _mb_oracle_legal(n, actions):
  num = 2 * n + 1
  bids = [a for a in actions if a != 0]
  if not bids:
    return list(range(num))  # Opening, or P2 after P1's opening Pass.
  return [0] + list(range(bids[-1] + 1, num))


def _mb_oracle_terminal(actions):
  if len(actions) < 2 or actions[-1] != 0:
    return False
  return True  # Only P1's opening Pass (a single action) does not end.


def _mb_oracle_reward(n, s1, s2, actions):
  names = _mb_names(n)
  bids = [names[a] for a in actions if a != 0]
  if not bids:
    return 0.0  # Passed out.
  k, suit = int(bids[-1][:-1]), bids[-1][-1]
  # Definition 3 as written in the paper.
  makes = (s1 + s2 >= n + k) if suit == "S" else (s1 + s2 <= n - k)
  return float(2 ** (k - 1)) if makes else -1.0


# ------------------------------------------------------------ tree walker --


def _walk(game, num_deals):
  """Walks the whole tree; returns counts and per-infoset data.

  Returns a dict with terminal / decision / chance history counts, the
  infosets of each player (string -> dict of legal actions, tensor, the
  player's own action-observation sequence), and every terminal as
  (history, returns). Also checks that information state strings are in
  bijection with what the player knows: (player, own dealt number, public
  actions), where the first `num_deals` actions are the deals s1 (, s2).
  """
  out = {"terminals": [], "decision": 0, "chance": 0,
         "infosets": [dict(), dict()], "obs_legal": dict()}
  knowledge_to_key = {}

  def rec(state, own_seq):
    if state.is_terminal():
      out["terminals"].append((state.history(), state.returns()))
      return
    if state.is_chance_node():
      out["chance"] += 1
      outcomes = state.chance_outcomes()
      assert math.isclose(sum(p for _, p in outcomes), 1.0)
      for a, _ in outcomes:
        rec(state.child(a), own_seq)
      return
    out["decision"] += 1
    p = state.current_player()
    key = state.information_state_string(p)
    hist = state.history()
    own = hist[p] if p < num_deals else None
    knowledge = (p, own, tuple(hist[num_deals:]))
    assert knowledge_to_key.setdefault(knowledge, key) == key
    legal = state.legal_actions()
    tensor = tuple(state.information_state_tensor(p))
    info = out["infosets"][p].setdefault(
        key, {"legal": legal, "tensor": tensor, "seq": own_seq[p],
              "count": 0})
    info["count"] += 1
    # Same infoset -> same legal actions, tensor and own history (recall).
    assert info["legal"] == legal, key
    assert info["tensor"] == tensor, key
    assert info["seq"] == own_seq[p], key
    obs = (p, state.observation_string(p))
    assert out["obs_legal"].setdefault(obs, legal) == legal, obs
    for a in legal:
      new_seq = list(own_seq)
      new_seq[p] = own_seq[p] + ((key, a),)
      rec(state.child(a), tuple(new_seq))

  rec(game.new_initial_state(), ((), ()))
  assert len(set(knowledge_to_key.values())) == len(knowledge_to_key)
  return out


def _check_infoset_tensors_distinct(walk):
  for p in range(2):
    tensors = {v["tensor"] for v in walk["infosets"][p].values()}
    assert len(tensors) == len(walk["infosets"][p])


# ------------------------------------------------------ generic API tests --

GAMES = ["comm", "comm(length=1)", "comm(length=2)", "simple_bidding",
         "simple_bidding(size=2)", "simple_bidding(size=5)", "mini_bridge",
         "mini_bridge(size=2)", "mini_bridge(size=4)"]


@pytest.mark.parametrize("name", GAMES)
def test_random_sim_test(name):
  game = pyspiel.load_game(name)
  # OpenSpiel's own consistency check; it raises SpielError on any failure.
  pyspiel.random_sim_test(game, num_sims=30, serialize=True, verbose=False)
  # And the common payoff: every random playthrough gives both players the same return.
  rng = np.random.default_rng(0)
  for _ in range(30):
    state = game.new_initial_state()
    while not state.is_terminal():
      if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
      else:
        state.apply_action(int(rng.choice(state.legal_actions())))
    returns = state.returns()
    assert returns[0] == returns[1], (name, state.history(), returns)


@pytest.mark.parametrize("name", ["comm", "simple_bidding", "mini_bridge"])
def test_game_type(name):
  game = pyspiel.load_game(name)
  gt = game.get_type()
  assert gt.utility == pyspiel.GameType.Utility.IDENTICAL
  assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
  assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
  assert gt.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
  assert gt.provides_information_state_string
  assert gt.provides_information_state_tensor
  assert gt.provides_observation_string
  assert gt.provides_observation_tensor
  assert game.num_players() == 2


def test_default_parameters():
  assert str(pyspiel.load_game("comm")) == "comm(length=3)"
  assert str(pyspiel.load_game("simple_bidding")) == "simple_bidding(size=4)"
  assert str(pyspiel.load_game("mini_bridge")) == "mini_bridge(size=3)"
  assert str(pyspiel.load_game("mini_bridge(size=4)")) == "mini_bridge(size=4)"


@pytest.mark.parametrize("name", ["comm(length=2)", "simple_bidding(size=3)",
                                  "mini_bridge(size=2)"])
def test_serialization_round_trip_every_state(name):
  game = pyspiel.load_game(name)
  count = 0

  def rec(state):
    nonlocal count
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert state2.history() == state.history()
    assert str(state2) == str(state)
    assert state2.current_player() == state.current_player()
    assert state2.is_terminal() == state.is_terminal()
    count += 1
    if state.is_terminal():
      assert state2.returns() == state.returns()
      return
    assert state2.legal_actions() == state.legal_actions()
    for p in range(2):
      assert (state2.information_state_string(p) ==
              state.information_state_string(p))
      assert state2.observation_tensor(p) == state.observation_tensor(p)
    # The deserialized state must keep playing like the original.
    a = state.legal_actions()[0]
    assert str(state2.child(a)) == str(state.child(a))
    for a in state.legal_actions():
      rec(state.child(a))

  rec(game.new_initial_state())
  assert count > 10


@pytest.mark.parametrize("name", ["comm", "simple_bidding", "mini_bridge"])
def test_clone_is_independent(name):
  game = pyspiel.load_game(name)
  state = game.new_initial_state()
  rng = random.Random(0)
  while not state.is_terminal():
    copy = state.clone()
    before = str(copy)
    actions = ([a for a, _ in state.chance_outcomes()]
               if state.is_chance_node() else state.legal_actions())
    state.apply_action(rng.choice(actions))
    assert str(copy) == before
    assert copy.history() == state.history()[:-1]


@pytest.mark.parametrize("name,num_deals", [
    ("comm(length=2)", 1), ("simple_bidding(size=3)", 2),
    ("mini_bridge(size=2)", 2)])
def test_observer_variants(name, num_deals):
  """Public observers ignore the deal; all-players observers see it all."""
  game = pyspiel.load_game(name)
  public = observation.make_observation(game, pyspiel.IIGObservationType(
      perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE))
  all_players = pyspiel.PrivateInfoType.ALL_PLAYERS
  everything = observation.make_observation(game, pyspiel.IIGObservationType(
      perfect_recall=True, private_info=all_players))
  by_public, by_all = {}, {}

  def rec(state):
    if state.is_terminal():
      return
    hist = tuple(state.history())
    if len(hist) >= num_deals:
      for p in range(2):
        text = public.string_from(state, p)
        public.set_from(state, p)
        tensor = tuple(public.tensor)
        # Same public actions <=> same public observation (per player).
        key = (p, hist[num_deals:])
        assert by_public.setdefault(key, (text, tensor)) == (text, tensor)
        text = everything.string_from(state, p)
        everything.set_from(state, p)
        assert by_all.setdefault((p, hist), (text, tuple(everything.tensor))
                                 ) == (text, tuple(everything.tensor))
    for a in (state.legal_actions() if not state.is_chance_node()
              else [a for a, _ in state.chance_outcomes()]):
      rec(state.child(a))

  rec(game.new_initial_state())
  assert len({v for v in by_public.values()}) == len(by_public)
  assert len({v[0] for v in by_all.values()}) == len(by_all)
  assert len({v[1] for v in by_all.values()}) == len(by_all)


# --------------------------------------------------------- parameter errors --


@pytest.mark.parametrize("spec,word", [
    ("comm(length=0)", "length=0"),
    ("comm(length=-2)", "length=-2"),
    ("comm(length=9)", "length=9"),
    ("simple_bidding(size=1)", "size=1"),
    ("simple_bidding(size=0)", "size=0"),
    ("simple_bidding(size=182)", "size=182"),
    ("mini_bridge(size=1)", "size=1"),
    ("mini_bridge(size=9)", "size=9"),
    ("mini_bridge(size=12)", "size=12"),
])
def test_bad_parameter_raises_value_error(spec, word):
  with pytest.raises(ValueError, match=word):
    pyspiel.load_game(spec)


def test_bad_parameter_types():
  with pytest.raises(ValueError, match="size=2.5"):
    simple_bidding.SimpleBiddingGame({"size": 2.5})
  with pytest.raises(ValueError, match="size=True"):
    mini_bridge.MiniBridgeGame({"size": True})
  with pytest.raises(ValueError, match="length='3'"):
    comm.CommGame({"length": "3"})
  # Through pyspiel the type is checked by OpenSpiel's parameter parser.
  with pytest.raises(pyspiel.SpielError):
    pyspiel.load_game("mini_bridge(size=2.5)")


def test_size_bounds_are_the_largest_with_at_most_2_pow_24_terminals():
  limit = 2 ** 24
  # Closed forms written out here independently of the modules.
  assert 2 ** (3 * 8) <= limit < 2 ** (3 * 9)
  assert comm.MAX_LENGTH == 8
  assert (9 ** 2 * (2 ** 17 - 1) <= limit < 10 ** 2 * (2 ** 19 - 1))
  assert mini_bridge.MAX_SIZE == 8
  # simple_bidding: K = number of bids = k + 1.
  terms = {n: n * n * (2 ** len(_sb_bid_values(n)) - 1)
           for n in range(2, 300)}
  largest = max(n for n, t in terms.items() if t <= limit)
  assert simple_bidding.MAX_SIZE == largest == 181
  assert all(t > limit for n, t in terms.items() if n > largest)
  # The largest sizes load.
  for spec in ["comm(length=8)", "simple_bidding(size=181)",
               "mini_bridge(size=8)"]:
    pyspiel.load_game(spec).new_initial_state()


# ------------------------------------------------------------------- comm --


@pytest.mark.parametrize("length", [1, 2, 3])
def test_comm_tree_and_rules_exhaustive(length):
  game = pyspiel.load_game(f"comm(length={length})")
  m = 2 ** length
  walk = _walk(game, num_deals=1)
  # Closed forms: 2^L x 2^L x 2^L terminals; P1 decisions 2^L (2^L - 1);
  # P2 decisions 2^L x 2^L; infosets P1 2^L (2^L - 1), P2 2^L.
  assert len(walk["terminals"]) == m ** 3 == comm.num_terminal_histories(
      length)
  assert walk["chance"] == 1
  assert walk["decision"] == m * (m - 1) + m * m
  assert len(walk["infosets"][0]) == m * (m - 1)
  assert len(walk["infosets"][1]) == m
  for info in walk["infosets"][0].values():
    assert info["legal"] == [0, 1]
  for info in walk["infosets"][1].values():
    assert info["legal"] == list(range(m))
  for hist, ret in walk["terminals"]:
    s1, guess = hist[0], hist[-1]
    assert len(hist) == length + 2
    assert ret == ([1.0, 1.0] if guess == s1 else [0.0, 0.0])
  _check_infoset_tensors_distinct(walk)


def test_comm_hand_checked():
  game = pyspiel.load_game("comm(length=3)")
  state = game.new_initial_state()
  assert state.current_player() == CHANCE
  assert state.chance_outcomes() == [(s, 1 / 8) for s in range(8)]
  state.apply_action(5)
  for bit in [1, 0, 1]:
    assert state.current_player() == 0
    assert state.legal_actions() == [0, 1]
    state.apply_action(bit)
  assert state.current_player() == 1
  assert state.legal_actions() == list(range(8))
  # P2's information is only the signals; P1's includes s1.
  assert state.information_state_string(1) == "p1 sig:101"
  assert state.information_state_string(0) == "p0 s1:5 sig:101"
  assert state.child(5).returns() == [1.0, 1.0]
  assert state.child(4).returns() == [0.0, 0.0]
  assert state.child(5).is_terminal()
  assert state.action_to_string(1, 5) == "Guess 5"
  assert str(state.child(5)) == "s1=5 signals=101 guess=5"
  with pytest.raises(ValueError, match="illegal action 8"):
    state.apply_action(8)  # Guess outside 0..7.
  with pytest.raises(ValueError, match="illegal action 0"):
    state.child(5).apply_action(0)  # Game over.
  with pytest.raises(ValueError, match="illegal action 2"):
    game.new_initial_state().child(3).apply_action(2)  # Signals are 0/1.


def _set_pure(pol, key, action):
  probs = pol.policy_for_key(key)
  probs[:] = 0.0
  probs[action] = 1.0


def test_comm_optimal_value_binary_code():
  """P1 sends s1 in binary (MSB first), P2 decodes: value 1 (Sec. 6)."""
  length = 3
  game = pyspiel.load_game(f"comm(length={length})")
  pol = policy_lib.TabularPolicy(game)
  for key in pol.state_lookup:
    fields = dict(f.split(":") for f in key.split()[1:])
    word = fields["sig"]
    if key.startswith("p0"):
      s1 = int(fields["s1"])
      _set_pure(pol, key, (s1 >> (length - 1 - len(word))) & 1)
    else:
      _set_pure(pol, key, int(word, 2))
  values = expected_game_score.policy_value(game.new_initial_state(),
                                            [pol, pol])
  np.testing.assert_allclose(values, [1.0, 1.0])
  # The uniform policy guesses right with probability 2^-L.
  uniform = policy_lib.TabularPolicy(game)
  values = expected_game_score.policy_value(game.new_initial_state(),
                                            [uniform, uniform])
  np.testing.assert_allclose(values, [1 / 8, 1 / 8])


# ------------------------------------------------------- simple_bidding --


def test_simple_bidding_bids():
  # Definition 2: k = ceil(log2 N), the largest power of two <= 2(N - 1).
  for n in range(2, simple_bidding.MAX_SIZE + 1):
    values = _sb_bid_values(n)
    assert values[-1] == 2 ** math.ceil(math.log2(n))
    game = pyspiel.load_game(f"simple_bidding(size={n})")
    assert game.num_distinct_actions() == len(values) + 1
  state = pyspiel.load_game("simple_bidding(size=4)").new_initial_state()
  assert [state.action_to_string(0, a) for a in range(4)] == [
      "Pass", "Bid 1", "Bid 2", "Bid 4"]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_simple_bidding_tree_and_rules_exhaustive(n):
  game = pyspiel.load_game(f"simple_bidding(size={n})")
  num_bids = len(_sb_bid_values(n))
  walk = _walk(game, num_deals=2)
  # Closed forms: N^2 (2^K - 1) terminals, N^2 2^K decision histories,
  # N 2^(K-1) infosets per player, 1 + N chance nodes.
  assert len(walk["terminals"]) == n * n * (2 ** num_bids - 1)
  assert len(walk["terminals"]) == simple_bidding.num_terminal_histories(n)
  assert walk["decision"] == n * n * 2 ** num_bids
  assert walk["chance"] == 1 + n
  assert len(walk["infosets"][0]) == n * 2 ** (num_bids - 1)
  assert len(walk["infosets"][1]) == n * 2 ** (num_bids - 1)
  for hist, ret in walk["terminals"]:
    s1, s2, actions = hist[0], hist[1], hist[2:]
    assert actions[-1] == 0 and 0 not in actions[:-1]
    assert ret == [_sb_oracle_reward(n, s1, s2, actions)] * 2
  _check_sb_legal_all_states(game, n)
  _check_infoset_tensors_distinct(walk)


def _check_sb_legal_all_states(game, n):
  def rec(state):
    if state.is_terminal():
      return
    if state.is_chance_node():
      assert state.chance_outcomes() == [(s, 1 / n) for s in range(n)]
      for a, _ in state.chance_outcomes():
        rec(state.child(a))
      return
    actions = state.history()[2:]
    assert state.current_player() == len(actions) % 2
    assert state.legal_actions() == _sb_oracle_legal(n, actions)
    for a in state.legal_actions():
      rec(state.child(a))
  rec(game.new_initial_state())


def _sb_play(n, s1, s2, actions):
  state = pyspiel.load_game(f"simple_bidding(size={n})").new_initial_state()
  for a in [s1, s2] + actions:
    state.apply_action(a)
  return state


def test_simple_bidding_hand_checked():
  # Actions for N=4: 0 Pass, 1 -> bid 1, 2 -> bid 2, 3 -> bid 4.
  state = _sb_play(4, 1, 2, [])
  assert state.current_player() == 0
  assert state.legal_actions() == [1, 2, 3]  # P1 may not Pass first.
  state.apply_action(1)  # P1 bids 1.
  assert state.current_player() == 1
  assert state.legal_actions() == [0, 2, 3]
  state.apply_action(2)  # P2 bids 2.
  assert state.current_player() == 0
  assert state.legal_actions() == [0, 3]
  assert state.information_state_string(0) == "p0 card:1 bids:1 2"
  assert state.information_state_string(1) == "p1 card:2 bids:1 2"
  end = state.child(0)  # P1 passes: contract 2, 1 + 2 >= 2.
  assert end.is_terminal() and end.returns() == [2.0, 2.0]
  top = state.child(3)  # P1 bids 4: only Pass is legal for P2.
  assert top.current_player() == 1 and top.legal_actions() == [0]
  end = top.child(0)
  assert end.is_terminal() and end.returns() == [0.0, 0.0]  # 1 + 2 < 4.
  # P1 opens with the top bid; P2 passes; 3 + 3 >= 4.
  assert _sb_play(4, 3, 3, [3, 0]).returns() == [4.0, 4.0]
  # s1 + s2 = 0: even bid 1 fails.
  assert _sb_play(4, 0, 0, [1, 0]).returns() == [0.0, 0.0]
  assert _sb_play(4, 0, 1, [1, 0]).returns() == [1.0, 1.0]
  with pytest.raises(ValueError, match="illegal action 0"):
    _sb_play(4, 1, 2, []).apply_action(0)  # Pass is illegal for P1 first.
  with pytest.raises(ValueError, match="illegal action 2"):
    _sb_play(4, 1, 2, [2]).apply_action(2)  # Bids must strictly increase.
  with pytest.raises(ValueError, match="illegal action 4"):
    _sb_play(4, 1, 2, [2]).apply_action(4)  # No such bid.
  with pytest.raises(ValueError, match="illegal action 0"):
    _sb_play(4, 1, 2, [2, 0]).apply_action(0)  # Game over.
  state = pyspiel.load_game("simple_bidding(size=4)").new_initial_state()
  state.apply_action(1)
  with pytest.raises(ValueError, match="illegal action 4"):
    state.apply_action(4)  # Deal of s2 outside 0..N-1.


def test_simple_bidding_optimal_value_size_2():
  """N=2 (bids 1, 2): the team optimum is 3/4, below the full-info bound 1.

  By hand: P2 only acts after P1's bid 1 (after 2 only Pass is legal).
  Writing the plan as (P1's bid with s1=0, with s1=1; P2 raises to 2 with
  s2=0?, with s2=1?), the four deals (s1, s2) give:
  * P1 always bids 1, P2 passes: 0, 1, 1, 1 -> 3/4.
  * P1 bids 2 iff s1 = 1, P2 passes: 0, 1, 0 (2 > 1+0), 2 -> 3/4.
  * P1 always bids 1, P2 raises iff s2 = 1: 0, 0 (2 > 0+1), 1, 2 -> 3/4.
  * P1 bids 2 iff s1 = 1, P2 raises iff s2 = 1: 0, 0, 0, 2 -> 1/2.
  Bidding 2 with s1 = 0 or raising with s2 = 0 only loses, so 3/4 is the
  optimum; brute force over all 16 pure joint plans must agree.
  """
  game = pyspiel.load_game("simple_bidding(size=2)")
  # Full-information bound: best bid for each sum (0 -> 0, 1 -> 1, 2 -> 2).
  assert sum(max([0] + [b for b in (1, 2) if s1 + s2 >= b])
             for s1 in range(2) for s2 in range(2)) / 4 == 1.0
  pol = policy_lib.TabularPolicy(game)
  keys = list(pol.state_lookup)
  legal = [pol.states[pol.state_lookup[k]].legal_actions() for k in keys]
  assert np.prod([len(x) for x in legal]) == 16
  values = []
  for choice in itertools.product(*legal):
    for key, a in zip(keys, choice, strict=True):
      _set_pure(pol, key, a)
    values.append(expected_game_score.policy_value(
        game.new_initial_state(), [pol, pol])[0])
  assert max(values) == pytest.approx(0.75)
  # Deal (1, 1) always pays >= 1 (any bid makes), the others can all fail:
  # P1 bids 2 iff s1 = 0, P2 raises iff s2 = 0 -> 0, 0, 0, 1.
  assert min(values) == pytest.approx(0.25)
  # Hand-built plan: P1 bids 1 with s1=0, 2 with s1=1; P2 passes.
  for key in keys:
    if key.endswith("bids:"):
      _set_pure(pol, key, 2 if "card:1" in key else 1)
    else:
      _set_pure(pol, key, 0)
  np.testing.assert_allclose(
      expected_game_score.policy_value(game.new_initial_state(), [pol, pol]),
      [0.75, 0.75])


# ---------------------------------------------------------- mini_bridge --


@pytest.mark.parametrize("n", [2, 3])
def test_mini_bridge_tree_and_rules_exhaustive(n):
  game = pyspiel.load_game(f"mini_bridge(size={n})")
  num_bids = 2 * n
  walk = _walk(game, num_deals=2)
  # Closed forms: (N+1)^2 (2^(B+1) - 1) terminals, (N+1)^2 2^(B+1) decision
  # histories, (N+1) 2^B infosets per player, 1 + (N+1) chance nodes.
  assert len(walk["terminals"]) == (n + 1) ** 2 * (2 ** (num_bids + 1) - 1)
  assert len(walk["terminals"]) == mini_bridge.num_terminal_histories(n)
  assert walk["decision"] == (n + 1) ** 2 * 2 ** (num_bids + 1)
  assert walk["chance"] == 1 + (n + 1)
  assert len(walk["infosets"][0]) == (n + 1) * 2 ** num_bids
  assert len(walk["infosets"][1]) == (n + 1) * 2 ** num_bids
  for hist, ret in walk["terminals"]:
    s1, s2, actions = hist[0], hist[1], hist[2:]
    assert _mb_oracle_terminal(actions)
    assert not any(_mb_oracle_terminal(actions[:t])
                   for t in range(1, len(actions)))
    assert ret == [_mb_oracle_reward(n, s1, s2, actions)] * 2
  _check_mb_legal_all_states(game, n)
  _check_infoset_tensors_distinct(walk)


def _check_mb_legal_all_states(game, n):
  def rec(state):
    if state.is_terminal():
      return
    if state.is_chance_node():
      assert state.chance_outcomes() == [(s, 1 / (n + 1))
                                         for s in range(n + 1)]
      for a, _ in state.chance_outcomes():
        rec(state.child(a))
      return
    actions = state.history()[2:]
    assert state.current_player() == len(actions) % 2
    assert state.legal_actions() == _mb_oracle_legal(n, actions)
    for a in state.legal_actions():
      rec(state.child(a))
  rec(game.new_initial_state())


def _mb_play(n, s1, s2, names):
  state = pyspiel.load_game(f"mini_bridge(size={n})").new_initial_state()
  state.apply_action(s1)
  state.apply_action(s2)
  order = _mb_names(n)
  for name in names:
    state.apply_action(order.index(name))
  return state


def test_mini_bridge_hand_checked():
  state = _mb_play(3, 2, 3, [])
  assert [state.action_to_string(0, a) for a in range(7)] == [
      "Pass", "1H", "1S", "2H", "2S", "3H", "3S"]
  assert state.legal_actions() == list(range(7))
  # Pass-out: P1's opening Pass does not end the game; P2's Pass then does.
  state.apply_action(0)
  assert not state.is_terminal() and state.current_player() == 1
  assert state.legal_actions() == list(range(7))
  assert state.child(0).is_terminal()
  assert state.child(0).returns() == [0.0, 0.0]
  # s1 + s2 = 5 spades, 1 heart (N = 3).
  assert _mb_play(3, 2, 3, ["1S", "Pass"]).returns() == [1.0, 1.0]  # 5>=4
  assert _mb_play(3, 2, 3, ["2S", "Pass"]).returns() == [2.0, 2.0]  # 5>=5
  assert _mb_play(3, 2, 3, ["3S", "Pass"]).returns() == [-1.0, -1.0]  # 5<6
  assert _mb_play(3, 2, 3, ["1H", "Pass"]).returns() == [-1.0, -1.0]  # 1<4
  # 0 spades each: 6 hearts, 3H makes (6 >= 6) for 2^2 = 4.
  assert _mb_play(3, 0, 0, ["1H", "2S", "3H", "Pass"]).returns() == [4.0] * 2
  assert _mb_play(3, 0, 0, ["Pass", "3S", "Pass"]).returns() == [-1.0] * 2
  # Contract made by P2 after P1's opening pass: 1H with 1 + 1 <= 3 - 1.
  assert _mb_play(3, 1, 1, ["Pass", "1H", "Pass"]).returns() == [1.0] * 2
  # After a bid, Pass ends the game, and bids must increase.
  state = _mb_play(3, 1, 1, ["2H"])
  assert state.current_player() == 1
  assert state.legal_actions() == [0, 4, 5, 6]
  assert state.child(0).is_terminal()
  # After the top bid NS only Pass is legal.
  assert _mb_play(3, 1, 1, ["Pass", "3S"]).legal_actions() == [0]
  assert _mb_play(3, 1, 1, ["3S"]).legal_actions() == [0]
  assert (_mb_play(3, 2, 1, ["Pass", "1S"]).information_state_string(1) ==
          "p1 spades:1 auction:Pass 1S")
  with pytest.raises(ValueError, match="illegal action 2"):
    _mb_play(3, 1, 1, ["2H"]).apply_action(2)  # 1S is below 2H.
  with pytest.raises(ValueError, match="illegal action 7"):
    _mb_play(3, 1, 1, []).apply_action(7)  # No such bid.
  with pytest.raises(ValueError, match="illegal action 0"):
    _mb_play(3, 1, 1, ["Pass", "Pass"]).apply_action(0)  # Game over.
  with pytest.raises(ValueError, match="illegal action 4"):
    game = pyspiel.load_game("mini_bridge(size=3)")
    game.new_initial_state().apply_action(4)  # Deal outside 0..N.


def test_mini_bridge_policy_values_by_hand():
  """N=2, deals s in {0,1,2}^2 (9 equally likely); values computed by hand."""
  game = pyspiel.load_game("mini_bridge(size=2)")

  def value(p1_choice, p2_choice):
    pol = policy_lib.TabularPolicy(game)
    for key in pol.state_lookup:
      fields = key.split(" ", 2)
      spades = int(fields[1].split(":")[1])
      auction = fields[2].split(":", 1)[1]
      choice = p1_choice if fields[0] == "p0" else p2_choice
      _set_pure(pol, key, choice(spades, auction))
    return expected_game_score.policy_value(game.new_initial_state(),
                                            [pol, pol])

  names = _mb_names(2)
  pass_all = lambda s, auction: 0
  # Everyone passes: passed out, 0.
  np.testing.assert_allclose(value(pass_all, pass_all), [0.0, 0.0])
  # P1 always opens 1S, P2 passes: makes iff s1+s2 >= 3 (3 of 9 deals).
  np.testing.assert_allclose(
      value(lambda s, a: names.index("1S") if not a else 0, pass_all),
      [-1 / 3, -1 / 3])
  # P1 always opens 2S: makes (for 2) only on s1 = s2 = 2.
  np.testing.assert_allclose(
      value(lambda s, a: names.index("2S") if not a else 0, pass_all),
      [(2 - 8) / 9] * 2)
  # P1 opens 1S with 2 spades, 1H with 0 spades, else passes; P2 passes.
  # s1 = 2: 1S makes iff s2 >= 1 -> 1/3; s1 = 0: 1H makes iff s2 <= 1 -> 1/3.
  def p1_smart(s, a):
    if a:
      return 0
    return {2: names.index("1S"), 0: names.index("1H"), 1: 0}[s]
  np.testing.assert_allclose(value(p1_smart, pass_all), [2 / 9, 2 / 9])
  # P1 passes, P2 bids 1S with 2 spades (makes iff s1 >= 1), else passes.
  def p2_bids(s, a):
    return names.index("1S") if a == "Pass" and s == 2 else 0
  np.testing.assert_allclose(value(pass_all, p2_bids), [1 / 9, 1 / 9])
