"""Team-correlated equilibria (Zhang & Sandholm): tables and values rendered from `results/`.

Records read (all through `common.load`):

- `published/zhang_sandholm_table1.json`: every cell of the paper's Table 1, as printed;
- `team_lp_table/quiet_default.json`: the 29 instances on the default path, one after the
  other on a quiet machine, with each row's second-method check;
- `team_lp_table/default.json`: the earlier run the second-method checks come from;
- `team_lp_table/21L523_long.json`: 21L523 given 1,800 s;
- `team_lp_table/21L523_routes.json`: 21L523 by two other routes (an exact lower end in
  minutes; column generation);
- `team_lp_table/21L523.md`: the independent re-derivation of 21L523's lower end (its table
  is parsed);
- `team_lp_table/second_method.json`: the belief DAG's brackets re-derived by exact team best
  responses on the largest instances;
- `team/plan_views.json`: 3-player Kuhn poker's TMECor plan scored through per-player views,
  beside the comparison runner's per-player solvers;
- `team_lp_table/fixed_costs.json`: the stages of the LP route on the small rows;
- `team_lp_table/scaling.json` (optional until recorded): the families past Table 1
  (`benchmarks/team_scaling.py`).
"""
from __future__ import annotations

import math
import os
import re

from render import common

PUBLISHED = "published/zhang_sandholm_table1.json"
TABLE = "team_lp_table/quiet_default.json"
EARLIER = "team_lp_table/default.json"
LONG = "team_lp_table/21L523_long.json"
CHECK = "team_lp_table/21L523.md"
SECOND = "team_lp_table/second_method.json"
FULL_LP = "team_lp_table/21L523_lp.json"
ROUTES = "team_lp_table/21L523_routes.json"
VIEWS = "team/plan_views.json"
SCALING = "team_lp_table/scaling.json"

PAGE = "team.md#zhang-sandholm-table-1"
SAME = "same at 4 decimals"
EXPLAINED_VERDICT = "differs, explained"
OPEN_VERDICT = "differs, open"
NO_VALUE = "none printed"
UNSETTLED = "unsettled"
# Rows whose difference from the printed value is explained (the footnote says how).
EXPLAINED = {
    "21D4": ("our certified bracket prints the same 4 decimals under both readings of the one "
             "rule the paper leaves open (the wild face; "
             "[team games](../games/team.md#reproduction-notes)), and both ends are re-derived "
             "by exact team best responses; the printed value lies outside it. The paper's "
             "run took just under 10 minutes (a time limit would explain a value short of the "
             "optimum: a guess, not checked)"),
}
OPEN = {
    "21L523": ("the value of the game as written is at least the lower end, re-derived bit for "
               "bit by an independent implementation and best response "
               "(`results/team_lp_table/21L523.md`); the sizes of Table 1 fix the tree, not the "
               "payoffs"),
}
HALF = 5e-5  # half a unit of the fourth decimal


# ----------------------------------------------------------------------------------------
# Records.
def published() -> dict[str, dict]:
  """Table 1 as printed, by instance name."""
  return {r["instance"]: r for r in common.load(PUBLISHED)["rows"]}


def rows() -> dict[str, dict]:
  """Our default-path rows, by instance name (Table 1's order)."""
  return {r["instance"]: r for r in common.load(TABLE)["rows"]}


def _round4(x: float) -> float:
  return round(x + 0.0, 4) + 0.0


def _settled(row: dict) -> float | None:
  """The 4-decimal value both ends of our bracket round to (None: they differ)."""
  lo, hi = _round4(row["lower"]), _round4(row["upper"])
  return lo if abs(lo - hi) < 1e-9 else None


def verdict(name: str) -> str:
  """'same at 4 decimals', 'differs, explained', 'differs, open', 'none printed'."""
  pub = published()[name]
  if pub["value"] is None:
    return NO_VALUE
  printed = float(pub["value"])
  ours = _settled(rows()[name])
  if ours is not None and abs(ours - printed) < 1e-9:
    return SAME
  if name in EXPLAINED:
    return EXPLAINED_VERDICT
  if ours is None and any(abs(_round4(rows()[name][k]) - printed) < 1e-9
                          for k in ("lower", "upper")):
    return UNSETTLED
  return OPEN_VERDICT


def verdicts() -> dict[str, list[str]]:
  """Instance names by verdict."""
  out: dict[str, list[str]] = {}
  for name in rows():
    out.setdefault(verdict(name), []).append(name)
  return out


def fastest_published(name: str) -> tuple[float, str] | None:
  """(seconds, column) of the fastest of Table 1's three runtime columns, or None."""
  pub = published()[name]
  times = [(pub[k], label) for k, label in (("seconds_ours", "paper"),
                                            ("seconds_fcgs21", "FCGS-21"),
                                            ("seconds_zac20", "ZAC-20"))
           if pub[k] is not None]
  return min(times) if times else None


def ratio(name: str) -> float | None:
  """Our seconds over the fastest published time."""
  fastest = fastest_published(name)
  return None if fastest is None else rows()[name]["seconds"] / fastest[0]


# ----------------------------------------------------------------------------------------
# Cells.
def _printed(text: str | None) -> str:
  return "—" if text is None else text


def _answer(row: dict) -> str:
  if row["exact"]:
    return "exact"
  return f"[{common.num(row['lower'], 7)}, {common.num(row['upper'], 7)}]"


def _rule(row: dict) -> str:
  """auto's rule as a legend key (a, b, c, d)."""
  auto = row.get("auto", "")
  if auto.startswith("LP nonzeros") and "<=" in auto.split(":")[0]:
    return "a"
  if auto.startswith("LP nonzeros"):
    return "b"
  if "team sequences" in auto:
    return "c"
  return "d"


def _nonzeros(row: dict) -> str:
  if row.get("lp_nonzeros") is not None:
    return common.thousands(row["lp_nonzeros"])
  m = re.match(r"LP nonzeros >= (\d+)", row.get("auto", ""))
  if m:
    return "≥ " + common.thousands(m.group(1))
  return "not built"


def _second(row: dict) -> str:
  second = row.get("second") or {}
  if second.get("method") is None:
    return "—"
  if not second.get("finished") or second.get("value") is None:
    return f"{second['method']}: failed²"
  check = second.get("check", "")
  word = "agrees" if check.startswith("agrees") else "**DISAGREES**"
  return f"{second['method']}: {word}"


def _load(row: dict) -> str:
  return f"{row['load_before']}-{row['load_after']}"


def _seconds(x: float | None) -> str:
  if x is None:
    return "—"
  return common.num(x, 2) if x < 100 else common.thousands(round(x))


# ----------------------------------------------------------------------------------------
# Tables.
def values_table() -> str:
  """Table 1's values: the paper's, ours, exact or bracket, method, second method, verdict."""
  pub = published()
  out = []
  for name, row in rows().items():
    p = pub[name]
    out.append([name, _printed(p["value"]), common.num(row["value"], 6), _answer(row),
                f"`{row['method']}`", _rule(row), _second(row), verdict(name)])
  return common.md_table(["instance", "paper", "ours", "exact / bracket", "method", "rule¹",
                          "second method", "verdict³"], out, "lrrllcll")


def speed_table() -> str:
  """Table 1's sizes and times: the paper's LP size and three runtimes beside ours."""
  pub = published()
  out = []
  for name, row in rows().items():
    p = pub[name]
    fastest = fastest_published(name)
    out.append([name, common.thousands(p["lp_size"]) if p["lp_size"] else "—",
                _nonzeros(row), p["time_ours"], p["time_fcgs21"], p["time_zac20"],
                _seconds(row["seconds"]),
                "—" if fastest is None else common.num(ratio(name), 2), _load(row),
                slow_cause(name)])
  return common.md_table(["instance", "LP size (paper)", "LP nonzeros (ours)", "paper",
                          "FCGS-21", "ZAC-20", "ours (s)", "ratio", "load",
                          "where the time goes (ratio > 1)"], out, "lrrrrrrrll")


def _dag_own_seconds(row: dict) -> float:
  """The belief DAG's seconds of a `dag_lp` row without the restricted LPs tried inside its run
  (the DAG's clock, `dag_seconds`, runs on while they do)."""
  tries = row.get("one_sided_tries") or row.get("restricted_tries") or []
  return row["dag_seconds"] - sum(t["seconds"] for t in tries)


def slow_cause(name: str) -> str:
  """The measured cause of a row slower than the fastest published time ('' when it is not).

  From the stage times of the LP route (`FIXED_COSTS`, measured below the table) and the row's
  own split (column generation's oracle seconds; the belief DAG and the one-sided LPs).
  """
  if (ratio(name) or 0.0) <= 1:
    return ""
  row = rows()[name]
  fixed = {r["instance"]: r for r in common.load(FIXED_COSTS)["rows"]}
  if name in fixed:
    f = fixed[name]
    python = f["tree_and_checks"] + f["decompositions"] + f["lp_size"] + f["lp_build"]
    unit, scale = ("ms", 1e3) if f["solve"] < 1 else ("s", 1.0)
    under = ("; their sum is under the published time, the single timed run was not"
             if f["solve"] <= f["fastest_published"] else "")
    return (f"HiGHS {common.num(f['highs'] * scale, 1)} {unit}, Python stages "
            f"{common.num(python * scale, 1)} {unit} (minimum of 20){under}")
  if row["method"] == "cg" and row.get("oracle_seconds") is not None:
    return (f"column generation's team best-response MIP {common.num(row['oracle_seconds'], 1)} "
            f"s of {common.num(row['seconds'], 1)} ({row['iterations']} iterations)")
  if row["method"] == "dag_lp" and row.get("one_sided_tries"):
    return (f"belief DAG {common.num(_dag_own_seconds(row), 0)} s, one-sided LPs "
            f"{common.num(row['restricted_seconds'], 0)} s")
  return "not measured"


def _commit(rec: dict) -> str | None:
  """A record's commit, saying so when it was taken from git history afterwards."""
  if not rec.get("commit"):
    return None
  return rec["commit"] + (" (the commit of the record's last change)"
                          if rec.get("commit_source") else "")


def _provenance() -> str:
  """One provenance block per run that produced rows of the Table 1 record (`run` of a row)."""
  rec = common.load(TABLE)
  runs: dict[tuple, list[dict]] = {}
  for r in rec["rows"]:
    key = (r["run"]["command"], r["run"]["date"][:10], r["run"]["commit"])
    runs.setdefault(key, []).append(r)
  blocks, shown = [], set()
  for (command, date, commit), rs in sorted(runs.items(), key=lambda kv: kv[0][1]):
    loads = [float(x) for r in rs for x in (r["load_before"], r["load_after"])]
    notes = sorted({r["run"]["note"] for r in rs if r["run"].get("note")} - shown)
    shown.update(notes)  # a note shared by several runs is shown once
    names_ = ", ".join(r["instance"] for r in rs)
    head = (f"**{len(rs)} row{'s' if len(rs) > 1 else ''}** ({names_})"
            if len(runs) > 1 else "")
    blocks.append(head + ("\n\n" if head else "") + common.provenance(
        command, record=TABLE, commit=commit, date=date, machine=rec["machine"],
        load=f"{min(loads):.2f}-{max(loads):.2f} (per row: *load*)")
        + ("".join(f" {n}" for n in notes)))
  return "\n\n".join(blocks)


def table1() -> str:
  """Both Table 1 tables with their legends and provenance."""
  pub = common.load(PUBLISHED)
  rule_counts = {}
  for row in rows().values():
    rule_counts[_rule(row)] = rule_counts.get(_rule(row), 0) + 1
  earlier = common.load(EARLIER)
  notes = []
  for name in (list(EXPLAINED) + list(OPEN)):
    if name in rows():
      text = EXPLAINED.get(name) or OPEN.get(name)
      notes.append(f"**{name}** ({verdict(name)}): {text}.")
  failed = [n for n, r in rows().items()
            if (r.get("second") or {}).get("method") and not (r["second"].get("finished")
                                                              and r["second"].get("value")
                                                              is not None)]
  failed_text = "; ".join(
      f"{n}: {rows()[n]['second'].get('check', '').split(':')[-1].strip()[:60]}"
      for n in failed)
  parts = [
      values_table(),
      "",
      "¹ *rule*: why `auto` chose the method. "
      f"a ({rule_counts.get('a', 0)} rows): the LP has at most 150,000 nonzeros: `lp`. "
      f"b ({rule_counts.get('b', 0)}): a larger LP: the belief DAG to gap 1e-3, then the LP "
      "restricted to its support (`dag_lp` when that is exact, else the DAG's own bracket). "
      f"c ({rule_counts.get('c', 0)}): the LP is not built (more than 500,000 local "
      "solutions) and the team has at most 5,000 sequences: column generation `cg`. "
      f"d ({rule_counts.get('d', 0)}): the LP is not built: the belief DAG `dag`, finished "
      "by the two one-sided restricted LPs (`dag_lp`) when its bracket is still unsettled at "
      "certified gap 1e-4 after 3,000 iterations and both teams have at most 2 M local "
      "solutions. "
      "The full reason of each row is its `auto` field in the record.",
      "",
      "² *second method*: the same instance solved by a different method in the earlier run "
      f"`results/{EARLIER}` (its date {earlier['date']}): the belief DAG for an LP answer, "
      "the LP for a DAG or column-generation answer where the LP is built; it agrees when it "
      "prints the same 4 decimals as this row's bracket. — : no second method finishes (the "
      "LP is not built and column generation's MIP oracle stalls). "
      + (f"Failed: {failed_text}." if failed else ""),
      "",
      f"³ *verdict*: *{SAME}* when both ends of our exact value or bracket round to the "
      "printed value; *" + NO_VALUE + "*: the paper prints no value (its method ran out of "
      "memory). " + " ".join(notes),
      "",
      _provenance(),
      "",
      f"Published: {pub['source']} ([arXiv]({pub['url']})), every cell transcribed in "
      f"`results/{PUBLISHED}`.",
  ]
  return "\n".join(parts)


def speed_section() -> str:
  """The sizes-and-times table with its legend (same run as `table1`)."""
  rec = common.load(TABLE)
  return "\n".join([
      speed_table(),
      "",
      "*LP size (paper)*: Table 1's LP Size; *LP nonzeros (ours)*: the nonzeros of our LP "
      "where it is built (≥: the size at which `auto` stopped building it; *not built*: more "
      "than 500,000 local solutions). *paper*, *FCGS-21*, *ZAC-20*: Table 1's three runtime "
      "columns as printed (the paper's method; Farina, Celli, Gatti & Sandholm, ICML 2021; "
      "Zhang, An & Černý, ICML 2020; — : not reported, oom: out of memory). *ours (s)*: the "
      "`seconds` that `ospiel-team-solve --instance NAME --json` printed in the row's own run "
      "(`benchmarks/team_lp_table.py` runs that command per instance; each row's command, "
      "date and commit are in its record): the tree walk, the decompositions, building the LP "
      "and solving it (or the anytime method's whole run) are included; process start-up and "
      "imports are not, and each instance ran cold in its own subprocess, one after the other. "
      "Rows run before the decompositions' local solutions became a numba kernel do not "
      "include numba's loading of its compiled kernels from its cache, which the first solve "
      "of a process pays today: the same command on today's code prints more seconds on the "
      "small instances, where that load is most of the time. The stage-by-stage costs below "
      "(`benchmarks/team_fixed_costs.py`) time each stage after that load. "
      "*ratio*: ours over the fastest of the three published columns. *load*: the load "
      "average before and after the row.",
      "",
      f"*Same runs as the values table: `results/{TABLE}`, {rec['machine']}.*",
  ])


# ----------------------------------------------------------------------------------------
# Counts and inline values.
def count(what: str) -> int:
  """Counts over the 29 rows.

  Args:
    what: "rows", "exact", "settled" (a bracket that settles 4 decimals), "unsettled",
      "second" (confirmed by a second method), "no_second", "disagree", "fast" (ratio <= 1),
      "slow", "printed" (rows with a published value), "same" (same at 4 decimals).

  Returns:
    The number of rows.
  """
  rs = list(rows().values())
  second = [r.get("second") or {} for r in rs]
  table = {
      "rows": len(rs),
      "exact": sum(r["exact"] for r in rs),
      "settled": sum((not r["exact"]) and _settled(r) is not None for r in rs),
      "unsettled": sum(_settled(r) is None for r in rs),
      "second": sum(s.get("check", "").startswith("agrees") for s in second),
      "no_second": sum(s.get("method") is None for s in second),
      "disagree": sum("DISAGREE" in s.get("check", "").upper() for s in second),
      "fast": sum((ratio(n) or math.inf) <= 1 for n in rows()),
      "slow": sum((ratio(n) or math.inf) > 1 for n in rows()),
      "printed": sum(published()[n]["value"] is not None for n in rows()),
      "same": sum(verdict(n) == SAME for n in rows()),
  }
  return table[what]


def names(what: str) -> str:
  """Comma-separated instance names: "slow", "no_second", "same", "open", "explained",
  "unsettled"."""
  if what == "slow":
    found = [n for n in rows() if (ratio(n) or math.inf) > 1]
  elif what == "no_second":
    found = [n for n, r in rows().items() if (r.get("second") or {}).get("method") is None]
  elif what == "same":
    found = verdicts().get(SAME, [])
  elif what == "open":
    found = verdicts().get(OPEN_VERDICT, []) + verdicts().get(UNSETTLED, [])
  elif what == "explained":
    found = verdicts().get(EXPLAINED_VERDICT, [])
  elif what == "unsettled":
    found = [n for n, r in rows().items() if _settled(r) is None]
  else:
    raise ValueError(f"unknown list {what!r}")
  return ", ".join(found) if found else "none"


def paper(name: str) -> str:
  """The value Table 1 prints for `name` (e.g. '-.0417')."""
  return _printed(published()[name]["value"])


def value(name: str, digits: int = 7) -> str:
  """Our value of `name` on the default path."""
  return common.num(rows()[name]["value"], digits)


def slower(name: str) -> str:
  """'2.4x of 207 s (paper)': our ratio to the fastest published time."""
  fastest = fastest_published(name)
  return f"{common.num(ratio(name), 1)}x of {_seconds(fastest[0])} s ({fastest[1]})"


def boundary(name: str) -> str:
  """How far `name`'s exact value lies from the nearest 4-decimal rounding boundary."""
  v = rows()[name]["value"]
  nearest = (math.floor(v * 1e4) + 0.5) / 1e4
  return common.num(abs(v - nearest), 2, sig=True)


def boundaries(*instances: str) -> str:
  """'22K5 = -0.0368421 (8e-06 from one), ...' for exact rows."""
  return ", ".join(f"{n} = {value(n)} ({boundary(n)} from one)" for n in instances)


def dag_bracket(name: str) -> str:
  """The belief DAG's bracket at gap 1e-3 before the restricted LP, as `auto` reported it."""
  m = re.search(r"DAG bracket (\[[^\]]+\]) after (\d+) iterations", rows()[name]["auto"])
  if not m:
    raise KeyError(f"{name}: no DAG bracket in its auto field")
  return f"{m.group(1)} after {m.group(2)} iterations"


def support(name: str) -> str:
  """'325 of 48,340 and 34 of 48': the restricted LP's local solutions (team 1, team 2)."""
  m = re.search(r"\[(\d+), (\d+)\] of \[(\d+), (\d+)\]", rows()[name]["precision"])
  a, b, c, d = (int(x) for x in m.groups())
  return (f"{common.thousands(a)} of {common.thousands(c)} columns and {common.thousands(b)} "
          f"of {common.thousands(d)} rows")


def _check_bracket() -> tuple[float, float, str]:
  text = common.load(CHECK)
  m = re.search(r"\| belief DAG \(([^)]*)\) \| \[([-\d.]+), ([-\d.]+)\]", text)
  return float(m.group(2)), float(m.group(3)), m.group(1)


def l523(run: str, what: str = "bracket") -> str:
  """21L523's bracket (or one end) from one run, naming the run.

  Args:
    run: "lp" (the full LP, certified), "default" (the 29-row table's run), "long"
      (1,800 s), "check" (the run whose lower end was re-derived by an independent best
      response), "earlier" (the second-method
      table's run), "second" (re-derived by exact team best responses).
    what: "bracket" ('[a, b] (run)'), "lower", "upper", or "label".

  Returns:
    Markdown text.
  """
  if run == "default":
    r = rows()["21L523"]
    lo, hi = r["lower"], r["upper"]
    its = r.get("dag_iterations", r.get("iterations"))
    label = (f"default path ({r['method']}), {common.thousands(round(r['seconds']))} s, "
             f"{common.thousands(its)} DAG iterations, `results/{TABLE}`")
  elif run == "long":
    rec = common.load(LONG)
    r = rec["result"]
    lo, hi = r["lower"], r["upper"]
    label = (f"the belief DAG alone (the default path before the one-sided finish) given "
             f"{common.thousands(round(r['seconds']))} s, "
             f"{common.thousands(r['iterations'])} iterations, `results/{LONG}`")
  elif run == "check":
    lo, hi, how = _check_bracket()
    label = f"the independent check's run: {how}, `results/{CHECK}`"
  elif run == "earlier":
    r = {x["instance"]: x for x in common.load(EARLIER)["rows"]}["21L523"]
    lo, hi = r["lower"], r["upper"]
    label = (f"the earlier run, {common.thousands(round(r['seconds']))} s, "
             f"`results/{EARLIER}`")
  elif run == "lp":
    r = common.load(FULL_LP)
    lo, hi = r["lower"], r["upper"]
    label = (f"the full tree-decomposition LP ({common.thousands(r['lp_nonzeros'])} nonzeros, "
             f"HiGHS {r['solver']}, {common.thousands(round(r['lp_solve_seconds']))} s), its "
             f"two plans certified by exact team best responses, `results/{FULL_LP}`")
  elif run == "second":
    r = {x["instance"]: x for x in common.load(SECOND)}["21L523"]
    lo, hi = r["second_lower"], r["second_upper"]
    label = (f"{r['dag_iterations']} DAG iterations re-derived by exact team best responses, "
             f"`results/{SECOND}`")
  else:
    raise ValueError(f"unknown run {run!r}")
  if what == "lower":
    return common.num(lo, 7)
  if what == "upper":
    return common.num(hi, 7)
  if what == "label":
    return label
  return f"[{common.num(lo, 7)}, {common.num(hi, 7)}] ({label})"


def l523_margin() -> str:
  """How far the independently checked lower end lies above the largest value printing .9520,
  and how many certified gaps that is."""
  lo, hi, _ = _check_bracket()
  printed = float(paper("21L523"))
  margin = lo - (printed + HALF)
  return f"{common.num(margin, 2, sig=True)}, about {round(margin / (hi - lo))} times that gap"


def second_method(name: str, what: str = "bracket") -> str:
  """A row of the exact-best-response re-derivation: bracket, lower, upper or methods."""
  r = {x["instance"]: x for x in common.load(SECOND)}[name]
  if what == "lower":
    return common.num(r["second_lower"], 7)
  if what == "upper":
    return common.num(r["second_upper"], 7)
  if what == "methods":
    return f"{r['second_lower_method']} / {r['second_upper_method']}"
  return f"[{common.num(r['second_lower'], 7)}, {common.num(r['second_upper'], 7)}]"


def second_method_table() -> str:
  """The belief DAG's brackets re-derived by exact team best responses (one row each)."""
  out = []
  for r in common.load(SECOND):
    out.append([r["instance"], f"[{common.num(r['dag_lower'], 7)}, "
                f"{common.num(r['dag_upper'], 7)}]",
                f"[{common.num(r['second_lower'], 7)}, {common.num(r['second_upper'], 7)}]",
                "yes" if r["agree"] else "**no**", common.num(r["dag_seconds"], 0),
                r["finished_utc"], "-".join(r["loadavg"][:1] + r["loadavg"][2:])])
  return "\n".join([
      common.md_table(["instance", "DAG bracket", "re-derived", "agree", "DAG (s)",
                       "finished (UTC)", "load"], out, "lllcrll"),
      "",
      "*re-derived*: lower end by team 2's exact best response (backward induction for a "
      "one-player team, else a flow MIP), upper end by team 1's (flow MIP, hybrid form; a MIP "
      "stopped at its time limit gives its proven bound, looser). *load*: 1- and 15-minute "
      "load averages at the end.",
      "",
      common.provenance("python benchmarks/team_second_method.py --instances "
                        "21L523,31L133,22D3,21D4 --out results/team_lp_table/second_method.json",
                        record=SECOND,
                        commit="not in the record; each row is dated by its finish time",
                        machine="2 shared CPUs (x86_64)"),
  ])


# ----------------------------------------------------------------------------------------
# 3-player Kuhn poker: the plan through per-player views.
_RUNNER_LABELS = {"cfr_plus": "CFR+ average", "cfr": "CFR average", "xfp": "XFP average"}


def plan_views_table() -> str:
  """Team {0, 1}'s policies on 3-player Kuhn poker, each against player 2's best response."""
  rec = common.load(VIEWS)
  runner = rec["runner"]
  ref = runner["reference"]["value"]
  out = [["TMECor (team LP, correlated plan)", f"**{common.num(ref, 6)}**"]]
  its = {}
  for row in runner["rows"]:
    if row["solver"] in _RUNNER_LABELS and row["variant"] == "average":
      its[row["solver"]] = row
  for solver in ("cfr_plus", "cfr", "xfp"):
    if solver in its:
      out.append([f"{_RUNNER_LABELS[solver]}, {common.thousands(its[solver]['iteration'])} "
                  "iterations", common.num(its[solver]["metric"], 6)])
  for p in rec["plans"]:
    s = p["solver"]
    out.append([f"{s} plan: members' marginals", common.num(p["marginals"], 6)])
    out.append([f"{s} plan: pure strategy drawn (seed {rec['seed']})",
                common.num(p["sampled"], 6)])
    out.append([f"{s} plan: its {p['support_size']} pure strategies",
                f"[{common.num(p['support_min'], 6)}, {common.num(p['support_max'], 6)}]"])
  prov = runner["provenance"]
  cmd = " ".join(f'"{a}"' if set(a) & set(" |()") else a for a in prov["command"])
  cmd = re.sub(r"^\S*ospiel-team-compare", "ospiel-team-compare", cmd)
  load = prov["machine"]["load_average"]
  return "\n".join([
      common.md_table(["team {0, 1}'s policy", "value vs player 2's best response"], out,
                      "lr"),
      "",
      "*simplex* / *ipm*: the plan HiGHS's simplex (what `solve()` uses on an LP this small) "
      "or its interior point method returns; both are optimal plans of the same LP. "
      "*marginals*: each member's behaviour strategy induced by the plan (the runner's "
      "`team_lp` \"average\"); *drawn*: the runner's \"sampled\"; *its pure strategies*: "
      "the lowest and highest value among the joint pure strategies the plan mixes.",
      "",
      common.provenance(cmd + "\n" + rec["command"], record=VIEWS,
                        commit=f"{common.commit_label(prov)} (runner), {rec['commit']} (plans)",
                        date=rec["date"], machine=rec["machine"],
                        load=f"{load[0]} (runner), {rec['load_average'][0]} (plans)"),
  ])


def plan_view(solver: str, what: str) -> str:
  """One number of `team/plan_views.json`: 'marginals', 'sampled', 'min', 'max', 'mean',
  'size' of the plan HiGHS's `solver` returned; 'cfr_plus' etc. for a runner row."""
  rec = common.load(VIEWS)
  if solver == "runner":
    for row in rec["runner"]["rows"]:
      if row["solver"] == what and row["variant"] == "average":
        return common.num(row["metric"], 6)
    raise KeyError(what)
  p = {x["solver"]: x for x in rec["plans"]}[solver]
  key = {"min": "support_min", "max": "support_max", "mean": "support_mean",
         "size": "support_size"}.get(what, what)
  return str(p[key]) if key == "support_size" else common.num(p[key], 6)


# ----------------------------------------------------------------------------------------
def summary_rows() -> list[dict]:
  """One row: Zhang & Sandholm's Table 1 (values at 4 decimals)."""
  v = verdicts()
  differs = [n for n in rows() if verdict(n) not in (SAME, NO_VALUE)]
  status = "reproduced"
  if any(verdict(n) in (OPEN_VERDICT, UNSETTLED) for n in differs):
    status = "differs (open)"
  elif differs:
    status = "differs (explained)"
  why = (f"{count('same')} of {count('printed')} printed values at 4 decimals; differs: "
         + ", ".join(f"{n} ({verdict(n).split(', ')[-1]})" for n in differs))
  if v.get(NO_VALUE):
    why += f"; no printed value: {', '.join(v[NO_VALUE])}"
  return [{"paper": "Zhang & Sandholm, AAAI 2022", "figure": "Table 1 (values)",
           "status": status, "why": why, "page": PAGE}]


# ----------------------------------------------------------------------------------------
# Liar's Dice readings (games page).
DICE = "team/dice_readings.json"


def dice_table() -> str:
  """21D3's value under each bid order and wild-face rule (loser -1, winner +1)."""
  rec = common.load(DICE)
  printed = float(paper("21D3"))
  out = []
  for r in rec["rows"]:
    order = ("face first (`reset-quantity`)" if r["bidding_rule"] == "reset-quantity"
             else "quantity first (`reset-face`, OpenSpiel's)")
    val = (common.num(r["value"], 6) if r["exact"]
           else f"[{common.num(r['lower'], 6)}, {common.num(r['upper'], 6)}]")
    same = _round4(r["lower"]) == _round4(r["upper"]) == printed
    out.append([order, "yes" if r["wild"] else "no", val, "yes" if same else "no"])
  return "\n".join([
      common.md_table(["bid order", "wild top face", "21D3 value", f"prints {paper('21D3')}"],
                      out, "lcrc"),
      "",
      common.provenance(rec["command"], record=DICE, commit=rec["commit"], date=rec["date"],
                        machine=rec["machine"],
                        load=f"{rec['load_average'][0]}-{rec['load_average'][1]}"),
  ])


def l523_exploratory() -> str:
  """The exploratory variant of `team_21L523.md` (ranks dealt uniformly): its bracket."""
  m = re.search(r"ranks dealt uniformly[^|]*\| (\[[^\]]+\])", common.load(CHECK))
  return m.group(1)


def paper_seconds(name: str) -> str:
  """The paper's own runtime for `name`, in seconds ('—' when none is printed)."""
  return _seconds(published()[name]["seconds_ours"])


# ----------------------------------------------------------------------------------------
# Past Table 1 (`benchmarks/team_scaling.py`).
SCALING_FAMILIES = {
    "kuhn_ranks": "Kuhn, ranks", "leduc_ranks": "Leduc, ranks", "leduc_bets": "Leduc, bets",
    "dice_faces": "Liar's Dice, faces", "goofspiel_ranks": "Goofspiel, cards",
    "split_3v2": "3 vs 2 players", "smoke": "smoke test",
}
_STOPS = {"time": "time limit", "memory": "memory cap", "size": "tree too large (refused)",
          "error": "error"}


def _scaling_answer(row: dict) -> str:
  if not row["finished"]:
    return "—"
  if row["exact"]:
    return f"{common.num(row['value'], 7)} (exact)"
  return f"[{common.num(row['lower'], 7)}, {common.num(row['upper'], 7)}]"


def scaling_table() -> str:
  """The families past Table 1: per instance the method `auto` chose, the exact value or
  certified bracket, seconds, peak memory, histories, and where and why a family stopped
  (a sentence instead while `results/team_lp_table/scaling.json` is not recorded)."""
  if not os.path.isfile(os.path.join(common.RESULTS, SCALING)):
    return ("*Not recorded yet: `python benchmarks/team_scaling.py --out "
            "results/team_lp_table/scaling.json` writes the record this table is rendered from.*")
  rec = common.load(SCALING)
  out = []
  for row in rec["rows"]:
    hist = common.thousands(row["histories"]) if "histories" in row else "—"
    stop = _STOPS.get(row.get("stop"), str(row.get("stop"))) if "stop" in row else ""
    if row["finished"] and stop:  # an answer, but a bracket that did not settle in time
      stop = "time limit (bracket not settled)"
    out.append([SCALING_FAMILIES.get(row["family"], row["family"]), row["name"],
                f"`{row['game']}`, " + row["teams"].replace("|", " vs "), hist,
                f"`{row['method']}`" if row["finished"] else "—", _scaling_answer(row),
                _seconds(row["seconds"]), common.num(row["peak_rss_gb"], 2),
                common.num(row["load_before"], 1), stop])
  table = common.md_table(["family", "instance", "game, teams", "histories", "method",
                           "value", "seconds", "peak GB", "load", "stopped by"], out,
                          "lllrllrrrl")
  loads = [float(r["load_before"]) for r in rec["rows"]]
  prov = common.provenance(rec["command"], record=SCALING, commit=_commit(rec),
                           date=rec["date"],
                           machine=rec["machine"],
                           load=f"{min(loads):.2f}-{max(loads):.2f} before each instance")
  limits = (f"Each instance: {common.num(rec['time_limit'], 0)} s, "
            f"{common.num(rec['memory_gb'], 0)} GB address space. *seconds*: the instance's "
            "subprocess from its start to its end, wall clock: Python's start-up and imports, "
            "the tree walk and the solve (the record keeps the walk's `tree_seconds` and the "
            "solve's `solve_seconds` apart). *load* is the machine's load "
            "average when the instance started (2 cores): rows above 1 ran beside other work, so "
            "an idle machine takes less time on them, and one stopped by the time limit may "
            "finish there. A bracket with nothing under *stopped by* settles 4 decimals.")
  done = {row["family"] for row in rec["rows"]}
  missing = [label for fam, label in SCALING_FAMILIES.items()
             if fam not in done and fam != "smoke"]
  if missing:
    limits += (f" Not run yet: {', '.join(missing)} (the command resumes after the last "
               "recorded instance).")
  return f"{table}\n\n{limits}\n\n{prov}"


# ----------------------------------------------------------------------------------------
# What bounds the slow rows: HiGHS options on the exact LP, column generation's oracle.
HIGHS_OPTIONS = "team_lp_table/highs_options.json"
CG_ORACLE = "team_lp_table/cg_oracle.json"


def highs_options_table() -> str:
  """CPU seconds of the exact LP of each instance under HiGHS options (and the DAG-support
  route), each answer checked by exact team best responses (`exact`: bracket <= 1e-9)."""
  rec = common.load(HIGHS_OPTIONS)
  names: list[str] = []
  for row in rec["rows"]:
    for v in row["variants"]:
      if v["name"] not in names:
        names.append(v["name"])
  out = []
  for name in names:
    cells = [name]
    for row in rec["rows"]:
      v = next((v for v in row["variants"] if v["name"] == name), None)
      if v is None or v.get("cpu_seconds") is None:
        cells.append("—")
      else:
        mark = "" if v.get("exact") else " (inexact)"
        cells.append(f"{common.num(v['cpu_seconds'], 2)}{mark}")
    out.append(cells)
  header = ["HiGHS variant"] + [f"{r['instance']} CPU s" for r in rec["rows"]]
  table = common.md_table(header, out, "l" + "r" * len(rec["rows"]))
  prov = common.provenance(rec["command"], record=HIGHS_OPTIONS, commit=_commit(rec),
                           date=rec["date"],
                           machine=rec["machine"], load=f"{rec['load_before']:.1f} before")
  return (f"{table}\n\n*{rec['timing']}; a loaded machine, one run each: differences of "
          f"a few tenths of a second are noise.*\n\n{prov}")


FIXED_COSTS = "team_lp_table/fixed_costs.json"
_FIXED_STAGES = (("tree_and_checks", "tree walk, checks"), ("decompositions", "decompositions"),
                 ("lp_size", "LP size"), ("lp_build", "LP build"), ("highs", "HiGHS"),
                 ("solve", "whole `solve`"))


def fixed_costs_table() -> str:
  """The stages of the LP route on the small exact-LP rows, in milliseconds (minimum over
  repeats), beside the fastest published time, and what each row's excess comes from."""
  rec = common.load(FIXED_COSTS)
  out = []
  for row in rec["rows"]:
    cells = [row["instance"]] + [common.num(1000 * row[k], 1) for k, _ in _FIXED_STAGES]
    cells.append(f"{common.num(1000 * row['fastest_published'], 0)} "
                 f"({row['fastest_published_by']})")
    out.append(cells)
  table = common.md_table(["instance"] + [f"{label} (ms)" for _, label in _FIXED_STAGES]
                          + ["fastest published (ms)"], out, "l" + "r" * 7)
  highs_over = [r["instance"] for r in rec["rows"] if r["highs"] > r["fastest_published"]]
  under = [r["instance"] for r in rec["rows"] if r["solve"] <= r["fastest_published"]]
  rest = [r["instance"] for r in rec["rows"]
          if r["instance"] not in highs_over and r["instance"] not in under]
  text = (f"HiGHS alone takes longer than the fastest published time on "
          f"{', '.join(highs_over) or 'no row'}; the whole solve is at or under it on "
          f"{', '.join(under) or 'no row'} by this measure (the minimum of repeated runs, where "
          f"the table above times one run); on {', '.join(rest) or 'no row'} HiGHS is under it "
          "and the Python stages (the tree walk and the decompositions) make up the rest.")
  prov = common.provenance(rec["command"], record=FIXED_COSTS, commit=_commit(rec),
                           date=rec["date"],
                           machine=rec["machine"],
                           load=f"{rec['load_before']:.1f} before, {rec['load_after']:.1f} after")
  return f"{table}\n\n{text} *{rec['timing']}.*\n\n{prov}"


def cg_oracle_table() -> str:
  """Column generation on the instances of `team_lp_table/cg_oracle.json` with each team
  best-response oracle: value, iterations, oracle calls and CPU seconds."""
  rec = common.load(CG_ORACLE)
  out = []
  for row in rec["rows"]:
    out.append([row["instance"], f"`{row['oracle']}`", common.num(row["value"], 6),
                str(row["iterations"]), str(row["team_oracle_calls"]),
                common.num(row["team_oracle_cpu_per_call"], 3),
                common.num(row["setup_cpu_seconds"], 2), common.num(row["cpu_seconds"], 2)])
  table = common.md_table(["instance", "oracle", "value", "iterations", "oracle calls",
                           "CPU s per call", "set-up CPU s", "solve CPU s"], out, "llrrrrrr")
  prov = common.provenance(rec["command"], record=CG_ORACLE, commit=_commit(rec),
                           date=rec["date"],
                           machine=rec["machine"], load=f"{rec['load']:.1f}")
  return f"{table}\n\n*{rec['timing']}.*\n\n{prov}"


def l523_routes() -> str:
  """The routes of `benchmarks/team_21L523_routes.py`: what each certifies and in how many CPU
  seconds, and the bracket the restricted LP's lower end makes with the full LP's upper end."""
  rec = common.load(ROUTES)
  r, cg, lp = rec["routes"]["restricted_team2_full"], rec["routes"]["cg_dag"], common.load(FULL_LP)
  r1 = rec["routes"]["restricted_team1_full"]
  lo, hi = r["lower"], lp["upper"]
  loads = [row["load_before"] for row in rec["routes"].values()]
  commands = sorted({row["command"] for row in rec["routes"].values()})
  prov = common.provenance("; ".join(commands), record=ROUTES, commit=_commit(rec),
                           date=rec["date"],
                           machine=rec["machine"],
                           load=f"{min(loads):.1f}-{max(loads):.1f} before each route")
  exact = "exact" if hi - lo <= 1e-9 else "not exact"
  above = ("the exact value" if r1["upper"] - hi <= 1e-9 else
           f"{common.num(r1['upper'] - hi, 2, sig=True)} above the exact value, so the DAG's "
           "support of team 2 misses part of every optimal team-2 plan")
  return (
      f"- the belief DAG to certified gap {r['dag_upper'] - r['dag_lower']:.1e}, then one LP "
      f"with team 1 restricted to the {common.thousands(r['support'])} of "
      f"{common.thousands(r['local_solutions'][0])} local solutions its flows use and team 2 "
      f"over all its {common.thousands(r['local_solutions'][1])}: lower end "
      f"**{common.num(lo, 10)}**, the LP's own value, certified by player 2's exact best "
      f"response ({common.num(r['cpu_seconds'], 0)} CPU s in all, "
      f"{common.num(r['decomposition_cpu_seconds'], 0)} of them the decompositions). Its "
      f"team-2 plan (the LP's duals) is no upper end: team 1's best response against it scores "
      f"{common.num(r['upper'], 4)}, since team 1's plays outside the support are not in that "
      f"LP and nothing in it holds player 2's replies to them;\n"
      f"- the same DAG run, then one LP with team 2 restricted to the "
      f"{common.thousands(r1['support'])} local solutions its flows use and team 1 whole: "
      f"upper end {common.num(r1['upper'], 7)}, the LP's own value "
      f"({common.num(r1['cpu_seconds'], 0)} CPU s): {above};\n"
      f"{_one_sided_item(rec['routes'].get('one_sided'), hi)}"
      f"- the lower end of the first and the full LP's certified upper end {common.num(hi, 10)} "
      f"make "
      f"[{common.num(lo, 10)}, {common.num(hi, 10)}], width {_width(hi - lo)}: "
      f"21L523 is {exact}, by two runs "
      f"({common.num(r['cpu_seconds'], 0)} + {common.thousands(round(lp['cpu_seconds']))} "
      f"CPU s);\n"
      f"- column generation over team 1's pure plans with the DAG's exact best responses (the "
      f"method of the FCGS-21 column): "
      f"[{common.num(cg['lower'], 4)}, {common.num(cg['upper'], 4)}] after "
      f"{cg['iterations']} iterations and {common.num(cg['cpu_seconds'], 0)} CPU s.\n\n"
      f"{prov}")


def _one_sided_item(r: dict | None, exact_value: float) -> str:
  """The list item of the `one_sided` route of `team_21L523_routes.py` ('' when not run)."""
  if r is None:
    return ""
  default = rows()["21L523"]
  taken = (f"the default path takes this route ({default['method']}, Table 1 above)"
           if default["method"] == "dag_lp" else "the default path does not take this route")
  reading = (f"Both supports at this gap hold optimal plans; {taken}"
             if abs(r["upper"] - exact_value) <= 1e-9 else
             "The supports at this gap miss part of the optimum")
  verdict = (f"exact, {common.num(r['solve_wall_seconds'], 0)} s from the game to the answer "
             f"(load average {r['load_before']:.1f} before, {r['load_after']:.1f} after)"
             if r["exact"] else f"width {common.num(r['upper'] - r['lower'], 2, sig=True)}")
  return (f"- the belief DAG to certified gap {r['dag_upper'] - r['dag_lower']:.1e} "
          f"({common.thousands(r['dag_iterations'])} iterations), then both LPs above from its "
          f"supports ({common.thousands(r['support'][0])} and "
          f"{common.thousands(r['support'][1])} local solutions): "
          f"[{common.num(r['lower'], 10)}, {common.num(r['upper'], 10)}], {verdict} "
          f"({common.num(r['cpu_seconds'], 0)} CPU s: "
          f"{common.num(r['decomposition_and_dag_cpu_seconds'], 0)} the decompositions and the "
          f"DAG, {_one_sided_lp_seconds(r)}). {reading};\n")


def _one_sided_lp_seconds(r: dict) -> str:
  """The LPs' CPU seconds of a `one_sided` route: per LP where the record splits them (the
  script's first version timed each LP itself; it now calls `restricted.solve_one_sided`)."""
  if "lower_lp_cpu_seconds" in r:
    return (f"{common.num(r['lower_lp_cpu_seconds'], 0)} the lower LP, "
            f"{common.num(r['upper_lp_cpu_seconds'], 0)} the upper LP")
  return f"{common.num(r['lp_cpu_seconds'], 0)} the two LPs"


def _width(w: float) -> str:
  """A bracket's width, or 'below 1e-12' where it is floating-point noise."""
  return f"{w:.1e}" if abs(w) >= 1e-12 else "below 1e-12"


def l523_exact() -> str:
  """21L523's bracket from the two certified ends of different runs (restricted LP's lower end,
  full LP's upper end), with what it prints at 4 decimals."""
  lo = common.load(ROUTES)["routes"]["restricted_team2_full"]["lower"]
  hi = common.load(FULL_LP)["upper"]
  same = f"{lo:.4f}" == f"{hi:.4f}"
  return (f"[{common.num(lo, 10)}, {common.num(hi, 10)}] (width {_width(hi - lo)}; "
          + (f"both ends print {lo:.4f})" if same else "its ends print differently)"))


def l523_default_path() -> str:
  """How the default path (Table 1's row) answers 21L523: its route, value or bracket, time."""
  r = rows()["21L523"]
  seconds = common.thousands(round(r["seconds"]))
  if not r["exact"]:
    return (f"The default path ({r['method']}) ends at the certified bracket "
            f"[{common.num(r['lower'], 7)}, {common.num(r['upper'], 7)}] after {seconds} s, "
            "which does not settle the fourth decimal.")
  tries = r.get("one_sided_tries") or []
  how = (f"the tree walk and both decompositions "
         f"({common.thousands(round(r['seconds'] - r['dag_seconds']))} s), the belief DAG to "
         f"certified gap {tries[-1]['gap']:.1e} "
         f"({common.thousands(r['dag_iterations'])} iterations, "
         f"{common.thousands(round(_dag_own_seconds(r)))} s), then the two "
         f"one-sided restricted LPs on its supports "
         f"({common.thousands(r['restricted_support'][0])} and "
         f"{common.thousands(r['restricted_support'][1])} local solutions, "
         f"{common.thousands(round(r['restricted_seconds']))} s)"
         if tries else r["method"])
  return (f"The default path answers it exactly: {how}, value **{common.num(r['value'], 10)}**, "
          f"certified bracket width {_width(r['upper'] - r['lower'])}, {seconds} s from the game "
          f"to the answer (paper: {paper_seconds('21L523')} s, Gurobi on the full LP)"
          + ("; the note under Table 1 gives the machine's state during this row's run."
             if r.get("run", {}).get("note") else "."))


def l523_settled() -> str:
  """What the full LP's certified bracket settles: the 4-decimal value both ends print, or
  that they print differently."""
  r = common.load(FULL_LP)
  lo, hi = f"{r['lower']:.4f}", f"{r['upper']:.4f}"
  gap = common.num(r["upper"] - r["lower"], 2, sig=True)
  if lo == hi:
    return f"both ends print {lo} (gap {gap}): the fourth decimal is settled"
  return f"its ends print {lo} and {hi} (gap {gap}): the fourth decimal is not settled"
