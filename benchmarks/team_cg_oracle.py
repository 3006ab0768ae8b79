r"""Column generation's best-response oracle on the Kuhn instances: what dominates, and variants.

For each Table 1 instance and each oracle variant, runs `column_generation.solve` to `--tol`
in this one process and records wall and CPU seconds (`time.process_time`: less inflated by
other jobs than wall time), the oracle's and the master LP's share, iterations and the value.
Variants: `full` (the flow MIP, every member's sequences binary: the default), `hybrid`
(one member's sequences continuous: Zhang, An & Cerny, AAAI 2021, arXiv:2009.12629, the
hybrid-form oracle), `warm` (the full MIP started from the previous call's solution).

Usage:
  nice -n 10 python benchmarks/team_cg_oracle.py --instances 21K8 --variants full,hybrid,warm \
      --out results/team_cg_oracle.json
"""

import json
import os
import time

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.team import column_generation
from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.games import team_instances

FLAGS = flags.FLAGS
flags.DEFINE_string("instances", "21K8", "comma-separated Table 1 instance names")
flags.DEFINE_string("variants", "full,hybrid,warm", "oracle variants: full, hybrid, warm")
flags.DEFINE_float("tol", 1e-6, "column generation's certified gap target")
flags.DEFINE_float("time_limit", 600.0, "seconds per run")
flags.DEFINE_string("out", "results/team_cg_oracle.json", "JSON results")
flags.DEFINE_bool("rerun", False, "run (instance, variant) pairs already in --out again")

_VARIANTS = {"full": {}, "hybrid": dict(hybrid=True), "warm": dict(warm_start=True)}


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  names = [n for n in FLAGS.instances.split(",") if n]
  variants = [v for v in FLAGS.variants.split(",") if v]
  for n in names:
    if n not in team_instances.TABLE1_INSTANCES:
      raise app.UsageError(f"unknown instance {n!r}")
  for v in variants:
    if v not in _VARIANTS:
      raise app.UsageError(f"unknown variant {v!r}; use some of {sorted(_VARIANTS)}")
  atomic_io.check_writable(FLAGS.out)
  rows = []
  if os.path.exists(FLAGS.out):
    with open(FLAGS.out) as f:
      rows = json.load(f)
  for n in names:
    game, teams = team_instances.TABLE1_INSTANCES[n]
    teams_str = "|".join(",".join(str(p) for p in t) for t in teams)
    tree, teams = teams_lib.check_assumptions(game, teams_str)
    for v in variants:
      if any(r["instance"] == n and r["variant"] == v for r in rows) and not FLAGS.rerun:
        print(f"{n} {v}: already in {FLAGS.out}")
        continue
      wall, cpu = time.perf_counter(), time.process_time()
      res = column_generation.solve(tree, teams, tol=FLAGS.tol, time_limit=FLAGS.time_limit,
                                    **_VARIANTS[v])
      row = dict(instance=n, variant=v, value=res.value, lower=res.lower, upper=res.upper,
                 gap=res.gap, converged=res.converged, iterations=res.iterations,
                 wall_seconds=round(time.perf_counter() - wall, 2),
                 cpu_seconds=round(time.process_time() - cpu, 2),
                 oracle_seconds=round(res.oracle_seconds, 2),
                 master_seconds=round(res.master_seconds, 2),
                 build_seconds=round(res.build_seconds, 2),
                 loadavg=open("/proc/loadavg").read().split()[:3],
                 finished_utc=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()))
      print(json.dumps(row), flush=True)
      rows = [r for r in rows if not (r["instance"] == n and r["variant"] == v)] + [row]
      atomic_io.write_text(FLAGS.out, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
  app.run(main)
