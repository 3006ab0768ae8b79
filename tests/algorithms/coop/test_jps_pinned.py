"""Exact JPS's pass loop: pinned value sequences, its acceptance rule, its iteration limit.

OpenSpiel has no JPS, so the value sequence of exact JPS from the uniform policy is pinned
(seed 0; Tian, Gong & Jiang, NeurIPS 2020, arXiv:2008.06495, Algorithm 1). Every applied change
must gain more than `improvement_tol`, as predicted by Theorem 1 (Theorem 2: exact JPS then
stops after a pass without an improvement); a broken acceptance rule fails here quickly, and
the default iteration limit stops it instead of a hang.
"""

import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.coop.jps import config as jps_config
from ospiel_team.tree import resolve

COMM2 = [0.25, 0.390625, 0.46875, 0.484375, 0.5625, 0.75, 0.75, 0.875, 0.875, 0.875, 0.875,
         1.0, 1.0, 1.0, 1.0]
TINY_HANABI = [5.5555555556, 6.4444444444, 8.0, 8.0, 8.0, 8.0]


@pytest.mark.parametrize("game, values", [("comm(length=2)", COMM2),
                                          ("tiny_hanabi", TINY_HANABI)])
def test_exact_jps_value_sequence_pinned(game, values):
  result = jps.JointPolicySearch(resolve(game), seed=0).improve(None)
  assert [h.value for h in result.history] == pytest.approx(values, abs=1e-9)
  assert result.stopped_by == "quiet pass"
  assert result.value == pytest.approx(values[-1], abs=1e-9)


def test_every_applied_change_gains_what_theorem_1_predicts():
  tree = resolve("mini_bridge(size=2)")
  search = jps.JointPolicySearch(tree, seed=0, max_iterations=60)
  result = search.improve(None)
  assert result.stopped_by == "quiet pass" and len(result.history) == 24
  tol = search.config.improvement_tol
  for h in result.history:
    if h.changes:
      assert h.predicted_gain > tol, h
      assert h.true_gain == pytest.approx(h.predicted_gain, abs=1e-9), h
    else:
      assert h.predicted_gain == 0.0 and h.true_gain == 0.0, h
  assert result.value == pytest.approx(4 / 9, abs=1e-12)


def test_exact_jps_has_a_default_iteration_limit():
  config = jps_config.JPSConfig()
  assert config.iteration_limit == jps_config.DEFAULT_EXACT_ITERATIONS
  assert jps_config.JPSConfig(samples=2).iteration_limit == jps_config.DEFAULT_SAMPLED_ITERATIONS
  result = jps.JointPolicySearch(resolve("comm(length=2)"), seed=0, max_iterations=4).improve(
      None)
  assert len(result.history) == 4 and result.stopped_by == "iteration limit"
  assert [h.value for h in result.history] == pytest.approx(COMM2[:4], abs=1e-9)
