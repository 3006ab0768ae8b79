r"""Before/after of the team LP's build on Table-1 instances, timed in one run.

For each instance: (1) the game tree by the reference pyspiel walk (`GameTree(builder="walk")`)
and by `fast_tree`'s shadow walk (`builder="shadow"`), checked equal array for array; (2) both
teams' `TeamDecomposition` + constraint system by the per-state reference loop
(`batched=False`) and batched (default), checked equal; (3) `team_lp.solve` on the tree (new
path), whose build and HiGHS seconds are printed. "before" = reference walk + reference
decompositions + the rest of the LP build + HiGHS; "after" = shadow walk + `team_lp.solve`.
Wall seconds (perf_counter) and this process's CPU seconds; the load average is printed with
every row (the machine is shared).

Usage:
  python benchmarks/team_build_speed.py --instances 21K6,21L151,21D3,31G,32G
"""

import time

from absl import app
from absl import flags
import numpy as np

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.team import lp as team_lp
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.algorithms.team.decomposition import TeamDecomposition
from ospiel_team.games import team_instances

flags.DEFINE_string("instances", "21K6,21L151,21D3,31G,32G", "Table-1 instance names")
flags.DEFINE_bool("solve", True, "also solve the LP (HiGHS) for the end-to-end columns")
FLAGS = flags.FLAGS

_ARRAYS = ["node_parent", "node_action", "node_player", "node_depth", "node_infoset",
           "node_chance_prob", "node_returns", "infoset_player", "infoset_legal"]


def timed(fn):
  w, c = time.perf_counter(), time.process_time()
  out = fn()
  return out, time.perf_counter() - w, time.process_time() - c


def load() -> str:
  with open("/proc/loadavg") as f:
    return f.read().split()[0]


def main(argv):
  del argv
  print("| instance | histories | walk s (ref / shadow) | decompositions s (ref loop / "
        "batched) | LP build s (after) | HiGHS s | before s | after s | speed-up (build) | "
        "value | load |")
  print("|---|---:|---|---|---:|---:|---:|---:|---:|---|---|")
  for name in FLAGS.instances.split(","):
    game, teams = team_instances.load_instance(name)
    l0 = load()
    ref, w_ref, _ = timed(lambda: GameTree(game, builder="walk"))  # pylint: disable=cell-var-from-loop
    if game.get_type().short_name.startswith("team_"):
      new, w_new, _ = timed(lambda: GameTree(game, builder="shadow"))  # pylint: disable=cell-var-from-loop
      for k in _ARRAYS:
        if not np.array_equal(getattr(ref, k), getattr(new, k)):
          raise AssertionError(f"{name}: shadow walk differs in {k}")
      if ref.infoset_keys != new.infoset_keys:
        raise AssertionError(f"{name}: shadow walk differs in infoset keys")
    else:  # an OpenSpiel built-in (kuhn_poker): walked by pyspiel either way
      new, w_new = ref, w_ref

    def decs(batched, tree=new):
      out = [TeamDecomposition(tree, t, batched=batched) for t in teams]
      for d in out:
        d.constraint_system()
      return out

    dref, d_ref, _ = timed(lambda: decs(False))  # pylint: disable=cell-var-from-loop
    dnew, d_new, _ = timed(lambda: decs(True))  # pylint: disable=cell-var-from-loop
    for a, b in zip(dref, dnew):
      if a.num_local != b.num_local or (a.constraint_system()[0] != b.constraint_system()[0]).nnz:
        raise AssertionError(f"{name}: batched decomposition differs")
    if FLAGS.solve:
      res = team_lp.solve(new, "|".join(",".join(str(p) for p in t) for t in teams))
      build, highs_s, value = res.build_seconds, res.solve_seconds, f"{res.value:.6f}"
    else:
      build, highs_s, value = d_new, 0.0, ""
    before = w_ref + (build - d_new + d_ref) + highs_s
    after = w_new + build + highs_s
    speed = (w_ref + build - d_new + d_ref) / max(w_new + build, 1e-9)
    print(f"| {name} | {new.num_nodes:,} | {w_ref:.2f} / {w_new:.2f} | {d_ref:.2f} / {d_new:.2f} "
          f"| {build:.2f} | {highs_s:.2f} | {before:.2f} | {after:.2f} | {speed:.1f}x | {value} "
          f"| {l0}-{load()} |", flush=True)


if __name__ == "__main__":
  app.run(main)
