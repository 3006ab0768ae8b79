"""The search experiment's script: selection before the held-out boards, the result from the
stored boards, a finished run rerun unchanged, and a changed model file refused."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from ospiel_team import atomic_io
from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "experiments",
                      "bridge_search", "bridge_search_experiment.py")
ARGS = ["--candidates", "search:a2c?k=2&pool=32&dd=net,search:a2c?k=2&pool=32&dd=net&min_z=1",
        "--opponent", "a2c", "--select_boards", "2", "--final_boards", "2,3",
        "--batch_boards", "2", "--noprogress"]


def _run(tmp_path):
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  return subprocess.run([sys.executable, SCRIPT, *ARGS, "--workdir", str(tmp_path / "work"),
                         "--out", str(tmp_path / "out")], cwd=tmp_path, env=env,
                        capture_output=True, text=True, timeout=600)


def test_select_then_estimate_then_refuse_a_changed_model(tmp_path):
  res = _run(tmp_path)
  assert res.returncode == 0, res.stderr[-3000:]
  path = str(tmp_path / "out" / "record.json")
  rec = atomic_io.read_json(path, "record")
  select = [rec["matches"][f"select/{i}"] for i in range(2)]
  assert [m["dataset"] for m in select] == ["validation", "validation"]
  best = max(range(2), key=lambda i: select[i]["mean"])
  assert rec["selected"] == rec["settings"]["candidates"][best]
  final = [rec["matches"]["final/heldout"], rec["matches"]["final/heldout2"]]
  assert [(m["dataset"], m["boards"], m["spec"]) for m in final] == [
      ("heldout", 2, rec["selected"]), ("heldout2", 3, rec["selected"])]
  imps = np.concatenate([m["imps"] for m in final])
  assert rec["result"]["boards"] == 5 and rec["result"]["mean"] == np.mean(imps)
  lo, hi = rec["result"]["ci95"]
  assert rec["result"]["decision"] == ("kept (interval above 0)" if lo > 0 else
                                       "worse than the policy alone (interval below 0)"
                                       if hi < 0 else "not established")
  assert set(rec["models"]) == {"a2c", "dd_net"}
  before = open(path).read()
  res = _run(tmp_path)  # finished: nothing is played again
  assert res.returncode == 0, res.stderr[-3000:]
  assert open(path).read() == before
  rec["models"]["dd_net"] = "0" * 64  # as if the network had been retrained since
  atomic_io.write_json(path, rec, indent=1)
  res = _run(tmp_path)
  assert res.returncode != 0 and "['dd_net']" in res.stderr and "differ" in res.stderr
