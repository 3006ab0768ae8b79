r"""CPU seconds of one belief-DAG iteration: the C kernel against the numpy passes.

For each instance of Table 1 given, builds both teams' belief DAGs once (tree from
`--tree_cache` if given), then runs `--iterations` DCFR iterations and one certification
(two exact best-response values) with the C kernel (`native=True`) and with the numpy
reference passes (`native=False`) on the same DAGs, in this one process, and prints CPU seconds
per iteration (`time.process_time`, so other jobs on the machine inflate it less than wall
time) and their ratio. (The two runs' iterates agree to rounding only while no regret is at
rounding level: regret matching maps a regret of +1e-16 to a pure strategy and -1e-16 to the
uniform one, so their trajectories may part; tests/test_team_belief_dag.py compares the passes
on fixed inputs to 1e-12.)

Usage:
  python benchmarks/team_dag_iteration.py --instances 22D3,21L153 --iterations 20 \
      --tree_cache /tmp/team_tree_cache
"""

import json
import os
import time

from absl import app
from absl import flags
import numpy as np
from scipy import sparse

from ospiel_team.algorithms.team import belief_dag as team_belief_dag
from ospiel_team.algorithms.team import teams as teams_lib
from ospiel_team.tree import cache as tree_cache
from ospiel_team.algorithms.team.decomposition import TeamDecomposition
from ospiel_team.games import team_instances

FLAGS = flags.FLAGS
flags.DEFINE_string("instances", "22D3", "comma-separated Table 1 instance names")
flags.DEFINE_integer("iterations", 20, "DCFR iterations timed per implementation")
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
  for native in (True, False):
    c0 = time.process_time()
    dags = [team_belief_dag.BeliefDAG(d, native=native) for d in dec]
    c1 = time.process_time()
    sig = [g.regret_matching(np.zeros(g.num_edges)) for g in dags]
    leaf = [g.flows_and_leaves(s)[1] for g, s in zip(dags, sig)]
    reg = [np.zeros(g.num_edges) for g in dags]
    for it in range(1, iterations + 1):
      for team in (0, 1):
        grad = m @ leaf[1] if team == 0 else -(m_t @ leaf[0])
        dags[team].regret_update(grad, sig[team], reg[team], algorithm, it)
        leaf[team] = dags[team].flows_and_leaves(sig[team])[1]
    c2 = time.process_time()
    dags[1].best_response_value(-(m_t @ leaf[0]))
    dags[0].best_response_value(m @ leaf[1])
    c3 = time.process_time()
    key = "c" if native else "numpy"
    row[f"{key}_dag_build_cpu_s"] = round(c1 - c0, 3)
    row[f"{key}_iteration_cpu_s"] = round((c2 - c1) / iterations, 4)
    row[f"{key}_certification_cpu_s"] = round(c3 - c2, 4)
    row[f"{key}_native"] = dags[0].native
  row["speedup"] = round(row["numpy_iteration_cpu_s"] / row["c_iteration_cpu_s"], 2)
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
