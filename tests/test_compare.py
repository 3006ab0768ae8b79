"""The comparison runner: outputs, rows, and metrics checked against OpenSpiel directly."""

import json
import os
import subprocess
import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability

import ospiel_team  # noqa: F401
from ospiel_team import compare


def test_log_checkpoints():
  assert compare.log_checkpoints(1) == [1]
  points = compare.log_checkpoints(1000, 4)
  assert points == [1, 10, 100, 1000]
  with pytest.raises(ValueError, match="iterations must be >= 1, got 0"):
    compare.log_checkpoints(0)


def test_cfr_rows_match_openspiel_nash_conv():
  game = pyspiel.load_game("kuhn_poker")
  rows = compare.run(game, ["cfr"], iterations=20, num_points=3, progress=False)
  final = {r["variant"]: r for r in rows if r["iteration"] == 20}
  solver = cfr.CFRSolver(game)
  for _ in range(20):
    solver.evaluate_and_update_policy()
  assert final["average"]["metric_name"] == "nash_conv"
  assert abs(final["average"]["metric"] -
             exploitability.nash_conv(game, solver.average_policy())) < 1e-9
  assert abs(final["current"]["metric"] -
             exploitability.nash_conv(game, solver.current_policy())) < 1e-9
  # Purified: the argmax of OpenSpiel's average policy, evaluated by OpenSpiel.
  avg = solver.average_policy()
  pure = avg.__copy__(copy_action_probability_array=True)
  probs = np.where(pure.legal_actions_mask > 0, avg.action_probability_array, -1.0)
  pure.action_probability_array = np.eye(probs.shape[1])[np.argmax(probs, axis=1)]
  assert abs(final["purified"]["metric"] - exploitability.nash_conv(game, pure)) < 1e-9


def test_common_payoff_metric_is_team_value():
  game = pyspiel.load_game("comm(length=2)")
  rows = compare.run(game, ["cfr_plus", "xfp"], iterations=5, num_points=2, progress=False)
  assert {r["metric_name"] for r in rows} == {"team_value"}
  solver = cfr.CFRPlusSolver(game)
  for _ in range(5):
    solver.evaluate_and_update_policy()
  expected = expected_game_score.policy_value(game.new_initial_state(),
                                              [solver.average_policy()] * 2)[0]
  got = [r for r in rows if r["solver"] == "cfr_plus" and r["variant"] == "average"
         and r["iteration"] == 5][0]["metric"]
  assert abs(got - expected) < 1e-9
  for r in rows:
    assert 0.0 <= r["metric"] <= 1.0


def test_unknown_solver_and_option_errors():
  with pytest.raises(ValueError, match="unknown solver 'nope'"):
    compare.run("kuhn_poker", ["nope"], iterations=2, progress=False)
  with pytest.raises(ValueError, match="'oops'"):
    compare.parse_options("oops")
  with pytest.raises(ValueError, match="unknown metric"):
    compare.run("kuhn_poker", ["cfr"], iterations=2, metric="bogus", progress=False)


def test_command_line_writes_three_files(tmp_path):
  out = tmp_path / "run"
  cmd = [sys.executable, "-m", "ospiel_team.compare", "--game", "mini_bridge(size=2)",
         "--solvers", "cfr,cfr_plus,xfp,nfsp", "--iterations", "4", "--num_points", "3",
         "--solver_options", "nfsp.episodes=2", "--out", str(out)]
  subprocess.run(cmd, check=True, capture_output=True, timeout=600)
  for name in ["results.json", "results.md", "curves.png"]:
    assert os.path.getsize(out / name) > 0
  rows = json.loads((out / "results.json").read_text())
  assert {r["solver"] for r in rows} == {"cfr", "cfr_plus", "xfp", "nfsp"}
  for r in rows:
    assert {"solver", "iteration", "seconds", "metric_name", "metric"} <= set(r)
    assert r["metric_name"] == "team_value"
  its = sorted({r["iteration"] for r in rows if r["solver"] == "cfr"})
  assert its == [1, 2, 4]
  nfsp_rows = [r for r in rows if r["solver"] == "nfsp"]
  assert all(np.isfinite(r["metric"]) for r in nfsp_rows)
