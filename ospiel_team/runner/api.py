"""The comparison runner's solver API: contexts, snapshots, budgets and the solver registry.

A runner solver is a generator function `fn(ctx: SolverContext) -> Iterator[Snapshot]`:

    @api.solver("cfr", unit="one CFR iteration", options={})
    def cfr(ctx):
      solver = cfr_lib.CFRSolver(ctx.game)
      for it in ctx.iterate():
        solver.evaluate_and_update_policy()
        if ctx.is_checkpoint(it):
          yield api.Snapshot(it, {"average": ctx.tree.policy_array(solver.average_policy())})

`ctx.iterate()` stops when the budget is spent (`ctx.iterations` iterations, or `ctx.seconds`
CPU seconds of the solver itself when the runner drives the generator); `ctx.is_checkpoint(it)`
says when to yield (log-spaced iterations, or log-spaced CPU seconds, and always the last
iteration). Work that is not the solver's (JIT compilation, building a policy array for the
snapshot) goes inside `with ctx.excluded("jit"):` so that it is not charged to the budget; the
runner reports it apart.

Options: a solver declares the options it accepts (`"nfsp.episodes": 20`, name -> default);
the runner rejects any other key, and `ctx.option(name)` casts the string given on the command
line like the default. Algorithm modules never import this module: the adapters in
`adapters/openspiel.py` and `adapters/ours.py` wrap them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from ospiel_team import errors
from ospiel_team.tree.game_tree import GameTree

# A bad value given to the runner (a command-line tool prints it as one line): the package's
# one `errors.UserError`, so that the game resolver's errors are the runner's too.
UserError = errors.UserError


@dataclasses.dataclass(frozen=True)
class Snapshot:
  """A solver's policies (policy arrays on ctx.tree) after `iteration` iterations."""
  iteration: int
  policies: dict[str, np.ndarray]
  extra: dict[str, float] = dataclasses.field(default_factory=dict)


class SolverClock:
  """CPU time (`time.process_time`) charged to a solver, with excluded intervals kept apart.

  The runner calls `start()` before resuming the solver's generator and `stop()` when it
  yields, so only the solver's own work counts; `excluded(kind)` pauses the count inside.
  """

  def __init__(self):
    self._acc = 0.0
    self._t0: float | None = None
    self.excluded_seconds: dict[str, float] = {}

  def start(self) -> None:
    """Starts charging CPU time to the solver (no-op when already running)."""
    if self._t0 is None:
      self._t0 = time.process_time()

  def stop(self) -> None:
    """Stops charging CPU time to the solver (no-op when stopped)."""
    if self._t0 is not None:
      self._acc += time.process_time() - self._t0
      self._t0 = None

  def elapsed(self) -> float:
    """Solver CPU seconds so far (the running interval included).

    Returns:
      The solver's CPU seconds.
    """
    extra = 0.0 if self._t0 is None else time.process_time() - self._t0
    return self._acc + extra

  def reclassify(self, seconds: float, kind: str) -> None:
    """Moves `seconds` already counted as the solver's to the excluded `kind`.

    Args:
      seconds: CPU seconds to move.
      kind: the `excluded_seconds` key they move to.
    """
    self._acc -= seconds
    self.excluded_seconds[kind] = self.excluded_seconds.get(kind, 0.0) + seconds

  @contextlib.contextmanager
  def excluded(self, kind: str):
    """Context manager: CPU time inside it is charged to the excluded `kind`, not the solver.

    Args:
      kind: what the time is spent on ("jit", "snapshot", ...), a key of `excluded_seconds`.

    Yields:
      Nothing; the clock is stopped inside and restarted after if it was running.
    """
    running = self._t0 is not None
    self.stop()
    start = time.process_time()
    try:
      yield
    finally:
      self.excluded_seconds[kind] = (self.excluded_seconds.get(kind, 0.0) +
                                     time.process_time() - start)
      if running:
        self.start()


@dataclasses.dataclass
class SolverContext:
  """What a solver gets: the game, its array tree, the budget, the schedule and its options.

  Attributes:
    game: the pyspiel game.
    tree: its `GameTree` (policies are arrays on it).
    seed: the run's seed (the runner also seeds numpy's global generator with it).
    iterations: iteration budget (with `seconds`: a cap; None = no cap).
    checkpoints: iterations at which to snapshot (iteration budgets).
    options: the solver options as given ("nfsp.episodes" -> "50"); see `option`.
    seconds: CPU-second budget of the solver (None: iterations only).
    num_points: number of log-spaced checkpoints of a seconds budget.
    teams: the `teams.Teams` of the comparison (None: no teams declared).
    clock: the solver's CPU clock (the runner's; a fresh one if none is given).
  """
  game: pyspiel.Game
  tree: GameTree
  seed: int
  iterations: int | None
  checkpoints: Sequence[int]
  options: dict[str, str] = dataclasses.field(default_factory=dict)
  seconds: float | None = None
  num_points: int = 12
  teams: Any = None
  clock: SolverClock = dataclasses.field(default_factory=SolverClock)

  def __post_init__(self):
    if self.iterations is None and self.seconds is None:
      raise ValueError("a solver needs an iteration or a seconds budget")
    self._wanted = set(int(c) for c in self.checkpoints)
    self._time_points: list[float] = []
    self._verdict: tuple[int, bool] | None = None  # (iteration, budget spent after it)
    self.last_iteration = 0  # the last iteration `iterate` gave
    if self.seconds is not None:
      self._time_points = time_checkpoints(self.seconds, self.num_points)

  def option(self, name: str, default=None, cast: Callable | None = None):
    """Solver option `name` (e.g. "nfsp.hidden") from `options`, cast like `default`.

    Args:
      name: the option's full name ("solver.key").
      default: returned when the option was not given; its type casts a given value.
      cast: the cast (None: `type(default)`; bool reads "true"/"1").

    Returns:
      The option's value, cast, or `default`.
    """
    if name not in self.options:
      return default
    cast = cast or type(default)
    if cast is bool:
      return self.options[name].strip().lower() in ("true", "1")
    try:
      return cast(self.options[name])
    except ValueError as e:
      raise ValueError(f"solver option {name}={self.options[name]!r} is not a valid "
                       f"{cast.__name__}") from e

  def budget_spent(self, iteration: int) -> bool:
    """True once `iteration` iterations have used up the budget.

    Decided once per iteration: the first call for `iteration` reads the clock, later calls
    for it return the same answer. `is_checkpoint` and `iterate` both ask, and the CPU clock
    moves between their reads (JAX runs threads); were each to read it, the budget could end
    between the two and the run stop on an iteration that `is_checkpoint` passed over, with
    no snapshot of its last stretch.

    Args:
      iteration: the iteration just done (1, 2, ...).

    Returns:
      Whether the iteration or seconds budget is used up.
    """
    if self._verdict is not None and self._verdict[0] == iteration:
      return self._verdict[1]
    spent = ((self.iterations is not None and iteration >= self.iterations) or
             (self.seconds is not None and self.clock.elapsed() >= self.seconds))
    self._verdict = (iteration, spent)
    return spent

  def iterate(self) -> Iterator[int]:
    """Iteration numbers 1, 2, ... until the budget is spent (`last_iteration`: the last).

    Yields:
      The iteration number, from 1.
    """
    it = 0
    while not (it and self.budget_spent(it)):
      it += 1
      self.last_iteration = it
      yield it

  def is_checkpoint(self, iteration: int) -> bool:
    """Whether to snapshot after `iteration` (always true for the last one).

    Args:
      iteration: the iteration just done.

    Returns:
      True at iteration 1, at the last, and at the iteration or time checkpoints.
    """
    if self.budget_spent(iteration) or iteration == 1:
      return True
    if self.seconds is None:
      return iteration in self._wanted
    elapsed = self.clock.elapsed()
    hit = False
    while self._time_points and self._time_points[0] <= elapsed:
      self._time_points.pop(0)
      hit = True
    return hit

  def excluded(self, kind: str):
    """Context manager: CPU time inside is not the solver's (kind: "jit", "snapshot", ...).

    Args:
      kind: what the time is spent on ("jit", "snapshot", ...).

    Returns:
      `SolverClock.excluded(kind)`'s context manager.
    """
    return self.clock.excluded(kind)


def log_checkpoints(iterations: int, num_points: int = 12) -> list[int]:
  """Log-spaced iteration numbers in [1, iterations], always including both ends.

  Args:
    iterations: the last iteration (>= 1).
    num_points: how many log-spaced points to aim for (>= 1; rounding merges some).

  Returns:
    Sorted distinct iteration numbers, 1 and `iterations` included.
  """
  if iterations < 1:
    raise ValueError(f"iterations must be >= 1, got {iterations}")
  if num_points < 1:
    raise ValueError(f"num_points must be >= 1, got {num_points}")
  points = np.unique(np.round(np.logspace(0, math.log10(iterations), num_points)).astype(int))
  return sorted(set(int(p) for p in points) | {1, iterations})


def time_checkpoints(seconds: float, num_points: int = 12) -> list[float]:
  """Log-spaced CPU-second marks in [seconds / 300, seconds] for a seconds budget.

  Args:
    seconds: the CPU-second budget (> 0).
    num_points: about how many marks (num_points - 1 are made, at least 1).

  Returns:
    Increasing CPU-second marks, the last equal to `seconds`.
  """
  if not seconds > 0:
    raise ValueError(f"seconds must be > 0, got {seconds}")
  return [float(x) for x in np.logspace(math.log10(seconds / 300), math.log10(seconds),
                                        max(num_points - 1, 1))]


# ------------------------------------------------------------------------------------------------
# The registry.
@dataclasses.dataclass
class SolverSpec:
  """A registered solver: its generator function, what one iteration is, its options."""
  name: str
  fn: Callable[[SolverContext], Iterator[Snapshot]]
  unit: str
  options: dict[str, Any]
  primary: str = "average"  # the variant a solver is judged by
  # (game, teams) -> None, or why the solver cannot run on it (checked before any run starts)
  check: Callable[[pyspiel.Game, Any], str | None] | None = None
  # options given ({"jps.depth": "2"}, already cast-checked) -> None, or why they are invalid
  check_options: Callable[[dict[str, str]], str | None] | None = None
  # whether the run's seed changes what the solver does (False: deterministic; its seeds
  # differ only in where a CPU-second budget cuts the run)
  seeded: bool = False

  @property
  def source(self) -> str:
    """Whose implementation it is: "OpenSpiel" (adapters.openspiel) or "ospiel_team"."""
    return "OpenSpiel" if self.fn.__module__.endswith("adapters.openspiel") else "ospiel_team"


# Every registered solver by name; filled by the adapters' `@solver(...)` lines on import
# (`registry` imports them all and looks solvers up).
REGISTRY: dict[str, SolverSpec] = {}


def solver(name: str, unit: str, *, options: dict[str, Any] | None = None,
           primary: str = "average",
           check: Callable[[pyspiel.Game, Any], str | None] | None = None,
           check_options: Callable[[dict[str, str]], str | None] | None = None,
           seeded: bool = False):
  """Decorator registering a runner solver under `name` (see the module docstring).

  Args:
    name: the name used in `--solvers`.
    unit: what one iteration of this solver is, shown in the results table.
    options: option name ("name.key") -> default value (its type is the option's type).
    primary: the variant the solver is judged by ("average", "current", "jps").
    check: (game, teams) -> None if the solver applies to it, else the reason it does not.
    check_options: the solver's options -> None if valid, else the reason they are not.
    seeded: whether the run's seed changes what the solver does (a randomized solver).

  Returns:
    The decorator; it registers the solver function as a `SolverSpec` in `REGISTRY` and returns the
      function.
  """
  def register(fn):
    if name in REGISTRY:
      raise ValueError(f"solver {name!r} is registered twice")
    REGISTRY[name] = SolverSpec(name, fn, unit, dict(options or {}), primary, check,
                                check_options, seeded)
    return fn
  return register


def options_checker(rules: dict[str, Any]) -> Callable[[dict[str, str]], str | None]:
  """A `check_options` from one rule per numeric option (`ospiel_team.checks` rules).

  Each given option with a rule is read as a number (an int for `checks.Int`) and checked by
  its rule (finite, range, integer-ness), so a bad value is refused before any run starts.

  Args:
    rules: option name -> its `checks` rule (e.g. `checks.Int`).

  Returns:
    A function of the options that returns None when they pass, else the reason.
  """
  from ospiel_team import checks
  from ospiel_team import errors

  def check(options: dict[str, str]) -> str | None:
    for key, text in options.items():
      rule = rules.get(key)
      if rule is None:
        continue
      try:
        value = int(text) if isinstance(rule, checks.Int) else float(text)
      except ValueError:
        return f"{key}={text!r} is not a number"
      try:
        rule.check(key, value)
      except errors.UserError as e:
        return str(e)
    return None

  return check


def parse_options(text: str) -> dict[str, str]:
  """Parses "a.b=1,c.d=x" into {"a.b": "1", "c.d": "x"}.

  Args:
    text: comma-separated name=value items (empty or None: none).

  Returns:
    Option name -> value text.
  """
  options = {}
  for item in filter(None, (t.strip() for t in (text or "").split(","))):
    if "=" not in item:
      raise ValueError(f"solver option {item!r} is not of the form name=value")
    key, value = item.split("=", 1)
    options[key.strip()] = value.strip()
  return options
