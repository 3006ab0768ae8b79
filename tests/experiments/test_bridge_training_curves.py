"""experiments/bridge_a2c_training/bridge_training_curves.py on a synthetic training log: the CSV
holds exactly the
log's evaluation rows, the PNG is written, and a model file without a log is a one-line error."""

import csv
import json
import os
import subprocess
import sys

import numpy as np

from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "experiments",
                      "bridge_a2c_training", "bridge_training_curves.py")


def _run(*args, cwd):
  return subprocess.run([sys.executable, SCRIPT, *args], cwd=cwd, capture_output=True,
                        text=True, timeout=300)


def test_curves_from_a_checkpoint_log(tmp_path):
  rows = [{"round": r, "games": 1024 * r, "wall_s": 0.2 * r, "entropy": 1.0 - 0.01 * r}
          for r in range(1, 31)]
  for r in rows[9::10]:  # an evaluation every 10 rounds
    r.update(eval_boards=400, eval_imps_vs_natural=0.1 * r["round"], eval_stderr=0.2)
  ck = tmp_path / "run.npz"
  np.savez(ck, state=np.array(json.dumps({"log_rows": rows})))
  sel = tmp_path / "sel.json"
  sel.write_text(json.dumps({"best": "round_0000020.npz", "rows": [
      {"snapshot": f"round_{r:07d}.npz", "games": 1024 * r, "imps": 0.05 * r, "stderr": 0.1,
       "opponent": "a2c_long", "boards": 1000} for r in (10, 20, 30)] + [
      {"snapshot": "avg_last2_0000020-0000030.npz", "games": 30720, "imps": 0.4, "stderr": 0.1,
       "opponent": "a2c_long", "boards": 1000}]}))
  out, out_csv = tmp_path / "c.png", tmp_path / "c.csv"
  res = _run("--models", str(ck), "--selection", str(sel), "--marks", "20480=lr 3e-5",
             "--out", str(out), "--csv", str(out_csv), cwd=tmp_path)
  assert res.returncode == 0, res.stderr[-2000:]
  assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
  with open(out_csv) as f:
    got = list(csv.DictReader(f))
  assert [(int(r["round"]), float(r["eval_imps_vs_natural"])) for r in got] == [
      (10, 1.0), (20, 2.0), (30, 3.0)]
  assert {r["model"] for r in got} == {"run"}


def test_model_without_log_is_one_line(tmp_path):
  model = tmp_path / "params_only.npz"
  np.savez(model, meta=np.array("{}"))
  res = _run("--models", str(model), "--out", str(tmp_path / "c.png"),
             "--csv", str(tmp_path / "c.csv"), cwd=tmp_path)
  assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
  assert "is a model without a training log" in res.stderr
  res = _run("--models", str(model), "--marks", "abc=x", "--out", str(tmp_path / "c.png"),
             "--csv", str(tmp_path / "c.csv"), cwd=tmp_path)
  assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
