"""Atomic writes (`ospiel_team.atomic_io`): a completed write replaces the file, an interrupted
one leaves the old file intact and no temp file behind."""
import os
import re

import numpy as np
import pytest

from ospiel_team import atomic_io
from ospiel_team import errors


class _Interrupted(Exception):
  pass


def _entries(folder) -> list:
  return sorted(os.listdir(folder))


def test_write_text_and_bytes_replace_the_file_with_mode_0644(tmp_path):
  path = tmp_path / "sub" / "out.txt"
  atomic_io.write_text(str(path), "first\n")
  atomic_io.write_text(str(path), "zweite Fassung \u00e9\n")
  assert path.read_bytes() == "zweite Fassung \u00e9\n".encode("utf-8")
  assert os.stat(path).st_mode & 0o777 == 0o644
  atomic_io.write_bytes(str(path), b"\x00\x01")
  assert path.read_bytes() == b"\x00\x01"
  assert _entries(tmp_path / "sub") == ["out.txt"]


def test_savez_round_trip_plain_and_compressed(tmp_path):
  a = np.arange(1000, dtype=np.int64).reshape(10, 100)
  for compressed in (False, True):
    path = tmp_path / f"a{int(compressed)}.npz"
    atomic_io.savez(str(path), compressed=compressed, a=a, s=np.array("tag"))
    with np.load(path) as z:
      np.testing.assert_array_equal(z["a"], a)
      assert str(z["s"]) == "tag"
  # np.savez stores a constant array uncompressed (> 8000 bytes), savez_compressed does not.
  assert os.path.getsize(tmp_path / "a0.npz") > 8000 > os.path.getsize(tmp_path / "a1.npz")
  assert _entries(tmp_path) == ["a0.npz", "a1.npz"]


def test_interrupted_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path):
  path = tmp_path / "state.txt"
  atomic_io.write_text(str(path), "old content")

  def half_write(f):
    f.write(b"new cont")  # part of the new content reaches the temp file ...
    raise _Interrupted()  # ... then the job dies

  with pytest.raises(_Interrupted):
    atomic_io.write_with(str(path), half_write)
  assert path.read_text() == "old content"
  assert _entries(tmp_path) == ["state.txt"]


def test_interrupted_savez_keeps_the_old_archive_and_leaves_no_temp_file(tmp_path):
  path = tmp_path / "ckpt.npz"
  atomic_io.savez(str(path), x=np.zeros(3))

  class Exploding:
    """An object array element whose pickling fails midway through np.savez."""

    def __reduce__(self):
      raise _Interrupted()

  with pytest.raises(_Interrupted):
    atomic_io.savez(str(path), x=np.ones(3), y=np.array([Exploding()], dtype=object))
  with np.load(path) as z:
    np.testing.assert_array_equal(z["x"], np.zeros(3))
    assert z.files == ["x"]
  assert _entries(tmp_path) == ["ckpt.npz"]


def test_keyboard_interrupt_also_cleans_up(tmp_path):
  path = tmp_path / "out.txt"

  def interrupted(f):
    f.write(b"partial")
    raise KeyboardInterrupt

  with pytest.raises(KeyboardInterrupt):
    atomic_io.write_with(str(path), interrupted)
  assert _entries(tmp_path) == []


def test_check_writable_names_the_flag_and_the_path(tmp_path):
  (tmp_path / "file").write_text("x")
  with pytest.raises(ValueError, match=r"--out '.*file' is an existing file, not a folder"):
    atomic_io.check_writable(str(tmp_path / "file"), folder=True)
  with pytest.raises(ValueError, match=r"--json .*'.*file' is a file, not a folder"):
    atomic_io.check_writable(str(tmp_path / "file" / "x.json"), flag="--json")
  atomic_io.check_writable(str(tmp_path / "new" / "deeper" / "x.json"))
  assert _entries(tmp_path) == ["file"]  # the probe leaves nothing behind


# --- Special files: a device, FIFO or socket at the output path is never replaced. ---------------


def _special_paths(tmp_path):
  import socket
  import stat
  fifo = tmp_path / "fifo"
  os.mkfifo(fifo)
  sock_path = tmp_path / "sock"
  sock = socket.socket(socket.AF_UNIX)
  sock.bind(str(sock_path))
  sock.close()
  paths = {"a FIFO (named pipe)": fifo, "a socket": sock_path}
  try:
    dev = tmp_path / "dev_copy"
    os.mknod(dev, 0o600 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
    paths["a character device"] = dev
  except OSError:
    pass  # not root: the FIFO and the socket still run the check
  return paths


@pytest.mark.parametrize("writer", ["text", "savez"])
def test_the_writer_refuses_to_replace_a_special_file(tmp_path, writer):
  import stat
  for kind, path in _special_paths(tmp_path).items():
    before = os.stat(path)
    with pytest.raises(ValueError, match=re.escape(f"{str(path)!r} is {kind}, not a regular file")):
      if writer == "text":
        atomic_io.write_text(str(path), "x")
      else:
        atomic_io.savez(str(path), a=np.zeros(2))
    after = os.stat(path)
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (before.st_ino,
                                                           stat.S_IFMT(before.st_mode))
  assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp_")]


def test_the_writer_refuses_a_folder_and_a_link_to_a_special_file(tmp_path):
  (tmp_path / "folder").mkdir()
  with pytest.raises(ValueError, match="is a folder, not a regular file"):
    atomic_io.write_text(str(tmp_path / "folder"), "x")
  os.mkfifo(tmp_path / "fifo")
  os.symlink(tmp_path / "fifo", tmp_path / "link")
  with pytest.raises(ValueError, match="'.*link' is a FIFO"):
    atomic_io.write_text(str(tmp_path / "link"), "x")
  assert os.path.islink(tmp_path / "link")
  # A regular file (and a link to one) is still replaced.
  (tmp_path / "f").write_text("old")
  atomic_io.write_text(str(tmp_path / "f"), "new")
  assert (tmp_path / "f").read_text() == "new"


def test_a_special_file_appearing_during_the_write_is_not_replaced(tmp_path):
  import stat
  path = tmp_path / "out"

  def write(f):
    f.write(b"data")
    os.mkfifo(path)  # something else creates a FIFO there meanwhile

  with pytest.raises(ValueError, match="is a FIFO"):
    atomic_io.write_with(str(path), write)
  assert stat.S_ISFIFO(os.stat(path).st_mode)
  assert _entries(tmp_path) == ["out"]


def test_check_writable_refuses_special_files(tmp_path):
  for kind, path in _special_paths(tmp_path).items():
    with pytest.raises(ValueError,
                       match=re.escape(f"--out {str(path)!r} is {kind}, not a regular file")):
      atomic_io.check_writable(str(path))
    with pytest.raises(ValueError, match=re.escape(
        f"--out {str(path)!r} is {kind}, not a folder")):
      atomic_io.check_writable(str(path), folder=True)


def test_check_writable_refuses_a_device_by_its_mode(tmp_path, monkeypatch):
  # Without root: a regular file that `os.stat` reports as a character device.
  import stat
  path = tmp_path / "fake_device"
  path.write_text("")
  real_stat = os.stat

  def fake_stat(p, *args, **kwargs):
    st = real_stat(p, *args, **kwargs)
    if os.fspath(p) == str(path):
      return os.stat_result((stat.S_IFCHR | 0o666,) + tuple(st)[1:])
    return st

  monkeypatch.setattr(os, "stat", fake_stat)
  with pytest.raises(ValueError, match="is a character device, not a regular file"):
    atomic_io.check_writable(str(path))
  with pytest.raises(ValueError, match="is a character device, not a regular file"):
    atomic_io.write_text(str(path), "x")


# ---------------------------------------------------------------------------------------------
# Digests of stored content.
def test_content_digest_is_sha256_of_names_dtypes_shapes_and_bytes():
  import hashlib
  a = np.arange(6, dtype=np.int32).reshape(2, 3)
  by_hand = hashlib.sha256(b"tag" + f"x {a.dtype.str} (2, 3)\n".encode() + a.tobytes())
  assert atomic_io.content_digest({"x": a}, b"tag") == by_hand.hexdigest()
  # any of name, dtype, shape or a byte changes it
  other = [{"y": a}, {"x": a.astype(np.int64)}, {"x": a.reshape(3, 2)}, {"x": a + (a == 5)}]
  assert len({atomic_io.content_digest(d, b"tag") for d in other + [{"x": a}]}) == 5


def test_json_record_round_trip_and_edits_refused(tmp_path):
  path = str(tmp_path / "r.json")
  record = {"rows": [{"value": 0.125, "iteration": 3}], "nan": float("nan"), "label": "é"}
  atomic_io.write_json(path, record, bind="task-1")
  back = atomic_io.read_json(path, "run record", bind="task-1")
  assert back["rows"] == record["rows"] and back["label"] == "é" and np.isnan(back["nan"])
  text = open(path, encoding="utf-8").read()
  # a number edited to another valid one
  with open(path, "w", encoding="utf-8") as f:
    f.write(text.replace("0.125", "0.25"))
  with pytest.raises(errors.DamagedFileError, match=re.escape(repr(path)) + ".*digest"):
    atomic_io.read_json(path, "run record", bind="task-1")
  # the record read under another name (bound to another task)
  atomic_io.write_json(path, record, bind="task-1")
  with pytest.raises(errors.DamagedFileError, match="digest"):
    atomic_io.read_json(path, "run record", bind="task-2")
  # no digest, not an object, truncated
  for content, needle in (('{"rows": []}', "no content_digest"), ("[1, 2]", "not a JSON object"),
                          (text[:len(text) // 2], "cannot be read")):
    with open(path, "w", encoding="utf-8") as f:
      f.write(content)
    with pytest.raises(errors.DamagedFileError, match=needle):
      atomic_io.read_json(path, "run record", bind="task-1")
