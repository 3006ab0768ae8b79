"""The runner's report (`runner.report`): statistics, the Markdown table, the written files."""

import json
import math
import os

import pytest

from ospiel_team.runner import report


def _rows():
  """Two seeds of one solver with two checkpoints each (metric: NashConv)."""
  rows = []
  for seed, finals in [(0, 0.2), (1, 0.4)]:
    for it, metric in [(1, 1.0), (10, finals)]:
      rows.append(dict(game="kuhn_poker()", solver="cfr", variant="average", seed=seed,
                       iteration=it, seconds=0.1 * it, metric_name="nash_conv", metric=metric,
                       primary=True))
  return rows


def test_mean_ci_is_the_student_t_interval():
  # Two values 0 and 2: mean 1, sample standard deviation sqrt(2), standard error 1, and the
  # 97.5% quantile of Student's t with one degree of freedom is tan(0.475 pi) = 12.7062.
  mean, half = report.mean_ci([0.0, 2.0])
  assert mean == 1.0 and half == pytest.approx(math.tan(0.475 * math.pi), rel=1e-9)
  mean, half = report.mean_ci([3.0])
  assert mean == 3.0 and math.isnan(half)
  assert math.isnan(report.mean_ci([])[0])


def test_series_and_step_band():
  per_seed = report.series(_rows())[("cfr", "average")]
  assert sorted(per_seed) == [0, 1] and [r["iteration"] for r in per_seed[0]] == [1, 10]
  x, vals = report.step_band(per_seed, "iteration")
  assert list(x) == [1, 10]
  assert vals.tolist() == [[1.0, 0.2], [1.0, 0.4]]


def test_markdown_table_reports_the_final_checkpoint_over_seeds():
  infos = [dict(solver="cfr", seed=s, excluded_cpu_seconds={"snapshot": 0.5},
                eval_cpu_seconds=0.25) for s in (0, 1)]
  text = report.markdown_table(_rows(), infos, {"value": 0.0, "label": "Nash"})
  half = math.tan(0.475 * math.pi) * 0.1  # sd of (0.2, 0.4) / sqrt(2) = 0.1
  assert f"| cfr | **average** | 0.3 | {half:.4g} | 10 | 1 | 0.5 | 0.25 |" in text
  assert "2 seeds (0, 1)" in text and "lower is better" in text
  assert "Reference: **0** — Nash." in text
  assert "- `cfr`: one CFR iteration" in text
  assert report.markdown_table([]) == "(no results)\n"


def test_write_outputs_writes_three_files_and_no_temporary_one(tmp_path):
  out = tmp_path / "out"
  ref = {"value": 0.0, "label": "Nash"}
  report.write_outputs(_rows(), str(out), [], ref)
  assert sorted(os.listdir(out)) == ["curves.png", "results.json", "results.md"]
  data = json.loads((out / "results.json").read_text())
  assert data["reference"] == ref and data["rows"] == _rows()
  png = (out / "curves.png").read_bytes()
  assert png.startswith(b"\x89PNG") and len(png) > 10_000
  assert os.stat(out / "curves.png").st_mode & 0o777 == 0o644
