"""experiments/bridge_jpsbid/bridge_replication.py: the pre-registered decision rule, its
statistics, errors."""

import json
import os
import subprocess
import sys

import numpy as np

from tests import repo as tests_repo

REPO = tests_repo.REPO
SCRIPT = os.path.join(REPO, "experiments", "bridge_jpsbid", "bridge_replication.py")

_PROBE = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("rep", sys.argv[1])
rep = importlib.util.module_from_spec(spec); spec.loader.exec_module(rep)
imps = [3, -1, 0, 5, -2, 7]
out = {"distinct": rep.summarize(imps, ["a", "b", "c", "d", "e", "f"]),
       "paired": rep.summarize(imps, ["a", "a", "b", "b", "c", "c"]),
       "decide": [rep.decide({"mean": m, "ci95": [lo, hi]}) for m, lo, hi in
                  ((0.25, 0.05, 0.45), (0.2, 0.01, 0.39), (0.15, 0.02, 0.28),
                   (0.22, -0.02, 0.46), (-0.3, -0.5, -0.1))]}
print(json.dumps(out))
"""


def test_statistics_and_decision_rule():
  res = subprocess.run([sys.executable, "-c", _PROBE, SCRIPT], capture_output=True, text=True,
                       timeout=300, cwd=REPO)
  assert res.returncode == 0, res.stderr[-2000:]
  out = json.loads(res.stdout.strip().splitlines()[-1])
  x = np.array([3, -1, 0, 5, -2, 7], float)
  d = out["distinct"]
  assert d["boards"] == 6 and abs(d["mean"] - 2.0) < 1e-12
  assert abs(d["se"] - x.std(ddof=1) / np.sqrt(6)) < 1e-12  # one board per cluster
  assert abs(d["ci95"][0] - (2.0 - 1.959964 * d["se"])) < 1e-9
  # Two boards per cluster; cluster sums of (x - mean) by hand: (3-2)+(-1-2) = -2,
  # (0-2)+(5-2) = 1, (-2-2)+(7-2) = 1; se = sqrt(G/(G-1) * (4+1+1)) / n = sqrt(1.5*6) / 6.
  assert abs(out["paired"]["se"] - np.sqrt(1.5 * 6.0) / 6) < 1e-12
  assert out["decide"] == [
      "replicated", "replicated",
      "JPSBid better than plain, but an effect of 0.2 is not shown",
      "not replicated", "reversed"]


def test_user_error_is_one_line(tmp_path):
  res = subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path / "r.json"),
                        "--workdir", str(tmp_path / "w"),
                        "--replicate_workdir", str(tmp_path / "missing")],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
  assert res.returncode != 0 and "Traceback" not in res.stderr
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1 and "has no results.json" in errors[0], res.stderr
  assert not os.path.exists(tmp_path / "w")  # checked before any match
  res = subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path / "r.json"),
                        "--workdir", str(tmp_path / "w"), "--export_only"],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert res.returncode != 0 and len(errors) == 1, res.stderr
  assert "--export_only needs --replicate_workdir" in errors[0]


# The method-level test (several training runs; pre-registered in commit f4afb8e).
_RUNS_PROBE = r"""
import importlib.util, json, os, sys
import numpy as np
spec = importlib.util.spec_from_file_location("rep", sys.argv[1])
rep = importlib.util.module_from_spec(spec); spec.loader.exec_module(rep)
rep.FLAGS(["probe"])
tmp = sys.argv[2]
out = {"three": rep.across_runs([0.2685, 0.02275, 0.286]),
       "two": rep.across_runs([0.5, 0.1]),
       "many": rep.across_runs(list(np.linspace(-1, 1, 41))),
       "decide": [rep.decide_method({"mean": m, "ci95": [lo, hi]}) for m, lo, hi in
                  ((0.25, 0.05, 0.45), (0.2, 0.01, 0.39), (0.15, 0.02, 0.28),
                   (0.19, -0.17, 0.56), (-0.3, -0.5, -0.1))]}
errs = {}
for bad in ([0.1], [], [0.1, float("nan")]):
  try:
    rep.across_runs(bad)
  except ValueError as e:
    errs[repr(bad)] = str(e)
out["errors"] = errs

# A synthetic bridge_finetune_table.py workdir: 6 boards in 3 clusters, snapshots 40/80/120.
wd = os.path.join(tmp, "wd")
cl = ["b'x'", "b'x'", "b'y'", "b'y'", "b'z'", "b'z'"]
cl_hex = ["78", "78", "79", "79", "7a", "7a"]
def r(imps, clusters=cl):
  return {"imps": imps, "clusters": clusters, "mean": float(np.mean(imps)), "se": 0.0,
          "seconds": 1.0, "loadavg": ["1", "1", "1"]}
res = {"val|a2c|40|1000": {"mean": 0.1, "se": 0.2}, "val|a2c|80|1000": {"mean": 0.3, "se": 0.2},
       "val|a2c|120|1000": {"mean": 0.3, "se": 0.2},   # tie: the first best (80) is picked
       "val|jps|40|1000": {"mean": 0.5, "se": 0.2}, "val|jps|80|1000": {"mean": 0.2, "se": 0.2},
       "val|jps|120|1000": {"mean": 0.4, "se": 0.2},
       "heldout2|jps@40|ft:a2c|6": r([3, -1, 0, 5, -2, 7]),
       "heldout2|a2c@80|a2c#0123456789|6": r([1, 1, 0, 0, 2, 2]),
       "heldout2|jps@40|a2c#0123456789|6": r([2, 0, 0, 1, 1, 2])}
for v in ("a2c", "jps"):
  os.makedirs(os.path.join(wd, v))
  np.savez(os.path.join(wd, v, "checkpoint.npz"),
           state=np.array(json.dumps({"config": {"seed": 13}})))
  json.dump({"round": 120, "games": 61440, "train_s": 9.0},
            open(os.path.join(wd, v, "run_stats.json"), "w"))
json.dump(res, open(os.path.join(wd, "results.json"), "w"))
rec = rep.export_run(wd, 6, cl, cl_hex)
out["export"] = {k: rec[k] for k in ("seed", "jps_vs_plain", "plain_vs_a2c", "jps_vs_a2c")}
out["picked"] = {v: rec["variants"][v]["picked_round"] for v in ("a2c", "jps")}
runs = os.path.join(tmp, "runs"); os.makedirs(runs)
p1 = rep.write_run(runs, rec)
m1 = os.path.getmtime(p1)
os.utime(p1, (m1 - 100, m1 - 100))
rep.write_run(runs, rec)                       # the same record: not rewritten
out["rewritten"] = os.path.getmtime(p1) != m1 - 100
json.dump({"seed": 11, "source": "docs", "jps_vs_plain": {"mean": 0.02275, "se": 0.079}},
          open(os.path.join(runs, "bridge_finetune_seed11.json"), "w"))
out["loaded"] = [(x["seed"], x["jps_vs_plain"]["mean"]) for x in rep.load_runs(runs)]
def err(f):
  try:
    f()
  except ValueError as e:
    return str(e)
bad = dict(rec, jps_vs_plain=dict(rec["jps_vs_plain"], imps=[0] * 6, mean=0.0))
out["conflict"] = err(lambda: rep.write_run(runs, bad))
res2 = dict(res); res2["val|jps|120|1000"] = {"mean": 0.9, "se": 0.2}
json.dump(res2, open(os.path.join(wd, "results.json"), "w"))
out["wrong_pick"] = err(lambda: rep.export_run(wd, 6, cl, cl_hex))
json.dump(res, open(os.path.join(wd, "results.json"), "w"))
out["wrong_order"] = err(lambda: rep.export_run(wd, 6, cl[::-1], cl_hex[::-1]))
json.dump({"seed": 12, "jps_vs_plain": {"mean": 0.1}},
          open(os.path.join(runs, "bridge_finetune_seed99.json"), "w"))
out["bad_name"] = err(lambda: rep.load_runs(runs))
print(json.dumps(out))
"""


def test_across_runs_and_per_run_files(tmp_path):
  res = subprocess.run([sys.executable, "-c", _RUNS_PROBE, SCRIPT, str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
  assert res.returncode == 0, res.stderr[-3000:]
  out = json.loads(res.stdout.strip().splitlines()[-1])
  p = 0.975
  # Student t quantiles in closed form: 1 d.f. (Cauchy) tan(pi (p - 1/2)); 2 d.f.
  # (2p - 1) / sqrt(2 p (1 - p)).
  t1, t2 = np.tan(np.pi * (p - 0.5)), (2 * p - 1) / np.sqrt(2 * p * (1 - p))
  assert abs(t1 - 12.7062047) < 1e-6 and abs(t2 - 4.3026527) < 1e-6
  th = out["three"]
  # By hand: mean = 0.57725 / 3 = 0.192417; deviations 0.076083, -0.169667, 0.093583;
  # squares 0.0057887 + 0.0287868 + 0.0087578 = 0.0433333; s = sqrt(0.0433333 / 2) = 0.147196.
  m = 0.57725 / 3
  dev = np.array([0.2685 - m, 0.02275 - m, 0.286 - m])
  sd = np.sqrt((dev ** 2).sum() / 2)
  assert th["runs"] == 3 and th["df"] == 2 and abs(th["mean"] - m) < 1e-12
  assert abs(sd - 0.147196) < 1e-6 and abs(th["sd"] - sd) < 1e-12
  assert abs(th["t975"] - t2) < 1e-9
  assert abs(th["ci95"][0] - (m - t2 * sd / np.sqrt(3))) < 1e-9
  assert abs(th["ci95"][1] - (m + t2 * sd / np.sqrt(3))) < 1e-9
  # The docs' three-run figure from commit 297c4d0 was [-0.17, +0.56].
  assert round(th["ci95"][0], 2) == -0.17 and round(th["ci95"][1], 2) == 0.56
  # Two runs 0.5 and 0.1: mean 0.3, s = 0.4 / sqrt(2), se = 0.2, half-width t1 * 0.2.
  tw = out["two"]
  assert abs(tw["se"] - 0.2) < 1e-12 and abs(tw["ci95"][1] - (0.3 + t1 * 0.2)) < 1e-9
  # 41 runs: the t quantile lies between the normal's 1.96 and 2.03 (40 d.f.: 2.0211).
  assert 2.02 < out["many"]["t975"] < 2.022
  assert out["decide"] == [
      "issue goal met at the method level (mean >= 0.2, interval above 0)",
      "issue goal met at the method level (mean >= 0.2, interval above 0)",
      "method-level advantage shown (interval above 0), mean below 0.2",
      "not established", "reversed"]
  assert len(out["errors"]) == 3 and all("across_runs" in e for e in out["errors"].values())
  assert "nan" in out["errors"]["[0.1, nan]"]
  ex = out["export"]
  assert ex["seed"] == 13 and out["picked"] == {"a2c": 80, "jps": 40}
  h = ex["jps_vs_plain"]
  # Clusters {1,2}, {3,4}, {5,6}: the same hand computation as above, se = sqrt(1.5 * 6) / 6.
  assert h["boards"] == 6 and abs(h["mean"] - 2.0) < 1e-12
  assert abs(h["se"] - np.sqrt(1.5 * 6.0) / 6) < 1e-12 and h["imps"] == [3, -1, 0, 5, -2, 7]
  assert abs(ex["plain_vs_a2c"]["mean"] - 1.0) < 1e-12
  assert not out["rewritten"]
  assert out["loaded"] == [[11, 0.02275], [13, 2.0]]
  assert "another result for seed 13" in out["conflict"]
  assert "validation picks jps@120" in out["wrong_pick"]
  assert "not played on heldout2" in out["wrong_order"]
  assert "bridge_finetune_seed99.json" in out["bad_name"]


def test_runs_only_summarizes_a_committed_run_folder(tmp_path):
  # The method-level statistic of experiments/bridge_jpsbid/jpsbid_from_a2c_longer/, recomputed
  # here from the
  # per-run files with scipy's Student t: mean over runs, interval, and the decision's inputs.
  from scipy import stats
  folder = os.path.join(REPO, "experiments", "bridge_jpsbid", "jpsbid_from_a2c_longer")
  out_path = tmp_path / "m.json"
  res = subprocess.run([sys.executable, SCRIPT, "--runs_only", "--runs_dir", folder,
                        "--preregistered", "1fee3d0", "--out", str(out_path),
                        "--progress=false"], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
  assert res.returncode == 0, res.stderr[-2000:]
  out = json.loads(out_path.read_text())
  d = []
  for name in sorted(os.listdir(folder)):
    with open(os.path.join(folder, name)) as f:
      d.append(json.load(f)["jps_vs_plain"]["mean"])
  assert len(d) >= 6 and [r["mean"] for r in out["runs"]] == d
  a = out["across_runs"]
  half = stats.t.ppf(0.975, len(d) - 1) * np.std(d, ddof=1) / np.sqrt(len(d))
  assert a["runs"] == len(d) and abs(a["mean"] - np.mean(d)) < 1e-12
  assert abs(a["ci95"][0] - (np.mean(d) - half)) < 1e-9
  assert abs(a["ci95"][1] - (np.mean(d) + half)) < 1e-9
  assert "1fee3d0" in a["note"] and out["method_decision"]
  empty = tmp_path / "empty"
  empty.mkdir()
  res = subprocess.run([sys.executable, SCRIPT, "--runs_only", "--runs_dir", str(empty),
                        "--out", str(out_path)], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert res.returncode != 0 and len(errors) == 1, res.stderr
  assert "holds 0 run file(s)" in errors[0]
