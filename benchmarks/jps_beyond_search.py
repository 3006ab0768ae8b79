r"""Beyond the JPS paper: what closes the gap between JPS's local optima and
the proven optimum? Runs, per seed, several ways of reaching a better policy than CFR1k + JPS:

* `CFR+JPS D=d`: the authors' JPS schedule (random ties, their starting depths) with a larger
  depth D from the same CFR1k last iterate as the paper protocol (benchmarks/jps_experiments.py).
* `CFR/JPS alternating`: CFR1k + JPS, then `--rounds` times: `--cfr_more` CFR iterations
  started from the JPS policy (same protocol: simultaneous updates, exploration 0.01) and JPS
  again from CFR's last iterate; the best policy value seen.
* `CFR+ avg+JPS`: OpenSpiel's CFR+ (regret matching+, alternating updates, linear averaging;
  `BatchedTreeCFRSolver`) for `--cfr_iterations` from the same random initial policy, then the
  authors' JPS from its average policy.
* `random pure+JPS (best of R)`: R random pure policies (seeded by the seed), each improved by
  our JPS schedule (passes until a quiet pass) at depth D; the best of the R (R times the cost).
* `ED<n>+JPS` (with `--ed_steps n`): the authors' JPS from the policy of n steps of tabular
  Exploitability Descent (`ospiel_team.algorithms.nash.exploitability_descent.TabularEDSolver`,
  Lockhart et al., IJCAI 2019, arXiv 1903.05614; from uniform, so one ED run serves every seed).
* `XFP<n>+JPS` (with `--xfp_steps n`): the authors' JPS from the average policy of n iterations
  of OpenSpiel's full-width fictitious play (`open_spiel.python.algorithms.fictitious_play.
  XFPSolver`, Heinrich, Lanctot and Silver, "Fictitious Self-Play in Extensive-Form Games",
  ICML 2015; deterministic from uniform, so one XFP run serves every seed; the seed drives
  JPS's schedule and ties).

Values per seed go to a resumable store (`--store`, same layout as the experiment store, so
`benchmarks/jps_beyond.py --stores` reports them: mean, how often the proven optimum is reached).

  python benchmarks/jps_beyond_search.py --game "mini_bridge(size=4)" --depth 3 --seeds 20 \
      --store results/jps/beyond_search.store.json
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401
from ospiel_team import atomic_io
from ospiel_team.algorithms.coop import jps
from ospiel_team.algorithms.nash import cfr as tree_cfr
from ospiel_team.algorithms.nash import exploitability_descent
from ospiel_team.tree import cache as tree_cache

FLAGS = flags.FLAGS
flags.DEFINE_string("game", "mini_bridge(size=4)", "Game.")
flags.DEFINE_integer("depth", 3, "The paper's depth D for this game (0: full depth).")
flags.DEFINE_list("larger_depths", ["4"], "Larger depths D tried from the CFR1k policy.")
flags.DEFINE_integer("seeds", 10, "Seeds first_seed .. first_seed + seeds - 1.")
flags.DEFINE_integer("first_seed", 0, "First seed.")
flags.DEFINE_integer("batch", 10, "Seeds per batched CFR run.")
flags.DEFINE_integer("cfr_iterations", 1000, "CFR iterations (the paper: 1000).")
flags.DEFINE_integer("cfr_more", 200, "CFR iterations per alternating round.")
flags.DEFINE_integer("rounds", 3, "Alternating CFR/JPS rounds after CFR1k+JPS.")
flags.DEFINE_integer("restarts", 10, "R random pure restarts per seed (0: skip).")
flags.DEFINE_integer("ed_steps", 0, "If > 0: also the authors' JPS from the policy of this "
                     "many steps of tabular Exploitability Descent (from uniform: one ED run "
                     "for all seeds; the seed drives JPS's schedule).")
flags.DEFINE_integer("xfp_steps", 0, "If > 0: also the authors' JPS from the average policy "
                     "of this many iterations of OpenSpiel's XFP (one run for all seeds).")
flags.DEFINE_string("store", None, "Per-seed store (JSON; resumed).")

_XFP = {}


def _xfp_policy(tree, steps):
  """The average policy of `steps` iterations of OpenSpiel's XFPSolver, as a policy array."""
  if (str(tree.game), steps) not in _XFP:
    from open_spiel.python.algorithms import fictitious_play
    solver = fictitious_play.XFPSolver(tree.game)
    for _ in range(steps):
      solver.iteration()
    _XFP[(str(tree.game), steps)] = tree.policy_array(solver.average_policy())
  return _XFP[(str(tree.game), steps)]


def _cfr(tree, init, seeds, iterations, plus=False):
  if plus:
    solver = tree_cfr.BatchedTreeCFRSolver(tree, init, alternating_updates=True,
                                           linear_averaging=True, regret_matching_plus=True)
  else:
    solver = tree_cfr.BatchedTreeCFRSolver(tree, init, alternating_updates=False,
                                           exploration=0.01, noise_seeds=np.asarray(seeds))
  for _ in range(iterations):
    solver.evaluate_and_update_policy()
  return solver


def run_chunk(tree, seeds, depth):
  """Every method on one batch of seeds; one dict of values per seed."""
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in seeds])
  cur = _cfr(tree, init, seeds, FLAGS.cfr_iterations).current_policy_array()
  ref = {}
  for d in [depth] + [int(x) for x in FLAGS.larger_depths]:
    probe = jps.JointPolicySearch(tree, depth=d)
    ref[d] = jps.JointPolicySearch(tree, depth=d, schedule="reference", tie_break="random",
                                   start_depths=probe.reference_start_depths())
  outs = [dict() for _ in seeds]
  t0 = time.process_time()
  pis = []
  for b, s in enumerate(seeds):
    res = ref[depth].improve(cur[b], seed=s)
    outs[b]["CFR+JPS"] = res.value
    outs[b]["CFR/JPS alternating"] = res.value
    pis.append(res.policy_array)
  for d in ref:
    if d == depth:
      continue
    for b, s in enumerate(seeds):
      outs[b][f"CFR+JPS D={d}"] = ref[d].improve(cur[b], seed=s).value
  for r in range(FLAGS.rounds):  # alternating: CFR from the JPS policies, then JPS
    more = _cfr(tree, np.stack(pis), [s + 7919 * (r + 1) for s in seeds],
                FLAGS.cfr_more).current_policy_array()
    for b, s in enumerate(seeds):
      res = ref[depth].improve(more[b], seed=s + 7919 * (r + 1))
      pis[b] = res.policy_array
      outs[b]["CFR/JPS alternating"] = max(outs[b]["CFR/JPS alternating"], res.value)
  plus = _cfr(tree, init, seeds, FLAGS.cfr_iterations, plus=True).average_policy_array()
  for b, s in enumerate(seeds):
    outs[b]["CFR+ avg+JPS"] = ref[depth].improve(plus[b], seed=s).value
  if FLAGS.ed_steps:
    solver = exploitability_descent.TabularEDSolver(tree.game, tree=tree)
    for _ in range(FLAGS.ed_steps):
      solver.step()
    ed_pi = solver.current_policy_array()
    for b, s in enumerate(seeds):
      outs[b][f"ED{FLAGS.ed_steps}+JPS"] = ref[depth].improve(ed_pi, seed=s).value
  if FLAGS.xfp_steps:
    xfp_pi = _xfp_policy(tree, FLAGS.xfp_steps)
    for b, s in enumerate(seeds):
      outs[b][f"XFP{FLAGS.xfp_steps}+JPS"] = ref[depth].improve(xfp_pi, seed=s).value
  if FLAGS.restarts:
    ours = jps.JointPolicySearch(tree, depth=depth)
    for b, s in enumerate(seeds):
      best = -np.inf
      for i in range(FLAGS.restarts):
        pure = tree.purified_policy_array(tree_cfr.random_policy_array(
            tree, 1_000_003 * (s + 1) + i))
        best = max(best, ours.improve(pure, seed=s * 1000 + i).value)
      outs[b][f"random pure+JPS (best of {FLAGS.restarts})"] = best
  for o in outs:
    o["cpu_seconds"] = (time.process_time() - t0) / len(seeds)
  return outs


def main(argv):
  del argv
  if FLAGS.store:
    atomic_io.check_writable(FLAGS.store, flag="--store")
  game = str(pyspiel.load_game(FLAGS.game))
  depth = FLAGS.depth or None
  store = {}
  if FLAGS.store and os.path.exists(FLAGS.store):
    with open(FLAGS.store) as f:
      store = json.load(f)
  config = dict(cfr_iterations=FLAGS.cfr_iterations, cfr_more=FLAGS.cfr_more,
                rounds=FLAGS.rounds, restarts=FLAGS.restarts,
                larger_depths=[int(x) for x in FLAGS.larger_depths])
  if FLAGS.ed_steps:  # (absent otherwise: stores made before the flag stay valid)
    config["ed_steps"] = FLAGS.ed_steps
  if FLAGS.xfp_steps:
    config["xfp_steps"] = FLAGS.xfp_steps
  tree = tree_cache.cached_tree(game)
  entry = store.setdefault(game, dict(histories=int(tree.num_nodes),
                                      infosets=int(tree.num_infosets), depth=depth,
                                      config=config, seeds={}))
  if entry["config"] != config or entry["depth"] != depth:
    raise SystemExit(f"jps_beyond_search: error: store {FLAGS.store} holds {game} with "
                     f"{entry['config']}, depth {entry['depth']}; use another --store")
  todo = [s for s in range(FLAGS.first_seed, FLAGS.first_seed + FLAGS.seeds)
          if str(s) not in entry["seeds"]]
  import tqdm
  for c in tqdm.tqdm(range(0, len(todo), FLAGS.batch), desc=f"beyond {game}"):
    chunk = todo[c:c + FLAGS.batch]
    for s, out in zip(chunk, run_chunk(tree, chunk, depth), strict=True):
      entry["seeds"][str(s)] = out
    if FLAGS.store:
      atomic_io.write_text(FLAGS.store, json.dumps(store, indent=1))
  seeds = list(entry["seeds"].values())
  for m in [k for k in seeds[0] if not k.endswith("seconds")] if seeds else []:
    v = np.array([s[m] for s in seeds])
    print(f"{game} | {m} | {len(v)} seeds | {v.mean():.4f} ± "
          f"{(v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0):.4f} | best {v.max():.4f}")


if __name__ == "__main__":
  app.run(main)
