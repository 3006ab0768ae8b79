r"""Cost of a JPSBid searched decision, and how often a search twice as large confirms its change.

  nice -n 15 python benchmarks/bridge_jps_search_cost.py \
      --out experiments/bridge_jps_at_scale/search_cost.json

The roots are ``--roots`` decisions from the self-play of ``--model`` on the ``--dataset``
deals (`jps_bid.selfplay_roots`, seed ``--seed``): one per game, drawn among the decisions with
at least two calls of probability above 0.05 (the decisions the authors' search searches).
For each setting of ``--settings`` (`SETTINGS`: the earlier study's padded layout, the package
default `jps_bid.GameSearch.DEFAULTS` with valid candidates only, the authors' budget
`jps_bid.AUTHORS_BUDGET` with the partner's candidates averaged or maximised, 1-search), the
roots are searched in batches of ``--batch`` (as `jps_bid.GameSearch` searches the decisions
of one self-play step together), the reward the team's raw score (as in training), and the
record gives:

* CPU milliseconds (``time.process_time``: all of the process's threads) and wall
  milliseconds per searched decision, and the policy network's rows per decision (a cost that
  does not depend on the machine's load), the network's jit compilations done before timing;
* the fraction of roots where the search changes the policy's most probable call, and of
  those changes the fraction an independent search with twice the opponent samples (so twice
  the rollouts, other random numbers) confirms: it too values the searched call above the
  policy's (``confirmed``), or picks the same call (``same_call``); the mean estimated gain of
  the changes by the search and by the check (points).

The machine is shared while this runs: the record holds the load average before and after
each setting and says that the timings are not alone.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import sys
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import auction as A
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import jps_bid
from ospiel_team.errors import UserError
from ospiel_team.runner import report

_STUDY = {"depth": 3, "candidates": 5, "rollouts": 5, "candidate_threshold": 0.05,
          "partner": "max"}
SETTINGS = {
    "study_padded": {**_STUDY, "padded": True},   # the 27-run study's layout (625 rollouts)
    "default": jps_bid.GameSearch.DEFAULTS.search_kwargs(),
    "authors": {"depth": 3, **jps_bid.AUTHORS_BUDGET},
    "authors_max": {"depth": 3, **jps_bid.AUTHORS_BUDGET, "partner": "max"},
    "1search": {"depth": 1, **jps_bid.AUTHORS_BUDGET},
    "1search_default": {**jps_bid.GameSearch.DEFAULTS.search_kwargs(), "depth": 1},
}

FLAGS = flags.FLAGS
flags.DEFINE_string("model", "a2c_longer", "Policy searched (a shipped name or an .npz).")
flags.DEFINE_string("dataset", "validation", "Deals of the self-play that gives the roots.")
flags.DEFINE_integer("roots", 1000, "Searched decisions.")
flags.DEFINE_integer("seed", 0, "Seed of the self-play giving the roots.")
flags.DEFINE_integer("search_seed", 1, "Seed of the searches (the check uses this + 1000).")
flags.DEFINE_integer("batch", 32, "Roots searched together.")
flags.DEFINE_list("settings", list(SETTINGS), "Settings measured (names of SETTINGS).")
flags.DEFINE_bool("check", True, "Also run the confirming search (twice the rollouts).")
flags.DEFINE_bool("precompile", True, "Compile the network for every batch size before timing.")
flags.DEFINE_string("profile", "", "Also profile this setting (cProfile, on --profile_roots "
                    "roots): the share of the search's time in the network, the observations "
                    "and the engine's steps.")
flags.DEFINE_integer("profile_roots", 128, "Roots of the profile.")
flags.DEFINE_string("out", "experiments/bridge_jps_at_scale/search_cost.json", "The record.")


class CountingPolicy:
  """Wraps a policy and counts the rows it evaluates."""

  def __init__(self, policy):
    self.policy = policy
    self.rows = 0

  def __call__(self, obs):
    self.rows += len(obs)
    return self.policy(obs)


def _load() -> list[float]:
  return [round(x, 2) for x in os.getloadavg()]


def doubled(kwargs: dict) -> dict:
  """The confirming search: twice the opponent samples (so twice the rollouts), not padded."""
  kw = {k: v for k, v in kwargs.items() if k != "padded"}
  n_o = kw.get("opponent_samples") or kw.get("rollouts", 5)
  return {**kw, "opponent_samples": 2 * n_o}


def precompile(policy, max_rows: int) -> int:
  """Compiles the network for every padded batch size up to `max_rows`; returns how many."""
  if not isinstance(policy, policy_net.PolicyFn):
    return 0
  sizes = sorted({policy_net.padded_size(n) for n in range(1, max_rows + 1)})
  for m in sizes:
    obs = np.zeros((m, policy_net.OBS_SIZE), np.float32)
    obs[:, A.OBS_LEGAL] = 1
    policy(obs)
  return len(sizes)


def measure(policy, roots, kwargs: dict, *, batch: int, seed: int, check: bool) -> dict:
  """Searches `roots` with `kwargs` in batches; the cost and the check's confirmation."""
  counting = CountingPolicy(policy)
  rng = np.random.default_rng(seed)
  check_rng = np.random.default_rng(seed + 1000)
  n = roots.batch_size
  cpu = wall = 0.0
  changed, confirmed, same, gain_search, gain_check, cands = [], [], [], [], [], []
  for lo in range(0, n, batch):
    root = roots.take(np.arange(lo, min(n, lo + batch)))
    zeros = np.zeros(root.batch_size)
    c0, w0 = time.process_time(), time.perf_counter()
    res = jps_bid.joint_search(counting, root, zeros, rng, reward="score",
                               fresh_returns=False, min_candidates=2, **kwargs)
    cpu += time.process_time() - c0
    wall += time.perf_counter() - w0
    rows = np.arange(root.batch_size)
    best = np.argmax(res.candidate_values, axis=1)
    ch = best != 0  # candidate 0 is the policy's most probable call
    changed.append(ch)
    cands.append(res.num_candidates)
    gain_search.append((res.candidate_values[rows, best] - res.candidate_values[:, 0])[ch])
    if check:
      chk = jps_bid.joint_search(policy, root, zeros, check_rng, reward="score",
                                 fresh_returns=False, min_candidates=2, **doubled(kwargs))
      v = chk.candidate_values
      g = (v[rows, best] - v[:, 0])[ch]
      confirmed.append(g > 0)
      same.append((np.argmax(v, axis=1) == best)[ch])
      gain_check.append(g)
  changed = np.concatenate(changed)
  out = {"roots": int(n), "batch": int(batch),
         "cpu_ms_per_decision": 1000 * cpu / n, "wall_ms_per_decision": 1000 * wall / n,
         "network_rows_per_decision": counting.rows / n,
         "mean_candidates": float(np.concatenate(cands).mean()),
         "changed_rate": float(changed.mean()), "changed": int(changed.sum()),
         "mean_estimated_gain_of_changes": float(np.concatenate(gain_search).mean())
         if changed.any() else None}
  if check:
    conf = np.concatenate(confirmed)
    gc = np.concatenate(gain_check)
    out.update({
        "check": doubled(kwargs),
        "confirmed_rate": float(conf.mean()) if len(conf) else None,
        "confirmed_rate_stderr": float(np.sqrt(conf.mean() * (1 - conf.mean()) / len(conf)))
        if len(conf) else None,
        "same_call_rate": float(np.concatenate(same).mean()) if len(conf) else None,
        "mean_check_gain_of_changes": float(gc.mean()) if len(gc) else None})
  return out


# Where the time goes: (module file suffix, function name) -> part.
PROFILE_PARTS = {
    ("agents/policy_net.py", "__call__"): "policy network (forward passes, padding, copies)",
    ("bridge/auction.py", "observation"): "observations",
    ("bridge/auction.py", "apply"): "engine steps",
    ("bridge/auction.py", "legal_mask"): "legal calls",
    ("agents/policy_net.py", "sample_calls"): "sampling the calls",
}


def profile(policy, roots, kwargs: dict, batch: int, seed: int) -> dict:
  """Shares of the search's time (cumulative, cProfile) in the parts of `PROFILE_PARTS`."""
  import cProfile
  import pstats
  rng = np.random.default_rng(seed)
  prof = cProfile.Profile(time.process_time)  # CPU time (all threads), not wall
  for lo in range(0, roots.batch_size, batch):
    root = roots.take(np.arange(lo, min(roots.batch_size, lo + batch)))
    prof.enable()
    jps_bid.joint_search(policy, root, np.zeros(root.batch_size), rng, reward="score",
                         fresh_returns=False, min_candidates=2, **kwargs)
    prof.disable()
  stats = pstats.Stats(prof).stats
  total = max(ct for (_, _, name), (_, _, _, ct, _) in stats.items() if name == "joint_search")
  shares = {}
  for (path, _, name), (_, _, _, ct, _) in stats.items():
    for (suffix, fn), part in PROFILE_PARTS.items():
      if path.endswith(suffix) and name == fn:
        shares[part] = shares.get(part, 0.0) + ct / total
  return {"roots": int(roots.batch_size), "seconds": total,
          "share_of_search_time": dict(sorted(shares.items(), key=lambda kv: -kv[1]))}


def roots_digest(roots) -> str:
  a = roots.auctions
  h = hashlib.sha256()
  for x in (roots.deal_index, a.dealer, a.vulnerability, a.num_calls, a.history):
    h.update(np.ascontiguousarray(x).tobytes())
  return h.hexdigest()[:16]


def main(argv):
  del argv
  unknown = [s for s in FLAGS.settings + [FLAGS.profile] if s and s not in SETTINGS]
  if unknown:
    raise UserError(f"--settings: unknown {unknown}; known: {', '.join(SETTINGS)}")
  if FLAGS.roots < 1 or FLAGS.batch < 1:
    raise UserError(f"--roots and --batch must be >= 1, got {FLAGS.roots}, {FLAGS.batch}")
  atomic_io.check_writable(FLAGS.out)
  base = model_bidder.load_bidder(FLAGS.model)
  policy = policy_net.PolicyFn(base.net, base.params)
  roots = jps_bid.selfplay_roots(policy, FLAGS.dataset, FLAGS.roots, FLAGS.seed)
  record = {
      "command": "python benchmarks/bridge_jps_search_cost.py " + " ".join(sys.argv[1:]),
      "commit": report.short_commit(),
      "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
      "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
      "alone": False,
      "note": "timed on a shared machine (other jobs running, see the load averages): not "
              "alone; the network rows per decision do not depend on the load",
      "model": FLAGS.model, "dataset": FLAGS.dataset, "roots": FLAGS.roots,
      "seed": FLAGS.seed, "search_seed": FLAGS.search_seed, "roots_digest": roots_digest(roots),
      "reward": "score", "settings": {}}
  max_rows = FLAGS.batch * 2 * 2 * 5 * 5 * 5 * 5
  t0 = time.perf_counter()
  record["jit_sizes_compiled_before_timing"] = (precompile(policy, max_rows)
                                                if FLAGS.precompile else 0)
  record["precompile_wall_s"] = time.perf_counter() - t0
  if FLAGS.profile:
    n = min(FLAGS.profile_roots, roots.batch_size)
    record["profile"] = {"setting": FLAGS.profile, "load_before": _load(),
                         **profile(policy, roots.take(np.arange(n)), SETTINGS[FLAGS.profile],
                                   FLAGS.batch, FLAGS.search_seed)}
    print("profile", json.dumps(record["profile"]), flush=True)
    atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  for name in FLAGS.settings:
    load0 = _load()
    row = {"kwargs": SETTINGS[name], "load_before": load0}
    row.update(measure(policy, roots, SETTINGS[name], batch=FLAGS.batch,
                       seed=FLAGS.search_seed, check=FLAGS.check))
    row["load_after"] = _load()
    record["settings"][name] = row
    print(name, json.dumps({k: v for k, v in row.items() if k not in ("kwargs", "check")}),
          flush=True)
    atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  print(f"wrote {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
