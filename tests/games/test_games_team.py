"""Tests of the team benchmark games (Zhang & Sandholm, "Team Correlated
Equilibria in Zero-Sum Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284,
Sec. 5).

Facts checked, each obtained independently of the code under test:
- OpenSpiel's built-ins agree where they are the same game (`kuhn_poker(players=n)`,
  `leduc_poker(players=n, suit_isomorphism=True)`, `liars_dice(numdice=1)`): identical histories,
  returns, legal actions, strings/tensors, and policy values of the same (random) policies;
- tree sizes from closed forms derived by hand (in the comments) and Table 1 of the paper
  (terminal histories and #sequences of each team, counted by an independent tree walk here);
- information-state strings partition the decision states exactly like "what the player has
  seen", computed here from the action history (`_knowledge_*`);
- hand-checked deals and action sequences -> returns.
"""

import math
import zlib

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score

from ospiel_team.games import team_goofspiel  # noqa: F401
from ospiel_team.games import team_instances
from ospiel_team.games import team_kuhn  # noqa: F401
from ospiel_team.games import team_leduc
from ospiel_team.games import team_liars_dice  # noqa: F401


# ------------------------------------------------------------------------------------------
# Helpers (independent of the games' code)
# ------------------------------------------------------------------------------------------
def _all_states(game):
  """Every history of `game` (depth first, children in legal-action order)."""
  out = []
  stack = [game.new_initial_state()]
  while stack:
    s = stack.pop()
    out.append(s)
    if not s.is_terminal():
      stack.extend(s.child(a) for a in reversed(s.legal_actions()))
  return out


def _play(game, actions):
  s = game.new_initial_state()
  for a in actions:
    s.apply_action(a)
  return s


def tree_sizes(game, teams):
  """(terminal histories, [#sequences of each team]).

  A team's sequence at a node is the list of (player, infoset, action) of the team's members on
  the path to it (the paper's definition, Sec. 2); #Seq counts the distinct ones, the empty
  sequence included. Hand check (21K3, team {0,1}): 1 + 6 (player 0 opens) + 24 (player 1
  answers) + 12 + 24 (after p p b) + 24 (after p b ?) = 91, as in Table 1.
  """
  team_of = {p: t for t, ps in enumerate(teams) for p in ps}
  seq_ids = [dict() for _ in teams]
  terminals = 0
  stack = [(game.new_initial_state(), (0,) * len(teams))]
  while stack:
    s, ids = stack.pop()
    if s.is_terminal():
      terminals += 1
      continue
    if s.is_chance_node():
      stack.extend((s.child(a), ids) for a, _ in s.chance_outcomes())
      continue
    p = s.current_player()
    t = team_of[p]
    info = s.information_state_string(p)
    for a in s.legal_actions():
      key = (ids[t], p, info, a)
      sid = seq_ids[t].setdefault(key, len(seq_ids[t]) + 1)
      new_ids = list(ids)
      new_ids[t] = sid
      stack.append((s.child(a), tuple(new_ids)))
  return terminals, [len(d) + 1 for d in seq_ids]


def _check_infostates_match_knowledge(game, knowledge):
  """Info-state strings of the player to move <-> knowledge(state, player): a bijection."""
  by_string, by_key = {}, {}
  for s in _all_states(game):
    if s.is_terminal() or s.is_chance_node():
      continue
    p = s.current_player()
    info, key = s.information_state_string(p), (p, knowledge(s, p))
    assert by_string.setdefault(info, key) == key, (info, key, by_string[info])
    assert by_key.setdefault(key, info) == info, (key, info, by_key[key])
  assert by_string


def _masked_history(num_private):
  """Knowledge = the history with the other players' private chance outcomes hidden (the first
  `num_private` actions deal one private item per player)."""
  def knowledge(state, player):
    h = state.history()
    return tuple(a if (i >= num_private or i == player) else None for i, a in enumerate(h))
  return knowledge


def _random_probs(key, legal, seed):
  rng = np.random.default_rng(zlib.crc32(repr(key).encode()) + 7919 * seed)
  return dict(zip(legal, rng.dirichlet(np.ones(len(legal))), strict=True))


def _tabular_from_key(game, key_fn, seed):
  """A TabularPolicy whose action probabilities at an infoset depend only on key_fn(state)."""
  pol = policy_lib.TabularPolicy(game)
  for s in _all_states(game):
    if s.is_terminal() or s.is_chance_node():
      continue
    legal = s.legal_actions()
    probs = (_random_probs(key_fn(s), legal, seed) if seed is not None
             else {a: 1.0 / len(legal) for a in legal})
    row = pol.policy_for_key(s.information_state_string())
    row[:] = 0
    for a, p in probs.items():
      row[a] = p
  return pol


def _values(game, pol):
  return expected_game_score.policy_value(game.new_initial_state(),
                                          [pol] * game.num_players())


# ------------------------------------------------------------------------------------------
# API: random simulation and serialization
# ------------------------------------------------------------------------------------------
API_GAMES = [
    "team_kuhn(players=3,ranks=3)",
    "team_kuhn(players=4,ranks=7)",
    "team_leduc(players=3,bets=1,ranks=3,suits=3)",
    "team_leduc(players=4,bets=1,ranks=3,suits=2,team1_size=3,no_raise_team=1)",
    "team_leduc(players=3,bets=2,ranks=2,suits=3,team1_size=2,no_raise_team=2)",
    "team_liars_dice(players=3,sides=3)",
    "team_liars_dice(players=4,sides=2,bidding_rule=reset-quantity)",
    "team_goofspiel(players=3,info=full)",
    "team_goofspiel(players=3,info=limited)",
    "team_goofspiel(players=2,info=limited,num_cards=4)",
]


@pytest.mark.parametrize("game_string", API_GAMES)
def test_random_sim_and_serialization(game_string):
  game = pyspiel.load_game(game_string)
  pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)
  rng = np.random.default_rng(0)
  for _ in range(10):
    s = game.new_initial_state()
    while not s.is_terminal():
      if s.is_chance_node():
        actions, probs = zip(*s.chance_outcomes(), strict=True)
        assert math.isclose(sum(probs), 1.0)
        s.apply_action(int(rng.choice(actions, p=probs)))
      else:
        s.apply_action(int(rng.choice(s.legal_actions())))
      text = pyspiel.serialize_game_and_state(game, s)
      game2, s2 = pyspiel.deserialize_game_and_state(text)
      assert str(game2) == str(game)
      assert s2.history() == s.history() and str(s2) == str(s)
    assert math.isclose(sum(s.returns()), 0.0, abs_tol=1e-9)
    for p in range(game.num_players()):
      assert len(s.information_state_tensor(p)) == game.information_state_tensor_size()
      assert len(s.observation_tensor(p)) == game.observation_tensor_size()
      assert isinstance(s.observation_string(p), str)


@pytest.mark.parametrize("bad", [
    "team_kuhn(players=3,ranks=2)", "team_kuhn(players=1)",
    "team_leduc(players=3,ranks=1,suits=3)", "team_leduc(players=3,no_raise_team=1)",
    "team_leduc(players=3,team1_size=2)", "team_leduc(players=3,no_raise_team=3,team1_size=1)",
    "team_leduc(players=3,bets=-1)", "team_liars_dice(players=3,sides=0)",
    "team_liars_dice(bidding_rule=wild)", "team_goofspiel(info=partial)",
    "team_goofspiel(num_cards=0)"])
def test_bad_parameters_raise(bad):
  with pytest.raises(Exception, match="team_"):
    pyspiel.load_game(bad)


def test_illegal_chance_outcome_raises():
  s = pyspiel.load_game("team_kuhn(players=3,ranks=3)").new_initial_state()
  s.apply_action(1)
  with pytest.raises(Exception, match="card 1"):
    s.apply_action(1)


# ------------------------------------------------------------------------------------------
# Kuhn
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3])
def test_kuhn_equals_openspiel_kuhn(n):
  """ranks = n+1: same histories, returns and strings/tensors as kuhn_poker(players=n)."""
  ours = _all_states(pyspiel.load_game(f"team_kuhn(players={n},ranks={n + 1})"))
  theirs = _all_states(pyspiel.load_game(f"kuhn_poker(players={n})"))
  assert len(ours) == len(theirs)
  for x, y in zip(ours, theirs, strict=True):
    assert x.history() == y.history()
    assert x.current_player() == y.current_player()
    np.testing.assert_allclose(x.returns(), y.returns())
    if x.is_chance_node():
      np.testing.assert_allclose(x.chance_outcomes(), y.chance_outcomes())
    elif not x.is_terminal():
      for p in range(n):
        assert x.information_state_string(p) == y.information_state_string(p)
        assert x.observation_string(p) == y.observation_string(p)
        np.testing.assert_array_equal(x.information_state_tensor(p),
                                      y.information_state_tensor(p))
        np.testing.assert_array_equal(x.observation_tensor(p), y.observation_tensor(p))


def test_kuhn_policy_values_equal_openspiel():
  """Uniform and random policies, defined by (player, own card, bets), value the same."""
  ours = pyspiel.load_game("team_kuhn(players=3,ranks=4)")
  theirs = pyspiel.load_game("kuhn_poker(players=3)")
  key = lambda s: _masked_history(3)(s, s.current_player())  # noqa: E731
  for seed in (None, 1, 2, 3):
    v1 = _values(ours, _tabular_from_key(ours, key, seed))
    v2 = _values(theirs, _tabular_from_key(theirs, key, seed))
    np.testing.assert_allclose(v1, v2, atol=1e-12)
    assert math.isclose(sum(v1), 0.0, abs_tol=1e-12)


@pytest.mark.parametrize("n,r", [(2, 2), (2, 5), (3, 3), (3, 6), (4, 4)])
def test_kuhn_terminal_count_closed_form(n, r):
  # r!/(r-n)! deals; betting: everybody checks (1), or player i bets after i checks and the
  # n-1 others each call or fold (n * 2^(n-1)).
  game = pyspiel.load_game(f"team_kuhn(players={n},ranks={r})")
  terminals, _ = tree_sizes(game, (tuple(range(n)),))
  assert terminals == math.perm(r, n) * (1 + n * 2 ** (n - 1))


def test_kuhn_infostates_are_what_the_player_saw():
  _check_infostates_match_knowledge(pyspiel.load_game("team_kuhn(players=3,ranks=5)"),
                                    _masked_history(3))


def test_kuhn_hand_checked_returns():
  game = pyspiel.load_game("team_kuhn(players=3,ranks=3)")
  # Cards 0, 1, 2; everybody checks: player 2 (card 2) takes the 3 antes.
  assert _play(game, [0, 1, 2, 0, 0, 0]).returns() == [-1, -1, 2]
  # Cards 2, 0, 1: p0 checks, p1 bets, p2 folds, p0 calls: p0 (card 2) beats p1; pot 5.
  s = _play(game, [2, 0, 1, 0, 1, 0, 1])
  assert s.is_terminal() and s.returns() == [3, -2, -1]
  # Cards 0, 2, 1: p0 bets, p1 calls, p2 calls: p1 wins the pot of 6.
  assert _play(game, [0, 2, 1, 1, 1, 1]).returns() == [-2, 4, -2]
  # Cards 1, 0, 2: p0 bets, both fold: p0 wins the antes.
  assert _play(game, [1, 0, 2, 1, 0, 0]).returns() == [2, -1, -1]
  # Cards 11, 3, 7 with 12 ranks: check, check, bet; p0 calls, p1 folds: p0 (11) wins 5.
  big = pyspiel.load_game("team_kuhn(players=3,ranks=12)")
  s = _play(big, [11, 3, 7, 0, 0, 1, 1])
  assert not s.is_terminal()
  s.apply_action(0)
  assert s.returns() == [3, -1, -2]


# ------------------------------------------------------------------------------------------
# Leduc
# ------------------------------------------------------------------------------------------
def test_leduc_equals_openspiel_leduc_two_players():
  """bets=2, ranks=n+1, suits=2: same tree as leduc_poker(players=2, suit_isomorphism=True)."""
  ours = _all_states(pyspiel.load_game("team_leduc(players=2,bets=2,ranks=3,suits=2)"))
  theirs = _all_states(pyspiel.load_game("leduc_poker(players=2,suit_isomorphism=True)"))
  assert len(ours) == len(theirs)
  for x, y in zip(ours, theirs, strict=True):
    assert x.history() == y.history()
    assert x.current_player() == y.current_player()
    np.testing.assert_allclose(x.returns(), y.returns())
    if x.is_chance_node():
      np.testing.assert_allclose(x.chance_outcomes(), y.chance_outcomes())
    elif not x.is_terminal():
      assert x.legal_actions() == y.legal_actions()


def test_leduc_policy_values_equal_openspiel_without_isomorphism():
  """Random policies on (player, own rank, public rank, bets) value the same in our game and
  in OpenSpiel's leduc_poker(players=2), which deals distinct cards (rank = card // 2)."""
  ours = pyspiel.load_game("team_leduc(players=2,bets=2,ranks=3,suits=2)")
  theirs = pyspiel.load_game("leduc_poker(players=2)")

  def key_fn(to_rank):
    def key(state):
      p = state.current_player()
      items = []
      for i, (a, who) in enumerate((h.action, h.player) for h in state.full_history()):
        if who == pyspiel.PlayerId.CHANCE:
          items.append(None if (i < 2 and i != p) else ("card", to_rank(a)))
        else:
          items.append(a)
      return (p, tuple(items))
    return key

  for seed in (None, 1, 2):
    v1 = _values(ours, _tabular_from_key(ours, key_fn(lambda c: c), seed))
    v2 = _values(theirs, _tabular_from_key(theirs, key_fn(lambda c: c // 2), seed))
    np.testing.assert_allclose(v1, v2, atol=1e-12)


def test_leduc_infostates_are_what_the_player_saw():
  for gs in ("team_leduc(players=3,bets=1,ranks=3,suits=2)",
             "team_leduc(players=2,bets=2,ranks=3,suits=2)"):
    game = pyspiel.load_game(gs)
    _check_infostates_match_knowledge(game, _masked_history(game.num_players()))


def test_leduc_terminal_counts_closed_form():
  # 3 players, b=1: round 1 has 13 sequences: ccc (3 left), a raise by player 0, 1 or 2 (after
  # 0, 1, 2 checks) answered call/fold by the other two: cc (3 left), cf/fc (2 left), ff (ends).
  # So 3 sequences end the game, 4 go on with 3 players, 6 with 2. Round 2 has 13 sequences
  # with 3 players and 5 (cc, rc, rf, crc, crf) with 2: 4*13 + 6*5 = 82.
  # 21L133 (ranks dealt, 3 suits): 27 private deals, 78 deals with the public card
  # (24 deals with three ranks free + 3 triples with two free).
  game = pyspiel.load_game("team_leduc(players=3,bets=1,ranks=3,suits=3)")
  assert tree_sizes(game, ((0, 1, 2),))[0] == 27 * 3 + 78 * 82 == 6477
  # 21L151: 5*4*3 = 60 deals, 2 public cards each.
  game = pyspiel.load_game("team_leduc(players=3,bets=1,ranks=5,suits=1)")
  assert tree_sizes(game, ((0, 1, 2),))[0] == 60 * 3 + 120 * 82 == 10020
  # 31L'132: only player 3 may raise. Round 1: cccc, or ccc r answered by players 0-2; one
  # sequence (all fold) ends the game. Round 2 with player 3 and m others: 1 + 2^m sequences:
  # 9 + 3*3 + 3*5 + 9 = 42. Deals of 4 ranks from 3 ranks x 2 suits: 54 (18 with two pairs ->
  # 1 public rank left, 36 with one pair -> 2), so 54 + 90 * 42.
  game = pyspiel.load_game(
      "team_leduc(players=4,bets=1,ranks=3,suits=2,team1_size=3,no_raise_team=1)")
  assert tree_sizes(game, ((0, 1, 2, 3),))[0] == 54 * 1 + 90 * 42 == 3834


def test_leduc_hand_checked_returns():
  game = pyspiel.load_game("team_leduc(players=2,bets=2,ranks=3,suits=2)")
  f, c, r = team_leduc.FOLD, team_leduc.CALL, team_leduc.RAISE
  # Ranks 0 and 2, public 0: player 0 pairs. Round 1: raise, call (3 each); round 2: check,
  # raise (4), call: 7 each.
  s = _play(game, [0, 2, r, c, 0, c, r, c])
  assert s.is_terminal() and s.returns() == [7, -7]
  # Same cards, public 1: no pair, player 1's 2 beats 0.
  assert _play(game, [0, 2, r, c, 1, c, r, c]).returns() == [-7, 7]
  # Fold to a raise in round 1: player 1 loses the ante only.
  assert _play(game, [0, 2, r, f]).returns() == [1, -1]
  # Equal ranks, no pair: split pot.
  assert _play(game, [1, 1, c, c, 0, c, c]).returns() == [0, 0]
  # Raise cap: after 2 raises in a round, no raise is legal; fold only when facing a raise.
  s = _play(game, [0, 1, r, r])
  assert s.legal_actions() == [f, c]
  assert _play(game, [0, 1]).legal_actions() == [c, r]
  # Three players, ranks 2, 2, 0, public 1: players 0 and 1 tie and split the 3 antes.
  g3 = pyspiel.load_game("team_leduc(players=3,bets=1,ranks=3,suits=2)")
  assert _play(g3, [2, 2, 0, c, c, c, 1, c, c, c]).returns() == [0.5, 0.5, -1]
  # Chance deals ranks with their multiplicity: after ranks 2, 2 the third card is 0 or 1.
  s = _play(g3, [2, 2])
  assert s.chance_outcomes() == [(0, 0.5), (1, 0.5)]
  assert _play(g3, [2, 0]).chance_outcomes() == [(0, 0.25), (1, 0.5), (2, 0.25)]


def test_leduc_no_raise_teams():
  prime = pyspiel.load_game(
      "team_leduc(players=4,bets=1,ranks=3,suits=2,team1_size=3,no_raise_team=1)")
  s = _play(prime, [0, 1, 2, 0])
  for _ in range(3):  # players 0, 1, 2 may only check
    assert s.legal_actions() == [team_leduc.CALL]
    s.apply_action(team_leduc.CALL)
  assert s.current_player() == 3 and s.legal_actions() == [team_leduc.CALL, team_leduc.RAISE]
  other = pyspiel.load_game(
      "team_leduc(players=4,bets=1,ranks=3,suits=2,team1_size=3,no_raise_team=2)")
  s = _play(other, [0, 1, 2, 0, team_leduc.CALL, team_leduc.CALL, team_leduc.CALL])
  assert s.current_player() == 3 and s.legal_actions() == [team_leduc.CALL]


# ------------------------------------------------------------------------------------------
# Liar's Dice
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sides", [2, 3])
@pytest.mark.parametrize("rule", ["reset-face", "reset-quantity"])
def test_liars_dice_equals_openspiel_two_players(sides, rule):
  ours = _all_states(pyspiel.load_game(
      f"team_liars_dice(players=2,sides={sides},bidding_rule={rule})"))
  theirs = _all_states(pyspiel.load_game(
      f"liars_dice(numdice=1,dice_sides={sides},bidding_rule={rule})"))
  assert len(ours) == len(theirs)
  for x, y in zip(ours, theirs, strict=True):
    assert x.history() == y.history()
    np.testing.assert_allclose(x.returns(), y.returns())
    if not x.is_terminal() and not x.is_chance_node():
      assert x.legal_actions() == y.legal_actions()
      assert [x.action_to_string(a) for a in x.legal_actions()] == [
          y.action_to_string(a) for a in y.legal_actions()]
      for p in range(2):
        assert x.information_state_string(p) == y.information_state_string(p)
        np.testing.assert_array_equal(x.information_state_tensor(p),
                                      y.information_state_tensor(p))


def test_liars_dice_policy_values_equal_openspiel():
  ours = pyspiel.load_game("team_liars_dice(players=2,sides=3)")
  theirs = pyspiel.load_game("liars_dice(numdice=1,dice_sides=3)")
  key = lambda s: _masked_history(2)(s, s.current_player())  # noqa: E731
  for seed in (None, 4, 5):
    np.testing.assert_allclose(_values(ours, _tabular_from_key(ours, key, seed)),
                               _values(theirs, _tabular_from_key(theirs, key, seed)),
                               atol=1e-12)


@pytest.mark.parametrize("n,d", [(2, 2), (3, 2), (3, 3), (4, 2)])
def test_liars_dice_terminal_count_closed_form(n, d):
  # d^n rolls; each history is a nonempty strictly increasing sequence of the n*d bids, then
  # "Liar": 2^(n*d) - 1 of them (21D3: 27 * 511 = 13,797, Table 1).
  game = pyspiel.load_game(f"team_liars_dice(players={n},sides={d})")
  assert tree_sizes(game, (tuple(range(n)),))[0] == d ** n * (2 ** (n * d) - 1)


def test_liars_dice_infostates_are_what_the_player_saw():
  _check_infostates_match_knowledge(pyspiel.load_game("team_liars_dice(players=3,sides=2)"),
                                    _masked_history(3))


def test_liars_dice_hand_checked_returns():
  game = pyspiel.load_game("team_liars_dice(players=3,sides=3)")
  liar = 9
  bid = lambda q, f: (q - 1) * 3 + (f - 1)  # noqa: E731  reset-face order
  # Dice 1, 2, 3 (3 is wild). "2 ones" holds (the 1 and the wild 3): caller p1 loses.
  assert _play(game, [0, 1, 2, bid(2, 1), liar]).returns() == [1, -1, 0]
  # "3 twos" fails (one 2 and one wild): caller p2 wins, bidder p1 loses.
  assert _play(game, [0, 1, 2, bid(1, 1), bid(3, 2), liar]).returns() == [0, -1, 1]
  # Dice 1, 1, 1: p2's "1 three" fails (no 3, no wild); p0 calls on p2 after wrapping round.
  s = _play(game, [0, 0, 0, bid(1, 1), bid(1, 2), bid(1, 3), liar])
  assert s.returns() == [1, 0, -1]
  # Order: 1-3 < 2-1 (reset-face); in reset-quantity 3-1 < 1-2.
  s = _play(game, [0, 1, 2, bid(1, 3)])
  assert s.legal_actions()[0] == bid(2, 1) and s.action_to_string(bid(2, 1)) == "2-1"
  rq = pyspiel.load_game("team_liars_dice(players=3,sides=3,bidding_rule=reset-quantity)")
  s = _play(rq, [0, 1, 2, 2])
  assert s.action_to_string(2) == "3-1" and s.action_to_string(3) == "1-2"
  assert s.legal_actions()[0] == 3
  # "Liar" is not legal as the first action; after the top bid it is the only one.
  assert liar not in _play(game, [0, 1, 2]).legal_actions()
  assert _play(game, [0, 1, 2, 8]).legal_actions() == [liar]


def test_liars_dice_table1_rules_hand_checked():
  """The D instances' rules (face-first bids, no wild face), deal by deal."""
  game_string = team_instances.TABLE1_INSTANCES["21D3"][0]
  game = pyspiel.load_game(game_string)
  assert game.get_parameters()["wild"] is False
  assert game.get_parameters()["bidding_rule"] == "reset-quantity"
  wild = pyspiel.load_game("team_liars_dice(players=3,sides=3,bidding_rule=reset-quantity)")
  liar = 9
  bid = lambda q, f: (f - 1) * 3 + (q - 1)  # noqa: E731  face-first order
  # Dice 1, 2, 3. "2 ones": only one 1 without a wild face, so the caller p1 wins; with the
  # wild 3 the claim holds and p1 loses.
  assert _play(game, [0, 1, 2, bid(2, 1), liar]).returns() == [-1, 1, 0]
  assert _play(wild, [0, 1, 2, bid(2, 1), liar]).returns() == [1, -1, 0]
  # "1 three" holds (p2's 3): caller p1 loses.
  assert _play(game, [0, 1, 2, bid(1, 3), liar]).returns() == [1, -1, 0]
  # Dice 3, 3, 1: "2 threes" holds; "3 threes" fails, caller p0 (after wrapping round) wins.
  assert _play(game, [2, 2, 0, bid(2, 3), liar]).returns() == [1, -1, 0]
  assert _play(game, [2, 2, 0, bid(1, 1), bid(1, 3), bid(3, 3), liar]).returns() == [1, 0, -1]
  # Face first: after "3 ones" (id 2) the lowest bid is "1 two" (id 3); a higher face with a
  # lower quantity is a raise, a lower face never is.
  s = _play(game, [0, 1, 2, bid(3, 1)])
  assert s.legal_actions()[0] == bid(1, 2) and s.action_to_string(bid(1, 2)) == "1-2"
  s = _play(game, [0, 1, 2, bid(1, 2)])
  assert bid(3, 1) not in s.legal_actions() and bid(2, 2) in s.legal_actions()
  with pytest.raises(Exception, match="wild"):
    pyspiel.load_game("team_liars_dice(wild=3)")


# ------------------------------------------------------------------------------------------
# Goofspiel
# ------------------------------------------------------------------------------------------
def _goof_winners(bids):
  top = max(bids)
  return frozenset(p for p, b in enumerate(bids) if b == top)


def _goof_knowledge(n, full):
  """What player p has seen: point cards, own bids, and per finished round all bids (full)
  or the winner set (limited); nothing of this round's other bids."""
  def knowledge(state, p):
    h = state.history()
    rounds, i = [], 0
    while i < len(h):
      point = h[i] if len(rounds) < 2 else None  # the last point card is dealt implicitly
      i += 1 if len(rounds) < 2 else 0
      bids = h[i:i + n]
      i += n
      rounds.append((point, bids))
    seen = []
    for point, bids in rounds:
      done = len(bids) == n
      own = bids[p] if len(bids) > p else None
      public = (tuple(bids) if full else _goof_winners(bids)) if done else None
      seen.append((point, own, public))
    return tuple(seen)
  return knowledge


@pytest.mark.parametrize("info", ["full", "limited"])
def test_goofspiel_infostates_are_what_the_player_saw(info):
  game = pyspiel.load_game(f"team_goofspiel(players=3,info={info})")
  _check_infostates_match_knowledge(game, _goof_knowledge(3, info == "full"))


@pytest.mark.parametrize("n", [2, 3])
def test_goofspiel_terminal_count_closed_form(n):
  # 3! point orders x 3^n first-round bids x 2^n second-round bids (third round forced).
  for info in ("full", "limited"):
    game = pyspiel.load_game(f"team_goofspiel(players={n},info={info})")
    assert tree_sizes(game, (tuple(range(n)),))[0] == 6 * 6 ** n


def test_goofspiel_points_match_openspiel_up_to_ties():
  """OpenSpiel's goofspiel (total_points) discards tied point cards; ours splits them. For
  every terminal history, our points = OpenSpiel's + the split shares of tied rounds."""
  ours = pyspiel.load_game("team_goofspiel(players=3,info=limited)")
  theirs = pyspiel.load_game(
      "turn_based_simultaneous_game(game=goofspiel(players=3,num_cards=3,imp_info=True,"
      "points_order=random,returns_type=total_points))")
  count = 0
  for s in _all_states(ours):
    if not s.is_terminal():
      continue
    h = s.history()
    t = _play(theirs, h[:8])  # OpenSpiel plays the forced last round itself
    assert t.is_terminal()
    points = np.array(s.returns()) + 2.0  # mean of 6 points over 3 players
    expected = np.array(t.returns(), dtype=float)
    last_point = ({0, 1, 2} - {h[0], h[4]}).pop()
    for point, bids in ((h[0], h[1:4]), (h[4], h[5:8]), (last_point, h[8:11])):
      win = _goof_winners(bids)
      if len(win) > 1:
        for p in win:
          expected[p] += (point + 1) / len(win)
    np.testing.assert_allclose(points, expected)
    count += 1
  assert count == 1296


def test_goofspiel_hand_checked_returns():
  game = pyspiel.load_game("team_goofspiel(players=3,info=full)")
  # Point cards 3, 1, then 2. Round 1 bids 3,3,1: p0, p1 split 3. Round 2 bids 1,2,3: p2
  # wins 1. Round 3 forced bids 2,1,2: p0, p2 split 2. Points 2.5, 1.5, 2; mean 2.
  s = _play(game, [2, 2, 2, 0, 0, 0, 1, 2])
  assert s.current_player() == 0 and s.legal_actions() == [1]
  for a in (1, 0, 1):
    s.apply_action(a)
  assert s.is_terminal()
  np.testing.assert_allclose(s.returns(), [0.5, -0.5, 0.0])
  limited = pyspiel.load_game("team_goofspiel(players=3,info=limited)")
  # Limited: after round 1 player 2 knows who won (p0 and p1) but not their bids.
  # Bids 3,2,1 and 3,1,1: p0 won both; 3,3,1: p0 and p1 won.
  a = _play(limited, [2, 2, 1, 0, 0])
  b = _play(limited, [2, 2, 0, 0, 0])
  c = _play(limited, [2, 2, 2, 0, 0])
  assert a.information_state_string(0) == b.information_state_string(0)
  assert a.information_state_string(0) != c.information_state_string(0)
  assert (_play(game, [2, 2, 1, 0, 0]).information_state_string(0) !=
          _play(game, [2, 2, 0, 0, 0]).information_state_string(0))


# ------------------------------------------------------------------------------------------
# Table 1 instances
# ------------------------------------------------------------------------------------------
def _name_sizes(name):
  digits = name[:2]
  return int(digits[0]), int(digits[1])


def test_instances_table_is_well_formed():
  assert set(team_instances.TABLE1_INSTANCES) == set(team_instances.PAPER_TABLE1)
  assert len(team_instances.TABLE1_INSTANCES) == 29
  for name, (game_string, teams) in team_instances.TABLE1_INSTANCES.items():
    n1, n2 = _name_sizes(name)
    game = pyspiel.load_game(game_string)
    assert game.num_players() == n1 + n2
    assert sorted(teams[0] + teams[1]) == list(range(n1 + n2))
    assert (len(teams[0]), len(teams[1])) == (n1, n2)
    if "D" in name and n2 >= 2:  # no two team-2 players in a row (the last 2*n2 alternate)
      n = n1 + n2
      assert not any(p in teams[1] and (p + 1) % n in teams[1] for p in range(n))
  assert team_instances.TABLE1_INSTANCES["21K4"] == ("kuhn_poker(players=3)", ((0, 1), (2,)))
  assert team_instances.TABLE1_INSTANCES["42D2"][1] == ((0, 1, 2, 4), (3, 5))
  with pytest.raises(KeyError, match="21X9"):
    team_instances.load_instance("21X9")


FAST_INSTANCES = ["21K3", "21K4", "21K6", "22K5", "31K5", "21L133", "21L223", "31L'132",
                  "21D3", "21GL", "21G"]
SLOW_INSTANCES = [name for name in team_instances.TABLE1_INSTANCES
                  if name not in FAST_INSTANCES]


def _check_instance(name):
  game, teams = team_instances.load_instance(name)
  row = team_instances.PAPER_TABLE1[name]
  assert tree_sizes(game, teams) == (row.terminals, [row.seq1, row.seq2])


@pytest.mark.parametrize("name", FAST_INSTANCES)
def test_instance_sizes_match_table1(name):
  _check_instance(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_INSTANCES)
def test_instance_sizes_match_table1_slow(name):
  _check_instance(name)


def test_leduc_prime_is_the_first_team_that_may_not_raise():
  """Table 1's 31L'132 sizes fit only `no_raise_team=1`; the other reading is far off."""
  game = pyspiel.load_game(
      "team_leduc(players=4,bets=1,ranks=3,suits=2,team1_size=3,no_raise_team=2)")
  terminals, seqs = tree_sizes(game, ((0, 1, 2), (3,)))
  assert (terminals, seqs) != (3834, [3991, 151])


@pytest.mark.slow
def test_leduc_equals_openspiel_leduc_three_players():
  ours = _all_states(pyspiel.load_game("team_leduc(players=3,bets=2,ranks=4,suits=2)"))
  theirs = _all_states(pyspiel.load_game("leduc_poker(players=3,suit_isomorphism=True)"))
  assert len(ours) == len(theirs)
  for x, y in zip(ours, theirs, strict=True):
    assert x.history() == y.history()
    np.testing.assert_allclose(x.returns(), y.returns())
    if not x.is_terminal() and not x.is_chance_node():
      assert x.legal_actions() == y.legal_actions()


@pytest.mark.parametrize("game_string", [
    "team_goofspiel(players=3)", "team_goofspiel(players=2,info=limited)",
    "team_leduc(players=3)", "team_kuhn(players=3,ranks=4)",
    "team_liars_dice(players=3,sides=3)"])
def test_clones_are_independent_and_serialize(game_string):
  """The cheap-clone lists (cheap_clone.py): a child never shares mutable state with its parent,
  and serialize/deserialize restores every attribute."""
  game = pyspiel.load_game(game_string)
  rng = np.random.default_rng(0)
  for _ in range(20):
    state = game.new_initial_state()
    while not state.is_terminal():
      before = (str(state), repr(vars(state)))
      child = state.child(int(rng.choice(state.legal_actions())))
      assert (str(state), repr(vars(state))) == before
      restored = pyspiel.deserialize_game_and_state(
          pyspiel.serialize_game_and_state(game, child))[1]
      assert repr(vars(restored)) == repr(vars(child))
      assert restored.history() == child.history()
      state = child


def test_cheap_clone_lists_deepcopy():
  import copy

  from ospiel_team.games.cheap_clone import FlatList
  from ospiel_team.games.cheap_clone import NestedList
  flat = FlatList([1, 2])
  dup = copy.deepcopy(flat)
  dup.append(3)
  assert flat == [1, 2] and type(dup) is FlatList
  nested = NestedList([[1], []])
  dup = copy.deepcopy(nested)
  dup[1].append(5)
  assert nested == [[1], []] and dup == [[1], [5]]
