"""benchmarks/jps_beyond.py: rows over several beyond-the-paper stores (union of seeds, a
conflicting seed refused, the `--rounds 0` "alternating" row left out), checked on hand-made
stores whose means and optimum hits are computed by hand."""

import json
import os
import subprocess
import sys

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
SCRIPT = os.path.join(REPO, "benchmarks", "jps_beyond.py")


def _write(path, obj):
  path.write_text(json.dumps(obj))
  return str(path)


def _stores(tmp_path, conflict=False):
  main = {"_config": {}, "g()": {"depth": None, "seeds": {
      str(s): {"CFR (current, purified)": 1.0, "CFR+JPS": 2.0} for s in range(3)}}}
  one = {"g()": {"depth": None, "config": {"rounds": 3}, "seeds": {
      "0": {"CFR+JPS": 2.0, "CFR/JPS alternating": 3.0, "cpu_seconds": 1.0},
      "1": {"CFR+JPS": 2.0, "CFR/JPS alternating": 2.5, "cpu_seconds": 1.0}}}}
  two = {"g()": {"depth": None, "config": {"rounds": 0, "xfp_steps": 5}, "seeds": {
      "1": {"CFR+JPS": 2.5 if conflict else 2.0, "CFR/JPS alternating": 2.0,
            "XFP5+JPS": 3.0},
      "2": {"CFR+JPS": 2.0, "CFR/JPS alternating": 2.0, "XFP5+JPS": 1.0}}}}
  optima = {"rows": [{"game": "g()", "value": 3.0, "proven_optimal": True}]}
  return ([_write(tmp_path / "main.json", main), _write(tmp_path / "one.json", one),
           _write(tmp_path / "two.json", two)], _write(tmp_path / "opt.json", optima))


def test_rows_over_several_beyond_stores(tmp_path):
  stores, optima = _stores(tmp_path)
  out = tmp_path / "rows.json"
  subprocess.run([sys.executable, SCRIPT, "--stores", ",".join(stores), "--optima", optima,
                  "--json_out", str(out)], check=True, capture_output=True, timeout=120)
  rows = {r["method"]: r for r in json.loads(out.read_text())}
  assert rows["CFR+JPS [beyond]"]["num_seeds"] == 3  # seeds 0, 1 (store one), 2 (store two)
  alt = rows["CFR/JPS alternating"]  # from store one only (store two has rounds = 0)
  assert alt["num_seeds"] == 2 and alt["mean"] == pytest.approx(2.75)
  assert alt["reach_optimum"] == pytest.approx(0.5)
  xfp = rows["XFP5+JPS"]
  assert xfp["num_seeds"] == 2 and xfp["mean"] == pytest.approx(2.0) and xfp["best"] == 3.0
  assert xfp["reach_optimum"] == pytest.approx(0.5)
  assert rows["CFR+JPS"]["num_seeds"] == 3 and rows["CFR+JPS"]["reach_optimum"] == 0.0


def test_a_seed_with_two_values_is_refused(tmp_path):
  stores, optima = _stores(tmp_path, conflict=True)
  proc = subprocess.run([sys.executable, SCRIPT, "--stores", ",".join(stores), "--optima",
                         optima], capture_output=True, text=True, timeout=120)
  assert proc.returncode != 0 and "seed 1" in proc.stderr
