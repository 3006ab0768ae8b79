r"""NFSP's real learning curve: NashConv against episodes and CPU minutes on Kuhn and Leduc.

Runs the comparison runner's `nfsp` solver (OpenSpiel's JAX NFSP, the runner's settings; see
`ospiel_team/runner/adapters/openspiel.py`) under a CPU-second budget per game, and splits the
cost of an episode into environment, agents (acting and learning) and evaluation (building the
average-policy array, plus NashConv on the array tree). Results go through the runner's store,
so a killed run resumes.

Usage:
  nice -n 10 python benchmarks/nfsp_curve.py --seconds 300 --seeds 2 \
      --out out/nfsp_curve --figure docs/img/nfsp_curve.png
"""

import io
import json
import os

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.runner import api
from ospiel_team.runner import comparison
from ospiel_team.runner import execute
from ospiel_team.runner import metrics
from ospiel_team.runner import report

flags.DEFINE_list("games", ["kuhn_poker", "leduc_poker"], "Games.")
flags.DEFINE_float("seconds", 300.0, "Solver CPU seconds per run.")
flags.DEFINE_string("seeds", "2", "Seeds (a count or a list).")
flags.DEFINE_integer("num_points", 16, "Checkpoints per run.")
flags.DEFINE_integer("workers", 0, "Processes (0 = all cores).")
flags.DEFINE_string("solver_options", "", "NFSP options, e.g. 'nfsp.episodes=50'.")
flags.DEFINE_string("out", "out/nfsp_curve", "Output directory (result store).")
flags.DEFINE_string("figure", None, "Where to save the figure (default OUT/nfsp_curve.png).")
FLAGS = flags.FLAGS

UNIFORM_NASH_CONV = {}  # filled from the tree: the uniform policy's NashConv


def main(argv):
  del argv
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  seeds = comparison.parse_seeds(FLAGS.seeds)
  options = api.parse_options(FLAGS.solver_options)
  fig, axes = plt.subplots(1, 2, figsize=(11, 4))
  lines = ["| game | seed | episodes | CPU min | NashConv start | NashConv end | uniform | "
           "env ms/ep | agent ms/ep | eval ms/ep | jit+setup s |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
  for game in FLAGS.games:
    out = os.path.join(FLAGS.out, game)
    rows, infos = comparison.run_all(game, ["nfsp"], seconds=FLAGS.seconds, seeds=seeds,
                                  num_points=FLAGS.num_points, options=options,
                                  workers=FLAGS.workers or os.cpu_count(), out=out)
    report.write_outputs(rows, out, infos, {"value": 0.0, "label": "Nash (NashConv 0)"})
    tree = execute.tree_for(game)
    uniform = metrics.nash_conv(tree, tree.uniform_policy_array())
    for info in infos:
      seed_rows = [r for r in rows if r["seed"] == info["seed"] and r["variant"] == "average"]
      last = seed_rows[-1]
      eps = last["episodes"]
      excl = info["excluded_cpu_seconds"]
      eval_ms = 1e3 * (excl.get("snapshot", 0.0) + info["eval_cpu_seconds"]) / eps
      lines.append(
          f"| {game} | {info['seed']} | {eps:.0f} | {last['seconds'] / 60:.2f} | "
          f"{seed_rows[0]['metric']:.3f} | {last['metric']:.3f} | {uniform:.3f} | "
          f"{1e3 * last['env_cpu_seconds'] / eps:.2f} | "
          f"{1e3 * last['agent_cpu_seconds'] / eps:.2f} | "
          f"{eval_ms:.2f} | {excl.get('jit', 0.0) + excl.get('setup', 0.0):.1f} |")
      label = f"{game} seed {info['seed']}"
      axes[0].plot([r["episodes"] for r in seed_rows], [r["metric"] for r in seed_rows],
                   label=label)
      axes[1].plot([r["seconds"] / 60 for r in seed_rows], [r["metric"] for r in seed_rows],
                   label=label)
    for ax in axes:
      ax.axhline(uniform, ls=":", lw=1, color="gray")
  for ax, xlabel in zip(axes, ["episodes", "solver CPU minutes"], strict=True):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("NashConv of the average policy")
    ax.grid(True, alpha=0.3)
  axes[1].legend(fontsize=7)
  fig.suptitle("OpenSpiel's JAX NFSP (runner settings); dotted: uniform policy")
  fig.tight_layout()
  figure = FLAGS.figure or os.path.join(FLAGS.out, "nfsp_curve.png")
  image = io.BytesIO()
  fig.savefig(image, format="png", dpi=100)
  atomic_io.write_bytes(figure, image.getvalue())
  table = "\n".join(lines) + "\n"
  atomic_io.write_text(os.path.join(FLAGS.out, "nfsp_curve.md"), table)
  print(table)
  print(json.dumps({"figure": figure}))


if __name__ == "__main__":
  app.run(main)
