r"""What a team's correlated plan is worth when it is played without its shared random draw.

The team LP (`algorithms.team.lp.solve`) answers the TMECor value and both teams' correlated
plans. The comparison runner (`ospiel-team-compare --solvers team_lp`) scores a plan through
two per-player views: its members' marginal behaviour strategies ("average": the correlation
dropped) and one joint pure strategy drawn from the plan ("sampled", seeded). Both depend on
*which* optimal plan the LP returns, not only on the game: the LP's optimum is one value but
often many plans, and HiGHS's simplex and its interior point method (with crossover) end at
different ones. This script solves the LP with each HiGHS solver and, for team 1's plan,
measures against team 2's exact joint best response
(`best_response.team_value_vs_best_response`):

* the marginals' value;
* every joint pure strategy in the plan's support (`TeamPlan.pure_strategy_distribution`):
  its probability and value, their minimum, maximum and probability-weighted mean (the mean is
  what the plan guarantees only when its draw stays hidden from team 2, which the TMECor value
  bounds from above);
* the strategy the runner draws with seed `--seed` (`TeamPlan.sample_policy_array`).

With `--runner_results`, the per-player solvers of a comparison-runner run on the same game
(its `results.json`, final checkpoint of every solver and variant) are copied into the record
beside them, with that run's provenance.

Usage:
  ospiel-team-compare --game "kuhn_poker(players=3)" --teams "0,1|2" \
      --metric team_value_vs_br --solvers team_lp,cfr,cfr_plus,xfp --iterations 1000 \
      --seeds 1 --workers 1 --out /tmp/team_cmp
  python benchmarks/team_plan_views.py --runner_results /tmp/team_cmp/results.json \
      --out results/team/plan_views.json
"""

import datetime
import json
import os
import platform
import sys

import numpy as np
import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team.algorithms.team import team_lp
from ospiel_team.lp import best_response as team_best_response
from ospiel_team.runner import report
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("game", "kuhn_poker(players=3)", "pyspiel game string")
flags.DEFINE_string("teams", "0,1|2", "the two teams")
flags.DEFINE_list("solvers", ["simplex", "ipm"], "HiGHS solvers to solve the LP with")
flags.DEFINE_integer("seed", 0, "seed of the drawn pure strategy (the runner's seed)")
flags.DEFINE_string("runner_results", None, "a comparison runner's results.json on the same "
                    "game, whose final rows are copied into the record")
flags.DEFINE_string("out", "results/team/plan_views.json", "JSON record")


def plan_views(tree, teams, solver: str, seed: int) -> dict:
  """Team 1's plan from the LP solved by HiGHS `solver`, scored in each per-player view.

  Args:
    tree: the game tree.
    teams: the two teams (`teams_lib.Teams`).
    solver: HiGHS's solver option ("simplex", "ipm", ...).
    seed: the seed of the drawn pure strategy.

  Returns:
    A dict with the LP value and the values of the marginals, of the support's pure
    strategies and of the drawn one, each against team 2's exact best response.
  """
  res = team_lp.solve(tree, teams, solver=solver)
  plan = res.plans[0]

  def vs_br(pi: np.ndarray) -> float:
    return float(team_best_response.team_value_vs_best_response(tree, pi, teams, team=0))

  base = tree.uniform_policy_array()
  support = []
  for prob, strategy in plan.pure_strategy_distribution():
    pi = np.array(base)
    for i, a in strategy.items():
      pi[i] = 0.0
      pi[i, a] = 1.0
    support.append({"probability": float(prob), "value": vs_br(pi)})
  probs = np.array([s["probability"] for s in support])
  values = np.array([s["value"] for s in support])
  return {
      "solver": solver,
      "value": float(res.value),
      "marginals": vs_br(plan.marginal_policy_array(base=base)),
      "sampled": vs_br(plan.sample_policy_array(base=base, rng=seed)),
      "support_size": len(support),
      "support_min": float(values.min()),
      "support_max": float(values.max()),
      "support_mean": float(probs @ values / probs.sum()),
      "support": support,
  }


def runner_rows(path: str) -> dict:
  """The final checkpoint of every solver and variant of a runner's results.json."""
  with open(path, encoding="utf-8") as f:
    data = json.load(f)
  final = {}
  for row in data["rows"]:
    key = (row["solver"], row["variant"], row["seed"])
    if key not in final or row["iteration"] > final[key]["iteration"]:
      final[key] = row
  rows = [{"solver": s, "variant": v, "seed": seed, "iteration": r["iteration"],
           "metric": r["metric"], "primary": bool(r.get("primary"))}
          for (s, v, seed), r in sorted(final.items())]
  return {"provenance": data["provenance"], "reference": data["reference"], "rows": rows}


def main(argv):
  del argv
  try:
    tree, teams = teams_lib.check_assumptions(pyspiel.load_game(FLAGS.game), FLAGS.teams)
    runner = runner_rows(FLAGS.runner_results) if FLAGS.runner_results else None
  except (ValueError, pyspiel.SpielError, OSError, KeyError) as e:
    print(f"error: {e}", file=sys.stderr)
    return 2
  commit = (report.provenance([])["commit"] or "")[:7] or None
  record = {
      "command": " ".join(["python", "benchmarks/team_plan_views.py"] + sys.argv[1:]),
      "commit": commit,
      "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
      "machine": f"{os.cpu_count()} CPUs ({platform.machine()})",
      "load_average": [round(x, 2) for x in os.getloadavg()],
      "game": FLAGS.game,
      "teams": FLAGS.teams,
      "seed": FLAGS.seed,
      "plans": [plan_views(tree, teams, s, FLAGS.seed) for s in FLAGS.solvers],
      "runner": runner,
  }
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  for p in record["plans"]:
    print(f"{p['solver']}: value {p['value']:.7f}  marginals {p['marginals']:.7f}  "
          f"sampled {p['sampled']:.7f}  support {p['support_size']} "
          f"[{p['support_min']:.7f}, {p['support_max']:.7f}] mean {p['support_mean']:.7f}")
  return 0


if __name__ == "__main__":
  app.run(main)
