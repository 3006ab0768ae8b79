"""The runner's report (`runner.report`): statistics, the Markdown table, the written files."""

import json
import math
import os
import subprocess

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
  assert text.splitlines()[0] == f"# {_rows()[0]['game']}: cfr"  # titled with its game
  assert "2 seeds (0, 1)" in text and "lower is better" in text
  assert "Reference: **0** — Nash." in text
  assert "- `cfr` (OpenSpiel's): one CFR iteration" in text
  # the key says what the metric and the variant are, and that cfr's seeds are not the
  # algorithm's randomness
  assert "**Key.** Metric: NashConv" in text and "*average*: the solver's average" in text
  assert "`cfr` is deterministic" in text
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


def _axes_of(rows, tmp_path, **kwargs):
  """The curves figure's axes, captured before the figure is closed."""
  import matplotlib  # noqa: PLC0415
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  # noqa: PLC0415
  captured = {}
  close = plt.close

  def keep(fig=None):
    captured["fig"] = fig
    close(fig)
  plt.close = keep
  try:
    written = report.plot_curves(rows, str(tmp_path / "c.png"), **kwargs)
  finally:
    plt.close = close
  return captured["fig"], written


def test_curves_show_judged_variants_a_visible_zero_line_and_a_legend_below(tmp_path):
  rows = _rows() + [dict(r, variant="current", primary=False, metric=r["metric"] * 5)
                    for r in _rows()]
  fig, written = _axes_of(rows, tmp_path, ref={"value": 0.0, "label": "Nash"},
                          formats=("png", "svg"))
  assert written == [str(tmp_path / "c.png"), str(tmp_path / "c.svg")]
  assert (tmp_path / "c.svg").read_text().lstrip().startswith("<?xml")
  ax = fig.axes[0]
  labels = [t.get_text() for t in fig.legends[0].get_texts()]
  assert labels == ["cfr (average)", "reference: 0, Nash"]  # judged variant only
  low, high = ax.get_ylim()
  assert ax.get_yscale() == "symlog" and low < 0.0 < high  # the line at 0 is inside the axes
  # the legend is below both panels: its top is under the lowest axes' bottom
  fig.canvas.draw()
  legend_box = fig.legends[0].get_window_extent()
  assert legend_box.y1 <= min(a.get_window_extent().y0 for a in fig.axes)
  fig, _ = _axes_of(rows, tmp_path, all_variants=True)
  assert len(fig.legends[0].get_texts()) == 2  # cfr (average), cfr (current)


def test_provenance_names_the_command_versions_and_machine():
  prov = report.provenance(["ospiel-team-compare", "--game", "kuhn_poker"])
  assert prov["command"] == ["ospiel-team-compare", "--game", "kuhn_poker"]
  import numpy  # noqa: PLC0415
  assert prov["versions"]["numpy"] == numpy.__version__
  assert prov["machine"]["cores"] == os.cpu_count()
  assert prov["date"][:4].isdigit() and "T" in prov["date"]
  # Run from a git checkout: HEAD's commit, and whether the package differs from it; from a
  # copy of the source that is no checkout (or an installed package): no commit.
  repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(report.__file__))))
  top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                       text=True, cwd=repo).stdout.strip()
  if top and os.path.samefile(top, repo):
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          cwd=repo).stdout.strip()
    assert prov["commit"] == head and isinstance(prov["uncommitted_package_changes"], bool)
  else:
    assert prov["commit"] is None and prov["uncommitted_package_changes"] is None


def test_spreads_of_floating_point_noise_print_as_zero():
  assert report.format_number(1.3e-16) == "0" and report.format_number(-2e-17) == "0"
  assert report.format_number(2.5e-9) == "2.5e-09" and report.format_number(0.123456) == "0.1235"
  # deterministic seeds that agree: the Student-t half-width is 0 (not 1e-16) in the table
  rows = [dict(r, metric=0.1 + 1e-17 * r["seed"]) for r in _rows()]
  line = [x for x in report.markdown_table(rows).splitlines() if x.startswith("| cfr")][0]
  assert line.split(" | ")[3] == "0"


def test_runs_short_of_their_budget_are_flagged():
  rows = _rows()  # both seeds' last checkpoint: iteration 10, 1.0 s
  infos = [dict(solver="cfr", seed=0, excluded_cpu_seconds={}, eval_cpu_seconds=0.0,
                solver_cpu_seconds=2.0, iterations_run=10, budget_seconds=2.0),
           dict(solver="cfr", seed=1, excluded_cpu_seconds={}, eval_cpu_seconds=0.0,
                solver_cpu_seconds=2.0, iterations_run=17, budget_seconds=2.0)]
  text = report.markdown_table(rows, infos)
  assert "**Runs whose last checkpoint is short of their budget**" in text
  assert "- `cfr` seed 1: last checkpoint at iteration 10, 1 s; the run went on to " \
         "iteration 17, 2 s" in text
  assert "`cfr` seed 0" not in text
  infos[1]["iterations_run"] = 10
  assert "Every run's last checkpoint is at the end of its budget." in report.markdown_table(
      rows, infos)
  # a record without the count (before it was kept): a used-up seconds budget past the last
  # checkpoint is flagged all the same
  old = [{k: v for k, v in i.items() if k != "iterations_run"} for i in infos]
  assert "- `cfr` seed 0: last checkpoint at iteration 10, 1 s; the run went on to 2 s" in (
      report.markdown_table(rows, old))


def test_a_solver_has_one_colour_in_every_figure(tmp_path):
  """xfp's curve has the same colour alone and after cfr (not the next colour of a cycle)."""
  def xfp_rows(seed_rows):
    return [dict(r, solver="xfp") for r in seed_rows]
  fig_alone, _ = _axes_of(xfp_rows(_rows()), tmp_path)
  fig_after, _ = _axes_of(_rows() + xfp_rows(_rows()), tmp_path)

  def colour_of(fig, label):
    handles, labels = fig.axes[1].get_legend_handles_labels()
    return handles[labels.index(label)].get_color()
  assert colour_of(fig_alone, "xfp (average)") == colour_of(fig_after, "xfp (average)")
  assert colour_of(fig_after, "cfr (average)") != colour_of(fig_after, "xfp (average)")
  assert len(set(report.SOLVER_COLORS.values())) == len(report.SOLVER_COLORS)


def test_mean_curve_interpolates_between_checkpoints_and_marks_shared_ones():
  """Seed 0 at iterations 1, 10, 100; seed 1 at 1, 100: at 10, seed 1's value is halfway
  between its checkpoints in log x (the straight segment the log axis draws)."""
  def run(points):
    return [dict(iteration=i, seconds=0.0, metric=m) for i, m in points]
  per_seed = {0: run([(1, 1.0), (10, 0.4), (100, 0.2)]), 1: run([(1, 1.0), (100, 0.6)])}
  x, mean, marked = report.mean_curve(per_seed, "iteration")
  assert x.tolist() == [1, 10, 100]
  assert mean == pytest.approx([1.0, (0.4 + 0.8) / 2, 0.4])
  assert marked.tolist() == [True, False, True]
  # in log y: seed 1 at 10 is the geometric midpoint sqrt(1.0 * 0.6)
  _, mean, _ = report.mean_curve(per_seed, "iteration", log_y=True)
  assert mean[1] == pytest.approx((0.4 + math.sqrt(0.6)) / 2)


def test_iterations_axis_names_nfsps_unit():
  rows = [dict(solver="nfsp", iteration=3, episodes=60.0), dict(solver="cfr", iteration=3)]
  assert report.iterations_label(rows) == (
      "iterations (each solver's own unit, see results.md; nfsp: 20 episodes)")


def test_provenance_keeps_no_absolute_path_of_the_machine():
  repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(report.__file__))))
  script = os.path.join(repo, "benchmarks", "runner_figures.py")
  assert report.provenance([script, "--out", "x"])["command"] == [
      os.path.join("benchmarks", "runner_figures.py"), "--out", "x"]
  assert report.provenance(["/opt/venv/bin/ospiel-team-compare", "--game", "kuhn_poker"])[
      "command"] == ["ospiel-team-compare", "--game", "kuhn_poker"]
