r"""Why the play-time search loses: its changed calls taken apart on the validation deals.

The pre-registered search experiment (``experiments/bridge_search``) found the search bidder
``search:best?dd=net&k=32&min_z=1`` worse than its policy alone. This script replays its
selection match (the same bidder, opponent, validation boards, seed and batches, so the same
calls) and keeps every searched call where the search played another call than the policy.
For each such call it measures the gain of the searched call over the policy's call four ways
(IMPs for the caller's side, the rest of the auction played greedily by the policy):

* ``A`` **as decided**: the search's own estimate, over the deals it drew (learned tables);
* ``B`` **fresh deals**: the same estimate over a fresh, independent draw of deals (learned
  tables): ``A - B`` is the winner's curse (the best of noisy means is biased upwards);
* ``C`` **exact tables** (on ``--dds_calls`` of the calls, drawn at random): the fresh deals of
  ``B`` scored by DDS instead of the network: ``B - C`` is the learned tables' error;
* ``D`` **the true deal**: the two calls played out on the board's real deal and scored with
  its DDS table: ``C - D`` is what the sampled deals and the policy's model of the other
  seats get wrong (and ``D``'s mean is what the changes are worth against the policy's own
  continuation).

Means with standard errors clustered by deal, over the changed calls (``A``, ``B``, ``D``) and
over the random subset (all four, paired); a call whose fresh pool has too little evidence
(effective sample size below the search's ``min_ess``) has no ``B`` or ``C`` and is counted.

The changed calls are stored once the match is over (``OUT/changed_calls.npz``; an interrupted
match is replayed from its start), the calls' values every 20 calls (``OUT/record.json``); a
rerun goes on where it stopped and a finished run does nothing.

  python experiments/bridge_search/bridge_search_diagnosis.py
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
import time

import numpy as np
import tqdm
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import dd_net
from ospiel_team.bridge import dds
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.search import search_bidder
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("spec", "search:best?dd=net&k=32&min_z=1", "The search bidder diagnosed.")
flags.DEFINE_string("opponent", "best", "Its opponent in the replayed match.")
flags.DEFINE_string("dataset", "validation", "Deals of the replayed match (never held-out).")
flags.DEFINE_integer("boards", 500, "Boards of the replayed match.")
flags.DEFINE_integer("seed", 1, "Seed of the replayed match.")
flags.DEFINE_integer("batch_boards", 100, "Boards per batch (as the experiment: same calls).")
flags.DEFINE_integer("dds_calls", 200, "Changed calls whose fresh deals are also scored by "
                     "DDS (drawn at random; DDS is the diagnosis's main cost).")
flags.DEFINE_integer("diagnosis_seed", 0, "Seed of the fresh deals and of the DDS subset.")
flags.DEFINE_string("out", "experiments/bridge_search/diagnosis", "Folder of the record and of "
                    "its checkpoint (the changed calls of the replayed match).")
flags.DEFINE_bool("progress", True, "Show progress bars.")

# The loss's components (the plan's reading): name -> the two measures it is the difference of.
COMPONENTS = {"winners_curse (A - B)": "AB", "table_error (B - C)": "BC",
              "deal_model_error (C - D)": "CD"}
CALL_FIELDS = ("seat", "dealer", "vulnerability", "history", "num_calls", "holders",
               "policy_call", "call", "decided_gain")


class RecordingSearch(bidders.AuctionBidder):
  """A search bidder that keeps the auction, hand and choice of every changed call."""

  def __init__(self, bidder: search_bidder.SearchBidder):
    self.bidder = bidder
    self.name, self.greedy = bidder.name, bidder.greedy
    self.calls: list[dict] = []

  def act_auction(self, auctions, hands, rows, uniforms=None):
    calls = self.bidder.act_auction(auctions, hands, rows, uniforms)
    for row, d in zip(np.asarray(rows).reshape(-1), self.bidder.last_decisions, strict=True):
      if d.reason != "searched" or d.call == d.policy_call:
        continue
      holders = np.argmax(np.asarray(hands)[row], axis=0).astype(np.uint8)
      self.calls.append({
          "seat": int(auctions.current_player[row]),
          "dealer": int(auctions.dealer[row]),
          "vulnerability": int(auctions.vulnerability[row]),
          "history": auctions.history[row].astype(np.int8),
          "num_calls": int(auctions.num_calls[row]), "holders": holders,
          "policy_call": d.policy_call, "call": d.call,
          "decided_gain": d.values[d.candidates.index(d.call)]})
    return calls


def replay_match(bidder: search_bidder.SearchBidder, calls_path: str) -> dict:
  """The changed calls of the replayed match (stored in `calls_path`), and its result."""
  if os.path.exists(calls_path):
    stored = atomic_io.read_npz(calls_path, "changed calls")
    return {k: stored[k] for k in stored}
  rec = RecordingSearch(bidder)
  res = match.run_match(rec, FLAGS.opponent, FLAGS.boards, dataset=FLAGS.dataset,
                        seed=FLAGS.seed, batch_boards=FLAGS.batch_boards,
                        progress=FLAGS.progress)
  arrays = {k: np.asarray([c[k] for c in rec.calls]) for k in CALL_FIELDS}
  arrays.update(match_mean=np.float64(res.mean_imps), match_se=np.float64(
      res.stderr_clustered), searched=np.int64(bidder.stats.searched))
  atomic_io.savez(calls_path, compressed=True, **arrays)
  return arrays


def _root(calls: dict, j: int) -> A.Auctions:
  """The auction of changed call `j` as one table."""
  a = A.Auctions(np.array([calls["dealer"][j]]), np.array([calls["vulnerability"][j]]))
  for call in calls["history"][j][:calls["num_calls"][j]]:
    a.apply(np.array([call], np.int64))
  return a


def diagnose_call(bidder, calls: dict, j: int, true_table: np.ndarray, net_fn,
                  with_dds: bool) -> dict:
  """B, C (if `with_dds`) and D of changed call `j` (module docstring)."""
  opt = bidder.options
  seat = int(calls["seat"][j])
  cands = np.array([calls["policy_call"][j], calls["call"][j]], np.int64)
  auc = _root(calls, j)
  own = calls["holders"][j] == seat
  rng = np.random.default_rng([FLAGS.diagnosis_seed, j])
  root, deals, weights, ess = search_bidder.weighted_deals(bidder.policy, auc, 0, seat, own,
                                                           opt, rng)
  kw = dict(rollout=opt.rollout, reward=opt.reward)
  out = {"call": j, "in_dds_subset": bool(with_dds)}
  truth, _ = search_bidder.candidate_values(bidder.policy, auc, calls["holders"][j][None],
                                            true_table[None], np.ones(1), cands, seat, **kw)
  out["D"] = float(truth[1])
  if root is None:  # too little evidence on the fresh pool: no fresh estimate
    return out
  fresh, _ = search_bidder.candidate_values(bidder.policy, root, deals, net_fn(deals),
                                            weights, cands, seat, **kw)
  out["B"] = float(fresh[1])
  if with_dds:
    exact, _ = search_bidder.candidate_values(bidder.policy, root, deals,
                                              dds.dd_tables(deals), weights, cands, seat,
                                              **kw)
    out["C"] = float(exact[1])
  return out


def _mean_se(values, clusters) -> dict:
  values = np.asarray(values, np.float64)
  return {"n": int(len(values)), "mean": float(values.mean()),
          "se": float(match.clustered_stderr(values, np.asarray(clusters)))}


def summarize(calls: dict, rows: list[dict]) -> dict:
  """Means of A, B, D over the changed calls, and of all four and their differences over the
  DDS subset (paired), with standard errors clustered by deal."""
  a = np.asarray(calls["decided_gain"], np.float64)
  deal = np.unique(calls["holders"], axis=0, return_inverse=True)[1].reshape(-1)  # clusters
  by = {r["call"]: r for r in rows}
  out = {"all_changed": {"A": _mean_se(a[list(by)], deal[list(by)])},
         "fresh_draw_too_little_evidence": sum("B" not in r for r in rows)}
  for key in ("B", "D"):
    js = [j for j in by if key in by[j]]
    out["all_changed"][key] = _mean_se([by[j][key] for j in js], deal[js])
  sub = [j for j in by if "C" in by[j]]
  if sub:
    vals = {"A": a[sub], **{k: np.array([by[j][k] for j in sub]) for k in "BCD"}}
    out["dds_subset"] = {k: _mean_se(v, deal[sub]) for k, v in vals.items()}
    for name, (x, y) in COMPONENTS.items():
      out["dds_subset"][name] = _mean_se(vals[x] - vals[y], deal[sub])
    out["main_cause"] = main_cause(out["dds_subset"])
  return out


def main_cause(subset: dict) -> str | None:
  """The plan's reading: the component with the largest mean whose normal 95% interval
  excludes 0 (None if none does)."""
  parts = [k for k in COMPONENTS if abs(subset[k]["mean"]) > 1.96 * subset[k]["se"]]
  return max(parts, key=lambda k: subset[k]["mean"]) if parts else None


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  if FLAGS.dataset in ("heldout", "heldout2"):
    raise app.UsageError(f"--dataset {FLAGS.dataset}: the diagnosis uses no held-out deals")
  bidder = search_bidder.make_search_bidder(FLAGS.spec)
  os.makedirs(FLAGS.out, exist_ok=True)
  path = os.path.join(FLAGS.out, "record.json")
  settings = {k: getattr(FLAGS, k) for k in ("spec", "opponent", "dataset", "boards", "seed",
                                             "batch_boards", "dds_calls", "diagnosis_seed")}
  if os.path.exists(path):
    record = atomic_io.read_json(path, "search diagnosis record")
    if record["settings"] != settings:
      raise SystemExit(f"{path}: recorded with other settings; use another --out")
    if record.get("done"):
      print(text_summary(record))
      return
  else:
    record = {"settings": settings, "rows": [], "command": "python benchmarks/"
              "bridge_search_diagnosis.py " + " ".join(sys.argv[1:]),
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
              "commit": report.short_commit(), "date": datetime.date.today().isoformat(),
              "load_before": [round(x, 2) for x in os.getloadavg()]}
  t0 = time.process_time()
  calls = replay_match(bidder, os.path.join(FLAGS.out, "changed_calls.npz"))
  n = len(calls["call"])
  record["match"] = {"mean": float(calls["match_mean"]), "se": float(calls["match_se"]),
                     "searched_calls": int(calls["searched"]), "changed_calls": n}
  ds = dataset_lib.resolve_dataset(FLAGS.dataset)
  index = {h.tobytes(): i for i, h in enumerate(np.asarray(ds.holders, np.uint8))}
  subset = set(np.random.default_rng(FLAGS.diagnosis_seed).permutation(n)[:FLAGS.dds_calls]
               .tolist())
  net_fn = dd_net.load().table_fn(seed=FLAGS.diagnosis_seed)
  done = {r["call"] for r in record["rows"]}
  for j in tqdm.tqdm(range(n), desc="changed calls", disable=not FLAGS.progress):
    if j in done:
      continue
    table = ds.dd_tricks[index[calls["holders"][j].tobytes()]]
    record["rows"].append(diagnose_call(bidder, calls, j, table, net_fn, j in subset))
    if len(record["rows"]) % 20 == 0:
      t0 = _save(path, record, calls, t0)
  record["load_after"] = [round(x, 2) for x in os.getloadavg()]
  record["done"] = True
  _save(path, record, calls, t0)
  print(text_summary(record))


def _save(path: str, record: dict, calls: dict, t0: float) -> float:
  """Writes the record with its summary and CPU seconds so far; returns the new start time."""
  record["summary"] = summarize(calls, record["rows"])
  record["cpu_s"] = round(record.get("cpu_s", 0.0) + time.process_time() - t0, 1)
  atomic_io.write_json(path, record, indent=1)
  return time.process_time()


def text_summary(record: dict) -> str:
  """The record's match and summary as lines of text."""
  lines = [f"replayed match: {record['match']['mean']:+.3f} ± {record['match']['se']:.3f} "
           f"IMPs/b, {record['match']['changed_calls']} changed calls"]
  for part, stats in record["summary"].items():
    if not isinstance(stats, dict):
      lines.append(f"{part}: {stats}")
      continue
    for key, s in stats.items():
      lines.append(f"{part:12s} {key:26s} {s['mean']:+.3f} ± {s['se']:.3f} (n={s['n']})")
  return "\n".join(lines)


if __name__ == "__main__":
  app.run(main)
