"""The runner's report: statistics over seeds, the Markdown table and the curves figure.

Rows are those of `execute.run_task` (one per checkpoint, policy variant and seed). Every file
is written atomically (`ospiel_team.atomic_io`).
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ospiel_team import atomic_io
from ospiel_team.runner import metrics
from ospiel_team.runner import registry

Row = dict[str, Any]


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
  """(mean, half-width of the 95% Student-t confidence interval); half-width nan for n < 2."""
  x = np.asarray(values, dtype=np.float64)
  if len(x) < 2:
    return float(x.mean()) if len(x) else math.nan, math.nan
  from scipy import stats  #
  half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
  return float(x.mean()), float(half)


def series(rows: list[Row]) -> dict[tuple[str, str], dict[int, list[Row]]]:
  """(solver, variant) -> seed -> that run's rows in checkpoint order."""
  out: dict[tuple[str, str], dict[int, list[Row]]] = {}
  for r in rows:
    out.setdefault((r["solver"], r["variant"]), {}).setdefault(r["seed"], []).append(r)
  return out


def format_number(x: float | None) -> str:
  """Four significant digits; "—" for None or nan."""
  return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4g}"


def step_band(per_seed: dict[int, list[Row]], xkey: str) -> tuple[np.ndarray, np.ndarray]:
  """A common x grid and each seed's metric held from its last checkpoint (seeds x grid).

  Args:
    per_seed: seed -> rows in checkpoint order (one value of `series`).
    xkey: "iteration" or "seconds".
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
  """Final metric per (solver, variant): mean and 95% CI over seeds, budgets and timings."""
  if not rows:
    return "(no results)\n"
  metric = rows[0]["metric_name"]
  seeds = sorted({r["seed"] for r in rows})
  better = "lower" if metric in metrics.LOWER_IS_BETTER else "higher"
  lines = [f"Game: `{rows[0]['game']}`; metric: {metric} ({better} is better); "
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
    lines.append(f"| {solver} | {name} | {m:.6g} | {format_number(h)} | {its:.0f} | "
                 f"{secs:.3g} | {format_number(float(excl))} | {format_number(float(ev))} |")
  lines += ["", "Bold: the variant a solver is judged by. What one iteration is:", ""]
  for solver in dict.fromkeys(r["solver"] for r in rows):
    lines.append(f"- `{solver}`: {registry.spec(solver).unit}")
  return "\n".join(lines) + "\n"


def plot_curves(rows: list[Row], path: str, ref: dict[str, Any] | None = None) -> None:
  """Mean metric and 95% band over seeds against iterations and solver CPU seconds (a PNG)."""
  import matplotlib  #
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt  #
  from scipy import stats  #
  fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
  metric = rows[0]["metric_name"] if rows else ""
  colors: dict[str, str] = {}
  cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
  for (solver, variant), per_seed in series(rows).items():
    color = colors.setdefault(solver, cycle[len(colors) % len(cycle)])
    primary = next(iter(per_seed.values()))[0].get("primary", variant == "average")
    style = "-" if primary else {"purified": ":", "current": "--", "average": "--"}.get(
        variant, "-.")
    for ax, xkey in zip(axes, ["iteration", "seconds"], strict=True):
      x, vals = step_band(per_seed, xkey)
      mean = vals.mean(axis=0)
      label = f"{solver} {variant}"
      if len(x) == 1:
        ax.plot(x, mean, "o", color=color, label=label)
        continue
      ax.plot(x, mean, style, color=color, lw=2 if primary else 1, label=label)
      if vals.shape[0] > 1 and primary:  # bands for the judged variant only
        half = (stats.t.ppf(0.975, vals.shape[0] - 1) * vals.std(axis=0, ddof=1)
                / math.sqrt(vals.shape[0]))
        low = mean - half
        if metric in metrics.LOWER_IS_BETTER:
          low = np.maximum(low, 0.0)  # NashConv is never negative
        ax.fill_between(x, low, mean + half, color=color, alpha=0.15, lw=0)
  for ax, xlabel in zip(axes, ["iterations", "solver CPU seconds"], strict=True):
    if ref is not None:
      ax.axhline(ref["value"], color="k", lw=1, ls="--", label=f"reference: {ref['label']}")
    ax.set_xscale("log")
    if metric == "nash_conv":
      ax.set_yscale("symlog", linthresh=1e-4)
      ax.set_ylim(bottom=0.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(metric)
    ax.grid(True, alpha=0.3)
  axes[1].legend(fontsize=6, loc="best")
  seeds = len({r["seed"] for r in rows})
  fig.suptitle(f"{rows[0]['game'] if rows else ''}: mean over {seeds} seeds, 95% band of the "
               "judged variant (thick)")
  fig.tight_layout()
  image = io.BytesIO()
  fig.savefig(image, format="png", dpi=100)
  plt.close(fig)
  atomic_io.write_bytes(path, image.getvalue())


def write_outputs(rows: list[Row], out_dir: str, infos: list[dict[str, Any]] | None = None,
                  ref: dict[str, Any] | None = None) -> None:
  """Writes results.json, results.md and curves.png into `out_dir` (each atomically)."""
  atomic_io.write_text(os.path.join(out_dir, "results.json"), json.dumps(
      {"reference": ref, "runs": infos or [], "rows": rows}, indent=1))
  atomic_io.write_text(os.path.join(out_dir, "results.md"), markdown_table(rows, infos, ref))
  plot_curves(rows, os.path.join(out_dir, "curves.png"), ref)
