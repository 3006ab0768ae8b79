"""make_dataset as a command: finished reruns do nothing, Ctrl-C says how to resume, workers
end with the command, and an --out that cannot be written fails before any work."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from ospiel_team.bridge import dataset
from ospiel_team.bridge import dataset_builder as make_dataset
from tests import repo as tests_repo

REPO = tests_repo.REPO


def _cmd(out, deals=400, chunk=1, workers=2):
  return [sys.executable, "-m", "ospiel_team.cli.make_dataset", "--deals", str(deals),
          "--chunk", str(chunk), "--seed", "5", "--workers", str(workers), "--out", str(out),
          "--no_progress"]


def _children(pid):
  """Child pids of `pid`, from /proc/*/stat (works without CONFIG_PROC_CHILDREN)."""
  kids = []
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      with open(f"/proc/{entry}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
      continue
    if int(fields[1]) == pid:
      kids.append(int(entry))
  return kids


def _alive(pid):
  try:
    with open(f"/proc/{pid}/stat") as f:
      return f.read().rsplit(")", 1)[1].split()[0] != "Z"
  except OSError:
    return False


def _start_and_wait_for_a_chunk(out):
  proc = subprocess.Popen(_cmd(out), cwd=REPO, start_new_session=True, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
  chunk_dir = str(out) + ".chunks"
  deadline = time.time() + 120
  while time.time() < deadline and proc.poll() is None:
    if os.path.isdir(chunk_dir) and any(f.startswith("chunk_") for f in os.listdir(chunk_dir)):
      break
    time.sleep(0.05)
  assert proc.poll() is None, "the build ended before the test could interrupt it"
  return proc


def _workers(proc):
  """The pool's worker processes (children running multiprocessing.spawn)."""
  pids = []
  for pid in _children(proc.pid):
    try:
      with open(f"/proc/{pid}/cmdline") as f:
        if "spawn_main" in f.read():
          pids.append(pid)
    except OSError:
      pass
  return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_prints_one_line_and_stops_the_workers(tmp_path):
  out = tmp_path / "d.npz"
  proc = _start_and_wait_for_a_chunk(out)
  workers = _workers(proc)
  assert workers
  os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
  _, err = proc.communicate(timeout=60)
  assert proc.returncode != 0
  assert "Traceback" not in err, err
  lines = [ln for ln in err.splitlines() if ln.strip()]
  assert lines[-1] == (f"make_dataset: interrupted; finished chunks are kept in {out}.chunks/ "
                       "-- rerun the same command to resume"), err
  assert not any("KeyboardInterrupt" in ln for ln in lines), err
  deadline = time.time() + 10
  while time.time() < deadline and any(_alive(w) for w in workers):
    time.sleep(0.1)
  assert not any(_alive(w) for w in workers)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_end_when_the_command_is_killed(tmp_path):
  proc = _start_and_wait_for_a_chunk(tmp_path / "d.npz")
  workers = _workers(proc)
  assert workers
  os.kill(proc.pid, signal.SIGKILL)  # the command only, not its process group
  proc.communicate(timeout=30)
  # Without PR_SET_PDEATHSIG the workers would finish their chunk and linger (~15 s).
  deadline = time.time() + 3
  while time.time() < deadline and any(_alive(w) for w in workers):
    time.sleep(0.05)
  alive = [w for w in workers if _alive(w)]
  for w in alive:  # do not leave them behind if the test fails
    os.kill(w, signal.SIGKILL)
  assert not alive


def test_finished_output_is_not_rebuilt(tmp_path, capsys):
  out = str(tmp_path / "d.npz")
  assert make_dataset.build_dataset(3, out, seed=7, workers=1, chunk=2, progress=False) == [0, 1]
  before = os.stat(out).st_mtime_ns
  ds = dataset.load_dataset(out)
  capsys.readouterr()
  assert make_dataset.build_dataset(3, out, seed=7, workers=1, chunk=2, progress=False) == []
  assert "nothing to do" in capsys.readouterr().out
  assert os.stat(out).st_mtime_ns == before
  assert not os.path.exists(out + ".chunks")
  # Other parameters are another dataset: an error, the file is left as it was.
  for kwargs in (dict(seed=8, chunk=2), dict(seed=7, chunk=1)):
    with pytest.raises(ValueError, match="already holds another dataset"):
      make_dataset.build_dataset(3, out, workers=1, progress=False, **kwargs)
  with pytest.raises(ValueError, match="already holds another dataset"):
    make_dataset.build_dataset(4, out, seed=7, chunk=2, workers=1, progress=False)
  assert os.stat(out).st_mtime_ns == before
  np.testing.assert_array_equal(dataset.load_dataset(out).holders, ds.holders)
  # The check compares the deals themselves: the regenerated first chunk is what is stored.
  np.testing.assert_array_equal(ds.holders[:2], make_dataset.chunk_holders(7, 0, 2, 2))


@pytest.mark.parametrize("kind", ["folder", "parent_is_file", "proc"])
def test_unwritable_out_fails_before_work(tmp_path, kind):
  (tmp_path / "afile").write_text("x")
  out = {"folder": tmp_path, "parent_is_file": tmp_path / "afile" / "d.npz",
         "proc": "/proc/ospiel_team_test/d.npz"}[kind]
  res = subprocess.run(_cmd(out, deals=100000, chunk=1000), cwd=REPO, text=True,
                       capture_output=True, timeout=120)
  assert res.returncode != 0
  lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
  assert len(lines) == 1 and lines[0].startswith("make_dataset: error: --out "), res.stderr
  assert str(out) in lines[0]
  assert "make_dataset: 100000 deals" not in res.stdout  # no work started
  assert not os.path.exists(str(tmp_path / "afile") + ".chunks")


def test_a_device_as_out_cannot_be_written(tmp_path):
  res = subprocess.run(_cmd("/dev/full", deals=10, chunk=5), cwd=tmp_path, text=True,
                       capture_output=True, timeout=120)
  lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
  assert res.returncode == 2 and len(lines) == 1, res.stderr
  assert lines[0] == ("make_dataset: error: --out '/dev/full' is a character device, not a "
                      "regular file; refusing to replace it")
  assert os.path.exists("/dev/full") and not os.path.isfile("/dev/full")
  assert not os.path.exists("/dev/full.chunks")
