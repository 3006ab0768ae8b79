"""Command line of the exact cooperative optimum: `ospiel-team-coop-optimum`.

  ospiel-team-coop-optimum --game "mini_bridge(size=3)" [--method M] [--json]

With the default `--method auto` and no warm start, a game whose optimum ships with the package
(`ospiel_team/runner/data/coop_optima.json`) is answered from that record at once, with its
provenance (`method: record`); `--norecord` solves it again.

The solver lives in `ospiel_team.algorithms.coop.optimum`; this module only parses flags.
"""

import sys
import time
from collections.abc import Sequence

import pyspiel

from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.lp import highs
from ospiel_team.cli import _flags
from ospiel_team.tree.game_tree import GameTree


def main(argv: Sequence[str]) -> int:
  """CLI: ospiel-team-coop-optimum --game G [--method M] [--json].

  User errors (a game that is not common-payoff, an unknown method or warm start, a negative
  time limit, a game pyspiel does not know) print one line and exit with status 2.
  """
  from absl import flags
  import ospiel_team  # noqa: F401
  fv = flags.FlagValues()
  flags.DEFINE_string("game", None, "pyspiel game string (common-payoff)", flag_values=fv)
  flags.DEFINE_string("method", "auto", "auto, lp, mip, brute_force or bidding_bb "
                     "(simple_bidding only: exact branch and bound over reach sets)",
                     flag_values=fv)
  flags.DEFINE_float("time_limit", None, "solver seconds (>= 0)", flag_values=fv)
  flags.DEFINE_integer("lp_max_local", coop_optimum.DEFAULT_LP_MAX_LOCAL, "LP column cap",
                       flag_values=fv)
  flags.DEFINE_enum("warm_start", "none", list(coop_optimum.WARM_STARTS),
                    "jps: Joint Policy Search from uniform; cfr_jps: JPS from CFR's last "
                    "iterate (the JPS paper's CFR1k+JPS). Its purified policy is the MIP's "
                    "first incumbent", flag_values=fv)
  flags.DEFINE_integer("jps_depth", 3, "JPS search depth D", flag_values=fv)
  flags.DEFINE_integer("cfr_iterations", 1000, "CFR iterations (cfr_jps)", flag_values=fv)
  flags.DEFINE_bool("json", False, "print one JSON object", flag_values=fv)
  flags.DEFINE_bool("record", True, "with --method auto and no warm start, answer a game whose "
                    "proven optimum ships with the package from that record", flag_values=fv)

  def fail(message: str) -> int:
    print(f"error: {(message.strip().splitlines() or [''])[0]}", file=sys.stderr)
    return 2

  status = _flags.parse_private(fv, argv, __doc__)
  if status is not None:
    return status
  try:
    if fv.game is None:
      raise ValueError("--game is required")
    start = time.perf_counter()
    game = pyspiel.load_game(fv.game)
    highs.check_time_limit(fv.time_limit)
    if fv.record and fv.method == "auto" and fv.warm_start == "none":
      from ospiel_team.runner import reference
      entry = reference.shipped_coop_optima_entries().get(str(game))
      if entry is not None:
        s = dict(game=str(game), value=float(entry["value"]), bound=float(entry["value"]),
                 proven_optimal=True, gap=0.0, method="record",
                 source=reference.shipped_label(str(game)), proved_by=entry["method"],
                 total_seconds=round(time.perf_counter() - start, 3))
        _print(s, fv.json)
        return 0
    tree = GameTree(game)
    coop_optimum.check_common_payoff(tree)
    tree_seconds = time.perf_counter() - start
    t0 = time.perf_counter()
    initial_policy = coop_optimum.warm_start_policy(tree, fv.warm_start, depth=fv.jps_depth,
                                                    cfr_iterations=fv.cfr_iterations)
    jps_seconds = time.perf_counter() - t0
    res = coop_optimum.solve(tree, method=fv.method, time_limit=fv.time_limit,
                lp_max_local=fv.lp_max_local, initial_policy=initial_policy)
  except (flags.Error, ValueError, pyspiel.SpielError) as e:
    return fail(str(e))
  s = res.summary()
  if fv.warm_start != "none":
    s.update(warm_start=fv.warm_start, warm_start_seconds=round(jps_seconds, 3))
  s.update(tree_seconds=round(tree_seconds, 3), terminals=len(tree.terminals),
           infosets=tree.num_infosets, total_seconds=round(time.perf_counter() - start, 3))
  _print(s, fv.json)
  return 0


def _print(summary: dict, as_json: bool) -> None:
  """Prints `summary` as one JSON object or as `key: value` lines."""
  import json
  if as_json:
    print(json.dumps(summary))
  else:
    for k, v in summary.items():
      print(f"{k}: {v}")


def run() -> None:
  """Entry point: exits with `main`'s status."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
