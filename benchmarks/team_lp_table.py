r"""Table 1 of Zhang & Sandholm with our team solvers: values, second method, times, ratios.

Each instance of `ospiel_team.games.team_instances.TABLE1_INSTANCES` is solved in its own
subprocess (`ospiel-team-solve --json`) under a wall-clock limit; an
instance that does not finish in time (or whose tree is larger than `--max_terminals`, so the
Python tree walk alone would not finish) is marked "not finished". Results are written
atomically to `--out` (JSON) after every instance and reused on a rerun (resume); a Markdown
table goes to `--out_md`.

The default `--method auto` is the solve's default path (`algorithms.team.solver`: an exact
optimum, or a certified bracket that settles the value to 4 decimals, Table 1's precision).
With `--second` every finished instance is solved again by a second method (`second_method`:
the belief DAG for an LP answer, the LP for a DAG or column-generation answer where the LP is
built, else the other anytime method), stored in the row's "second" with the check's verdict
(`check`): a second bracket wider than `CHECK_MAX_WIDTH` checks nothing and is marked so.

Columns (Markdown): instance, our value and the paper's (where `PAPER_VALUES` has it) and
whether they agree to 4 decimals, exact or the certified bracket, the method and why `auto`
chose it, the second method's value and verdict, our time (tree walk + building + solve), the
fastest published time and its column, the ratio, and the 1-minute load average before-after
(the machine is shared: ratios from a loaded machine are not speed claims).

Usage:
  python benchmarks/team_lp_table.py --time_limit 600 --second \
      --out results/team_lp_table/default.json --out_md results/team_lp_table/default.md
"""

import json
import os
import platform
import subprocess
import sys
import time

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.games import team_instances
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_float("time_limit", 60.0, "seconds per instance (subprocess wall clock)")
flags.DEFINE_integer("max_terminals", 100_000,
                     "skip (mark not finished) instances with more terminal histories")
flags.DEFINE_string("instances", "", "comma-separated instance names (default: all)")
flags.DEFINE_string("out", "results/team_lp_table/default.json", "JSON results (resumable)")
flags.DEFINE_string("out_md", "results/team_lp_table/default.md", "Markdown table")
flags.DEFINE_string("solver", "auto", "HiGHS solver: auto (team_lp.choose_solver), simplex, "
                    "ipm or choose")
flags.DEFINE_string("method", "auto", "team_solve method: auto (the default path), lp, cg or "
                    "dag")
flags.DEFINE_bool("second", False, "also solve every finished instance by a second method "
                  "(second_method) and check the two answers (check)")
flags.DEFINE_list("methods", [], "per-instance methods overriding --method, ID=METHOD pairs, "
                  "e.g. \"21K3=lp,32G=dag\"")
flags.DEFINE_float("memory_limit_gb", 20.0,
                   "address-space limit of each solve (RLIMIT_AS): an instance that needs more "
                   "fails with MemoryError instead of waking the OOM killer on a shared machine")
flags.DEFINE_float("certify_time_limit", 30.0,
                   "anytime methods: seconds per independent best-response MIP that re-derives "
                   "the bracket (solver.certify; 0: off)")
flags.DEFINE_string("tree_cache", None,
                    "directory of cached game trees passed to the solver (--tree_cache): the "
                    "first run walks and stores the tree, later runs load its arrays (rows say "
                    "tree_cache hit/miss and tree_seconds)")
flags.DEFINE_bool("rerun", False, "solve the selected instances again (other stored rows are kept)")
flags.DEFINE_string("second_from", None, "take the second method of rows that have none from "
                    "this earlier record (its 'second' solve, re-checked against this row's "
                    "bracket; the row notes the file)")
flags.DEFINE_bool("markdown_only", False, "only rewrite --out_md from the stored --out")


_atomic_write = atomic_io.write_text


def _limit_memory(gigabytes: float):
  """preexec_fn for the solve's subprocess: caps its address space."""
  def apply():
    import resource
    cap = int(gigabytes * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
  return apply


# Team 1's value as Table 1 of Zhang & Sandholm prints it (4 decimals), for the instances whose
# printed value is cited here; the others are left blank rather than guessed.
PAPER_VALUES: dict[str, str] = {
    "21K4": "-.0417", "22K5": "-.0368", "21L151": "-.0192", "21L523": ".9520", "21D3": ".2840",
    "21D4": ".2843",
}
# A second method's certified bracket wider than this checks nothing at 4 decimals.
CHECK_MAX_WIDTH = 1e-3


def second_method(row: dict) -> str | None:
  """The method that checks a finished row: a different one, exact where possible; None where
  no second method finishes (the LP is not built and column generation's MIP oracle is large:
  its bracket stays about 1 wide, e.g. 21L153's [-0.39, 0.61] after 600 s; such brackets are
  re-derived by the independent best responses of `--certify_time_limit` instead)."""
  if not row.get("finished"):
    return None
  if row["method"] == "lp":
    return "dag"
  if "LP not built" not in row.get("auto", ""):
    return "lp"
  return "dag" if row["method"] == "cg" else None


def check(row: dict, second: dict) -> str:
  """Verdict of a second method on a row: do the two certified brackets meet, and (where both
  settle 4 decimals) do they print the same value?"""
  if not second.get("finished"):
    return f"no check: {second.get('reason', 'not finished')}"
  lo, hi = row.get("lower", row["value"]), row.get("upper", row["value"])
  lo2, hi2 = second.get("lower", second["value"]), second.get("upper", second["value"])
  if hi2 - lo2 > CHECK_MAX_WIDTH:
    return f"no check: bracket width {hi2 - lo2:.1e} > {CHECK_MAX_WIDTH:g}"
  if lo2 > hi + 1e-9 or lo > hi2 + 1e-9:
    return f"DISAGREES: [{lo:.6f}, {hi:.6f}] vs [{lo2:.6f}, {hi2:.6f}]"
  if round(lo, 4) == round(hi, 4) and round(lo2, 4) == round(hi2, 4):
    return f"agrees: {row['value']:.4f}" if round(lo, 4) == round(lo2, 4) else "DISAGREES"
  return f"brackets overlap (|diff| {abs(row['value'] - second['value']):.1e})"


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
  from ospiel_team.algorithms.team import solver as team_solve
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
  import resource
  r = resource.getrusage(resource.RUSAGE_CHILDREN)
  return r.ru_utime + r.ru_stime


def _load_average() -> str:
  """The 1-minute load average (the machine is shared: timings are taken under this load)."""
  try:
    with open("/proc/loadavg") as f:
      return f.read().split()[0]
  except OSError:
    return ""


def _short_reason(auto: str) -> str:
  """`auto`'s reason in a few words for the table (the JSON keeps it whole)."""
  parts = []
  for part in auto.split("; "):
    if part.startswith("LP not built"):
      parts.append("LP not built (> 500k local solutions)")
    elif part.startswith("the game has"):
      continue
    elif "straddles" in part:
      gap = part.split("(gap ")[1].split(",")[0] if "(gap " in part else "?"
      parts.append(f"DAG bracket straddled a boundary at gap {gap}: LP")
    elif part:
      parts.append(part)
  return "; ".join(parts)


def markdown(rows: list) -> str:
  head = ("| instance | value (ours) | paper | 4 decimals | exact / certified bracket | method "
          "(auto's reason) | second method | ours (s) | fastest published (s) | ratio | load |\n"
          "|---|---:|---:|---|---|---|---|---:|---|---:|---|\n")
  lines = []
  for r in rows:
    name = r["instance"]
    fastest = team_instances.fastest_published(name)
    fastest_s = f"{fastest[0]:g} ({fastest[1]})" if fastest else "none"
    load = f"{r.get('load_before', '')}-{r.get('load_after', '')}".strip("-")
    paper = PAPER_VALUES.get(name, "")
    if not r.get("finished"):
      lines.append(f"| {name} | {r['reason']} | {paper} | | | {r.get('method', '')} | | | "
                   f"{fastest_s} | | {load} |")
      continue
    lo, hi = r.get("lower", r["value"]), r.get("upper", r["value"])
    settled = round(lo, 4) == round(hi, 4)
    ours4 = f"{r['value']:.4f}".replace("0.", ".", 1)
    match = ("" if not paper else
             ("yes" if settled and ours4 == paper.lstrip("+") else
              "unsettled" if not settled else "**no**"))
    exact = ("exact" if r.get("exact", True) else f"[{lo:.7f}, {hi:.7f}]"
             + ("" if settled else " (does not settle 4 decimals)"))
    why = _short_reason(r.get("auto", ""))
    second = r.get("second")
    second_s = (f"{second['method']} {second['value']:.6f}: {second['check']}"
                if second and second.get("finished") else
                (second["check"] if second else ""))
    secs = r["seconds"]
    ratio = f"{secs / fastest[0]:.2f}" if fastest else ""
    lines.append(f"| {name} | {r['value']:.6f} | {paper} | {match} | {exact} | "
                 f"{r.get('method', '')} ({why}) | {second_s} | {secs:.2f} | {fastest_s} | "
                 f"{ratio} | {load} |")
  return head + "\n".join(lines) + "\n"


def run_second(row: dict) -> dict:
  """Solves a finished row's instance by `second_method` and stores the `check` verdict."""
  method = second_method(row)
  if method is None:
    return dict(method=None, finished=False, check="no second method (LP not built, column "
                "generation does not finish)")
  load_before = _load_average()
  second = run_instance(row["instance"], FLAGS.time_limit, FLAGS.solver, FLAGS.memory_limit_gb,
                        method)
  keep = ("method", "finished", "reason", "value", "lower", "upper", "exact", "seconds",
          "wall_seconds", "cpu_seconds", "precision")
  second = {k: second[k] for k in keep if k in second}
  second.update(method=method, load_before=load_before, load_after=_load_average())
  second["check"] = check(row, second)
  print(json.dumps(dict(instance=row["instance"], second=second)), flush=True)
  return second


def _run_stamp() -> dict:
  """The row's own provenance (rows of one record may come from runs on different days)."""
  return dict(command=" ".join(["python"] + sys.argv),
              date=time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
              commit=report.short_commit())


def _store(stored: dict):
  _atomic_write(FLAGS.out, json.dumps(dict(
      command=" ".join(["python"] + sys.argv), date=time.strftime("%Y-%m-%d %H:%M UTC",
                                                                  time.gmtime()),
      machine=f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()})",
      rows=[stored[n] for n in team_instances.TABLE1_INSTANCES if n in stored]), indent=1))


def main(argv):
  del argv
  try:  # outputs that cannot be written fail before any solve, as one line
    atomic_io.check_writable(FLAGS.out, flag="--out")
    atomic_io.check_writable(FLAGS.out_md, flag="--out_md")
    if FLAGS.second_from and not os.path.isfile(FLAGS.second_from):
      raise ValueError(f"--second_from {FLAGS.second_from!r} is not a file")
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
  if FLAGS.second_from:
    with open(FLAGS.second_from) as f:
      earlier = {r["instance"]: r for r in json.load(f)["rows"]}
    for name, row in stored.items():
      old = earlier.get(name, {}).get("second")
      if row.get("finished") and "second" not in row and old is not None:
        row["second"] = dict(old, check=check(row, old) if old.get("finished") else
                             old.get("check", ""), source=os.path.basename(FLAGS.second_from))
    _store(stored)
  if FLAGS.markdown_only:
    rows = [stored[n] for n in names if n in stored]
    _atomic_write(FLAGS.out_md, markdown(rows))
    print(markdown(rows))
    return
  import tqdm
  rows = []
  for name in tqdm.tqdm(names, desc="Table 1", unit=" instance"):
    if name not in team_instances.TABLE1_INSTANCES:
      raise ValueError(f"unknown instance {name!r}; known: {list(team_instances.TABLE1_INSTANCES)}")
    old = stored.get(name)
    if old is not None and not FLAGS.rerun and (old.get("finished") or
                                                old.get("time_limit", 0) >= FLAGS.time_limit):
      if FLAGS.second and old.get("finished") and "second" not in old:
        old["second"] = run_second(old)
        _store(stored)
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
    row["run"] = _run_stamp()
    row["load_before"] = load_before
    row["load_after"] = _load_average()
    if row.get("finished") and "sequences" in row:
      for key, ours, theirs in (("terminals", row["terminals"], paper.terminals),
                                ("seq1", row["sequences"][0], paper.seq1),
                                ("seq2", row["sequences"][1], paper.seq2)):
        row[f"{key}_matches_paper"] = ours == theirs
    rows.append(row)
    stored[name] = row
    _store(stored)
    if FLAGS.second and row.get("finished"):
      row["second"] = run_second(row)
      _store(stored)
    print(json.dumps({k: row.get(k) for k in ("instance", "finished", "value", "seconds",
                                              "lp_nonzeros", "reason")}), flush=True)
  _atomic_write(FLAGS.out_md, markdown(rows))
  print(markdown(rows))


if __name__ == "__main__":
  app.run(main)
