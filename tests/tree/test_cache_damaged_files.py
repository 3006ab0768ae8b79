"""A damaged tree-cache file never changes an answer: it is detected by the digest of its
arrays and meta, and `cached_tree` rebuilds it with a warning naming the file.

Before the digest, a cache with `node_returns` doubled made
`ospiel-team-solve --game "kuhn_poker(players=3)" --teams "0,1|2" --tree_cache DIR` print
-0.0833 (the value is -1/24), and truncated, empty or bit-flipped files ended in BadZipFile /
EOFError / Bad CRC-32 tracebacks.
"""
import contextlib
import io
import json
import os
import warnings

import numpy as np
import pyspiel
import pytest

from ospiel_team.cli import team_solve as team_solve_cli
from ospiel_team.tree import cache as tree_cache

_GAME = "kuhn_poker(players=3)"


def _solve(cache_dir):
  """(exit status, value, stderr, warnings) of the solve command with --tree_cache."""
  out, err = io.StringIO(), io.StringIO()
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      rc = team_solve_cli.main(["team_lp", "--game", _GAME, "--teams", "0,1|2",
                                "--tree_cache", str(cache_dir), "--json"])
  value = json.loads(out.getvalue())["value"] if rc == 0 else None
  return rc, value, err.getvalue(), [str(w.message) for w in caught]


def _stored(cache_dir) -> str:
  rc, value, _, caught = _solve(cache_dir)  # walks and stores the tree
  assert rc == 0 and value == pytest.approx(-1 / 24, abs=1e-9) and not caught
  (name,) = os.listdir(cache_dir)
  return os.path.join(cache_dir, name)


def _assert_rebuilt(cache_dir, path):
  rc, value, _, caught = _solve(cache_dir)
  assert rc == 0, caught
  assert value == pytest.approx(-1 / 24, abs=1e-9)
  assert len(caught) == 1 and repr(path) in caught[0] and "rebuilding" in caught[0]
  # The file was stored again: the next run loads it without a warning.
  rc, value, _, caught = _solve(cache_dir)
  assert rc == 0 and value == pytest.approx(-1 / 24, abs=1e-9) and caught == []


def test_doubled_node_returns_are_detected_and_rebuilt(tmp_path):
  path = _stored(tmp_path)
  with np.load(path) as f:
    data = {k: f[k] for k in f.files}
  data["node_returns"] = data["node_returns"] * 2  # every other entry (the meta) kept
  np.savez(path, **data)
  _assert_rebuilt(tmp_path, path)


@pytest.mark.parametrize("damage", ["empty", "truncated", "bit_flipped", "not_a_zip"])
def test_unreadable_cache_files_are_rebuilt_with_a_warning(tmp_path, damage):
  path = _stored(tmp_path)
  data = open(path, "rb").read()
  if damage == "empty":
    data = b""
  elif damage == "truncated":
    data = data[:len(data) // 2]
  elif damage == "bit_flipped":  # one bit inside the stored node_returns
    with np.load(path) as f:
      raw = f["node_returns"].tobytes()
    at = data.index(raw) + len(raw) // 2
    data = data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:]
  else:
    data = b"this is not an npz file\n" * 10
  with open(path, "wb") as f:
    f.write(data)
  _assert_rebuilt(tmp_path, path)


def test_load_tree_names_the_damaged_file(tmp_path):
  game = pyspiel.load_game(_GAME)
  path = str(tmp_path / "t.npz")
  tree_cache.save_tree(tree_cache.GameTree(game), path)
  with np.load(path) as f:
    data = {k: f[k] for k in f.files}
  data["node_chance_prob"] = data["node_chance_prob"][::-1].copy()
  np.savez(path, **data)
  with pytest.raises(ValueError, match=f"tree cache {path!r} is damaged"):
    tree_cache.load_tree(game, path)
  open(path, "wb").close()
  with pytest.raises(ValueError, match=f"tree cache {path!r} cannot be read"):
    tree_cache.load_tree(game, path)
