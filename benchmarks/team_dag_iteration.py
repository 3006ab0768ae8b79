r"""CPU seconds of one belief-DAG iteration (the numba passes of `belief_dag.BeliefDAG`).

For each instance of Table 1 given, builds both teams' belief DAGs once (tree from
`--tree_cache` if given), then runs `--iterations` DCFR iterations and one certification
(two exact best-response values) and prints CPU seconds per iteration (`time.process_time`,
so other jobs on the machine inflate it less than wall time) with the load average. The
first pass of a process also compiles the kernels (or loads them from numba's cache): one
untimed iteration runs first. `benchmarks/native_kernels.py` compares these passes with the
earlier C kernels.

Usage:
  python benchmarks/team_dag_iteration.py --instances 22D3,21L153 --iterations 20 \
      --tree_cache /tmp/team_tree_cache
"""

import json
import os
import time

import numpy as np
from absl import app
from absl import flags
from scipy import sparse

from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.games import team_instances
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree import cache as tree_cache
from ospiel_team.tree import teams as teams_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("instances", "22D3", "comma-separated Table 1 instance names")
flags.DEFINE_integer("iterations", 20, "DCFR iterations timed")
flags.DEFINE_string("tree_cache", None, "directory of cached game trees (tree_cache.py)")
flags.DEFINE_string("algorithm", "dcfr", "dcfr or pcfr+")


def time_instance(name: str, iterations: int, algorithm: str) -> dict:
  game, teams = team_instances.TABLE1_INSTANCES[name]
  teams_str = "|".join(",".join(str(p) for p in t) for t in teams)
  tree = tree_cache.cached_tree(game, FLAGS.tree_cache) if FLAGS.tree_cache else game
  tree, teams = teams_lib.check_assumptions(tree, teams_str)
  c0 = time.process_time()
  dec = [TeamDecomposition(tree, t, 100_000_000) for t in teams.teams]
  c1 = time.process_time()
  util1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  w = tree.chance_reach()[tree.terminals] * util1
  m = sparse.csr_matrix((w, (dec[0].terminal_leaf, dec[1].terminal_leaf)),
                        shape=(dec[0].num_leaves, dec[1].num_leaves))
  m_t = m.T.tocsr()
  row = dict(instance=name, edges=[d.num_local for d in dec], decomposition_cpu_s=c1 - c0)
  c0 = time.process_time()
  dags = [team_belief_dag.BeliefDAG(d) for d in dec]
  c1 = time.process_time()
  sig = [g.regret_matching(np.zeros(g.num_edges)) for g in dags]
  leaf = [g.flows_and_leaves(s)[1] for g, s in zip(dags, sig, strict=True)]
  reg = [np.zeros(g.num_edges) for g in dags]
  for it in range(iterations + 1):  # iteration 0: compiles (or loads) the kernels, untimed
    if it == 1:
      c2 = time.process_time()
    for team in (0, 1):
      grad = m @ leaf[1] if team == 0 else -(m_t @ leaf[0])
      dags[team].regret_update(grad, sig[team], reg[team], algorithm, max(it, 1))
      leaf[team] = dags[team].flows_and_leaves(sig[team])[1]
  c3 = time.process_time()
  dags[1].best_response_value(-(m_t @ leaf[0]))
  dags[0].best_response_value(m @ leaf[1])
  c4 = time.process_time()
  row["dag_build_cpu_s"] = round(c1 - c0, 3)
  row["iteration_cpu_s"] = round((c3 - c2) / iterations, 4)
  row["certification_cpu_s"] = round(c4 - c3, 4)
  row["load"] = " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists(
      "/proc/loadavg") else ""
  return row


def main(argv):
  del argv
  for name in FLAGS.instances.split(","):
    print(json.dumps(time_instance(name.strip(), FLAGS.iterations, FLAGS.algorithm)),
          flush=True)


if __name__ == "__main__":
  app.run(main)
