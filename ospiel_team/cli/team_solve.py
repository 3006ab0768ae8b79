"""Command line of the team solvers: `ospiel-team-solve` (or `.team_solve`).

  ospiel-team-solve --game G --teams T [--method M] [--json]
  ospiel-team-solve --instance 21D3 [--method M] [--time_limit S] --json

Prints one JSON object (with --json) holding at least `value` (team 1's total) and `seconds`.
The solvers live in `ospiel_team.algorithms.team.solve`; this module only parses flags.
"""

import sys
import threading
import time

import pyspiel

from ospiel_team.algorithms.team import solve as team_solve
from ospiel_team.cli import _flags


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


def main(argv) -> int:
  """CLI: --game G --teams T | --instance ID, [--method M] [--time_limit S] [--json].

  Prints one JSON object (with --json) holding at least `value` (team 1's total) and
  `seconds`. User errors (unknown method, instance or HiGHS option, negative time limit, bad
  game or teams) print one line and exit with status 2.
  """
  import json

  from absl import flags

  import ospiel_team  # noqa: F401
  from ospiel_team.games import team_instances
  fv = flags.FlagValues()
  flags.DEFINE_string("game", None, "pyspiel game string", flag_values=fv)
  flags.DEFINE_string("teams", None, 'teams, e.g. "0,1|2" (default: the game\'s default)',
                      flag_values=fv)
  flags.DEFINE_string("instance", None, "a Table 1 instance of Zhang & Sandholm, e.g. 21D3 "
                      "(instead of --game/--teams)", flag_values=fv)
  flags.DEFINE_string("method", "auto", f"one of {team_solve.METHODS}", flag_values=fv)
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

  def fail(message: str, status: int = 2) -> int:
    lines = message.strip().splitlines() or [""]
    print(f"error: {lines[0]}", file=sys.stderr)
    return status

  status = _flags.parse_private(fv, argv, __doc__)
  if status is not None:
    return status
  try:
    _flags.check_number("progress_interval", fv.progress_interval, minimum=0, maximum=1e9,
                        why="seconds")
    _flags.check_number("time_limit", fv.time_limit, minimum=0, maximum=1e9, why="seconds")
    _flags.check_number("tol", fv.tol, minimum=0, maximum=1e9, why="a certified gap")
    _flags.check_number("certify_time_limit", fv.certify_time_limit, minimum=0, maximum=1e9,
                        why="seconds")
    if fv.instance is not None:
      if fv.game is not None or fv.teams is not None:
        raise ValueError("give either --instance or --game/--teams, not both")
      game, teams = team_instances.load_instance(fv.instance)
      teams = "|".join(",".join(str(p) for p in t) for t in teams)
    elif fv.game is not None:
      game, teams = _flags.load_game(fv.game), fv.teams  # unknown game: one line
    else:
      raise ValueError("give --game (and --teams) or --instance")
    options = {}
    for item in fv.highs_option:
      if "=" not in item:
        raise ValueError(f"--highs_option {item!r} is not key=value")
      key, value = item.split("=", 1)
      options[key] = _parse_option_value(value)
    tree_info = {}
    if fv.tree_cache is not None:
      import os
      import time

      from ospiel_team import atomic_io
      from ospiel_team.tree import cache as tree_cache
      atomic_io.check_writable(fv.tree_cache, folder=True, flag="--tree_cache")
      t0 = time.perf_counter()
      game = pyspiel.load_game(game) if isinstance(game, str) else game
      hit = os.path.exists(tree_cache.cache_path(game, fv.tree_cache))
      try:
        game = tree_cache.cached_tree(game, fv.tree_cache)
      except OSError as e:  # e.g. the disk filled up while the tree was stored
        raise ValueError(f"--tree_cache {fv.tree_cache!r} cannot be written: "
                         f"{e.strerror or e}") from None
      tree_info = dict(tree_cache="hit" if hit else "miss",
                       tree_seconds=round(time.perf_counter() - t0, 4))
    label = fv.instance or fv.game
    with _Progress(f"{label} by {fv.method}", fv.progress_interval):
      res = team_solve.solve(game, teams, method=fv.method, time_limit=fv.time_limit,
                             tol=fv.tol, solver=fv.solver, highs_options=options or None,
                             certify_time_limit=fv.certify_time_limit)
  except (ValueError, KeyError, pyspiel.SpielError) as e:
    return fail(str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e))
  except TimeoutError as e:  # the LP ran out of its time limit: not a bug, no traceback
    return fail(str(e), status=3)
  s = res.summary()
  if tree_info:  # the tree was read (or walked) before the solver's clock started
    s.update(tree_info)
    s["seconds"] = round(s["seconds"] + tree_info["tree_seconds"], 4)
  if fv.instance is not None:
    s["instance"] = fv.instance
  if fv.json:
    print(json.dumps(s))
  else:
    print(f"game {s['game']}  teams {s['teams']}  method {s['method']}")
    print(f"value (team 1) {s['value']:.10f}  certified [{s['lower']:.10f}, {s['upper']:.10f}]"
          f"  exact {s['exact']}")
    print(f"seconds {s['seconds']}")
  return 0


def run() -> None:
  """Entry point: exits with `main`'s status."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
