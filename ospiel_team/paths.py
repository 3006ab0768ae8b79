"""The package's one cache directory.

Everything the package keeps between runs (walked game trees, JAX's persistent compilation
cache) lives under one folder: `$OSPIEL_TEAM_CACHE` if set, else `~/.cache/ospiel_team`.
Each user of the cache asks for its own sub-folder, e.g. `cache_dir("game_trees")`.
"""

import errno
import os

ENV_VAR = "OSPIEL_TEAM_CACHE"


class CacheFolderError(OSError):
  """The cache folder cannot be created or written (an `OSError`, as before).

  The message names the folder and says to set `OSPIEL_TEAM_CACHE` to a writable folder; the
  command lines print it as one line (exit status 2), without a traceback.
  """


def cache_dir(*subdirs: str) -> str:
  """The cache folder (or a sub-folder of it), created if missing.

  Args:
    *subdirs: path components below the cache root, e.g. "game_trees".

  Returns:
    The absolute path of the folder, which exists on return.

  Raises:
    ValueError: a sub-folder name is empty or absolute, or climbs out of the cache root.
    CacheFolderError: (an `OSError`) the folder cannot be created, or exists but cannot be
      written (a read-only folder or file system); the message names the path and
      `OSPIEL_TEAM_CACHE`.
  """
  root = os.environ.get(ENV_VAR) or os.path.join(os.path.expanduser("~"), ".cache",
                                                 "ospiel_team")
  root = os.path.abspath(root)
  for part in subdirs:
    if not part or os.path.isabs(part) or os.pardir in part.split(os.sep):
      raise ValueError(f"cache sub-folder {part!r} must be a non-empty relative name "
                       "inside the cache folder")
  path = os.path.join(root, *subdirs)
  try:
    os.makedirs(path, exist_ok=True)
  except OSError as e:
    raise CacheFolderError(e.errno, f"cannot create the cache folder {path!r} "
                           f"({e.strerror}); set {ENV_VAR} to a writable folder") from None
  if not os.access(path, os.W_OK | os.X_OK):  # e.g. a read-only folder or file system
    raise CacheFolderError(errno.EACCES, f"cannot write in the cache folder {path!r} "
                           f"(read-only); set {ENV_VAR} to a writable folder")
  return path
