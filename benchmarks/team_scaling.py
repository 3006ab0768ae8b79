r"""Team solvers past Zhang & Sandholm's Table 1: the next instances of every family, until a
limit stops them.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022, arXiv:2109.05284, Table 1 stops at Kuhn 12 ranks, Leduc 5 ranks or 5
bets, Liar's Dice 4 faces and Goofspiel 3 cards. For each family (`LADDERS`) this runs the next
instances in order, each by `solve(method="auto")` (the default path: an exact optimum or a
certified bracket settling 4 decimals) in its own subprocess under a time limit and an
address-space cap, and records per instance: the method `auto` picks and why, the value or the
certified bracket, seconds, peak resident memory, the number of histories, and, where it stops,
why: `time` (killed at the limit, or a certified bracket that does not settle 4 decimals by
it), `memory` (a MemoryError or killed past the cap), or `size`
(the tree's memory budget refused it: `TreeTooLargeError`). A family stops at its first
instance that does not finish or settle (the next ones are larger).

The record (`--out`) is rewritten atomically after every instance; a rerun skips instances
already in it (`--rerun` solves them again). Timings are wall-clock seconds of a machine that
should be otherwise idle.

Usage (the full table; `--ladder smoke` runs one tiny instance):
  nice -n 10 python benchmarks/team_scaling.py --out results/team_lp_table/scaling.json
"""

import json
import os
import platform
import subprocess
import sys
import tempfile
import time

from absl import app
from absl import flags
from tqdm import tqdm

from ospiel_team import atomic_io
from ospiel_team.algorithms.team.result import settled
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("ladder", "full", "'full' (every family) or 'smoke' (one tiny instance)")
flags.DEFINE_string("families", "", "comma-separated families of the ladder (empty: all)")
flags.DEFINE_float("time_limit", 900.0, "seconds per instance (the solve gets 95% of it)")
flags.DEFINE_float("memory_gb", 12.0, "address-space cap per instance (GB)")
flags.DEFINE_string("out", "results/team_lp_table/scaling.json", "JSON record (atomic, resumable)")
flags.DEFINE_bool("rerun", False, "solve instances already in --out again")

_LEDUC = "team_leduc(players={p},bets={b},ranks={r},suits={s})"
_DICE = "team_liars_dice(players={p},sides={f},bidding_rule=reset-quantity,wild=False)"
# family -> [(name, game, teams)], smallest first; each family starts past Table 1.
LADDERS = {
    "kuhn_ranks": [(f"21K{r}", f"team_kuhn(players=3,ranks={r})", "0,1|2")
                   for r in (13, 14, 16, 20)],
    "leduc_ranks": [(f"21L1{r}3", _LEDUC.format(p=3, b=1, r=r, s=3), "0,1|2")
                    for r in (6, 7, 8)],
    "leduc_bets": [(f"21L{b}23", _LEDUC.format(p=3, b=b, r=2, s=3), "0,1|2")
                   for b in (6, 7, 8)],
    "dice_faces": [(f"21D{f}", _DICE.format(p=3, f=f), "0,1|2") for f in (5, 6)],
    "goofspiel_ranks": [(f"21G{k}", f"team_goofspiel(players=3,info=full,num_cards={k})",
                         "0,1|2") for k in (4, 5)],
    "split_3v2": [("32K6", "team_kuhn(players=5,ranks=6)", "0,1,2|3,4"),
                  ("32L132", _LEDUC.format(p=5, b=1, r=3, s=2), "0,1,2|3,4"),
                  ("32D2", _DICE.format(p=5, f=2), "0,2,4|1,3"),
                  ("32K7", "team_kuhn(players=5,ranks=7)", "0,1,2|3,4")],
}
SMOKE = {"smoke": [("21K3", "team_kuhn(players=3,ranks=3)", "0,1|2")]}

# The child: builds the tree (reports its size), solves, prints one JSON line per stage.
_CHILD = r"""
import json, resource, sys, time
cap = int(float(sys.argv[3]) * 1e9)
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
import pyspiel, ospiel_team
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.tree.memory import TreeTooLargeError
from ospiel_team.algorithms.team import solve
start = time.perf_counter()
try:
  tree = GameTree(pyspiel.load_game(sys.argv[1]))
except TreeTooLargeError as e:
  print(json.dumps(dict(stop="size", error=str(e)[:300])), flush=True)
  sys.exit(0)
except MemoryError:
  print(json.dumps(dict(stop="memory", error="MemoryError building the tree")), flush=True)
  sys.exit(0)
print(json.dumps(dict(histories=int(tree.num_nodes), terminals=len(tree.terminals),
                      tree_seconds=round(time.perf_counter() - start, 3))), flush=True)
try:
  res = solve(tree, sys.argv[2], time_limit=float(sys.argv[4]))
except MemoryError:
  print(json.dumps(dict(stop="memory", error="MemoryError in the solve")), flush=True)
  sys.exit(0)
d = res.details
print(json.dumps(dict(method=res.method, auto=d.get("auto", res.reason), value=res.value,
                      lower=res.lower, upper=res.upper, exact=bool(res.exact),
                      precision=str(d.get("precision", "")),
                      solve_seconds=round(res.seconds, 3))), flush=True)
"""


def _peak_rss_gb(pid: int, last: float) -> float:
  """The process's peak resident memory so far (VmHWM, GB; `last` if it is gone)."""
  try:
    with open(f"/proc/{pid}/status") as f:
      for line in f:
        if line.startswith("VmHWM:"):
          return max(last, int(line.split()[1]) / 1e6)
  except OSError:
    pass
  return last


def run_instance(game: str, teams: str, time_limit: float, memory_gb: float) -> dict:
  """Solves one instance in a subprocess; returns its row (without name and family)."""
  start = time.perf_counter()
  peak = 0.0
  with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, game, teams, str(memory_gb), str(0.95 * time_limit)],
        stdout=out, stderr=err, text=True)
    timed_out = False
    while proc.poll() is None:
      peak = _peak_rss_gb(proc.pid, peak)
      if time.perf_counter() - start > time_limit:
        proc.kill()
        proc.wait()
        timed_out = True
        break
      time.sleep(0.2)
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read(), err.read()
  row = dict(game=game, teams=teams, seconds=round(time.perf_counter() - start, 3),
             peak_rss_gb=round(peak, 3))
  for line in stdout.splitlines():
    if line.startswith("{"):
      row.update(json.loads(line))
  if timed_out:
    row["stop"] = "time"
  elif "method" not in row and "stop" not in row:
    tail = stderr.strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
    row["stop"] = "memory" if "MemoryError" in stderr or proc.returncode < 0 else "error"
    row["error"] = tail[0][:300]
  row["finished"] = "method" in row
  # A bracket that does not settle 4 decimals by the time limit is where the family stops too.
  if row["finished"] and not row["exact"] and not settled(row["lower"], row["upper"], 4):
    row["stop"] = "time"
  return row


def _stops(row: dict) -> bool:
  """Whether the family stops at this row: no answer, or a bracket that does not settle."""
  return not row["finished"] or "stop" in row


def _load(path: str) -> dict:
  if os.path.exists(path):
    with open(path) as f:
      return json.load(f)
  return {}


def main(argv):
  del argv
  ladders = SMOKE if FLAGS.ladder == "smoke" else LADDERS
  if FLAGS.families:
    ladders = {k: ladders[k] for k in FLAGS.families.split(",")}
  record = _load(FLAGS.out)
  rows = {r["name"]: r for r in record.get("rows", [])}
  record.update(
      command=" ".join(["nice -n 10 python benchmarks/team_scaling.py"] + sys.argv[1:]),
      date=time.strftime("%Y-%m-%d"), commit=report.short_commit(),
      machine=f"{platform.machine()}, {os.cpu_count()} cpus",
      time_limit=FLAGS.time_limit, memory_gb=FLAGS.memory_gb)
  todo = [(fam, *inst) for fam, ladder in ladders.items() for inst in ladder]
  stopped = {r["family"] for r in rows.values() if _stops(r)} if not FLAGS.rerun else set()
  for fam, name, game, teams in tqdm(todo, desc="team scaling", unit="instance"):
    if fam in stopped or (name in rows and not FLAGS.rerun):
      continue
    row = dict(family=fam, name=name, load_before=os.getloadavg()[0])
    row.update(run_instance(game, teams, FLAGS.time_limit, FLAGS.memory_gb))
    rows[name] = row
    if _stops(row):
      stopped.add(fam)
    record["rows"] = list(rows.values())
    atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
    tqdm.write(f"{name}: {row.get('method', row.get('stop'))} {row['seconds']} s")


if __name__ == "__main__":
  app.run(main)
