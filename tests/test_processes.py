"""`processes.die_with_parent`: a worker ends when its parent is killed (SIGKILL), both through
Linux's parent-death signal and through the polling thread used elsewhere; a worker that does
not call it outlives its parent (so the check can fail)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests import repo as tests_repo

# The worker: optionally arms die_with_parent (with the polling fallback when `poll`), reports
# its pid, then blocks in sleep like a worker stuck in native code.
_WORKER = textwrap.dedent("""
  import os, sys, time
  mode = sys.argv[1]
  if mode != "unarmed":
    if mode == "poll":
      sys.platform = "polling"  # not Linux: die_with_parent falls back to the watcher thread
    from ospiel_team import processes
    processes.die_with_parent(int(sys.argv[2]))
  print(os.getpid(), flush=True)
  time.sleep(60)
""")

# The parent: starts the worker, prints the worker's pid once it is armed, then waits.
_PARENT = textwrap.dedent("""
  import os, subprocess, sys, time
  w = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2], str(os.getpid())],
                       stdout=subprocess.PIPE, text=True)
  print(w.stdout.readline().strip(), flush=True)
  time.sleep(60)
""")


def _alive(pid: int) -> bool:
  """Whether `pid` runs (a zombie waiting to be reaped counts as ended)."""
  try:
    with open(f"/proc/{pid}/stat") as f:
      return f.read().rsplit(")", 1)[1].split()[0] != "Z"
  except FileNotFoundError:
    return False


def _worker_after_parent_killed(mode: str, wait_s: float) -> tuple[int, bool]:
  """Starts parent + worker, SIGKILLs the parent; returns (worker pid, worker alive after up
  to `wait_s` seconds)."""
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO + os.pathsep + os.environ.get("PYTHONPATH",
                                                                                   ""))
  parent = subprocess.Popen([sys.executable, "-c", _PARENT, _WORKER, mode],
                            stdout=subprocess.PIPE, text=True, env=env)
  try:
    worker = int(parent.stdout.readline())
    assert _alive(worker)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)
    deadline = time.time() + wait_s
    while _alive(worker) and time.time() < deadline:
      time.sleep(0.05)
    return worker, _alive(worker)
  finally:
    if parent.poll() is None:
      parent.kill()
      parent.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("mode,wait_s", [("prctl", 2.0), ("poll", 3.0)])
def test_worker_dies_with_its_parent(mode, wait_s):
  worker, alive = _worker_after_parent_killed(mode, wait_s)
  if alive:
    os.kill(worker, signal.SIGKILL)
  assert not alive, f"worker {worker} ({mode}) outlived its killed parent by {wait_s} s"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_a_worker_without_it_outlives_its_parent():
  worker, alive = _worker_after_parent_killed("unarmed", 0.5)
  try:
    assert alive, f"worker {worker} ended with its parent even without die_with_parent"
  finally:
    if alive:
      os.kill(worker, signal.SIGKILL)


_MASK_SCRIPT = textwrap.dedent("""
    import os
    from ospiel_team import processes

    def init(path):
        with open(f"/proc/{os.getpid()}/status") as f:
            blocked = f.read().split("SigBlk:")[1].split()[0]
        with open(path, "a") as f:
            f.write(blocked + "\\n")

    def work(x):
        return x

    if __name__ == "__main__":
        import sys
        with processes.spawn_pool(2, init, (sys.argv[1],)) as pool:
            pool.map(work, range(8))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_start_with_sigint_blocked_in_a_fresh_process(tmp_path):
  # In a fresh process the pool's first lock starts multiprocessing's resource tracker, which
  # unblocked SIGINT in the parent before the workers were spawned: a Ctrl-C during their
  # imports then printed a worker's traceback (about 1 run in 10 of the make_dataset test).
  script = tmp_path / "pool.py"
  script.write_text(_MASK_SCRIPT)
  out = tmp_path / "masks.txt"
  env = dict(os.environ, PYTHONPATH=tests_repo.REPO)
  res = subprocess.run([sys.executable, str(script), str(out)], env=env, capture_output=True,
                       text=True, timeout=120)
  assert res.returncode == 0, res.stderr
  masks = out.read_text().split()
  assert masks, "no worker ran its initializer"
  sigint_bit = 1 << (signal.SIGINT - 1)
  assert all(int(m, 16) & sigint_bit for m in masks), masks
