"""Atomic file writes: write a temp file in the target's folder, then `os.replace` it.

A reader (or a resumed job) therefore sees either the old file or the complete new one, never a
partial write, and an interrupted write leaves no temp file behind. The temp file is flushed to
disk (`os.fsync`) before the rename. Every file the package's long jobs and report writers
produce goes through this module.

Only regular files are (re)placed: an existing device, FIFO, socket or folder at the target is
refused (`os.replace` would otherwise swap, say, ``/dev/full`` for a regular file when run as
root), both by `check_writable` before a job starts and by the writer itself.

Files read back by the package carry a SHA-256 digest of their content (`content_digest`, the
one implementation): tree caches, simple_bidding checkpoints, and the JSON records of
`write_json` / `read_json` (a comparison's run records and reference values). A file whose
content no longer matches its digest (damaged, or edited to other valid numbers) is refused
as a `errors.DamagedFileError`.
"""
import hashlib
import json
import os
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
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
    reason = f"{type(e).__name__}: {e}"
    if isinstance(e, ValueError) and "allow_pickle" in str(e):  # numpy's advice is not ours
      reason = "not an .npz archive (its bytes read as pickled data, which is never loaded)"
    raise errors.DamagedFileError(
        f"{what} {path!r} cannot be read as an .npz (empty, truncated or damaged?): "
        f"{reason}") from e


def content_digest(arrays: Mapping[str, Any], prefix: bytes = b"") -> str:
  """SHA-256 (hex) of `prefix`, then of each array of `arrays` in order.

  Each array contributes its name, dtype, shape and bytes, so that two contents differing in
  any of these never share a digest.

  Args:
    arrays: the stored arrays by name (anything `np.asarray` takes), in a fixed order.
    prefix: bytes hashed first (a format tag, a JSON text).

  Returns:
    The hex digest (64 characters).
  """
  h = hashlib.sha256(prefix)
  for name, value in arrays.items():
    a = np.ascontiguousarray(value)
    h.update(f"{name} {a.dtype.str} {a.shape}\n".encode())
    h.update(a.tobytes())
  return h.hexdigest()


DIGEST_KEY = "content_digest"  # the key of a JSON record's digest (`write_json`)


def json_digest(record: Any, bind: str = "") -> str:
  """`content_digest` of a JSON value's canonical text (keys sorted), after `bind`.

  Args:
    record: a JSON value (as `json.loads` returns it).
    bind: a string bound into the digest (e.g. the key a record is stored under), so that a
      record copied under another name fails its digest.

  Returns:
    The hex digest.
  """
  text = json.dumps(record, sort_keys=True, allow_nan=True)
  return content_digest({}, f"json record\n{bind}\n{text}".encode())


def write_json(path: str, record: dict, *, bind: str = "", indent: int | None = None) -> None:
  """Atomically writes the JSON object `record` with its digest under `DIGEST_KEY`.

  Args:
    path: the file to (re)place.
    record: a JSON object (without the key `DIGEST_KEY`).
    bind: bound into the digest (`json_digest`); `read_json` must be given the same.
    indent: JSON indentation (None: one line).
  """
  as_read = json.loads(json.dumps(record))  # the digest of what a reader will parse
  write_text(path, json.dumps({**as_read, DIGEST_KEY: json_digest(as_read, bind)},
                              indent=indent))


def read_json(path: str, what: str, *, bind: str = "") -> dict:
  """The JSON object at `path` written by `write_json`, its digest checked and removed.

  Args:
    path: the file.
    what: what the file is, for the message (e.g. "run record").
    bind: the string `write_json` bound into the digest.

  Returns:
    The record, without its digest.

  Raises:
    errors.DamagedFileError: naming `what` and `path`, when it cannot be read or parsed, is not
      a JSON object, lacks its digest, or its content does not match the digest (damaged, or
      edited to other valid JSON).
  """
  try:
    with open(path, encoding="utf-8") as f:
      record = json.load(f)
  except (OSError, ValueError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
    raise errors.DamagedFileError(
        f"{what} {path!r} cannot be read (empty, truncated or damaged?): "
        f"{type(e).__name__}: {e}") from e
  if not isinstance(record, dict):
    raise errors.DamagedFileError(f"{what} {path!r} is not a JSON object")
  stored = record.pop(DIGEST_KEY, None)
  if stored is None:
    raise errors.DamagedFileError(f"{what} {path!r} has no {DIGEST_KEY} (damaged, or written "
                                  "by a version without one)")
  if stored != json_digest(record, bind):
    raise errors.DamagedFileError(f"{what} {path!r} is damaged or edited: its content does not "
                                  "match its digest")
  return record


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
