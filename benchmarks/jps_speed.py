r"""JPS speed: one full run on simple_bidding(size=16) at D=3 from CFR1k, and every search of
that run against brute-force evaluation of the same candidates.

The paper's C++ code: about 900 s for the run (29 iterations, ~21 s per depth-3 search), and
"JPS ~20 s vs brute force ~260 s (13x)" per search. Goals here: the run in <= 10 s on the
2-core CPU, each search >= 10x faster than brute force of its candidates in the same run.

Brute force = `evaluation.game_value` of the policy with the candidate's changes, one full
sweep per candidate (what Theorem 1 avoids). A JPS search is charged its own time plus the
sweep (reach and values of all histories) when it needed a new one, i.e. after a change.
Evaluating all candidates of every search would take many minutes, so each search's
candidates are timed on a random sample (--sample per search; --sample 0 = all of them)
and the per-candidate time is multiplied by the number of candidates; the sampled
predictions are also checked against the brute-force values.

  python benchmarks/jps_speed.py --game "simple_bidding(size=16)" --depth 3 --seed 0
"""

import json
import time

import numpy as np
import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401
from ospiel_team import atomic_io
from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.nash import cfr as tree_cfr
from ospiel_team.tree import cache as tree_cache

FLAGS = flags.FLAGS
flags.DEFINE_string("game", "simple_bidding(size=16)", "Game.")
flags.DEFINE_integer("depth", 3, "JPS depth D (0: to the end of the game).")
flags.DEFINE_integer("seed", 0, "Seed of CFR's random initial policy and of JPS.")
flags.DEFINE_integer("cfr_iterations", 1000, "CFR iterations before JPS.")
flags.DEFINE_integer("sample", 100, "Brute-forced candidates per search (0: all).")
flags.DEFINE_integer("repeats", 5, "Each search (and sweep) is timed this often; median.")
flags.DEFINE_string("json_out", "results/speed/jps_speed.json", "The JSON record (empty: none).")


def _median_seconds(fn, repeats: int):
  """(fn's last result, median wall seconds of `repeats` calls)."""
  times = []
  for _ in range(repeats):
    t0 = time.perf_counter()
    out = fn()
    times.append(time.perf_counter() - t0)
  return out, float(np.median(times))


def replay_search(search, pi: np.ndarray, sweep, h, rng: np.random.Generator):
  """One iteration `h` of the run replayed: its search timed against brute force.

  As in the run, one sweep (pi^sigma, v^sigma) per policy is charged to the search that uses
  it (`sweep` None: a new policy). Timings are the median of --repeats runs (the machine is
  shared; spikes are not JPS). Brute force evaluates --sample of the search's candidates.

  Returns:
    (row, the search's result, the sweep used).
  """
  fresh = sweep is None
  sweep_seconds = 0.0
  if fresh:
    sweep, sweep_seconds = _median_seconds(lambda: search.sweep(pi), FLAGS.repeats)
  res, search_seconds = _median_seconds(lambda: search.search(sweep, h.start_depth),
                                        FLAGS.repeats)
  jps_seconds = sweep_seconds + search_seconds
  cands = list(search.candidates(res))
  n = len(cands) if FLAGS.sample == 0 else min(FLAGS.sample, len(cands))
  pick = rng.choice(len(cands), size=n, replace=False)
  v0 = search.value(pi)
  t0 = time.perf_counter()
  err = 0.0
  for i in pick:
    chain, pred = cands[i]
    err = max(err, abs(search.value(search.apply_chain(pi, chain)) - v0 - pred))
  per = (time.perf_counter() - t0) / max(n, 1)
  brute = per * len(cands)
  print(f"  it {h.iteration:2d} depth {h.start_depth}: {len(cands):6d} candidates, "
        f"JPS {jps_seconds:.3f} s ({'sweep + ' if fresh else ''}search), "
        f"brute force {brute:.2f} s "
        f"({n} timed), {brute / jps_seconds:.0f}x, max |pred - brute| {err:.1e}")
  row = dict(iteration=h.iteration, start_depth=h.start_depth, new_sweep=fresh,
             candidates=len(cands), jps_seconds=jps_seconds,
             brute_force_seconds=brute, brute_force_sampled=int(n),
             speedup=brute / jps_seconds, max_abs_error=err)
  return row, res, sweep


def main(argv):
  del argv
  tree = tree_cache.cached_tree(pyspiel.load_game(FLAGS.game))
  solver = tree_cfr.TreeCFRSolver(tree, initial_policy=tree_cfr.random_policy_array(
      tree, FLAGS.seed))
  t0 = time.perf_counter()
  for _ in range(FLAGS.cfr_iterations):
    solver.evaluate_and_update_policy()
  cfr_seconds = time.perf_counter() - t0
  start = solver.current_policy_array()
  depth = FLAGS.depth or None

  # 1. One full JPS run, timed alone.
  search = jps.JointPolicySearch(tree, depth=depth, seed=FLAGS.seed)
  t0 = time.perf_counter()
  result = search.improve(start)
  run_seconds = time.perf_counter() - t0
  print(f"{FLAGS.game}: {tree.num_nodes} histories, {tree.num_infosets} infosets; "
        f"CFR{FLAGS.cfr_iterations} {cfr_seconds:.1f} s")
  print(f"JPS run (D={depth}): {result.initial_value:.4f} -> {result.value:.4f}, "
        f"{len(result.history)} iterations, {run_seconds:.2f} s")

  # 2. Replay the run's iterations: each search vs brute force of its candidates.
  rng = np.random.default_rng(FLAGS.seed)
  pi = start.copy()
  rows = []
  sweep = None
  for h in result.history:
    row, res, sweep = replay_search(search, pi, sweep, h, rng)
    rows.append(row)
    if res.chain:
      pi = search.apply_chain(pi, res.chain)
      sweep = None
  speed = np.array([r["speedup"] for r in rows])
  summary = dict(game=FLAGS.game, depth=depth, seed=FLAGS.seed,
                 cfr_iterations=FLAGS.cfr_iterations, cfr_seconds=cfr_seconds,
                 run_seconds=run_seconds, iterations=len(result.history),
                 start_value=result.initial_value, value=result.value,
                 min_speedup=float(speed.min()), median_speedup=float(np.median(speed)),
                 total_jps_seconds=float(sum(r["jps_seconds"] for r in rows)),
                 total_brute_force_seconds=float(sum(r["brute_force_seconds"] for r in rows)),
                 searches=rows)
  print(f"run {run_seconds:.2f} s (goal <= 10 s); per-search speedup min "
        f"{speed.min():.0f}x, median {np.median(speed):.0f}x (goal >= 10x)")
  if FLAGS.json_out:
    atomic_io.write_text(FLAGS.json_out, json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
  app.run(main)
