"""How much memory a tree walk may use, and the check that stops it past that budget.

The budget is a share of the memory available when the walk starts (`default_max_memory`):
the least of the machine's available memory (``MemAvailable`` of /proc/meminfo) and the
cgroup's room. A walk measures the growth of its resident memory (/proc/self/statm) every
`CHECK_EVERY` histories (`WalkBudget.check`) and stops with `TreeTooLargeError` past the
budget, instead of running a shared machine out of memory.
"""

from __future__ import annotations

import os

import numpy as np
import pyspiel

from ospiel_team import errors
from ospiel_team.tree import game_support

# Share of the memory available when a walk starts that it may use (`default_max_memory`).
MEMORY_SHARE = 0.75
CHECK_EVERY = 1 << 15  # histories between two memory checks of a walk


class TreeTooLargeError(errors.SizeLimitError):
  """The game's tree does not fit in the memory budget of `GameTree` (`max_memory`).

  Raised before the memory is spent; a `SizeLimitError` (so a `ValueError`), never the
  interpreter's `MemoryError`.
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


def resolve_max_memory(max_memory: int | None) -> int | None:
  """The byte budget that `GameTree`'s `max_memory` argument stands for.

  Args:
    max_memory: a positive number of bytes, -1 (`default_max_memory()`) or None (no check).

  Raises:
    errors.UserError: for any other value, naming it.
  """
  if max_memory == -1:
    return default_max_memory()
  if max_memory is not None and not (isinstance(max_memory, (int, np.integer))
                                     and max_memory > 0):
    raise errors.UserError(f"max_memory must be a positive number of bytes, -1 or None, got "
                           f"{max_memory!r}")
  return max_memory


class WalkBudget:
  """The memory check of one walk: resident growth since the walk started, against a budget."""

  def __init__(self, game: pyspiel.Game, max_memory: int | None):
    """Args:
      game: the game being walked (named in the error; its terminal count sizes the estimate).
      max_memory: bytes the walk may add to the resident memory; None: no check.
    """
    self._game = game
    self._max_memory = max_memory
    self._start = resident_bytes()

  def check(self, walked: int) -> None:
    """Checks the budget every `CHECK_EVERY` histories.

    Args:
      walked: the histories walked so far.

    Raises:
      TreeTooLargeError: past the budget, naming it and the memory the tree needs at least.
    """
    if self._max_memory is None or not walked or walked % CHECK_EVERY:
      return
    used = resident_bytes() - self._start
    if used <= self._max_memory:
      return
    # Every history costs as much as the walked ones did: the finished tree needs at least
    # `used` and, by the game's own count of its terminal histories where it states one,
    # (that count) * (bytes per walked history).
    bound = game_support.min_terminal_histories(self._game)
    need = max(used, (bound or 0) * used // walked)
    raise TreeTooLargeError(
        f"{self._game} does not fit in max_memory={self._max_memory:,} bytes: its first "
        f"{walked:,} histories took {used:,} bytes ({used / walked:,.0f} per history) and the "
        f"walk was not finished, so the tree needs more than {need:,} bytes; pass a larger "
        "max_memory if the machine has it")
