"""One line on stderr when numba compiles a group of kernels, and how long that took.

numba compiles a `@numba.njit(cache=True)` kernel on its first call after an install (or
after its source changed) and keeps the machine code in its on-disk cache (`__pycache__` next
to the module, or `NUMBA_CACHE_DIR`); later processes load it in a fraction of the time. The
first call of a group of kernels is wrapped in `announce(group, kernels)`: if a kernel has no
cache entry yet, one line says that the group is being compiled before the call, and one line
after it says how long it took; with the cache warm nothing is printed. Each group is
announced at most once per process.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from collections.abc import Sequence

_DONE: set[str] = set()


def _cached(kernel) -> bool:
  """Whether numba's on-disk cache holds an entry for `kernel` (False if it cannot tell)."""
  try:
    return bool(kernel._cache._cache_file._load_index())  # noqa: SLF001 (numba's own index)
  except Exception:  # noqa: BLE001  (a numba without these internals: assume cold)
    return False


def _misses(kernels: Sequence) -> int:
  """Compilations so far of `kernels` in this process (numba's cache-miss counters)."""
  total = 0
  for k in kernels:
    stats = getattr(k, "stats", None)
    total += sum(getattr(stats, "cache_misses", {}).values()) if stats else 0
  return total


def done(group: str) -> bool:
  """Whether `group` was already announced (or checked) in this process."""
  return group in _DONE


def cold(kernels: Sequence) -> bool:
  """Whether some of `kernels` has no entry in numba's on-disk cache (its first call compiles).

  Args:
    kernels: numba dispatchers.

  Returns:
    True if one of them would be compiled on its first call (or its cache cannot be read).
  """
  return not all(_cached(k) for k in kernels)


@contextlib.contextmanager
def announce(group: str, kernels: Sequence, stream=None) -> Iterator[None]:
  """Around the first call of `kernels`: says on `stream` (stderr) if they get compiled.

  Args:
    group: what the kernels do, as the message names it ("CFR").
    kernels: the numba dispatchers the wrapped code calls first.
    stream: where the lines go (default: `sys.stderr` at the time of the call).

  Yields:
    Nothing; the wrapped code runs inside.
  """
  if group in _DONE:
    yield
    return
  _DONE.add(group)
  stream = sys.stderr if stream is None else stream
  is_cold = cold(kernels)
  before = _misses(kernels)
  if is_cold:
    print(f"ospiel_team: compiling the numba kernels of {group} (once after an install; later "
          "runs load them from numba's cache)...", file=stream, flush=True)
  start = time.perf_counter()
  yield
  seconds = time.perf_counter() - start
  if is_cold or _misses(kernels) > before:
    print(f"ospiel_team: compiled the numba kernels of {group} in {seconds:.1f} s "
          "(cached for later runs)", file=stream, flush=True)
