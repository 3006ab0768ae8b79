"""The JPS-at-scale study driver end to end at tiny settings, its gate, and its movement tools."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import movement
from ospiel_team.bridge.agents.training import a2c
from tests import repo as tests_repo

REPO = tests_repo.REPO
STUDY = os.path.join(REPO, "experiments", "bridge_jps_at_scale", "study.py")
TINY = dict(hidden=16, num_blocks=1, deals_per_round=4, batch_size=16, updates_per_round=1,
            buffer_size=500, burn_in=1, seed=3)


@pytest.fixture(scope="module")
def start(tmp_path_factory):
  path = str(tmp_path_factory.mktemp("start") / "start.npz")
  tr = a2c.A2CTrainer(a2c.A2CConfig(**TINY), dataset_lib.load_dataset())
  tr.train(1, progress=False)
  tr.save_checkpoint(path, include_buffer=False)
  return path


def _study(tmp, start, *extra):
  args = [sys.executable, STUDY, f"--start={start}", "--seeds=1", "--chunk_rounds=2",
          "--snapshot_every=2", f"--workdir={tmp}/w", f"--checkpoint_dir={tmp}/ck",
          f"--out={tmp}/out", "--panel=natural", "--select_boards=4", "--positions_deals=4",
          "--heldout_boards=4,4", "--search_fraction=0.5", "--search_candidates=2",
          "--search_rollouts=1", "--train_deals=50", "--noaugment", "--progress=false",
          "--search_buffer_size=100", "--distill_coef=0.5"
          ] + [f"--{k}={v}" for k, v in TINY.items() if k != "seed"]
  # one compilation cache for the module's studies (beside the start): bidders compile alike
  cache = os.path.join(os.path.dirname(start), "jax_cache")
  env = dict(os.environ, PYTHONPATH=REPO, JAX_COMPILATION_CACHE_DIR=cache)
  out = subprocess.run(args + list(extra), capture_output=True, text=True, env=env, cwd=REPO,
                       timeout=900)
  assert out.returncode == 0, out.stderr[-3000:]
  with open(os.path.join(tmp, "out", "record.json")) as f:
    return out.stdout, json.load(f)


def _round(path):
  return int(json.loads(str(np.load(path)["state"]))["round"])


def test_study_runs_resumes_from_committed_checkpoints_and_decides(start, tmp_path):
  common = ("--arms=plain,jps", "--schedule=2:1e-3,3:1e-4", "--min_changed=0",
            "--gate_rounds=1")
  _, rec = _study(tmp_path, start, *common, "--max_turns=1")
  assert rec["progress"] == {"plain_s1": 2, "jps_s1": 2}
  assert "--workdir WORKDIR" in rec["command"] and "--workdir=" not in rec["command"]
  assert "finished" not in rec
  shutil.rmtree(tmp_path / "w")  # the working folder is lost: the committed files remain
  stdout, rec = _study(tmp_path, start, *common)
  r0 = _round(start)
  for name in ("plain_s1", "jps_s1"):
    assert _round(tmp_path / "ck" / f"{name}.npz") == r0 + 3
    assert os.path.isfile(tmp_path / "ck" / f"{name}_leader.npz")
    snaps = rec["lineages"][name]["snapshots"]
    assert len(snaps) == 2  # rounds r0+2 (before the loss) and r0+3 (the schedule's end)
    for s in snaps.values():
      assert 0 <= s["movement"]["changed"] <= 1 and "natural" in s["panel"]
  # the search arms searched and distilled; their logs continue the start's
  state = json.loads(str(np.load(tmp_path / "ck" / "jps_s1.npz")["state"]))
  assert len(state["log_rows"]) == r0 + 3
  assert any(r.get("search_points", 0) > 0 for r in state["log_rows"][r0:])
  assert any("distill_loss" in r for r in state["log_rows"][r0:])
  assert set(rec["effect"]) == {"jps - plain"}
  for eff in rec["effect"].values():
    lo, hi = eff["ci95"]
    assert lo <= eff["mean"] <= hi and eff["per_seed"][0]["boards"] == 8
    assert eff["decision"].split(":")[0] in ("established", "excluded", "not decided")
  assert rec["selected"]["plain_s1"] == rec["lineages"]["plain_s1"]["leader"]
  assert "jps - plain" in stdout
  again, rec2 = _study(tmp_path, start, *common)  # finished: nothing is played again
  assert "already finished" in again and rec2 == rec


def test_study_stops_when_plain_arm_does_not_move(start, tmp_path):
  # A learning rate of 1e-12 leaves the greedy calls as they were: the gate must stop it.
  stdout, rec = _study(tmp_path, start, "--arms=plain", "--seeds=1,2", "--schedule=2:1e-12",
                       "--gate_rounds=1", "--min_changed=0.05")
  assert rec["stopped"].startswith("uninformative") and "uninformative" in stdout
  # the power check: two plain lineages that bid as the start score alike
  power = rec["power"]
  assert power["scores"][0] == power["scores"][1] and power["sd_between_seeds"] == 0.0
  assert power["seeds_needed"] == 2
  snap = next(iter(rec["lineages"]["plain_s1"]["snapshots"].values()))
  assert snap["movement"]["changed"] == 0.0
  assert snap["movement"]["validation"]["mean"] == 0.0 and not snap["moved"]
  assert "effect" not in rec


def test_study_refuses_bad_schedule(start, tmp_path):
  args = [sys.executable, STUDY, f"--start={start}", "--schedule=5:1e-4,3:1e-5",
          f"--workdir={tmp_path}/w", f"--out={tmp_path}/o"]
  out = subprocess.run(args, capture_output=True, text=True, cwd=REPO, timeout=300,
                       env=dict(os.environ, PYTHONPATH=REPO))
  assert out.returncode != 0
  assert "--schedule must be ROUND:LR" in out.stderr and "Traceback" not in out.stderr


def test_movement_of_a_model_against_itself_and_another():
  longer = model_bidder.model_path("a2c_longer")
  pos = movement.fixed_positions(longer, deals=8)
  assert pos.dtype == np.uint8 and len(pos) > 8
  assert np.all(policy_net.legal_from_obs(pos).sum(axis=1) >= 2)
  same = movement.movement(longer, longer, pos, 8)
  assert same["changed"] == 0.0 and same["validation"]["mean"] == 0.0
  assert not movement.moved(same)
  # Against another model: the fraction equals a direct count of differing greedy calls.
  other = model_bidder.load_bidder("a2c")
  mine = model_bidder.load_bidder(longer)
  direct = np.mean(other.act(pos) != mine.act(pos))
  assert movement.changed_call_fraction(other, longer, pos) == pytest.approx(direct)
  assert direct > 0  # a2c and a2c_longer bid differently somewhere
  assert movement.moved({"changed": direct, "validation": {"ci95": [-1, 1]}},
                        min_changed=direct)


def test_seeds_needed_by_hand():
  # The script defines absl flags on import: its arithmetic is checked in a subprocess.
  folder = os.path.dirname(STUDY)
  code = (f"import sys; sys.argv = ['x']; sys.path.insert(0, {folder!r}); import study; "
          "print(study.seeds_needed(0.1), study.seeds_needed(0.3), study.seeds_needed(0.0), "
          "study.seeds_needed(10.0))")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                       env=dict(os.environ, PYTHONPATH=REPO), timeout=300)
  assert out.returncode == 0, out.stderr[-2000:]
  # sd 0.1: n = 4 gives t(0.975, 3) 3.182 x 0.1 / 2 = 0.159 > 0.15; n = 5: 2.776 x 0.1 / 2.236
  # = 0.124. sd 0.3: n = 17: 2.120 x 0.3 / 4.123 = 0.154; n = 18: 2.110 x 0.3 / 4.243 = 0.149.
  assert out.stdout.split() == ["5", "18", "2", "None"]
