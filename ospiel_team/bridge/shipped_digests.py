"""The content digests of the bridge files shipped with the package, checked when they load.

The package ships bridge models (`ospiel_team/bridge/models/`) and deal datasets
(`ospiel_team/bridge/data/`). Files the package writes carry their own digest; the shipped
ones predate that, so their digests are kept here, in `shipped_digests.json`, and a shipped
file is compared with its entry each time it is loaded (`check`): a shipped model or dataset
that was edited to other valid numbers, or damaged in a way its format checks cannot see, is
refused with its path instead of changing an answer.

The digest is `atomic_io.content_digest` of the file's arrays, names sorted (the same digest
the package's own dataset files carry). After a shipped file is replaced on purpose, rewrite
the table with `write_table()`; `tests/bridge/test_shipped_digests.py` fails until then.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping

import numpy as np

from ospiel_team import atomic_io
from ospiel_team import errors

BRIDGE_DIR = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(BRIDGE_DIR, "shipped_digests.json")
SHIPPED_FOLDERS = ("models", "data")


def digest(arrays: Mapping[str, np.ndarray]) -> str:
  """The content digest of a file's arrays (names sorted)."""
  return atomic_io.content_digest({k: np.asarray(arrays[k]) for k in sorted(arrays)})


# The array under which a file the package writes stores the digest of its other arrays.
OWN_DIGEST = "content_digest"


def with_own_digest(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
  """`arrays` plus the digest of them under `OWN_DIGEST`, for a file the package writes."""
  return {**arrays, OWN_DIGEST: np.array(digest(arrays))}


def check_own(path: str, arrays: Mapping[str, np.ndarray], what: str) -> dict[str, np.ndarray]:
  """The file's arrays without its own digest, refused when they do not match it.

  Files written before digests existed have none and are returned as they are.

  Args:
    path: the file being loaded.
    arrays: every array of the file, by name.
    what: what the file is, for the message (e.g. "checkpoint").

  Raises:
    errors.DamagedFileError: naming `what` and `path`, when the arrays differ from the digest.
  """
  rest = {k: v for k, v in arrays.items() if k != OWN_DIGEST}
  if OWN_DIGEST in arrays and str(arrays[OWN_DIGEST]) != digest(rest):
    raise errors.DamagedFileError(f"{what} {path!r} is damaged or edited: its arrays do not "
                                  "match their digest")
  return rest


def shipped_name(path: str, bridge_dir: str | None = None) -> str | None:
  """The table key (shipped folder and file name) of `path` if shipped, else None."""
  bridge_dir = BRIDGE_DIR if bridge_dir is None else bridge_dir
  real = os.path.realpath(path)
  for folder in SHIPPED_FOLDERS:
    root = os.path.realpath(os.path.join(bridge_dir, folder))
    if os.path.dirname(real) == root:
      return f"{folder}/{os.path.basename(real)}"
  return None


class DigestTableError(errors.DamagedFileError):
  """The package's own digest table (`shipped_digests.json`) is missing or damaged."""


@functools.cache
def _table(table_path: str) -> dict[str, str]:
  """The table's digests; `DigestTableError` naming the table when it cannot be read."""
  try:
    with open(table_path, encoding="utf-8") as f:
      table = json.load(f)["digests"]
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
      raise TypeError("'digests' is not a mapping of names to digests")
  except (OSError, ValueError, KeyError, TypeError) as e:
    raise DigestTableError(f"the package's digest table {table_path!r} is missing or damaged "
                           f"({type(e).__name__}: {e}): reinstall the package") from None
  return table


def check(path: str, arrays: Mapping[str, np.ndarray], what: str, *,
          bridge_dir: str | None = None, table_path: str | None = None) -> None:
  """Refuses a shipped file whose arrays differ from its recorded digest.

  Files outside the shipped folders, and files in them that the table does not list (a user's
  own), are not checked here.

  Args:
    path: the file being loaded.
    arrays: every array of the file, by name.
    what: what the file is, for the message (e.g. "model file").
    bridge_dir: the folder holding the shipped folders (default `BRIDGE_DIR`).
    table_path: the digest table (default `TABLE`).

  Raises:
    errors.DamagedFileError: naming `what` and `path`, when the digest differs.
  """
  expected = shipped_digest(path, bridge_dir=bridge_dir, table_path=table_path)
  if expected is not None and digest(arrays) != expected:
    raise errors.DamagedFileError(
        f"{what} {path!r} is a file shipped with the package, but its content differs from "
        "the digest recorded for it (edited or damaged): reinstall the package")


def shipped_digest(path: str, *, bridge_dir: str | None = None,
                   table_path: str | None = None) -> str | None:
  """The digest the table records for the shipped file `path` (None: not a listed file).

  Raises:
    DigestTableError: the table cannot be read.
  """
  name = shipped_name(path, bridge_dir)
  if name is None:
    return None
  return _table(TABLE if table_path is None else table_path).get(name)


def compute_table(bridge_dir: str | None = None) -> dict[str, str]:
  """The digest of every .npz file in the shipped folders, by 'folder/name'."""
  bridge_dir = BRIDGE_DIR if bridge_dir is None else bridge_dir
  out = {}
  for folder in SHIPPED_FOLDERS:
    for name in sorted(os.listdir(os.path.join(bridge_dir, folder))):
      if name.endswith(".npz"):
        with np.load(os.path.join(bridge_dir, folder, name), allow_pickle=False) as z:
          out[f"{folder}/{name}"] = digest({k: z[k] for k in z.files})
  return out


def write_table(table_path: str | None = None) -> None:
  """Rewrites the digest table from the shipped files as they are now."""
  record = {"about": "content digests of the shipped bridge models and datasets "
                     "(ospiel_team.bridge.shipped_digests)", "digests": compute_table()}
  atomic_io.write_text(TABLE if table_path is None else table_path,
                       json.dumps(record, indent=1, sort_keys=True) + "\n")
  _table.cache_clear()
