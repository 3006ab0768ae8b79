r"""The comparison runner's example figures and their records (`docs/results/runner.md`).

Runs `ospiel-team-compare` (a subprocess, the command a user runs) for the default job and on a
cooperative game, a two-team zero-sum game and a two-player zero-sum game with small settings
(a few minutes in all on 2 cores), copies each `curves.png` to `docs/img/runner_<name>.png` and
writes the record `results/runner/<name>.json`: the command, the provenance (commit,
date, cores, load average before and after), the reference line, each (solver, variant)'s
final metric over seeds (mean, 95% half-width, iterations, solver CPU seconds), and every run's
last checkpoint against its budget.

Usage:
  python benchmarks/runner_figures.py [--only zero_sum,team] [--out out/runner_figures] \
      [--img docs/img] [--records results/runner]
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time

from absl import app
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_string("out", "out/runner_figures", "Folder of the runs (one per figure).")
flags.DEFINE_string("img", "docs/img", "Folder the PNGs are copied to.")
flags.DEFINE_string("records", "results/runner", "Folder of the JSON records.")
flags.DEFINE_list("only", [], "Run only these figures (default: all).")
flags.DEFINE_list("override", [], "NAME=VALUE pairs replacing (or adding) a figure's "
                  "ospiel-team-compare flag --NAME, e.g. seeds=1,seconds=0.1 for a quick run "
                  "(whose records are not the page's).")

# name -> the command's arguments: equal CPU-second budgets per run (JIT, setup excluded)
FIGURES = {
    "default": [],
    "cooperative": ["--game", "mini_bridge(size=3)", "--solvers", "cfr,cfr_plus,jps,cfr+jps",
                    "--seconds", "2", "--num_points", "8", "--seeds", "3"],
    "team": ["--game", "kuhn_poker(players=3)", "--teams", "0,1|2",
             "--solvers", "cfr,cfr_plus,xfp,team_lp", "--seconds", "1.5", "--num_points", "8",
             "--seeds", "3"],
    "zero_sum": ["--game", "kuhn_poker", "--solvers",
                 "cfr,cfr_plus,tree_cfr_plus,dcfr,xfp,mmd,ed", "--seconds", "1",
                 "--num_points", "10", "--seeds", "3"],
}


def summarize(results: dict) -> dict:
  """The record's numbers from a runner `results.json`: finals per (solver, variant), runs.

  Args:
    results: the parsed `results.json` of one comparison.

  Returns:
    {"finals": one dict per (solver, variant), "runs": one dict per (solver, seed), with
    its last judged checkpoint's extra fields (NFSP's episodes and CPU split)}.
  """
  from ospiel_team.runner import registry
  from ospiel_team.runner import report
  rows, infos = results["rows"], results["runs"]
  finals = []
  for (solver, variant), per_seed in report.series(rows).items():
    last = [pts[-1] for pts in per_seed.values()]
    mean, half = report.mean_ci([r["metric"] for r in last])
    finals.append(dict(solver=solver, variant=variant, primary=bool(last[0].get("primary")),
                       source=registry.spec(solver).source,
                       seeded=registry.spec(solver).seeded, seeds=len(last), mean=mean,
                       half_width=None if half != half else half,
                       iterations=sum(r["iteration"] for r in last) / len(last),
                       seconds=sum(r["seconds"] for r in last) / len(last)))
  last_of = {}
  for r in rows:
    if r.get("primary"):
      last_of[(r["solver"], r["seed"])] = r
  extras = ("episodes", "env_cpu_seconds", "agent_cpu_seconds", "reservoir_size_p0")
  runs = [dict(solver=i["solver"], seed=i["seed"],
               last_checkpoint_iteration=last_of[(i["solver"], i["seed"])]["iteration"],
               last_checkpoint_seconds=last_of[(i["solver"], i["seed"])]["seconds"],
               iterations_run=i.get("iterations_run"), budget_seconds=i.get("budget_seconds"),
               solver_cpu_seconds=i["solver_cpu_seconds"],
               excluded_cpu_seconds=i["excluded_cpu_seconds"],
               short=bool(report.short_runs([i], rows)),
               extra={k: last_of[(i["solver"], i["seed"])][k] for k in extras
                      if k in last_of[(i["solver"], i["seed"])]})
          for i in infos]
  return {"finals": finals, "runs": runs}


def with_overrides(args: list[str], overrides: list[str]) -> list[str]:
  """`args` with each `NAME=VALUE` of `overrides` replacing (or adding) the flag `--NAME`.

  Args:
    args: a figure's ospiel-team-compare arguments.
    overrides: `NAME=VALUE` strings.

  Returns:
    The new argument list (`args` is left as it is).

  Raises:
    ValueError: naming the item, if one is not NAME=VALUE.
  """
  out = list(args)
  for item in overrides:
    name, sep, value = item.partition("=")
    if not sep or not name or name.startswith("-"):
      raise ValueError(f"--override {item!r}: not NAME=VALUE")
    flag = f"--{name}"
    if flag in out:
      out[out.index(flag) + 1] = value
    else:
      out += [flag, value]
  return out


def main(argv):
  del argv
  repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  unknown = [n for n in FLAGS.only if n not in FIGURES]
  if unknown:
    print(f"error: --only {','.join(unknown)}: not a figure ({', '.join(FIGURES)})",
          file=sys.stderr)
    return 2
  try:
    figures = {name: with_overrides(args, FLAGS.override) for name, args in FIGURES.items()}
  except ValueError as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  from ospiel_team import atomic_io
  os.makedirs(FLAGS.img, exist_ok=True)
  os.makedirs(FLAGS.records, exist_ok=True)
  for name, args in figures.items():
    if FLAGS.only and name not in FLAGS.only:
      continue
    out = os.path.join(FLAGS.out, name)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "ospiel_team.cli.compare", *args, "--out", out]
    load_before = os.getloadavg()[0]
    wall = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=repo, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - wall
    load_after = os.getloadavg()[0]
    target = os.path.join(FLAGS.img, f"runner_{name}.png")
    shutil.copyfile(os.path.join(out, "curves.png"), target)
    with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
      results = json.load(f)
    prov = results["provenance"]
    prov["machine"]["load_average_before"] = round(load_before, 2)
    prov["machine"]["load_average_after"] = round(load_after, 2)
    command = "ospiel-team-compare " + shlex.join(args + ["--out", out])
    record = dict(name=name, command=command, figure=f"docs/img/runner_{name}.png",
                  wall_seconds=round(wall, 1),
                  provenance=prov, game=results["rows"][0]["game"],
                  metric=results["rows"][0]["metric_name"], reference=results["reference"],
                  **summarize(results))
    path = os.path.join(FLAGS.records, f"{name}.json")
    atomic_io.write_text(path, json.dumps(record, indent=1) + "\n")
    short = [r for r in record["runs"] if r["short"]]
    print(f"{target}, {path}: {command}\n  commit {prov['commit']}"
          f"{' + uncommitted changes' if prov['uncommitted_package_changes'] else ''}, "
          f"{prov['date']}, load {load_before:.2f} before / {load_after:.2f} after; "
          f"{len(short)} runs short of their budget")
  return 0


if __name__ == "__main__":
  app.run(lambda argv: sys.exit(main(argv)))
