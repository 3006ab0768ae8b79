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
from absl import flags

from ospiel_team import checks
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.cli import _flags
from ospiel_team.lp import highs
from ospiel_team.tree import payoff
from ospiel_team.tree import resolver

PROGRAM = "ospiel-team-coop-optimum"

# Rough costs, measured on the shared 2-core machine (results/coop_optima/optima.md): a tree
# walk goes at roughly 1e5 terminal histories a second (comm(length=7): 2,097,152 in 17.6 s;
# mini_bridge(size=5): 73,692 in 2.6 s). The simple_bidding branch and bound solved 2.6e6,
# 1.1e7 and 4.3e7 canonical subgames for N = 14, 15, 16 (x2.0-x4.2 per added card) at roughly
# 8e3 a second (N = 16: 42,593,417 in 5,382 s), so states(N) ~ 4.3e7 * 3^(N - 16); the formula
# gives 2.0e4 for N = 9 (measured 19,034) and 5.3e5 for N = 12 (measured 247,923).
WALK_HISTORIES_PER_SECOND = 1e5
BB_STATES_AT_16 = 4.3e7
BB_GROWTH_PER_CARD = 3.0
BB_STATES_PER_SECOND = 8e3
SAY_COST_FROM_SECONDS = 60.0  # runs estimated shorter start silently
REFUSE_FROM_SECONDS = 30 * 86400.0  # past a month: refused without --force
MAX_LP_MAX_LOCAL = 2**40
MAX_SECONDS = 1e9


def estimate_cost(game: pyspiel.Game, method: str) -> tuple[float, str]:
  """A rough (order-of-magnitude) cost of solving `game` by `method`: (seconds, description).

  The tree walk: the game's terminal histories (its `min_terminal_histories()`, a closed form
  in its parameters for the package's games; unknown for OpenSpiel's own games) at
  `WALK_HISTORIES_PER_SECOND`. `bidding_bb`: `BB_STATES_AT_16 * BB_GROWTH_PER_CARD^(N - 16)`
  canonical subgames at `BB_STATES_PER_SECOND`. The MIP's time has no useful estimate (finding
  a cooperative optimum is NP-hard); `--time_limit` bounds it.
  """
  count = getattr(game, "min_terminal_histories", None)
  terminals = int(count()) if callable(count) else None
  seconds, parts = 0.0, []
  if terminals is not None:
    walk = terminals / WALK_HISTORIES_PER_SECOND
    seconds += walk
    parts.append(f"{terminals:,} terminal histories (from the game's parameters): the tree "
                 f"walk takes {_flags.rough_duration(walk)}")
  if method == "bidding_bb" and game.get_type().short_name == "simple_bidding":
    n = int(game.get_parameters()["size"])
    states = BB_STATES_AT_16 * BB_GROWTH_PER_CARD ** (n - 16)
    bb = states / BB_STATES_PER_SECOND
    seconds += bb
    parts.append(f"the branch and bound solves roughly {states:.0e} subgames, "
                 f"{_flags.rough_duration(bb)} (x2-x4 per card; N=16 took 90 minutes)")
  elif method in ("auto", "mip", "brute_force"):
    parts.append(f"the {method} solve's time is not predictable (NP-hard; --time_limit "
                 "bounds it)")
  return seconds, "; ".join(parts)


def define_flags(fv: flags.FlagValues) -> None:
  """Defines the command's flags on `fv` (`main` passes a fresh `flags.FlagValues`)."""
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
  flags.DEFINE_bool("force", False, "start a run whose estimated cost is clearly beyond the "
                    "machine (over a month) instead of refusing it", flag_values=fv)
  flags.DEFINE_bool("record", True, "with --method auto and no warm start, answer a game whose "
                    "proven optimum ships with the package from that record", flag_values=fv)


def main(argv: Sequence[str]) -> int:
  """CLI: ospiel-team-coop-optimum --game G [--method M] [--json].

  User errors (a game that is not common-payoff, an unknown method or warm start, a negative
  time limit, a game pyspiel does not know, a run estimated at over a month without --force)
  print one line and exit with status 2; a solve that runs out of --time_limit prints one line
  and exits with status 3. A run estimated at a minute or more says its rough cost in one line
  on stderr before it starts (`estimate_cost`).
  """
  import ospiel_team  # noqa: F401
  fv = flags.FlagValues()
  define_flags(fv)

  def fail(message: str, status: int = _flags.EXIT_USER_ERROR) -> int:
    print(f"error: {(message.strip().splitlines() or [''])[0]}", file=sys.stderr)
    return status

  status = _flags.parse_private(fv, argv, __doc__)
  if status is not None:
    return status
  try:
    summary = _run(fv)
  except (flags.Error, ValueError, pyspiel.SpielError) as e:
    return fail(str(e))
  except TimeoutError as e:  # the solver ran out of --time_limit: not a bug, no traceback
    hint = "" if "raise time_limit" in str(e) else " (raise --time_limit)"
    return fail(f"{e}{hint}", status=_flags.EXIT_TIME_LIMIT)
  _print(summary, fv.json)
  return 0


def _check_flags(fv: flags.FlagValues) -> None:
  """One line naming the flag (exit 2) for a missing game or a value out of range."""
  if fv.game is None:
    raise ValueError("--game is required")
  _flags.check_number("time_limit", fv.time_limit, minimum=0, maximum=MAX_SECONDS,
                      why="seconds")
  _flags.check_number("lp_max_local", fv.lp_max_local, minimum=1, maximum=MAX_LP_MAX_LOCAL,
                      integer=True)
  _flags.check_number("jps_depth", fv.jps_depth, minimum=1, maximum=64, integer=True)
  _flags.check_number("cfr_iterations", fv.cfr_iterations, minimum=1, maximum=2**40,
                      integer=True)


def _run(fv: flags.FlagValues) -> dict:
  """The summary to print: the shipped record's answer, or a solve (after its cost check)."""
  _check_flags(fv)
  start = time.perf_counter()
  game = checks.load_game("--game", fv.game)
  highs.check_time_limit(fv.time_limit)
  if fv.record and fv.method == "auto" and fv.warm_start == "none":
    recorded = _recorded(game, start)
    if recorded is not None:
      return recorded
  seconds, cost = estimate_cost(game, fv.method)
  if seconds >= REFUSE_FROM_SECONDS:
    _flags.refuse_unless_forced(fv.force, f"--game {fv.game!r} by {fv.method}: {cost}")
  if seconds >= SAY_COST_FROM_SECONDS:
    _flags.say_cost(PROGRAM, f"{game}: {cost}")
  def left(stage: str) -> float | None:  # --time_limit covers the whole command
    if fv.time_limit is None:
      return None
    seconds = fv.time_limit - (time.perf_counter() - start)
    if seconds <= 0:
      raise TimeoutError(f"--time_limit {fv.time_limit:g} s ran out {stage}")
    return seconds

  tree = resolver.resolve(game, name="--game",
                          time_limit=left("before the walk of the game's tree"))
  payoff.check_common_payoff(tree)
  tree_seconds = time.perf_counter() - start
  t0 = time.perf_counter()
  left("after the walk of the game's tree")
  initial_policy = coop_optimum.warm_start_policy(tree, fv.warm_start, depth=fv.jps_depth,
                                                  cfr_iterations=fv.cfr_iterations)
  jps_seconds = time.perf_counter() - t0
  res = coop_optimum.solve(tree, method=fv.method, time_limit=left("before the solve"),
                           lp_max_local=fv.lp_max_local, initial_policy=initial_policy)
  s = res.summary()
  if fv.warm_start != "none":
    s.update(warm_start=fv.warm_start, warm_start_seconds=round(jps_seconds, 3))
  s.update(tree_seconds=round(tree_seconds, 3), terminals=len(tree.terminals),
           infosets=tree.num_infosets, total_seconds=round(time.perf_counter() - start, 3))
  return s


def _recorded(game: pyspiel.Game, start: float) -> dict | None:
  """The summary of `game`'s optimum shipped with the package (`method: record`), or None."""
  from ospiel_team.runner import reference
  entry = reference.shipped_coop_optima_entries().get(str(game))
  if entry is None:
    return None
  return dict(game=str(game), value=float(entry["value"]), bound=float(entry["value"]),
              proven_optimal=True, gap=0.0, method="record",
              source=reference.shipped_label(str(game)), proved_by=entry["method"],
              total_seconds=round(time.perf_counter() - start, 3))


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
