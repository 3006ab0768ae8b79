r"""The four-game comparison: every applicable solver, 5 seeds, equal CPU-second budgets.

Games: kuhn_poker and leduc_poker (NashConv, reference 0), mini_bridge(size=4) (common payoff:
value, reference the proven cooperative optimum) and kuhn_poker(players=3) with teams
0,1|2 (team_value_vs_br: team 1's value against a team best response, reference the TMECor
value). Solvers: CFR, CFR+, JAX CFR, XFP, NFSP, MMD (two-player zero-sum only), ED, neural ED,
JPS and CFR+ then JPS (the cooperative and team games), team LP (the zero-sum games: for two
one-player teams it is the Nash LP). Each (game, solver, seed) run gets the same solver CPU
seconds (JIT compilation, setup, snapshots and evaluation excluded and reported apart).

Usage (local process pool, then Ray on this machine):
  nice -n 10 python benchmarks/compare_four_games.py --seconds 3 --seeds 5 --out out/four
  nice -n 10 python benchmarks/compare_four_games.py --seconds 3 --seeds 5 --ray local \
      --out out/four_ray
Each game's results.md and curves.png are in OUT/<game>/; OUT/four_games.md and
OUT/four_games.png summarize the primary variant of every solver. Killed runs resume.
"""

import io
import json
import math
import os
import time

import numpy as np
import pyspiel
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.runner import comparison
from ospiel_team.runner import execute
from ospiel_team.runner import reference
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib

ZERO_SUM = ["cfr", "cfr_plus", "jax_cfr", "xfp", "nfsp", "mmd", "ed", "neural_ed", "team_lp"]
# (game, teams, solvers, solver options). Full-depth JPS on mini_bridge(size=4) needs more
# than 6 GB (measured: killed a worker); depth 3, the JPS paper's kind of limited search, needs
# ~0.1 GB and under a second.
GAMES = [
    ("kuhn_poker", None, ZERO_SUM, {}),
    ("leduc_poker", None, ZERO_SUM, {}),
    ("mini_bridge(size=4)", None,
     ["cfr", "cfr_plus", "jax_cfr", "xfp", "nfsp", "ed", "neural_ed", "jps", "cfr+jps"],
     {"jps.depth": "3"}),
    ("kuhn_poker(players=3)", "0,1|2",
     ["cfr", "cfr_plus", "jax_cfr", "xfp", "nfsp", "ed", "neural_ed", "cfr+jps", "team_lp"], {}),
]

flags.DEFINE_float("seconds", 3.0, "Solver CPU seconds per run.")
flags.DEFINE_string("seeds", "5", "Seeds (a count or a list).")
flags.DEFINE_integer("num_points", 8, "Checkpoints per run.")
flags.DEFINE_integer("workers", 0, "Processes (0 = all cores).")
flags.DEFINE_string("ray", None, "'local' or a Ray cluster address (default: process pool).")
flags.DEFINE_string("games", None, "Comma-free subset: indices '0 1 2 3' (default all).")
flags.DEFINE_list("solvers", [], "Run only these of each game's solvers (default: all).")
flags.DEFINE_string("out", "out/four_games", "Output directory (result store).")
FLAGS = flags.FLAGS


def _slug(game: str) -> str:
  return "".join(c if c.isalnum() else "_" for c in game).strip("_")


def main(argv):
  del argv
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  seeds = comparison.parse_seeds(FLAGS.seeds)
  chosen = ([GAMES[int(i)] for i in FLAGS.games.split()] if FLAGS.games else GAMES)
  workers = FLAGS.workers or os.cpu_count()
  fig, axes = plt.subplots(1, len(chosen), figsize=(5 * len(chosen), 4.2), squeeze=False)
  summary = [f"Budget {FLAGS.seconds:g} solver CPU s per run, seeds {seeds}, "
             f"{'Ray ' + FLAGS.ray if FLAGS.ray else f'process pool of {workers}'}.", ""]
  start = time.time()
  for ax, (game, teams, solvers, options) in zip(axes[0], chosen, strict=True):
    if FLAGS.solvers:
      solvers = [s for s in solvers if s in FLAGS.solvers]
      if not solvers:
        raise app.UsageError(f"--solvers {','.join(FLAGS.solvers)}: none is a solver of {game}")
    out = os.path.join(FLAGS.out, _slug(game))
    t0 = time.time()
    rows, infos = comparison.run_all(game, solvers, seconds=FLAGS.seconds, seeds=seeds,
                                  num_points=FLAGS.num_points, teams=teams, workers=workers,
                                  options=options,
                                  ray_address=FLAGS.ray, out=out)
    wall = time.time() - t0
    pg = pyspiel.load_game(game)
    team_obj = teams_lib.parse_teams(teams, pg.num_players()) if teams else None
    ref = reference.reference(pg, execute.tree_for(game), rows[0]["metric_name"], team_obj,
                              out_dir=out)
    report.write_outputs(rows, out, infos, ref)
    metric = rows[0]["metric_name"]
    summary += [f"### {game}" + (f", teams {teams}" if teams else ""),
                f"wall {wall:.0f} s for {len(infos)} runs; reference {ref['value']:.6g} "
                f"({ref['label']})", "",
                f"| solver (variant) | iterations | final {metric} | ± 95% CI | "
                "excluded CPU s |", "|---|---:|---:|---:|---:|"]
    by_run = {(i["solver"], i["seed"]): i for i in infos}
    for (solver, variant), per_seed in report.series(rows).items():
      if not next(iter(per_seed.values()))[0]["primary"] and variant != "jps":
        continue
      finals = [pts[-1] for pts in per_seed.values()]
      m, h = report.mean_ci([r["metric"] for r in finals])
      excl = np.mean([sum(by_run[(solver, k)]["excluded_cpu_seconds"].values())
                      for k in per_seed])
      summary.append(f"| {solver} ({variant}) | {np.mean([r['iteration'] for r in finals]):.0f}"
                     f" | {m:.4g} | {report.format_number(h)} | {excl:.1f} |")
      x, vals = report.step_band(per_seed, "seconds")
      if len(x) == 1:
        ax.plot(x, vals.mean(axis=0), "o", label=f"{solver} {variant}")
        continue
      mean = vals.mean(axis=0)
      line, = ax.plot(x, mean, label=f"{solver} {variant}")
      if vals.shape[0] > 1:
        from scipy import stats
        half = (stats.t.ppf(0.975, vals.shape[0] - 1) * vals.std(axis=0, ddof=1)
                / math.sqrt(vals.shape[0]))
        low = np.maximum(mean - half, 0.0) if metric == "nash_conv" else mean - half
        ax.fill_between(x, low, mean + half, color=line.get_color(), alpha=0.12, lw=0)
    summary.append("")
    ax.axhline(ref["value"], color="k", ls="--", lw=1, label="reference")
    ax.set_xscale("log")
    if metric == "nash_conv":
      ax.set_yscale("symlog", linthresh=1e-5)
      ax.set_ylim(bottom=0.0)
    ax.set_title(game + (f" teams {teams}" if teams else ""), fontsize=9)
    ax.set_xlabel("solver CPU seconds")
    ax.set_ylabel(metric)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
  summary.insert(1, f"Total wall {time.time() - start:.0f} s.")
  fig.tight_layout()
  image = io.BytesIO()
  fig.savefig(image, format="png", dpi=90)
  atomic_io.write_bytes(os.path.join(FLAGS.out, "four_games.png"), image.getvalue())
  atomic_io.write_text(os.path.join(FLAGS.out, "four_games.md"), "\n".join(summary) + "\n")
  print("\n".join(summary))
  print(json.dumps({"out": FLAGS.out}))


if __name__ == "__main__":
  app.run(main)
