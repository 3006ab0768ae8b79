"""Property: a bad value for one argument of a public entry point raises `errors.UserError` whose
message names the argument, before any work: never another exception type, never a silent run.
Good numpy scalars are accepted and give the answers of the Python numbers.

The table `CASES` lists (entry point, argument, bad values); hypothesis draws a few bad values
of each kind (wrong types, bools for numbers, NaN, infinities, values out of range, strings,
None where it is not allowed) and passes one at a time, the other arguments good. The games are
small (kuhn_poker, its 3-player team game, tiny_hanabi, comm(length=1)); the bridge entry points
refuse their bad values before loading a model or dealing a board.
"""

import functools
import math
import os
import re
import tempfile

import numpy as np
import pyspiel
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.coop import optimum
from ospiel_team.algorithms.coop import simple_bidding_search
from ospiel_team.algorithms.nash import cfr
from ospiel_team.algorithms.nash import cfr_jax
from ospiel_team.algorithms.nash import exploitability_descent as ed
from ospiel_team.algorithms.team import solve as team_solve
from ospiel_team.bridge import dataset_builder
from ospiel_team.bridge import uncontested_costs
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.bidders import bot
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.search import search_bidder
from ospiel_team.errors import UserError
from ospiel_team.tree import evaluation
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.tree.resolver import resolve
from ospiel_team.tree.resolver import resolve_game


@functools.cache
def _game(name: str) -> pyspiel.Game:
  return pyspiel.load_game(name)


@functools.cache
def _tree(name: str) -> GameTree:
  return GameTree(_game(name))


KUHN, KUHN3, HANABI, COMM = "kuhn_poker", "kuhn_poker(players=3)", "tiny_hanabi", "comm(length=1)"

# ------------------------------------------------------------------------------------------
# Bad values by kind.
_OTHER = [None, "1", "", b"1", [1], (1,), {}, 1j, object()]
_BOOLS = st.sampled_from([True, False, np.bool_(True), np.bool_(False)])
_NONFINITE = st.sampled_from([math.nan, math.inf, -math.inf, np.float64("nan"),
                              np.float32("inf")])
_HUGE = st.integers(min_value=2**1024, max_value=2**1100)  # not a finite float


def _other(none_ok: bool) -> st.SearchStrategy:
  return st.sampled_from([x for x in _OTHER if not (none_ok and x is None)])


def bad_int(minimum: int | None = None, maximum: int | None = None,
            none_ok: bool = False) -> st.SearchStrategy:
  """Not an integer within [minimum, maximum]: bools, floats (1.0 included), strings, ..."""
  parts = [_BOOLS, st.floats(), st.floats(width=32).map(np.float32), st.text(max_size=3),
           _other(none_ok)]
  if minimum is not None:
    below = st.integers(max_value=minimum - 1, min_value=minimum - 2**70)
    parts += [below, st.integers(min_value=-2**63, max_value=minimum - 1).map(np.int64)]
  if maximum is not None:
    parts.append(st.integers(min_value=maximum + 1, max_value=maximum + 2**70))
  return st.one_of(parts)


def bad_real(minimum: float | None = None, maximum: float | None = None, *,
             above: float | None = None, none_ok: bool = False) -> st.SearchStrategy:
  """Not a finite number within the bounds: NaN, infinities, bools, strings, ..."""
  parts = [_BOOLS, _NONFINITE, _HUGE, st.text(max_size=3), _other(none_ok)]
  if minimum is not None:
    parts.append(st.floats(max_value=minimum, exclude_max=True, min_value=-1e300))
  if above is not None:
    parts.append(st.floats(max_value=above, min_value=-1e300))
  if maximum is not None:
    below_huge = st.floats(min_value=maximum, exclude_min=True, max_value=1e300)
    parts += [below_huge, below_huge.map(np.float64)]
  return st.one_of(parts)


def bad_bool(none_ok: bool = False) -> st.SearchStrategy:
  return st.one_of(st.integers(-2, 2), st.floats(), st.text(max_size=5), _other(none_ok))


def bad_choice(choices) -> st.SearchStrategy:
  return st.one_of(st.text(max_size=8).filter(lambda s: s not in choices), st.integers(),
                   _other(False))


def bad_game(strings: bool = False, trees: bool = False) -> st.SearchStrategy:
  """Not a game: numbers, None, lists; game strings and trees where they are not accepted;
  strings that name no game where strings are."""
  parts = [st.integers(), st.floats(), _other(False).filter(lambda x: not isinstance(x, str))]
  if strings:
    parts.append(st.sampled_from(["", "  ", "no_such_game", "kuhn_poker(players=",
                                  "kuhn_poker(players=x)"]))
  else:
    parts.append(st.sampled_from(["kuhn_poker", "tiny_hanabi", ""]))
  if not trees:
    parts.append(st.builds(lambda: _tree(KUHN)))
  return st.one_of(parts)


def bad_tree(none_ok: bool = False) -> st.SearchStrategy:
  return st.one_of(st.sampled_from(["kuhn_poker", 0, 1.5, np.zeros((12, 2))]),
                   st.builds(lambda: _game(KUHN)), _other(none_ok))


BAD_TEAMS = st.sampled_from([
    [[0.5, 1], [2]], [[True, 0], [2]], [[np.float64(0), 1], [2]], [["0"], [1, 2]],
    [[0, 1], [3]], [[0, 1], [1, 2]], [[0], [1]], [[0], [1], [2]], [[], [0, 1, 2]],
    "0,x|2", "0,1|", "0|1|2", "|", 5, 1.5, True, [0, 1, 2], {0: 1}])

# ------------------------------------------------------------------------------------------
# The entry points: (id, call with the good arguments and one override, argument, bad values).


def _kuhn_policy():
  return _tree(KUHN).uniform_policy_array()


def _batched(**o):
  tree = _tree(KUHN)
  return cfr.BatchedTreeCFRSolver(**{"tree": tree, "initial_policies": _kuhn_policy()[None],
                                     **o})


def _jax_batched(**o):
  return cfr_jax.JaxBatchedTreeCFRSolver(**{"tree": _tree(KUHN),
                                            "initial_policies": _kuhn_policy()[None], **o})


def _resolve(**o):
  return resolve(**{"game": KUHN, **o})


def _resolve_tree(**o):
  return resolve(**{"game": _tree(KUHN), **o})


def _exploring(**o):
  return _batched(**{"exploration": 0.01, "noise_seeds": [1], **o})


def _kuhn(fn):
  return lambda **o: fn(**{"tree": _tree(KUHN), **o})


def _evaluation(fn, **extra):
  return lambda **o: fn(**{"tree": _tree(KUHN), "pi": _kuhn_policy(), **extra, **o})


def _team_solve(**o):
  return team_solve(**{"game": _tree(KUHN3), "teams": "0,1|2", **o})


def _jps(**o):
  return jps.JointPolicySearch(**{"game": _tree(COMM), **o})


def _tabular_ed(**o):
  return ed.TabularEDSolver(**{"game": _game(KUHN), "tree": _tree(KUHN), **o})


def _neural_ed(**o):
  return ed.NeuralEDSolver(**{"game": _game(KUHN), "tree": _tree(KUHN), **o})


def _coop(**o):
  return optimum.solve(**{"game": _tree(HANABI), **o})


def _match(**o):
  return match.run_match(**{"bidder_a": "pass", "bidder_b": "random", "boards": 2,
                            "progress": False, **o})


_NOWHERE = "/nonexistent/ospiel_team_test/out.npz"  # never written: the checks come first


def _build_dataset(**o):
  return dataset_builder.build_dataset(**{"num_deals": 2, "out": _NOWHERE, "progress": False,
                                          **o})


def _build_costs(**o):
  return uncontested_costs.build_cost_dataset(**{"pairs": 2, "out": _NOWHERE, "progress": False,
                                                 **o})


def _search_bidder(**o):
  return search_bidder.SearchBidder(**{"policy": lambda obs: None, "dd_fn": lambda h: None,
                                       **o})


_NOT_A_BIDDER = st.sampled_from([None, 5, 1.5, [1], {}, object(), _game(KUHN)])
_NOT_A_PATH = st.sampled_from([None, 5, 1.5, [1], b"x", object()])
_NOT_A_DATASET = st.sampled_from([5, 1.5, [1], b"x", object(), np.zeros((2, 52))])


CASES = [
    ("TreeCFRSolver", _kuhn(cfr.TreeCFRSolver), "tree", bad_tree()),
    ("TreeCFRSolver", _kuhn(cfr.TreeCFRSolver), "alternating_updates", bad_bool()),
    ("TreeCFRSolver", _kuhn(cfr.TreeCFRSolver), "linear_averaging", bad_bool()),
    ("TreeCFRSolver", _kuhn(cfr.TreeCFRSolver), "regret_matching_plus", bad_bool()),
    ("TreeCFRSolver", _kuhn(cfr.TreeCFRSolver), "rule", bad_choice(cfr.BatchedTreeCFRSolver.RULES)),
    ("TreeCFRSolver", _kuhn(cfr.TreeCFRSolver), "initial_policy",
     st.sampled_from(["uniform", 1.5, np.ones((2, 12)), np.full((12, 2), 0.7)])),
    ("TreeCFRPlusSolver", _kuhn(cfr.TreeCFRPlusSolver), "tree", bad_tree()),
    ("TreeDCFRSolver", _kuhn(cfr.TreeDCFRSolver), "alpha", bad_real(0, 10)),
    ("TreeDCFRSolver", _kuhn(cfr.TreeDCFRSolver), "beta", bad_real(-10, 10)),
    ("TreeDCFRSolver", _kuhn(cfr.TreeDCFRSolver), "gamma", bad_real(0, 10)),
    ("TreePCFRPlusSolver", _kuhn(cfr.TreePCFRPlusSolver), "gamma", bad_real(0, 10)),
    ("TreePDCFRPlusSolver", _kuhn(cfr.TreePDCFRPlusSolver), "alpha", bad_real(0, 10)),
    ("TreePDCFRPlusSolver", _kuhn(cfr.TreePDCFRPlusSolver), "gamma", bad_real(0, 10)),
    ("BatchedTreeCFRSolver", _batched, "exploration", bad_real(0)),
    ("BatchedTreeCFRSolver", _batched, "dtype",
     st.sampled_from([None, "x", np.int32, np.float16, "complex128", 3])),
    ("BatchedTreeCFRSolver", _batched, "initial_policies",
     st.sampled_from([None, "x", _kuhn_policy(), np.zeros((0, 12, 2))])),
    ("BatchedTreeCFRSolver", _exploring, "noise_seeds",
     st.sampled_from([[-1], [1.5], [True], "1", 5, [1, 2], None])),
    ("JaxTreeCFRSolver", _kuhn(cfr_jax.JaxTreeCFRSolver), "tree", bad_tree()),
    ("JaxTreeCFRSolver", _kuhn(cfr_jax.JaxTreeCFRSolver), "initial_policy",
     st.sampled_from(["uniform", 1.5, np.ones((2, 12)), np.full((12, 2), 0.7)])),
    ("JaxBatchedTreeCFRSolver", _jax_batched, "tree", bad_tree()),
    ("JaxBatchedTreeCFRSolver", _jax_batched, "initial_policies",
     st.sampled_from([None, "x", _kuhn_policy(), np.zeros((0, 12, 2))])),
    ("JaxBatchedTreeCFRSolver", _jax_batched, "exploration", bad_real(0)),
    ("random_policy_array", _kuhn(cfr.random_policy_array), "seed", bad_int(0)),
    ("random_policy_array", lambda **o: cfr.random_policy_array(**{"seed": 0, **o}), "tree",
     bad_tree()),
    ("GameTree", lambda **o: GameTree(**o), "game", bad_game()),
    ("resolve", _resolve, "game", bad_game(strings=True, trees=True)),
    ("resolve", _resolve, "time_limit", bad_real(0, none_ok=True)),
    ("resolve", _resolve, "max_nodes", bad_int(1)),
    ("resolve", _resolve, "turn_based", bad_bool()),
    ("resolve", _resolve, "name", st.sampled_from([None, 5, b"game", "", " ", ["game"]])),
    ("resolve (a tree)", _resolve_tree, "time_limit", bad_real(0, none_ok=True)),
    ("resolve (a tree)", _resolve_tree, "max_nodes", bad_int(1)),
    ("resolve (a tree)", _resolve_tree, "progress", bad_bool()),
    ("resolve (a tree)", _resolve_tree, "builder",
     bad_choice(("auto", "walk", "shadow", "vector"))),
    ("resolve_game", lambda **o: resolve_game(**{"game": KUHN, **o}), "game",
     bad_game(strings=True, trees=True)),
    ("GameTree.policy_array", lambda **o: _tree(KUHN).policy_array(**o), "pol",
     st.one_of(st.sampled_from([_kuhn_policy(), "uniform", 0]), _other(False))),
    ("nash_conv", _evaluation(evaluation.nash_conv), "tree", bad_tree()),
    ("nash_conv", _evaluation(evaluation.nash_conv), "backend", bad_choice(("numpy", "jax"))),
    ("nash_conv", _evaluation(evaluation.nash_conv), "validate", bad_bool()),
    ("game_value", _evaluation(evaluation.game_value), "tree", bad_tree()),
    ("best_response", _evaluation(evaluation.best_response, player=0), "player", bad_int(0, 1)),
    ("best_response", _evaluation(evaluation.best_response, player=0), "tree", bad_tree()),
    ("team solve", _team_solve, "game", bad_game(strings=True, trees=True)),
    ("team solve", _team_solve, "teams", BAD_TEAMS),
    ("team solve", _team_solve, "method", bad_choice(("auto", "lp", "cg", "dag"))),
    ("team solve", _team_solve, "time_limit", bad_real(0, none_ok=True)),
    ("team solve", _team_solve, "tol", bad_real(0, none_ok=True)),
    ("team solve", _team_solve, "digits", bad_int(0, 15)),
    ("team solve", _team_solve, "certify_time_limit", bad_real(0)),
    ("team solve", _team_solve, "threads", bad_int(1, none_ok=True)),
    ("JointPolicySearch", _jps, "game", bad_game(strings=True, trees=True)),
    ("JointPolicySearch", _jps, "max_iterations", bad_int(0, none_ok=True)),
    ("JointPolicySearch", _jps, "improvement_tol", bad_real(0)),
    ("JointPolicySearch", _jps, "max_rows", bad_int(1)),
    ("JointPolicySearch", _jps, "seed", bad_int(0, none_ok=True)),
    ("JointPolicySearch", _jps, "depth", bad_int(1, none_ok=True)),
    ("JointPolicySearch", _jps, "verify", bad_bool()),
    ("JointPolicySearch", _jps, "tie_break", bad_choice(("first", "random"))),
    ("TabularEDSolver", _tabular_ed, "game", bad_game()),
    ("TabularEDSolver", _tabular_ed, "tree", bad_tree(none_ok=True)),
    ("TabularEDSolver", _tabular_ed, "learning_rate", bad_real(above=0)),
    ("TabularEDSolver", _tabular_ed, "optimizer",
     st.sampled_from(["no_such_optimizer", "", 5, None, [1]])),
    ("TabularEDSolver", _tabular_ed, "lr_schedule", bad_choice(("constant", "inverse_sqrt"))),
    ("TabularEDSolver", _tabular_ed, "projection", bad_choice(("softmax", "l2"))),
    ("TabularEDSolver", _tabular_ed, "values", bad_choice(("q", "counterfactual"))),
    ("TabularEDSolver", _tabular_ed, "x64", bad_bool()),
    ("TabularEDSolver", _tabular_ed, "track_best", bad_bool()),
    ("NeuralEDSolver", _neural_ed, "hidden_layers",
     st.sampled_from([[0], [64.0], [True], "64", 64, [-1], None])),
    ("NeuralEDSolver", _neural_ed, "learning_rate", bad_real(above=0)),
    ("NeuralEDSolver", _neural_ed, "l2", bad_real(0)),
    ("NeuralEDSolver", _neural_ed, "seed", bad_int(0)),
    ("coop optimum", _coop, "game", bad_game(strings=True, trees=True)),
    ("coop optimum", _coop, "method",
     bad_choice(("auto", "lp", "mip", "brute_force", "bidding_bb"))),
    ("coop optimum", _coop, "time_limit", bad_real(0, none_ok=True)),
    ("coop optimum", _coop, "lp_max_local", bad_int(1)),
    ("coop optimum", _coop, "threads", bad_int(1, none_ok=True)),
    ("run_match", _match, "bidder_a", _NOT_A_BIDDER),
    ("run_match", _match, "bidder_b", _NOT_A_BIDDER),
    ("run_match", _match, "boards", bad_int(1)),
    ("run_match", _match, "dataset", _NOT_A_DATASET),
    ("run_match", _match, "seed", bad_int(0)),
    ("run_match", _match, "batch_boards", bad_int(1)),
    ("run_match", _match, "uncontested", bad_bool()),
    ("run_match", _match, "progress", bad_bool()),
    ("run_match", _match, "reference_dir", _NOT_A_PATH.filter(lambda x: x is not None)),
    ("run_match", _match, "results_dir", _NOT_A_PATH.filter(lambda x: x is not None)),
    ("build_dataset", _build_dataset, "num_deals", bad_int(1)),
    ("build_dataset", _build_dataset, "seed", bad_int(0)),
    ("build_dataset", _build_dataset, "chunk", bad_int(1)),
    ("build_dataset", _build_dataset, "workers", bad_int(1, none_ok=True)),
    ("build_dataset", _build_dataset, "out", _NOT_A_PATH),
    ("build_dataset", _build_dataset, "keep_chunks", bad_bool()),
    ("build_cost_dataset", _build_costs, "pairs", bad_int(1)),
    ("build_cost_dataset", _build_costs, "k", bad_int(1)),
    ("build_cost_dataset", _build_costs, "seed", bad_int(0)),
    ("build_cost_dataset", _build_costs, "chunk", bad_int(1)),
    ("build_cost_dataset", _build_costs, "out", _NOT_A_PATH),
    ("make_bidder", lambda **o: bidders.make_bidder(**{"name": "pass", **o}), "greedy",
     bad_bool()),
    ("make_bidder", lambda **o: bidders.make_bidder(**{"name": "pass", **o}), "reference_dir",
     _NOT_A_PATH.filter(lambda x: x is not None)),
    ("load_bot", lambda **o: bot.load_bot(**{"name": "pass", **o}), "player_id", bad_int(0, 3)),
    ("load_bot", lambda **o: bot.load_bot(**{"name": "pass", **o}), "seed",
     bad_int(0, none_ok=True)),
    ("load_bot", lambda **o: bot.load_bot(**{"name": "pass", **o}), "greedy", bad_bool()),
    ("BidderBot", lambda **o: bot.BidderBot(**{"bidder": bidders.make_bidder("pass"),
                                               "player_id": 0, **o}), "player_id",
     bad_int(0, 3)),
    ("load_bidder", lambda **o: model_bidder.load_bidder(**{"name_or_path": "a2c", **o}),
     "name_or_path", _NOT_A_PATH),
    ("load_bidder", lambda **o: model_bidder.load_bidder(**{"name_or_path": "a2c", **o}),
     "greedy", bad_bool()),
    ("load_bidder", lambda **o: model_bidder.load_bidder(**{"name_or_path": "a2c", **o}),
     "name", _NOT_A_PATH.filter(lambda x: x is not None)),
    ("local_search", lambda **o: simple_bidding_search.local_search(**{"size": 4, **o}), "size",
     bad_int(2)),
    ("local_search", lambda **o: simple_bidding_search.local_search(**{"size": 4, **o}),
     "restarts", bad_int(1)),
    ("local_search", lambda **o: simple_bidding_search.local_search(**{"size": 4, **o}), "seed",
     bad_int(0)),
    ("local_search", lambda **o: simple_bidding_search.local_search(**{"size": 4, **o}),
     "max_plan_pairs", bad_int(1)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "k", bad_int(1)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "m", bad_int(1)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "pool", bad_int(16)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "seed", bad_int(0)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "candidate_floor",
     bad_real(0, 1)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "min_ess", bad_real(0, 2048)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "tremble", bad_real(0, 1)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "min_z", bad_real(0)),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "rollout",
     bad_choice(("greedy", "sample"))),
    ("SearchBidderOptions", search_bidder.SearchBidderOptions, "reward",
     bad_choice(("imps", "score"))),
    ("SearchBidder", _search_bidder, "options",
     st.sampled_from([5, "k=8", {"k": 8}, object()])),
    ("SearchBidder", _search_bidder, "name", _NOT_A_PATH),
    ("SearchBidder", _search_bidder, "greedy", bad_bool()),
]


@pytest.mark.parametrize("entry,call,argument,bad", CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_bad_argument_is_a_user_error_naming_it(entry, call, argument, bad):
  @settings(max_examples=6, deadline=None, database=None)
  @given(value=bad)
  def check(value):
    with pytest.raises(UserError) as info:
      call(**{argument: value})
    assert re.search(rf"\b{argument}\b", str(info.value)), (entry, argument, str(info.value))

  check()


# ------------------------------------------------------------------------------------------
# The cases the issue lists, each by hand.
@pytest.mark.parametrize("cls, argument, value", [
    (cfr.TreeDCFRSolver, "gamma", -1), (cfr.TreeDCFRSolver, "alpha", -50),
    (cfr.TreePCFRPlusSolver, "gamma", -5), (cfr.TreePDCFRPlusSolver, "gamma", -3),
    (cfr.TreeDCFRSolver, "gamma", 1000), (cfr.TreeDCFRSolver, "alpha", math.nan),
    (cfr.TreePDCFRPlusSolver, "alpha", math.inf)])
def test_exponent_out_of_range_is_refused_with_its_range(cls, argument, value):
  lo, hi = cfr.EXPONENT_RANGES[argument]
  with pytest.raises(UserError, match=rf"^{argument} must be a finite number from "
                                      rf"{lo:g} to {hi:g}, got {value!r}"):
    cls(_tree(KUHN), **{argument: value})


@pytest.mark.parametrize("teams", [[[0.5, 1], [2]], [[True, 0], [2]], [[0, 1.0], [2]]])
def test_team_split_of_non_integers_is_refused(teams):
  with pytest.raises(UserError, match="teams"):
    teams_lib.parse_teams(teams, 3)
  with pytest.raises(UserError, match="teams"):
    team_solve(KUHN3, teams)


@pytest.mark.parametrize("call", [
    lambda: team_solve(123), lambda: GameTree("kuhn_poker"),
    lambda: evaluation.game_value("tree", _kuhn_policy()),
    lambda: evaluation.best_response(_tree(KUHN), _kuhn_policy(), player="0"),
    lambda: _tree(KUHN).policy_array(None), lambda: ed.TabularEDSolver("kuhn_poker"),
    lambda: team_solve(KUHN3, digits=True)])
def test_wrong_types_at_the_public_api(call):
  with pytest.raises(UserError):
    call()


# ------------------------------------------------------------------------------------------
# Good numpy scalars are accepted, with the answers of the Python numbers.
def test_numpy_exponents_give_the_python_numbers_iterates():
  tree = _tree(KUHN)
  a = cfr.TreeDCFRSolver(tree, alpha=np.float32(1.5), beta=np.int64(0), gamma=np.float64(2))
  b = cfr.TreeDCFRSolver(tree, alpha=1.5, beta=0.0, gamma=2.0)
  c = cfr.TreePDCFRPlusSolver(tree, alpha=np.float64(2.3), gamma=np.int32(5))
  d = cfr.TreePDCFRPlusSolver(tree, alpha=2.3, gamma=5.0)
  for _ in range(20):
    for s in (a, b, c, d):
      s.evaluate_and_update_policy()
  assert np.array_equal(a.average_policy_array(), b.average_policy_array())
  assert np.array_equal(c.average_policy_array(), d.average_policy_array())
  # (and the runs moved away from the uniform start: the comparison is not vacuous)
  assert not np.allclose(b.average_policy_array(), _kuhn_policy())


def test_numpy_integers_for_seeds_players_and_sizes():
  tree = _tree(KUHN)
  assert np.array_equal(cfr.random_policy_array(tree, np.uint8(3)),
                        cfr.random_policy_array(tree, 3))
  pi = cfr.random_policy_array(tree, 5)
  assert (evaluation.best_response(tree, pi, np.int64(1)).value
          == evaluation.best_response(tree, pi, 1).value)
  search = jps.JointPolicySearch(_tree(COMM), max_iterations=np.int64(2),
                                 improvement_tol=np.float32(0.5), max_rows=np.int32(1000),
                                 seed=np.uint16(7))
  assert (search.config.max_iterations, search.config.improvement_tol,
          search.config.max_rows, search.config.seed) == (2, 0.5, 1000, 7)


def test_numpy_options_of_the_solves():
  python = team_solve(KUHN3, "0,1|2", time_limit=60.0, digits=3)
  numpy = team_solve(KUHN3, "0,1|2", time_limit=np.float32(60), digits=np.int64(3),
                     certify_time_limit=np.float64(0), tol=np.float32(0.5))
  assert numpy.value == python.value == pytest.approx(-1 / 24, abs=1e-9)
  coop = optimum.solve(_tree(HANABI), time_limit=np.float64(60), lp_max_local=np.int64(10**6))
  assert coop.value == optimum.solve(_tree(HANABI)).value


# ------------------------------------------------------------------------------------------
# Every callable of every `__all__`: listed, and probed with a wrong type, None and NaN.
def public_callables() -> dict[str, object]:
  """'module.name' -> object, for every callable named in the `__all__` of a package module
  (classes and functions; each object once, under the first module that names it)."""
  import importlib
  import inspect
  import pkgutil

  import ospiel_team
  names = ["ospiel_team"] + [m.name for m in pkgutil.walk_packages(ospiel_team.__path__,
                                                                    "ospiel_team.")]
  found, seen = {}, set()
  for name in sorted(names):
    module = importlib.import_module(name)
    for attr in vars(module).get("__all__", ()):
      obj = getattr(module, attr)
      if inspect.ismodule(obj) or not callable(obj) or id(obj) in seen:
        continue
      seen.add(id(obj))
      found[f"{name}.{attr}"] = obj
  return found


def _records(*names):
  return {n: "a result record the package builds and returns (not an entry point)"
          for n in names}


# Callables that are not entry points taking user values, each with the reason.
EXEMPT = {
    "ospiel_team.lp.TimeLimitError": "an exception class",
    "ospiel_team.tree.TreeTooLargeError": "an exception class",
    "ospiel_team.bridge.agents.Bidder": "an abstract base class (abc.ABC), not instantiated",
    "ospiel_team.bridge.agents.bidders.AuctionBidder": "an abstract base class, not instantiated",
    "ospiel_team.bridge.agents.bidders.ObservationBidder": "an abstract base class, not "
        "instantiated",
    "ospiel_team.bridge.AuctionTables": "a protocol (typing.Protocol), not instantiated",
    "ospiel_team.runner.solver": "a decorator registering the package's own solvers",
    **_records(
        "ospiel_team.algorithms.coop.CoopOptimum", "ospiel_team.algorithms.coop.JPSIteration",
        "ospiel_team.algorithms.coop.JPSResult", "ospiel_team.algorithms.coop.jps.Level",
        "ospiel_team.algorithms.coop.jps.SearchResult", "ospiel_team.algorithms.coop.jps.Sweep",
        "ospiel_team.algorithms.coop.jps.TeamStructure",
        "ospiel_team.algorithms.team.AnytimeResult", "ospiel_team.algorithms.team.MethodChoice",
        "ospiel_team.algorithms.team.TeamLPResult",
        "ospiel_team.algorithms.team.TeamSolveResult", "ospiel_team.bridge.agents.MatchResult",
        "ospiel_team.runner.Row", "ospiel_team.runner.Snapshot",
        "ospiel_team.runner.SolverContext",
        "ospiel_team.tree.TreeArrays", "ospiel_team.tree.game_tree.PlayerSequences",
        "ospiel_team.tree.InfosetKeys", "ospiel_team.lp.TeamPlan"),
}


_TMP = tempfile.mkdtemp(prefix="ospiel_team_api_arguments_")


@functools.cache
def _small_ds():
  from ospiel_team.bridge import dataset as dataset_lib
  ds = dataset_lib.load_dataset()
  return dataset_lib.BridgeDataset(ds.holders[:64], ds.dd_tricks[:64])


def _observations():
  from ospiel_team.bridge import engine as engine_lib
  eng = engine_lib.BiddingEngine(_small_ds())
  eng.reset(np.arange(4), 0, 0)
  return eng.observation()


@functools.cache
def _small_net():
  from ospiel_team.bridge.agents.bidders import policy_net
  net = policy_net.make_network(hidden=8, num_blocks=0)
  return net, policy_net.init_params(net, 0)


def _a2c_cfg(**kw):
  from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
  return A2CConfig(**{"hidden": 8, "num_blocks": 0, "deals_per_round": 2, "batch_size": 4,
                      "buffer_size": 64, "burn_in": 8, **kw})


@functools.cache
def _match_result():
  return match.run_match("pass", "pass", 1, dataset=_small_ds(), progress=False)


def _teams3():
  return teams_lib.parse_teams("0,1|2", 3)


@functools.cache
def _good_calls():
  """Name -> a call with good arguments (keyword overrides replace them), for every entry
  point of `public_callables` that is not in `EXEMPT`."""
  import ospiel_team.algorithms.coop as coop
  import ospiel_team.algorithms.nash as nash
  import ospiel_team.algorithms.team as team
  import ospiel_team.bridge as bridge
  import ospiel_team.bridge.agents as agents
  import ospiel_team.lp as lp
  import ospiel_team.runner as runner
  import ospiel_team.tree as tree_pkg
  from ospiel_team.algorithms.coop import jps as jps_pkg

  def call(fn, **good):
    return lambda **o: fn(**{**good, **o})

  comm, kuhn = _tree(COMM), _tree(KUHN)
  holders = np.asarray(_small_ds().holders[:2])
  tricks = np.asarray(_small_ds().dd_tricks[:2])
  net, params = _small_net()
  return {
      "ospiel_team.algorithms.coop.JPSConfig": call(coop.JPSConfig),
      "ospiel_team.algorithms.coop.JointPolicySearch": _jps,
      "ospiel_team.algorithms.coop.joint_policy_search": call(
          coop.joint_policy_search, game=comm, max_iterations=1),
      "ospiel_team.algorithms.coop.jps.ChainSearch": call(
          jps_pkg.ChainSearch, tree=comm, structure=jps_pkg.team_structure(comm, [0, 1]),
          config=coop.JPSConfig()),
      "ospiel_team.algorithms.coop.jps.apply_chain": call(
          jps_pkg.apply_chain, pi=comm.uniform_policy_array(), chain=[(0, 0)]),
      "ospiel_team.algorithms.coop.jps.purified_policy_array": call(
          jps_pkg.purified_policy_array, tree=comm, pi=comm.uniform_policy_array()),
      "ospiel_team.algorithms.coop.jps.team_structure": call(
          jps_pkg.team_structure, tree=comm, team=[0, 1]),
      "ospiel_team.algorithms.nash.BatchedTreeCFRSolver": _batched,
      "ospiel_team.algorithms.nash.JaxBatchedTreeCFRSolver": _jax_batched,
      "ospiel_team.algorithms.nash.JaxTreeCFRSolver": call(nash.JaxTreeCFRSolver, tree=kuhn),
      "ospiel_team.algorithms.nash.NeuralEDSolver": _neural_ed,
      "ospiel_team.algorithms.nash.TabularEDSolver": _tabular_ed,
      "ospiel_team.algorithms.nash.TreeCFRPlusSolver": call(nash.TreeCFRPlusSolver, tree=kuhn),
      "ospiel_team.algorithms.nash.TreeCFRSolver": call(nash.TreeCFRSolver, tree=kuhn),
      "ospiel_team.algorithms.nash.TreeDCFRSolver": call(nash.TreeDCFRSolver, tree=kuhn),
      "ospiel_team.algorithms.nash.TreePCFRPlusSolver": call(nash.TreePCFRPlusSolver,
                                                             tree=kuhn),
      "ospiel_team.algorithms.nash.TreePDCFRPlusSolver": call(nash.TreePDCFRPlusSolver,
                                                              tree=kuhn),
      "ospiel_team.algorithms.nash.openspiel_cfr_solver": call(
          nash.openspiel_cfr_solver, game=_game(KUHN), tree=kuhn),
      "ospiel_team.algorithms.team.choose_method": call(
          team.choose_method, tree=_tree(KUHN3), teams=_teams3()),
      "ospiel_team.algorithms.team.solve": _team_solve,
      "ospiel_team.bridge.Auctions": call(bridge.Auctions, dealer=np.zeros(2, np.int64),
                                          vulnerability=np.zeros(2, np.int64)),
      "ospiel_team.bridge.BiddingEngine": call(bridge.BiddingEngine, dataset=_small_ds()),
      "ospiel_team.bridge.BridgeDataset": call(bridge.BridgeDataset, holders=holders,
                                               dd_tricks=tricks),
      "ospiel_team.bridge.JaxAuctionTables": call(bridge.JaxAuctionTables, holders=holders,
                                                  dd_tricks=tricks),
      "ospiel_team.bridge.agents.A2CConfig": call(agents.A2CConfig),
      "ospiel_team.bridge.agents.A2CTrainer": call(agents.A2CTrainer, cfg=_a2c_cfg(),
                                                   dataset=_small_ds()),
      "ospiel_team.bridge.agents.BidderBot": call(agents.BidderBot,
                                                  bidder=bidders.make_bidder("pass"),
                                                  player_id=0),
      "ospiel_team.bridge.agents.JPSBidSearch": call(agents.JPSBidSearch),
      "ospiel_team.bridge.agents.bidders.NaturalBidder": call(bidders.NaturalBidder),
      "ospiel_team.bridge.agents.bidders.PassBidder": call(bidders.PassBidder),
      "ospiel_team.bridge.agents.bidders.RandomBidder": call(bidders.RandomBidder),
      "ospiel_team.bridge.agents.bidders.auctions_from_observations": call(
          bidders.auctions_from_observations, observations=_observations()),
      "ospiel_team.bridge.agents.JaxA2CTrainer": call(agents.JaxA2CTrainer, cfg=_a2c_cfg(),
                                                      dataset=_small_ds()),
      "ospiel_team.bridge.agents.JaxTrainOptions": call(agents.JaxTrainOptions),
      "ospiel_team.bridge.agents.ModelBidder": call(agents.ModelBidder, net=net,
                                                    params=params),
      "ospiel_team.bridge.agents.OpponentPool": call(agents.OpponentPool, size=2,
                                                     probability=0.5, seed=0),
      "ospiel_team.bridge.agents.PPOTrainer": call(agents.PPOTrainer,
                                                   cfg=_a2c_cfg(algorithm="ppo"),
                                                   dataset=_small_ds()),
      "ospiel_team.bridge.agents.RoundQLearner": call(agents.RoundQLearner, hidden=4),
      "ospiel_team.bridge.agents.SearchOptions": call(agents.SearchOptions),
      "ospiel_team.bridge.agents.bidder_names": call(agents.bidder_names),
      "ospiel_team.bridge.agents.load_model": call(agents.load_model,
                                                   path=model_bidder.model_path("a2c")),
      "ospiel_team.bridge.agents.make_bidder": call(agents.make_bidder, name="pass"),
      "ospiel_team.bridge.agents.make_trainer": call(agents.make_trainer, cfg=_a2c_cfg(),
                                                     dataset=_small_ds()),
      "ospiel_team.bridge.agents.run_match": _match,
      "ospiel_team.bridge.agents.save_model": call(
          agents.save_model, path=os.path.join(_TMP, "model.npz"), params=params,
          cfg=_a2c_cfg()),
      "ospiel_team.bridge.agents.write_report": call(
          agents.write_report, result=_match_result(), out_dir=os.path.join(_TMP, "report")),
      "ospiel_team.bridge.build_dataset": _build_dataset,
      "ospiel_team.bridge.contract_score": call(bridge.contract_score, level=1, strain=0,
                                                doubled=0, vulnerable=False, tricks=7),
      "ospiel_team.bridge.dd_tables": call(bridge.dd_tables, holders_batch=holders[:1]),
      "ospiel_team.bridge.duplicate_rewards": call(bridge.duplicate_rewards,
                                                   ns_scores=np.array([10, -10])),
      "ospiel_team.bridge.imps": call(bridge.imps, score_diff=50),
      "ospiel_team.bridge.load_dataset": call(bridge.load_dataset),
      "ospiel_team.bridge.random_holders": call(bridge.random_holders,
                                                rng=np.random.default_rng(0), n=2),
      "ospiel_team.bridge.resolve_dataset": call(bridge.resolve_dataset, name_or_path=None),
      "ospiel_team.bridge.save_dataset": call(bridge.save_dataset,
                                              path=os.path.join(_TMP, "ds.npz"),
                                              holders=holders, dd_tricks=tricks),
      "ospiel_team.lp.TeamDecomposition": call(lp.TeamDecomposition, tree=_tree(KUHN3),
                                               members=[0, 1]),
      "ospiel_team.lp.team_best_response_value": call(
          lp.team_best_response_value, tree=_tree(KUHN3), teams=_teams3(), team=0,
          terminal_weights=np.ones(len(_tree(KUHN3).terminals))),
      "ospiel_team.lp.team_value_vs_best_response": call(
          lp.team_value_vs_best_response, tree=_tree(KUHN3),
          pi=_tree(KUHN3).uniform_policy_array(), teams="0,1|2"),
      "ospiel_team.runner.parse_seeds": call(runner.parse_seeds, text="2"),
      "ospiel_team.runner.run_all": call(runner.run_all, game=_game(KUHN), solvers=["cfr"],
                                         iterations=2, num_points=1, progress=False),
      "ospiel_team.runner.solver_names": call(runner.solver_names),
      "ospiel_team.runner.write_outputs": call(runner.write_outputs, rows=[],
                                               out_dir=os.path.join(_TMP, "runner")),
      "ospiel_team.tree.GameTree": call(tree_pkg.GameTree, game=_game(KUHN)),
      "ospiel_team.tree.Teams": call(tree_pkg.Teams, teams=((0, 1), (2,)), num_players=3),
      "ospiel_team.tree.best_response": _evaluation(tree_pkg.best_response, player=0),
      "ospiel_team.tree.cached_tree": call(tree_pkg.cached_tree, game=KUHN,
                                           directory=os.path.join(_TMP, "trees")),
      "ospiel_team.tree.check_common_payoff": call(tree_pkg.check_common_payoff,
                                                   tree=_tree(HANABI)),
      "ospiel_team.tree.default_teams": call(tree_pkg.default_teams, game=_game(KUHN3)),
      "ospiel_team.tree.game_value": _evaluation(tree_pkg.game_value),
      "ospiel_team.tree.history_values": _evaluation(tree_pkg.history_values),
      "ospiel_team.tree.is_common_payoff": call(tree_pkg.is_common_payoff, game=_game(HANABI)),
      "ospiel_team.tree.nash_conv": _evaluation(tree_pkg.nash_conv),
      "ospiel_team.tree.parse_teams": call(tree_pkg.parse_teams, text="0,1|2", num_players=3),
      "ospiel_team.tree.reach_probabilities": _evaluation(tree_pkg.reach_probabilities),
      "ospiel_team.tree.resolve": call(tree_pkg.resolve, game=KUHN),
      "ospiel_team.tree.resolve_game": call(tree_pkg.resolve_game, game=KUHN),
  }


def _paper_bidder(**o):
  from ospiel_team.bridge.agents.bidders import jps_paper
  net = jps_paper.PaperNet.__new__(jps_paper.PaperNet)  # no weights needed to check arguments
  net.name = "jps_paper"
  return jps_paper.PaperBidder(**{"net": net, **o})


GOOD_EXTRA = {"ospiel_team.bridge.agents.PaperBidder": _paper_bidder}


def test_every_public_callable_is_probed_or_exempt_with_a_reason():
  """A callable added to an `__all__` fails here until it is probed (`_good_calls`) or listed
  in `EXEMPT` with its reason."""
  found = set(public_callables())
  probed = set(_good_calls()) | set(GOOD_EXTRA)
  assert not probed & set(EXEMPT)
  assert found == probed | set(EXEMPT), (sorted(found - probed - set(EXEMPT)),
                                         sorted((probed | set(EXEMPT)) - found))


class _Opaque:
  """A value of no type any argument accepts."""

  def __repr__(self):
    return "<opaque>"


# Deprecated names of arguments: not probed (passing one warns, and a DeprecationWarning from
# the package fails a test); each is the argument it names, probed under that name.
DEPRECATED_ALIASES = {
    "ospiel_team.algorithms.nash.NeuralEDSolver": {"init_lr": "learning_rate"},
}


def _probes(fn, entry: str = "") -> list[tuple[str, object]]:
  """(argument, bad value) pairs for `fn`: an opaque object for every argument, None where
  None is not allowed, NaN where a number is wanted."""
  import inspect
  target = fn.__init__ if isinstance(fn, type) else fn
  out = []
  params = inspect.signature(target).parameters
  for alias, current in DEPRECATED_ALIASES.get(entry, {}).items():
    assert alias in params and current in params, (entry, alias, current)
  for name, p in params.items():
    if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
      continue
    if name in DEPRECATED_ALIASES.get(entry, {}):
      continue
    text = str(p.annotation)
    out.append((name, _Opaque()))
    if p.default is not None and "None" not in text and "Any" not in text:
      out.append((name, None))
    if ("float" in text or "int" in text) and "str" not in text:
      out.append((name, math.nan))
  return out


# Known gaps (issue 47, item 4), each an expected failure that must pass once fixed
# (strict): callable -> 'argument:probe' (opaque: a wrong type; None; nan). None left: a new
# gap is fixed, or listed here with its probe.
PENDING: dict[str, str] = {}


def _kind(bad) -> str:
  return "opaque" if isinstance(bad, _Opaque) else "None" if bad is None else "nan"


def _all_probes():
  """(entry, argument, bad value) of every probed callable (from signatures only: cheap to
  collect; the good calls are built when a test runs)."""
  fns = public_callables()
  return [(n, a, v) for n in sorted(set(fns) - set(EXEMPT))
          for a, v in _probes(fns[n], n)]


@pytest.mark.parametrize("entry,argument,bad", _all_probes(),
                         ids=[f"{c[0].rsplit('.', 1)[1]}-{c[1]}-{c[2]!r}"
                              for c in _all_probes()])
def test_every_public_callable_names_a_bad_argument(entry, argument, bad, request):
  """A wrong type, None where it is not allowed, or NaN for a number: a UserError, ValueError
  or TypeError whose message names the argument; never another exception, never a silent run.

  The known gaps (`PENDING`) are strict expected failures: one that passes fails the test,
  so the list shrinks as they are fixed.
  """
  if f"{argument}:{_kind(bad)}" in PENDING.get(entry.rsplit(".", 1)[1], "").split():
    request.applymarker(pytest.mark.xfail(strict=True, reason="known gap (PENDING)"))
  call = {**_good_calls(), **GOOD_EXTRA}[entry]
  try:
    call(**{argument: bad})
  except (UserError, ValueError, TypeError) as e:
    assert re.search(rf"\b{argument}\b", str(e)), (entry, argument, type(e).__name__, str(e))
    return
  pytest.fail(f"{entry}({argument}={bad!r}) was accepted")
