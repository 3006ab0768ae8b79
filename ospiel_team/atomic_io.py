"""Atomic file writes: write a temp file in the target's folder, then `os.replace` it.

A reader (or a resumed job) therefore sees either the old file or the complete new one, never a
partial write. Used by every long job and report writer of the package.
"""
import os
import tempfile

import numpy as np


def write_bytes(path: str, data: bytes) -> None:
  """Atomically writes `data` to `path` (creating its folder; mode 0644)."""
  folder = os.path.dirname(os.path.abspath(path))
  os.makedirs(folder, exist_ok=True)
  fd, tmp = tempfile.mkstemp(prefix=".tmp_", dir=folder)
  try:
    with os.fdopen(fd, "wb") as f:
      f.write(data)
    os.chmod(tmp, 0o644)  # mkstemp makes files private
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def write_text(path: str, text: str) -> None:
  """Atomically writes `text` (UTF-8) to `path`."""
  write_bytes(path, text.encode("utf-8"))


def savez(path: str, compressed: bool = False, **arrays) -> None:
  """Atomically writes `arrays` as an .npz (np.savez or np.savez_compressed) to `path`."""
  folder = os.path.dirname(os.path.abspath(path))
  os.makedirs(folder, exist_ok=True)
  fd, tmp = tempfile.mkstemp(prefix=".tmp_", suffix=".npz", dir=folder)
  try:
    with os.fdopen(fd, "wb") as f:
      (np.savez_compressed if compressed else np.savez)(f, **arrays)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise
