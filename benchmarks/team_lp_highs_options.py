r"""CPU seconds of the exact team LP under HiGHS options, and the DAG-support warm start.

The tree-decomposition LP of Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum
Extensive-Form Games via Tree Decompositions", AAAI 2022, arXiv:2109.05284 (`lp.build_model`),
built once per instance, solved by HiGHS under each option set (`VARIANTS`: the interior point
method with and without crossover, the dual simplex, presolve off, parallel off), and
by the belief DAG to gap 1e-3 followed by the LP restricted to its support (`restricted.py`,
the route `solve`'s `auto` takes above its LP threshold). Every answer is certified: team 1's and
team 2's plans from the LP are scored by the belief DAG's exact team best responses, and the
answer is *exact* only when that bracket is at most 1e-9 wide and holds the LP's value.

Times are process CPU seconds (`time.process_time`, all of HiGHS's threads), the minimum over
`--repeats` runs; a loaded machine inflates them less than wall-clock ones, but only a run taken
alone is a timing of record.

Usage:
  nice -n 10 python benchmarks/team_lp_highs_options.py --instances 21L133,21L223 \
      --out results/team_lp_table/highs_options.json
"""

import json
import os
import platform
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import restricted as team_restricted
from ospiel_team.algorithms.team import team_lp
from ospiel_team.games import team_instances
from ospiel_team.lp import highs
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("instances", "21L133,21L223", "comma-separated Table 1 instance names")
flags.DEFINE_integer("repeats", 3, "runs per variant (the minimum CPU time is kept)")
flags.DEFINE_string("out", "results/team_lp_table/highs_options.json",
                    "JSON record (atomic); empty: print only")

# (name, HiGHS `solver`, further options).
VARIANTS = (
    ("ipm (default)", "ipm", {}),
    ("ipm, crossover off", "ipm", {"run_crossover": "off"}),
    ("ipm, presolve off", "ipm", {"presolve": "off"}),
    ("ipm, parallel off", "ipm", {"parallel": "off"}),
    ("dual simplex", "simplex", {"simplex_strategy": 1}),
    ("dual simplex, presolve off", "simplex", {"simplex_strategy": 1, "presolve": "off"}),
    ("choose (HiGHS's pick)", "choose", {}),
)


def _certify(dags, m_mat, dec1, dec2, lam1, mu):
  """Certified bracket [lower, upper] of the plans (lam1, mu) by exact team best responses."""
  br2, _ = dags[1].best_response(-(m_mat.T @ dec1.leaf_values(lam1)))
  br1, _ = dags[0].best_response(m_mat @ dec2.leaf_values(mu))
  return -br2, br1


def _variant(model, dags, dec1, dec2, solver, options):
  """(CPU seconds, value, lower, upper, status) of one HiGHS run of the full LP."""
  c0 = time.process_time()
  h = highs.solve(model.cost, model.a_mat, model.row_lo, model.row_hi, model.col_lo,
                  model.col_hi, True, solver=solver, options=dict(options))
  cpu = time.process_time() - c0
  status = h.modelStatusToString(h.getModelStatus())
  if status != "Optimal":
    return cpu, None, None, None, status
  sol = h.getSolution()
  lam1 = np.maximum(np.asarray(sol.col_value)[:dec1.num_local], 0.0)
  mu = np.abs(np.asarray(sol.row_dual)[-dec2.num_local:])
  value = float(h.getInfo().objective_function_value)
  lower, upper = _certify(dags, model.m_mat, dec1, dec2, lam1, mu)
  return cpu, value, lower, upper, status


def _dag_then_restricted(tree, teams, decs):
  """CPU seconds of the belief DAG to gap 1e-3 and of the LP restricted to its support."""
  c0 = time.process_time()
  run = team_belief_dag.solve(tree, teams, tol=1e-3, decompositions=decs, keep_flows=True)
  c1 = time.process_time()
  res = team_restricted.solve(tree, teams, decs, [team_restricted.support_of(f)
                                                   for f in run.flows])
  c2 = time.process_time()
  return dict(name="belief DAG to gap 1e-3, then the LP restricted to its support",
              cpu_seconds=round(c2 - c0, 4), dag_cpu_seconds=round(c1 - c0, 4),
              restricted_cpu_seconds=round(c2 - c1, 4), value=res.value, lower=res.lower,
              upper=res.upper, exact=bool(res.exact), rounds=res.rounds,
              support=res.support)


def _instance(name: str, repeats: int) -> dict:
  game, teams = team_instances.load_instance(name)
  tree, teams = teams_lib.check_assumptions(game, teams)
  c0 = time.process_time()
  decs = [TeamDecomposition(tree, m) for m in teams.teams]
  model = team_lp.build_model(tree, teams, *decs)
  build = time.process_time() - c0
  dags = [team_restricted.belief_dag(d) for d in decs]
  rows = []
  for label, solver, options in VARIANTS:
    runs = [_variant(model, dags, *decs, solver, options) for _ in range(repeats)]
    cpu, value, lower, upper, status = min(runs, key=lambda r: r[0])
    row = dict(name=label, solver=solver, options=options, cpu_seconds=round(cpu, 4),
               status=status, value=value, lower=lower, upper=upper)
    if value is not None:
      scale = 1e-9 * (1 + abs(value))
      row["exact"] = bool(upper - lower <= 1e-9 and lower - scale <= value <= upper + scale)
      row["bracket_width"] = upper - lower
    rows.append(row)
    print(name, json.dumps(row), flush=True)
  runs = [_dag_then_restricted(tree, teams, decs) for _ in range(repeats)]
  rows.append(min(runs, key=lambda r: r["cpu_seconds"]))
  print(name, json.dumps(rows[-1]), flush=True)
  exact = [r for r in rows if r.get("exact")]
  best = min(exact, key=lambda r: r["cpu_seconds"])
  return dict(instance=name, lp_rows=int(model.a_mat.shape[0]),
              lp_cols=int(model.a_mat.shape[1]), lp_nonzeros=int(model.a_mat.nnz),
              build_cpu_seconds=round(build, 4), variants=rows, fastest_exact=best["name"])


def main(argv):
  del argv
  record = dict(
      command="nice -n 10 python benchmarks/team_lp_highs_options.py "
              f"--instances {FLAGS.instances} --repeats {FLAGS.repeats} --out {FLAGS.out}",
      date=time.strftime("%Y-%m-%d"), commit=report.short_commit(),
      machine=f"{platform.machine()}, {os.cpu_count()} cpus",
      load_before=os.getloadavg()[0], timing="process CPU seconds, minimum over repeats",
      rows=[_instance(n, FLAGS.repeats) for n in FLAGS.instances.split(",")])
  record["load_after"] = os.getloadavg()[0]
  if FLAGS.out:
    atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  for row in record["rows"]:
    print(row["instance"], "fastest exact:", row["fastest_exact"])


if __name__ == "__main__":
  app.run(main)
