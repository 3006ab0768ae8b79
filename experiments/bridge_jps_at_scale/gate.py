r"""The gate: do the true-deal search's changed calls still gain on the deals the searcher sees?

  nice -n 15 python experiments/bridge_jps_at_scale/gate.py \
      --out experiments/bridge_jps_at_scale/gate.json

JPSBid (Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495, Sec. 7.3) searches with the *true* deal: its
changed call is the best on the deal in front of it, and distilling it into the policy (a
function of what the player sees) helps only if the change also gains on the deals the player
cannot tell apart from the true one. This script measures that, before any long run.

Roots: ``--roots`` decisions of the self-play of ``--model`` on the ``--dataset`` deals
(`jps_bid.selfplay_roots`, seed ``--seed``: one per game, among the decisions with at least
two calls above probability 0.05). At each root every arm of ``--arms`` (`ARMS`) searches on
the true deal as in training (`jps_bid.joint_search`, raw-score reward); with ``--lam`` > 0
each candidate's value is ``(1 - lam) * (true-deal value) + lam * Q(I, a)`` with ``Q`` from
``--q_hook`` (the authors' ``search_new`` mixing), in IMPs / 24 as the trainer mixes them
(`choose`: the true-deal values in points become the IMPs of their difference to the first
candidate; `q_hook.q_a2c_longer` is `a2c_longer` with a fitted Q head, `q_head.py`). Where an
arm's call differs from the policy's most probable call ``g``, the change ``a*`` is scored
three ways, in IMPs for the searcher's side against ``g`` on the same deal, every later call
sampled from the policy (``--rollouts`` rollouts a deal):

* ``infoset``: on ``--deals`` deals drawn from the searcher's view: its own 13 cards, the 39
  others dealt at random, weighted by the policy's probability of the other seats' calls so
  far and resampled by weight (the play-time search's `search_bidder.weighted_deals`, pool
  ``--pool``, tremble ``--tremble``; a root whose weights have an effective sample size below
  ``--min_ess`` is counted and left out), tables from the learned double-dummy estimate
  (`dd_net`, each entry drawn from its predicted distribution);
  With ``--dd dds`` the drawn deals are solved exactly instead (about 0.4 CPU s a deal: for
  a subset of roots), and ``infoset_net`` is the learned tables' value on the same deals;
* ``true_exact``: on the true deal with its exact double-dummy table (``--true_rollouts``);
* ``true_net``: on the true deal with `dd_net` tables (``true_net - true_exact``: the learned
  tables' error; ``infoset - true_net``: what the search's knowledge of the hidden hands was
  worth).

With ``--lam`` > 0 each search arm's root also says whether the Q term changed the search's
choice (``q_flipped``: the call differs from the same search's lambda = 0 choice; the summary
counts them). The record gives, per arm, the mean of each over the changed calls with a 95%
interval (normal,
one root per game so the roots are independent), and the gain per searched decision (the
changed calls' infoset gains with 0 for the others, over all roots with enough evidence).
Roots are processed in chunks of ``--chunk`` with random numbers from ``(--search_seed,
chunk)``; the record is written atomically after each chunk and a rerun with the same flags
resumes (``--cpu_budget_s`` stops a run early; the record says how many roots it holds).
"""

from __future__ import annotations

import datetime
import importlib
import json
import os
import platform
import sys
import time

import numpy as np
import tqdm
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dd_net
from ospiel_team.bridge import dds
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.search import search_bidder
from ospiel_team.bridge.agents.training import jps_bid
from ospiel_team.bridge.agents.training import search_buffer
from ospiel_team.errors import UserError
from ospiel_team.runner import report

ARMS = {
    "jps": {"depth": 3, **jps_bid.AUTHORS_BUDGET},
    "jps_max": {"depth": 3, **jps_bid.AUTHORS_BUDGET, "partner": "max"},
    "1search": {"depth": 1, **jps_bid.AUTHORS_BUDGET},
    "random": None,  # control: a uniformly random other candidate (above 0.05), no search
}
MEASURES = ("infoset", "infoset_net", "true_exact", "true_net")

FLAGS = flags.FLAGS
flags.DEFINE_string("model", "a2c_longer", "Policy searched (a shipped name or an .npz).")
flags.DEFINE_string("dataset", "validation", "Deals of the self-play giving the roots.")
flags.DEFINE_integer("roots", 1000, "Roots (searched decisions).")
flags.DEFINE_integer("seed", 0, "Seed of the self-play giving the roots.")
flags.DEFINE_integer("search_seed", 1, "Seed of the searches and evaluations.")
flags.DEFINE_list("arms", list(ARMS), "Searches compared (names of ARMS).")
flags.DEFINE_integer("chunk", 25, "Roots per chunk (the unit of resumption).")
flags.DEFINE_integer("deals", 64, "Deals drawn from the searcher's view per changed root.")
flags.DEFINE_integer("pool", 2048, "Deals dealt and weighted per changed root.")
flags.DEFINE_float("min_ess", 4.0, "Below this effective sample size a root is left out.")
flags.DEFINE_float("tremble", 0.05, "Other seats' calls: (1 - t) * policy + t * uniform.")
flags.DEFINE_integer("rollouts", 4, "Policy rollouts per drawn deal and call.")
flags.DEFINE_integer("true_rollouts", 64, "Policy rollouts on the true deal per call.")
flags.DEFINE_enum("dd", "net", ["net", "dds"], "Tables of the drawn deals: the learned "
                  "estimate (dd_net) or the exact solver (DDS, about 0.4 CPU s a deal; then "
                  "infoset_net is the learned tables' value on the same deals).")
flags.DEFINE_float("lam", 0.0, "Weight of Q(I, a) in the candidate values (0: true deal only).")
flags.DEFINE_string("q_hook", "", "module:function giving Q(I, a): obs (n, 267) -> (n, 38), "
                    "in IMPs / 24 (needed when --lam > 0), e.g. "
                    "experiments.bridge_jps_at_scale.q_hook:q_a2c_longer.")
flags.DEFINE_float("cpu_budget_s", 0.0, "Stop after this many CPU seconds (0: no limit).")
flags.DEFINE_string("out", "experiments/bridge_jps_at_scale/gate.json", "The record.")
flags.DEFINE_bool("progress", True, "Show a progress bar.")


def load_q_hook(spec: str):
  """The function named ``module:function`` (obs (n, 267) -> Q (n, 38))."""
  module, _, name = spec.partition(":")
  if not module or not name:
    raise UserError(f"--q_hook must be module:function, got {spec!r}")
  try:
    return getattr(importlib.import_module(module), name)
  except (ImportError, AttributeError) as e:
    raise UserError(f"--q_hook {spec!r}: {e}") from None


def choose(res: jps_bid.SearchResult, lam: float, q_fn) -> np.ndarray:
  """Index (R,) of the chosen candidate: argmax of (1 - lam) v + lam Q over valid ones.

  With ``lam`` > 0 the values are mixed as the trainer mixes them (`a2c.A2CTrainer.
  record_search`): the search's raw-score values become the IMPs / 24 of their difference to
  the first candidate (`search_buffer.values_in_imps`), Q is in IMPs / 24 (the Q head's unit),
  and `policy_net.mixed_candidate_values` mixes them.
  """
  v = res.candidate_values
  if lam > 0:
    q = np.take_along_axis(np.asarray(q_fn(res.root_obs), np.float64), res.candidate_calls,
                           axis=1)
    v = policy_net.mixed_candidate_values(search_buffer.values_in_imps(v, "score"), q, lam)
  return np.argmax(v, axis=1)


def evaluate_root(policy, dd, roots, j, changed_calls, options, rng) -> dict:
  """The three measures of the changes `changed_calls` (distinct calls) at root `j`."""
  auctions = roots.auctions
  seat = int(roots.current_player[j])
  greedy = int(np.asarray(changed_calls[0]))
  calls = np.asarray(changed_calls, np.int64)
  out = {}
  wroot, holders, w, ess = search_bidder.weighted_deals(
      policy, auctions, j, seat, roots.hands[j, seat], options, rng)
  out["ess"] = float(ess)
  if wroot is not None:
    idx = np.repeat(np.arange(len(holders)), FLAGS.rollouts)
    tables = {"net": dd.sample_tables(holders[idx], rng)}
    if FLAGS.dd == "dds":
      tables["dds"] = dds.dd_tables(holders)[idx]
    for kind, tricks in tables.items():
      values, _ = search_bidder.candidate_values(
          policy, wroot.take(idx), holders[idx], tricks, w[idx], calls, seat,
          rollout="sample", reward="imps", rng=rng)
      out["infoset" if kind == FLAGS.dd else "infoset_net"] = values[1:].tolist()
    out["distinct_deals"] = int(len(holders))
  n = FLAGS.true_rollouts
  true_h = np.repeat(roots.holders[j:j + 1], n, axis=0)
  one = auctions.take(np.full(n, j))
  exact = np.repeat(roots.dd_tricks[j:j + 1], n, axis=0)
  out["true_exact"] = search_bidder.candidate_values(
      policy, one, true_h, exact, np.ones(n), calls, seat, rollout="sample", reward="imps",
      rng=rng)[0][1:].tolist()
  out["true_net"] = search_bidder.candidate_values(
      policy, auctions.take(np.full(n, j)), true_h, dd.sample_tables(true_h, rng),
      np.ones(n), calls, seat, rollout="sample", reward="imps", rng=rng)[0][1:].tolist()
  out["greedy"] = greedy
  return out


def _interval(x) -> dict:
  x = np.asarray(x, np.float64)
  if len(x) < 2:
    return {"n": int(len(x)), "mean": float(x.mean()) if len(x) else None}
  se = float(x.std(ddof=1) / np.sqrt(len(x)))
  m = float(x.mean())
  return {"n": int(len(x)), "mean": m, "stderr": se, "ci95": [m - 1.96 * se, m + 1.96 * se]}


def summarize(per_root: list[dict], arms) -> dict:
  """Per arm: changed rate, the three measures over changed calls, gain per decision."""
  out = {}
  for arm in arms:
    rows = [r["arms"][arm] for r in per_root]
    changed = [r for r in rows if r["changed"]]
    ok = [r for r in rows if not r["changed"] or "infoset" in r]
    s = {"roots": len(rows), "changed": len(changed),
         "changed_rate": len(changed) / max(len(rows), 1),
         "low_ess": sum(1 for r in changed if "infoset" not in r),
         "search_estimate_points": _interval([r["search_gain_points"] for r in changed
                                              if r["search_gain_points"] is not None])}
    for m in MEASURES:
      s[m] = _interval([r[m] for r in changed if m in r])
    s["infoset_per_searched_decision"] = _interval(
        [r["infoset"] if r["changed"] else 0.0 for r in ok])
    if any("q_flipped" in r for r in rows):
      s["q_flipped"] = sum(1 for r in rows if r.get("q_flipped"))
    out[arm] = s
  return out


def config() -> dict:
  """The flags a record is bound to (a resumed run must use the same)."""
  return {k: getattr(FLAGS, k) for k in ("model", "dataset", "roots", "seed", "search_seed",
                                         "arms", "chunk", "deals", "pool", "min_ess",
                                         "tremble", "rollouts", "true_rollouts", "dd", "lam",
                                         "q_hook")}


def _check_flags():
  """Raises UserError for a bad flag; returns the Q hook (None when --lam is 0)."""
  unknown = [a for a in FLAGS.arms if a not in ARMS]
  if unknown:
    raise UserError(f"--arms: unknown {unknown}; known: {', '.join(ARMS)}")
  for name in ("roots", "chunk", "deals", "rollouts", "true_rollouts"):
    checks.check_int(f"--{name}", getattr(FLAGS, name), minimum=1)
  checks.check_int("--pool", FLAGS.pool, minimum=FLAGS.deals)
  checks.check_real("--lam", FLAGS.lam, minimum=0, maximum=1)
  if FLAGS.lam > 0:
    if not FLAGS.q_hook:
      raise UserError("--lam > 0 needs --q_hook module:function giving Q(I, a)")
    return load_q_hook(FLAGS.q_hook)
  return None


def _read_record(cfg: dict) -> dict:
  """The record at --out to resume (checked against `cfg`), or a new one."""
  if not os.path.exists(FLAGS.out):
    return {"config": cfg, "per_root": [], "cpu_s": 0.0}
  record = atomic_io.read_json(FLAGS.out, "gate record")
  if record["config"] != cfg:
    raise UserError(f"{FLAGS.out} was written with other flags ({record['config']}); "
                    "use another --out or the same flags")
  done = len(record["per_root"])
  if done % FLAGS.chunk and done < FLAGS.roots:
    raise UserError(f"{FLAGS.out}: {done} roots is not a whole number of chunks")
  return record


def _probs_legal(policy, eng):
  """The policy's probabilities and the legal calls at the tables of `eng`."""
  obs = eng.observation()
  probs, _ = policy(obs)
  return np.asarray(probs), policy_net.legal_from_obs(obs)


def run_chunk(policy, dd, chunk, lo: int, rng, q_fn, options) -> list[dict]:
  """Searches the roots of `chunk` (numbered from `lo`) with every arm; evaluates changes."""
  zeros = np.zeros(chunk.batch_size)
  rows = [{"root": lo + j, "deal": int(chunk.deal_index[j]),
           "seat": int(chunk.current_player[j]),
           "auction": " ".join(chunk.auction_strings(j)), "arms": {}}
          for j in range(chunk.batch_size)]
  chosen = {}
  r_idx = np.arange(chunk.batch_size)
  probs, legal = _probs_legal(policy, chunk)
  greedy = policy_net.greedy_calls(probs, legal)
  for j, row in enumerate(rows):
    row["greedy"] = int(greedy[j])
  for arm in FLAGS.arms:
    if ARMS[arm] is None:  # the control: another valid candidate at random
      calls_all, valid = jps_bid.top_candidates(
          probs, legal, A.NUM_CALLS, threshold=jps_bid.AUTHORS_BUDGET["candidate_threshold"])
      n_valid = valid.sum(axis=1)
      pick = 1 + (rng.random(chunk.batch_size) * (n_valid - 1)).astype(np.int64)
      calls = calls_all[r_idx, pick]
      est = np.full(chunk.batch_size, np.nan)
    else:
      res = jps_bid.joint_search(policy, chunk, zeros, rng, reward="score",
                                 fresh_returns=False, min_candidates=2, **ARMS[arm])
      pick = choose(res, FLAGS.lam, q_fn)
      calls = res.candidate_calls[r_idx, pick]
      est = res.candidate_values[r_idx, pick] - res.candidate_values[:, 0]
      # where the Q term changed the same search's choice (lambda > 0 only)
      flipped = pick != choose(res, 0.0, None) if FLAGS.lam > 0 else None
    for j, row in enumerate(rows):
      row["arms"][arm] = {"call": int(calls[j]), "changed": bool(pick[j] != 0),
                          "search_gain_points": None if np.isnan(est[j]) else float(est[j])}
      if ARMS[arm] is not None and flipped is not None:
        row["arms"][arm]["q_flipped"] = bool(flipped[j])
    chosen[arm] = calls
  for j, row in enumerate(rows):
    changes = sorted({int(chosen[a][j]) for a in FLAGS.arms} - {row["greedy"]})
    if not changes:
      continue
    ev = evaluate_root(policy, dd, chunk, j, [row["greedy"]] + changes, options, rng)
    row["ess"] = ev["ess"]
    for a in (row["arms"][arm] for arm in FLAGS.arms):
      if a["changed"]:
        k = changes.index(a["call"])
        a.update({m: float(ev[m][k]) for m in MEASURES if m in ev})
  return rows


def main(argv):
  """Runs (or resumes) the gate and writes its record."""
  del argv
  q_fn = _check_flags()
  atomic_io.check_writable(FLAGS.out)
  cfg = config()
  record = _read_record(cfg)
  options = search_bidder.SearchBidderOptions(k=FLAGS.deals, pool=FLAGS.pool,
                                              min_ess=FLAGS.min_ess, tremble=FLAGS.tremble,
                                              rollout="sample", dd="net")
  base = model_bidder.load_bidder(FLAGS.model)
  policy = policy_net.PolicyFn(base.net, base.params)
  dd = dd_net.load()
  roots = jps_bid.selfplay_roots(policy, FLAGS.dataset, FLAGS.roots, FLAGS.seed)
  done = len(record["per_root"])
  c_start = time.process_time()
  cpu0 = record["cpu_s"]
  bar = tqdm.tqdm(total=FLAGS.roots, initial=done, disable=not FLAGS.progress, desc="gate")
  for lo in range(done, FLAGS.roots, FLAGS.chunk):
    if FLAGS.cpu_budget_s and time.process_time() - c_start > FLAGS.cpu_budget_s:
      break
    hi = min(FLAGS.roots, lo + FLAGS.chunk)
    rng = np.random.default_rng([FLAGS.search_seed, lo // FLAGS.chunk])
    rows = run_chunk(policy, dd, roots.take(np.arange(lo, hi)), lo, rng, q_fn, options)
    record["per_root"].extend(rows)
    record["cpu_s"] = cpu0 + time.process_time() - c_start
    record.update({
        "command": "python experiments/bridge_jps_at_scale/gate.py " + " ".join(sys.argv[1:]),
        "commit": report.short_commit(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
        "load": [round(x, 2) for x in os.getloadavg()],
        "roots_done": len(record["per_root"]),
        "summary": summarize(record["per_root"], FLAGS.arms)})
    atomic_io.write_json(FLAGS.out, record, indent=None)
    bar.update(hi - lo)
  bar.close()
  print(json.dumps(record.get("summary", {}), indent=1))


if __name__ == "__main__":
  app.run(main)
