r"""Duplicate bridge-bidding matches between two bidders, scored in IMPs.

Each board (a deal of the dataset, with the standard duplicate dealer and vulnerability of its
board number) is bid at two tables: at table 1 bidder A sits North-South and bidder B
East-West, at table 2 the seats are swapped. Both auctions are scored double-dummy
(`BiddingEngine.ns_score`); A's result on the board is ``imps(ns_score_1 - ns_score_2)``
(`scoring.imps_array`), the way a team of four scores a duplicate match (JPS paper, Section 7
and Appendix A; Yeh & Lin 2016). Both tables of a board receive the same random numbers at
each call, so a bidder playing itself bids identically at both tables and scores exactly 0.

Command line::

  ospiel-team-match --bidder_a natural --bidder_b random --boards 1000 \
      [--dataset heldout|heldout2|validation|train|PATH] [--reference_dir DIR] [--out DIR] \
      [--seed S] [--uncontested] [--sample]

writes ``DIR/match.json`` and ``DIR/match.md`` (atomically) and prints the summary. The
per-board results are written as the match goes, one file per batch of boards
(``DIR/boards/``, `BoardStore`), so that a failure late in a match (a full disk) loses no
played board and the same command run again resumes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence

import numpy as np
import tqdm

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.bridge import auction as auction_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders import base
from ospiel_team.bridge.agents.bidders import registry

# Dealer and vulnerability of duplicate boards 1..16 (the cycle repeats every 16 boards).
_BOARD_VUL = "none ns ew both ns ew both none ew both none ns both none ns ew".split()


def interval_decision(low: float, high: float, worse: str) -> str:
  """The pre-registered experiments' rule on a 95% interval of IMPs/board for the candidate.

  Args:
    low: the interval's lower end.
    high: its upper end.
    worse: what the candidate is worse than (named in the answer).

  Returns:
    "kept (interval above 0)", "worse than <worse> (interval below 0)" or "not established".
  """
  if low > 0:
    return "kept (interval above 0)"
  if high < 0:
    return f"worse than {worse} (interval below 0)"
  return "not established"


def board_dealer_vulnerability(board_numbers) -> tuple[np.ndarray, np.ndarray]:
  """Standard duplicate dealer (board 1 = N, 2 = E, ...) and vulnerability code of boards."""
  b = np.asarray(board_numbers, dtype=np.int64)
  if np.any(b < 1):
    raise ValueError(f"board number {b[b < 1][0]} must be >= 1")
  vul_codes = np.array([auction_lib.parse_vulnerability(v) for v in _BOARD_VUL])
  return (b - 1) % 4, vul_codes[(b - 1) % 16]


def clustered_stderr(values: np.ndarray, clusters: np.ndarray) -> float:
  """Cluster-robust standard error of the mean of `values`.

  Boards sharing a cluster id are dependent (e.g. the same deal up to symmetry). The error is
  ``sqrt(G / (G - 1) * sum_g S_g^2) / n`` with ``S_g`` the sum of ``values - mean`` over cluster g
  (G clusters, n values). With one value per cluster it equals the usual ``std(ddof=1) / sqrt(n)``.
  """
  x = np.asarray(values, np.float64)
  c = np.asarray(clusters)
  if x.shape != c.shape[:1] or x.ndim != 1:
    raise ValueError(f"values {x.shape} and clusters {c.shape} must be (n,) arrays")
  _, inv = np.unique(c, return_inverse=True)
  g = int(inv.max()) + 1 if len(inv) else 0
  if g < 2:
    return 0.0
  sums = np.bincount(inv.reshape(-1), weights=x - x.mean(), minlength=g)
  return float(np.sqrt(g / (g - 1) * np.sum(sums ** 2)) / len(x))


@dataclasses.dataclass
class MatchResult:
  """Per-board results of a duplicate match (arrays of length `boards`) and the summary."""
  bidder_a: str
  bidder_b: str
  deal_index: np.ndarray
  dealer: np.ndarray
  vulnerability: np.ndarray
  ns_score_table1: np.ndarray  # A sits N-S
  ns_score_table2: np.ndarray  # B sits N-S
  imps: np.ndarray             # for A
  auctions_table1: list
  auctions_table2: list
  contracts_table1: list
  contracts_table2: list
  clusters: np.ndarray | None = None  # (boards,) cluster id of each board (None: one each)

  @property
  def boards(self) -> int:
    """The number of boards played."""
    return int(len(self.imps))

  @property
  def num_clusters(self) -> int:
    """The number of clusters of equal deals (the boards without cluster ids)."""
    return self.boards if self.clusters is None else int(len(np.unique(self.clusters)))

  @property
  def stderr_clustered(self) -> float:
    """Standard error of the mean IMPs, boards of one cluster summed first (`clustered_stderr`)."""
    if self.clusters is None:
      return self.stderr_imps
    return clustered_stderr(self.imps, self.clusters)

  @property
  def ci95(self) -> tuple[float, float]:
    """Normal 95% interval of the mean IMPs/board from the clustered standard error."""
    m, se = self.mean_imps, self.stderr_clustered
    return (m - 1.959964 * se, m + 1.959964 * se)

  @property
  def mean_imps(self) -> float:
    """Mean IMPs per board for bidder A."""
    return float(np.mean(self.imps)) if self.boards else 0.0

  @property
  def stderr_imps(self) -> float:
    """Standard error of the mean IMPs, boards taken as independent."""
    return float(np.std(self.imps, ddof=1) / np.sqrt(self.boards)) if self.boards > 1 else 0.0

  def summary(self) -> dict:
    """The result's fields as a JSON-ready dict."""
    return {
        "bidder_a": self.bidder_a, "bidder_b": self.bidder_b, "boards": self.boards,
        "imps_per_board_for_a": self.mean_imps, "stderr": self.stderr_imps,
        "stderr_clustered": self.stderr_clustered, "clusters": self.num_clusters,
        "ci95_low": self.ci95[0], "ci95_high": self.ci95[1],
        "total_imps_for_a": int(self.imps.sum()),
        "mean_score_diff_for_a": float(np.mean(self.ns_score_table1 - self.ns_score_table2))
        if self.boards else 0.0,
        "boards_won_by_a": int((self.imps > 0).sum()),
        "boards_won_by_b": int((self.imps < 0).sum()),
        "boards_tied": int((self.imps == 0).sum()),
    }


class BoardStore:
  """Per-batch results of one match in a folder: a resumed match plays only missing batches.

  ``key.json`` identifies the match (bidders, boards, seed, dataset, settings, batch size);
  ``boards_<lo>_<hi>.npz`` holds boards ``lo + 1 .. hi`` (scores, auctions, contracts), each
  written atomically with a digest of its arrays bound to the key and the boards' range
  (`atomic_io.content_digest`): a batch that is damaged, edited or of another match is played
  again. A folder holding another match's results is refused; a damaged ``key.json`` is
  written again (the batches' digests still tell whose they are).
  """

  def __init__(self, folder: str, key: dict):
    self.folder = folder
    self._bind = json.dumps(key, sort_keys=True).encode("utf-8")
    key_path = os.path.join(folder, "key.json")
    if os.path.exists(key_path):
      try:
        with open(key_path, encoding="utf-8") as f:
          stored = json.load(f)
      except (OSError, ValueError) as e:  # UnicodeDecodeError, JSONDecodeError
        stored = e
      if not isinstance(stored, dict):
        print(f"warning: match key {key_path!r} is damaged ({stored}); writing it again",
              file=sys.stderr)
        atomic_io.write_text(key_path, json.dumps(key, indent=1) + "\n")
      elif stored != key:
        diff = sorted(k for k in set(stored) | set(key) if stored.get(k) != key.get(k))
        raise ValueError(f"{folder} holds the boards of another match (differs in {diff}); "
                         "use another output folder or remove it")
    else:
      atomic_io.write_text(key_path, json.dumps(key, indent=1) + "\n")

  def _path(self, lo: int, hi: int) -> str:
    return os.path.join(self.folder, f"boards_{lo:07d}_{hi:07d}.npz")

  def load(self, lo: int, hi: int) -> dict | None:
    """The stored results of boards lo+1..hi, or None when missing or damaged.

    Damaged means empty, truncated or with a bad CRC: then a warning names the file, and the
    boards are played again.
    """
    path = self._path(lo, hi)
    if not os.path.exists(path):
      return None
    try:
      chunk = atomic_io.read_npz(path, "stored boards")
      stored = str(chunk.pop("content_digest", ""))
      if stored != self._digest(lo, hi, chunk):
        raise ValueError(f"stored boards {path!r} do not match their digest (damaged, edited "
                         "or of another match)")
      keys = [f"{what}_table{t}" for what in ("ns_score", "auctions", "contracts")
              for t in (1, 2)]
      bad = [key for key in keys if key not in chunk or chunk[key].shape != (hi - lo,)]
      if bad:
        raise ValueError(f"stored boards {path!r} lack {hi - lo} entries of {bad}")
    except ValueError as e:
      print(f"warning: playing the boards again: {e}", file=sys.stderr)
      return None
    return chunk

  def save(self, lo: int, hi: int, chunk: dict) -> None:
    """Stores the results `chunk` of boards lo+1..hi atomically."""
    arrays = {name: np.asarray(value) for name, value in chunk.items()}
    atomic_io.savez(self._path(lo, hi), **arrays,
                    content_digest=np.asarray(self._digest(lo, hi, arrays)))

  def _digest(self, lo: int, hi: int, arrays: dict) -> str:
    """The digest of batch lo..hi's arrays, bound to this match's key."""
    return atomic_io.content_digest({name: arrays[name] for name in sorted(arrays)},
                                    self._bind + f"\nboards {lo} {hi}\n".encode())

  def count(self) -> int:
    """Number of stored batch files."""
    return sum(1 for f in os.listdir(self.folder) if f.startswith("boards_"))


def _dataset_digest(holders: np.ndarray) -> str:
  return hashlib.sha256(np.ascontiguousarray(holders).tobytes()).hexdigest()[:16]


def play_tables(engine: engine_lib.BiddingEngine, bidder_ns: Sequence[base.Bidder],
                bidder_ew: Sequence[base.Bidder], *, uniforms_per_step: np.ndarray | None = None,
                rng: np.random.Generator | None = None) -> None:
  """Runs the engine's tables to the end; table t's N-S seats use `bidder_ns[t]`.

  `bidder_ns` / `bidder_ew` are per-table sequences of bidders (objects are grouped so each
  bidder acts once per step on all the tables where it is to call), each called as
  ``act_auction(engine.auctions, engine.hands, rows, uniforms)`` (`base.Bidder`). Each step,
  table t gets uniform `uniforms_per_step[step, t]` (drawn from `rng` when not given).
  """
  b = engine.batch_size
  groups = {}
  for t in range(b):
    for side, bidder in ((0, bidder_ns[t]), (1, bidder_ew[t])):
      groups.setdefault(id(bidder), [bidder, np.zeros(b, bool), np.zeros(b, bool)])
      groups[id(bidder)][1 + side][t] = True
  step = 0
  while not engine.done.all():
    if uniforms_per_step is not None:
      u = uniforms_per_step[step]
    else:
      u = rng.random(b)
    cur = engine.current_player
    active = ~engine.done
    calls = np.zeros(b, np.int64)
    side = cur & 1
    for bidder, ns_mask, ew_mask in groups.values():
      rows = np.flatnonzero(active & np.where(side == 0, ns_mask, ew_mask))
      if rows.size:
        calls[rows] = bidder.act_auction(engine.auctions, engine.hands, rows, u[rows])
    engine.step(calls)
    step += 1


def run_match(bidder_a, bidder_b, boards: int, *, dataset=None, seed: int = 0,
              batch_boards: int = 1024, uncontested: bool = False,
              progress: bool = True, reference_dir: str | None = None,
              results_dir: str | None = None) -> MatchResult:
  """Plays `boards` duplicate boards between bidders A and B.

  Board k (1-based) is deal ``perm[k-1]`` of the dataset for a seeded random permutation
  `perm` (no deal repeats; `boards` must not exceed the dataset size), with the standard
  dealer and vulnerability of board number k. Boards whose deals are equal up to a seat
  rotation and suit permutation (`deal.canonical_keys`) form one cluster of the clustered
  standard error.

  Args:
    bidder_a: a `base.Bidder`, or a name / model path for `registry.make_bidder`.
    bidder_b: its opponent, given the same way.
    boards: number of boards (each played at two tables).
    dataset: a `BridgeDataset`, a path, a shipped name ('train', 'validation', 'heldout',
      'heldout2') or None (the default dataset).
    seed: seed of the board order and of the uniforms given to the bidders.
    batch_boards: boards bid together.
    uncontested: East-West may only pass.
    progress: show a tqdm bar.
    reference_dir: folder of the JPS authors' models (for names ``jps_paper_*``).
    results_dir: when given, each batch's results are stored there as it finishes
      (`BoardStore`) and batches already stored by the same match are read instead of played
      (identical results: the random numbers are drawn alike).

  Returns:
    The `MatchResult`.
  """
  boards, seed, batch_boards = _check_match_args(
      bidder_a, bidder_b, boards, dataset, seed=seed, batch_boards=batch_boards,
      uncontested=uncontested, progress=progress, reference_dir=reference_dir,
      results_dir=results_dir)
  a = (registry.make_bidder(bidder_a, reference_dir=reference_dir)
       if isinstance(bidder_a, str) else bidder_a)
  b = (registry.make_bidder(bidder_b, reference_dir=reference_dir)
       if isinstance(bidder_b, str) else bidder_b)
  if isinstance(dataset, str):
    from ospiel_team.bridge import dataset as dataset_lib
    dataset = dataset_lib.resolve_dataset(dataset)
  eng = engine_lib.BiddingEngine(dataset, uncontested=uncontested)
  if boards > eng.num_deals:
    raise errors.UserError(f"boards={boards} exceeds the {eng.num_deals} deals of the dataset")
  store = None if results_dir is None else BoardStore(results_dir, {
      "bidder_a": a.name, "bidder_b": b.name, "greedy_a": a.greedy,
      "greedy_b": b.greedy, "boards": int(boards), "seed": int(seed),
      "uncontested": bool(uncontested), "batch_boards": int(batch_boards),
      "dataset_sha256": _dataset_digest(eng.dataset.holders)})
  rng = np.random.default_rng(seed)
  deal_index = rng.permutation(eng.num_deals)[:boards]
  dealer, vul = board_dealer_vulnerability(np.arange(1, boards + 1))
  bar = tqdm.tqdm(total=boards, desc=f"{a.name} vs {b.name}", unit="board",
                  disable=not progress)
  with bar:
    tables = _play_boards(eng, a, b, deal_index, dealer, vul, rng, batch_boards, store,
                          bar.update)
  return MatchResult(
      bidder_a=a.name, bidder_b=b.name, deal_index=deal_index, dealer=dealer,
      vulnerability=vul, imps=scoring.imps_array(tables["ns_score_table1"]
                                                 - tables["ns_score_table2"]),
      clusters=deal_lib.canonical_keys(eng.dataset.holders[deal_index]), **tables)


def _check_match_args(bidder_a, bidder_b, boards, dataset, *, seed, batch_boards, uncontested,
                      progress, reference_dir, results_dir) -> tuple[int, int, int]:
  """`run_match`'s arguments checked before any model is loaded; (boards, seed, batch_boards).

  Raises:
    errors.UserError: naming the first bad argument.
  """
  for name, bidder in (("bidder_a", bidder_a), ("bidder_b", bidder_b)):
    if not isinstance(bidder, (str, base.Bidder)):
      raise errors.UserError(f"{name} must be a bidder name, a model path or a bidder "
                             f"(bidders.base.Bidder), got {type(bidder).__name__} "
                             f"{bidder!r:.80}")
  if not (dataset is None or isinstance(dataset, (str, os.PathLike))
          or (hasattr(dataset, "holders") and hasattr(dataset, "dd_tricks"))):
    raise errors.UserError(f"dataset must be a BridgeDataset, a shipped name, a path or None, "
                           f"got {type(dataset).__name__} {dataset!r:.80}")
  checks.check_bool("uncontested", uncontested)
  checks.check_bool("progress", progress)
  for name, folder in (("reference_dir", reference_dir), ("results_dir", results_dir)):
    checks.check_type(name, folder, (str, os.PathLike, type(None)), "a folder path or None")
  return (checks.check_int("boards", boards, minimum=1), checks.check_int("seed", seed, minimum=0),
          checks.check_int("batch_boards", batch_boards, minimum=1))


def _play_boards(eng: engine_lib.BiddingEngine, a, b, deal_index: np.ndarray,
                 dealer: np.ndarray, vul: np.ndarray, rng: np.random.Generator,
                 batch_boards: int, store: BoardStore | None,
                 done: Callable[[int], object]) -> dict:
  """Bids the boards batch by batch (or reads the batches `store` holds).

  Each batch draws its uniforms from `rng` whether it is played or read, so a resumed match
  bids like an uninterrupted one; `done(k)` is called after each batch of k boards.

  Returns:
    The `MatchResult` fields of both tables: N-S scores, auctions and contracts.
  """
  boards = len(deal_index)
  ns1 = np.zeros(boards, np.int64)
  ns2 = np.zeros(boards, np.int64)
  auctions1, auctions2, contracts1, contracts2 = [], [], [], []
  for lo in range(0, boards, batch_boards):
    hi = min(boards, lo + batch_boards)
    u = rng.random((auction_lib.MAX_AUCTION_LENGTH, hi - lo))  # drawn alike when stored
    chunk = store.load(lo, hi) if store is not None else None
    if chunk is None:
      chunk = _play_batch(eng, a, b, deal_index[lo:hi], dealer[lo:hi], vul[lo:hi], u)
      if store is not None:
        store.save(lo, hi, chunk)
    ns1[lo:hi], ns2[lo:hi] = chunk["ns_score_table1"], chunk["ns_score_table2"]
    auctions1 += [str(x) for x in chunk["auctions_table1"]]
    auctions2 += [str(x) for x in chunk["auctions_table2"]]
    contracts1 += [str(x) for x in chunk["contracts_table1"]]
    contracts2 += [str(x) for x in chunk["contracts_table2"]]
    done(hi - lo)
  return {"ns_score_table1": ns1, "ns_score_table2": ns2, "auctions_table1": auctions1,
          "auctions_table2": auctions2, "contracts_table1": contracts1,
          "contracts_table2": contracts2}


def _play_batch(eng: engine_lib.BiddingEngine, a, b, deal_index: np.ndarray,
                dealer: np.ndarray, vul: np.ndarray, u: np.ndarray) -> dict:
  """Bids one batch of boards at both tables; the batch's results as arrays."""
  k = len(deal_index)
  eng.reset(np.concatenate([deal_index] * 2), np.concatenate([dealer] * 2),
            np.concatenate([vul] * 2))
  play_tables(eng, [a] * k + [b] * k, [b] * k + [a] * k,
              uniforms_per_step=np.concatenate([u, u], axis=1))
  s = eng.ns_score()
  level, strain, doubled, declarer = eng.contract()
  auctions = [" ".join(eng.auction_strings(t)) for t in range(2 * k)]
  contracts = [scoring.contract_string(int(level[t]), int(strain[t]), int(doubled[t]),
                                       int(declarer[t]) if level[t] else None)
               for t in range(2 * k)]
  return {"ns_score_table1": np.asarray(s[:k], np.int64),
          "ns_score_table2": np.asarray(s[k:], np.int64),
          "auctions_table1": np.asarray(auctions[:k], dtype=str),
          "auctions_table2": np.asarray(auctions[k:], dtype=str),
          "contracts_table1": np.asarray(contracts[:k], dtype=str),
          "contracts_table2": np.asarray(contracts[k:], dtype=str)}


def report(result: MatchResult, *, dataset_holders: np.ndarray | None = None,
           settings: dict | None = None, num_examples: int = 10) -> tuple[dict, str]:
  """(JSON-able dict, Markdown text) for a match: summary plus the first boards in detail."""
  summ = result.summary()
  boards = []
  for i in range(result.boards):
    row = {
        "board": i + 1, "deal_index": int(result.deal_index[i]),
        "dealer": auction_lib.SEAT_CHARS[result.dealer[i]],
        "vulnerability": auction_lib.VULNERABILITY_NAMES[result.vulnerability[i]],
        "table1_auction": result.auctions_table1[i], "table1_contract": result.contracts_table1[i],
        "table1_ns_score": int(result.ns_score_table1[i]),
        "table2_auction": result.auctions_table2[i], "table2_contract": result.contracts_table2[i],
        "table2_ns_score": int(result.ns_score_table2[i]),
        "imps_for_a": int(result.imps[i]),
    }
    if dataset_holders is not None:
      row["deal"] = deal_lib.holders_to_pbn(dataset_holders[result.deal_index[i]])
    boards.append(row)
  data = {"summary": summ, "settings": settings or {}, "boards": boards}
  lines = [
      f"# Duplicate match: {result.bidder_a} (A) vs {result.bidder_b} (B)", "",
      f"- boards: {summ['boards']}",
      f"- IMPs per board for A: **{summ['imps_per_board_for_a']:+.3f} "
      f"± {summ['stderr_clustered']:.3f}** (standard error clustered by deal up to symmetry, "
      f"{summ['clusters']} clusters; per board {summ['stderr']:.3f}); 95% interval "
      f"[{summ['ci95_low']:+.3f}, {summ['ci95_high']:+.3f}]",
      f"- total IMPs for A: {summ['total_imps_for_a']:+d}; boards won A / B / tied: "
      f"{summ['boards_won_by_a']} / {summ['boards_won_by_b']} / {summ['boards_tied']}",
      f"- mean score difference for A: {summ['mean_score_diff_for_a']:+.1f}",
  ]
  for k, v in (settings or {}).items():
    lines.append(f"- {k}: {v}")
  lines += ["", "Table 1: A sits N-S; table 2: B sits N-S. Scores are N-S duplicate scores "
            "(double-dummy).", "",
            "| board | dealer | vul | table 1 auction | contract | N-S | table 2 auction | "
            "contract | N-S | IMPs A |", "|---|---|---|---|---|---|---|---|---|---|"]
  for row in boards[:num_examples]:
    lines.append(f"| {row['board']} | {row['dealer']} | {row['vulnerability']} | "
                 f"{row['table1_auction']} | {row['table1_contract']} | "
                 f"{row['table1_ns_score']} | {row['table2_auction']} | "
                 f"{row['table2_contract']} | {row['table2_ns_score']} | {row['imps_for_a']:+d} |")
  return data, "\n".join(lines) + "\n"


def write_report(result: MatchResult, out_dir: str, *, dataset_holders=None,
                 settings: dict | None = None) -> tuple[str, str]:
  """Writes out_dir/match.json and out_dir/match.md atomically; returns their paths.

  Raises:
    errors.UserError: a bad argument, named, before anything is written.
  """
  checks.check_type("result", result, MatchResult, "a MatchResult (run_match)")
  checks.check_type("out_dir", out_dir, (str, os.PathLike), "a folder path")
  if dataset_holders is not None and not (isinstance(dataset_holders, np.ndarray)
                                          and dataset_holders.ndim == 2):
    raise errors.UserError(f"dataset_holders must be the (N, 52) holders of the match's "
                           f"dataset or None, got {type(dataset_holders).__name__} "
                           f"{dataset_holders!r:.80}")
  checks.check_type("settings", settings, (Mapping, type(None)), "a dict or None")
  data, md = report(result, dataset_holders=dataset_holders, settings=settings)
  jpath = os.path.join(out_dir, "match.json")
  mpath = os.path.join(out_dir, "match.md")
  atomic_io.write_text(jpath, json.dumps(data, indent=1) + "\n")
  atomic_io.write_text(mpath, md)
  return jpath, mpath
