"""Worker processes that end with their parent (used by the package's process pools).

A `multiprocessing` worker blocked in native code (DDS) keeps running after its parent is
killed (SIGKILL leaves no chance to terminate the pool). `die_with_parent`, run in the worker's
initializer, asks Linux to send the worker SIGKILL when the parent dies (prctl
PR_SET_PDEATHSIG); elsewhere a daemon thread polls the parent's pid once a second.
"""

import contextlib
import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int, ignore_sigint: bool = True) -> None:
  """Makes this (worker) process end when `parent_pid` ends; optionally ignores Ctrl-C.

  Args:
    parent_pid: the pid of the process that started this one (`os.getpid()` in the parent).
    ignore_sigint: ignore SIGINT, so that Ctrl-C in a terminal (sent to the whole process
      group) reaches only the parent, which then stops the pool and prints one line.
  """
  if ignore_sigint:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
  armed = False
  if sys.platform.startswith("linux"):
    try:
      libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
      armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except OSError:
      armed = False
  if os.getppid() != parent_pid:  # the parent died before prctl took effect
    os._exit(1)
  if not armed:
    def _watch():
      while True:
        if os.getppid() != parent_pid:
          os._exit(1)
        time.sleep(1.0)
    threading.Thread(target=_watch, daemon=True, name="die_with_parent").start()


@contextlib.contextmanager
def workers_ignore_sigint():
  """Starts worker processes with SIGINT ignored from their first instruction.

  A spawned worker only reaches its pool initializer (`die_with_parent`) after importing its
  modules; Ctrl-C in that window printed a KeyboardInterrupt traceback from the worker. A
  blocked signal stays blocked across exec, so the parent blocks SIGINT while it starts the
  pool's workers and unblocks it afterwards (the parent still gets a Ctrl-C of that window).
  """
  # Blocked, not ignored, in the parent: a Ctrl-C that arrives while the workers start stays
  # pending and is delivered when the mask is restored (an ignored one was lost, and the run
  # went on). The workers inherit the mask; their initializer ignores SIGINT, which discards
  # a pending one.
  # multiprocessing's resource tracker, started by the pool's first lock, blocks and then
  # *unblocks* SIGINT in the calling thread around its own start, which undid this block
  # before the workers were spawned (about 1 Ctrl-C in 10 under load printed a worker's
  # traceback). Started first, its later calls return at once.
  if os.name == "posix":
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()
  previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
  try:
    yield
  finally:
    signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def spawn_pool(workers: int, initializer, initargs: tuple = ()):
  """A pool of `workers` spawned processes that ignore Ctrl-C, terminated on leaving the block.

  The workers start under `workers_ignore_sigint`; a Ctrl-C that arrives while they start is
  raised when they have started, and leaving the block for any reason (done, an error, Ctrl-C)
  terminates them at once.

  Args:
    workers: the number of worker processes.
    initializer: run in each worker first (e.g. one that calls `die_with_parent`).
    initargs: its arguments.

  Yields:
    The `multiprocessing.pool.Pool`.
  """
  pool = None
  try:
    with workers_ignore_sigint():
      pool = multiprocessing.get_context("spawn").Pool(workers, initializer=initializer,
                                                       initargs=initargs)
    yield pool
  finally:
    if pool is not None:
      pool.terminate()

