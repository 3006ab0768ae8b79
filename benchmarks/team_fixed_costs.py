r"""Where the seconds of the small exact-LP rows of Table 1 go: the stages of `solve`'s LP route.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022, arXiv:2109.05284, Table 1 times its LP at 0.01-0.5 s on the smallest
instances. `solve(method="auto")` on those rows runs, in order: the game tree's walk and the
team checks (`teams.check_assumptions`), both teams' tree decompositions (`TeamDecomposition`),
the LP's size count (`lp.lp_nonzeros`, `auto`'s rule), the LP's assembly (`lp.build_model`), and
HiGHS (`highs.solve`, the solver `lp.choose_solver` picks). This script times each stage on its
own (the minimum over `--repeats` runs, each stage started from the previous stage's output)
and the whole `solve` the same way, in one process.

Usage:
  python benchmarks/team_fixed_costs.py --out results/team_lp_table/fixed_costs.json
"""

import json
import os
import platform
import sys
import time

from absl import app
from absl import flags

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team.algorithms.team import solve
from ospiel_team.algorithms.team import solver as team_solver
from ospiel_team.algorithms.team import team_lp
from ospiel_team.games import team_instances
from ospiel_team.lp import highs
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_list("instances", ["21K3", "21K4", "21GL", "21G", "21L133", "21L223"],
                  "Table 1 instances whose default route is the exact LP")
flags.DEFINE_integer("repeats", 20, "runs per stage; the minimum is recorded")
flags.DEFINE_string("out", "results/team_lp_table/fixed_costs.json", "JSON record (atomic)")

STAGES = ("tree_and_checks", "decompositions", "lp_size", "lp_build", "highs", "solve")


def _stages(game, teams_text) -> dict:
  """One run of the LP route's stages; each stage's wall seconds."""
  out = {}
  t = time.perf_counter()
  tree, teams = teams_lib.check_assumptions(game, teams_text)
  out["tree_and_checks"] = time.perf_counter() - t
  t = time.perf_counter()
  decs = [TeamDecomposition(tree, m, team_solver.AUTO_LP_MAX_LOCAL) for m in teams.teams]
  out["decompositions"] = time.perf_counter() - t
  t = time.perf_counter()
  nnz = team_lp.lp_nonzeros(tree, teams, *decs, stop_above=team_solver.AUTO_LP_MAX_NONZEROS)
  out["lp_size"] = time.perf_counter() - t
  t = time.perf_counter()
  model = team_lp.build_model(tree, teams, *decs)
  out["lp_build"] = time.perf_counter() - t
  t = time.perf_counter()
  highs.solve(model.cost, model.a_mat, model.row_lo, model.row_hi, model.col_lo, model.col_hi,
              True, solver=team_lp.choose_solver("auto", int(nnz)))
  out["highs"] = time.perf_counter() - t
  t = time.perf_counter()
  res = solve(game, teams_text)
  out["solve"] = time.perf_counter() - t
  if res.method != "lp":
    raise app.UsageError(f"{game}: auto solves it by {res.method!r}, not the LP")
  return out


def main(argv):
  del argv
  record = dict(command=" ".join(["python benchmarks/team_fixed_costs.py"] + sys.argv[1:]),
                date=time.strftime("%Y-%m-%d"),
                commit=report.short_commit(),
      machine=f"{platform.machine()}, {os.cpu_count()} cpus",
                timing=f"wall seconds, minimum over {FLAGS.repeats} runs per stage",
                load_before=os.getloadavg()[0], rows=[])
  for name in FLAGS.instances:
    game, teams = team_instances.load_instance(name)
    teams_text = str(teams_lib.parse_teams(teams, game.num_players()))
    best = dict.fromkeys(STAGES, float("inf"))
    for _ in range(FLAGS.repeats):
      for stage, seconds in _stages(game, teams_text).items():
        best[stage] = min(best[stage], seconds)
    published = team_instances.fastest_published(name)
    row = dict(instance=name, **{k: round(v, 5) for k, v in best.items()},
               fastest_published=published[0] if published else None,
               fastest_published_by=published[1] if published else None)
    record["rows"].append(row)
    print(json.dumps(row), flush=True)
  record["load_after"] = os.getloadavg()[0]
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
  app.run(main)
