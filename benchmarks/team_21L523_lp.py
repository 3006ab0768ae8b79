r"""21L523 by the full tree-decomposition LP, its plans certified by exact team best responses.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022, arXiv:2109.05284, Table 1 solves 21L523 by its LP (10,507,398
nonzeros). `solve`'s `auto` does not build it (team 1 has more than `AUTO_LP_MAX_LOCAL` local
solutions) and answers by the belief DAG, whose bracket does not settle the fourth decimal.
This script builds the LP anyway (`lp.solve`, no local-solution cap below
`decomposition.DEFAULT_MAX_LOCAL`) under an address-space cap, solves it with HiGHS, and checks
the LP's two plans with the belief DAG's exact team best responses (`restricted.belief_dag`):
lower = what team 1's plan guarantees, upper = what team 2's plan holds team 1 to. The answer is
exact when that bracket is at most 1e-9 wide and holds the LP's value.

Usage:
  nice -n 10 python benchmarks/team_21L523_lp.py --out results/team_lp_table/21L523_lp.json
"""

import json
import os
import platform
import resource
import time

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.team import restricted as team_restricted
from ospiel_team.algorithms.team import team_lp
from ospiel_team.games import team_instances
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("instance", "21L523", "Table 1 instance")
flags.DEFINE_float("memory_gb", 16.0, "address-space cap of this process (GB)")
flags.DEFINE_float("time_limit", 7200.0, "HiGHS seconds")
flags.DEFINE_string("solver", "ipm", "HiGHS solver")
flags.DEFINE_string("out", "results/team_lp_table/21L523_lp.json", "JSON record (atomic)")


def _rss_gb() -> float:
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def main(argv):
  del argv
  cap = int(FLAGS.memory_gb * 1e9)
  resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
  record = dict(
      command=f"nice -n 10 python benchmarks/team_21L523_lp.py --instance {FLAGS.instance} "
              f"--memory_gb {FLAGS.memory_gb} --time_limit {FLAGS.time_limit} "
              f"--solver {FLAGS.solver} --out {FLAGS.out}",
      date=time.strftime("%Y-%m-%d"), commit=report.short_commit(),
      machine=f"{platform.machine()}, {os.cpu_count()} cpus",
      load_before=os.getloadavg()[0], instance=FLAGS.instance)
  c0, w0 = time.process_time(), time.perf_counter()
  game, teams = team_instances.load_instance(FLAGS.instance)
  tree, teams = teams_lib.check_assumptions(game, teams)
  decs = [TeamDecomposition(tree, m) for m in teams.teams]
  record.update(histories=int(tree.num_nodes), terminals=len(tree.terminals),
                local_solutions=[d.num_local for d in decs],
                decomposition_cpu_seconds=round(time.process_time() - c0, 2))
  print(json.dumps(record), flush=True)
  res = team_lp.solve(tree, teams, time_limit=FLAGS.time_limit, solver=FLAGS.solver,
                      decompositions=decs)
  record.update(value=res.value, lp_rows=res.lp_rows, lp_cols=res.lp_cols,
                lp_nonzeros=res.lp_nonzeros, solver=res.solver,
                lp_build_seconds=round(res.build_seconds, 2),
                lp_solve_seconds=round(res.solve_seconds, 2),
                lp_solve_cpu_seconds=round(res.solve_cpu_seconds, 2), rss_gb_after_lp=_rss_gb())
  print(json.dumps(record), flush=True)
  c1 = time.process_time()
  model_m = team_lp.build_model(tree, teams, *decs).m_mat
  dags = [team_restricted.belief_dag(d) for d in decs]
  br2, _ = dags[1].best_response(-(model_m.T @ res.plans[0].decomposition.leaf_values(
      res.plans[0].lam)))
  br1, _ = dags[0].best_response(model_m @ res.plans[1].decomposition.leaf_values(
      res.plans[1].lam))
  lower, upper = -br2, br1
  scale = 1e-9 * (1 + abs(res.value))
  record.update(lower=lower, upper=upper, gap=upper - lower,
                exact=bool(upper - lower <= 1e-9 and lower - scale <= res.value <= upper + scale),
                certify_cpu_seconds=round(time.process_time() - c1, 2),
                cpu_seconds=round(time.process_time() - c0, 2),
                wall_seconds=round(time.perf_counter() - w0, 2), peak_rss_gb=_rss_gb(),
                load_after=os.getloadavg()[0])
  print(json.dumps(record), flush=True)
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
  app.run(main)
