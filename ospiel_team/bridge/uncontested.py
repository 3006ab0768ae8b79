r"""Yeh & Lin 2016's uncontested bidding benchmark: the IMP cost of the reached contract.

Setting (Yeh & Lin 2016, Sec. 2, `../shared/papers/yeh_lin_2016_bridge_bidding_drl.txt`): only
North and South bid, East and West always pass (`bridge_bidding(uncontested=true)`,
`BiddingEngine(uncontested=True)`). The quality of the reached contract is judged against the
North-South cards only, not against the particular East-West layout: for each North-South pair
of hands, the 26 East-West cards are dealt at random ``k = 5`` times, each of the ``k`` deals is
solved double-dummy (`ospiel_team.bridge.dds`), and each contract's score is averaged over the
``k`` deals. As in their footnote 2, the declarer of a strain is the North-South player who takes
more tricks in it (per deal). The *cost* of a contract is ``imps(best average score - its average
score)`` (IMPs of the score difference, `scoring.imps_array`), so the best contract costs 0; the
benchmark is the mean cost of the contracts a bidder reaches on a held-out set (Yeh & Lin: 2.70
for their best model, 3.00 for WBridge5; lower is better).

Contracts: index 0 = passed out (score 0), index ``1 + j`` = bid ``j`` (call ``3 + j``, 1C..7NT),
undoubled (nobody can double in an uncontested auction: doubles are only of the opponents' bids).
Vulnerability: none by default (Yeh & Lin do not state one), dealer North (their Player 1 bids
first). One difference to Yeh & Lin's protocol: there a Pass by either player ends the auction,
while here the Laws apply (North's opening Pass gives South a chance to open; a Pass after a
bid ends the auction only when the opponents' forced passes follow, i.e. at once).

Cost datasets (``.npz``): ``holders`` (n, 52) uint8 the first of the k deals (its North and South
hands are those of all k), ``redeal_holders`` (n, k, 52), ``dd_tricks`` (n, k, 5, 4) uint8, ``format``.
``python -m ospiel_team.bridge.uncontested --pairs 200 --out FILE`` builds one (chunked, atomic,
resumable, tqdm).

`single_deal_costs` gives the hindsight version on any `dataset` (k = 1: the actual deal's DDS
table), which needs no extra DDS work.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from typing import Optional

import numpy as np
import tqdm

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import scoring

NUM_CONTRACTS = 1 + A.NUM_BIDS  # 0 = passed out, 1 + j = bid j
FORMAT_TAG = "ospiel_team.bridge.uncontested/1"
PUBLISHED_COSTS = {"Yeh & Lin 2016 (best, 4 rounds)": 2.70, "WBridge5": 3.00}

_LEVEL = np.concatenate([[0], 1 + np.arange(A.NUM_BIDS) // 5])
_STRAIN = np.concatenate([[0], np.arange(A.NUM_BIDS) % 5])


def redeal_east_west(holders: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
  """(n, 52) deals -> (n, k, 52): North/South keep their cards, E-W cards dealt at random."""
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
  """(..., 5, 4) DDS tricks -> (..., 36) N-S score of each contract, best N-S declarer."""
  t = np.asarray(dd_tricks).astype(np.int64)
  ns_best = np.maximum(t[..., :, 0], t[..., :, 2])  # (..., 5) tricks by strain
  tricks = ns_best[..., _STRAIN]  # (..., 36)
  shape = tricks.shape
  s = scoring.contract_score_array(np.broadcast_to(_LEVEL, shape), np.broadcast_to(_STRAIN, shape),
                                   np.zeros(shape, np.int64),
                                   np.full(shape, bool(vulnerable)), tricks)
  return s.astype(np.float64)


def cost_vectors(dd_tricks_redeals: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(n, k, 5, 4) tricks of k redeals -> (n, 36) IMP cost of each contract (Yeh & Lin)."""
  t = np.asarray(dd_tricks_redeals)
  if t.ndim != 4 or t.shape[2:] != (5, 4):
    raise ValueError(f"expected (n, k, 5, 4) DDS tricks, got shape {t.shape}")
  avg = contract_scores(t, vulnerable).mean(axis=1)  # (n, 36)
  return scoring.imps_array(avg.max(axis=1, keepdims=True) - avg).astype(np.float64)


def single_deal_costs(dd_tricks: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(n, 5, 4) tricks of the actual deals -> (n, 36) hindsight costs (k = 1)."""
  return cost_vectors(np.asarray(dd_tricks)[:, None], vulnerable)


def contract_index(level, strain) -> np.ndarray:
  """Contract index 0..35 from (level 0..7, strain) arrays (level 0 = passed out)."""
  level = np.asarray(level)
  return np.where(level > 0, 1 + (level - 1) * 5 + np.asarray(strain), 0)


def reached_contracts(bidder, holders: np.ndarray, dd_tricks: Optional[np.ndarray] = None,
                      vulnerability: int = 0, dealer: int = 0, seed: int = 0,
                      batch: int = 1024) -> np.ndarray:
  """Contract indices (n,) a bidder reaches on `holders` in the uncontested auction.

  `bidder` has the `bidders` interface (``act(obs, uniforms)``); E-W's forced passes are made
  by the engine's rules (their only legal call). `dd_tricks` is unused by the auction (pass any
  valid table, default zeros).
  """
  from ospiel_team.bridge import engine as engine_lib  # pylint: disable=g-import-not-at-top
  from ospiel_team.bridge import dataset as dataset_lib  # pylint: disable=g-import-not-at-top
  h = np.asarray(holders, np.uint8)
  t = np.zeros((len(h), 5, 4), np.uint8) if dd_tricks is None else np.asarray(dd_tricks)
  eng = engine_lib.BiddingEngine(dataset_lib.BridgeDataset(h, t), uncontested=True)
  rng = np.random.default_rng(seed)
  out = np.zeros(len(h), np.int64)
  for lo in range(0, len(h), batch):
    idx = np.arange(lo, min(len(h), lo + batch))
    eng.reset(idx, dealer, vulnerability)
    while not eng.done.all():
      active = np.flatnonzero(~eng.done)
      obs = eng.observation()[active]
      calls = np.zeros(len(idx), np.int64)
      ew = (eng.current_player[active] & 1) == 1
      if np.any(~ew):
        calls[active[~ew]] = bidder.act(obs[~ew], rng.random(int((~ew).sum())))
      eng.step(calls)  # E-W rows: Pass (0), their only legal call
    level, strain, doubled, _ = eng.contract()
    if np.any(doubled):
      raise AssertionError("a doubled contract in an uncontested auction")
    out[idx] = contract_index(level, strain)
  return out


def evaluate_costs(bidder, cost_data: dict, vulnerable: bool = False, seed: int = 0) -> dict:
  """Mean Yeh & Lin cost (IMPs) of `bidder` on a cost dataset (`load_cost_dataset`)."""
  costs = cost_vectors(cost_data["dd_tricks"], vulnerable)
  reached = reached_contracts(bidder, cost_data["holders"], vulnerability=1 if vulnerable else 0,
                              seed=seed)
  c = costs[np.arange(len(reached)), reached]
  return summarize(c, reached)


def summarize(c: np.ndarray, reached: np.ndarray) -> dict:
  n = len(c)
  names = ["Pass"] + [A.call_string(3 + j) for j in range(A.NUM_BIDS)]
  counts = np.bincount(reached, minlength=NUM_CONTRACTS)
  top = np.argsort(-counts)[:8]
  return {"pairs": n, "mean_cost": float(c.mean()),
          "stderr": float(c.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
          "fraction_best": float(np.mean(c == 0)),
          "top_contracts": {names[i]: float(counts[i] / n) for i in top if counts[i]}}


def oracle_bidder_costs(cost_data: dict, vulnerable: bool = False) -> np.ndarray:
  """(n,) costs of always reaching the contract that is best on the actual (first) deal."""
  costs = cost_vectors(cost_data["dd_tricks"], vulnerable)
  actual = contract_scores(cost_data["dd_tricks"][:, 0], vulnerable)
  return costs[np.arange(len(costs)), actual.argmax(axis=1)]


# ------------------------------------------------------------------------------------------
# Building cost datasets (k redeals + DDS), resumable
# ------------------------------------------------------------------------------------------
def _atomic_savez(path, **arrays):
  folder = os.path.dirname(os.path.abspath(path))
  os.makedirs(folder, exist_ok=True)
  fd, tmp = tempfile.mkstemp(prefix=".tmp_", suffix=".npz", dir=folder)
  try:
    with os.fdopen(fd, "wb") as f:
      np.savez_compressed(f, **arrays)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def build_cost_dataset(pairs: int, out: str, k: int = 5, seed: int = 2016, chunk: int = 20,
                       progress: bool = True) -> dict:
  """Draws `pairs` random deals, redeals E-W k times, solves all with DDS; writes `out`.

  Chunk ``i`` uses ``default_rng(SeedSequence([seed, i]))``; finished chunks are kept in
  ``out + '.chunks/'`` (atomic writes) so an interrupted build resumes.
  """
  from ospiel_team.bridge import dds  # pylint: disable=g-import-not-at-top
  if pairs < 1 or k < 1 or chunk < 1:
    raise ValueError(f"pairs, k and chunk must be >= 1, got {pairs}, {k}, {chunk}")
  cdir = out + ".chunks"
  os.makedirs(cdir, exist_ok=True)
  nchunks = (pairs + chunk - 1) // chunk
  bar = tqdm.tqdm(total=pairs, desc="redeals+DDS", unit="pair", disable=not progress)
  parts = []
  for i in range(nchunks):
    m = min(chunk, pairs - i * chunk)
    path = os.path.join(cdir, f"chunk_{i:05d}_{m}_{k}.npz")
    if not os.path.exists(path):
      rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
      base = deal_lib.random_holders(rng, m)
      red = redeal_east_west(base, k, rng)
      red[:, 0] = base  # the first "redeal" is the deal itself
      tricks = dds.dd_tables(red.reshape(m * k, 52)).reshape(m, k, 5, 4)
      _atomic_savez(path, redeal_holders=red, dd_tricks=tricks)
    with np.load(path) as z:
      parts.append((z["redeal_holders"], z["dd_tricks"]))
    bar.update(m)
  bar.close()
  red = np.concatenate([p[0] for p in parts])
  tricks = np.concatenate([p[1] for p in parts])
  data = {"holders": red[:, 0].copy(), "redeal_holders": red, "dd_tricks": tricks}
  _atomic_savez(out, format=np.array(FORMAT_TAG), **data)
  return data


def load_cost_dataset(path: str) -> dict:
  """Loads and checks a cost dataset written by `build_cost_dataset`."""
  if not os.path.exists(path):
    raise ValueError(f"cost dataset {path!r} does not exist")
  with np.load(path, allow_pickle=False) as z:
    for key in ("holders", "redeal_holders", "dd_tricks"):
      if key not in z.files:
        raise ValueError(f"cost dataset {path!r} lacks {key!r}")
    d = {k: z[k] for k in ("holders", "redeal_holders", "dd_tricks")}
  n, k = d["redeal_holders"].shape[:2]
  if d["dd_tricks"].shape != (n, k, 5, 4) or d["holders"].shape != (n, 52):
    raise ValueError(f"cost dataset {path!r}: inconsistent shapes "
                     f"{ {key: v.shape for key, v in d.items()} }")
  ns = (d["redeal_holders"] == 0) | (d["redeal_holders"] == 2)
  if not np.all(np.where(ns, d["redeal_holders"], 0) ==
                np.where(ns[:, :1], d["redeal_holders"][:, :1], 0)):
    raise ValueError(f"cost dataset {path!r}: North-South hands differ between redeals")
  return d


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--pairs", type=int, default=200)
  p.add_argument("--k", type=int, default=5)
  p.add_argument("--seed", type=int, default=2016)
  p.add_argument("--chunk", type=int, default=20)
  p.add_argument("--out", required=True)
  a = p.parse_args(argv)
  build_cost_dataset(a.pairs, a.out, k=a.k, seed=a.seed, chunk=a.chunk)
  print(f"wrote {a.out}")


if __name__ == "__main__":
  main()


def shipped_cost_dataset_path() -> str:
  """The small held-out cost set shipped beside the models (ospiel_team/bridge/models/)."""
  return os.path.join(os.path.dirname(os.path.abspath(__file__)), "models",
                      "uncontested_cost.npz")
