"""The wide run's script: progress only until the budget is used, then selection before the
held-out boards, the estimate from the stored boards, a finished record rerun unchanged, and
a changed model refused."""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from ospiel_team import atomic_io
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import match
from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "experiments", "bridge_wide_run", "bridge_wide_run.py")
COLUMNS = ["round", "games", "cpu_s", "eval_boards", "eval_imps_vs_natural", "eval_stderr"]


def _run(tmp_path, *extra: str):
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  return subprocess.run(
      [sys.executable, SCRIPT, "--run", str(tmp_path / "run"), "--start",
       str(tmp_path / "start.npz"), "--opponent", "a2c_long", "--budget_cpu_minutes", "1",
       "--eval_boards", "4", "--select_boards", "3", "--heldout_boards", "2,3",
       "--match_dir", str(tmp_path / "matches"), "--out", str(tmp_path / "out"),
       "--noprogress", *extra],
      cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def _log(tmp_path, rows) -> None:
  with open(tmp_path / "run" / "log.csv", "w", newline="") as f:
    w = csv.DictWriter(f, COLUMNS)
    w.writeheader()
    w.writerows(rows)


def _fake_run(tmp_path) -> None:
  """A run of two rounds (10 CPU s, one evaluation) with two snapshots (shipped models)."""
  snaps = tmp_path / "run" / "snapshots"
  snaps.mkdir(parents=True)
  shutil.copy(model_bidder.model_path("a2c"), snaps / "round_0000001.npz")
  shutil.copy(os.path.join(tests_repo.REPO, "experiments", "bridge_jpsbid", "models",
                           "a2c_finetuned.npz"), snaps / "round_0000002.npz")
  shutil.copy(model_bidder.model_path("a2c_longer"), tmp_path / "start.npz")
  _log(tmp_path, [
      {"round": 1, "games": 8, "cpu_s": 5.0, "eval_boards": 4, "eval_imps_vs_natural": 0.5,
       "eval_stderr": 0.25},
      {"round": 2, "games": 16, "cpu_s": 10.0, "eval_boards": 0, "eval_imps_vs_natural": "",
       "eval_stderr": ""}])


def test_progress_then_select_then_estimate(tmp_path):
  _fake_run(tmp_path)
  res = _run(tmp_path)  # 10 of 60 CPU s: progress only
  assert res.returncode == 0, res.stderr[-3000:]
  assert "training not finished: 10 of 60 CPU s at round 2" in res.stdout
  path = str(tmp_path / "out" / "record.json")
  rec = atomic_io.read_json(path, "record")
  assert rec["training"]["finished"] is False and rec["training"]["round"] == 2
  assert rec["training"]["evals"] == [{"round": 1, "games": 8, "cpu_s": 5.0, "boards": 4,
                                       "imps_vs_natural": 0.5, "se": 0.25}]
  # the references are the trainer's own evaluation (greedy, validation, seed 0) of the models
  for name, model in (("start", str(tmp_path / "start.npz")), ("opponent", "a2c_long")):
    ref = match.run_match(model_bidder.load_bidder(model), "natural", 4, dataset="validation",
                          seed=0, progress=False)
    assert rec["matches"][f"reference/{name}"]["mean"] == ref.mean_imps
  # the selection's matches are played as the snapshots appear; nothing is selected
  names = ["start", "round_0000001", "round_0000002"]
  assert sorted(k for k in rec["matches"] if not k.startswith("reference/")) == sorted(
      f"select/{n}" for n in names)
  assert "selected" not in rec and "result" not in rec
  ref = match.run_match(model_bidder.load_bidder(str(tmp_path / "start.npz")), "a2c_long", 3,
                        dataset="validation", seed=0, progress=False)
  assert rec["matches"]["select/start"]["imps"] == [int(x) for x in ref.imps]
  first = rec["matches"]["select/start"]

  _log(tmp_path, [{"round": 3, "games": 24, "cpu_s": 61.0, "eval_boards": 0,
                   "eval_imps_vs_natural": "", "eval_stderr": ""}])
  res = _run(tmp_path)  # the budget is used: select, then estimate
  assert res.returncode == 0, res.stderr[-3000:]
  rec = atomic_io.read_json(path, "record")
  assert rec["training"]["finished"] is True
  select = {n: rec["matches"][f"select/{n}"] for n in names}
  assert select["start"] == first  # not played again
  assert {(m["dataset"], m["boards"], m["opponent"]) for m in select.values()} == {
      ("validation", 3, "a2c_long")}
  assert rec["selected"] == max(names, key=lambda n: select[n]["mean"])
  final = [rec["matches"]["final/heldout"], rec["matches"]["final/heldout2"]]
  assert [(m["dataset"], m["boards"]) for m in final] == [("heldout", 2), ("heldout2", 3)]
  imps = np.concatenate([m["imps"] for m in final]).astype(float)
  assert rec["result"]["boards"] == 5 and np.isclose(rec["result"]["mean"], imps.mean())
  # five different deals, one board each: the clustered error is the plain one
  assert np.isclose(rec["result"]["se"], imps.std(ddof=1) / np.sqrt(5))
  lo, hi = rec["result"]["ci95"]
  assert np.isclose(hi - lo, 2 * 1.959964 * rec["result"]["se"])
  assert rec["result"]["decision"] == ("kept (interval above 0)" if lo > 0 else
                                       "worse than a2c_long (interval below 0)"
                                       if hi < 0 else "not established")
  assert set(rec["models"]) == {"start", "opponent", *names[1:]}

  before = open(path).read()
  res = _run(tmp_path)  # finished: nothing is played or rewritten
  assert res.returncode == 0, res.stderr[-3000:]
  assert open(path).read() == before
  shutil.copy(model_bidder.model_path("a2c"), tmp_path / "start.npz")  # a changed start
  res = _run(tmp_path)
  assert res.returncode != 0 and "differs" in res.stderr


def test_heldout_boards_beyond_the_sets_are_one_line(tmp_path):
  _fake_run(tmp_path)
  for bad in ("2,4001", "2"):
    res = _run(tmp_path, "--heldout_boards", bad)
    assert res.returncode != 0
    assert res.stderr.strip().splitlines() == [
        "bridge_wide_run: error: --heldout_boards must be two integers, at most 2000 and 4000, "
        f"got {bad.split(',')}"]
  assert not (tmp_path / "out").exists()  # refused before anything was written


def test_a_folder_without_a_training_log_is_one_line(tmp_path):
  (tmp_path / "run").mkdir()
  shutil.copy(model_bidder.model_path("a2c"), tmp_path / "start.npz")
  res = _run(tmp_path)
  assert res.returncode != 0
  assert res.stderr.strip().splitlines() == [
      f"bridge_wide_run: error: {str(tmp_path / 'run' / 'log.csv')!r} does not exist (is --run "
      "a training workdir?)"]


def _select_means(rec) -> dict:
  return {k[len("select/"):]: v["mean"] for k, v in rec["matches"].items()
          if k.startswith("select/")}


@pytest.mark.slow  # a finished experiment's driver, end to end; the default suite runs it small
def test_the_kept_leader_stands_in_for_its_lost_snapshot(tmp_path):
  _fake_run(tmp_path)
  leader_file = tmp_path / "kept" / "leader.npz"
  res = _run(tmp_path, "--keep_leader", str(leader_file))
  assert res.returncode == 0, res.stderr[-3000:]
  path = str(tmp_path / "out" / "record.json")
  rec = atomic_io.read_json(path, "record")
  means = _select_means(rec)
  leader = max(means, key=means.get)
  assert leader == "round_0000001"  # a snapshot (a2c: +3.0 on these boards), not the start
  assert rec["leader"] == {"name": leader, "file": str(leader_file),
                           "digest": rec["models"][leader]}
  source = tmp_path / "run" / "snapshots" / f"{leader}.npz"
  assert leader_file.read_bytes() == source.read_bytes()
  # every snapshot is lost; the budget is used: the kept copy is selected and played
  shutil.rmtree(tmp_path / "run" / "snapshots")
  _log(tmp_path, [{"round": 3, "games": 24, "cpu_s": 61.0, "eval_boards": 0,
                   "eval_imps_vs_natural": "", "eval_stderr": ""}])
  res = _run(tmp_path, "--keep_leader", str(leader_file))
  assert res.returncode == 0, res.stderr[-3000:]
  rec = atomic_io.read_json(path, "record")
  assert rec["selected"] == leader
  assert rec["matches"]["final/heldout"]["model"] == "leader.npz"  # the kept copy


@pytest.mark.slow  # a finished experiment's driver, end to end; the default suite runs it small
def test_lost_candidates_are_kept_apart_and_not_selected(tmp_path):
  _fake_run(tmp_path)
  res = _run(tmp_path)
  assert res.returncode == 0, res.stderr[-3000:]
  path = str(tmp_path / "out" / "record.json")
  rec = atomic_io.read_json(path, "record")
  # the loss as amendment 3 records it: the start and every snapshot are gone
  lost = {"matches": {n: rec["matches"].pop(f"select/{n}") for n in list(_select_means(rec))},
          "models": {n: rec["models"].pop(n) for n in list(rec["models"]) if n != "opponent"},
          "training": rec.pop("training"),
          "resumed_from": {"file": "slim.npz", "round": 1, "games": 8, "cpu_s": 5.0}}
  rec["lost"] = lost
  atomic_io.write_json(path, rec, indent=1)
  os.remove(tmp_path / "start.npz")
  shutil.rmtree(tmp_path / "run" / "snapshots")
  (tmp_path / "run" / "snapshots").mkdir()
  # the resumed run's snapshot has a lost one's name, not its model
  shutil.copy(model_bidder.model_path("a2c_long"), tmp_path / "run" / "snapshots" /
              "round_0000002.npz")
  _log(tmp_path, [{"round": 3, "games": 24, "cpu_s": 61.0, "eval_boards": 0,
                   "eval_imps_vs_natural": "", "eval_stderr": ""}])
  res = _run(tmp_path)
  assert res.returncode == 0, res.stderr[-3000:]
  rec = atomic_io.read_json(path, "record")
  assert rec["lost"] == lost  # untouched
  assert list(_select_means(rec)) == ["round_0000002"] and rec["selected"] == "round_0000002"
  assert rec["models"]["round_0000002"] != lost["models"]["round_0000002"]
  # without the lost record, a missing start is still an error
  del rec["lost"]
  atomic_io.write_json(path, rec, indent=1)
  res = _run(tmp_path)
  assert res.returncode != 0 and "does not exist" in res.stderr
