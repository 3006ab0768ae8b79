"""The runner pages' renderer (docs/render/runner.py) and its records (results/runner/)."""
import json
import os
import sys

import pytest

from tests import repo as tests_repo

DOCS = os.path.join(tests_repo.REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

from render import common  # noqa: E402
from render import runner  # noqa: E402

RECORDS = os.path.join(tests_repo.REPO, "results", "runner")


def _figure_record(short_seed=None):
  runs = []
  for seed in (0, 1):
    short = seed == short_seed
    runs.append(dict(solver="ed", seed=seed, last_checkpoint_iteration=50 if short else 90,
                     last_checkpoint_seconds=3.39 if short else 6.0, iterations_run=90,
                     budget_seconds=6.0, solver_cpu_seconds=6.0,
                     excluded_cpu_seconds={"jit": 1.5 + seed}, short=short, extra={}))
  prov = dict(commit="0123456789abcdef", uncommitted_package_changes=False,
              date="2026-01-01T00:00:00+00:00",
              machine={"cores": 2, "platform": "Linux-6.1-x86_64", "load_average": [1, 1, 1],
                       "load_average_before": 1.5, "load_average_after": 2.25})
  finals = [dict(solver="ed", variant="current", primary=True, source="ospiel_team",
                 seeded=False, seeds=2, mean=0.0125, half_width=1e-16, iterations=90,
                 seconds=6.0)]
  return dict(name="fig", command="ospiel-team-compare --solvers ed", wall_seconds=12.0,
              provenance=prov, game="kuhn_poker()", metric="nash_conv",
              reference={"value": 0.0, "label": "Nash"}, finals=finals, runs=runs)


@pytest.fixture
def results_dir(tmp_path):
  original = common.RESULTS
  (tmp_path / "runner").mkdir()
  common.set_results_dir(str(tmp_path))
  yield tmp_path
  common.set_results_dir(original)


def _write(results_dir, name, record):
  (results_dir / "runner" / f"{name}.json").write_text(json.dumps(record))


def test_a_run_short_of_its_budget_is_named(results_dir):
  _write(results_dir, "fig", _figure_record(short_seed=1))
  text = runner.budgets("fig")
  assert text == ("Runs whose last checkpoint is short of their budget: `ed` seed 1 at 3.39 s "
                  "of 6.00 s.")
  _write(results_dir, "ok", _figure_record())
  common.set_results_dir(str(results_dir))
  assert runner.budgets("ok") == (
      "All 2 runs have their last checkpoint at their last iteration; the 2 that their budget "
      "stopped took it at or past the budget (the earliest at 6.00 solver CPU s).")
  lp = _figure_record()
  lp["runs"][1].update(solver="team_lp", last_checkpoint_seconds=0.25, iterations_run=1)
  _write(results_dir, "lp", lp)
  common.set_results_dir(str(results_dir))
  assert runner.budgets("lp").endswith("(the earliest at 6.00 solver CPU s); `team_lp` ended "
                                       "on its own (one exact solve).")


def test_table_and_provenance(results_dir):
  _write(results_dir, "fig", _figure_record())
  table = runner.finals_table("fig")
  # the judged variant in bold; a spread of 1e-16 between deterministic seeds prints as 0
  assert "| `ed` | ospiel_team | **current** | 0.0125 | 0 | 90 | 6.00 |" in table
  prov = runner.provenance("fig")
  assert "ospiel-team-compare --solvers ed" in prov and "commit `0123456`" in prov
  assert "load average 1.50 before, 2.25 after" in prov and "12 s of wall clock" in prov
  assert runner.excluded("fig", "ed", "jit") == "2.00"  # mean of 1.5 and 2.5
  assert runner.summary_rows() == []


def _load(name):
  with open(os.path.join(RECORDS, name), encoding="utf-8") as f:
    return json.load(f)


def test_the_default_jobs_runs_all_end_at_their_budget():
  """The recorded default job (6 s per run): each run's last checkpoint is its last
  iteration, at or past the budget (the lost-checkpoint race is gone)."""
  rec = _load("default.json")
  assert rec["command"].startswith("ospiel-team-compare")
  assert len(rec["runs"]) == 12
  for r in rec["runs"]:
    assert r["last_checkpoint_iteration"] == r["iterations_run"], r
    assert r["last_checkpoint_seconds"] >= r["budget_seconds"] == 6.0, r
    assert not r["short"]


def test_nfsp_jit_record_and_its_sentence_agree():
  rec = _load("nfsp_jit.json")
  charged = rec["compile_events"]["charged_to_budget"][0]
  assert runner.nfsp_jit_charged() == ("charged to" if charged else "excluded from")
  # compilation happened (the warm-up at least), so the measurement saw something
  assert rec["compile_events"]["excluded"][0] > 0
  assert rec["excluded_cpu_seconds"]["jit"] > 0
