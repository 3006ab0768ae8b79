"""A command never replaces a device, FIFO or socket given as its output (`--out /dev/full`
run as root used to swap the device node for a regular file and exit 0)."""
import os
import stat
import subprocess
import sys

import pytest


def _run(args, cwd):
  return subprocess.run([sys.executable, "-m", *args], cwd=cwd, text=True, capture_output=True,
                        timeout=300)


@pytest.mark.parametrize("module,prog", [
    ("ospiel_team.cli.uncontested", "uncontested"),
    ("ospiel_team.cli.make_dataset", "make_dataset"),
])
def test_out_fifo_is_one_line_exit_2_and_stays_a_fifo(tmp_path, module, prog):
  fifo = tmp_path / "out.npz"
  os.mkfifo(fifo)
  args = [module, "--out", str(fifo)]
  args += ["--pairs", "1", "--k", "1"] if prog == "uncontested" else ["--deals", "2",
                                                                       "--chunk", "1"]
  res = _run(args, tmp_path)
  lines = [ln for ln in res.stderr.splitlines() if ln.startswith(f"{prog}:")]
  assert res.returncode == 2, res.stderr
  assert lines == [f"{prog}: error: --out {str(fifo)!r} is a FIFO (named pipe), not a regular "
                   "file; refusing to replace it"], res.stderr
  assert "Traceback" not in res.stderr
  assert stat.S_ISFIFO(os.stat(fifo).st_mode)
  assert sorted(os.listdir(tmp_path)) == ["out.npz"]


def test_out_device_copy_is_refused(tmp_path):
  dev = tmp_path / "full_copy"
  try:
    os.mknod(dev, 0o600 | stat.S_IFCHR, os.stat("/dev/full").st_rdev)
  except OSError as e:
    pytest.skip(f"cannot make a device node (not root?): {e}")
  res = _run(["ospiel_team.cli.uncontested", "--pairs", "1", "--k", "1", "--out", str(dev)],
             tmp_path)
  assert res.returncode == 2, res.stderr
  assert f"--out {str(dev)!r} is a character device, not a regular file" in res.stderr
  assert stat.S_ISCHR(os.stat(dev).st_mode)
