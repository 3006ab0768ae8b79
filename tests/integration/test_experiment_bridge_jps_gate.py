"""experiments/bridge_jps_at_scale/gate.py: the lambda mixing, the summary, a resumable run."""

import functools
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge.agents.training import jps_bid
from tests import repo as tests_repo

REPO = tests_repo.REPO
SCRIPT = os.path.join(REPO, "experiments", "bridge_jps_at_scale", "gate.py")


@functools.cache
def _gate():
  """The script as a module (loaded once: it defines absl flags).

  Another script loaded earlier in the same test process may have defined flags of the same
  names on absl's global flag set: those are removed first, so that the script's own
  definitions stand (as when it runs alone).
  """
  import ast

  from absl import flags
  with open(SCRIPT, encoding="utf-8") as f:
    tree = ast.parse(f.read())
  names = {node.args[0].value for node in ast.walk(tree)
           if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr.startswith("DEFINE") and node.args
           and isinstance(node.args[0], ast.Constant)}
  for name in names & set(flags.FLAGS):
    delattr(flags.FLAGS, name)
  spec = importlib.util.spec_from_file_location("jps_gate", SCRIPT)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def _result(values, calls):
  values = np.asarray(values, np.float64)
  r = len(values)
  return jps_bid.SearchResult(
      best_call=np.zeros(r, np.int64), best_value=np.zeros(r),
      candidate_calls=np.asarray(calls), candidate_values=values,
      root_obs=np.zeros((r, A.OBSERVATION_SIZE), np.float32), root_logp=np.zeros(r),
      partner_obs=np.zeros((0, A.OBSERVATION_SIZE)), partner_call=np.zeros(0, np.int64),
      partner_value=np.zeros(0), partner_logp=np.zeros(0), partner_root=np.zeros(0, np.int64))


def test_choose_mixes_true_deal_values_with_q_by_lambda():
  gate = _gate()
  # True-deal values in points: call 5 is 600 points above Pass, 12 IMPs, 0.5 in IMPs / 24.
  res = _result([[0.0, 600.0, -np.inf]], [[A.PASS, 5, 9]])

  def q_fn(obs):  # Q(I, a) in IMPs / 24: Pass 1, call 5 worth 0, call 9 (invalid here) 1000
    q = np.zeros((len(obs), A.NUM_CALLS))
    q[:, A.PASS], q[:, 9] = 1.0, 1000.0
    return q

  assert gate.choose(res, 0.0, None).tolist() == [1]     # true deal only: 600 > 0
  # lambda 0.5: Pass 0.5 * 0 + 0.5 * 1 = 0.5 > call 5's 0.5 * 0.5 + 0 = 0.25; call 9 stays out.
  assert gate.choose(res, 0.5, q_fn).tolist() == [0]
  # lambda 0.2: Pass 0.2 < call 5's 0.8 * 0.5 = 0.4.
  assert gate.choose(res, 0.2, q_fn).tolist() == [1]


def test_summary_counts_and_per_decision_gain_by_hand():
  gate = _gate()
  per_root = [
      {"arms": {"jps": {"changed": True, "search_gain_points": 50.0, "infoset": 2.0,
                        "true_exact": 3.0, "true_net": 1.0}}},
      {"arms": {"jps": {"changed": True, "search_gain_points": 30.0, "infoset": -1.0,
                        "true_exact": 1.0, "true_net": 0.0}}},
      {"arms": {"jps": {"changed": True, "search_gain_points": 10.0, "true_exact": 0.0,
                        "true_net": 0.0}}},  # too little evidence: no infoset value
      {"arms": {"jps": {"changed": False, "search_gain_points": 0.0}}},
  ]
  s = gate.summarize(per_root, ["jps"])["jps"]
  assert (s["roots"], s["changed"], s["low_ess"]) == (4, 3, 1)
  assert s["infoset"]["mean"] == pytest.approx(0.5) and s["infoset"]["n"] == 2
  assert s["true_exact"]["mean"] == pytest.approx(4.0 / 3)
  # per searched decision: the two evaluated changes and the unchanged root (0), over 3
  assert s["infoset_per_searched_decision"]["mean"] == pytest.approx(1.0 / 3)
  lo, hi = s["infoset"]["ci95"]
  # sample s.d. of (2, -1): 1.5 * sqrt(2); standard error 1.5
  assert lo < 0.5 < hi and hi - lo == pytest.approx(2 * 1.96 * 1.5)


def test_lambda_without_a_q_hook_is_a_one_line_error(tmp_path):
  r = subprocess.run([sys.executable, SCRIPT, "--lam", "0.5", "--out",
                      str(tmp_path / "g.json")], capture_output=True, text=True, timeout=300,
                     env=dict(os.environ, PYTHONPATH=REPO))
  assert r.returncode != 0 and "--q_hook" in r.stderr


@pytest.mark.slow
def test_gate_runs_and_resumes(tmp_path):
  out = tmp_path / "gate.json"
  cmd = [sys.executable, SCRIPT, "--roots", "4", "--chunk", "2", "--deals", "8", "--pool",
         "64", "--true_rollouts", "4", "--rollouts", "2", "--noprogress", "--out", str(out)]
  env = dict(os.environ, PYTHONPATH=REPO)
  subprocess.run(cmd, check=True, capture_output=True, timeout=600, env=env)
  first = json.loads(out.read_text())
  assert first["roots_done"] == 4 and len(first["per_root"]) == 4
  subprocess.run(cmd, check=True, capture_output=True, timeout=600, env=env)
  assert json.loads(out.read_text())["per_root"] == first["per_root"]  # finished: unchanged


@functools.cache
def _outcome():
  path = os.path.join(REPO, "experiments", "bridge_jps_at_scale", "outcome.py")
  spec = importlib.util.spec_from_file_location("jps_gate_outcome", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def test_outcome_answer_follows_the_intervals():
  out = _outcome()

  def arm(lo, hi):
    return {"infoset": {"n": 9, "mean": (lo + hi) / 2, "ci95": [lo, hi]}}

  assert "lose" in out.gate_answer({"jps": arm(-0.3, -0.1), "1search": arm(-0.2, -0.05)})
  assert "also gain" in out.gate_answer({"jps": arm(0.1, 0.3)})
  assert "mixed" in out.gate_answer({"jps": arm(-0.1, 0.3), "1search": arm(-0.3, -0.1)})
  text = out.replace_between("a\n<!-- x:begin -->\nold\n<!-- x:end -->\nb", "x", "new")
  assert text == "a\n<!-- x:begin -->\nnew\n<!-- x:end -->\nb"
