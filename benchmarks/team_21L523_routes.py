r"""21L523: which routes certify which end of the bracket within minutes (the lower end exactly).

`solve`'s `auto` answers 21L523 by the belief DAG, finished by the LP restricted to the DAG's
support (`restricted.py`, both teams restricted); the full LP settles it but takes about 40
minutes (`team_21L523_lp.py`). This script measures the other routes, each certified by exact
team best responses on the teams' belief DAGs:

* `restricted_team2_full`: the belief DAG (Zhang, Farina & Sandholm, ICML 2023,
  arXiv:2202.00789) to certified gap `--dag_gap`, then one LP with team 1 restricted to the
  local solutions its flows use and team 2 over its whole polytope (Zhang & Sandholm, AAAI 2022,
  arXiv:2109.05284, Theorem 3.21, over a face of team 1's polytope). Team 2's exact best
  response against the LP's team-1 plan gives the lower end; team 1's against the LP's duals
  (team 2's plan) the upper end.
* `restricted_team1_full`: the same DAG run, then one LP with team 2 restricted to the local
  solutions its flows use and team 1 whole: its value is a certified upper end (the LP's duals
  are team 2's plan on that face, team 1 best responding over its whole polytope), the exact
  value when the face holds an optimal team-2 plan.
* `one_sided`: the belief DAG to the tighter gap `--one_sided_gap`, then both LPs above from
  that run's supports (team 1 on its support with team 2 whole: the lower end; team 2 on its
  support with team 1 whole: the upper end); exact when the two ends meet.
* `cg_dag`: column generation over team 1's joint pure plans with team 2's sequence form in the
  master (Farina, Celli, Gatti & Sandholm, ICML 2021, the method of Table 1's FCGS-21 column),
  its team best responses by the belief DAG (`column_generation.solve(oracle="dag")`), under
  `--cg_time_limit`.

The record (`--out`) is rewritten after every route, each route with the command that measured
it; a rerun measures only the routes not in it (`--rerun`: those of `--routes` again).

Usage:
  nice -n 10 python benchmarks/team_21L523_routes.py --out results/team_lp_table/21L523_routes.json
"""

import json
import os
import platform
import resource
import sys
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import column_generation
from ospiel_team.algorithms.team import restricted as team_restricted
from ospiel_team.games import team_instances
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("instance", "21L523", "Table 1 instance")
flags.DEFINE_list("routes", ["restricted_team2_full", "restricted_team1_full", "one_sided",
                            "cg_dag"], "routes to measure")
flags.DEFINE_float("one_sided_gap", 1e-4, "one_sided: the DAG's certified gap first")
flags.DEFINE_bool("rerun", False, "measure routes already in --out again")
flags.DEFINE_float("dag_gap", 1e-3, "restricted_team2_full: the DAG's certified gap first")
flags.DEFINE_integer("max_local", 2_000_000, "local solutions per team at most (decompositions)")
flags.DEFINE_float("cg_time_limit", 600.0, "cg_dag: seconds")
flags.DEFINE_string("out", "results/team_lp_table/21L523_routes.json", "JSON record (atomic)")


def _restricted_team2_full(game, teams) -> dict:
  """The DAG to `--dag_gap`, then the LP with team 1 on its support and team 2 whole."""
  return _restricted(game, teams, whole=1)


def _restricted_team1_full(game, teams) -> dict:
  """The DAG to `--dag_gap`, then the LP with team 2 on its support and team 1 whole."""
  return _restricted(game, teams, whole=0)


def _dag_to_gap(game, teams, gap: float):
  """Both decompositions, then the belief DAG until its certified gap is <= `gap`.

  Returns (tree, teams, decompositions, {flows, lower, upper, iteration} at that check,
  CPU seconds of the decompositions).
  """
  c0 = time.process_time()
  tree, teams = teams_lib.check_assumptions(game, teams)
  decs = tuple(TeamDecomposition(tree, t, FLAGS.max_local) for t in teams.teams)
  c_dec = time.process_time() - c0
  box = {}

  def stop_at_gap(state: dict) -> bool:
    if state["upper"] - state["lower"] > gap:
      return False
    box.update(flows=state["flows"](), lower=state["lower"], upper=state["upper"],
               iteration=state["iteration"])
    return True

  team_belief_dag.solve(tree, teams, tol=1e-9, decompositions=decs, keep_flows=True,
                        on_check=stop_at_gap)
  return tree, teams, decs, box, c_dec


def _restricted(game, teams, whole: int) -> dict:
  """The DAG to `--dag_gap`, then one LP: team `whole` (0 or 1) whole, the other on its support."""
  c0 = time.process_time()
  tree, teams, decs, box, dec_seconds = _dag_to_gap(game, teams, FLAGS.dag_gap)
  c_dec = c0 + dec_seconds
  c_dag = time.process_time()
  supports = [team_restricted.support_of(f) for f in box["flows"]]
  support_size = len(supports[1 - whole])
  supports[whole] = np.arange(decs[whole].num_local)
  res = team_restricted.solve(tree, teams, decs, supports, max_rounds=1)
  return dict(local_solutions=[d.num_local for d in decs],
              decomposition_cpu_seconds=round(c_dec - c0, 2),
              dag_iterations=box["iteration"], dag_lower=box["lower"], dag_upper=box["upper"],
              dag_cpu_seconds=round(c_dag - c_dec, 2), restricted_team=2 - whole,
              support=support_size, lp_value=res.value, lower=res.lower, upper=res.upper,
              lower_is_lp_value=bool(abs(res.lower - res.value) <= 1e-9 * (1 + abs(res.value))),
              upper_is_lp_value=bool(abs(res.upper - res.value) <= 1e-9 * (1 + abs(res.value))),
              lp_cpu_seconds=round(time.process_time() - c_dag, 2),
              cpu_seconds=round(time.process_time() - c0, 2))


def _one_sided(game, teams) -> dict:
  """The DAG to `--one_sided_gap`, then the two one-sided restricted LPs from its supports."""
  c0, w0 = time.process_time(), time.perf_counter()
  tree, teams, decs, box, _ = _dag_to_gap(game, teams, FLAGS.one_sided_gap)
  c_dag = time.process_time()
  res = team_restricted.solve_one_sided(
      tree, teams, decs, [team_restricted.support_of(f) for f in box["flows"]])
  return dict(dag_iterations=box["iteration"], dag_lower=box["lower"], dag_upper=box["upper"],
              decomposition_and_dag_cpu_seconds=round(c_dag - c0, 2), support=res.support,
              lower=res.lower, upper=res.upper, exact=res.exact,
              lp_cpu_seconds=round(time.process_time() - c_dag, 2),
              cpu_seconds=round(time.process_time() - c0, 2),
              solve_wall_seconds=round(time.perf_counter() - w0, 2))


def _cg_dag(game, teams) -> dict:
  """Column generation with the belief DAG's team best responses, under a time limit."""
  c0 = time.process_time()
  res = column_generation.solve(game, teams, oracle="dag", tol=1e-9,
                                time_limit=FLAGS.cg_time_limit, max_local=3 * FLAGS.max_local)
  return dict(lower=res.lower, upper=res.upper, converged=res.converged,
              iterations=res.iterations, columns=res.columns, time_limit=FLAGS.cg_time_limit,
              cpu_seconds=round(time.process_time() - c0, 2))


ROUTES = {"restricted_team2_full": _restricted_team2_full,
          "restricted_team1_full": _restricted_team1_full, "one_sided": _one_sided,
          "cg_dag": _cg_dag}


def main(argv):
  del argv
  unknown = [r for r in FLAGS.routes if r not in ROUTES]
  if unknown:
    raise app.UsageError(f"--routes: unknown {unknown}; known: {sorted(ROUTES)}")
  record = {}
  if os.path.exists(FLAGS.out):
    with open(FLAGS.out) as f:
      record = json.load(f)
    if record.get("instance") != FLAGS.instance:
      raise app.UsageError(f"--out {FLAGS.out} holds {record.get('instance')!r}, "
                           f"not {FLAGS.instance!r}")
  record.update(command=" ".join(["nice -n 10 python benchmarks/team_21L523_routes.py"]
                                 + sys.argv[1:]),
                date=time.strftime("%Y-%m-%d"),
                commit=report.short_commit(),
                machine=f"{platform.machine()}, {os.cpu_count()} cpus",
                instance=FLAGS.instance)
  record.setdefault("routes", {})
  game, teams = team_instances.load_instance(FLAGS.instance)
  for name in FLAGS.routes:
    if name in record["routes"] and not FLAGS.rerun:
      continue
    load, w0 = os.getloadavg()[0], time.perf_counter()
    row = ROUTES[name](game, teams)
    row.update(command=record["command"], wall_seconds=round(time.perf_counter() - w0, 2),
               load_before=load,
               load_after=os.getloadavg()[0],
               peak_rss_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6)
    record["routes"][name] = row
    print(name, json.dumps(row), flush=True)
    atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
  app.run(main)
