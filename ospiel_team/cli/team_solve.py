"""Command line of the team solvers: `ospiel-team-solve` (or `.team_solve`).

  ospiel-team-solve --game G --teams T [--method M] [--json]
  ospiel-team-solve --instance 21D3 [--method M] [--time_limit S] --json

Prints one JSON object (with --json) holding at least `value` (team 1's total) and `seconds`.
The solvers live in `ospiel_team.algorithms.team.solver`; this module only parses flags.
"""

import json
import sys
import threading
import time

import pyspiel
from absl import flags

from ospiel_team import checks
from ospiel_team.algorithms.team import solver as team_solver
from ospiel_team.cli import _flags
from ospiel_team.lp import highs


def _parse_option_value(text: str):
  low = text.lower()
  if low in ("true", "false"):
    return low == "true"
  for cast in (int, float):
    try:
      return cast(text)
    except ValueError:
      pass
  return text


class _Progress:
  """A one-line status on stderr every `interval` seconds while a solve runs (a thread).

  The solvers report no iterations to the command line, so the line says what is being solved
  and for how long; a long C call (HiGHS, a compiled kernel) that holds the interpreter can
  delay a line.
  """

  def __init__(self, label: str, interval: float):
    self._label = label
    self._interval = interval
    self._stop = threading.Event()
    self._start = time.perf_counter()
    self._thread = None
    self.lines = 0

  def __enter__(self):
    if self._interval > 0:
      self._thread = threading.Thread(target=self._run, daemon=True)
      self._thread.start()
    return self

  def _run(self) -> None:
    while not self._stop.wait(self._interval):
      elapsed = time.perf_counter() - self._start
      print(f"ospiel-team-solve: {self._label}: {elapsed:.1f} s elapsed, still solving",
            file=sys.stderr, flush=True)
      self.lines += 1

  def __exit__(self, *exc) -> None:
    self._stop.set()
    if self._thread is not None:
      self._thread.join()
    if self.lines:
      elapsed = time.perf_counter() - self._start
      print(f"ospiel-team-solve: {self._label}: done after {elapsed:.1f} s", file=sys.stderr,
            flush=True)


def define_flags(fv: flags.FlagValues) -> None:
  """Defines the command's flags on `fv` (`main` passes a fresh `flags.FlagValues`)."""
  flags.DEFINE_string("game", None, "pyspiel game string", flag_values=fv)
  flags.DEFINE_string("teams", None, 'teams, e.g. "0,1|2" (default: the game\'s default)',
                      flag_values=fv)
  flags.DEFINE_string("instance", None, "a Table 1 instance of Zhang & Sandholm, e.g. 21D3 "
                      "(instead of --game/--teams)", flag_values=fv)
  flags.DEFINE_string("method", "auto", f"one of {team_solver.METHODS}", flag_values=fv)
  flags.DEFINE_float("time_limit", None, "seconds (>= 0)", flag_values=fv)
  flags.DEFINE_float("tol", None, "anytime methods (cg, dag): target certified gap (default: "
                     "exact, or a certified bracket settling 4 decimals)", flag_values=fv)
  flags.DEFINE_string("solver", "auto", "HiGHS solver for the LP: auto (simplex for small "
                      "LPs, else ipm), ipm, simplex, choose, pdlp", flag_values=fv)
  flags.DEFINE_multi_string("highs_option", [], "extra HiGHS option for the LP, key=value "
                            "(repeatable); unknown options are errors", flag_values=fv)
  flags.DEFINE_float("certify_time_limit", 0.0, "anytime methods: re-derive the bracket by "
                     "exact team best responses (lp.best_response), each oracle "
                     "limited to this many seconds (0: off)", flag_values=fv)
  flags.DEFINE_string("tree_cache", None, "directory of cached game trees (tree/cache.py): "
                      "the tree is walked and stored on the first run and its arrays loaded on "
                      "later runs (reported: tree_cache hit/miss, tree_seconds)", flag_values=fv)
  flags.DEFINE_bool("json", False, "print one JSON object", flag_values=fv)
  flags.DEFINE_float("progress_interval", 5.0, "seconds between one-line status messages on "
                     "stderr while the solve runs (0: none)", flag_values=fv)


def main(argv) -> int:
  """CLI: --game G --teams T | --instance ID, [--method M] [--time_limit S] [--json].

  Prints one JSON object (with --json) holding at least `value` (team 1's total) and
  `seconds`. User errors (unknown method, instance or HiGHS option, negative time limit, bad
  game or teams) print one line and exit with status 2.
  """
  import ospiel_team  # noqa: F401
  fv = flags.FlagValues()
  define_flags(fv)

  def fail(message: str, status: int = 2) -> int:
    lines = message.strip().splitlines() or [""]
    print(f"error: {lines[0]}", file=sys.stderr)
    return status

  status = _flags.parse_private(fv, argv, __doc__)
  if status is not None:
    return status
  try:
    _check_flags(fv)
    game, teams = _game_and_teams(fv)
    options = _highs_options(fv.highs_option)
    highs.check_lp_options(fv.solver, options or None, names=("--solver", "--highs_option"))
    tree_info, walk_seconds = {}, 0.0
    if fv.tree_cache is not None:
      game, tree_info = _cached_tree(game, fv.tree_cache, fv.time_limit)
      walk_seconds = tree_info["tree_seconds"]
    elif fv.time_limit is not None:  # --time_limit covers the walk too
      game, walk_seconds = _walked_tree(game, fv.time_limit)
    time_limit = None if fv.time_limit is None else max(0.0, fv.time_limit - walk_seconds)
    label = fv.instance or fv.game
    with _Progress(f"{label} by {fv.method}", fv.progress_interval):
      res = team_solver.solve(game, teams, method=fv.method, time_limit=time_limit,
                              tol=fv.tol, solver=fv.solver, highs_options=options or None,
                              certify_time_limit=fv.certify_time_limit)
  except (ValueError, KeyError, pyspiel.SpielError) as e:
    return fail(str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e))
  except TimeoutError as e:  # the LP ran out of its time limit: not a bug, no traceback
    return fail(str(e), status=3)
  s = res.summary()
  s.update(tree_info)  # the tree was read (or walked) before the solver's clock started
  s["seconds"] = round(s["seconds"] + walk_seconds, 4)
  if fv.instance is not None:
    s["instance"] = fv.instance
  _print(s, fv.json)
  return 0


def _check_flags(fv: flags.FlagValues) -> None:
  """One line naming the flag (exit 2) for a value out of range."""
  _flags.check_number("progress_interval", fv.progress_interval, minimum=0, maximum=1e9,
                      why="seconds")
  _flags.check_number("time_limit", fv.time_limit, minimum=0, maximum=1e9, why="seconds")
  _flags.check_number("tol", fv.tol, minimum=0, maximum=1e9, why="a certified gap")
  _flags.check_number("certify_time_limit", fv.certify_time_limit, minimum=0, maximum=1e9,
                      why="seconds")


def _game_and_teams(fv: flags.FlagValues):
  """(game, teams) of --instance or of --game/--teams."""
  from ospiel_team.games import team_instances
  if fv.instance is not None:
    if fv.game is not None or fv.teams is not None:
      raise ValueError("give either --instance or --game/--teams, not both")
    game, teams = team_instances.load_instance(fv.instance)
    return game, "|".join(",".join(str(p) for p in t) for t in teams)
  if fv.game is not None:
    return checks.load_game("--game", fv.game), fv.teams  # unknown game: one line
  raise ValueError("give --game (and --teams) or --instance")


def _highs_options(items: list[str]) -> dict:
  """The --highs_option key=value items as a dict (values parsed as bool, int, float or str)."""
  options = {}
  for item in items:
    if "=" not in item:
      raise ValueError(f"--highs_option {item!r} is not key=value")
    key, value = item.split("=", 1)
    options[key] = _parse_option_value(value)
  return options


def _cached_tree(game, folder: str, time_limit: float | None = None):
  """The game's tree from the cache in `folder`, and what the cache did.

  (the game's tree from the cache in `folder`, walked (within `time_limit` seconds) and
  stored on a miss, and {tree_cache: hit, miss or rebuilt (a damaged file replaced),
  tree_seconds}).
  """
  from ospiel_team import atomic_io
  from ospiel_team.tree import cache as tree_cache
  atomic_io.check_writable(folder, folder=True, flag="--tree_cache")
  t0 = time.perf_counter()
  try:
    game, status = tree_cache.cached_tree_status(game, folder, time_limit=time_limit)
  except OSError as e:  # e.g. the disk filled up while the tree was stored
    raise ValueError(f"--tree_cache {folder!r} cannot be written: "
                     f"{e.strerror or e}") from None
  return game, dict(tree_cache=status, tree_seconds=round(time.perf_counter() - t0, 4))


def _walked_tree(game, time_limit: float):
  """(the game's tree, walked within `time_limit` seconds, and the seconds it took)."""
  from ospiel_team.tree import resolver
  t0 = time.perf_counter()
  tree = resolver.resolve(game, name="--game", time_limit=time_limit)
  return tree, time.perf_counter() - t0


def _print(s: dict, as_json: bool) -> None:
  """Prints the summary as one JSON object, or as three lines."""
  if as_json:
    print(json.dumps(s))
  else:
    print(f"game {s['game']}  teams {s['teams']}  method {s['method']}")
    print(f"value (team 1) {s['value']:.10f}  certified [{s['lower']:.10f}, {s['upper']:.10f}]"
          f"  exact {s['exact']}")
    print(f"seconds {s['seconds']}")


def run() -> None:
  """Entry point: exits with `main`'s status."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
