"""The package's one cache directory.

Everything the package keeps between runs (walked game trees, JAX's persistent compilation
cache) lives under one folder: `$OSPIEL_TEAM_CACHE` if set, else `~/.cache/ospiel_team`.
Each user of the cache asks for its own sub-folder, e.g. `cache_dir("game_trees")`.
"""

import os

ENV_VAR = "OSPIEL_TEAM_CACHE"


def cache_dir(*subdirs: str) -> str:
  """The cache folder (or a sub-folder of it), created if missing.

  Args:
    *subdirs: path components below the cache root, e.g. "game_trees".

  Returns:
    The absolute path of the folder, which exists on return.

  Raises:
    ValueError: a sub-folder name is empty or absolute, or climbs out of the cache root.
    OSError: the folder cannot be created (the message names the path and `OSPIEL_TEAM_CACHE`).
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
    raise OSError(e.errno, f"cannot create the cache folder {path!r} ({e.strerror}); "
                  f"set {ENV_VAR} to a writable folder") from None
  return path
