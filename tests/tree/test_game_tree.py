"""The array game tree against OpenSpiel's own functions (independent implementations)."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability

import ospiel_team  # noqa: F401
from ospiel_team.tree import evaluation as ev
from ospiel_team.tree.game_tree import GameTree

GAMES = [
    "kuhn_poker", "leduc_poker", "liars_dice", "kuhn_poker(players=3)", "tiny_hanabi",
    "comm(length=2)", "simple_bidding(size=4)", "mini_bridge(size=3)",
]

_TREES = {}


def _tree(name):
  if name not in _TREES:
    _TREES[name] = GameTree(pyspiel.load_game(name))
  return _TREES[name]


def _random_tabular(game, seed):
  tab = policy_lib.TabularPolicy(game)
  rng = np.random.default_rng(seed)
  x = rng.random(tab.action_probability_array.shape) ** 3 * tab.legal_actions_mask
  tab.action_probability_array = x / x.sum(axis=1, keepdims=True)
  return tab


@pytest.mark.parametrize("name", GAMES)
def test_values_best_responses_nash_conv_agree_with_openspiel(name):
  tree = _tree(name)
  game = tree.game
  for seed in range(1 if name == "liars_dice" else 2):  # OpenSpiel's BR takes ~10 s there
    tab = _random_tabular(game, seed)
    pi = tree.policy_array(tab)
    expected = expected_game_score.policy_value(game.new_initial_state(),
                                                [tab] * game.num_players())
    np.testing.assert_allclose(ev.game_value(tree, pi), expected, atol=1e-9)
    br_values = ev.best_response_values(tree, pi)
    for p in range(game.num_players()):
      os_value = os_best_response.BestResponsePolicy(game, p, tab).value(
          game.new_initial_state())
      assert abs(br_values[p] - os_value) < 1e-9, (name, p)
    # On liars_dice OpenSpiel's C++ best response keeps the test fast (both are independent).
    os_nash_conv = exploitability.nash_conv(game, tab, use_cpp_br=(name == "liars_dice"))
    assert abs(ev.nash_conv(tree, pi) - os_nash_conv) < 1e-9


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "kuhn_poker(players=3)",
                                  "mini_bridge(size=3)"])
def test_best_response_policy_achieves_its_value(name):
  """Evaluating the returned one-hot best response gives the best-response value."""
  tree = _tree(name)
  tab = _random_tabular(tree.game, 7)
  pi = tree.policy_array(tab)
  for p in range(tree.num_players):
    br = ev.best_response(tree, pi, p)
    assert np.allclose(br.policy.sum(axis=1), 1.0)
    # Others' rows unchanged, own rows one-hot on legal actions.
    own = tree.infoset_player == p
    np.testing.assert_array_equal(br.policy[~own], pi[~own])
    assert np.all(tree.infoset_legal[own, br.actions[own]])
    value_with_br = expected_game_score.policy_value(
        tree.game.new_initial_state(), [tree.tabular_policy(br.policy)] * tree.num_players)
    assert abs(value_with_br[p] - br.value) < 1e-9


def _path_reach(game, tab, history):
  """Reach of a history by replaying it in pyspiel: (total, per-player, chance)."""
  state = game.new_initial_state()
  players = np.ones(game.num_players())
  chance = 1.0
  for a in history:
    if state.is_chance_node():
      chance *= dict(state.chance_outcomes())[a]
    else:
      players[state.current_player()] *= tab.action_probabilities(state).get(a, 0.0)
    state.apply_action(a)
  return players.prod() * chance, players, chance


def _history(tree, n):
  actions = []
  while tree.node_parent[n] >= 0:
    actions.append(int(tree.node_action[n]))
    n = tree.node_parent[n]
  return actions[::-1]


@pytest.mark.parametrize("name", ["kuhn_poker(players=3)", "simple_bidding(size=4)"])
def test_reach_probabilities_match_replayed_histories(name):
  tree = _tree(name)
  tab = _random_tabular(tree.game, 3)
  reach = ev.reach_probabilities(tree, tree.policy_array(tab))
  assert abs(reach.total[tree.terminals].sum() - 1.0) < 1e-12
  rng = np.random.default_rng(0)
  for n in rng.choice(tree.num_nodes, size=40, replace=False):
    total, players, chance = _path_reach(tree.game, tab, _history(tree, n))
    assert abs(reach.total[n] - total) < 1e-12
    np.testing.assert_allclose(reach.player[n], players, atol=1e-12)
    assert abs(reach.chance[n] - chance) < 1e-12


def test_history_values_match_subtree_values():
  tree = _tree("leduc_poker")
  tab = _random_tabular(tree.game, 5)
  values = ev.history_values(tree, tree.policy_array(tab))
  rng = np.random.default_rng(1)
  for n in rng.choice(tree.num_nodes, size=25, replace=False):
    state = tree.game.new_initial_state()
    for a in _history(tree, n):
      state.apply_action(a)
    expected = expected_game_score.policy_value(state, [tab] * tree.num_players)
    np.testing.assert_allclose(values[n], expected, atol=1e-12)


def test_counterfactual_action_values_by_brute_force():
  tree = _tree("kuhn_poker(players=3)")
  game = tree.game
  tab = _random_tabular(game, 11)
  q, cf_reach = ev.counterfactual_action_values(tree, tree.policy_array(tab))
  q_bf = np.zeros_like(q)
  cf_bf = np.zeros_like(cf_reach)
  for h in tree.decisions:
    history = _history(tree, h)
    _, players, chance = _path_reach(game, tab, history)
    p = tree.node_player[h]
    cf = chance * np.prod(np.delete(players, p))
    info = tree.node_infoset[h]
    cf_bf[info] += cf
    state = game.new_initial_state()
    for a in history:
      state.apply_action(a)
    for a in state.legal_actions():
      q_bf[info, a] += cf * expected_game_score.policy_value(state.child(a), [tab] * 3)[p]
  np.testing.assert_allclose(q, q_bf, atol=1e-12)
  np.testing.assert_allclose(cf_reach, cf_bf, atol=1e-12)


def test_jax_backend_equals_numpy():
  jax = pytest.importorskip("jax")
  tree = _tree("leduc_poker")
  pi = tree.policy_array(_random_tabular(tree.game, 2))
  with jax.enable_x64(True):
    nc = jax.jit(lambda p: ev.nash_conv(tree, p, backend="jax"))(pi)
    q, cf = jax.jit(lambda p: ev.counterfactual_action_values(tree, p, backend="jax"))(pi)
  assert abs(float(nc) - ev.nash_conv(tree, pi)) < 1e-9
  q_np, cf_np = ev.counterfactual_action_values(tree, pi)
  np.testing.assert_allclose(np.asarray(q), q_np, atol=1e-9)
  np.testing.assert_allclose(np.asarray(cf), cf_np, atol=1e-9)


def test_tree_sizes_match_openspiel_state_enumeration():
  from open_spiel.python.algorithms import get_all_states
  for name in ["kuhn_poker", "leduc_poker", "mini_bridge(size=3)"]:
    tree = _tree(name)
    game = tree.game
    tab = policy_lib.TabularPolicy(game)
    assert tree.num_infosets == len(tab.state_lookup)
    terminals = get_all_states.get_all_states(game, include_terminals=True,
                                              include_chance_states=False)
    num_terminals = sum(1 for s in terminals.values() if s.is_terminal())
    assert len(tree.terminals) == num_terminals


def test_policy_round_trip_and_validation():
  tree = _tree("leduc_poker")
  tab = _random_tabular(tree.game, 4)
  pi = tree.policy_array(tab)
  back = tree.tabular_policy(pi)
  for key, row in tab.state_lookup.items():
    np.testing.assert_allclose(back.policy_for_key(key), tab.action_probability_array[row])
  tree.validate_policy_array(pi)
  bad = pi.copy()
  bad[0, int(np.argmax(tree.infoset_legal[0]))] += 0.5  # a legal action
  with pytest.raises(ValueError, match="sum to"):
    tree.validate_policy_array(bad)
  with pytest.raises(ValueError, match="shape"):
    tree.tabular_policy(pi[:-1])


def test_bad_games_and_limits_raise():
  with pytest.raises(ValueError, match="turn-based"):
    GameTree(pyspiel.load_game("goofspiel(num_cards=3)"))
  with pytest.raises(ValueError, match="max_nodes=100"):
    GameTree(pyspiel.load_game("leduc_poker"), max_nodes=100)
  tree = _tree("kuhn_poker")
  with pytest.raises(ValueError, match="player must be an integer from 0 to 1, got 5"):
    ev.best_response(tree, tree.uniform_policy_array(), 5)
