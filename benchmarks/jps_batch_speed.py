r"""Per-seed CPU time of the JPS paper protocol (issue 16): batched CFR1k and the authors' JPS
schedule, before and after the speed-ups, measured in one run.

"Before" is `ospiel_team/algorithms/tree_cfr.py` as of `--before_rev` (loaded from git, skipped
without it; default 6c996ea, the numpy-only batched CFR before its C kernels; fc8a58e is the
unbatched-era solver of the first speed-up) and, with `--jps_before=uncached`, JPS without its
cached search structure (`structure_budget=0`, the old search; with `--jps_before=same`, the
default, JPS is timed once and counted on both sides: this revision did not change it);
"after" is the current code. Both run the same seeds from the same policies, and the
script checks that they give the same policies and JPS values (the speed-ups change no result).
CFR is timed over `--cfr_timed` iterations and scaled to 1,000 (its per-iteration cost hardly
changes); JPS runs from the CFR1k last iterate (the paper protocol), exact with the authors'
schedule and, where `--samples` is set, sampled (k = 1, 5, 20; 100 iterations).

  python benchmarks/jps_batch_speed.py --games "mini_bridge(size=4)=10,simple_bidding(size=16)=4"
  python benchmarks/jps_batch_speed.py --before_rev fc8a58e --jps_before uncached  # first speed-up
  python benchmarks/jps_batch_speed.py --before_rev same --jps_before numpy  # JPS's C kernel
"""

import importlib.util
import json
import os
import subprocess
import tempfile
import time

from absl import app
from absl import flags
import numpy as np

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.coop import jps
from ospiel_team.tree import cache as tree_cache
from ospiel_team.algorithms.nash import cfr as tree_cfr

FLAGS = flags.FLAGS
flags.DEFINE_list("games", ["mini_bridge(size=4)=10", "simple_bidding(size=16)=4"],
                  "game=B: games and the number of seeds (one batch) for each.")
flags.DEFINE_list("depths", ["mini_bridge(size=4)=3", "simple_bidding(size=16)=3"],
                  "game=D (others: full depth).")
flags.DEFINE_list("sampled_games", ["simple_bidding(size=16)"], "Games with sampled JPS.")
flags.DEFINE_integer("cfr_timed", 100, "CFR iterations timed (scaled to 1,000).")
flags.DEFINE_string("before_rev", "6c996ea", "Git revision of the 'before' tree_cfr.py "
                    "('same': the current one, timed once and counted on both sides).")
flags.DEFINE_enum("jps_before", "same", ["same", "uncached", "numpy"],
                  "'Before' JPS: the current JPS (timed once), the uncached search, or the "
                  "current JPS with backend='numpy' (its cached search without the C kernel).")
flags.DEFINE_string("json_out", None, "Optional JSON output.")


def _old_tree_cfr():
  """The module tree_cfr.py at --before_rev, or None."""
  if FLAGS.before_rev == "same":
    return None
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  try:
    text = subprocess.run(["git", "show", f"{FLAGS.before_rev}:ospiel_team/algorithms/tree_cfr.py"],
                          cwd=root, capture_output=True, text=True, check=True).stdout
  except (OSError, subprocess.CalledProcessError):
    return None
  path = os.path.join(tempfile.mkdtemp(), "tree_cfr_before.py")
  with open(path, "w") as f:
    f.write(text)
  spec = importlib.util.spec_from_file_location("tree_cfr_before", path)
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod


def _cfr(module, tree, seeds, iterations):
  init = np.stack([tree_cfr.random_policy_array(tree, s) for s in seeds])
  solver = module.BatchedTreeCFRSolver(tree, init, alternating_updates=False, exploration=0.01,
                                       noise_seeds=np.asarray(seeds))
  t0 = time.process_time()
  for _ in range(iterations):
    solver.evaluate_and_update_policy()
  return solver, (time.process_time() - t0) / len(seeds)


def _jps(tree, curs, seeds, depth, samples, shared, backend="auto"):
  """Per-seed CPU of the authors' JPS (and sampled JPS) and the values reached."""
  ours = jps.JointPolicySearch(tree, depth=depth)
  budget = {"backend": backend} if shared else {"structure_budget": 0, "backend": "numpy"}
  make = [("exact", lambda: jps.JointPolicySearch(
      tree, depth=depth, schedule="reference", tie_break="random",
      start_depths=ours.reference_start_depths(), **budget))]
  make += [(f"k={k}", lambda k=k: jps.JointPolicySearch(
      tree, depth=depth, samples=k, max_iterations=100, **budget)) for k in samples]
  out = {}
  for name, mk in make:
    obj = mk()
    t0 = time.process_time()
    vals = []
    for b, s in enumerate(seeds):
      if not shared:
        obj = mk()  # before: one object per seed, nothing shared
      vals.append(obj.improve(curs[b], seed=s).value)
    out[name] = dict(cpu_per_seed=(time.process_time() - t0) / len(seeds), values=vals,
                     backend="numpy" if obj._lib is None else "c")  # pylint: disable=protected-access
  return out


def main(argv):
  del argv
  old = _old_tree_cfr()
  depths = {g: int(d) for g, _, d in (x.rpartition("=") for x in FLAGS.depths)}
  rows = []
  for item in FLAGS.games:
    game, _, b = item.rpartition("=")
    tree = tree_cache.cached_tree(game)
    seeds = list(range(int(b)))
    depth = depths.get(game)
    samples = [1, 5, 20] if game in FLAGS.sampled_games else []
    row = dict(game=game, histories=int(tree.num_nodes), seeds=len(seeds), depth=depth,
               load_before=open("/proc/loadavg").read().split()[:3])
    scale = 1000 / FLAGS.cfr_timed
    new_solver, new_cfr = _cfr(tree_cfr, tree, seeds, FLAGS.cfr_timed)
    row["cfr1k_cpu_per_seed_after"] = new_cfr * scale
    row["cfr_backend_after"] = getattr(new_solver, "backend", "numpy")
    if old is not None:
      old_solver, old_cfr = _cfr(old, tree, seeds, FLAGS.cfr_timed)
      row["cfr1k_cpu_per_seed_before"] = old_cfr * scale
      row["cfr_equal"] = bool(np.array_equal(old_solver.current_policy_array(),
                                             new_solver.current_policy_array()) and
                              np.array_equal(old_solver.average_policy_array(),
                                             new_solver.average_policy_array()))
    for _ in range(1000 - FLAGS.cfr_timed):  # the CFR1k policies JPS starts from
      new_solver.evaluate_and_update_policy()
    curs = new_solver.current_policy_array()
    tree.tabular_policy(curs[0])  # the tree's one-time TabularPolicy template, out of the timings
    after = _jps(tree, curs, seeds, depth, samples, shared=True)
    if FLAGS.jps_before == "same":
      before = after
    elif FLAGS.jps_before == "numpy":
      before = _jps(tree, curs, seeds, depth, samples, shared=True, backend="numpy")
    else:
      before = _jps(tree, curs, seeds, depth, samples, shared=False)
    for name in after:
      row[f"jps_{name}_cpu_per_seed_after"] = after[name]["cpu_per_seed"]
      row[f"jps_{name}_cpu_per_seed_before"] = before[name]["cpu_per_seed"]
      row[f"jps_{name}_backend_after"] = after[name]["backend"]
      row[f"jps_{name}_backend_before"] = before[name]["backend"]
      row[f"jps_{name}_equal"] = after[name]["values"] == before[name]["values"]
    tot_a = row["cfr1k_cpu_per_seed_after"] + sum(after[n]["cpu_per_seed"] for n in after)
    cfr_b = row.get("cfr1k_cpu_per_seed_before", row["cfr1k_cpu_per_seed_after"]
                    if FLAGS.before_rev == "same" else np.nan)
    tot_b = cfr_b + sum(before[n]["cpu_per_seed"] for n in before)
    row.update(total_cpu_per_seed_after=tot_a, total_cpu_per_seed_before=tot_b,
               speedup=tot_b / tot_a, load_after=open("/proc/loadavg").read().split()[:3])
    rows.append(row)
    print(json.dumps(row, indent=1), flush=True)
  if FLAGS.json_out:
    from ospiel_team import atomic_io  # pylint: disable=g-import-not-at-top
    atomic_io.write_text(FLAGS.json_out, json.dumps(rows, indent=1))


if __name__ == "__main__":
  app.run(main)
