"""docs/render/jps.py: the transcribed paper values, the verdicts, and the tiny_hanabi record."""
import functools
import importlib.util
import json
import os
import sys

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
DOCS = os.path.join(REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

from render import common  # noqa: E402
from render import jps  # noqa: E402


def _published():
  with open(os.path.join(REPO, "results", "published", "jps_tian2020.json"),
            encoding="utf-8") as f:
    return json.load(f)


def _t1(pub, row, game):
  t = pub["table1"]
  return t["rows"][row][t["columns"].index(game)]


def test_table1_cells_read_by_hand():
  """Cells read by hand from the paper's Table 1 (identical in arXiv v1 and v2)."""
  pub = _published()
  assert _t1(pub, "CFR1k", "comm(length=3)") == [0.89, True]
  assert _t1(pub, "CFR1k", "comm(length=5)") == [0.85, False]
  assert _t1(pub, "CFR1k", "mini_bridge(size=5)") == [2.60, False]
  assert _t1(pub, "CFR1k+JPS", "tiny_hanabi()") == [9.50, True]
  assert _t1(pub, "CFR1k+JPS", "simple_bidding(size=16)") == [10.56, True]
  assert _t1(pub, "A2C", "comm(length=7)") == [0.02, False]
  assert _t1(pub, "BAD", "simple_bidding(size=4)") == [2.23, True]
  assert _t1(pub, "BAD", "mini_bridge(size=5)") == [1.31, False]
  assert _t1(pub, "Best Known", "simple_bidding(size=16)")[0] == 10.75
  t = pub["table1"]
  assert t["states"][t["columns"].index("tiny_hanabi()")] == 53
  assert t["infosets"][t["columns"].index("mini_bridge(size=5)")] == 24571
  assert all(len(v) == 11 for v in t["rows"].values())


def test_table2_cells_read_by_hand():
  """Cells read by hand from Table 2 of arXiv v1 (sample-based JPS)."""
  t = _published()["table2"]
  assert t["columns"] == ["all", 1, 2, 5, 8, 15, 20, 25, 30]
  rows = {(r["game"], r["init"]): r["values"] for r in t["rows"]}
  assert rows[("tiny_hanabi()", "CFR1k")][t["columns"].index(5)] == 9.95
  assert rows[("tiny_hanabi()", "CFR1k")][t["columns"].index(1)] == 10.00
  assert rows[("simple_bidding(size=16)", "CFR1k")][t["columns"].index(20)] == 10.60
  assert rows[("simple_bidding(size=16)", "BAD")][t["columns"].index(8)] == 10.34
  assert rows[("mini_bridge(size=5)", "BAD")][0] == 2.77
  assert all(len(v) == len(t["columns"]) for v in rows.values())


def test_compare_uses_the_printed_interval():
  # 0.8961 is inside 0.89's interval? no: [0.885, 0.895]; 0.0011 off = 0.46 s.e.
  assert jps.compare(0.8961, 0.0024, 0.89) == (True, "agrees (0.5 s.e. above)")
  assert jps.compare(10.5608, 0.0028, 10.56) == (True, "agrees")
  # 9.463 vs [9.495, 9.505]: 0.032 / 0.0158 = 2.03 s.e. below
  assert jps.compare(9.463, 0.0158, 9.50) == (False, "2.0 s.e. below")
  assert jps.compare(1.0, 0.0, 1.0) == (True, "agrees")
  assert jps.compare(0.98, 0.0, 1.0)[0] is False


def test_table1_verdicts_and_summary():
  common.set_results_dir(common.RESULTS)
  text = jps.table1()
  lines = {ln.split("|")[1].strip(): ln for ln in text.splitlines()[2:]}
  assert lines["tiny_hanabi"].rstrip(" |").endswith("+JPS 2.0 s.e. below")
  assert lines["simple_bidding(16)"].rstrip(" |").endswith("agrees")
  rows = jps.summary_rows()
  assert [r["figure"] for r in rows] == ["Table 1", "Table 2 (sampled JPS)"]
  for r in rows:
    assert set(r) == {"paper", "figure", "status", "why", "page"}
    assert r["status"] in ("reproduced", "differs (explained)", "differs (open)",
                           "not reproducible here")
  assert rows[0]["status"] == "differs (open)" and "10 of 11" in rows[0]["why"]


def test_tiny_hanabi_seed_counts_match_the_row():
  common.set_results_dir(common.RESULTS)
  counts = jps.tiny_hanabi_seeds()
  n = sum(counts.values())
  mean = sum(v * c for v, c in counts.items()) / n
  assert mean == pytest.approx(jps._row("tiny_hanabi()", jps.JPS)["mean"], abs=1e-12)


@functools.cache
def _benchmark():
  spec = importlib.util.spec_from_file_location(
      "jps_tiny_hanabi_game", os.path.join(REPO, "benchmarks", "jps_tiny_hanabi_game.py"))
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod


def test_tiny_hanabi_record_is_what_the_benchmark_computes():
  mod = _benchmark()
  fresh = mod.compare()
  with open(os.path.join(REPO, "results", "jps", "tiny_hanabi_game.json"), encoding="utf-8") as f:
    record = json.load(f)
  for key, value in fresh.items():
    assert record[key] == value, key
  # The authors' log for comm2 prints "#infoSet: 45, #states: 53": the paper's Table 1 cells.
  assert (fresh["authors_states"], fresh["authors_infosets"]) == (53, 45)
  assert fresh["optimum_ours"] == 10.0


def test_tiny_hanabi_comparison_sees_a_changed_payoff(monkeypatch):
  mod = _benchmark()
  swapped = [list(r) for r in mod.AUTHORS_PAYOFF]
  swapped[8] = [0, 0, 10]  # card1 = 1, card2 = 0, action1 = 2: OpenSpiel's payoff is 0, 0, 0
  monkeypatch.setattr(mod, "AUTHORS_PAYOFF", swapped)
  res = mod.compare()
  assert not res["payoffs_equal"] and not res["joint_values_equal"]
