"""Atomic file writes: write a temp file in the target's folder, then `os.replace` it.

A reader (or a resumed job) therefore sees either the old file or the complete new one, never a
partial write, and an interrupted write leaves no temp file behind. The temp file is flushed to
disk (`os.fsync`) before the rename. Every file the package's long jobs and report writers
produce goes through this module.

Only regular files are (re)placed: an existing device, FIFO, socket or folder at the target is
refused (`os.replace` would otherwise swap, say, ``/dev/full`` for a regular file when run as
root), both by `check_writable` before a job starts and by the writer itself.
"""
import os
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from typing import BinaryIO

import numpy as np

from ospiel_team import errors


def _kind(mode: int) -> str:
  """What a `stat` mode names, in words."""
  for test, kind in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                     (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                     (stat.S_ISSOCK, "a socket")):
    if test(mode):
      return kind
  return "a special file"


def not_regular_reason(path: str) -> str | None:
  """Why `path` must not be replaced by a regular file: None when it is missing or regular.

  Symbolic links are followed (a link to a device counts as the device).

  Args:
    path: the output file.
  """
  try:
    mode = os.stat(path).st_mode
  except FileNotFoundError:
    return None
  except OSError as e:  # e.g. a dangling link loop, or a parent that is a file
    if not os.path.lexists(path):
      return None
    return f"cannot be examined: {e.strerror}"
  if stat.S_ISREG(mode):
    return None
  return f"is {_kind(mode)}, not a regular file"


def _refuse_special(path: str) -> None:
  reason = not_regular_reason(path)
  if reason is not None:
    raise ValueError(f"output {path!r} {reason}; refusing to replace it")


def write_with(path: str, write: Callable[[BinaryIO], None], suffix: str = "") -> None:
  """Atomically writes `path` (creating its folder; mode 0644) with `write(binary_file)`.

  Args:
    path: the file to (re)place.
    write: called once with the temp file opened for binary writing; writes the content.
    suffix: the temp file's suffix (some writers, e.g. `np.savez`, look at the name).

  Raises:
    ValueError: `path` exists and is not a regular file (a folder, device, FIFO or socket);
      checked before and again just before the rename, and nothing is left behind.
    OSError: the write failed (e.g. ENOSPC, a full disk); its `filename` is `path` when the
      failing call named none; the temp file is removed and `path` keeps its former content.
  """
  path = os.fspath(path)
  _refuse_special(path)
  folder = os.path.dirname(os.path.abspath(path))
  os.makedirs(folder, exist_ok=True)
  fd, tmp = tempfile.mkstemp(prefix=".tmp_", suffix=suffix, dir=folder)
  try:
    with os.fdopen(fd, "wb") as f:
      write(f)
      f.flush()
      os.fsync(f.fileno())
    os.chmod(tmp, 0o644)  # mkstemp makes private files; outputs are meant to be shared
    _refuse_special(path)  # again: something may have appeared there during the write
    os.replace(tmp, path)
  except BaseException as e:
    if os.path.exists(tmp):
      os.remove(tmp)
    if isinstance(e, OSError) and e.filename is None:  # e.g. ENOSPC from write: name the file
      e.filename = path
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


def read_npz(path: str, what: str = "file") -> dict[str, np.ndarray]:
  """Every array of the .npz at `path`, read whole (no pickles).

  A damaged file (empty, truncated, a flipped bit: a bad CRC, not a zip) raises one
  `errors.DamagedFileError` (a ValueError) that names it, instead of numpy's and zipfile's own
  exceptions.

  Args:
    path: the .npz file.
    what: what the file is, for the message (e.g. "cost dataset").

  Raises:
    errors.DamagedFileError: `path` cannot be read as an .npz; the message names `what` and
      `path`.
  """
  try:
    # Opened here: np.load leaves its own handle open when the zip directory is unreadable.
    with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
      if not hasattr(z, "files"):
        raise ValueError("a single .npy array, not an .npz archive")
      return {k: z[k] for k in z.files}
  except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile, zlib.error) as e:
    raise errors.DamagedFileError(
        f"{what} {path!r} cannot be read (empty, truncated or damaged?): "
        f"{type(e).__name__}: {e}") from e


def check_writable(path: str, folder: bool = False, flag: str = "--out") -> None:
  """Raises ValueError (naming `flag` and `path`) unless the job can write its output there.

  Called by every command-line tool before its work starts, so that an output path that cannot
  be written (an existing file where a folder is wanted or the reverse, a parent that is a file,
  a device, FIFO or socket that a written file would replace, a read-only place) fails at once,
  not after the work. Writes nothing that stays: the nearest
  existing folder is probed with a temporary file (permission bits alone do not tell, e.g. for
  root or on read-only mounts). Missing folders are not created here.

  Args:
    path: the output file (`folder=False`) or output folder (`folder=True`).
    folder: whether `path` names a folder.
    flag: the command-line flag to name in the message.

  Raises:
    ValueError: the output cannot be written there; the message names `flag` and `path`.
  """
  path = os.fspath(path)
  if not path:
    raise ValueError(f"{flag} is empty")
  full = os.path.abspath(path)
  if os.path.exists(full):
    if folder and not os.path.isdir(full):
      what = "an existing file" if os.path.isfile(full) else _kind(os.stat(full).st_mode)
      raise ValueError(f"{flag} {path!r} is {what}, not a folder")
    if not folder and os.path.isdir(full):
      raise ValueError(f"{flag} {path!r} is an existing folder, not a file")
    if not folder:
      reason = not_regular_reason(full)
      if reason is not None:
        raise ValueError(f"{flag} {path!r} {reason}; refusing to replace it")
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
