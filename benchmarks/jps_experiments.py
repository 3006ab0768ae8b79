r"""The JPS paper's table (Sec. 6): CFR1k, CFR1k+JPS and sampled JPS on the collaborative games.

For every game and seed: CFR (OpenSpiel's algorithm, vectorized on the game tree by
`tree_cfr`, equal to `cfr.CFRSolver`) runs `--cfr_iterations` iterations from a random initial
policy seeded by the seed; JPS (exact, and sampled with k in `--samples`) then starts from
CFR's last-iterate (current) policy. Depth D as in the paper: 3 for simple_bidding(size=16)
and mini_bridge(size=4, 5), full depth elsewhere (`--depths`). For one seed per game the
script also times the JPS searches against brute-force evaluation of the same candidates
(`evaluation.game_value` per candidate, measured on a random sample of them and extrapolated).

Usage (small defaults):
  python benchmarks/jps_experiments.py --seeds 2 --json_out out/jps.json --md_out out/jps.md

The paper's games:
  --games "comm(length=3),comm(length=5),comm(length=6),comm(length=7),tiny_hanabi,\
simple_bidding(size=4),simple_bidding(size=8),simple_bidding(size=16),mini_bridge(size=3),\
mini_bridge(size=4),mini_bridge(size=5)"

Results of each (game, seed) are stored as soon as they are computed in `--store` (JSON,
written atomically) and reused on the next run, so a long run can be resumed or extended
with more seeds. `--workers 2` runs chunks of seeds in two processes (the results are the
same: every seed's CFR and JPS depend only on the seed). `--json_out` holds one row per
(game, method) with the mean and best over seeds and the number of seeds; `--md_out` the
Markdown table.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from concurrent import futures

import numpy as np
import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.nash import cfr as tree_cfr
from ospiel_team.tree import cache as tree_cache
from ospiel_team.tree.game_tree import GameTree

FLAGS = flags.FLAGS
flags.DEFINE_list("games", ["comm(length=3)", "tiny_hanabi", "simple_bidding(size=4)",
                            "mini_bridge(size=3)"], "Games (pyspiel strings).")
flags.DEFINE_integer("seeds", 2, "Number of seeds (0 .. seeds-1, from --first_seed).")
flags.DEFINE_integer("first_seed", 0, "First seed.")
flags.DEFINE_list("game_seeds", [], "Per-game seed counts that replace --seeds, as game=N "
                  "(e.g. \"comm(length=7)=20\": the paper's protocol runs as many seeds of the two "
                  "largest Comm games as fit).")
flags.DEFINE_integer("cfr_iterations", 1000, "CFR iterations before JPS (the paper: 1000).")
flags.DEFINE_list("samples", ["1", "5", "20"], "k of sampled JPS (empty: none).")
flags.DEFINE_integer("sampled_iterations", 100, "Iterations of sampled JPS (the paper: 100).")
flags.DEFINE_list("depths", ["simple_bidding(size=16)=3", "mini_bridge(size=4)=3",
                             "mini_bridge(size=5)=3"],
                  "game=D search depths; other games search to the end (the paper's choice).")
flags.DEFINE_integer("brute_force_sample", 200,
                     "Candidates evaluated by brute force per search in the speed comparison "
                     "(0: skip it).")
flags.DEFINE_float("brute_force_seconds", 30.0,
                   "Time cap of the brute-force sample per game (at least 3 candidates per "
                   "starting depth are evaluated).")
flags.DEFINE_enum("protocol", "paper", ["paper", "openspiel"],
                  "paper: the authors' code (facebookresearch/jps simple_game): CFR with "
                  "simultaneous updates and exploration noise 0.01, CFR1k = CFR's purified "
                  "last iterate, JPS with the authors' schedule, random tie-breaking and "
                  "starting depths. openspiel: OpenSpiel's CFRSolver (alternating updates) "
                  "and our JPS schedule (passes over every starting depth, first maximal "
                  "chain).")
flags.DEFINE_list("sampled_games", ["tiny_hanabi()", "simple_bidding(size=16)"],
                  "Games on which sampled JPS runs (the paper's Table 2); 'all' for every game.")
flags.DEFINE_bool("our_jps", True, "With --protocol=paper, also run our JPS schedule from the "
                  "same CFR policy (column 'CFR+JPS (ours)').")
flags.DEFINE_integer("batch", 0, "Seeds per batched CFR run (0: as many as keep the "
                     "batch's per-node arrays near 4M entries).")
flags.DEFINE_integer("workers", 1, "Processes that run chunks of seeds in parallel (the "
                     "2-core machine: 2). Results do not depend on it.")
flags.DEFINE_bool("aggregate_only", False, "Only write the outputs from the store.")
flags.DEFINE_list("merge_from", [], "Other stores (same configuration, e.g. of runs in "
                  "parallel processes) whose seeds are merged into --store first.")
flags.DEFINE_string("store", None, "Per-(game, seed) results store (default: json_out + "
                    "'.store.json', or none).")
flags.DEFINE_string("json_out", None, "Output JSON (one row per game and method).")
flags.DEFINE_string("md_out", None, "Output Markdown table.")


_atomic_write = atomic_io.write_text


def _depths(spec: list[str]) -> dict[str, int]:
  out = {}
  for item in spec:
    game, _, d = item.rpartition("=")
    if not game or not d.isdigit() or int(d) < 1:
      raise ValueError(f"--depths entry {item!r} is not game=D with D >= 1")
    out[str(pyspiel.load_game(game))] = int(d)
  return out


def run_seeds(tree: GameTree, seeds: list[int], depth, cfr_iterations: int,
              samples: list[int], sampled_iterations: int, protocol: str = "paper",
              our_jps: bool = True):
  """CFR from seeded random policies (one batch), then exact and sampled JPS per seed.

  protocol "paper" follows the authors' code (facebookresearch/jps, simple_game/main.cpp,
  cfr_opt.h, search.h): CFR with simultaneous updates and exploration noise 0.01 from a
  random policy; "CFR1k" is CFR's purified last iterate; JPS starts from the (unpurified)
  last iterate with their schedule (`schedule="reference"`, `tie_break="random"`, their
  starting depths). "CFR+JPS (ours)" is our schedule from the same policy. protocol
  "openspiel" is OpenSpiel's CFRSolver (alternating updates) and our schedule only.

  Returns one result dict per seed and CFR's last-iterate policies [B, I, A].
  """
  t0 = time.perf_counter()
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in seeds])
  if protocol == "paper":
    solver = tree_cfr.BatchedTreeCFRSolver(tree, init, alternating_updates=False,
                                           exploration=0.01, noise_seeds=np.asarray(seeds))
  else:
    solver = tree_cfr.BatchedTreeCFRSolver(tree, init)
  for _ in range(cfr_iterations):
    solver.evaluate_and_update_policy()
  cfr_seconds = (time.perf_counter() - t0) / len(seeds)
  curs = solver.current_policy_array()
  avgs = solver.average_policy_array()
  outs = []
  # One search object per JPS variant for the whole batch: the searches' policy-independent
  # structure is computed once and shared by every seed (each run as a fresh object's).
  ours = jps.JointPolicySearch(tree, depth=depth)
  searches = [("CFR+JPS (ours)" if protocol == "paper" else "CFR+JPS", ours)]
  if protocol == "paper" and not our_jps:
    searches = []
  if protocol == "paper":
    searches.insert(0, ("CFR+JPS", jps.JointPolicySearch(
        tree, depth=depth, schedule="reference", tie_break="random",
        start_depths=ours.reference_start_depths())))
  sampled = [(k, jps.JointPolicySearch(tree, depth=depth, samples=k,
                                       max_iterations=sampled_iterations)) for k in samples]
  for b, seed in enumerate(seeds):
    cur, avg = curs[b], avgs[b]
    out = {"cfr_seconds": cfr_seconds}
    out["CFR (average)"] = ours.value(avg)
    out["CFR (current)"] = ours.value(cur)
    out["CFR (purified)"] = ours.value(jps.purified_policy_array(tree, avg))
    out["CFR (current, purified)"] = ours.value(jps.purified_policy_array(tree, cur))
    for name, search in searches:
      result = search.improve(cur, seed=seed)
      out[name] = result.value
      tag = "jps" if name == "CFR+JPS" else "jps_ours"
      out[f"{tag}_seconds"] = result.seconds
      out[f"{tag}_iterations"] = len(result.history)
    for k, search in sampled:
      res = search.improve(cur, seed=seed)
      out[f"CFR+JPS (k={k})"] = res.value
      out[f"jps_k{k}_seconds"] = res.seconds
    outs.append(out)
  return outs, curs


def speed_comparison(tree: GameTree, pi: np.ndarray, seed: int, depth,
                     sample: int, cap_seconds: float) -> dict[str, float]:
  """JPS searches from every starting depth vs brute force of the same candidates."""
  search = jps.JointPolicySearch(tree, depth=depth, seed=seed)
  rng = np.random.default_rng(seed)
  t0 = time.perf_counter()
  sweep = search.sweep(pi)
  sweep_seconds = time.perf_counter() - t0
  total_candidates, search_seconds, brute_seconds, max_err = 0, 0.0, 0.0, 0.0
  evaluated = 0
  cap = cap_seconds / max(len(search.start_depths), 1)
  for d in search.start_depths:
    res = search.search(sweep, d)
    total_candidates += res.num_candidates
    search_seconds += res.seconds
    cands = list(search.candidates(res))
    pick = rng.choice(len(cands), size=min(sample, len(cands)), replace=False)
    v0 = search.value(pi)
    t1 = time.perf_counter()
    errs = []
    for i in pick:
      errs.append(abs(search.value(search.apply_chain(pi, cands[i][0])) - v0 - cands[i][1]))
      if len(errs) >= 3 and time.perf_counter() - t1 > cap:
        break
    evaluated += len(errs)
    per = (time.perf_counter() - t1) / max(len(errs), 1)
    brute_seconds += per * res.num_candidates
    max_err = max(max_err, max(errs) if errs else 0.0)
  return dict(candidates=total_candidates, sweep_seconds=sweep_seconds,
              search_seconds=search_seconds, brute_force_seconds=brute_seconds,
              speedup=brute_seconds / max(search_seconds + sweep_seconds, 1e-12),
              max_prediction_error=max_err, brute_force_evaluated=int(evaluated))


_TREES: dict[str, GameTree] = {}  # a worker's last tree (one at a time bounds memory)


def run_chunk(game_name: str, chunk: list[int], depth, samples: list[int], need_speed: bool,
              cfr_iterations: int, sampled_iterations: int, protocol: str, our_jps: bool,
              brute_force_sample: int, brute_force_seconds: float):
  """`run_seeds` on one chunk of seeds of one game, in this process or a pool's worker.

  Returns (game, chunk, per-seed results, the speed comparison or None).
  """
  if game_name not in _TREES:
    _TREES.clear()
    _TREES[game_name] = tree_cache.cached_tree(game_name)
  tree = _TREES[game_name]
  outs, curs = run_seeds(tree, chunk, depth, cfr_iterations, samples, sampled_iterations,
                         protocol, our_jps)
  speed = (speed_comparison(tree, curs[0], chunk[0], depth, brute_force_sample,
                            brute_force_seconds) if need_speed else None)
  return game_name, chunk, outs, speed


METHODS = ["CFR (current, purified)", "CFR (purified)", "CFR (current)", "CFR (average)",
           "CFR+JPS", "CFR+JPS (ours)"]


def _stderr(vals) -> float:
  """Standard error of the mean (0 for one value)."""
  return float(np.std(vals, ddof=1) / np.sqrt(len(vals))) if len(vals) > 1 else 0.0


def aggregate(store: dict, games: list[str], samples: list[int], cfr_iterations: int):
  """Rows (game, method, mean, best, seeds) and the Markdown table."""
  rows = []
  methods = METHODS + [f"CFR+JPS (k={k})" for k in samples]
  for game in games:
    entry = store.get(game)
    if not entry:
      continue
    seeds = entry["seeds"]
    for m in methods:
      vals = [s[m] for s in seeds.values() if m in s]
      if not vals:
        continue
      rows.append(dict(game=game, method=m, mean=float(np.mean(vals)), best=float(np.max(vals)),
                       num_seeds=len(vals), stderr=_stderr(vals),
                       histories=entry["histories"],
                       infosets=entry["infosets"], depth=entry["depth"],
                       cfr_iterations=cfr_iterations))
  lines = [f"CFR{cfr_iterations} from seeded random policies; JPS from CFR's last iterate. "
           "Each cell: mean ± standard error over seeds / best seed.", "",
           "| game | #histories | #infosets | D | seeds | " +
           " | ".join(m.replace("CFR", f"CFR{cfr_iterations // 1000}k" if cfr_iterations %
                                1000 == 0 else f"CFR{cfr_iterations}") for m in methods) + " |",
           "|---|---:|---:|---:|---:|" + "---:|" * len(methods)]
  for game in games:
    entry = store.get(game)
    if not entry:
      continue
    cells = []
    for m in methods:
      vals = [s[m] for s in entry["seeds"].values() if m in s]
      cells.append(f"{np.mean(vals):.4f} ± {_stderr(vals):.4f} / {np.max(vals):.4f}"
                   if vals else "-")
    lines.append(f"| {game} | {entry['histories']} | {entry['infosets']} | "
                 f"{entry['depth'] or 'full'} | {len(entry['seeds'])} | " + " | ".join(cells) +
                 " |")
  lines += ["", "JPS time (one full run from CFR's policy, mean over seeds) and one search from "
            "every starting depth vs brute-force evaluation of the same candidates:", "",
            "| game | JPS run s | JPS iterations | candidates (all depths) | sweep + searches s | "
            "brute force s (est.) | speedup | brute-forced | max abs(pred - brute) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
  for game in games:
    entry = store.get(game)
    if not entry:
      continue
    seeds = list(entry["seeds"].values())
    sp = entry.get("speed")
    run_s = np.mean([s["jps_seconds"] for s in seeds])
    its = np.mean([s["jps_iterations"] for s in seeds])
    if sp:
      lines.append(f"| {game} | {run_s:.2f} | {its:.1f} | {sp['candidates']} | "
                   f"{sp['search_seconds'] + sp['sweep_seconds']:.3f} | "
                   f"{sp['brute_force_seconds']:.1f} | {sp['speedup']:.0f}x | "
                   f"{sp['brute_force_evaluated']} | {sp['max_prediction_error']:.1e} |")
    else:
      lines.append(f"| {game} | {run_s:.2f} | {its:.1f} | - | - | - | - | - | - |")
  return rows, "\n".join(lines) + "\n"


def _checked_flags():
  """The flags' values, checked before any work (a ValueError names the bad value)."""
  try:
    samples = [int(k) for k in FLAGS.samples]
  except ValueError:
    raise ValueError(f"--samples must be integers, got {FLAGS.samples}") from None
  if any(k < 1 for k in samples):
    raise ValueError(f"--samples must be positive, got {samples}")
  if FLAGS.seeds < 1:
    raise ValueError(f"--seeds must be >= 1, got {FLAGS.seeds}")
  if FLAGS.workers < 1:
    raise ValueError(f"--workers must be >= 1, got {FLAGS.workers}")
  for name in FLAGS.games:
    if name.split("(")[0] not in pyspiel.registered_names():  # before OpenSpiel prints its list
      raise ValueError(f"--games: unknown game {name!r}")
    try:
      pyspiel.load_game(name)
    except pyspiel.SpielError as e:
      raise ValueError(f"--games: cannot load {name!r}: {str(e).splitlines()[0]}") from None
  depths = _depths(FLAGS.depths)
  game_seeds = {}
  for item in FLAGS.game_seeds:
    game, _, n = item.rpartition("=")
    if not game or not n.isdigit() or int(n) < 1:
      raise ValueError(f"--game_seeds entry {item!r} is not game=N with N >= 1")
    game_seeds[str(pyspiel.load_game(game))] = int(n)
  store_path = FLAGS.store or (FLAGS.json_out + ".store.json" if FLAGS.json_out else None)
  for flag, path in (("--json_out", FLAGS.json_out), ("--md_out", FLAGS.md_out),
                     ("--store", store_path)):
    if path:
      atomic_io.check_writable(path, flag=flag)
  return samples, depths, game_seeds, store_path


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:
    samples, depths, game_seeds, store_path = _checked_flags()
  except ValueError as e:  # a user error: one line, no traceback (bugs keep theirs)
    raise SystemExit(f"jps_experiments: error: {e}") from None
  store = {}
  if store_path and os.path.exists(store_path):
    with open(store_path) as f:
      store = json.load(f)
  config = dict(cfr_iterations=FLAGS.cfr_iterations, samples=samples,
                sampled_iterations=FLAGS.sampled_iterations, protocol=FLAGS.protocol)
  if store.get("_config", config) != config:
    raise ValueError(f"store {store_path} was made with {store['_config']}, not {config}; "
                     "use another --store")
  store["_config"] = config
  for other_path in FLAGS.merge_from:
    with open(other_path) as f:
      other = json.load(f)
    if other.get("_config") != config:
      raise ValueError(f"store {other_path} was made with {other.get('_config')}, not {config}")
    for game, entry in other.items():
      if game.startswith("_"):
        continue
      mine = store.setdefault(game, dict(entry, seeds={}))
      if mine["depth"] != entry["depth"]:
        raise ValueError(f"{game}: depth {entry['depth']} in {other_path}, {mine['depth']} here")
      for seed, res in entry["seeds"].items():
        mine["seeds"].setdefault(seed, res)
      if "speed" in entry:
        mine.setdefault("speed", entry["speed"])
  if FLAGS.merge_from and store_path:
    _atomic_write(store_path, json.dumps(store, indent=1))
  import tqdm
  games = [str(pyspiel.load_game(g)) for g in FLAGS.games]
  seeds_of = {g: list(range(FLAGS.first_seed, FLAGS.first_seed + game_seeds.get(g, FLAGS.seeds)))
              for g in games}
  bar = tqdm.tqdm(total=sum(map(len, seeds_of.values())), desc="jps experiments", unit=" runs")
  tasks = []  # (cost estimate, game, chunk, depth, samples, need_speed)
  for game_name in ([] if FLAGS.aggregate_only else games):
    seeds = seeds_of[game_name]
    entry = store.get(game_name)
    todo = [s for s in seeds if entry is None or str(s) not in entry["seeds"]]
    need_speed = FLAGS.brute_force_sample > 0 and (entry is None or "speed" not in entry)
    if not todo and not need_speed:
      bar.update(len(seeds))
      continue
    tree = tree_cache.cached_tree(game_name)  # walked once here, then loaded from the cache
    num_nodes = int(tree.num_nodes)
    if entry is None:
      store[game_name] = dict(histories=num_nodes, infosets=int(tree.num_infosets),
                              depth=depths.get(game_name), seeds={})
    del tree
    bar.update(len(seeds) - len(todo))
    if need_speed and not todo:  # the speed comparison needs a CFR policy: redo one seed
      todo = [seeds[0]]
      bar.total += 1
    batch = FLAGS.batch or int(max(1, min(256, 4_000_000 // max(num_nodes, 1))))
    game_samples = samples if ("all" in FLAGS.sampled_games or game_name in {
        str(pyspiel.load_game(g)) for g in FLAGS.sampled_games}) else []
    for c in range(0, len(todo), batch):
      chunk = todo[c:c + batch]
      cost = len(chunk) * (num_nodes + (50_000 if game_samples else 0))
      tasks.append((cost, game_name, chunk, depths.get(game_name), game_samples,
                    need_speed and c == 0))
  options = dict(cfr_iterations=FLAGS.cfr_iterations,
                 sampled_iterations=FLAGS.sampled_iterations, protocol=FLAGS.protocol,
                 our_jps=FLAGS.our_jps, brute_force_sample=FLAGS.brute_force_sample,
                 brute_force_seconds=FLAGS.brute_force_seconds)

  def record(game_name, chunk, outs, speed):
    for seed, out in zip(chunk, outs, strict=True):
      store[game_name]["seeds"][str(seed)] = out
    if speed is not None:
      store[game_name]["speed"] = speed
    if store_path:  # a kill loses at most the chunks in progress
      _atomic_write(store_path, json.dumps(store, indent=1))
    bar.update(len(chunk))

  if FLAGS.workers <= 1 or len(tasks) <= 1:
    for _, game_name, chunk, depth, game_samples, need_speed in tasks:
      bar.set_postfix(game=game_name, seeds=f"{chunk[0]}-{chunk[-1]}")
      record(*run_chunk(game_name, chunk, depth, game_samples, need_speed, **options))
  else:
    # Largest chunks first (each game's chunks stay together, so a worker mostly reuses the
    # tree it loaded); results are recorded as they finish, in any order.
    tasks.sort(key=lambda t: -t[0])
    context = multiprocessing.get_context("spawn")  # no fork of a process holding threads
    with futures.ProcessPoolExecutor(max_workers=FLAGS.workers, mp_context=context) as pool:
      pending = [pool.submit(run_chunk, game_name, chunk, depth, game_samples, need_speed,
                             **options)
                 for _, game_name, chunk, depth, game_samples, need_speed in tasks]
      for done in futures.as_completed(pending):
        game_name, chunk, outs, speed = done.result()
        bar.set_postfix(game=game_name, seeds=f"{chunk[0]}-{chunk[-1]}")
        record(game_name, chunk, outs, speed)
  bar.close()
  rows, table = aggregate(store, games, samples, FLAGS.cfr_iterations)
  if FLAGS.json_out:
    _atomic_write(FLAGS.json_out, json.dumps(rows, indent=1))
  if FLAGS.md_out:
    _atomic_write(FLAGS.md_out, table)
  print(table)


if __name__ == "__main__":
  app.run(main)
