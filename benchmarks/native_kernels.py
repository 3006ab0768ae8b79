r"""The numba kernels against the C kernels they replaced, measured in one run.

Five rows, each the kernel's own work with its setup (game tree, decomposition, starting
policy) left out of the timing:

* `cfr_leduc`, `cfr_mini_bridge5`: `BatchedTreeCFRSolver` iterations (the JPS paper's CFR:
  simultaneous updates, exploration 0.01, a batch of `--cfr_batch` seeds) on leduc_poker and
  mini_bridge(size=5);
* `jps_simple_bidding16`: one exact JPS run (D = 3) on simple_bidding(size=16) from CFR100's
  last iterate (the search's cached structure built by an untimed first run);
* `dag_21L153`: `belief_dag.solve` on Zhang & Sandholm's instance 21L153 (DCFR,
  `--dag_iterations` iterations, certification every 10; decompositions built untimed);
* `bb_simple_bidding`: `simple_bidding_optimum.solve(--bb_size)`, the exact branch and bound.

The old side is the package at `--old_commit` (by default the last commit with the C kernels,
compiled by the system C compiler through ctypes; with `--old_kind package`, any earlier commit
of the package, for an A/B of a change), checked out as a `git worktree` under /tmp and imported
in a subprocess with PYTHONPATH pointing at it; the new side is this working tree. Every
repetition runs one subprocess per side, alternating which side goes first; a subprocess
times `--inner` calls after one untimed warm-up call and reports their median; the row's
time is the median over `--repeats` repetitions, and its ratio new / old (the ratio of the
two sides' fastest repetitions is recorded beside it: on a shared machine, load only ever
slows a run down). Each side also
reports a check value of its result (policy checksum, JPS value, DAG bracket, optimum total),
which must agree. One more new-side subprocess with an empty NUMBA_CACHE_DIR gives the numba
compile time: its setup and first call less the median of the same with the cache warm. The
load average (`os.getloadavg()`) is recorded before and after every row; the machine is
shared, so a row whose load exceeded the core count can be rerun alone (`--rows`), which
updates that row of an existing `--json_out`.

Usage:
  python benchmarks/native_kernels.py                      # all rows, 5 repetitions
  python benchmarks/native_kernels.py --rows jps_simple_bidding16 --repeats 7
  python benchmarks/native_kernels.py --old_kind package --old_commit <commit> --repeats 9 \
      --json_out results/speed/native_kernels_ab.json     # an A/B across a change
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from absl import app
from absl import flags

FLAGS = flags.FLAGS
ROWS = ("cfr_leduc", "cfr_mini_bridge5", "jps_simple_bidding16", "dag_21L153",
        "bb_simple_bidding")
flags.DEFINE_string("old_commit", "bacc4c351211b7fcb1ea8328a1a255a0f072b950",
                    "Commit of the C kernels (the old side).")
flags.DEFINE_enum("old_kind", "c", ["c", "package"],
                  "What --old_commit holds: 'c', the C kernels (checked: the commit must have "
                  "ospiel_team/native.py), or 'package', any earlier commit of the package (an "
                  "A/B of the numba kernels and their callers across a change).")
flags.DEFINE_string("old_tree", None,
                    "Worktree of --old_commit (default /tmp/native_kernels_old_<commit>; "
                    "created with `git worktree add --detach` if missing).")
flags.DEFINE_list("rows", list(ROWS), f"Rows to measure, of {ROWS}.")
flags.DEFINE_integer("repeats", 5, "Repetitions per side (subprocesses, alternating).")
flags.DEFINE_integer("inner", 3, "Timed calls per subprocess (median).")
flags.DEFINE_integer("cfr_batch", 4, "Seeds per CFR batch.")
flags.DEFINE_integer("cfr_iterations", 400, "CFR iterations per timed call (leduc; a tenth "
                     "of them on mini_bridge(5)).")
flags.DEFINE_integer("dag_iterations", 100, "DCFR iterations of the timed belief-DAG solve.")
flags.DEFINE_integer("bb_size", 12, "simple_bidding size of the branch and bound.")
flags.DEFINE_string("json_out", "results/speed/native_kernels.json", "Where the record goes.")
flags.DEFINE_string("worker", None, "(internal) run one row in this process and print JSON.")
flags.DEFINE_bool("cold", False, "(internal) time the first call separately.")

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ----------------------------------------------------------------------------------------------
# Worker side: runs inside the subprocess, against whichever package PYTHONPATH selects.
def _workload(row: str):
  """(setup-free callable doing the kernel's work, callable giving the check value)."""
  import inspect

  import numpy as np
  import pyspiel

  import ospiel_team  # noqa: F401
  from ospiel_team.tree.game_tree import GameTree
  if row.startswith("cfr_"):
    from ospiel_team.algorithms.nash import cfr
    game, iters = (("leduc_poker", FLAGS.cfr_iterations) if row == "cfr_leduc" else
                   ("mini_bridge(size=5)", max(1, FLAGS.cfr_iterations // 10)))
    tree = GameTree(pyspiel.load_game(game))
    seeds = np.arange(FLAGS.cfr_batch)
    init = np.stack([cfr.random_policy_array(tree, int(s)) for s in seeds])
    state = {}

    def work():
      solver = cfr.BatchedTreeCFRSolver(tree, init, alternating_updates=False,
                                        exploration=0.01, noise_seeds=seeds)
      for _ in range(iters):
        solver.evaluate_and_update_policy()
      state["solver"] = solver
    return work, lambda: float(np.sum(state["solver"].average_policy_array() *
                                      np.arange(1, tree.num_actions + 1)))
  if row == "jps_simple_bidding16":
    from ospiel_team.algorithms.coop import jps
    from ospiel_team.algorithms.nash import cfr
    tree = GameTree(pyspiel.load_game("simple_bidding(size=16)"))
    solver = cfr.BatchedTreeCFRSolver(tree, cfr.random_policy_array(tree, 0)[None],
                                      alternating_updates=False)
    for _ in range(100):
      solver.evaluate_and_update_policy()
    pi = solver.current_policy_array()[0]
    search = jps.JointPolicySearch(tree, depth=3, seed=0)
    search.improve(pi)  # builds the cached structure, untimed
    state = {}

    def work():
      state["result"] = search.improve(pi)
    return work, lambda: state["result"].value
  if row == "dag_21L153":
    from ospiel_team.algorithms.team import belief_dag
    from ospiel_team.games import team_instances
    try:
      from ospiel_team.lp.decomposition import TeamDecomposition
      from ospiel_team.tree import teams as teams_lib
    except ImportError:  # the old side: before the team concepts moved one layer down
      from ospiel_team.algorithms.team import teams as teams_lib
      from ospiel_team.algorithms.team.decomposition import TeamDecomposition
    game, teams = team_instances.load_instance("21L153")
    tree, teams = teams_lib.check_assumptions(
        GameTree(game), "|".join(",".join(str(p) for p in t) for t in teams))
    dec = [TeamDecomposition(tree, t, max_local=100_000_000) for t in teams.teams]
    state = {}

    def work():
      state["result"] = belief_dag.solve(tree, teams, tol=0.0,
                                         max_iterations=FLAGS.dag_iterations,
                                         algorithm="dcfr", check_every=10, decompositions=dec)
    return work, lambda: [state["result"].lower, state["result"].upper]
  if row == "bb_simple_bidding":
    from ospiel_team.algorithms.coop import simple_bidding_optimum as sbo
    kw = dict(hash_log2=22)
    if "backend" in inspect.signature(sbo.solve).parameters:
      kw["backend"] = "c"
    state = {}

    def work():
      state["result"] = sbo.solve(FLAGS.bb_size, **kw)
    return work, lambda: state["result"].total
  raise ValueError(f"unknown row {row!r}; use one of {ROWS}")


def _run_worker(row: str) -> dict:
  t0 = time.perf_counter()
  work, check = _workload(row)
  setup = time.perf_counter() - t0
  out = {}
  t0 = time.perf_counter()
  work()  # warm-up: loads (or, with an empty NUMBA_CACHE_DIR, compiles) the kernels
  first = time.perf_counter() - t0
  times = []
  for _ in range(FLAGS.inner):
    t0 = time.perf_counter()
    work()
    times.append(time.perf_counter() - t0)
  out.update(seconds=statistics.median(times), times=times, setup=setup, first_call=first,
             check=check())
  return out


# ----------------------------------------------------------------------------------------------
# Driver side.
def _old_tree() -> str:
  path = FLAGS.old_tree or f"/tmp/native_kernels_old_{FLAGS.old_commit[:12]}"
  if not os.path.isdir(os.path.join(path, "ospiel_team")):
    subprocess.run(["git", "-C", _REPO, "worktree", "add", "--detach", path,
                    FLAGS.old_commit], check=True, capture_output=True)
  head = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], check=True,
                        capture_output=True, text=True).stdout.strip()
  if head != FLAGS.old_commit and not head.startswith(FLAGS.old_commit):
    raise ValueError(f"{path} is at {head}, not --old_commit={FLAGS.old_commit}")
  if FLAGS.old_kind == "c" and not os.path.exists(os.path.join(path, "ospiel_team",
                                                              "native.py")):
    raise ValueError(f"{path} has no ospiel_team/native.py: --old_commit={FLAGS.old_commit} "
                     "is not a commit with the C kernels")
  return path


def _spawn(row: str, root: str, env_extra: dict | None = None) -> dict:
  env = dict(os.environ, PYTHONPATH=root)
  env.update(env_extra or {})
  cmd = [sys.executable, os.path.abspath(__file__), f"--worker={row}",
         f"--inner={FLAGS.inner}", f"--cfr_batch={FLAGS.cfr_batch}",
         f"--cfr_iterations={FLAGS.cfr_iterations}", f"--dag_iterations={FLAGS.dag_iterations}",
         f"--bb_size={FLAGS.bb_size}"]
  proc = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
  if proc.returncode != 0:
    raise RuntimeError(f"{row} worker under {root} failed:\n{proc.stderr[-3000:]}")
  res = json.loads(proc.stdout.strip().splitlines()[-1])
  imported = res.get("package")
  if imported != os.path.join(root, "ospiel_team"):
    raise RuntimeError(f"{row} worker imported {imported}, not {root}/ospiel_team")
  return res


def _load() -> list[float]:
  return [round(x, 2) for x in os.getloadavg()]


def _measure(row: str, old_root: str) -> dict:
  load_before = _load()
  old, new = [], []
  for rep in range(FLAGS.repeats):
    sides = [("old", old_root), ("new", _REPO)]
    if rep % 2:
      sides.reverse()
    for side, root in sides:
      res = _spawn(row, root)
      (old if side == "old" else new).append(res)
      print(f"  {row} rep {rep} {side}: {res['seconds']:.4f} s", flush=True)
  with tempfile.TemporaryDirectory() as cache:
    cold = _spawn(row, _REPO, {"NUMBA_CACHE_DIR": cache})
  load_after = _load()
  # Setup and first call with an empty numba cache, less the same with the cache warm: the
  # compile time (the setup runs the kernels too, e.g. JPS's starting CFR).
  warm = statistics.median(r["setup"] + r["first_call"] for r in new)
  old_s = statistics.median(r["seconds"] for r in old)
  new_s = statistics.median(r["seconds"] for r in new)
  checks = {json.dumps(r["check"]) for r in old + new}
  return dict(row=row, old_seconds=round(old_s, 5), new_seconds=round(new_s, 5),
              ratio_new_over_old=round(new_s / old_s, 3),
              ratio_of_minimums=round(min(r["seconds"] for r in new)
                                      / min(r["seconds"] for r in old), 3),
              old_all=[round(r["seconds"], 5) for r in old],
              new_all=[round(r["seconds"], 5) for r in new],
              numba_compile_seconds=round(cold["setup"] + cold["first_call"] - warm, 3),
              check_old=old[0]["check"], check_new=new[0]["check"],
              checks_agree=len(checks) == 1, load_before=load_before, load_after=load_after,
              cores=os.cpu_count())


def _table(rows: list[dict]) -> str:
  old = "old (C)" if FLAGS.old_kind == "c" else "old"
  lines = [f"| row | {old} s | new s | new / old | numba compile s | load before | "
           "load after | results agree |", "|---|---|---|---|---|---|---|---|"]
  for r in rows:
    lines.append(f"| {r['row']} | {r['old_seconds']:.4f} | {r['new_seconds']:.4f} | "
                 f"{r['ratio_new_over_old']:.2f} | {r['numba_compile_seconds']:.1f} | "
                 f"{' '.join(map(str, r['load_before']))} | "
                 f"{' '.join(map(str, r['load_after']))} | {r['checks_agree']} |")
  return "\n".join(lines)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  if FLAGS.worker:
    res = _run_worker(FLAGS.worker)
    import ospiel_team
    res["package"] = os.path.dirname(os.path.abspath(ospiel_team.__file__))
    print(json.dumps(res))
    return
  bad = [r for r in FLAGS.rows if r not in ROWS]
  if bad:
    raise app.UsageError(f"unknown --rows {bad}; use some of {ROWS}")
  if FLAGS.repeats < 1 or FLAGS.inner < 1:
    raise app.UsageError(f"--repeats={FLAGS.repeats} and --inner={FLAGS.inner} must be >= 1")
  from ospiel_team import atomic_io
  atomic_io.check_writable(FLAGS.json_out, flag="--json_out")
  old_root = _old_tree()
  record = {}
  if os.path.exists(FLAGS.json_out):
    with open(FLAGS.json_out) as f:
      record = json.load(f)
  by_row = {r["row"]: r for r in record.get("rows", [])}
  for row in FLAGS.rows:
    print(f"{row} ...", flush=True)
    by_row[row] = _measure(row, old_root)
    by_row[row]["measured_utc"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
  new_commit = subprocess.run(["git", "-C", _REPO, "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
  from ospiel_team.runner import report
  record = dict(report.provenance(["python"] + sys.argv),
                old_commit=FLAGS.old_commit, old_kind=FLAGS.old_kind, new_commit=new_commit,
                settings=dict(repeats=FLAGS.repeats, inner=FLAGS.inner,
                              cfr_batch=FLAGS.cfr_batch, cfr_iterations=FLAGS.cfr_iterations,
                              dag_iterations=FLAGS.dag_iterations, bb_size=FLAGS.bb_size),
                rows=[by_row[r] for r in ROWS if r in by_row])
  atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
  print(_table(record["rows"]))


if __name__ == "__main__":
  app.run(main)
