r"""All 29 instances of Table 1 (Zhang & Sandholm) in one table: our best finished result.

Reads the JSON records written by `benchmarks/team_lp_table.py` (by default
`results/team_lp_table_default.json`, the default path `--method auto` with `--second`; older
records of other methods can be added with `--inputs`) and, for each instance, keeps the
fastest *solved* result (an exact optimum, or a certified bracket that settles 4 decimals, the
record's `precision`; a bracket only when nothing solved it) whose game is today's instance
game (results for an older reading of a game are dropped). Prints and writes a Markdown table:
value (team 1's total), method, certified gap (0 for the LP), seconds and CPU seconds, the load
average around the run, the fastest of the three published runtimes (paper "Ours", FCGS-21,
ZAC-20) and our ratio to it, and the cross-check: every other result for the instance (the
record's second method, stored in the row's `second`, and the other records' rows), with the
largest disagreement (two results agree when their certified brackets meet within 1e-6).

Usage:
  python benchmarks/team_lp_summary.py --out_md results/team_lp_summary.md
  python benchmarks/team_lp_summary.py --inputs results/team_lp_table_default.json,\
results/team_lp_table_cg.json --instances 21K8,21K12 --out_md /tmp/subset.md
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
flags.DEFINE_list("inputs", ["results/team_lp_table_default.json"],
                  "team_lp_table.py JSON records")
flags.DEFINE_list("optional_inputs", [],
                  "further team_lp_table.py JSON records, read when they exist")
flags.DEFINE_list("instances", [], "only these instances (default: all 29)")
flags.DEFINE_string("out_md", "results/team_lp_summary.md", "Markdown output")
flags.DEFINE_list("quiet_inputs", [],
                  "inputs (base names) measured on the quiet machine (load ~1) before the load "
                  "was recorded per row")


def _canonical(game_string: str) -> str:
  return str(pyspiel.load_game(game_string))


def _solved(r) -> bool:
  """An exact optimum, or a certified bracket settling 4 decimals (older records: `exact`)."""
  return bool(r.get("exact", True)) or "settles" in str(r.get("precision", ""))


def summary_rows(inputs, names=None):
  current = {name: _canonical(g) for name, (g, _) in team_instances.TABLE1_INSTANCES.items()}
  finished, failures = {}, {}
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
        finished.setdefault(name, []).append(r)
        second = r.get("second") or {}
        if second.get("finished"):  # the record's check by a second method
          finished[name].append(dict(second, instance=name, game=r["game"], second_of=True,
                                     source=r["source"], date=r["date"]))
      else:
        stale = r.get("game") and _canonical(r["game"]) != current[name]
        failures.setdefault(name, []).append(
            f"{r.get('method', 'lp')}: {str(r.get('reason', ''))[:70]} "
            f"({os.path.basename(path)}"
            f"{'; older reading of the game, same sizes' if stale else ''})")
  rows = []
  for name in names or team_instances.TABLE1_INSTANCES:
    if name not in team_instances.TABLE1_INSTANCES:
      raise ValueError(f"--instances: unknown instance {name!r}")
    fastest = team_instances.fastest_published(name)
    done = finished.get(name, [])
    solved = [r for r in done if _solved(r) and not r.get("second_of")]
    pool = solved or [r for r in done if not r.get("second_of")]
    r = min(pool, key=lambda x: x["seconds"]) if pool else None
    if r is None:
      rows.append(dict(instance=name, finished=False, fastest=fastest,
                       reason="; ".join(failures.get(name, ["not run"]))))
      continue
    exact = _solved(r)
    rows.append(dict(instance=name, finished=True, method=r.get("method", "lp"),
                     value=r["value"], gap=r.get("gap", 0.0), exact=exact,
                     seconds=r["seconds"], cpu_seconds=r.get("cpu_seconds"),
                     load=(f"{r['load_before']}-{r.get('load_after', '')}".rstrip("-")
                           if r.get("load_before") else
                           "~1 (quiet)" if r["source"] in FLAGS.quiet_inputs else "not recorded"),
                     source=r["source"], date=r["date"], fastest=fastest,
                     ratio=r["seconds"] / fastest[0] if fastest and exact else None,
                     cross=_cross_check(r, done)))
  return rows


def _cross_check(r, done) -> dict:
  """The other methods' results for the instance and the largest disagreement with `r`.

  Two results agree when their certified brackets overlap within 1e-6: |v1 - v2| <= 1e-6 + gap1
  + gap2 (the LP's gap is 0), or, for a bracket, when the other's value lies inside it.
  """
  others = [o for o in done if o.get("method", "lp") != r.get("method", "lp")]
  if not others:
    return dict(text="", ok=None)
  parts, ok = [], True
  for o in sorted(others, key=lambda x: x.get("method", "lp")):
    lo1, hi1 = r.get("lower", r["value"]), r.get("upper", r["value"])
    lo2, hi2 = o.get("lower", o["value"]), o.get("upper", o["value"])
    dist = max(0.0, lo2 - hi1, lo1 - hi2)  # 0 when the brackets overlap
    good = dist <= 1e-6
    ok &= good
    gap2 = o.get("gap", hi2 - lo2)
    parts.append(f"{o.get('method', 'lp')} {o['value']:.6f} (gap {gap2:.0e}, "
                 f"|diff| {abs(o['value'] - r['value']):.1e}{'' if good else ' DISAGREES'})")
  return dict(text="; ".join(parts), ok=ok)


def markdown(rows) -> str:
  lines = ["| instance | method | value (team 1) | certified gap | ours (s) | CPU (s) | load | "
           "fastest published (s) | ratio | ratio (CPU) | second method (cross-check) | source |",
           "|---|---|---|---|---:|---:|---|---|---:|---:|---|---|"]
  for r in rows:
    fastest = f"{r['fastest'][0]:g} ({r['fastest'][1]})" if r["fastest"] else "none"
    if not r["finished"]:
      lines.append(f"| {r['instance']} | | not finished: {r['reason']} | | | | | {fastest} | | "
                   "| | |")
      continue
    value = f"{r['value']:.6f}" + ("" if r["exact"] else " (bracket)")
    ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else ""
    cpu = f"{r['cpu_seconds']:.1f}" if r.get("cpu_seconds") is not None else ""
    cpu_ratio = (f"{r['cpu_seconds'] / r['fastest'][0]:.2f}"  # none for a bracket
                 if r.get("cpu_seconds") is not None and r["ratio"] is not None else "")
    lines.append(f"| {r['instance']} | {r['method']} | {value} | {r['gap']:.1e} | "
                 f"{r['seconds']:.2f} | {cpu} | {r['load']} | {fastest} | {ratio} | {cpu_ratio} | "
                 f"{r['cross']['text']} | {r['source']} {r['date']} |")
  exact = sum(r["finished"] and r["exact"] and r["gap"] <= 1e-9 for r in rows)
  # r["exact"] here is `_solved`: exact, or a bracket settling 4 decimals
  anytime = sum(r["finished"] and r["exact"] and r["gap"] > 1e-9 for r in rows)
  bracket = sum(r["finished"] and not r["exact"] for r in rows)
  checked = sum(bool(r.get("cross", {}).get("text")) for r in rows)
  bad = sum(r.get("cross", {}).get("ok") is False for r in rows)
  return "\n".join(lines) + (
      f"\n\n{exact} of {len(rows)} instances solved exactly (gap <= 1e-9), {anytime} to a "
      f"certified bracket that settles 4 decimals, {bracket} only bracketed (certified, not "
      f"settled); {checked} solved by a second method, {bad} disagreeing. The source column "
      f"gives the JSON file and its last write.\n")


def main(argv):
  del argv
  inputs = list(FLAGS.inputs) + [p for p in FLAGS.optional_inputs
                                 if os.path.exists(p) and p not in FLAGS.inputs]
  text = markdown(summary_rows(inputs, FLAGS.instances))
  atomic_io.write_text(FLAGS.out_md, text)
  print(text)


if __name__ == "__main__":
  app.run(main)
