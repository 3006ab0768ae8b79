"""One backward induction over sequences, shared by the game tree's and the team best responses.

`evaluation.sequence_backward_induction` is the only implementation: `evaluation.best_response`
and the one-member team best response (`best_response._single_player_best_plan`) both call it.
Their answers are compared bit for bit with the backward induction each of them ran before it
was shared (kept here, verbatim, as the reference).
"""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy

import ospiel_team  # noqa: F401
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.tree import evaluation
from ospiel_team.tree.game_tree import GameTree

GAMES = ["kuhn_poker", "kuhn_poker(players=3)", "leduc_poker", "team_kuhn(players=3,ranks=3)"]


def _reference_best_plan(tree, player, terminal_weights):
  """The team best response's own backward induction before it was shared."""
  a_count = tree.num_actions
  seqs = tree.sequences[player]
  n_seq = tree.num_infosets * a_count + 1
  value = np.bincount(seqs.terminal_last_seq + 1, weights=terminal_weights, minlength=n_seq)
  strategy = {}
  for level in reversed(seqs.infoset_levels):
    q = value[1 + level[:, None] * a_count + np.arange(a_count)[None, :]]
    q = np.where(tree.infoset_legal[level], q, -np.inf)
    best = q.argmax(axis=1)
    strategy.update(zip(level.tolist(), best.tolist(), strict=True))
    value = value + np.bincount(seqs.infoset_parent_seq[level] + 1,
                                weights=q[np.arange(len(level)), best], minlength=n_seq)
  return float(value[0]), strategy


@pytest.mark.parametrize("game", GAMES)
def test_team_best_plan_is_bit_identical(game):
  tree = GameTree(pyspiel.load_game(game))
  rng = np.random.default_rng(3)
  for player in range(tree.num_players):
    for w in (rng.normal(size=len(tree.terminals)),
              rng.integers(-2, 3, size=len(tree.terminals)).astype(np.float64)):  # ties
      value, strategy = team_best_response._single_player_best_plan(tree, player, w)
      ref_value, ref_strategy = _reference_best_plan(tree, player, w)
      assert value == ref_value
      assert strategy == ref_strategy and list(strategy) == list(ref_strategy)


@pytest.mark.parametrize("game", GAMES)
def test_tree_best_response_is_bit_identical(game):
  tree = GameTree(pyspiel.load_game(game))
  rng = np.random.default_rng(5)
  pi = rng.random((tree.num_infosets, tree.num_actions)) * tree.infoset_legal
  pi /= pi.sum(axis=1, keepdims=True)
  reach = evaluation.reach_by_owner(tree, pi)
  for player in range(tree.num_players):
    br = evaluation.best_response(tree, pi, player, reach=reach)
    cf = evaluation.counterfactual_reach(tree, pi, player, reach=reach)
    w = cf[tree.terminals] * tree.node_returns[tree.terminals, player]
    ref_value, ref_strategy = _reference_best_plan(tree, player, w)
    assert br.value == ref_value
    assert {i: int(br.actions[i]) for i in ref_strategy} == ref_strategy
    assert (br.actions[np.setdiff1d(np.arange(tree.num_infosets),
                                    list(ref_strategy))] == -1).all()
    # The same number through the team API (a one-member team's best response).
    assert team_best_response.single_player_best_response_value(tree, player, w) == ref_value


def test_jax_backend_agrees():
  tree = GameTree(pyspiel.load_game("kuhn_poker"))
  pi = tree.policy_array(policy.TabularPolicy(tree.game))
  for player in range(2):
    ref = evaluation.best_response(tree, pi, player)
    got = evaluation.best_response(tree, pi, player, backend="jax")
    assert float(got.value) == pytest.approx(float(ref.value), abs=1e-6)
    np.testing.assert_array_equal(np.asarray(got.actions), ref.actions)


def test_single_player_best_response_matches_evaluation():
  """The weights-based backward induction equals evaluation.best_response on behavior plans."""
  game = pyspiel.load_game("kuhn_poker(players=3)")
  tree = GameTree(game)
  rng = np.random.default_rng(0)
  pi = rng.random((tree.num_infosets, tree.num_actions)) * tree.infoset_legal
  pi /= pi.sum(axis=1, keepdims=True)
  reach = evaluation.reach_by_owner(tree, pi)[tree.terminals]
  for p in range(3):
    w = np.prod(np.delete(reach, p, axis=1), axis=1) * tree.node_returns[tree.terminals, p]
    ours = team_best_response.single_player_best_response_value(tree, p, w)
    assert ours == pytest.approx(float(evaluation.best_response(tree, pi, p).value), abs=1e-12)
