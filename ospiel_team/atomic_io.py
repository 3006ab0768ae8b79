"""Atomic file writes: write a temp file in the target's folder, then `os.replace` it.

A reader (or a resumed job) therefore sees either the old file or the complete new one, never a
partial write, and an interrupted write leaves no temp file behind. The temp file is flushed to
disk (`os.fsync`) before the rename. Every file the package's long jobs and report writers
produce goes through this module.
"""
import os
import tempfile
from collections.abc import Callable
from typing import BinaryIO

import numpy as np


def write_with(path: str, write: Callable[[BinaryIO], None], suffix: str = "") -> None:
  """Atomically writes `path` (creating its folder; mode 0644) with `write(binary_file)`.

  Args:
    path: the file to (re)place.
    write: called once with the temp file opened for binary writing; writes the content.
    suffix: the temp file's suffix (some writers, e.g. `np.savez`, look at the name).
  """
  folder = os.path.dirname(os.path.abspath(path))
  os.makedirs(folder, exist_ok=True)
  fd, tmp = tempfile.mkstemp(prefix=".tmp_", suffix=suffix, dir=folder)
  try:
    with os.fdopen(fd, "wb") as f:
      write(f)
      f.flush()
      os.fsync(f.fileno())
    os.chmod(tmp, 0o644)  # mkstemp makes private files; outputs are meant to be shared
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def write_bytes(path: str, data: bytes) -> None:
  """Atomically writes `data` to `path` (creating its folder; mode 0644)."""
  write_with(path, lambda f: f.write(data))


def write_text(path: str, text: str) -> None:
  """Atomically writes `text` (UTF-8) to `path`."""
  write_bytes(path, text.encode("utf-8"))


def savez(path: str, compressed: bool = False, **arrays) -> None:
  """Atomically writes `arrays` as an .npz (np.savez or np.savez_compressed) to `path`."""
  save = np.savez_compressed if compressed else np.savez
  write_with(path, lambda f: save(f, **arrays), suffix=".npz")


def check_writable(path: str, folder: bool = False, flag: str = "--out") -> None:
  """Raises ValueError (naming `flag` and `path`) unless the job can write its output there.

  Called by every command-line tool before its work starts, so that an output path that cannot
  be written (an existing file where a folder is wanted or the reverse, a parent that is a file,
  a read-only place) fails at once, not after the work. Writes nothing that stays: the nearest
  existing folder is probed with a temporary file (permission bits alone do not tell, e.g. for
  root or on read-only mounts). Missing folders are not created here.

  Args:
    path: the output file (`folder=False`) or output folder (`folder=True`).
    folder: whether `path` names a folder.
    flag: the command-line flag to name in the message.
  """
  path = os.fspath(path)
  if not path:
    raise ValueError(f"{flag} is empty")
  full = os.path.abspath(path)
  if os.path.exists(full):
    if folder and not os.path.isdir(full):
      raise ValueError(f"{flag} {path!r} is an existing file, not a folder")
    if not folder and os.path.isdir(full):
      raise ValueError(f"{flag} {path!r} is an existing folder, not a file")
  probe = full if folder and os.path.isdir(full) else os.path.dirname(full)
  while not os.path.exists(probe):
    probe = os.path.dirname(probe)
  if not os.path.isdir(probe):
    raise ValueError(f"{flag} {path!r} cannot be written: {probe!r} is a file, not a folder")
  try:
    fd, tmp = tempfile.mkstemp(prefix=".tmp_probe_", dir=probe)
  except OSError as e:
    raise ValueError(f"{flag} {path!r} cannot be written: {probe!r}: {e.strerror}") from None
  os.close(fd)
  os.remove(tmp)
