"""An .npz cache of `GameTree` arrays, keyed by the game and its definition.

Walking a large Python game into a `GameTree` takes a while (comm(length=7): ~2.1 million
histories, about a minute); the arrays themselves load in well under a second. `cached_tree`
returns the tree from the cache when present and otherwise walks the game and stores it
(atomically: written to a temporary file, then renamed). The representative pyspiel state of
each infoset is rebuilt by replaying its action path on first use (solvers that work on the
arrays alone, e.g. the team LP, never pay for it), so the loaded tree converts policies exactly
like a freshly walked one.

The key (`cache_path`) covers the game string and the game's definition
(`definition_digest`): the cache format, the package and OpenSpiel versions, the source of the
Python module(s) defining the game and a canonical dump of the first `DUMP_NODES` histories
(players, legal actions, chance outcomes, keys, returns). A change to a game's rules therefore
misses the cache instead of loading a stale tree.

Each file also stores a SHA-256 digest of its arrays and its meta (game string, format version,
definition), checked on load: a damaged file (truncated, empty, a flipped bit, an edited
array) is never used; `cached_tree` warns (`CacheRebuiltWarning`, naming the file) and
rebuilds it.

The cache directory is `paths.cache_dir("game_trees")`: `$OSPIEL_TEAM_CACHE/game_trees`
(default `~/.cache/ospiel_team/game_trees`).
"""

from __future__ import annotations

import collections
import hashlib
import inspect
import os
import warnings
import zipfile
import zlib

import numpy as np
import pyspiel

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team import paths
from ospiel_team.tree import resolver
from ospiel_team.tree.arrays import ARRAY_NAMES
from ospiel_team.tree.arrays import TreeArrays
from ospiel_team.tree.game_tree import GameTree

FORMAT_VERSION = 3  # 3: the content digest
DUMP_NODES = 2000  # histories of the canonical dump in `definition_digest` (breadth first)
_ARRAYS = list(ARRAY_NAMES)  # the `TreeArrays` schema


def _python_sources(game: pyspiel.Game) -> list[bytes]:
  """The source files of the Python modules defining the game's and its state's classes."""
  sources = []
  for cls in (type(game), type(game.new_initial_state())):
    try:
      path = inspect.getsourcefile(cls)
    except TypeError:  # a class of OpenSpiel's C++ library: its version stands for it
      continue
    if path and path.endswith(".py") and os.path.isfile(path):
      with open(path, "rb") as f:
        sources.append(f.read())
  return sources


def _dump(game: pyspiel.Game, limit: int = DUMP_NODES):
  """The first `limit` histories, breadth first: what each one looks like to the tree."""
  use_infostate = game.get_type().provides_information_state_string
  queue = collections.deque([game.new_initial_state()])
  for _ in range(limit):
    if not queue:
      return
    state = queue.popleft()
    if state.is_terminal():
      yield f"{state.history()} T {state.returns()}"
      continue
    if state.is_chance_node():
      outcomes = state.chance_outcomes()
      yield f"{state.history()} C {outcomes}"
      actions = [a for a, _ in outcomes]
    else:
      player = state.current_player()
      actions = state.legal_actions()
      key = (state.information_state_string(player) if use_infostate
             else state.observation_string(player))
      yield f"{state.history()} P{player} {actions} {key!r}"
    for a in actions[:limit - len(queue)]:  # no more children than the dump can reach
      queue.append(state.child(a))


def definition_digest(game: pyspiel.Game) -> str:
  """A hash of what defines the game's tree (module docstring): changes when its rules do."""
  import ospiel_team
  h = hashlib.sha256()
  h.update(f"format {FORMAT_VERSION}; ospiel_team {ospiel_team.__version__}; pyspiel "
           f"{getattr(pyspiel, '__version__', '?')}; {game}\n".encode())
  for source in _python_sources(game):
    h.update(hashlib.sha256(source).digest())
  for line in _dump(game):
    h.update(line.encode())
    h.update(b"\n")
  return h.hexdigest()


def cache_path(game: pyspiel.Game, directory: str | None = None,
               digest: str | None = None) -> str:
  """The cache file of `game`'s tree.

  File of `game`'s tree: a readable prefix and a hash of the game and its definition
  (`digest`: `definition_digest(game)` when the caller already has it).
  """
  name = str(game)
  digest = (digest or definition_digest(game))[:16]
  safe = "".join(c if c.isalnum() else "_" for c in name)[:60]
  return os.path.join(directory or paths.cache_dir("game_trees"), f"{safe}-{digest}.npz")


class CacheRebuiltWarning(UserWarning):
  """A cached tree could not be used (damaged or stale) and was walked and stored again."""


_STORED = _ARRAYS + ["infoset_keys", "game_string", "format_version", "definition"]


def content_digest(data: dict[str, np.ndarray]) -> str:
  """SHA-256 of the stored arrays of `_STORED`, in that order (`atomic_io.content_digest`)."""
  return atomic_io.content_digest({name: data[name] for name in _STORED})


def save_tree(tree: GameTree, path: str, digest: str | None = None) -> None:
  """Writes the tree's arrays and their content digest to `path` atomically."""
  data = {k: getattr(tree.arrays, k) for k in _ARRAYS}
  data["infoset_keys"] = np.asarray(list(tree.infoset_keys), dtype=str)
  data["game_string"] = np.asarray(str(tree.game))
  data["format_version"] = np.asarray(FORMAT_VERSION)
  data["definition"] = np.asarray(digest or definition_digest(tree.game))
  data["content_digest"] = np.asarray(content_digest(data))
  atomic_io.savez(path, **data)


def _read(path: str) -> dict[str, np.ndarray]:
  """The stored arrays of `path`, their digest checked.

  Raises:
    errors.DamagedFileError: naming `path`, if it cannot be read (empty, truncated, not an
      .npz, a bad CRC), lacks an array, or its arrays do not match their digest.
  """
  try:
    # Opened here: np.load leaves its own handle open when the zip directory is unreadable.
    with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as f:
      missing = [k for k in _STORED + ["content_digest"] if k not in f.files]
      if missing:
        raise errors.DamagedFileError(
            f"tree cache {path!r} lacks {missing} (another format or damaged)")
      data = {k: f[k] for k in _STORED}
      stored = str(f["content_digest"])
  except (OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
    raise errors.DamagedFileError(
        f"tree cache {path!r} cannot be read: {type(e).__name__}: {e}") from e
  except errors.DamagedFileError:
    raise
  except ValueError as e:
    raise errors.DamagedFileError(f"tree cache {path!r} cannot be read: {e}") from e
  if content_digest(data) != stored:
    raise errors.DamagedFileError(
        f"tree cache {path!r} is damaged: its arrays do not match their digest")
  return data


def load_tree(game: pyspiel.Game, path: str, digest: str | None = None) -> GameTree:
  """A `GameTree` of `game` from the arrays at `path` (no walk of the game).

  The representative pyspiel states are replayed on first use (`GameTree.infoset_states`).

  Raises:
    errors.DamagedFileError: naming `path`, if the file is damaged (see `_read`), its arrays
      break the `TreeArrays` invariants, or it holds another game, definition or format.
  """
  f = _read(path)
  if int(f["format_version"]) != FORMAT_VERSION:
    raise errors.DamagedFileError(f"tree cache {path!r}: format {int(f['format_version'])}, "
                                  f"expected {FORMAT_VERSION}")
  if str(f["game_string"]) != str(game):
    raise errors.DamagedFileError(f"tree cache {path!r} holds the tree of "
                                  f"{str(f['game_string'])!r}, not {str(game)!r}")
  if str(f["definition"]) != (digest or definition_digest(game)):
    raise errors.DamagedFileError(
        f"tree cache {path!r} holds a tree of another definition of {str(game)!r} (its rules, "
        "the package or OpenSpiel changed since it was stored)")
  try:
    arrays = TreeArrays(infoset_keys=tuple(str(k) for k in f["infoset_keys"]),
                        **{k: f[k] for k in _ARRAYS})
    return GameTree.from_arrays(game, arrays, builder="cache")
  except errors.UserError as e:
    raise errors.DamagedFileError(f"tree cache {path!r} holds invalid arrays: {e}") from e


def cached_tree(game: str | pyspiel.Game, directory: str | None = None,
                *, progress: bool = False, time_limit: float | None = None) -> GameTree:
  """The game's `GameTree`, from the cache if present, else walked and stored.

  A cache file that cannot be used (damaged, or of another game or definition) is replaced:
  a `CacheRebuiltWarning` names it and says why, and the tree is walked and stored again.
  `cached_tree_status` also says which of these happened.

  Args:
    game: the game or its string.
    directory: the cache folder (default `paths.cache_dir("game_trees")`).
    progress: show a progress bar of a walk.
    time_limit: seconds a walk may take (`GameTree`'s argument; None: no limit).

  Returns:
    The game's `GameTree` (loaded, or walked and stored).
  """
  return cached_tree_status(game, directory, progress=progress, time_limit=time_limit)[0]


CACHE_STATUSES = ("hit", "miss", "rebuilt")


def cached_tree_status(game: str | pyspiel.Game, directory: str | None = None,
                       *, progress: bool = False, time_limit: float | None = None
                       ) -> tuple[GameTree, str]:
  """Runs `cached_tree` and says what the cache did.

  `cached_tree`, and what the cache did: "hit" (loaded), "miss" (no file: walked and
  stored) or "rebuilt" (a file that could not be used: warned, walked and stored again).

  Args:
    game: the game or its string.
    directory: the cache folder (default `paths.cache_dir("game_trees")`).
    progress: show a progress bar of a walk.
    time_limit: seconds a walk may take (`GameTree`'s argument; None: no limit).

  Returns:
    The tree and one of `CACHE_STATUSES`.

  Raises:
    errors.UserError: a bad argument, named, before any walk or file access.
  """
  game = resolver.resolve_game(game)
  if directory is not None:
    checks.check_type("directory", directory, (str, os.PathLike), "a folder path or None")
  progress = checks.check_bool("progress", progress)
  time_limit = checks.check_real("time_limit", time_limit, minimum=0, allow_none=True)
  digest = definition_digest(game)  # once: it walks the first histories of the game
  path = cache_path(game, directory, digest)
  status = "miss"
  if os.path.exists(path):
    try:
      return load_tree(game, path, digest), "hit"
    except errors.DamagedFileError as e:
      warnings.warn(f"{e}; rebuilding it", CacheRebuiltWarning, stacklevel=2)
      status = "rebuilt"
  tree = GameTree(game, progress=progress, time_limit=time_limit)
  save_tree(tree, path, digest)
  return tree, status
