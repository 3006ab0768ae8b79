r"""Exploitability Descent against CFR, CFR+, XFP and NFSP: Figure 1 of the ED paper.

Runs each solver on each game for a budget of solver CPU seconds (process CPU time, all
threads: robust on a shared machine where wall time depends on the other jobs; wall seconds
are recorded too). Metric evaluation and the JIT compilation that ED reports are not counted;
NFSP's own JIT compilation is, as the runner cannot separate it. It plots NashConv against
iterations and against CPU seconds, log-log, one panel per game, like Figure 1 of Lockhart
et al., "Computing Approximate Equilibria in Sequential Adversarial Games by Exploitability
Descent", IJCAI 2019, arXiv:1903.05614.
The solvers are those of the comparison runner (`ospiel_team.runner`: OpenSpiel's CFR, CFR+,
XFP and JAX NFSP, and our `ed` / `neural_ed`); the NashConv is computed on the array game tree.
Each solver is plotted with its usual output policy: the average policy of CFR, CFR+, XFP and
NFSP, the current policy of ED (ED has no average).

Example (the command behind the results page's Figure 1 and `results/ed/figure1.json`):
  nice -n 10 python benchmarks/ed_experiments.py --out out/ed_experiments \
      --record results/ed/figure1.json

Small run:
  python benchmarks/ed_experiments.py --games kuhn_poker --seconds 2 --game_seconds "" \
      --solvers ed,cfr --out /tmp/ed_small

Writes OUT/results.json (rows as the comparison runner writes them, plus `label`), OUT/results.md
(final NashConv, iterations and seconds of each solver per game, and the equal-iteration and
equal-time comparisons) and OUT/ed_figure1.png; with --record, also a compact record (command,
commit, date, machine and load; per game and solver the final NashConv, iterations, seconds and
the curve of the judged policy) that the results page renders. With --resume, (game, solver)
pairs already in OUT/results.json with the same budget are not run again.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from typing import Any

import numpy as np
import pyspiel
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.cli import compare as compare_cli
from ospiel_team.runner import api
from ospiel_team.runner import metrics
from ospiel_team.runner import registry
from ospiel_team.tree.game_tree import GameTree

GOOFSPIEL = "goofspiel(imp_info=True,num_cards=4,points_order=descending)"
DEFAULT_GAMES = ["kuhn_poker", "leduc_poker", "liars_dice", GOOFSPIEL]
# CPU seconds per (game, solver) in the default run (about 6 CPU minutes in all, with compile,
# metrics and the first iterations of CFR/XFP on liars_dice that overrun the budget).
DEFAULT_GAME_SECONDS = "kuhn_poker=4;leduc_poker=15;liars_dice=20;goofspiel=8"
SHORT_NAMES = {GOOFSPIEL: "goofspiel_4_imp_desc"}

flags.DEFINE_string("games", ";".join(DEFAULT_GAMES),
                    "Games separated by ';' (simultaneous games are loaded turn-based).")
flags.DEFINE_float("seconds", 10.0, "Solver seconds per (game, solver) unless in game_seconds.")
flags.DEFINE_string("game_seconds", DEFAULT_GAME_SECONDS,
                    "Per-game budgets 'prefix=seconds;...' (a game matches by name prefix).")
flags.DEFINE_integer("max_iterations", 100_000, "Iteration cap of every solver.")
flags.DEFINE_bool("resume", False, "Skip (game, solver) pairs already in OUT/results.json.")
flags.DEFINE_integer("seed", 0, "Random seed.")
flags.DEFINE_string("record", "", "Also write the compact record here (e.g. "
                    "results/ed/figure1.json); empty: none.")
# --solvers, --num_points, --solver_options and --out are the comparison runner's
# flags (defined by `ospiel_team.cli.compare.define_flags`), with this script's defaults (no
# solver options: tabular and neural ED run with their defaults).
compare_cli.define_flags(flags.FLAGS)
flags.FLAGS.set_default("solvers", ["ed", "neural_ed", "cfr", "cfr_plus", "xfp", "nfsp"])
flags.FLAGS.set_default("num_points", 60)
flags.FLAGS.set_default("out", "out/ed_experiments")
FLAGS = flags.FLAGS

FIRST_REACH = (0.5, 0.1, 0.03, 0.01)
# The policy each solver is judged by.
PRIMARY_VARIANT = {"ed": "current", "neural_ed": "current"}


def load_game(name: str) -> pyspiel.Game:
  """pyspiel.load_game, turned turn-based for simultaneous-move games."""
  game = pyspiel.load_game(name)
  if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
    game = pyspiel.load_game_as_turn_based(name)
  return game


def parse_game_seconds(text: str) -> dict[str, float]:
  out = {}
  for item in filter(None, (t.strip() for t in (text or "").split(";"))):
    if "=" not in item:
      raise ValueError(f"game_seconds item {item!r} is not of the form prefix=seconds")
    key, value = item.split("=", 1)
    seconds = float(value)
    if not seconds > 0:
      raise ValueError(f"game_seconds for {key!r} must be positive, got {value!r}")
    out[key.strip()] = seconds
  return out


def budget_for(name: str, default: float, table: dict[str, float]) -> float:
  for prefix, seconds in table.items():
    if name.startswith(prefix):
      return seconds
  return default


def label(name: str) -> str:
  return SHORT_NAMES.get(name, name)


def run_solver(game: pyspiel.Game, tree: GameTree, name: str, seconds: float,
               max_iterations: int, num_points: int, seed: int,
               options: dict[str, str], game_label: str) -> list[dict[str, Any]]:
  """Runs one comparison-runner solver until `seconds` of solver time have passed.

  Like `compare.run_all` (same solvers, snapshots, purified variant and metric), but stopping at
  the first checkpoint past the time budget instead of at a fixed iteration count.
  """
  fn = registry.spec(name).fn
  checkpoints = api.log_checkpoints(max_iterations, num_points)
  np.random.seed(seed)
  ctx = api.SolverContext(game=game, tree=tree, seed=seed, iterations=max_iterations,
                          checkpoints=checkpoints, options=dict(options))
  gen = fn(ctx)
  load_average = [round(x, 2) for x in os.getloadavg()]
  elapsed = elapsed_cpu = 0.0
  rows = []
  while elapsed_cpu < seconds:
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
      snap = next(gen)
    except StopIteration:
      break
    # JIT compilation that a solver reports (ED) is excluded from its budget and its seconds.
    first = not rows
    elapsed += time.perf_counter() - start - (
        snap.extra.get("compile_seconds", 0.0) if first else 0.0)
    elapsed_cpu += time.process_time() - start_cpu - (
        snap.extra.get("compile_cpu_seconds", 0.0) if first else 0.0)
    policies = dict(snap.policies)
    if "average" in policies and "purified" not in policies:
      policies["purified"] = tree.purified_policy_array(policies["average"])
    for variant, pi in policies.items():
      row = dict(solver=name, variant=variant, iteration=int(snap.iteration),
                 seconds=round(elapsed_cpu, 6), wall_seconds=round(elapsed, 6),
                 metric_name="nash_conv",
                 metric=metrics.nash_conv(tree, np.asarray(pi)), game=str(game),
                 label=game_label, seed=seed, budget_seconds=seconds,
                 primary=variant == PRIMARY_VARIANT.get(name, "average"))
      row.update(snap.extra)
      row["load_average"] = load_average
      rows.append(row)
  gen.close()
  return rows


def primary_rows(rows, game_label, solver):
  return [r for r in rows if r["label"] == game_label and r["solver"] == solver and r["primary"]]


def _value_at(points, key, limit):
  """Metric at the last checkpoint with points[key] <= limit (None if there is none)."""
  ok = [r for r in points if r[key] <= limit + 1e-9]
  return ok[-1]["metric"] if ok else None


def summary_markdown(rows: list[dict[str, Any]]) -> str:
  """Final NashConv per solver and game, and the equal-iteration / equal-time comparisons."""
  lines = []
  labels = list(dict.fromkeys(r["label"] for r in rows))
  for game_label in labels:
    solvers = list(dict.fromkeys(r["solver"] for r in rows if r["label"] == game_label))
    series = {s: primary_rows(rows, game_label, s) for s in solvers}
    series = {s: p for s, p in series.items() if p}
    budget = rows[[r["label"] for r in rows].index(game_label)]["budget_seconds"]
    lines += [f"### {game_label}", "",
              f"Budget {budget:g} CPU seconds per solver. NashConv of the primary policy "
              "(average for CFR/CFR+/XFP/NFSP, current for ED); lower is better.", "",
              "| solver | policy | iterations | CPU s | wall s | JIT compile s | final NashConv |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for s, pts in series.items():
      last = pts[-1]
      compile_s = last.get("compile_seconds")
      lines.append(f"| {s} | {last['variant']} | {last['iteration']} | {last['seconds']:.2f} |"
                   f" {last['wall_seconds']:.2f} |"
                   f" {'-' if compile_s is None else f'{compile_s:.1f}'} |"
                   f" {last['metric']:.4g} |")
    # Equal iterations: the largest checkpoint every non-NFSP solver reached (an NFSP
    # iteration is a batch of sampled episodes, not a sweep of the tree).
    sweeps = [s for s in series if s != "nfsp"]
    if len(sweeps) > 1:
      it_common = min(series[s][-1]["iteration"] for s in sweeps)
      cells = [f"{s} {_fmt(_value_at(series[s], 'iteration', it_common))}" for s in sweeps]
      lines += ["", f"Equal iterations ({it_common}): " + ", ".join(cells) + "."]
    if len(series) > 1:
      t_common = min(series[s][-1]["seconds"] for s in series)
      cells = [f"{s} {_fmt(_value_at(series[s], 'seconds', t_common))}" for s in series]
      lines += [f"Equal CPU time ({t_common:.2f} s): " + ", ".join(cells) + "."]
    # First checkpoint at or below each threshold: robust to ED's oscillating current policy,
    # which a single equal-iteration checkpoint is not.
    lines += ["", "| first iteration with NashConv <= | " + " | ".join(series) + " |",
              "|---|" + "---:|" * len(series)]
    for threshold in FIRST_REACH:
      cells = []
      for s in series:
        hit = next((r for r in series[s] if r["metric"] <= threshold), None)
        cells.append("-" if hit is None else f"{hit['iteration']} ({hit['seconds']:.2g} s)")
      lines.append(f"| {threshold:g} | " + " | ".join(cells) + " |")
    lines.append("")
    if "ed" in series and "neural_ed" in series:
      it_ed = min(series["ed"][-1]["iteration"], series["neural_ed"][-1]["iteration"])
      a = _value_at(series["ed"], "iteration", it_ed)
      b = _value_at(series["neural_ed"], "iteration", it_ed)
      best_a = min(r["metric"] for r in series["ed"])
      best_b = min(r["metric"] for r in series["neural_ed"])
      verdict = "better" if b is not None and a is not None and b < a else "not better"
      lines += [f"Neural vs tabular ED at {it_ed} iterations: neural {_fmt(b)}, tabular "
                f"{_fmt(a)} (at this checkpoint neural is {verdict}); best checkpoint "
                f"neural {best_b:.4g}, tabular {best_a:.4g}."]
    lines.append("")
  return "\n".join(lines)


def _fmt(v):
  return "n/a" if v is None else f"{v:.4g}"


def plot_figure(rows: list[dict[str, Any]], path: str) -> None:
  """Figure 1 layout: one column per game; NashConv vs iterations (top) and seconds (bottom)."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  labels = list(dict.fromkeys(r["label"] for r in rows))
  fig, axes = plt.subplots(2, len(labels), figsize=(4.2 * len(labels), 7.5), squeeze=False)
  styles = {"ed": "C0-", "neural_ed": "C1-", "cfr": "C2--", "cfr_plus": "C3--",
            "xfp": "C4-.", "nfsp": "C5:"}
  for col, game_label in enumerate(labels):
    solvers = list(dict.fromkeys(r["solver"] for r in rows if r["label"] == game_label))
    for s in solvers:
      pts = primary_rows(rows, game_label, s)
      if not pts:
        continue
      its = [r["iteration"] for r in pts]
      secs = [max(r["seconds"], 1e-4) for r in pts]
      vals = [max(r["metric"], 1e-12) for r in pts]
      name = f"{s} ({pts[-1]['variant']})"
      axes[0, col].plot(its, vals, styles.get(s, "-"), marker=".", markersize=3, label=name)
      axes[1, col].plot(secs, vals, styles.get(s, "-"), marker=".", markersize=3, label=name)
    axes[0, col].set_title(game_label, fontsize=10)
    for row, xlabel in enumerate(["iterations", "solver CPU seconds"]):
      ax = axes[row, col]
      ax.set_xscale("log")
      ax.set_yscale("log")
      ax.set_xlabel(xlabel)
      ax.grid(True, which="both", alpha=0.3)
      if col == 0:
        ax.set_ylabel("NashConv")
  axes[0, 0].legend(fontsize=7)
  fig.tight_layout()
  image = io.BytesIO()
  fig.savefig(image, format="png", dpi=110)
  plt.close(fig)
  atomic_io.write_bytes(path, image.getvalue())


def compact_record(rows: list[dict[str, Any]], command: str,
                   solver_options: str) -> dict[str, Any]:
  """The record the results page renders: provenance, and per game and solver the judged
  policy's final NashConv, iterations, seconds, load and curve.

  Args:
    rows: the run's rows (`run_solver`).
    command: the command line that produced them.
    solver_options: the --solver_options of the run.

  Returns:
    A JSON-serializable dict: `provenance` (command, commit, date, machine), `solver_options`,
    `games` = {label: {game, budget_cpu_seconds, solvers: {solver: {variant, iterations,
    cpu_seconds, wall_seconds, compile_seconds, nash_conv, load_average, curve}}}}, where
    `curve` lists [iteration, CPU seconds, NashConv] per checkpoint.
  """
  from ospiel_team.runner import report
  record: dict[str, Any] = dict(provenance=report.provenance(command.split(" ")),
                                solver_options=solver_options, games={})
  record["provenance"]["command"] = command
  for game_label in dict.fromkeys(r["label"] for r in rows):
    first = next(r for r in rows if r["label"] == game_label)
    entry = dict(game=first["game"], budget_cpu_seconds=first["budget_seconds"], solvers={})
    for solver in dict.fromkeys(r["solver"] for r in rows if r["label"] == game_label):
      pts = primary_rows(rows, game_label, solver)
      if not pts:
        continue
      last = pts[-1]
      entry["solvers"][solver] = dict(
          variant=last["variant"], iterations=last["iteration"], cpu_seconds=last["seconds"],
          wall_seconds=last["wall_seconds"], compile_seconds=last.get("compile_seconds"),
          nash_conv=last["metric"], load_average=last.get("load_average"),
          curve=[[r["iteration"], r["seconds"], r["metric"]] for r in pts])
    record["games"][game_label] = entry
  return record


def write_outputs(rows: list[dict[str, Any]], out_dir: str, command: str) -> None:
  os.makedirs(out_dir, exist_ok=True)
  atomic_io.write_text(os.path.join(out_dir, "results.json"), json.dumps(rows, indent=1))
  header = (f"Command: `{command}`\n\nRun at {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            f" on {os.cpu_count()} CPU cores.\n\n")
  atomic_io.write_text(os.path.join(out_dir, "results.md"), header + summary_markdown(rows))
  if rows:
    plot_figure(rows, os.path.join(out_dir, "ed_figure1.png"))


def _checked_flags():
  """The run's games, per-game budgets and solver options; ValueError on a bad flag value."""
  games = [g.strip() for g in FLAGS.games.split(";") if g.strip()]
  if not games:
    raise ValueError("--games: no games given")
  if FLAGS.max_iterations < 1:
    raise ValueError(f"--max_iterations must be >= 1, got {FLAGS.max_iterations}")
  if not FLAGS.seconds > 0:
    raise ValueError(f"--seconds must be positive, got {FLAGS.seconds}")
  for s in FLAGS.solvers:
    registry.spec(s)  # fails early on unknown names
  table = parse_game_seconds(FLAGS.game_seconds)
  options = api.parse_options(FLAGS.solver_options)
  atomic_io.check_writable(FLAGS.out, folder=True)
  if FLAGS.record:
    atomic_io.check_writable(FLAGS.record, flag="--record")
  return games, table, options


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  import tqdm
  try:
    games, table, options = _checked_flags()
  except ValueError as e:  # a user error: one line, no traceback (bugs keep theirs)
    print(f"ed_experiments: error: {e}", file=sys.stderr)
    sys.exit(2)
  results_path = os.path.join(FLAGS.out, "results.json")
  rows: list[dict[str, Any]] = []
  if FLAGS.resume and os.path.exists(results_path):
    with open(results_path) as f:
      rows = json.load(f)
  command = "python benchmarks/ed_experiments.py " + " ".join(
      f"--{k}={v!r}" if isinstance(v, str) else f"--{k}={v}"
      for k, v in [("games", FLAGS.games), ("solvers", ",".join(FLAGS.solvers)),
                   ("seconds", FLAGS.seconds), ("game_seconds", FLAGS.game_seconds),
                   ("max_iterations", FLAGS.max_iterations), ("seed", FLAGS.seed),
                   ("solver_options", FLAGS.solver_options), ("out", FLAGS.out)]
      + ([("record", FLAGS.record)] if FLAGS.record else []))
  pairs = [(g, s) for g in games for s in FLAGS.solvers]
  bar = tqdm.tqdm(pairs, desc="ed_experiments", unit=" runs")
  trees: dict[str, Any] = {}
  for name, solver in bar:
    seconds = budget_for(name, FLAGS.seconds, table)
    done = [r for r in rows if r["label"] == label(name) and r["solver"] == solver]
    if done and done[0]["budget_seconds"] == seconds:
      continue
    rows = [r for r in rows if not (r["label"] == label(name) and r["solver"] == solver)]
    bar.set_postfix(game=label(name), solver=solver)
    if name not in trees:
      trees.clear()  # one tree in memory at a time
      game = load_game(name)
      trees[name] = (game, GameTree(game))
    game, tree = trees[name]
    rows += run_solver(game, tree, solver, seconds, FLAGS.max_iterations, FLAGS.num_points,
                       FLAGS.seed, options, label(name))
    write_outputs(rows, FLAGS.out, command)
  write_outputs(rows, FLAGS.out, command)
  if FLAGS.record:
    record = compact_record(rows, command, FLAGS.solver_options)
    atomic_io.write_text(FLAGS.record, json.dumps(record, indent=1) + "\n")
    print(f"Wrote the record {FLAGS.record}")
  print(summary_markdown(rows))
  print(f"Wrote {FLAGS.out}/results.json, results.md, ed_figure1.png")


if __name__ == "__main__":
  app.run(main)
