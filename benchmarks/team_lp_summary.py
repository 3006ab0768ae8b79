r"""All 29 instances of Table 1 (Zhang & Sandholm) in one table: our best finished result.

Reads the JSON files written by `benchmarks/team_lp_table.py` (one per method or machine state,
e.g. the LP on the quiet machine, the LP under load, column generation) and, for each instance,
keeps the fastest *finished* result whose game is today's instance game (results for an older
reading of a game, e.g. the D family before its rules were fixed, are dropped). Prints and
writes a Markdown table: value (team 1's total), method, certified gap (0 for the LP), seconds,
the load average around the run, the fastest of the three published runtimes (paper "Ours",
FCGS-21, ZAC-20) and our ratio to it.

Usage:
  python benchmarks/team_lp_summary.py --inputs docs/benchmarks/team_lp_table_quiet.json,\
docs/benchmarks/team_lp_table.json,docs/benchmarks/team_lp_table_cg.json \
      --out_md docs/benchmarks/team_lp_summary.md
"""

import json
import os

from absl import app
from absl import flags
import pyspiel

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team import atomic_io
from ospiel_team.games import team_instances

FLAGS = flags.FLAGS
flags.DEFINE_list("inputs", ["docs/benchmarks/team_lp_table_quiet.json",
                             "docs/benchmarks/team_lp_table.json",
                             "docs/benchmarks/team_lp_table_cg.json"],
                  "team_lp_table.py JSON files")
flags.DEFINE_string("out_md", "docs/benchmarks/team_lp_summary.md", "Markdown output")
flags.DEFINE_list("quiet_inputs", ["team_lp_table_quiet.json"],
                  "inputs (base names) measured on the quiet machine (load ~1) before the load "
                  "was recorded per row")


def _canonical(game_string: str) -> str:
  return str(pyspiel.load_game(game_string))


def summary_rows(inputs):
  current = {name: _canonical(g) for name, (g, _) in team_instances.TABLE1_INSTANCES.items()}
  best, failures = {}, {}
  for path in inputs:
    if not os.path.exists(path):
      raise ValueError(f"--inputs: {path!r} does not exist")
    with open(path) as f:
      data = json.load(f)
    for r in data["rows"]:
      name = r["instance"]
      if r.get("finished"):
        if _canonical(r["game"]) != current[name]:
          continue  # an older reading of the game
        r = dict(r, source=os.path.basename(path), date=data.get("date", ""))
        if name not in best or r["seconds"] < best[name]["seconds"]:
          best[name] = r
      else:
        stale = r.get("game") and _canonical(r["game"]) != current[name]
        failures.setdefault(name, []).append(
            f"{r.get('method', 'lp')}: {str(r.get('reason', ''))[:70]} "
            f"({os.path.basename(path)}{'; older reading of the game, same sizes' if stale else ''})")
  rows = []
  for name in team_instances.TABLE1_INSTANCES:
    fastest = team_instances.fastest_published(name)
    r = best.get(name)
    if r is None:
      rows.append(dict(instance=name, finished=False, fastest=fastest,
                       reason="; ".join(failures.get(name, ["not run"]))))
      continue
    exact = r.get("exact", True)
    rows.append(dict(instance=name, finished=True, method=r.get("method", "lp"),
                     value=r["value"], gap=r.get("gap", 0.0), exact=exact,
                     seconds=r["seconds"],
                     load=(r["load_before"] if r.get("load_before") else
                           "~1 (quiet)" if r["source"] in FLAGS.quiet_inputs else "not recorded"),
                     source=r["source"], date=r["date"], fastest=fastest,
                     ratio=r["seconds"] / fastest[0] if fastest else None))
  return rows


def markdown(rows) -> str:
  lines = ["| instance | method | value (team 1) | certified gap | ours (s) | load | fastest "
           "published (s) | ratio | source |",
           "|---|---|---|---|---:|---|---|---:|---|"]
  for r in rows:
    fastest = f"{r['fastest'][0]:g} ({r['fastest'][1]})" if r["fastest"] else "none"
    if not r["finished"]:
      lines.append(f"| {r['instance']} | | not finished: {r['reason']} | | | | {fastest} | | |")
      continue
    value = f"{r['value']:.6f}" + ("" if r["exact"] else " (bracket)")
    ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else ""
    lines.append(f"| {r['instance']} | {r['method']} | {value} | {r['gap']:.1e} | "
                 f"{r['seconds']:.2f} | {r['load']} | {fastest} | {ratio} | "
                 f"{r['source']} {r['date']} |")
  exact = sum(r["finished"] and r["exact"] for r in rows)
  bracket = sum(r["finished"] and not r["exact"] for r in rows)
  return "\n".join(lines) + (f"\n\n{exact} of {len(rows)} instances solved exactly; {bracket} "
                             f"only bracketed (certified, not converged); the source column "
                             f"gives the JSON file and its last write.\n")


def main(argv):
  del argv
  text = markdown(summary_rows(FLAGS.inputs))
  atomic_io.write_text(FLAGS.out_md, text)
  print(text)


if __name__ == "__main__":
  app.run(main)
