r"""Table 1 of Zhang & Sandholm with our team LP: sizes, values, times, ratios to the paper.

Each instance of `ospiel_team.games.team_instances.TABLE1_INSTANCES` is solved in its own
subprocess (`ospiel-team-solve --json`) under a wall-clock limit; an
instance that does not finish in time (or whose tree is larger than `--max_terminals`, so the
Python tree walk alone would not finish) is marked "not finished". Results are written
atomically to `--out` (JSON) after every instance and reused on a rerun (resume); a Markdown
table goes to `--out_md`.

Columns: |Z| (terminal histories, checked against the paper), #Seq of each team (checked),
our LP columns per team (local solutions), LP size (nonzeros of the constraint matrix) and the
paper's, the value (team 1, the sum of its members' values), our time (tree walk + building +
HiGHS) and the paper's "Ours", and the ratios ours / paper of time and LP size (< 1: smaller or
faster than the paper).

Usage:
  python benchmarks/team_lp_table.py --time_limit 60 --out results/team_lp_table.json \
      --out_md results/team_lp_table.md
"""

import json
import os
import subprocess
import sys
import time

from absl import app
from absl import flags

from ospiel_team.games import team_instances
from ospiel_team import atomic_io

FLAGS = flags.FLAGS
flags.DEFINE_float("time_limit", 60.0, "seconds per instance (subprocess wall clock)")
flags.DEFINE_integer("max_terminals", 100_000,
                     "skip (mark not finished) instances with more terminal histories")
flags.DEFINE_string("instances", "", "comma-separated instance names (default: all)")
flags.DEFINE_string("out", "results/team_lp_table.json", "JSON results (resumable)")
flags.DEFINE_string("out_md", "results/team_lp_table.md", "Markdown table")
flags.DEFINE_string("solver", "auto", "HiGHS solver: auto (team_lp.choose_solver), simplex, "
                    "ipm or choose")
flags.DEFINE_string("method", "lp", "team_solve method: lp, cg, dag or auto")
flags.DEFINE_list("methods", [], "per-instance methods overriding --method, ID=METHOD pairs, "
                  "e.g. \"21K3=lp,32G=dag\"")
flags.DEFINE_float("memory_limit_gb", 20.0,
                   "address-space limit of each solve (RLIMIT_AS): an instance that needs more "
                   "fails with MemoryError instead of waking the OOM killer on a shared machine")
flags.DEFINE_float("certify_time_limit", 30.0,
                   "anytime methods: seconds per independent best-response MIP that re-derives "
                   "the bracket (team_solve.certify; 0: off)")
flags.DEFINE_string("tree_cache", None,
                    "directory of cached game trees passed to the solver (--tree_cache): the "
                    "first run walks and stores the tree, later runs load its arrays (rows say "
                    "tree_cache hit/miss and tree_seconds)")
flags.DEFINE_bool("rerun", False, "solve the selected instances again (other stored rows are kept)")
flags.DEFINE_bool("markdown_only", False, "only rewrite --out_md from the stored --out")


_atomic_write = atomic_io.write_text


def _limit_memory(gigabytes: float):
  """preexec_fn for the solve's subprocess: caps its address space."""
  def apply():
    import resource  #
    cap = int(gigabytes * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
  return apply


def run_instance(name: str, time_limit: float, solver: str,
                 memory_limit_gb: float = None, method: str = "lp") -> dict:
  game, teams = team_instances.TABLE1_INSTANCES[name]
  teams_str = "|".join(",".join(str(p) for p in t) for t in teams)
  cmd = [sys.executable, "-m", "ospiel_team.cli.team_solve", "--instance", name, "--json",
         "--solver", solver, "--method", method]
  if FLAGS.tree_cache:
    cmd += ["--tree_cache", FLAGS.tree_cache]
  if method != "lp":  # column generation returns its certified bracket at its own limit,
    # which leaves room for the tree walk, the last oracle call and the process start
    cmd += ["--time_limit", str(max(1.0, 0.85 * time_limit - 10.0))]
    # and its bracket is re-derived by independent exact team best responses
    cmd += ["--certify_time_limit", str(FLAGS.certify_time_limit)]
  start = time.perf_counter()
  cpu0 = _children_cpu()
  try:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit,
                          preexec_fn=_limit_memory(memory_limit_gb) if memory_limit_gb else None)
  except subprocess.TimeoutExpired:
    return dict(instance=name, game=game, teams=teams_str, finished=False, method=method,
                reason=f"not finished in {time_limit:g} s")
  wall = time.perf_counter() - start
  if proc.returncode < 0:  # killed by a signal; SIGKILL is what the kernel's OOM killer sends
    sig = -proc.returncode
    return dict(instance=name, game=game, teams=teams_str, finished=False, method=method,
                reason=f"killed by signal {sig}" + (" (SIGKILL: out of memory?)" if sig == 9
                                                    else ""))
  if proc.returncode != 0:
    tail = (proc.stderr or "").strip().splitlines()[-1:] or ["?"]
    return dict(instance=name, game=game, teams=teams_str, finished=False, method=method,
                reason=f"error: {tail[0][:200]}")
  row = json.loads(proc.stdout.strip().splitlines()[-1])
  row.update(instance=name, finished=True, wall_seconds=round(wall, 3),
             cpu_seconds=round(_children_cpu() - cpu0, 2))
  return row


def parse_methods(items) -> dict:
  """{"21K3": "lp", ...} from ["21K3=lp", ...]; ValueError naming a bad item, instance or method."""
  from ospiel_team.algorithms.team import solve as team_solve  #
  out = {}
  for item in items:
    name, sep, method = item.partition("=")
    if not sep:
      raise ValueError(f"--methods item {item!r} is not ID=METHOD")
    if name not in team_instances.TABLE1_INSTANCES:
      raise ValueError(f"--methods: unknown instance {name!r}")
    if method not in team_solve.METHODS:
      raise ValueError(f"--methods: unknown method {method!r} for {name}; use one of "
                       f"{team_solve.METHODS}")
    out[name] = method
  return out


def _children_cpu() -> float:
  """User + system CPU seconds of the finished subprocesses (less load-sensitive than wall)."""
  import resource  #
  r = resource.getrusage(resource.RUSAGE_CHILDREN)
  return r.ru_utime + r.ru_stime


def _load_average() -> str:
  """The 1-minute load average (the machine is shared: timings are taken under this load)."""
  try:
    with open("/proc/loadavg") as f:
      return f.read().split()[0]
  except OSError:
    return ""


def markdown(rows: list) -> str:
  head = ("| Game | \\|Z\\| | method | value (team 1) | certified gap | LP size (ours / paper) |"
          " ours (s) | paper Ours (s) | fastest published (s) | ratio to fastest | load |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|\n")
  lines = []
  for r in rows:
    p = team_instances.PAPER_TABLE1.get(r["instance"])
    fastest = team_instances.fastest_published(r["instance"])
    fastest_s = f"{fastest[0]:g} ({fastest[1]})" if fastest else "none"
    paper_s = p.seconds if p else None
    load = f"{r.get('load_before', '')}-{r.get('load_after', '')}".strip("-")
    if not r.get("finished"):
      lines.append(f"| {r['instance']} | {p.terminals if p else ''} | {r.get('method', '')} | "
                   f"{r['reason']} | | | | {paper_s if paper_s is not None else 'oom'} | "
                   f"{fastest_s} | | {load} |")
      continue
    secs = r["seconds"]
    size = ""
    if r.get("lp_nonzeros"):
      size = f"{r['lp_nonzeros']} / {p.lp_size or '?'}"
    gap = r.get("gap", 0.0)
    exact = r.get("exact", True)
    value = f"{r['value']:.6f}" + ("" if exact else " (not converged)")
    ratio = f"{secs / fastest[0]:.2f}" if fastest else ""
    lines.append(
        f"| {r['instance']} | {r['terminals']} | {r.get('method', 'lp')} | {value} | "
        f"{gap:.1e} | {size} | {secs:.2f} | {paper_s if paper_s is not None else 'oom'} | "
        f"{fastest_s} | {ratio} | {load} |")
  return head + "\n".join(lines) + "\n"


def main(argv):
  del argv
  try:  # outputs that cannot be written fail before any solve, as one line
    atomic_io.check_writable(FLAGS.out, flag="--out")
    atomic_io.check_writable(FLAGS.out_md, flag="--out_md")
  except ValueError as e:
    raise SystemExit(f"team_lp_table: error: {e}") from None
  names = (FLAGS.instances.split(",") if FLAGS.instances
           else list(team_instances.TABLE1_INSTANCES))
  try:
    per_instance = parse_methods(FLAGS.methods)
  except ValueError as e:
    raise app.UsageError(str(e)) from None
  stored = {}
  if os.path.exists(FLAGS.out):
    with open(FLAGS.out) as f:
      stored = {r["instance"]: r for r in json.load(f)["rows"]}
  if FLAGS.markdown_only:
    rows = [stored[n] for n in names if n in stored]
    _atomic_write(FLAGS.out_md, markdown(rows))
    print(markdown(rows))
    return
  import tqdm  #
  rows = []
  for name in tqdm.tqdm(names, desc="Table 1", unit=" instance"):
    if name not in team_instances.TABLE1_INSTANCES:
      raise ValueError(f"unknown instance {name!r}; known: {list(team_instances.TABLE1_INSTANCES)}")
    old = stored.get(name)
    if old is not None and not FLAGS.rerun and (old.get("finished") or
                                                old.get("time_limit", 0) >= FLAGS.time_limit):
      rows.append(old)
      continue
    paper = team_instances.PAPER_TABLE1[name]
    load_before = _load_average()
    if paper.terminals > FLAGS.max_terminals:
      row = dict(instance=name, finished=False,
                 reason=f"not run: |Z|={paper.terminals} > max_terminals={FLAGS.max_terminals}")
    else:
      row = run_instance(name, FLAGS.time_limit, FLAGS.solver, FLAGS.memory_limit_gb,
                         per_instance.get(name, FLAGS.method))
    row["time_limit"] = FLAGS.time_limit
    row["load_before"] = load_before
    row["load_after"] = _load_average()
    if row.get("finished") and "sequences" in row:
      for key, ours, theirs in (("terminals", row["terminals"], paper.terminals),
                                ("seq1", row["sequences"][0], paper.seq1),
                                ("seq2", row["sequences"][1], paper.seq2)):
        row[f"{key}_matches_paper"] = ours == theirs
    rows.append(row)
    stored[name] = row
    _atomic_write(FLAGS.out, json.dumps(dict(
        command=" ".join(["python"] + sys.argv), date=time.strftime("%Y-%m-%d %H:%M UTC",
                                                                    time.gmtime()),
        rows=[stored[n] for n in team_instances.TABLE1_INSTANCES if n in stored]), indent=1))
    print(json.dumps({k: row.get(k) for k in ("instance", "finished", "value", "seconds",
                                              "lp_nonzeros", "reason")}), flush=True)
  _atomic_write(FLAGS.out_md, markdown(rows))
  print(markdown(rows))


if __name__ == "__main__":
  app.run(main)
