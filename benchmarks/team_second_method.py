r"""A second, independent certification of the belief DAG's bracket on the largest instances.

For each Table 1 instance given, runs the team belief DAG (`belief_dag.solve`, the
method of record on 21D4 and 21L523) to `--tol`, then re-derives both ends of its bracket by
code paths that share nothing with the DAG (neither its tree decomposition nor its dynamic
programme):

* lower = -(team 2's best response to team 1's average plan): backward induction on team 2's
  sequence tree when team 2 is one player, else the flow MIP;
* upper = team 1's best response to team 2's average plan, by the flow MIP over team 1's
  members' binary sequence-form plans (`best_response.TeamOracle`; with `--hybrid`, only
  the members other than the one with the most sequences binary: Zhang, An & Cerny, AAAI 2021,
  arXiv:2009.12629). If the MIP stops at `--mip_time_limit` its *proven* bound is used: still
  a certified upper bound, only looser.

Every re-derived bound must agree with the DAG's own (the DAG's lower bound is exact, and so
is its upper bound: each is a best-response value, so the two computations must give the same
number up to rounding, or the MIP's bound must be above the DAG's). One JSON row per instance
(atomic, resumable: an instance already in `--out` is skipped unless `--rerun`).

Usage:
  nice -n 10 python benchmarks/team_second_method.py --instances 21L523,21D4 \
      --out results/team_lp_table/second_method.json
"""

import json
import os
import resource
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.games import team_instances
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("instances", "21L523", "comma-separated Table 1 instance names")
flags.DEFINE_float("tol", 1e-4, "the DAG's certified gap target")
flags.DEFINE_float("dag_time_limit", 600.0, "seconds for the DAG")
flags.DEFINE_float("mip_time_limit", 300.0, "seconds for each best-response MIP")
flags.DEFINE_bool("hybrid", True, "hybrid-form MIP (one member's sequences continuous)")
flags.DEFINE_string("out", "results/team_lp_table/second_method.json", "JSON results")
flags.DEFINE_bool("rerun", False, "solve instances already in --out again")


def _bound(tree, teams, team: int, reach: np.ndarray, hybrid: bool, time_limit: float):
  """(best-response value of `team` against the other team's terminal reach, note, seconds)."""
  start = time.perf_counter()
  chance = tree.chance_reach()[tree.terminals]
  w = chance * reach * teams_lib.team_terminal_utilities(tree, teams)[:, team]
  members = teams.teams[team]
  if len(members) == 1:
    value = team_best_response.single_player_best_response_value(tree, members[0], w)
    return value, "backward induction", time.perf_counter() - start
  oracle = team_best_response.TeamOracle(tree, members, hybrid=hybrid)
  try:
    br = oracle.best_response(w, time_limit=time_limit)
  except team_best_response.OracleTimeLimit as e:
    return e.bound, f"MIP found no plan in {time_limit} s (proven bound)", (
        time.perf_counter() - start)
  note = "flow MIP" + (" (hybrid)" if hybrid else "")
  if br.bound - br.value > 1e-9:
    note += f", stopped at {time_limit} s: proven bound (best plan found {br.value:.6f})"
  return br.bound, note, time.perf_counter() - start


def run_instance(name: str) -> dict:
  game, teams = team_instances.TABLE1_INSTANCES[name]
  teams_str = "|".join(",".join(str(p) for p in t) for t in teams)
  tree, teams = teams_lib.check_assumptions(game, teams_str)
  res = team_belief_dag.solve(tree, teams, tol=FLAGS.tol, time_limit=FLAGS.dag_time_limit)
  lo2, lo_note, lo_s = _bound(tree, teams, 1, res.team1_reach, FLAGS.hybrid,
                              FLAGS.mip_time_limit)
  up2, up_note, up_s = _bound(tree, teams, 0, res.team2_reach, FLAGS.hybrid,
                              FLAGS.mip_time_limit)
  lower2, upper2 = -lo2, up2
  return dict(
      instance=name, game=game, teams=teams_str, dag_lower=res.lower, dag_upper=res.upper,
      dag_gap=res.gap, dag_converged=res.converged, dag_iterations=res.iterations,
      dag_seconds=round(res.seconds, 2), second_lower=lower2, second_upper=upper2,
      lower_diff=lower2 - res.lower, upper_diff=upper2 - res.upper,
      second_lower_method=lo_note, second_upper_method=up_note,
      second_lower_seconds=round(lo_s, 2), second_upper_seconds=round(up_s, 2),
      agree=bool(abs(lower2 - res.lower) <= 1e-6 and upper2 >= res.upper - 1e-6),
      max_rss_gb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
      loadavg=open("/proc/loadavg").read().split()[:3],
      finished_utc=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()))


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  names = [n for n in FLAGS.instances.split(",") if n]
  for n in names:
    if n not in team_instances.TABLE1_INSTANCES:
      raise app.UsageError(f"unknown instance {n!r}")
  atomic_io.check_writable(FLAGS.out)
  rows = {}
  if os.path.exists(FLAGS.out):
    with open(FLAGS.out) as f:
      rows = {r["instance"]: r for r in json.load(f)}
  for n in names:
    if n in rows and not FLAGS.rerun:
      print(f"{n}: already in {FLAGS.out}")
      continue
    row = run_instance(n)
    print(json.dumps(row), flush=True)
    rows[n] = row
    atomic_io.write_text(FLAGS.out, json.dumps(list(rows.values()), indent=1) + "\n")


if __name__ == "__main__":
  app.run(main)
