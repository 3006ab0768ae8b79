"""The wide-start script: each arm's recorded match is the stored student's own match against
its teacher, the decision is the plan's rule, a finished run rerun does nothing, and a rule-based
teacher or other settings are refused."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ospiel_team import atomic_io
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import match
from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "experiments", "bridge_wide_start", "bridge_wide_start.py")
ARGS = ["--deals", "30", "--steps", "3", "--hidden", "8", "--num_blocks", "1",
        "--eval_boards", "12", "--batch_size", "64", "--noprogress"]


def _run(tmp_path, *extra):
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  return subprocess.run([sys.executable, SCRIPT, *ARGS, "--workdir", str(tmp_path / "work"),
                         "--out", str(tmp_path / "out"), *extra], cwd=tmp_path, env=env,
                        capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # a finished experiment's driver, end to end; the default suite runs it small
def test_students_matches_decision_and_resume(tmp_path):
  res = _run(tmp_path, "--arms", "calls")
  assert res.returncode == 0, res.stderr[-3000:]
  path = tmp_path / "out" / "record.json"
  rec = atomic_io.read_json(str(path), "record")
  assert list(rec["arms"]) == ["calls"] and "decision" not in rec  # one arm: no decision
  res = _run(tmp_path)  # the other arm; the first is not trained again
  assert res.returncode == 0, res.stderr[-3000:]
  rec = atomic_io.read_json(str(path), "record")
  assert set(rec["arms"]) == {"calls", "probabilities"}
  for arm, r in rec["arms"].items():
    student = model_bidder.load_bidder(r["model"])
    played = match.run_match(student, "a2c_longer", 12, dataset="validation", seed=1,
                             progress=False)
    assert r["match"]["imps_per_board_for_a"] == played.mean_imps, arm
    assert r["match"]["ci95_high"] == played.ci95[1]
    assert 0 <= r["validation_agreement"] <= 1 and r["validation_kl"] >= 0
  means = {a: r["match"]["imps_per_board_for_a"] for a, r in rec["arms"].items()}
  start = rec["decision"]["start"]
  assert means[start] == max(means.values())
  assert rec["decision"]["level_with_teacher"] == (rec["arms"][start]["match"]["ci95_high"] >= 0)
  before = path.stat().st_mtime_ns
  again = _run(tmp_path)
  assert again.returncode == 0, again.stderr[-3000:]
  assert path.stat().st_mtime_ns == before  # finished: nothing recomputed or rewritten
  other = _run(tmp_path, "--steps", "4")
  assert other.returncode != 0 and "other settings" in other.stderr
  # Stored states collected otherwise are refused, not reused (a new record, the same workdir).
  stale = _run(tmp_path, "--epsilon", "0.2", "--out", str(tmp_path / "out2"))
  assert stale.returncode != 0 and "'epsilon': 0.1" in stale.stderr, stale.stderr[-2000:]


def test_rule_based_teacher_is_refused(tmp_path):
  res = _run(tmp_path, "--teacher", "natural")
  assert res.returncode != 0
  assert "--teacher natural" in res.stderr and "Traceback" not in res.stderr


PROBE = """
import json, sys
sys.path.insert(0, {bench!r})
import bridge_wide_start as w
from ospiel_team import atomic_io
from ospiel_team.bridge.agents import bidders
w.FLAGS(["probe", "--workdir", {work!r}, "--deals", "30", "--value_steps", "300",
         "--batch_size", "64", "--noprogress"])
record = atomic_io.read_json({record!r}, "record")
record["decision"] = {{"start": "calls", "level_with_teacher": True}}
teacher = bidders.make_bidder("a2c_longer")
states, _ = w.load_or_collect({work!r} + "/states.npz", teacher, 200)
print(json.dumps(w.fit_start(record, states, teacher)))
"""


def test_a_level_start_gets_its_value_head_fitted(tmp_path):
  """The start step (run when the decision is level; forced here on a tiny run's student):
  the value head gets closer to the teacher's values and the stored start bids as the
  student does."""
  import json

  import numpy as np

  from ospiel_team.bridge.agents.bidders import policy_net
  res = _run(tmp_path, "--arms", "calls")
  assert res.returncode == 0, res.stderr[-3000:]
  code = PROBE.format(bench=os.path.dirname(SCRIPT), work=str(tmp_path / "work"),
                      record=str(tmp_path / "out" / "record.json"))
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600, cwd=tmp_path)
  assert out.returncode == 0, out.stderr[-3000:]
  start = json.loads(out.stdout.strip().splitlines()[-1])
  assert start["arm"] == "calls" and start["value_steps"] == 300
  assert start["value_mse_after"] < start["value_mse_before"]
  net, fitted, _ = policy_net.load_model(start["file"])
  _, student, _ = policy_net.load_model(str(tmp_path / "work" / "calls.npz"))
  obs = np.zeros((1, policy_net.OBS_SIZE), np.float32)
  obs[0, policy_net.A.OBS_LEGAL:] = 1.0
  np.testing.assert_array_equal(policy_net.PolicyFn(net, fitted)(obs)[0],
                                policy_net.PolicyFn(net, student)(obs)[0])
