r"""Yeh & Lin 2016's uncontested bidding benchmark, data side: cost datasets and IMP costs.

Setting (Yeh & Lin, "Automatic Bridge Bidding Using Deep Reinforcement Learning", ECAI 2016,
arXiv:1607.03290, Sec. 2): only North and South bid, East and West always pass
(`bridge_bidding(uncontested=true)`, `BiddingEngine(uncontested=True)`). The quality of the
reached contract is judged against the North-South cards only, not against the particular
East-West layout: for each North-South pair of hands, the 26 East-West cards are dealt at
random ``k = 5`` times, each of the ``k`` deals is solved double-dummy
(`ospiel_team.bridge.dds`), and each contract's score is averaged over the ``k`` deals. As in
their footnote 2, the declarer of a strain is the North-South player who takes more tricks in
it (per deal). The *cost* of a contract is ``imps(best average score - its average score)``
(IMPs of the score difference, `scoring.imps_array`), so the best contract costs 0; the
benchmark is the mean cost of the contracts a bidder reaches on a held-out set (Yeh & Lin:
2.70 for their best model, 3.00 for WBridge5; lower is better). Bidders are run on it by
`ospiel_team.bridge.agents.training.uncontested`.

Contracts: index 0 = passed out (score 0), index ``1 + j`` = bid ``j`` (call ``3 + j``, 1C..7NT),
undoubled (nobody can double in an uncontested auction: doubles are only of the opponents'
bids). Vulnerability: none by default (Yeh & Lin do not state one).

Cost datasets (``.npz``): ``holders`` (n, 52) uint8 the first of the k deals (its North and
South hands are those of all k), ``redeal_holders`` (n, k, 52), ``dd_tricks`` (n, k, 5, 4)
uint8, ``format``. ``ospiel-team-uncontested --pairs 200 --out FILE`` builds one (chunked,
atomic, resumable, tqdm).

`single_deal_costs` gives the hindsight version on any dataset (k = 1: the actual deal's DDS
table), which needs no extra DDS work.
"""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import tqdm

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge import shipped_digests

NUM_CONTRACTS = 1 + A.NUM_BIDS  # 0 = passed out, 1 + j = bid j
# Stored in every cost dataset, the shipped one included (`load_cost_dataset` does not check it).
FORMAT_TAG = "ospiel_team.bridge.agents.training.uncontested/1"
SHIPPED_COST_DATASET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models",
                                    "uncontested_cost.npz")

_LEVEL = np.concatenate([[0], 1 + np.arange(A.NUM_BIDS) // 5])
_STRAIN = np.concatenate([[0], np.arange(A.NUM_BIDS) % 5])


def redeal_east_west(holders: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
  """(n, 52) deals -> (n, k, 52): North/South keep their cards, E-W cards dealt at random.

  Args:
    holders: (n, 52) deals (or one (52,) deal).
    k: redeals per deal (>= 1).
    rng: draws the E-W hands.

  Returns:
    (n, k, 52) deals.
  """
  h = deal_lib.validate_holders(np.asarray(holders)).reshape(-1, 52)
  if k < 1:
    raise ValueError(f"number of redeals k must be >= 1, got {k}")
  n = h.shape[0]
  out = np.repeat(h[:, None, :], k, axis=1)
  ew_seats = np.array([1] * 13 + [3] * 13, np.uint8)
  for i in range(n):
    ew_cards = np.flatnonzero((h[i] == 1) | (h[i] == 3))
    for j in range(k):
      out[i, j, ew_cards] = rng.permutation(ew_seats)
  return out


def contract_scores(dd_tricks: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(..., 5, 4) DDS tricks -> (..., 36) N-S score of each contract, best N-S declarer.

  Args:
    dd_tricks: (..., 5, 4) double-dummy tricks.
    vulnerable: N-S's vulnerability.

  Returns:
    (..., 36) N-S scores by contract index.
  """
  t = np.asarray(dd_tricks).astype(np.int64)
  ns_best = np.maximum(t[..., :, 0], t[..., :, 2])  # (..., 5) tricks by strain
  tricks = ns_best[..., _STRAIN]  # (..., 36)
  shape = tricks.shape
  s = scoring.contract_score_array(np.broadcast_to(_LEVEL, shape), np.broadcast_to(_STRAIN, shape),
                                   np.zeros(shape, np.int64),
                                   np.full(shape, bool(vulnerable)), tricks)
  return s.astype(np.float64)


def cost_vectors(dd_tricks_redeals: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(n, k, 5, 4) tricks of k redeals -> (n, 36) IMP cost of each contract (Yeh & Lin).

  Args:
    dd_tricks_redeals: (n, k, 5, 4) tricks of each deal's k redeals.
    vulnerable: N-S's vulnerability.

  Returns:
    (n, 36) float64 IMP costs (0 for the best contract).
  """
  t = np.asarray(dd_tricks_redeals)
  if t.ndim != 4 or t.shape[2:] != (5, 4):
    raise ValueError(f"expected (n, k, 5, 4) DDS tricks, got shape {t.shape}")
  avg = contract_scores(t, vulnerable).mean(axis=1)  # (n, 36)
  return scoring.imps_array(avg.max(axis=1, keepdims=True) - avg).astype(np.float64)


def single_deal_costs(dd_tricks: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(n, 5, 4) tricks of the actual deals -> (n, 36) hindsight costs (k = 1).

  Args:
    dd_tricks: (n, 5, 4) double-dummy tricks.
    vulnerable: N-S's vulnerability.

  Returns:
    (n, 36) IMP costs.
  """
  return cost_vectors(np.asarray(dd_tricks)[:, None], vulnerable)


def contract_index(level, strain) -> np.ndarray:
  """Contract index 0..35 from (level 0..7, strain) arrays (level 0 = passed out).

  Args:
    level: levels 0..7.
    strain: strains 0..4 (C, D, H, S, NT).

  Returns:
    The contract indices (0: passed out).
  """
  level = np.asarray(level)
  return np.where(level > 0, 1 + (level - 1) * 5 + np.asarray(strain), 0)


def summarize(c: np.ndarray, reached: np.ndarray) -> dict:
  """Summary statistics of the costs of reached contracts.

  Mean cost (with its standard error), the fraction of best contracts and the 8 most
  frequent contracts of (n,) costs `c` of the reached contract indices `reached`.

  Args:
    c: (n,) costs of the reached contracts.
    reached: (n,) the reached contract indices.

  Returns:
    A dict of pairs, mean_cost, stderr, fraction_best and top_contracts (name -> frequency).
  """
  n = len(c)
  names = ["Pass"] + [A.call_string(3 + j) for j in range(A.NUM_BIDS)]
  counts = np.bincount(reached, minlength=NUM_CONTRACTS)
  top = np.argsort(-counts)[:8]
  return {"pairs": n, "mean_cost": float(c.mean()),
          "stderr": float(c.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
          "fraction_best": float(np.mean(c == 0)),
          "top_contracts": {names[i]: float(counts[i] / n) for i in top if counts[i]}}


def oracle_bidder_costs(cost_data: dict, vulnerable: bool = False) -> np.ndarray:
  """(n,) costs of always reaching the contract that is best on the actual (first) deal.

  Args:
    cost_data: a cost dataset (`load_cost_dataset`).
    vulnerable: N-S's vulnerability.

  Returns:
    (n,) IMP costs.
  """
  costs = cost_vectors(cost_data["dd_tricks"], vulnerable)
  actual = contract_scores(cost_data["dd_tricks"][:, 0], vulnerable)
  return costs[np.arange(len(costs)), actual.argmax(axis=1)]


# ------------------------------------------------------------------------------------------
# Building cost datasets (k redeals + DDS), resumable
# ------------------------------------------------------------------------------------------
def build_cost_dataset(pairs: int, out: str, *, k: int = 5, seed: int = 2016, chunk: int = 20,
                       progress: bool = True, keep_chunks: bool = False) -> dict:
  """Draws `pairs` random deals, redeals E-W k times, solves all with DDS; writes `out`.

  Chunk ``i`` uses ``default_rng(SeedSequence([seed, i]))``; finished chunks are written to
  ``out + '.chunks/'`` (atomic writes) so an interrupted build resumes; once `out` is written
  the chunk folder is removed unless `keep_chunks`.

  Args:
    pairs: the number of deals (N-S hands).
    out: the `.npz` file to write.
    k: redeals of the E-W cards per deal.
    seed: the base seed of the chunks.
    chunk: deals per chunk.
    progress: show a progress bar.
    keep_chunks: keep the chunk folder after `out` is written.

  Returns:
    The arrays written: {'holders': (n, 52), 'redeal_holders': (n, k, 52), 'dd_tricks': (n, k, 5,
      4)}.
  """
  from ospiel_team.bridge import dds
  for name, value, minimum in (("pairs", pairs, 1), ("k", k, 1), ("seed", seed, 0),
                               ("chunk", chunk, 1)):
    checks.check_int(name, value, minimum=minimum)
  checks.check_type("out", out, (str, os.PathLike), "a file path")
  checks.check_bool("progress", progress)
  checks.check_bool("keep_chunks", keep_chunks)
  out = os.fspath(out)
  atomic_io.check_writable(out)
  cdir = out + ".chunks"
  atomic_io.check_writable(cdir, folder=True)
  os.makedirs(cdir, exist_ok=True)
  nchunks = (pairs + chunk - 1) // chunk
  bar = tqdm.tqdm(total=pairs, desc="redeals+DDS", unit="pair", disable=not progress)
  parts = []
  for i in range(nchunks):
    m = min(chunk, pairs - i * chunk)
    path = os.path.join(cdir, f"chunk_{i:05d}_{m}_{k}.npz")
    bind = f"cost chunk seed={seed} index={i} pairs={m} k={k}\n".encode()
    stored = _read_chunk(path, m, k, bind) if os.path.exists(path) else None
    if stored is None:
      rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
      base = deal_lib.random_holders(rng, m)
      red = redeal_east_west(base, k, rng)
      red[:, 0] = base  # the first "redeal" is the deal itself
      tricks = dds.dd_tables(red.reshape(m * k, 52)).reshape(m, k, 5, 4)
      digest = atomic_io.content_digest({"redeal_holders": red, "dd_tricks": tricks}, bind)
      atomic_io.savez(path, compressed=True, redeal_holders=red, dd_tricks=tricks,
                      content_digest=np.asarray(digest))
      stored = (red, tricks)
    parts.append(stored)
    bar.update(m)
  bar.close()
  red = np.concatenate([p[0] for p in parts])
  tricks = np.concatenate([p[1] for p in parts])
  data = {"holders": red[:, 0].copy(), "redeal_holders": red, "dd_tricks": tricks}
  atomic_io.savez(out, compressed=True, format=np.array(FORMAT_TAG),
                  content_digest=np.asarray(_cost_digest(data)), **data)
  if not keep_chunks:
    shutil.rmtree(cdir)
  return data


def _cost_digest(data: dict) -> str:
  """The content digest of a cost dataset's three arrays."""
  return atomic_io.content_digest({key: data[key]
                                   for key in ("holders", "redeal_holders", "dd_tricks")})


def _read_chunk(path: str, m: int, k: int,
                bind: bytes) -> tuple[np.ndarray, np.ndarray] | None:
  """Loads a finished chunk of redeals, or None when its file is damaged.

  (redeal holders, DD tricks) of a finished chunk of `m` pairs, or None (with a warning
  naming the file) when it is damaged or fails its digest (bound by `bind` to the build's
  seed, the chunk's index and size): the chunk is then computed again.
  """
  try:
    z = atomic_io.read_npz(path, "chunk")
    red, tricks = z["redeal_holders"], z["dd_tricks"]
    want = atomic_io.content_digest({"redeal_holders": red, "dd_tricks": tricks}, bind)
    if str(z.get("content_digest", "")) != want:
      raise ValueError(f"chunk {path!r} does not match its digest (edited, or of another "
                       "seed)")
  except (ValueError, KeyError) as e:
    print(f"warning: recomputing chunk {path}: {e!s}", file=sys.stderr)
    return None
  if red.shape != (m, k, 52) or tricks.shape != (m, k, 5, 4):
    print(f"warning: recomputing chunk {path}: shapes {red.shape}, {tricks.shape}",
          file=sys.stderr)
    return None
  return red, tricks


def load_cost_dataset(path: str) -> dict:
  """Loads and checks a cost dataset written by `build_cost_dataset`.

  Args:
    path: the .npz file.

  Returns:
    The arrays {'holders': (n, 52), 'redeal_holders': (n, k, 52), 'dd_tricks': (n, k, 5, 4)}.

  Raises:
    ValueError: naming `path`, if it is missing, cannot be read (empty, truncated, a bad
      CRC), lacks an array, holds inconsistent ones, or holds arrays that do not match their
      digest (files written by `build_cost_dataset`; the shipped cost dataset predates it and
      is checked against its entry in `shipped_digests`).
  """
  if not os.path.exists(path):
    raise ValueError(f"cost dataset {path!r} does not exist")
  z = atomic_io.read_npz(path, "cost dataset")  # a damaged file: one ValueError naming it
  shipped_digests.check(path, z, "cost dataset")  # the shipped one: its recorded digest
  for key in ("holders", "redeal_holders", "dd_tricks"):
    if key not in z:
      raise ValueError(f"cost dataset {path!r} lacks {key!r}")
  d = {k: z[k] for k in ("holders", "redeal_holders", "dd_tricks")}
  if "content_digest" in z and str(z["content_digest"]) != _cost_digest(d):
    raise errors.DamagedFileError(f"cost dataset {path!r} is damaged or edited: its arrays do "
                                  "not match their digest")
  n, k = d["redeal_holders"].shape[:2]
  if d["dd_tricks"].shape != (n, k, 5, 4) or d["holders"].shape != (n, 52):
    raise ValueError(f"cost dataset {path!r}: inconsistent shapes "
                     f"{ {key: v.shape for key, v in d.items()} }")
  ns = (d["redeal_holders"] == 0) | (d["redeal_holders"] == 2)
  if not np.all(np.where(ns, d["redeal_holders"], 0) ==
                np.where(ns[:, :1], d["redeal_holders"][:, :1], 0)):
    raise ValueError(f"cost dataset {path!r}: North-South hands differ between redeals")
  return d
