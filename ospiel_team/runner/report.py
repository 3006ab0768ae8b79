"""The runner's report: statistics over seeds, the Markdown table and the curves figure.

Rows are those of `execute.run_task` (one per checkpoint, policy variant and seed). Every file
is written atomically (`ospiel_team.atomic_io`).
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team.errors import UserError
from ospiel_team.runner import metrics
from ospiel_team.runner import registry

Row = dict[str, Any]
FIGURE_FORMATS = ("png", "svg", "pdf")


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
  """(mean, half-width of the 95% Student-t confidence interval); half-width nan for n < 2.

  Args:
    values: one number per seed.

  Returns:
    `(mean, half_width)` (mean nan for no values).
  """
  x = np.asarray(values, dtype=np.float64)
  if len(x) < 2:
    return float(x.mean()) if len(x) else math.nan, math.nan
  from scipy import stats
  half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
  return float(x.mean()), float(half)


def series(rows: list[Row]) -> dict[tuple[str, str], dict[int, list[Row]]]:
  """(solver, variant) -> seed -> that run's rows in checkpoint order.

  Args:
    rows: the result rows (`execute.Row`), of one game.

  Returns:
    The nested dict, in the rows' order.
  """
  out: dict[tuple[str, str], dict[int, list[Row]]] = {}
  for r in rows:
    out.setdefault((r["solver"], r["variant"]), {}).setdefault(r["seed"], []).append(r)
  return out


def format_number(x: float | None, digits: int = 4) -> str:
  """Formats `x` with `digits` significant digits for a table.

  `digits` significant digits; "—" for None or nan; 0 for |x| < 1e-12 (a spread of
  floating-point noise, such as 1e-16 between seeds that agree, is 0).

  Args:
    x: the number, or None.
    digits: significant digits.

  Returns:
    The text.
  """
  if x is None or (isinstance(x, float) and math.isnan(x)):
    return "—"
  return "0" if abs(x) < 1e-12 else f"{x:.{digits}g}"


METRIC_KEY = {
    "nash_conv": "NashConv: the sum over players of what a best response to the others would "
                 "gain (0 at a Nash equilibrium; lower is better)",
    "team_value_vs_br": "team 1's summed return when team 2 best responds jointly (higher is "
                        "better; at most the TMECor value)",
    "value": "the common payoff, the number every player receives (higher is better)",
}
VARIANT_KEY = {
    "average": "the solver's average policy",
    "current": "its current (last-iterate) policy",
    "purified": "the average policy made pure: its most likely action at every infoset",
    "sampled": "one joint pure strategy per team drawn (seeded) from `team_lp`'s plan",
    "jps": "the current policy improved by Joint Policy Search",
}


def key(rows: list[Row]) -> str:
  """What results.md's numbers are: the metric, the policy variants, what a seed measures.

  Args:
    rows: the result rows (`execute.Row`), of one game.

  Returns:
    The key's Markdown lines, joined.
  """
  metric = rows[0]["metric_name"]
  lines = ["**Key.** Metric: " + METRIC_KEY.get(metric, metric) + ".", ""]
  variants = list(dict.fromkeys(r["variant"] for r in rows))
  solvers = list(dict.fromkeys(r["solver"] for r in rows))
  lines.append("Variants: " + "; ".join(
      f"*{v}*: {VARIANT_KEY.get(v, v)}" for v in variants) + "." + (
          " For `team_lp`, *average* is each player's marginal of its team's correlated plan."
          if "team_lp" in solvers else ""))
  fixed = [s for s in solvers if s in registry.api.REGISTRY and not registry.spec(s).seeded]
  if fixed:
    lines += ["", "Seeds: " + ", ".join(f"`{s}`" for s in fixed) +
              (" is" if len(fixed) == 1 else " are") + " deterministic (the seed changes "
              "nothing): their seeds differ only in where the CPU-second budget cut the run, so "
              "their spread measures the machine, not the algorithm."]
  return "\n".join(lines) + "\n"


def short_runs(infos: list[dict[str, Any]], rows: list[Row]) -> list[str]:
  """One line per run whose last checkpoint is short of the end of its budget.

  A run is short when it ran iterations after its last checkpoint (`iterations_run`), or,
  for runs recorded without that count, when its last checkpoint is below a CPU-second budget
  that the run used up.

  Args:
    infos: the per-run timing dicts of `comparison.run_all`.
    rows: the result rows (`execute.Row`), of one game.

  Returns:
    The lines, one per short run (empty when none).
  """
  last: dict[tuple[str, int], Row] = {}
  for r in rows:
    last[(r["solver"], r["seed"])] = r
  out = []
  for i in infos:
    r = last.get((i["solver"], i["seed"]))
    if r is None:
      continue
    ran = i.get("iterations_run")
    budget = i.get("budget_seconds")
    if ran is not None:
      short = r["iteration"] < ran
    else:
      short = (budget is not None and r["seconds"] < budget <= i.get("solver_cpu_seconds", 0))
    if short:
      out.append(f"- `{i['solver']}` seed {i['seed']}: last checkpoint at iteration "
                 f"{r['iteration']}, {r['seconds']:.3g} s; the run went on to "
                 f"{'' if ran is None else f'iteration {ran}, '}"
                 f"{i.get('solver_cpu_seconds', math.nan):.3g} s")
  return out


def step_band(per_seed: dict[int, list[Row]], xkey: str) -> tuple[np.ndarray, np.ndarray]:
  """A common x grid and each seed's metric held from its last checkpoint (seeds x grid).

  Args:
    per_seed: seed -> rows in checkpoint order (one value of `series`).
    xkey: "iteration" or "seconds".

  Returns:
    `(grid, values)`: the x grid from the latest first checkpoint on, and [num_seeds, len(grid)]
      each seed's step-held metric.
  """
  grid = sorted({max(r[xkey], 1e-9) for pts in per_seed.values() for r in pts})
  start = max(max(pts[0][xkey], 1e-9) for pts in per_seed.values())
  grid = [x for x in grid if x >= start]
  vals = []
  for pts in per_seed.values():
    xs = np.array([max(r[xkey], 1e-9) for r in pts])
    ys = np.array([r["metric"] for r in pts])
    idx = np.searchsorted(xs, grid, side="right") - 1
    vals.append(ys[np.maximum(idx, 0)])
  return np.asarray(grid), np.asarray(vals)


def markdown_table(rows: list[Row], infos: list[dict[str, Any]] | None = None,
                   ref: dict[str, Any] | None = None) -> str:
  """results.md: titled with its game and solvers, the final metric per (solver, variant).

  The mean and 95% CI over seeds of each (solver, variant)'s final checkpoint, with its
  iterations, budget and timings.

  Args:
    rows: the result rows (`execute.Row`), of one game.
    infos: the per-run timing dicts of `comparison.run_all` (None: none).
    ref: the reference, a dict with `value` and `label` (None: none).

  Returns:
    The Markdown text of results.md.
  """
  if not rows:
    return "(no results)\n"
  metric = rows[0]["metric_name"]
  seeds = sorted({r["seed"] for r in rows})
  better = "lower" if metric in metrics.LOWER_IS_BETTER else "higher"
  solvers = ", ".join(dict.fromkeys(r["solver"] for r in rows))
  lines = [f"# {rows[0]['game']}: {solvers}", "", key(rows),
           f"Game: `{rows[0]['game']}`; metric: {metric} ({better} is better); "
           f"{len(seeds)} seeds ({', '.join(map(str, seeds))}); mean ± 95% CI half-width "
           "(Student t) of each run's final checkpoint.", ""]
  if ref is not None:
    lines += [f"Reference: **{ref['value']:.6g}** — {ref['label']}.", ""]
  lines += [f"| solver | variant | {metric} | ± 95% CI | iterations | solver CPU s | "
            "excluded CPU s (JIT, snapshots) | eval CPU s |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
  by_run = {(i["solver"], i["seed"]): i for i in (infos or [])}
  for (solver, variant), per_seed in series(rows).items():
    finals = [pts[-1] for pts in per_seed.values()]
    m, h = mean_ci([r["metric"] for r in finals])
    its = np.mean([r["iteration"] for r in finals])
    secs = np.mean([r["seconds"] for r in finals])
    runs = [by_run[(solver, k)] for k in per_seed if (solver, k) in by_run]
    excl = (np.mean([sum(i["excluded_cpu_seconds"].values()) for i in runs]) if runs
            else math.nan)
    ev = np.mean([i["eval_cpu_seconds"] for i in runs]) if runs else math.nan
    name = f"**{variant}**" if finals[0].get("primary") else variant
    lines.append(f"| {solver} | {name} | {format_number(m, 6)} | {format_number(h)} | {its:.0f} | "
                 f"{secs:.3g} | {format_number(float(excl))} | {format_number(float(ev))} |")
  lines += ["", "Bold: the variant a solver is judged by. What one iteration is (a different "
            "unit per solver):", ""]
  for solver in dict.fromkeys(r["solver"] for r in rows):
    spec = registry.spec(solver)
    lines.append(f"- `{solver}` ({spec.source}'s): {spec.unit}")
  if infos and any("iterations_run" in i or "budget_seconds" in i for i in infos):
    short = short_runs(infos, rows)
    if short:
      lines += ["", "**Runs whose last checkpoint is short of their budget** (their final "
                "numbers are from before the budget ended):", ""] + short
    else:
      lines += ["", "Every run's last checkpoint is at the end of its budget."]
  return "\n".join(lines) + "\n"


def _portable_command(command: Sequence[str], repo: str) -> list[str]:
  """`command` with its program as a user types it.

  Relative to the repository, or the console script's name: a machine's absolute paths say
  nothing to a reader.
  """
  words = list(command)
  if words and os.path.isabs(words[0]):
    program = os.path.abspath(words[0])
    inside = os.path.commonpath([program, repo]) == repo
    words[0] = os.path.relpath(program, repo) if inside else os.path.basename(program)
  return words


def provenance(command: Sequence[str] | None = None) -> dict[str, Any]:
  """What produced a result: command line, versions, date, git commit (if any), machine.

  `commit` and `uncommitted_package_changes` (whether `ospiel_team/` differs from it) are None
  outside a git checkout (an installed package).

  Args:
    command: the command line (default: `sys.argv`).

  Returns:
    A JSON-ready dict: command, date, commit, uncommitted_package_changes, versions, machine.
  """
  import datetime
  import importlib.metadata
  import platform
  import subprocess
  import sys

  def version(dist: str) -> str | None:
    try:
      return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
      return None

  repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
  commit, dirty = None, None
  if os.path.exists(os.path.join(repo, ".git")):
    try:
      commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip() or None
      dirty = bool(subprocess.run(
          ["git", "-C", repo, "status", "--porcelain", "--untracked-files=no", "ospiel_team"],
          capture_output=True, text=True, timeout=10, check=True).stdout.strip())
    except (OSError, subprocess.SubprocessError):
      commit, dirty = None, None
  try:
    load = [round(x, 2) for x in os.getloadavg()]
  except OSError:
    load = None
  import numpy
  return dict(
      command=_portable_command(sys.argv if command is None else command, repo),
      date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
      commit=commit, uncommitted_package_changes=dirty,
      versions={"ospiel_team": version("ospiel-team") or version("ospiel_team"),
                "open_spiel": version("open_spiel"), "jax": version("jax"),
                "numpy": numpy.__version__, "python": platform.python_version()},
      machine={"cores": os.cpu_count(), "load_average": load, "platform": platform.platform()})


def short_commit() -> str:
  """The checkout's short commit, for a record.

  Returns:
    "abc1234", "abc1234+local changes" (the package differs from it) or "unknown" (not a git
    checkout).
  """
  prov = provenance([])
  if not prov["commit"]:
    return "unknown"
  return prov["commit"][:7] + ("+local changes" if prov["uncommitted_package_changes"] else "")


def judged_rows(rows: list[Row]) -> list[Row]:
  """The rows of the variant each solver is judged by (`primary`).

  Args:
    rows: the result rows (`execute.Row`), of one game.

  Returns:
    The rows marked `primary`, in order.
  """
  return [r for r in rows if r.get("primary")]


# One colour per solver in every figure (colour-blind-safe first, then distinct others).
SOLVER_COLORS = {
    "cfr": "#1f77b4", "cfr_plus": "#ff7f0e", "xfp": "#2ca02c", "nfsp": "#9467bd",
    "ed": "#8c564b", "mmd": "#d62728", "jax_cfr": "#7f7f7f", "jps": "#17becf",
    "cfr+jps": "#bcbd22", "team_lp": "#000000", "tree_cfr_plus": "#e377c2",
    "dcfr": "#393b79", "pcfr_plus": "#637939", "pdcfr_plus": "#843c39",
    "neural_ed": "#c49c94",
}
_SPARE_COLORS = ["#ffbb78", "#aec7e8", "#98df8a", "#ff9896", "#c5b0d5", "#f7b6d2"]


def solver_color(solver: str) -> str:
  """The colour of `solver` in every figure (`SOLVER_COLORS`; a stable spare otherwise).

  Args:
    solver: a solver name.

  Returns:
    A matplotlib colour.
  """
  if solver in SOLVER_COLORS:
    return SOLVER_COLORS[solver]
  digest = sum(ord(c) * (i + 1) for i, c in enumerate(solver))
  return _SPARE_COLORS[digest % len(_SPARE_COLORS)]


def mean_curve(per_seed: dict[int, list[Row]], xkey: str, log_y: bool = False
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """The seeds' mean metric against `xkey`, interpolated between each seed's checkpoints.

  Linear in log x (and in log y with `log_y`) between a seed's checkpoints, as the figure's
  axes draw a straight segment, on the union of their x values inside the range every seed
  covers (no seed is extrapolated).

  Args:
    per_seed: seed -> rows in checkpoint order (one value of `series`).
    xkey: "iteration" or "seconds".
    log_y: interpolate log(metric) (used when every value is positive on a log-like axis).

  Returns:
    (x, mean, marked): the grid, the mean on it, and a boolean mask of the grid points that are
    a checkpoint of every seed.
  """
  xs = [np.array([max(r[xkey], 1e-9) for r in pts], dtype=np.float64)
        for pts in per_seed.values()]
  ys = [np.array([r["metric"] for r in pts], dtype=np.float64) for pts in per_seed.values()]
  start, end = max(x[0] for x in xs), min(x[-1] for x in xs)
  grid = np.unique(np.concatenate(xs))
  grid = grid[(grid >= start) & (grid <= end)]
  if not grid.size:  # the seeds' ranges do not overlap: their last checkpoints
    grid = np.array([end])
  log_y = log_y and all((y > 0).all() for y in ys)
  vals = []
  for x, y in zip(xs, ys, strict=True):
    x, keep = np.unique(x, return_index=True)  # repeated x (several rows): the first
    at = np.interp(np.log(grid), np.log(x), np.log(y[keep]) if log_y else y[keep])
    vals.append(np.exp(at) if log_y else at)
  marked = np.array([all(np.isclose(g, x).any() for x in xs) for g in grid], dtype=bool)
  return grid, np.mean(vals, axis=0), marked


def iterations_label(rows: list[Row]) -> str:
  """The iterations axis' label: an iteration is each solver's own unit (NFSP: episodes).

  Args:
    rows: the result rows (`execute.Row`), of one game.

  Returns:
    The label text.
  """
  label = "iterations (each solver's own unit, see results.md"
  eps = {r["episodes"] / r["iteration"] for r in rows
         if r["solver"] == "nfsp" and r.get("episodes") and r["iteration"]}
  if len(eps) == 1:
    label += f"; nfsp: {next(iter(eps)):g} episodes"
  return label + ")"


def _symlog_threshold(values: np.ndarray) -> float:
  positive = values[values > 0]
  return float(10 ** np.floor(np.log10(positive.min()))) if positive.size else 1e-4


def plot_curves(rows: list[Row], path: str, ref: dict[str, Any] | None = None,
                *, all_variants: bool = False, formats: Sequence[str] = ("png",)) -> list[str]:
  """The curves figure: each seed's metric (thin) and their mean (thick) per solver.

  Two panels, against iterations (each solver's own unit, named under the axis) and against
  solver CPU seconds (log axes). Each seed's curve joins its checkpoints (small dots); the
  thick mean (`mean_curve`) is interpolated between them over the range every seed covers,
  with a marker where every seed has a checkpoint. Each solver has one colour in every figure
  (`solver_color`). No confidence band: with 2-3 seeds a
  Student-t band spans several times the spread of the seeds themselves, so the seeds are
  drawn instead. The y range is that of the mean curves and the reference line, widened by the
  seed values that are not outliers (Tukey's fences: one far-off seed is clipped at the axis
  rather than squashing every curve). NashConv uses a symlog axis whose linear part starts
  below 0, so that the reference line at 0 is visible. The legend sits below the axes.

  Args:
    rows: result rows (`execute.run_task`).
    path: the PNG's path; other formats are written beside it with their suffix.
    ref: the reference {"value", "label"} drawn as a dashed black line (None: none).
    all_variants: draw every variant (others dashed or dotted), not only the judged ones.
    formats: any of "png", "svg", "pdf".

  Returns:
    The paths written.
  """
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  bad = [f for f in formats if f not in FIGURE_FORMATS]
  if bad:
    raise ValueError(f"figure formats {bad} not supported; use png, svg or pdf")
  shown = rows if all_variants else judged_rows(rows)
  metric = rows[0]["metric_name"] if rows else ""
  seeds = sorted({r["seed"] for r in rows})
  fig, axes = plt.subplots(1, 2, figsize=(12, 5.2))
  symlog = metric in metrics.LOWER_IS_BETTER
  means, spread = _draw_curves(axes, shown, symlog)
  _format_axes(axes, metric, symlog, _y_range(means, spread, ref), means, ref,
               iterations_label(shown))
  handles, labels = axes[1].get_legend_handles_labels()
  fig.legend(handles, labels, loc="lower center", ncol=min(4, max(1, len(labels))),
             fontsize=10, frameon=False)
  what = "judged variant of each solver" if not all_variants else "every variant"
  fig.suptitle(f"{rows[0]['game'] if rows else ''}: {what}; thin: each of {len(seeds)} seeds "
               "(dots: its checkpoints), thick: their mean", fontsize=12)
  rows_of_legend = math.ceil(len(labels) / min(4, max(1, len(labels)))) if labels else 0
  fig.tight_layout(rect=(0, 0.05 + 0.045 * rows_of_legend, 1, 1))
  written = []
  stem = path[:-4] if path.endswith(".png") else path
  for fmt in ["png"] + [f for f in formats if f != "png"]:
    target = path if fmt == "png" else f"{stem}.{fmt}"
    image = io.BytesIO()
    fig.savefig(image, format=fmt, dpi=110)
    atomic_io.write_bytes(target, image.getvalue())
    written.append(target)
  plt.close(fig)
  return written


def _draw_curves(axes, shown: list[Row], symlog: bool
                 ) -> tuple[list[np.ndarray], list[np.ndarray]]:
  """Draws each (solver, variant)'s seeds and mean on both panels (iterations, seconds).

  Returns:
    (means, spread): every mean curve drawn, and every seed value of each curve (for the y
    range).
  """
  means, spread = [], []
  for (solver, variant), per_seed in series(shown).items():
    color = solver_color(solver)
    primary = next(iter(per_seed.values()))[0].get("primary", False)
    style = "-" if primary else {"current": "--", "purified": ":"}.get(variant, "-.")
    label = f"{solver} ({variant})"
    for ax, xkey in zip(axes, ["iteration", "seconds"], strict=True):
      x, mean, marked = mean_curve(per_seed, xkey, log_y=symlog)
      means.append(mean)
      spread.append(np.array([r["metric"] for pts in per_seed.values() for r in pts]))
      if len(x) == 1 and all(len(pts) == 1 for pts in per_seed.values()):
        ax.plot(x, mean, "o", color=color, ms=7, label=label if xkey == "seconds" else None)
        continue
      if primary and len(per_seed) > 1:  # each seed at its own checkpoints
        for pts in per_seed.values():
          ax.plot([max(r[xkey], 1e-9) for r in pts], [r["metric"] for r in pts], "-",
                  color=color, lw=0.7, alpha=0.45, marker=".", ms=3.5)
      ax.plot(x, mean, style, color=color, lw=2.2 if primary else 1.2,
              label=label if xkey == "seconds" else None)
      ax.plot(x[marked], mean[marked], "o", color=color, ms=4.5 if primary else 3)
  return means, spread


def _format_axes(axes, metric: str, symlog: bool, y_range: tuple[float, float],
                 means: list[np.ndarray], ref: dict[str, Any] | None,
                 iterations_xlabel: str) -> None:
  """Both panels' scales, limits, labels, grid, reference line and x tick labels."""
  import matplotlib.ticker
  lo, hi = y_range
  if symlog:
    thresh = _symlog_threshold(np.concatenate(means) if means else np.zeros(0))
  for ax, xlabel in zip(axes, [iterations_xlabel, "solver CPU seconds"], strict=True):
    if ref is not None:
      ax.axhline(ref["value"], color="k", lw=1.6, ls="--", zorder=5,
                 label=f"reference: {ref['value']:.4g}, {ref['label']}"
                 if ax is axes[1] else None)
    ax.set_xscale("log")
    if symlog:
      ax.set_yscale("symlog", linthresh=thresh)
      ax.set_ylim(-thresh, max(hi, thresh) * 1.6)
    else:
      pad = 0.06 * (hi - lo or max(abs(hi), 1.0))
      ax.set_ylim(lo - pad, hi + pad)
    ax.set_xlabel(xlabel, fontsize=11)
    ax.set_ylabel(metric + (" (lower is better)" if symlog else " (higher is better)"),
                  fontsize=11)
    ax.tick_params(labelsize=10)
    ax.grid(True, alpha=0.3)
  for ax in axes:  # under 1.5 decades, plain numbers at 2, 3, 5 too; else powers of ten only
    left, right = ax.get_xlim()
    if right / max(left, 1e-12) < 10 ** 1.5:
      ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_tick_label))
      ax.xaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(_tick_label))
    else:
      ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _tick_label(x: float, _=None) -> str:
  """A log axis' tick label at 1, 2, 3 and 5 times a power of ten ("" elsewhere)."""
  if x <= 0:
    return ""
  lead = round(x / 10 ** math.floor(math.log10(x) + 1e-9), 6)
  return f"{x:g}" if lead in (1, 2, 3, 5) else ""


def _y_range(means: list[np.ndarray], spread: list[np.ndarray],
             ref: dict[str, Any] | None) -> tuple[float, float]:
  """The y range of a plot of `means` and `spread`.

  The y range: every mean curve and the reference, plus the seed values within Tukey's
  fences (3 interquartile ranges) of all seed values.
  """
  pts = [np.asarray(m, dtype=np.float64) for m in means]
  if ref is not None:
    pts.append(np.array([ref["value"]]))
  if not pts:
    return 0.0, 1.0
  core = np.concatenate(pts)
  lo, hi = float(core.min()), float(core.max())
  if spread:
    allv = np.concatenate(spread)
    q1, q3 = np.percentile(allv, [25, 75])
    fence = 3.0 * (q3 - q1)
    inside = allv[(allv >= q1 - fence) & (allv <= q3 + fence)]
    if inside.size:
      lo, hi = min(lo, float(inside.min())), max(hi, float(inside.max()))
  return lo, hi


def summary_table(results: dict[str, tuple[list[Row], dict[str, Any] | None]]) -> str:
  """One Markdown table over several games: each solver's judged final metric (mean over seeds).

  Args:
    results: game string -> (its rows, its reference or None).

  Returns:
    The Markdown table.
  """
  solvers = list(dict.fromkeys(r["solver"] for rows, _ in results.values() for r in rows))
  lines = ["| game | metric | reference | " + " | ".join(solvers) + " |",
           "|---|---|---:|" + "---:|" * len(solvers)]
  for game, (rows, ref) in results.items():
    final = {}
    for (solver, _), per_seed in series(judged_rows(rows)).items():
      final[solver] = float(np.mean([pts[-1]["metric"] for pts in per_seed.values()]))
    metric = rows[0]["metric_name"] if rows else ""
    cells = [format_number(final.get(s)) for s in solvers]
    lines.append(f"| `{game}` | {metric} | "
                 f"{format_number(ref['value'] if ref else None)} | " + " | ".join(cells) + " |")
  return "\n".join(lines) + "\n"


def _check_output_arguments(rows, out_dir, infos, ref, all_variants, formats, command) -> None:
  """`write_outputs`' arguments checked by type (UserError naming the first bad one)."""

  def dicts(name: str, value: Any, allow_none: bool) -> None:
    if value is None and allow_none:
      return
    if not isinstance(value, (list, tuple)) or not all(isinstance(r, Mapping) for r in value):
      raise UserError(f"{name} must be a list of dicts{' or None' if allow_none else ''}, got "
                      f"{type(value).__name__} {value!r:.80}")

  dicts("rows", rows, False)
  checks.check_type("out_dir", out_dir, (str, os.PathLike), "a folder path")
  dicts("infos", infos, True)
  checks.check_type("ref", ref, (Mapping, type(None)),
                    "a reference {'value': ..., 'label': ...} or None")
  checks.check_bool("all_variants", all_variants)
  if isinstance(formats, (str, bytes)) or not isinstance(formats, Sequence):
    raise UserError(f"formats must be a list of figure formats (png, svg, pdf), got "
                    f"{type(formats).__name__} {formats!r:.80}")
  for f in formats:
    checks.check_choice("formats", f, FIGURE_FORMATS)
  if command is not None and (isinstance(command, (str, bytes))
                              or not isinstance(command, Sequence)
                              or not all(isinstance(c, str) for c in command)):
    raise UserError(f"command must be a list of strings (the command line) or None, got "
                    f"{type(command).__name__} {command!r:.80}")


def write_outputs(rows: list[Row], out_dir: str, infos: list[dict[str, Any]] | None = None,
                  ref: dict[str, Any] | None = None, *, all_variants: bool = False,
                  formats: Sequence[str] = ("png",),
                  command: Sequence[str] | None = None) -> None:
  """Writes results.json, results.md and curves.png (+ other formats) into `out_dir`.

  Each file is written atomically; results.json starts with `provenance(command)`.

  Args:
    rows: the result rows (`execute.Row`), of one game.
    out_dir: the existing folder to write into.
    infos: the per-run timing dicts of `comparison.run_all` (None: none).
    ref: the reference, a dict with `value` and `label` (None: none).
    all_variants: plot every policy variant (else the judged ones).
    formats: the figure's file formats.
    command: the command line recorded in the provenance (None: `sys.argv`).

  Raises:
    UserError: a bad argument, named, before anything is written.
  """
  _check_output_arguments(rows, out_dir, infos, ref, all_variants, formats, command)
  atomic_io.write_text(os.path.join(out_dir, "results.json"), json.dumps(
      {"provenance": provenance(command), "reference": ref, "runs": infos or [], "rows": rows},
      indent=1))
  atomic_io.write_text(os.path.join(out_dir, "results.md"), markdown_table(rows, infos, ref))
  plot_curves(rows, os.path.join(out_dir, "curves.png"), ref, all_variants=all_variants,
              formats=formats)
