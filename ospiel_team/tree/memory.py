"""How much memory and time a tree walk may use, and the checks that stop it past them.

The memory budget is a share of the memory available when the walk starts
(`default_max_memory`): the least of the machine's available memory (``MemAvailable`` of
/proc/meminfo) and the cgroup's room. Every history a walk keeps costs at least
`BYTES_PER_HISTORY` bytes, so a game is refused before its walk when the histories it has at
least (`builders.estimate_size`) cannot fit (`check_fits`). While a walk runs, `WalkBudget`
stops it with `TreeTooLargeError` once its histories times `BYTES_PER_HISTORY`, or the growth of
its resident memory (/proc/self/statm, read every `CHECK_EVERY` histories), pass the budget,
instead of running a shared machine out of memory; and with `WalkTimeLimitError` once it has
run past its time limit (checked every `TIME_CHECK_EVERY` histories).
"""

from __future__ import annotations

import math
import os
import time

import pyspiel

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.tree import game_support

# Share of the memory available when a walk starts that it may use (`default_max_memory`).
MEMORY_SHARE = 0.75
CHECK_EVERY = 1 << 15  # histories between two memory checks of a walk
TIME_CHECK_EVERY = 1 << 10  # histories between two clock checks of a walk
# The least memory a walked history costs until the tree is built: its node arrays alone take
# 52 bytes plus 8 per player (`TreeArrays`), and the walk's lists hold several Python objects
# per history beside them. The resident growth of whole walks (`GameTree`) measured 228 bytes a
# history for team_leduc(players=3) (shadow builder, 223,881 histories), 376 for comm(length=5)
# and more for smaller games, so a budget refused on this figure is exceeded for sure.
BYTES_PER_HISTORY = 200


class TreeTooLargeError(errors.SizeLimitError):
  """The game's tree does not fit in the memory budget of `GameTree` (`max_memory`).

  Raised before the memory is spent; a `SizeLimitError` (so a `ValueError`), never the
  interpreter's `MemoryError`.
  """


class WalkTimeLimitError(errors.OspielTeamError, TimeoutError):
  """The game's walk would take, or took, longer than the caller's `time_limit`.

  A `TimeoutError`, as the time limits of the solvers (the command lines exit with status 3).
  """


def _read_int(path: str) -> int | None:
  try:
    with open(path, encoding="ascii") as f:
      text = f.read().strip()
  except OSError:
    return None
  return int(text) if text.isdigit() else None


def available_memory() -> int | None:
  """Bytes this process may still allocate, or None when unknown.

  Returns:
    The least of the machine's available memory (``MemAvailable`` of /proc/meminfo) and its
    cgroup's room (limit less usage, cgroup v2 or v1), or None when neither is known.
  """
  room = []
  try:
    with open("/proc/meminfo", encoding="ascii") as f:
      for line in f:
        if line.startswith("MemAvailable:"):
          room.append(int(line.split()[1]) * 1024)
  except OSError:
    pass
  for limit, usage in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                       ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                        "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
    lim, use = _read_int(limit), _read_int(usage)
    if lim is not None and use is not None and lim < 1 << 60:
      room.append(max(0, lim - use))
  return min(room) if room else None


def default_max_memory() -> int | None:
  """`MEMORY_SHARE` of `available_memory()` (None when unknown: no memory check)."""
  room = available_memory()
  return None if room is None else int(MEMORY_SHARE * room)


def resident_bytes() -> int:
  """Resident memory of this process (/proc/self/statm), 0 where unknown."""
  try:
    with open("/proc/self/statm", encoding="ascii") as f:
      return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
  except (OSError, ValueError, IndexError):
    return 0


def resolve_max_memory(max_memory: int | float | None) -> int | None:
  """The byte budget that `GameTree`'s `max_memory` argument stands for.

  Args:
    max_memory: a number of bytes >= 1, as an integer or as a float holding a whole number
      (``1.5e9``; ``1.5`` is refused); -1: `default_max_memory()`; None: no memory limit.
      Bools are refused.

  Raises:
    errors.UserError: for any other value, naming it.
  """
  if max_memory is None:
    return None
  if checks.is_integer(max_memory) and max_memory == -1:
    return default_max_memory()
  if (checks.is_real(max_memory) and not checks.is_integer(max_memory)
      and math.isfinite(max_memory) and float(max_memory).is_integer()):
    max_memory = int(max_memory)  # a whole float such as 1.5e9
  if not (checks.is_integer(max_memory) and max_memory >= 1):
    raise errors.UserError(
        f"max_memory must be a number of bytes, {checks.requirement(integer=True, minimum=1)}"
        f" (or a whole float such as 1.5e9), -1 (the default budget) or None (no limit), got "
        f"{max_memory!r}")
  return int(max_memory)


def check_fits(game: pyspiel.Game, histories: int, how: str, max_memory: int | None) -> None:
  """Refuses, before a walk, a game whose histories cannot fit in `max_memory` bytes.

  Args:
    game: the game (named in the message).
    histories: how many histories the game has at least (`builders.estimate_size`).
    how: where that number comes from, for the message.
    max_memory: the budget in bytes (None: no check).

  Raises:
    TreeTooLargeError: `histories * BYTES_PER_HISTORY` bytes exceed `max_memory`.
  """
  need = histories * BYTES_PER_HISTORY
  if max_memory is not None and need > max_memory:
    raise TreeTooLargeError(
        f"{game} has at least {histories:,} histories ({how}), so the tree needs more than "
        f"{need:,} bytes ({BYTES_PER_HISTORY} per history at least), more than max_memory="
        f"{max_memory:,} bytes; refusing before walking (GameTree's max_memory argument raises "
        "the limit; its default is 75% of the memory available)")


class WalkBudget:
  """The memory and time checks of one walk.

  The checks of one walk: its histories and resident growth against a memory budget, and
  its elapsed time against a time limit.
  """

  def __init__(self, game: pyspiel.Game, max_memory: int | None,
               *, time_limit: float | None = None, started: float | None = None):
    """Starts the checks of a walk of `game`.

    Args:
    game: the game being walked (named in the error; its terminal count sizes the estimate).
    max_memory: bytes the walk may add to the resident memory; None: no check.
    time_limit: seconds the walk may take; None: no limit.
    started: the `time.monotonic()` the time limit counts from (default: now).
    """
    self._game = game
    self._max_memory = max_memory
    self._start = resident_bytes()
    self._time_limit = time_limit
    self._started = time.monotonic() if started is None else started

  def check(self, walked: int) -> None:
    """Checks the time every `TIME_CHECK_EVERY` histories, the memory every `CHECK_EVERY`.

    Args:
      walked: the histories walked so far.

    Raises:
      TreeTooLargeError: past the memory budget, naming it and the memory the tree needs at
        least.
      WalkTimeLimitError: past the time limit.
    """
    if not walked or walked % TIME_CHECK_EVERY:
      return
    if self._time_limit is not None:
      elapsed = time.monotonic() - self._started
      if elapsed > self._time_limit:
        raise WalkTimeLimitError(
            f"the walk of {self._game} was stopped by time_limit={self._time_limit:g} s after "
            f"{elapsed:.1f} s and {walked:,} histories, unfinished")
    if self._max_memory is None:
      return
    counted = walked * BYTES_PER_HISTORY
    if counted > self._max_memory:
      self._refuse(walked, counted, f"{BYTES_PER_HISTORY} bytes per history at least")
    if walked % CHECK_EVERY:
      return
    used = resident_bytes() - self._start
    if used > self._max_memory:
      self._refuse(walked, used, "their resident memory")

  def _refuse(self, walked: int, used: int, what: str) -> None:
    # Every history costs as much as the walked ones did: the finished tree needs at least
    # `used` and, by the game's own count of its terminal histories where it states one,
    # (that count) * (bytes per walked history).
    bound = game_support.min_terminal_histories(self._game)
    need = max(used, (bound or 0) * used // walked)
    raise TreeTooLargeError(
        f"{self._game} does not fit in max_memory={self._max_memory:,} bytes: its first "
        f"{walked:,} histories took {used:,} bytes ({what}: {used / walked:,.0f} per history) "
        f"and the walk was not finished, so the tree needs more than {need:,} bytes; pass a "
        "larger max_memory (GameTree's argument) if the machine has it")
