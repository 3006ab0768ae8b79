"""Damaged, edited or crafted checkpoints of the simple_bidding branch and bound are refused
before its numba kernel (which runs without bounds checks) sees them.

A digest binds the checkpoint's meta to its arrays, and every array is checked against the
solver's size and table. Before, a checkpoint whose stack or node array was overwritten crashed
the process, and one whose meta was edited to another size of the same number of bids
resumed to a wrong total reported as proven optimal. The resumes run in a subprocess, so that
a crash shows as a failed test.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

from ospiel_team.algorithms.coop import simple_bidding_checkpoint as sb_checkpoint
from ospiel_team.algorithms.coop import simple_bidding_kernel as sb_kernel
from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo

OPTIMUM = {9: 468, 10: 658}  # totals over the N^2 deals (the module's docstring: the MIP agrees)

_RESUME = """
import json, sys
from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo
try:
  r = sbo.solve(int(sys.argv[2]), hash_log2=18, checkpoint=sys.argv[1])
  print(json.dumps(dict(total=r.total, proven=r.proven_optimal)))
except ValueError as e:
  print(json.dumps(dict(error=str(e))))
"""


def _resume(path, size):
  """The result of resuming solve(size) from `path` in a fresh process: {total, proven} or
  {error}; a crash fails the test."""
  res = subprocess.run([sys.executable, "-c", _RESUME, str(path), str(size)],
                       capture_output=True, text=True, timeout=300)
  assert res.returncode == 0, (res.returncode, res.stderr[-2000:])
  return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def paused(tmp_path_factory):
  """A checkpoint of solve(10) paused with a stack several frames deep."""
  path = tmp_path_factory.mktemp("ck") / "bb.npz"
  chunk = sbo._CHUNK
  sbo._CHUNK = 40
  calls = []

  def progress(states, entries):
    calls.append(states)
    if len(calls) == 3:
      raise KeyboardInterrupt

  try:
    with pytest.raises(KeyboardInterrupt):
      sbo.solve(10, hash_log2=18, checkpoint=str(path), checkpoint_seconds=1e9,
                progress=progress)
  finally:
    sbo._CHUNK = chunk
  with np.load(path) as z:
    ctr = z[f"s{sb_kernel.S_CTR}"]
  assert ctr[6] == 1 and ctr[3] >= 2  # paused, two or more frames above the root
  return path.read_bytes()


def _entries(data: bytes, tmp_path):
  path = tmp_path / "src.npz"
  path.write_bytes(data)
  with np.load(path) as z:
    return {k: z[k] for k in z.files}


def _write(tmp_path, entries, redigest):
  path = tmp_path / "bb.npz"
  if redigest:  # a crafted file: the digest recomputed over the edited content
    entries["digest"] = np.array(
        sb_checkpoint._checkpoint_digest(str(entries["meta"]), entries))
  np.savez(path, **entries)
  return path


def test_the_untouched_checkpoint_resumes_to_the_optimum(tmp_path, paused):
  path = tmp_path / "bb.npz"
  path.write_bytes(paused)
  assert _resume(path, 10) == dict(total=OPTIMUM[10], proven=True)


@pytest.mark.parametrize("redigest", [False, True])
def test_a_meta_edited_to_another_size_is_refused(tmp_path, paused, redigest):
  # Sizes 9 and 10 have the same 5 bids, so every array has the same shape.
  entries = _entries(paused, tmp_path)
  meta = json.loads(str(entries["meta"]))
  entries["meta"] = np.array(json.dumps(dict(meta, size=9)))
  path = _write(tmp_path, entries, redigest)
  out = _resume(path, 9)
  assert "error" in out, out
  assert repr(str(path)) in out["error"]
  assert ("constants" if redigest else "digest") in out["error"]


@pytest.mark.parametrize("edit", ["node_garbage", "paused_frame", "class_count", "parent",
                                  "candidate_order", "called_candidate", "memo_slot",
                                  "memo_counter", "dtype"])
@pytest.mark.parametrize("redigest", [False, True])
def test_an_overwritten_stack_or_node_array_is_refused(tmp_path, paused, edit, redigest):
  e = _entries(paused, tmp_path)
  node, ctr = e[f"s{sb_kernel.S_NODE}"], e[f"s{sb_kernel.S_CTR}"]
  frame, cand = e[f"s{sb_kernel.S_FRAME}"], e[f"s{sb_kernel.S_CAND}"]
  f = int(ctr[3])
  if edit == "node_garbage":
    e[f"s{sb_kernel.S_NODE}"] = np.random.default_rng(0).integers(-2**40, 2**40, node.shape)
  elif edit == "paused_frame":
    ctr[3] = 1 << 40
  elif edit == "class_count":
    node[f, sb_kernel.N_NCLS] = 1 << 30
  elif edit == "parent":
    node[f, sb_kernel.N_PARENT] = f
  elif edit == "candidate_order":
    cand[0, 0, 2, :] = 1 << 33
  elif edit == "called_candidate":
    parent, parent_i = int(node[f, sb_kernel.N_PARENT]), int(node[f, sb_kernel.N_PARENT_I])
    frame[parent, parent_i, sb_kernel.F_J] = 1 << 35
  elif edit == "memo_slot":
    e["memo_idx"][0] = 1 << 40
  elif edit == "memo_counter":
    ctr[0] = -(1 << 40)
  else:
    e[f"s{sb_kernel.S_NODE}"] = node.astype(np.float64)
  path = _write(tmp_path, e, redigest)
  out = _resume(path, 10)
  assert "error" in out, out
  assert repr(str(path)) in out["error"]
  assert ("is damaged: " if redigest else "digest") in out["error"]


@pytest.mark.parametrize("damage", ["empty", "truncated", "bit_flipped", "not_a_zip"])
def test_unreadable_checkpoints_are_one_value_error_naming_the_file(tmp_path, paused, damage):
  data = paused
  if damage == "empty":
    data = b""
  elif damage == "truncated":
    data = data[:len(data) // 2]
  elif damage == "bit_flipped":  # one bit inside the stored node array
    raw = _entries(paused, tmp_path)[f"s{sb_kernel.S_NODE}"].tobytes()
    at = data.index(raw) + len(raw) // 3
    data = data[:at] + bytes([data[at] ^ 0x04]) + data[at + 1:]
  else:
    data = b"garbage\n" * 100
  path = tmp_path / "bb.npz"
  path.write_bytes(data)
  out = _resume(path, 10)
  assert "error" in out, out
  assert out["error"].startswith(f"checkpoint {str(path)!r} ")
