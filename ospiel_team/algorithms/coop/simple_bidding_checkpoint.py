"""Checkpoint files of `simple_bidding_optimum`'s branch and bound: the format and its checks.

A checkpoint is an .npz file holding the kernel's state (`simple_bidding_kernel._new_state`:
every array but the memo table, plus the memo's filled slots), its `meta` (size, lower bound,
table, seconds so far) as JSON, and a SHA-256 digest binding the meta to the arrays.

The kernel runs without bounds checks, so a checkpoint is checked whole before any of its
arrays reaches it: the digest (a damaged file, or a meta edited to another size, is refused),
and every array against the state a fresh solver of that size and table has (shapes, dtypes,
the constants, the counters, the memo's slots, and the paused stack's frames, indices and
parent links).
"""

from __future__ import annotations

import json
import zipfile
import zlib

import numpy as np

from ospiel_team import atomic_io
from ospiel_team.algorithms.coop.simple_bidding_kernel import CAND
from ospiel_team.algorithms.coop.simple_bidding_kernel import ENTER
from ospiel_team.algorithms.coop.simple_bidding_kernel import F_APPLIED
from ospiel_team.algorithms.coop.simple_bidding_kernel import F_J
from ospiel_team.algorithms.coop.simple_bidding_kernel import F_PHASE
from ospiel_team.algorithms.coop.simple_bidding_kernel import F_X
from ospiel_team.algorithms.coop.simple_bidding_kernel import N_B
from ospiel_team.algorithms.coop.simple_bidding_kernel import N_NACTS
from ospiel_team.algorithms.coop.simple_bidding_kernel import N_NCLS
from ospiel_team.algorithms.coop.simple_bidding_kernel import N_PARENT
from ospiel_team.algorithms.coop.simple_bidding_kernel import N_PARENT_I
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_CAND
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_CLS
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_CONSTS
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_CTR
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_FRAME
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_GRP
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_MEMO
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_NODE
from ospiel_team.algorithms.coop.simple_bidding_kernel import S_SCRATCH
from ospiel_team.algorithms.coop.simple_bidding_kernel import SEL

_MEMO_FIELDS = ("memo_idx", "memo_k1", "memo_k2", "memo_v", "memo_ex")
_STATE_FIELDS = tuple(f"s{pos}" for pos in range(S_SCRATCH + 1) if pos != S_MEMO)


def save(path: str, st, meta: dict) -> None:
  """Writes the kernel state `st` and `meta` to the checkpoint file `path`.

  The state is the memo's filled slots and the stack; the file is written atomically, with a SHA-256
  digest binding `meta` to the arrays (`_checkpoint_digest`).
  """
  keys, keys2, vals, ex = st[S_MEMO]
  idx = np.flatnonzero(keys)
  arrays = {f"s{pos}": st[pos] for pos in range(len(st)) if pos != S_MEMO}
  arrays.update(memo_idx=idx, memo_k1=keys[idx], memo_k2=keys2[idx], memo_v=vals[idx],
                memo_ex=ex[idx])
  meta_json = json.dumps(meta)
  atomic_io.savez(path, meta=np.array(meta_json),
                  digest=np.array(_checkpoint_digest(meta_json, arrays)), **arrays)


def load(path: str, st, expect: dict) -> dict:
  """Restores a checkpoint written by `save` into the kernel state `st`.

  Restores into the kernel state `st` a checkpoint written by `save` whose `meta` has the
  items of `expect` (size, lower bound, table); returns its `meta`.

  The file is read whole, its digest checked, and every array checked against `st`'s size and
  table (`_check_checkpoint`) before the kernel's arrays are touched.

  Raises:
    ValueError: naming the file, if it cannot be read (empty, truncated, a bad CRC), its
      digest does not match (damaged, or its meta edited), it is for another size, lower
      bound or table, or an array is out of shape, type or range.
  """
  meta, arrays = _read_checkpoint(path)
  if {key: meta.get(key) for key in expect} != expect:
    raise ValueError(f"checkpoint {path!r} is for {meta}, not {expect}")
  if not isinstance(meta.get("seconds"), (int, float)) or not meta["seconds"] >= 0:
    raise ValueError(f"checkpoint {path!r}: meta 'seconds' is {meta.get('seconds')!r}")
  _check_checkpoint(path, arrays, st)
  keys, keys2, vals, ex = st[S_MEMO]
  for pos in range(len(st)):
    if pos != S_MEMO:
      st[pos][...] = arrays[f"s{pos}"]
  idx = arrays["memo_idx"]
  keys[idx], keys2[idx], vals[idx], ex[idx] = (arrays["memo_k1"], arrays["memo_k2"],
                                               arrays["memo_v"], arrays["memo_ex"])
  return meta


def _checkpoint_digest(meta_json: str, arrays: dict[str, np.ndarray]) -> str:
  """SHA-256 of the meta's JSON text and every array (`atomic_io.content_digest`)."""
  prefix = b"simple_bidding_optimum checkpoint 1\n" + meta_json.encode("utf-8") + b"\n"
  return atomic_io.content_digest({name: arrays[name] for name in _STATE_FIELDS + _MEMO_FIELDS},
                                  prefix)


def _read_checkpoint(path: str) -> tuple[dict, dict[str, np.ndarray]]:
  """(meta, arrays) of the checkpoint at `path`, its digest checked.

  Raises:
    ValueError: naming `path`, if it cannot be read, lacks an entry, or fails its digest.
  """
  try:
    # Opened here: np.load leaves its own handle open when the zip directory is unreadable.
    with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
      missing = [k for k in ("meta", "digest") + _STATE_FIELDS + _MEMO_FIELDS
                 if k not in z.files]
      if missing:
        raise ValueError(f"checkpoint {path!r} lacks {missing} (damaged, or written by a "
                         "version without the digest: delete it to start afresh)")
      meta_json, stored = str(z["meta"]), str(z["digest"])
      arrays = {k: z[k] for k in _STATE_FIELDS + _MEMO_FIELDS}
  except (OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
    raise ValueError(f"checkpoint {path!r} cannot be read: {type(e).__name__}: {e}") from e
  except ValueError as e:
    if repr(path) in str(e):
      raise
    raise ValueError(f"checkpoint {path!r} cannot be read: {e}") from e
  if _checkpoint_digest(meta_json, arrays) != stored:
    raise ValueError(f"checkpoint {path!r} is damaged or edited: its meta and arrays do not "
                     "match their digest")
  try:
    meta = json.loads(meta_json)
  except ValueError as e:
    raise ValueError(f"checkpoint {path!r}: its meta is not JSON: {e}") from e
  if not isinstance(meta, dict):
    raise ValueError(f"checkpoint {path!r}: its meta is not a JSON object")
  return meta, arrays


def _check_checkpoint(path: str, arrays: dict[str, np.ndarray], st) -> None:
  """Raises ValueError (naming `path`) unless `arrays` can be restored into the state `st`.

  Every index the kernel reads from the restored arrays is checked to be within its array and
  consistent with the search's invariants, so that no file makes the kernel read or write out
  of bounds.

  Raises:
    ValueError: an array of another shape or dtype, constants of another size or table,
      counters out of range, memo slots out of the table or repeated, or a paused stack whose
      frames, class and action counts, candidate orders or parent links are not the search's.
  """
  def bad(what):
    raise ValueError(f"checkpoint {path!r} is damaged: {what}")

  _check_state_arrays(arrays, st, bad)
  _check_memo(arrays, st, bad)
  if arrays[f"s{S_CTR}"][6] == 0:
    return  # not paused: the next search sets its root up afresh
  chain = _paused_chain(arrays, st, bad)
  for depth, (g, level) in enumerate(chain):
    _check_frame(arrays, st, g, level, depth == 0, bad)
    if depth > 0:
      _check_call(arrays, st, g, level, chain[depth - 1][0], bad)


def _check_state_arrays(arrays: dict[str, np.ndarray], st, bad) -> None:
  """Every state array has the shape and dtype of `st`'s; the constants are `st`'s."""
  for pos in range(len(st)):
    if pos == S_MEMO:
      continue
    a, want = arrays[f"s{pos}"], st[pos]
    if a.shape != want.shape or a.dtype != want.dtype:
      bad(f"array s{pos} is {a.dtype}{list(a.shape)}, expected {want.dtype}{list(want.shape)} "
          "(another size or table)")
  consts = arrays[f"s{S_CONSTS}"]
  if not np.array_equal(consts, st[S_CONSTS]):
    bad(f"its constants {consts.tolist()} are not those of this size and table "
        f"{st[S_CONSTS].tolist()}")


def _check_memo(arrays: dict[str, np.ndarray], st, bad) -> None:
  """Checks that the memo's slots and counters are ones the kernel writes.

  The memo's slots lie in the table, once each, with keys and flags the kernel writes, and
  the counters agree with them.
  """
  mask = int(st[S_CONSTS][3])
  slots = mask + 1
  memo = st[S_MEMO]
  idx = arrays["memo_idx"]
  if idx.ndim != 1 or idx.dtype.kind not in "iu":
    bad(f"memo_idx is {idx.dtype}{list(idx.shape)}")
  for name, want in zip(_MEMO_FIELDS[1:], memo, strict=True):
    a = arrays[name]
    if a.shape != idx.shape or a.dtype != want.dtype:
      bad(f"{name} is {a.dtype}{list(a.shape)}, expected {want.dtype}{list(idx.shape)}")
  if len(idx) and (idx.min() < 0 or idx.max() >= slots):
    bad(f"memo slots outside the table of {slots}")
  if len(np.unique(idx)) != len(idx):
    bad("a memo slot is stored twice")
  if np.any(arrays["memo_k1"] == 0) or np.any(arrays["memo_ex"] > 1):
    bad("an empty memo key or an exact flag other than 0/1")
  ctr = arrays[f"s{S_CTR}"]
  if ctr[0] != len(idx) or ctr[0] * 10 > mask * 7 + 10:
    bad(f"the memo counter {ctr[0]} for {len(idx)} stored entries in {slots} slots")
  if ctr[1] < 0 or ctr[2] not in (0, 1) or ctr[6] not in (0, 1):
    bad(f"counters {ctr.tolist()}")


def _paused_chain(arrays: dict[str, np.ndarray], st, bad) -> list[tuple[int, int]]:
  """The paused stack as (frame, class level) pairs, from its top down to the root.

  Its parent links are checked (bids increase up the stack).
  """
  k = int(st[S_CONSTS][1])
  node, ctr = arrays[f"s{S_NODE}"], arrays[f"s{S_CTR}"]
  frames = k + 1
  f, i, mode = (int(x) for x in ctr[3:6])
  if mode != ENTER or not 0 <= f < frames:
    bad(f"the paused position (frame {f}, class {i}, mode {mode})")
  chain = []
  level = i
  while True:
    chain.append((f, level))
    if f == 0:
      break
    parent, parent_i = int(node[f, N_PARENT]), int(node[f, N_PARENT_I])
    if not 0 <= parent < f:
      bad(f"frame {f} has parent {parent} (bids must increase up the stack)")
    f, level = parent, parent_i
  return chain


def _check_frame(arrays: dict[str, np.ndarray], st, g: int, level: int, top: bool,
                 bad) -> None:
  """Checks frame g of the paused stack.

  Frame g of the paused stack: its actions, class count, card sets, and the candidates
  chosen by its classes below `level`.
  """
  n, k, full, _ = (int(x) for x in st[S_CONSTS])
  node, cls, grp = arrays[f"s{S_NODE}"], arrays[f"s{S_CLS}"], arrays[f"s{S_GRP}"]
  frame, cand = arrays[f"s{S_FRAME}"], arrays[f"s{S_CAND}"]
  b = g - 1
  ncls, nacts = int(node[g, N_NCLS]), int(node[g, N_NACTS])
  want_acts = list(range(k)) if b < 0 else [-1] + list(range(b + 1, k))
  if nacts != len(want_acts) or grp[g, 0, :nacts].tolist() != want_acts:
    bad(f"frame {g}'s actions {grp[g, 0, :max(0, min(nacts, 8))].tolist()}, expected "
        f"{want_acts}")
  if not 1 <= ncls <= n:
    bad(f"frame {g} has {ncls} card classes (size {n})")
  if not (0 <= level <= ncls if top else 0 <= level < ncls):
    bad(f"frame {g} is at class {level} of {ncls}")
  masks = np.concatenate([cls[g, 0, :ncls], grp[g, 1, :k], node[g, N_B:N_B + 1]])
  if np.any(masks < 0) or np.any(masks > full):
    bad(f"frame {g} holds card sets outside the {n} cards")
  for x in range(level):  # the classes assigned so far: choosing among sorted candidates
    order = cand[g, x, 2, :nacts]
    if frame[g, x, F_PHASE] != SEL or sorted(order.tolist()) != list(range(nacts)):
      bad(f"frame {g} class {x}: phase {frame[g, x, F_PHASE]}, order {order.tolist()}")
    tried = int(frame[g, x, F_X])
    applied = int(frame[g, x, F_APPLIED])
    if not 1 <= tried <= nacts or applied not in [-1] + list(range(max(b, 0), k)):
      bad(f"frame {g} class {x}: candidate {tried} of {nacts}, applied {applied}")
    if applied != grp[g, 0, order[tried - 1]]:
      bad(f"frame {g} class {x} applied {applied}, not its candidate's action")


def _check_call(arrays: dict[str, np.ndarray], st, g: int, level: int, child: int,
                bad) -> None:
  """Checks the level of frame g that called frame `child`.

  The level of frame g below the top called frame `child`: it is valuing its candidates,
  and the candidate it asked is the bid that `child` solves.
  """
  nacts = int(arrays[f"s{S_NODE}"][g, N_NACTS])
  grp, frame = arrays[f"s{S_GRP}"], arrays[f"s{S_FRAME}"]
  j = int(frame[g, level, F_J])
  if (frame[g, level, F_PHASE] != CAND or not 0 <= j < nacts
      or grp[g, 0, j] + 1 != child or frame[g, level, F_APPLIED] != -1):
    bad(f"frame {g} class {level} does not call frame {child} (phase "
        f"{frame[g, level, F_PHASE]}, candidate {j})")
