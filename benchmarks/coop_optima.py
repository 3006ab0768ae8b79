r"""Exact optima of the cooperative games (the true targets for JPS).

For each game (comm L=3,5,6,7; simple_bidding N=4,8,16; mini_bridge 3,4,5; tiny_hanabi) and each
method (`mip`: HiGHS MIP over the players' pure sequence-form plans; `lp`: the team LP of Zhang &
Sandholm with no opponent; `bidding_bb`, simple_bidding only: the exact branch and bound over reach
sets of `simple_bidding_optimum`, which has no solver time limit), runs `ospiel-team-coop-optimum
--json` in a subprocess under a wall-clock limit (HiGHS gets most of it as its own time limit, so a
stopped MIP still reports its best joint strategy and bound). Records the value (the common
payoff, evaluated by the CLI on the array game tree for the returned policy), whether it is proven
optimal, the gap, and seconds. Results are written atomically to `--out` after every run and
reused on a rerun.

The proven optima of the whole record (every game of `--out`, not only those of `--games`),
and those of `benchmarks/simple_bidding_exact.py`'s record (`--exact`), are also written to
`--package_data`, the file the comparison runner ships and reads its
reference values from (`ospiel_team/runner/data/coop_optima.json`);
`--package_data_only` rewrites it from the record without running anything.

Usage:
  python benchmarks/coop_optima.py --time_limit 240 --out results/coop_optima/optima.json \
      --out_md results/coop_optima/optima.md
  python benchmarks/coop_optima.py --package_data_only
"""

import json
import os
import subprocess
import sys
import time

from absl import app
from absl import flags

from ospiel_team import atomic_io

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = flags.FLAGS
flags.DEFINE_float("time_limit", 240.0, "wall-clock seconds per (game, method)")
flags.DEFINE_string("games", "tiny_hanabi,comm(length=3),comm(length=5),comm(length=6),"
                    "comm(length=7),simple_bidding(size=4),simple_bidding(size=8),"
                    "simple_bidding(size=16),mini_bridge(size=3),mini_bridge(size=4),"
                    "mini_bridge(size=5)", "comma-free game list separated by ';' or ','")
flags.DEFINE_string("methods", "mip,lp", "methods to run, in order; 'mip+cfr_jps' (or "
                    "'mip+jps'): the MIP warm-started from CFR1k+JPS's (JPS's) policy")
flags.DEFINE_float("highs_time_limit", None, "HiGHS seconds (default: 75% of --time_limit)")
flags.DEFINE_bool("skip_lp_if_proven", True, "skip the LP when the MIP proved optimality")
flags.DEFINE_string("out", "results/coop_optima/optima.json", "JSON results (resumable)")
flags.DEFINE_string("out_md", "results/coop_optima/optima.md", "Markdown table")
flags.DEFINE_bool("rerun", False, "ignore stored results")
flags.DEFINE_bool("markdown_only", False, "only rewrite --out_md from the stored --out")
flags.DEFINE_string("package_data", os.path.join(REPO, "ospiel_team", "runner", "data",
                                                 "coop_optima.json"),
                    "the proven optima of the whole --out record, as the runner ships them")
flags.DEFINE_bool("package_data_only", False,
                  "only rewrite --package_data from the stored --out")
flags.DEFINE_string("exact",
                    os.path.join(REPO, "results", "coop_optima", "simple_bidding_exact.json"),
                    "benchmarks/simple_bidding_exact.py's record, merged into --package_data "
                    "(a missing file is skipped)")


def _split_games(text):
  out, depth, cur = [], 0, ""
  for ch in text:
    if ch == "(":
      depth += 1
    elif ch == ")":
      depth -= 1
    if ch in ",;" and depth == 0:
      out.append(cur.strip())
      cur = ""
    else:
      cur += ch
  if cur.strip():
    out.append(cur.strip())
  return out


def run_one(game, method, limit, highs_limit=None):
  base, _, warm = method.partition("+")
  highs_limit = limit * 0.75 if highs_limit is None else highs_limit
  cmd = [sys.executable, "-m", "ospiel_team.cli.coop_optimum", "--game", game,
         "--method", base, "--json"]
  if base != "bidding_bb":  # the branch and bound has no solver time limit (only `limit`)
    cmd += ["--time_limit", str(round(highs_limit, 1))]
  if warm:
    cmd += ["--warm_start", warm]
  start = time.perf_counter()
  try:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
  except subprocess.TimeoutExpired:
    return dict(game=game, method=method, finished=False, reason=f"not finished in {limit:g} s")
  if proc.returncode != 0:
    tail = (proc.stderr or "").strip().splitlines()[-1:] or ["?"]
    return dict(game=game, method=method, finished=False, reason=f"error: {tail[0][:200]}")
  row = json.loads(proc.stdout.strip().splitlines()[-1])
  row.update(method_requested=method, method=row.get("method", base), finished=True,
             wall_seconds=round(time.perf_counter() - start, 2))
  return row


NOTES_MARKER = "<!-- notes: kept when the table is regenerated -->"


def _kept_notes(path):
  """The hand-written notes below NOTES_MARKER in an existing --out_md (or "")."""
  if not os.path.exists(path):
    return ""
  with open(path) as f:
    text = f.read()
  at = text.find(NOTES_MARKER)
  return "" if at < 0 else "\n" + text[at:]


def markdown(rows):
  lines = ["| game | method | value (common payoff) | proven optimal | gap | bound | seconds "
           "(total; tree walk) | terminals |", "|---|---|---|---|---|---|---|---|"]
  for r in rows:
    if not r.get("finished"):
      reason = r["reason"]
      if "MemoryError" in reason or "SizeLimitError" in reason:
        reason = "LP not built: more than lp_max_local local solutions (Theorem 4.1)"
      lines.append(f"| {r['game']} | {r.get('method_requested', r['method'])} | "
                   f"{reason} | no | | | | |")
      continue
    method = r.get("method_requested", r["method"])
    lines.append(f"| {r['game']} | {method} | {r['value']:.6f} | "
                 f"{'yes' if r['proven_optimal'] else 'no'} | {r['gap']:.2e} | "
                 f"{r['bound']:.6f} | {r['total_seconds']:.1f}; {r['tree_seconds']:.1f} | "
                 f"{r['terminals']} |")
  return "\n".join(lines) + "\n"


def exact_optima(exact: dict) -> dict[str, dict]:
  """The optima proven by `benchmarks/simple_bidding_exact.py`'s record, with provenance.

  A row is a proof when the branch and bound finished proven (no lower bound), or when it was
  asked for a strategy worth more than a known achievable total (`lower_bound`) and found none
  (`total == lower_bound`): then OPT = lower_bound / N^2.

  Args:
    exact: the parsed record ({"date", "rows": [...]}).

  Returns:
    {game string: {"value", "method", "provenance"}}.
  """
  out = {}
  for r in exact.get("rows", []):
    n, total, bound = int(r["size"]), int(r["total"]), r.get("lower_bound")
    if bound is not None and total == int(bound):
      how = (f"no joint strategy worth more than {total}/{n * n} (branch and bound, "
             f"{r['states']:,} canonical subgames, {r['seconds']:.0f} s, "
             f"{exact.get('date', 'undated')}) and a strategy worth it (simple_bidding_search)")
    elif bound is None and r.get("proven_optimal"):
      how = f"branch and bound, {exact.get('date', 'undated')}"
    else:
      continue
    out[f"simple_bidding(size={n})"] = {
        "value": total / (n * n), "method": "bidding_bb",
        "provenance": f"results/coop_optima/simple_bidding_exact.json: {how}"}
  return out


def proven_optima(rows, exact: dict | None = None):
  """The record's proven optima: {"optima": {game string: {"value", "method"}}}.

  `value` is the common payoff (the runner's `value` metric). A game proven by several methods
  must have the same value in each (ValueError naming the game otherwise). `exact` (the
  record of `benchmarks/simple_bidding_exact.py`) adds its proven optima, each with a
  `provenance` line.
  """
  optima = {}
  for r in rows:
    if not (r.get("finished") and r.get("proven_optimal")):
      continue
    game, value = r["game"], float(r["value"])
    if game in optima:
      if abs(optima[game]["value"] - value) > 1e-9 * max(1.0, abs(value)):
        raise ValueError(f"the record proves two optima for {game}: "
                         f"{optima[game]['value']} and {value}")
      continue
    optima[game] = {"value": value, "method": r.get("method_requested", r["method"])}
  for game, entry in exact_optima(exact or {}).items():
    if game in optima and abs(optima[game]["value"] - entry["value"]) > 1e-9:
      raise ValueError(f"the records prove two optima for {game}: "
                       f"{optima[game]['value']} and {entry['value']}")
    optima.setdefault(game, entry)
  return {"generated_by": "benchmarks/coop_optima.py (proven rows of its record and of "
                          "simple_bidding_exact.py's)",
          "optima": dict(sorted(optima.items()))}


def write_package_data(record_path, path, exact_path=None):
  """Writes the proven optima of the records at `record_path` and `exact_path` to `path`."""
  with open(record_path) as f:
    rows = json.load(f)["rows"]
  exact = None
  if exact_path and os.path.exists(exact_path):
    with open(exact_path) as f:
      exact = json.load(f)
  atomic_io.write_text(path, json.dumps(proven_optima(rows, exact), indent=1) + "\n")


def main(argv):
  del argv
  atomic_io.check_writable(FLAGS.package_data, flag="--package_data")
  if FLAGS.package_data_only:
    write_package_data(FLAGS.out, FLAGS.package_data, FLAGS.exact)
    return
  atomic_io.check_writable(FLAGS.out)  # before the work
  atomic_io.check_writable(FLAGS.out_md, flag="--out_md")
  games = _split_games(FLAGS.games)
  methods = [m.strip() for m in FLAGS.methods.split(",") if m.strip()]
  stored = {}
  if os.path.exists(FLAGS.out) and not FLAGS.rerun:
    with open(FLAGS.out) as f:
      stored = {(r["requested_game"], r["method_requested"]): r
                for r in json.load(f)["rows"] if "requested_game" in r}
  if FLAGS.markdown_only:
    rows = [stored[(g, m)] for g in games for m in methods if (g, m) in stored]
    atomic_io.write_text(FLAGS.out_md, markdown(rows) + _kept_notes(FLAGS.out_md))
    print(markdown(rows))
    return
  import tqdm
  rows = []
  for game in tqdm.tqdm(games, desc="cooperative optima", unit=" game"):
    proven = False
    for method in methods:
      key = (game, method)
      old = stored.get(key)
      if old is not None and (old.get("proven_optimal") or
                              old.get("time_limit", 0) >= FLAGS.time_limit):
        row = old
      else:
        if method == "lp" and proven and FLAGS.skip_lp_if_proven:
          continue
        row = run_one(game, method, FLAGS.time_limit, FLAGS.highs_time_limit)
        row.update(method_requested=method, requested_game=game, time_limit=FLAGS.time_limit)
        stored[key] = row
        if os.path.exists(FLAGS.out):  # merge rows another run wrote meanwhile
          with open(FLAGS.out) as f:
            latest = {(r["requested_game"], r["method_requested"]): r
                      for r in json.load(f)["rows"] if "requested_game" in r}
          stored = {**latest, **{k: v for k, v in stored.items() if k not in latest},
                    key: row}
        atomic_io.write_text(FLAGS.out, json.dumps(dict(
            command=" ".join(["python"] + sys.argv),
            date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            rows=list(stored.values())), indent=1))
        write_package_data(FLAGS.out, FLAGS.package_data, FLAGS.exact)
      proven = proven or bool(row.get("proven_optimal"))
      rows.append(row)
      print(json.dumps({k: row.get(k) for k in ("game", "method", "value", "proven_optimal",
                                                "gap", "total_seconds", "reason")}), flush=True)
  atomic_io.write_text(FLAGS.out_md, markdown(rows) + _kept_notes(FLAGS.out_md))
  print(markdown(rows))


if __name__ == "__main__":
  app.run(main)
