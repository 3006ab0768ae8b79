r"""CPU seconds of column generation's team best-response oracle: flow MIP vs belief DAG.

Column generation (Farina, Celli, Gatti & Sandholm, ICML 2021; `column_generation.py`) calls an
exact team best response every iteration. `oracle="mip"` solves the flow MIP of the team's
members' sequence-form plans with HiGHS; `oracle="dag"` builds the team's tree decomposition
(Zhang & Sandholm, AAAI 2022) and belief DAG (Zhang, Farina & Sandholm, ICML 2023) once and
answers each call by one bottom-up pass. Per instance and oracle: process CPU seconds (all
threads) of the set-up, of each multi-player team's oracle calls (mean and max) and of the
whole solve, iterations and the value; a DAG refused past `--max_local` edges is recorded so.

Usage:
  nice -n 10 python benchmarks/team_cg_oracle.py --instances 21K8,21K12 \
      --out results/team_lp_table/cg_oracle.json
"""

import json
import os
import platform
import time

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team.algorithms.team import column_generation
from ospiel_team.games import team_instances
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("instances", "21K8", "comma-separated Table 1 instance names")
flags.DEFINE_string("oracles", "mip,dag", "oracles to measure")
flags.DEFINE_integer("max_local", column_generation.DAG_ORACLE_MAX_LOCAL,
                     "the DAG oracle's cap on a team's DAG edges")
flags.DEFINE_string("out", "results/team_lp_table/cg_oracle.json",
                    "JSON record (atomic); empty: print only")


def _timed(cls, calls):
  """Wraps `cls.best_response` to append (team size, CPU seconds) of every call."""
  orig = cls.best_response

  def wrapped(self, w, time_limit=None):
    c0 = time.process_time()
    res = orig(self, w, time_limit=time_limit)
    calls.append((len(self.members), time.process_time() - c0))
    return res
  cls.best_response = wrapped
  return orig


def _run(name: str, oracle: str) -> dict:
  game, teams = team_instances.load_instance(name)
  tree, teams = teams_lib.check_assumptions(game, teams)
  calls = []
  originals = [(cls, _timed(cls, calls)) for cls in (team_best_response.TeamOracle,
                                                       column_generation.DagOracle)]
  c0 = time.process_time()
  try:
    res = column_generation.solve(tree, teams, oracle=oracle, max_local=FLAGS.max_local)
  except errors.SizeLimitError as e:
    return dict(instance=name, oracle=oracle, refused=str(e)[:200],
                cpu_seconds=round(time.process_time() - c0, 3))
  finally:
    for cls, orig in originals:
      cls.best_response = orig
  cpu = time.process_time() - c0
  team = [c for n, c in calls if n > 1]
  return dict(instance=name, oracle=oracle, value=res.value, lower=res.lower, upper=res.upper,
              converged=bool(res.converged), iterations=res.iterations,
              cpu_seconds=round(cpu, 3), team_oracle_calls=len(team),
              team_oracle_cpu_seconds=round(sum(team), 3),
              team_oracle_cpu_per_call=round(sum(team) / max(len(team), 1), 4),
              team_oracle_cpu_max=round(max(team, default=0.0), 4),
              setup_cpu_seconds=round(cpu - sum(c for _, c in calls), 3),
              wall_seconds=round(res.seconds, 3))


def main(argv):
  del argv
  rows = []
  for name in FLAGS.instances.split(","):
    for oracle in FLAGS.oracles.split(","):
      rows.append(_run(name, oracle))
      print(json.dumps(rows[-1]), flush=True)
  if FLAGS.out:
    record = dict(command="nice -n 10 python benchmarks/team_cg_oracle.py "
                          f"--instances {FLAGS.instances} --oracles {FLAGS.oracles} "
                          f"--out {FLAGS.out}",
                  date=time.strftime("%Y-%m-%d"),
                  commit=report.short_commit(),
      machine=f"{platform.machine()}, {os.cpu_count()} cpus",
                  timing="process CPU seconds (all threads); wall seconds on a loaded machine",
                  load=os.getloadavg()[0], rows=rows)
    atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
  app.run(main)
