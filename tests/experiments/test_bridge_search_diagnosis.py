"""The search diagnosis script: its replayed match is the bidder's own match (the recording
changes no call), it keeps exactly the changed calls, scores the DDS subset it was asked for,
and a finished run rerun does nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from ospiel_team import atomic_io
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.search import search_bidder
from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "experiments", "bridge_search", "bridge_search_diagnosis.py")
SPEC = "search:a2c?k=4&pool=64&dd=net"
ARGS = ["--spec", SPEC, "--opponent", "a2c", "--boards", "12", "--batch_boards", "4",
        "--dds_calls", "2", "--noprogress"]


def _run(tmp_path, *extra):
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  return subprocess.run([sys.executable, SCRIPT, *ARGS, "--out", str(tmp_path / "out"),
                         *extra], cwd=tmp_path, env=env, capture_output=True, text=True,
                        timeout=600)


def test_replay_is_the_bidders_match_and_keeps_its_changed_calls(tmp_path):
  res = _run(tmp_path)
  assert res.returncode == 0, res.stderr[-3000:]
  path = tmp_path / "out" / "record.json"
  rec = atomic_io.read_json(str(path), "record")
  bidder = search_bidder.make_search_bidder(SPEC)
  played = match.run_match(bidder, "a2c", 12, dataset="validation", seed=1, batch_boards=4,
                           progress=False)
  assert rec["match"]["mean"] == played.mean_imps
  assert rec["match"]["changed_calls"] == bidder.stats.changed > 2
  assert rec["match"]["searched_calls"] == bidder.stats.searched
  rows = rec["rows"]
  assert sorted(r["call"] for r in rows) == list(range(bidder.stats.changed))
  subset = [r for r in rows if r["in_dds_subset"]]
  assert len(subset) == 2 and all(("C" in r) == ("B" in r) for r in subset)
  assert not any("C" in r for r in rows if not r["in_dds_subset"])
  assert rec["summary"]["fresh_draw_too_little_evidence"] == sum("B" not in r for r in rows)
  summary = rec["summary"]
  assert summary["all_changed"]["D"]["n"] == len(rows)
  assert summary["dds_subset"]["C"]["n"] == sum("C" in r for r in subset)
  # the decided gains are the search's own positive estimates (it changed the call)
  assert summary["all_changed"]["A"]["mean"] > 0
  before = path.stat().st_mtime_ns
  again = _run(tmp_path)
  assert again.returncode == 0, again.stderr[-3000:]
  assert path.stat().st_mtime_ns == before  # finished: nothing recomputed or rewritten


def test_held_out_deals_are_refused(tmp_path):
  res = _run(tmp_path, "--dataset", "heldout")
  assert res.returncode != 0 and "heldout" in res.stderr


# In a subprocess: the script defines absl flags, which the suite's process must not share.
_PROBE = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("diagnosis", sys.argv[1])
module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
names = list(module.COMPONENTS)
def subset(*pairs):
  return {n: {"mean": m, "se": se} for n, (m, se) in zip(names, pairs, strict=True)}
print(json.dumps([names, module.main_cause(subset((1.0, 0.1), (2.0, 1.5), (0.5, 0.1))),
                  module.main_cause(subset((0.1, 0.1), (0.2, 0.2), (-0.3, 0.2))),
                  module.main_cause(subset((0.1, 0.1), (0.5, 0.2), (0.3, 0.1)))]))
"""


def test_main_cause_is_the_largest_component_outside_zero():
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  res = subprocess.run([sys.executable, "-c", _PROBE, SCRIPT], env=env, capture_output=True,
                       text=True, timeout=300)
  assert res.returncode == 0, res.stderr[-3000:]
  names, first, none, second = json.loads(res.stdout)
  assert len(names) == 3
  assert first == names[0]  # the largest mean (2.0) has an interval containing 0
  assert none is None  # no interval excludes 0
  assert second == names[1]
