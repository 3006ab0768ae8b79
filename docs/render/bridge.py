"""Bridge bidding: the head-to-head tables, JPSBid runs, model selection and Yeh & Lin's cost.

Records (all under `results/`): in `bridge/`, `jps_paper.json`, `best_cross.json`,
`seeded_baselines.json` / `.csv`, `selection.json`, `learning_curve.csv`,
`jpsbid_from_a2c/bridge_finetune_seed<S>.json` and `jpsbid_from_a2c.json` (JPSBid from `a2c`),
`jpsbid_from_a2c_longer/` and `jpsbid_from_a2c_longer.json` (JPSBid from `a2c_longer`),
`uncontested_cost.json`, `search_bidder.json` (the play-time search bidder), `dd_net.json` (the
learned double-dummy estimate); `bridge_fsp_ppo/`; `bridge_search/` (the search experiment);
and the published values `published/bridge.json`.
"""
from __future__ import annotations

import math
import os
import re

from render import common

PAGE = "bridge.md"
_BOLD = "**{}**"


# ------------------------------------------------------------------------------------------
# Shared formatting
# ------------------------------------------------------------------------------------------
def _loads(rows) -> list[float]:
  """The 1-minute load averages of the rows that carry them."""
  out = []
  for r in rows:
    la = r.get("loadavg") if isinstance(r, dict) else None
    if la:
      out.append(float(la[0]))
  return out


def _load_range(values) -> str | None:
  values = [float(v) for v in values]
  if not values:
    return None
  lo, hi = min(values), max(values)
  return common.num(lo, 1) if lo == hi else f"{common.num(lo, 1)}-{common.num(hi, 1)}"


def _provenance(rec: dict, name: str, rows=(), extra_loads=()) -> str:
  return common.provenance(rec.get("command"), record=name, commit=rec.get("commit"),
                           date=rec.get("date") or rec.get("date_utc"),
                           machine=rec.get("machine"),
                           load=_load_range(_loads(rows) + list(extra_loads)))


def _signed(x, digits: int = 3) -> str:
  return common.num(x, digits, signed=True)


def _pm(r: dict, digits: int = 3) -> str:
  """'+m ± se' of a record's ``mean`` and ``se``."""
  return f"{_signed(r['mean'], digits)} ± {common.num(r['se'], digits)}"


def _interval(ci, digits: int = 3) -> str:
  return f"[{_signed(ci[0], digits)}, {_signed(ci[1], digits)}]"


def _folded(rel: str, label: str) -> str:
  """A Markdown record of `results/` (its title line dropped), shown folded under `label`."""
  text = common.load(rel)
  body = "\n".join(("    " + line) if line.strip() else "" for line in text.splitlines()[1:])
  return f'??? note "{label} (`results/{rel}`)"\n{body}\n'


def _published() -> dict:
  return common.load("published/bridge.json")


def _row(rows, **match) -> dict:
  for r in rows:
    if all(r.get(k) == v for k, v in match.items()):
      return r
  raise KeyError(f"no row with {match}")


# ------------------------------------------------------------------------------------------
# The JPS authors' bidders on our engine (bridge/jps_paper.json)
# ------------------------------------------------------------------------------------------
_JPS_ROWS = (("train", "greedy", "shipped training deals", "greedy (the authors' evaluation)"),
             ("train", "sampled", "shipped training deals", "sampled"),
             ("wbridge5", "greedy", "the authors' 1,000 WBridge5 deals", "greedy"),
             ("heldout", "greedy", "shipped held-out deals", "greedy"))


def _jps_row(dataset: str, acting: str) -> dict:
  rec = common.load("bridge/jps_paper.json")
  return _row(rec["rows"], a="jps_paper_0.63", b="jps_paper_baseline", dataset=dataset,
              acting=acting)


def published_jps() -> str:
  """'0.0318 x 24 = +0.76 IMPs/b over 50,000 deals', from the published record."""
  p = _published()["jps_2020"]
  x = p["agent_0.63_vs_baseline_per_board_over_24"]
  return (f"{common.num(x, 4)} × {p['imp_scale']} = "
          f"**{_signed(x * p['imp_scale'], 2)} IMPs/b** over {common.thousands(p['deals'])} deals")


def jps_paper_headline() -> str:
  """'+0.72 ± 0.07 against their +0.76': the greedy match on the training deals."""
  r = _jps_row("train", "greedy")
  p = _published()["jps_2020"]
  theirs = p["agent_0.63_vs_baseline_per_board_over_24"] * p["imp_scale"]
  return f"{_pm(r, 2)} against their {_signed(theirs, 2)}"


def jps_paper_value(dataset: str, acting: str, digits: int = 2) -> str:
  """IMPs/b of agent-1610-0.63 against agent-baseline-15-189 on `dataset`, signed."""
  return _signed(_jps_row(dataset, acting)["mean"], digits)


def jps_paper_table() -> str:
  """The four matches of agent-1610-0.63 against agent-baseline-15-189."""
  rec = common.load("bridge/jps_paper.json")
  rows, used = [], []
  for dataset, acting, deals, acting_text in _JPS_ROWS:
    r = _jps_row(dataset, acting)
    used.append(r)
    mean = _signed(r["mean"])
    if (dataset, acting) == ("train", "greedy"):
      mean = _BOLD.format(mean)
    rows.append([deals, acting_text, common.thousands(r["boards"]), mean,
                 common.num(r["se"], 3), _interval(r["ci95"])])
  table = common.md_table(["deals", "acting", "boards", "IMPs/b for 0.63", "s.e.",
                           "95% interval"], rows, "lllrrl")
  return table + "\n\n" + _provenance(rec, "bridge/jps_paper.json", used)


def jps_paper_all_pairs_table() -> str:
  """Every other match of the record (all greedy unless stated), A's IMPs/b ± s.e."""
  rec = common.load("bridge/jps_paper.json")
  seen = {("jps_paper_0.63", "jps_paper_baseline", d, a) for d, a, _, _ in _JPS_ROWS}
  rows, used = [], []
  for r in rec["rows"]:
    key = (r["a"], r["b"], r["dataset"], r["acting"])
    if key in seen:  # shown in the first table (the record repeats one match)
      continue
    seen.add(key)
    used.append(r)
    rows.append([f"`{r['a']}`", f"`{r['b']}`", r["dataset"], r["acting"],
                 common.thousands(r["boards"]), _pm(r)])
  table = common.md_table(["A", "B", "deals", "acting", "boards", "IMPs/b for A"], rows,
                          "llllrr")
  return table + "\n\n" + _provenance(rec, "bridge/jps_paper.json", used)


# ------------------------------------------------------------------------------------------
# a2c_longer against the authors' agents (bridge/best_cross.json)
# ------------------------------------------------------------------------------------------
_BEST_OPPONENTS = (("jps_paper_baseline", "`jps_paper_baseline` (the authors' A2C baseline)"),
                   ("jps_paper_0.63",
                    "`jps_paper_0.63` (the authors' best JPS agent, agent-1610-0.63)"),
                   ("a2c_long", "`a2c_long` (its start)"),
                   ("natural", "the natural bidder"))


def _best_row(b: str, dataset: str) -> dict:
  return _row(common.load("bridge/best_cross.json")["rows"], a="a2c_longer", b=b,
              dataset=dataset)


def best_cross(b: str, dataset: str, digits: int = 2) -> str:
  """`a2c_longer`'s IMPs/b against `b` on `dataset` (``both``: the two held-out sets pooled,
  with its 95% interval), signed."""
  if dataset != "both":
    return _signed(_best_row(b, dataset)["mean"], digits)
  r = _pooled_sets([_best_row(b, s) for s in ("heldout", "heldout2")])
  return f"{_signed(r['mean'], digits)} {_interval(r['ci95'], digits)}"


def best_cross_table() -> str:
  """`a2c_longer` against the authors' agents, `a2c_long` and natural on both held-out sets."""
  rec = common.load("bridge/best_cross.json")
  sets = ("heldout", "heldout2")
  header = ["A = `a2c_longer` (`best`) against"]
  for s in sets:
    header.append(f"{s} ({common.thousands(_best_row('natural', s)['boards'])} boards)")
  header.append(f"both ({common.thousands(sum(_best_row('natural', s)['boards'] for s in sets))}"
                " boards)")
  rows = []
  for b, text in _BEST_OPPONENTS:
    cells = [text]
    for s in sets:
      r = _best_row(b, s)
      cells.append(f"{_pm(r)} {_interval(r['ci95'])}")
    both = _pooled_sets([_best_row(b, s) for s in sets])
    cells.append(f"{_pm(both)} {_interval(both['ci95'])}")
    rows.append(cells)
  return (common.md_table(header, rows) + "\n\nBoth sets together: the board-weighted mean of "
          "the two sets' results; the sets share no deal, so its variance is the weighted sum "
          "of theirs.\n\n" + _provenance(rec, "bridge/best_cross.json", rec["rows"]))


def _pooled_sets(rows: list[dict]) -> dict:
  """One estimate from matches on disjoint deal sets: the board-weighted mean, its standard
  error from the sets' own (independent sets), and the normal 95% interval."""
  n = sum(r["boards"] for r in rows)
  mean = sum(r["boards"] * r["mean"] for r in rows) / n
  se = math.sqrt(sum((r["boards"] * r["se"]) ** 2 for r in rows)) / n
  return {"boards": n, "mean": mean, "se": se, "ci95": (mean - 1.959964 * se,
                                                        mean + 1.959964 * se)}


# ------------------------------------------------------------------------------------------
# Training and model selection of a2c_longer (bridge/learning_curve.csv, bridge/selection.json)
# ------------------------------------------------------------------------------------------
_LR_PHASES = ((0, "1e-4"), (29696000, "3e-5"), (39563264, "1e-5"))  # games where each began
_LINEAGE_START = 24662016  # self-play games of a2c_long, where a2c_longer's training began


def _phase(games: int) -> str:
  return [lr for start, lr in _LR_PHASES if games >= start][-1]


def learning_curve_summary() -> str:
  """The lineage's log in the CSV: evaluations, self-play games and training seconds."""
  rows = common.load("bridge/learning_curve.csv")
  games = [int(r["games"]) for r in rows]
  wall = [float(r["wall_s"]) for r in rows]
  cont = [w for g, w in zip(games, wall, strict=True) if g > _LINEAGE_START]
  before = [w for g, w in zip(games, wall, strict=True) if g <= _LINEAGE_START]
  return (f"{len(rows)} evaluations of 400 boards each, over {common.num(games[-1] / 1e6, 1)} M "
          f"self-play games and {common.thousands(round(wall[-1]))} s of training in the log "
          f"({common.thousands(round(cont[-1] - (before[-1] if before else 0)))} s of them for "
          f"`a2c_longer`'s continuation, {common.num((games[-1] - _LINEAGE_START) / 1e6, 1)} M "
          "games)")


def selection_summary() -> str:
  """Validation results of the snapshots by learning-rate phase, and of the averages."""
  rec = common.load("bridge/selection.json")
  snaps = [r for r in rec["rows"] if r["snapshot"].startswith("round_")]
  avgs = [r for r in rec["rows"] if r["snapshot"].startswith("avg_")]
  ses = [r["stderr"] for r in rec["rows"]]
  parts = []
  for _, lr in _LR_PHASES:
    xs = [r["imps"] for r in snaps if _phase(r["games"]) == lr]
    if not xs:
      continue
    mean = sum(xs) / len(xs)
    parts.append(f"the {len(xs)} at lr {lr} {_signed(min(xs), 2)} to {_signed(max(xs), 2)} "
                 f"(mean {_signed(mean, 2)})")
  best = _row(rec["rows"], snapshot=rec["best"])
  avg_sizes = sorted({int(re.match(r"avg_last(\d+)_", r["snapshot"]).group(1)) for r in avgs})
  late = [r for r in avgs if r["games"] == max(a["games"] for a in avgs)]
  late_sizes = ", ".join(str(n) for n in sorted(
      int(re.match(r"avg_last(\d+)_", r["snapshot"]).group(1)) for r in late))
  late_imps = [r["imps"] for r in late]
  text = (f"Snapshots against `a2c_long` on validation (s.e. {common.num(min(ses), 2)} to "
          f"{common.num(max(ses), 2)}): " + "; ".join(parts) + ". Parameter averages of the "
          f"last {late_sizes} snapshots at the end (stochastic weight averaging) scored "
          f"{_signed(min(late_imps), 2)} to {_signed(max(late_imps), 2)}"
          f" (averages tried: the last {', '.join(map(str, avg_sizes))}). The selected snapshot, "
          f"`{rec['best']}` at lr {_phase(best['games'])}, scored {_signed(best['imps'], 2)}: the "
          f"largest of {len(rec['rows'])} noisy candidates; its unbiased figure is the held-out "
          f"{best_cross('a2c_long', 'heldout')} and {best_cross('a2c_long', 'heldout2')} above.")
  return text + "\n\n" + _provenance(rec, "bridge/selection.json",
                                     extra_loads=[r["load"] for r in rec["rows"]])


# ------------------------------------------------------------------------------------------
# JPSBid against plain fine-tuning from a2c (seeds 10-20) and from a2c_longer (seeds 30-56)
# ------------------------------------------------------------------------------------------
def _seed_table(runs: list[dict], per_row: int = 11) -> str:
  out = []
  for i in range(0, len(runs), per_row):
    part = runs[i:i + per_row]
    out.append(common.md_table(
        ["seed"] + [str(r["seed"]) for r in part],
        [["JPSBid vs plain"] + [_signed(r["jps_vs_plain"]["mean"]) for r in part],
         ["s.e. (boards)"] + [common.num(r["jps_vs_plain"]["se"], 3) for r in part]],
        "l" + "r" * len(part)))
  return "\n\n".join(out)


def _from_a2c_runs() -> list[dict]:
  runs = []
  for s in range(10, 21):
    runs.append(common.load(f"bridge/jpsbid_from_a2c/bridge_finetune_seed{s}.json"))
  return runs


def finetune_seed_table() -> str:
  """JPSBid minus plain per training run from `a2c` (seeds 10-20)."""
  runs = _from_a2c_runs()
  rec = common.load("bridge/jpsbid_from_a2c.json")
  loads = _loads([r["jps_vs_plain"] for r in runs])
  return _seed_table(runs) + "\n\n" + _provenance(rec, "bridge/jpsbid_from_a2c.json",
                                                  extra_loads=loads) + (
      " Runs: `results/bridge/jpsbid_from_a2c/bridge_finetune_seed10.json` ... `seed20.json`.")


def _across(rec: dict) -> dict:
  return rec["across_runs"]


def replication_value(what: str) -> str:
  """Inline values of the method-level test from `a2c` (bridge/jpsbid_from_a2c.json)."""
  rec = common.load("bridge/jpsbid_from_a2c.json")
  a = _across(rec)
  runs = [r["mean"] for r in rec["runs"]]
  start = rec["across_runs_vs_start (descriptive)"]
  values = {
      "mean": _signed(a["mean"]), "ci": _interval(a["ci95"]), "sd": common.num(a["sd"], 3),
      "runs": str(a["runs"]), "decision": rec["method_decision"],
      "min": _signed(min(runs), 2), "max": _signed(max(runs), 2),
      "plain_vs_start": _signed(start["plain_vs_a2c"]["mean"]),
      "jps_vs_start": _signed(start["jps_vs_a2c"]["mean"]),
      "t975": common.num(a["t975"], 3),
  }
  return values[what]


def runs_needed_sentence() -> str:
  """How many runs a 95% interval narrower than 0.2 IMPs/b takes at the spread of `a2c`'s runs."""
  from scipy import stats  # noqa: PLC0415  (only this sentence needs it)
  a = _across(common.load("bridge/jpsbid_from_a2c.json"))
  sd, n = a["sd"], 2
  while stats.t.ppf(0.975, n - 1) * sd / n ** 0.5 >= 0.1:
    n += 1
  half = stats.t.ppf(0.975, n - 1) * sd / n ** 0.5
  return (f"{n} runs (t-interval half-width {common.num(stats.t.ppf(0.975, n - 1), 3)} × "
          f"{common.num(sd, 3)} / √{n} = {common.num(half, 3)})")


def longer_seed_tables() -> str:
  """JPSBid minus plain per pre-registered run from `a2c_longer`, 9 seeds a table."""
  runs = list(common.load_dir("bridge/jpsbid_from_a2c_longer").values())
  runs.sort(key=lambda r: r["seed"])
  rec = common.load("bridge/jpsbid_from_a2c_longer.json")
  loads = []
  for r in runs:
    for v in r["variants"].values():
      loads += _loads([v.get("run_stats", {})])
  return _seed_table(runs, per_row=9) + "\n\n" + _provenance(
      rec, "bridge/jpsbid_from_a2c_longer.json", extra_loads=loads) + (
      " Runs: `results/bridge/jpsbid_from_a2c_longer/bridge_finetune_seed<S>.json`; load "
      "averages at the end of the training runs.")


def longer_value(what: str) -> str:
  """Inline values of the method-level test from `a2c_longer`."""
  rec = common.load("bridge/jpsbid_from_a2c_longer.json")
  a = _across(rec)
  pb = rec["per_board_mean_of_runs"]
  if what in ("changed", "points"):  # from the run files (the search counts of each run)
    runs = list(common.load_dir("bridge/jpsbid_from_a2c_longer").values())
    counts = [r["variants"]["jps"]["run_stats"][f"search_{what}"] for r in runs]
    return f"{common.thousands(min(counts))}-{common.thousands(max(counts))}"
  values = {
      "mean": _signed(a["mean"]), "ci": _interval(a["ci95"]), "sd": common.num(a["sd"], 3),
      "runs": str(a["runs"]), "decision": rec["method_decision"],
      "width": common.num(a["ci95"][1] - a["ci95"][0], 3),
      "per_board": _pm(pb),
      "high": _signed(a["ci95"][1], 3), "low": _signed(a["ci95"][0], 3),
  }
  return values[what]


# ------------------------------------------------------------------------------------------
# Yeh & Lin's uncontested cost (bridge/uncontested_cost.json, published/bridge.json)
# ------------------------------------------------------------------------------------------
_UNCONTESTED_TEXT = {"a2c_uncontested": "`a2c_uncontested` (trained with East-West passing)",
                     "a2c": "`a2c` (the contested model, East-West forced to pass)",
                     "natural": "natural bidder", "pass": "pass", "random": "random"}


def published_uncontested() -> str:
  """'Yeh & Lin 2.70, WBridge5 3.00' on their test set, from the published record."""
  p = _published()["yeh_lin_2016"]
  c = p["uncontested_cost_imps"]
  return (f"**Yeh & Lin {common.num(c['yeh_lin'], 2)}, WBridge5 {common.num(c['wbridge5'], 2)}**"
          f" on their {common.thousands(p['test_instances'])}-instance test set")


def _uncontested_row(bidder: str) -> dict:
  return _row(common.load("bridge/uncontested_cost.json")["uncontested"], bidder=bidder)


def uncontested_table() -> str:
  """Mean IMP cost of each bidder on the shipped cost dataset, with the hindsight oracle."""
  rec = common.load("bridge/uncontested_cost.json")
  rows = []
  best = min(r["mean_cost"] for r in rec["uncontested"])
  for r in rec["uncontested"]:
    cost = common.num(r["mean_cost"], 3)
    rows.append([_UNCONTESTED_TEXT.get(r["bidder"], f"`{r['bidder']}`"),
                 _BOLD.format(cost) if r["mean_cost"] == best else cost,
                 common.num(r["stderr"], 3), f"{common.num(100 * r['fraction_best'], 1)}%"])
  rows.append(["hindsight oracle (the best contract of the actual deal)",
               common.num(rec["uncontested_hindsight_oracle"], 3), "—", "—"])
  table = common.md_table(["bidder", "mean cost (IMPs)", "s.e.", "best contract reached"],
                          rows, "lrrr")
  return table + "\n\n" + common.provenance(
      rec["command"], record="bridge/uncontested_cost.json", commit=rec["commit"],
      date=rec["date_utc"], machine=rec.get("machine"),
      load=_load_range(rec["loadavg"]))


def uncontested_pairs() -> str:
  """'300 North-South pairs' of the cost dataset."""
  return common.thousands(_uncontested_row("a2c_uncontested")["pairs"])


def uncontested_comparison() -> str:
  """Our best uncontested cost against Yeh & Lin's, in standard errors."""
  r = _uncontested_row("a2c_uncontested")
  theirs = _published()["yeh_lin_2016"]["uncontested_cost_imps"]["yeh_lin"]
  z = (theirs - r["mean_cost"]) / r["stderr"]
  where = "below" if z > 0 else "above"
  return (f"The uncontested A2C is {common.num(abs(z), 1)} standard errors {where} Yeh & Lin's "
          f"{common.num(theirs, 2)}")


# ------------------------------------------------------------------------------------------
# Seeded baselines (docs/bridge.md)
# ------------------------------------------------------------------------------------------
def seeded_baselines_table() -> str:
  """Each seeded baseline and `a2c_main` against `a2c` and the authors' agents on heldout."""
  rec = common.load("bridge/seeded_baselines.json")
  curves = common.load("bridge/seeded_baselines.csv")
  models = sorted({r["a"] for r in rec["rows"] if r["a"].startswith("a2c_seed")}) + ["a2c_main"]
  opponents = ("a2c", "jps_paper_baseline", "jps_paper_0.63")
  rows, used = [], []
  for m in models:
    last = [c for c in curves if c["model"] == m]
    final = (f"{_signed(float(last[-1]['eval_imps_vs_natural']), 2)} "
             f"(game {common.thousands(last[-1]['games'])})") if last else "—"
    cells = [f"`{m}`", final]
    for b in opponents:
      r = _row(rec["rows"], a=m, b=b)
      used.append(r)
      cells.append(_pm(r))
    rows.append(cells)
  header = ["model", "last validation eval vs natural (400 boards)"] + [
      f"IMPs/b vs `{b}` (heldout)" for b in opponents]
  pairwise = [r for r in rec["rows"] if r["a"].startswith("a2c_seed")
              and r["b"].startswith("a2c_seed")] + [
      r for r in rec["rows"] if r["a"] == "a2c_main" and r["b"].startswith("a2c_seed")]
  pair_text = "; ".join(f"`{r['a']}` vs `{r['b']}` {_signed(r['mean'], 2)}" for r in pairwise)
  return (common.md_table(header, rows, "lrrrr") + "\n\nHead to head on heldout: " + pair_text
          + ".\n\n" + _provenance(rec, "bridge/seeded_baselines.json", used + pairwise))


# ------------------------------------------------------------------------------------------
# The results index
# ------------------------------------------------------------------------------------------
def summary_rows() -> list[dict]:
  """One row per paper figure or table that the bridge pages reproduce or compare."""
  ours = _jps_row("train", "greedy")
  p = _published()
  theirs = p["jps_2020"]["agent_0.63_vs_baseline_per_board_over_24"] * p["jps_2020"]["imp_scale"]
  longer = _across(common.load("bridge/jpsbid_from_a2c_longer.json"))
  unc = _uncontested_row("a2c_uncontested")
  yl = p["yeh_lin_2016"]["uncontested_cost_imps"]["yeh_lin"]
  return [
      {"paper": "Tian et al. 2020 (JPS)", "figure": "Sec. 7: agent-1610-0.63 vs baseline",
       "status": "reproduced",
       "why": f"{_pm(ours, 2)} IMPs/b on our engine "
              f"vs their {_signed(theirs, 2)}",
       "page": PAGE},
      {"paper": "Tian et al. 2020 (JPS)", "figure": "Sec. 7: the published agents vs ours",
       "status": "differs (open)",
       "why": f"`best` beats their A2C baseline ({best_cross('jps_paper_baseline', 'heldout2')})"
              f", loses to agent-1610-0.63 ({best_cross('jps_paper_0.63', 'heldout2')})",
       "page": PAGE},
      {"paper": "Tian et al. 2020 (JPS)", "figure": "Table 3: JPSBid vs A2C fine-tuning",
       "status": "differs (open)",
       "why": f"at 102,400 games a method: {_signed(longer['mean'])} IMPs/b, "
              f"{_interval(longer['ci95'])}, not established",
       "page": PAGE},
      {"paper": "Yeh & Lin 2016", "figure": "uncontested bidding cost",
       "status": "reproduced",
       "why": f"{common.num(unc['mean_cost'], 2)} ± {common.num(unc['stderr'], 2)} IMPs on "
              f"{unc['pairs']} pairs vs their {common.num(yl, 2)} (other test set)",
       "page": PAGE},
  ]


# ------------------------------------------------------------------------------------------
# Play-time search (search:<model>)
# ------------------------------------------------------------------------------------------
def search_bidder_cost_table() -> str:
  """CPU seconds per searched call of ``search:<model>`` for each K of the record."""
  rec = common.load("bridge/search_bidder.json")
  header = ["bidder", "CPU s per searched call", "deals solved per searched call",
            "DDS CPU s per deal", "searched / calls", "changed", "too little evidence"]
  rows = [[f"`{r['spec']}`", common.num(r["cpu_s_per_searched_call"], 2),
           common.num(r["deals_per_searched_call"], 1), common.num(r["dd_cpu_s_per_deal"], 2),
           f"{r['searched']} / {r['calls']}", r["changed"], r["low_ess"]]
          for r in rec["cost"]]
  loads = [x for r in rec["cost"] for x in (r["load_before"][0], r["load_after"][0])]
  return common.md_table(header, rows, "lrrrrrr") + "\n\n" + _provenance(
      rec, "bridge/search_bidder.json", extra_loads=loads)


def search_bidder_match() -> str:
  """The record's small match: IMPs/board ± clustered s.e. [95% interval], with its command."""
  m = common.load("bridge/search_bidder.json")["match"]
  text = (f"`{m['bidder_a']}` against `{m['bidder_b']}` on {m['boards']} `{m['dataset']}` "
          f"boards: {_signed(m['imps_per_board'], 2)} ± {common.num(m['stderr_clustered'], 2)} "
          f"IMPs/board {_interval(m['ci95'], 2)}, standard error clustered by deal.")
  return text + "\n\n" + common.provenance(
      m.get("command"), record="bridge/search_bidder.json", commit=m.get("commit"),
      date=m.get("date"), machine=m.get("machine"),
      load=_load_range([m["load_before"][0], m["load_after"][0]]))


# ------------------------------------------------------------------------------------------
# The learned double-dummy estimate and the pre-registered search experiment
# ------------------------------------------------------------------------------------------
def dd_net_table() -> str:
  """Accuracy of the shipped double-dummy network on each set, its cost beside DDS's."""
  rec = common.load("bridge/dd_net.json")
  rows = [[f"`{name}`", common.thousands(a["deals"]), common.num(a["mae_expected"], 3),
           f"{100 * a['exact']:.1f}%", f"{100 * a['within1']:.1f}%", common.num(a["nll"], 3)]
          for name, a in rec["accuracy"].items()]
  table = common.md_table(["deals", "count", "mean error of E[tricks]", "most probable = DDS",
                           "within one trick", "log loss (nats)"], rows, "lrrrrr")
  t, c, cfg = rec["training"], rec["cost"], rec["config"]
  text = (f"Trained on {common.thousands(t['deals'])} deals (the training deals under their "
          f"96 symmetries, validation and held-out deals removed): {cfg['num_layers']} layers "
          f"of {cfg['hidden']} units, {common.thousands(cfg['steps'])} Adam steps of "
          f"{cfg['batch']} deals, {common.num(t['cpu_s'] / 60, 0)} CPU minutes. On "
          f"{c['deals']} held-out deals DDS took {common.num(c['dds_cpu_s_per_deal'], 3)} "
          f"CPU s a deal and the network {common.num(1000 * c['net_cpu_s_per_deal'], 2)} CPU "
          f"ms ({common.thousands(round(c['ratio']))} times less).")
  loads = list(t["load_before"][:1]) + list(t["load_after"][:1]) + list(rec["load_at_cost"][:1])
  return table + "\n\n" + text + "\n\n" + _provenance(rec, "bridge/dd_net.json",
                                                      extra_loads=loads)


def network_size_table() -> str:
  """Self-play A2C games per CPU second for each network size of the record."""
  rec = common.load("bridge/network_size.json")
  rows = [[f"{r['hidden']} x {r['num_blocks']}", common.thousands(r["parameters"]),
           common.thousands(round(r["games_per_cpu_s"])),
           f"{common.num(r['cpu_cost_vs_first'], 1)}x",
           common.num(r["games_per_cpu_s"] * 1800 / 1e6, 1)]
          for r in rec["rows"]]
  table = common.md_table(["units x residual blocks", "parameters", "games / CPU s",
                           "CPU per game", "M games in 30 CPU minutes"], rows, "lrrrr")
  return table + "\n\n" + _provenance(
      rec, "bridge/network_size.json",
      extra_loads=[rec["load_before"][0], rec["load_after"][0]])


# ------------------------------------------------------------------------------------------
# A start for a wider network (pre-registered plan, two students of `a2c_longer`)
# ------------------------------------------------------------------------------------------
WIDE_START = "bridge_wide_start"
# The plan's arms, in its order: key -> what the student imitates.
WIDE_START_ARMS = {"calls": "the teacher's greedy calls",
                   "probabilities": "the teacher's distribution over the calls"}


def wide_start_plan() -> str:
  """The plan of the wide-start runs, shown folded (its own Markdown)."""
  return _folded(f"{WIDE_START}/PLAN.md", "Plan")


def wide_start() -> str:
  """Each student's validation match against its teacher, its fit on validation states, its
  training cost, and the plan's decision once both arms are done."""
  if not os.path.isfile(os.path.join(common.RESULTS, WIDE_START, "record.json")):
    return "No student has finished yet."
  rec = common.load(f"{WIDE_START}/record.json")
  st = rec["settings"]
  rows = []
  for arm, what in WIDE_START_ARMS.items():
    r = rec["arms"].get(arm)
    if r is None:
      rows.append([f"`{arm}`", what, "not finished", "", "", "", ""])
      continue
    m = r["match"]
    rows.append([f"`{arm}`", what,
                 f"{_signed(m['imps_per_board_for_a'])} ± {common.num(m['stderr_clustered'], 3)}",
                 _interval((m["ci95_low"], m["ci95_high"])),
                 f"{common.num(100 * r['validation_agreement'], 1)}%",
                 common.num(r["validation_kl"], 3),
                 common.thousands(round(r["train_cpu_s"]))])
  out = (f"Students of {st['hidden']} units x {st['num_blocks']} residual blocks, "
         f"{common.thousands(st['steps'])} Adam steps each on the "
         f"{common.thousands(rec['collection']['states'])} states of "
         f"{common.thousands(st['deals'])} auctions of `{st['teacher']}`; each plays its teacher "
         f"on {common.thousands(st['eval_boards'])} validation boards, and is compared with it "
         f"on the {common.thousands(rec['validation_states'])} states of the validation "
         "deals' auctions:\n\n")
  out += common.md_table(["student", "imitates", f"IMPs/b vs `{st['teacher']}` ± s.e.",
                          "95% interval", "agreement", "KL (nats)", "training CPU s"],
                         rows, "llrrrrr")
  if "decision" in rec:
    out += f"\n\nThe plan's rule: {rec['decision']['reading']}"
    if "start" in rec:
      st = rec["start"]
      out += (f" Its value head, fitted alone to the teacher's values on the same states "
              f"({common.thousands(st['value_steps'])} Adam steps; the policy unchanged), went "
              f"from a mean squared error of {common.num(st['value_mse_before'], 4)} to "
              f"{common.num(st['value_mse_after'], 4)}.")
  else:
    out += "\n\nNot every student has finished: no decision yet."
  loads = rec.get("load_before", [])[:1] + rec.get("load_after", [])[:1]
  return out + "\n\n" + _provenance(rec, f"{WIDE_START}/record.json", extra_loads=loads)


WIDE_RUN = "bridge_wide_run"


def wide_run_preregistration() -> str:
  """The pre-registration of the wide network's self-play run, shown folded."""
  return _folded(f"{WIDE_RUN}/PREREGISTRATION.md", "Pre-registration")


def wide_run_status() -> str:
  """Where the wide network's run stands, from its record: its progress and the trainer's
  evaluations beside the start's and the opponent's on the same boards; each candidate's
  validation match (the lost ones marked); once its budget is used, the selection, the
  held-out estimate and the pre-registered decision."""
  if not os.path.isfile(os.path.join(common.RESULTS, WIDE_RUN, "record.json")):
    return "The run has not reported yet: no result of it is on this page."
  rec = common.load(f"{WIDE_RUN}/record.json")
  st, m, lost = rec["settings"], rec["matches"], rec.get("lost")
  tr = rec.get("training") or lost["training"]  # before the resumed run's first report
  opp = st["opponent"]
  out = (f"At its last report the run had trained {common.thousands(tr['round'])} rounds "
         f"({common.thousands(tr['games'])} self-play games) in "
         f"{common.thousands(round(tr['cpu_s']))} of its "
         f"{common.thousands(round(tr['budget_cpu_s']))} CPU seconds. ")
  if lost:
    old, res = lost["training"], lost["resumed_from"]
    out += (f"Its working folder was lost at round {common.thousands(old['round'])} (the start "
            "file, the snapshots and the last checkpoint; pre-registration amendment 3). It went "
            f"on from its slim checkpoint of round {common.thousands(res['round'])} "
            f"({common.thousands(round(res['cpu_s']))} CPU seconds), so the rounds after that "
            "are a second trajectory; the lost rounds' CPU seconds are not counted. ")
  ref = {k: m[f"reference/{k}"] for k in ("start", "opponent") if f"reference/{k}" in m}
  rows = [["the start", "", "", _pm(r)]
          for k, r in ref.items() if k == "start"]
  evals = [(e, "") for e in (rec.get("training") or {}).get("evals", [])]
  if lost:
    after = lost["resumed_from"]["round"]
    evals += [(e, " (lost)" if e["round"] > after else "") for e in lost["training"]["evals"]
              if e["round"] > after or "training" not in rec]
  evals.sort(key=lambda x: (x[0]["round"], x[1]))
  rows += [[f"round {common.thousands(e['round'])}{tag}", common.thousands(e["games"]),
            common.thousands(round(e["cpu_s"])), f"{_signed(e['imps_vs_natural'])} ± "
            f"{common.num(e['se'], 3)}"] for e, tag in evals]
  rows += [[f"`{opp}` (the opponent)", "", "", _pm(r)]
           for k, r in ref.items() if k == "opponent"]
  out += (f"Its own evaluations, greedy against the natural bidder on the first "
          f"{common.thousands(st['eval_boards'])} validation boards, beside the start's and "
          f"`{opp}`'s on the same boards (a guide only: the decision is the match against "
          f"`{opp}`):\n\n")
  out += common.md_table(["model", "games", "CPU s", "IMPs/b vs natural ± s.e."], rows, "lrrr")
  sel = [(n, m["select/" + n], "") for n in (k[len("select/"):] for k in m
                                            if k.startswith("select/"))]
  sel += [(n, r, " (lost)") for n, r in (lost or {}).get("matches", {}).items()]
  sel.sort(key=lambda x: (x[0] != "start", x[2] == "", x[0]))  # the start, the lost, the rest
  rows = [[f"`{n}`{tag}" + (" (selected)" if not tag and n == rec.get("selected") else ""),
           _pm(r)] for n, r, tag in sel]
  finished = "training" in rec and tr["finished"]
  if rows:
    out += (f"\n\nThe selection's matches: each candidate against `{opp}` on "
            f"{common.thousands(st['select_boards'])} validation boards"
            + ("" if finished else ", played as the snapshots appear")
            + (" (a lost candidate cannot be played on the held-out boards, so it is not "
               "selected)" if lost else "") + ":\n\n")
    out += common.md_table(["candidate", f"IMPs/b vs `{opp}` ± s.e."], rows, "lr")
  if not finished:
    out += ("\n\nThe run has not used its budget: no candidate has been selected and no "
            "held-out result of it is on this page.")
  elif "result" in rec:
    r = rec["result"]
    out += (f"\n\n**Estimate:** `{rec['selected']}` against `{opp}` on the "
            f"{common.thousands(r['boards'])} held-out boards: {_pm(r)} IMPs/b, 95% interval "
            f"{_interval(r['ci95'])}. **Decision:** {r['decision']}.")
    if not r["decision"].startswith("kept"):
      out += (f" `best` stays `{opp}`; the cross table and the 200 x 2 control, planned for a "
              "kept model only, were not run. The selected snapshot is kept in "
              "`checkpoints/bridge/wide_run_leader.npz`.")
  else:
    out += "\n\nThe held-out estimate is not finished."
  rows_all = list(m.values()) + list((lost or {}).get("matches", {}).values())
  loads = [x for v in rows_all for x in (v["load_before"][:1] + v["load_after"][:1])]
  return out + "\n\n" + _provenance({**rec, "commit": tr["commit"], "date": tr["date"]},
                                       f"{WIDE_RUN}/record.json", extra_loads=loads)


SEARCH = "bridge_search"


def search_preregistration() -> str:
  """The pre-registration of the search experiment, shown folded (its own Markdown)."""
  return _folded(f"{SEARCH}/PREREGISTRATION.md", "Pre-registration")


def _search_record() -> dict | None:
  path = os.path.join(common.RESULTS, SEARCH, "record.json")
  return common.load(f"{SEARCH}/record.json") if os.path.isfile(path) else None


def search_experiment() -> str:
  """The experiment's matches so far (selection, then the held-out estimate) and its decision."""
  rec = _search_record()
  if rec is None:
    return "No match of the experiment has finished yet."
  rows = []
  for key, m in rec["matches"].items():
    run = m["last_run"]
    cost = (f"{common.num(run['cpu_s_per_call'], 2)} ({common.thousands(run['changed'])} of "
            f"{common.thousands(run['searched'])} searched calls changed)"
            if run["calls"] else "—")
    load = _load_range([m["load_before"][0], m["load_after"][0]])
    rows.append([key.split("/")[0], f"`{m['spec']}`", f"`{m['dataset']}`",
                 common.thousands(m["boards"]),
                 _pm(m), cost,
                 f"{m['date']}, `{m['commit']}`, load {load}"])
  opponent = rec["settings"]["opponent"]
  out = common.md_table(["stage", "bidder", "deals", "boards", f"IMPs/b vs `{opponent}` ± s.e.",
                         "CPU s per call", "run"], rows, "lllrrll")
  if "selected" in rec:
    out += f"\n\nSelected on the validation deals: `{rec['selected']}`."
  if "result" in rec:
    r = rec["result"]
    out += (f" Over the {common.thousands(r['boards'])} held-out boards: "
            f"**{_pm(r)} IMPs/b**, 95% interval "
            f"{_interval(r['ci95'])}: **{r['decision']}**.")
  else:
    out += " The held-out estimate is not finished: no decision yet."
  return out + "\n\n" + common.provenance(rec.get("command"), record=f"{SEARCH}/record.json",
                                          machine=rec.get("machine"))


DIAGNOSIS = f"{SEARCH}/diagnosis"
# The plan's measures and components, in the order of its table: key -> what it is.
DIAGNOSIS_ROWS = {
    "A": "`A` as decided (its own deals, learned tables)",
    "B": "`B` fresh deals, learned tables",
    "C": "`C` the same fresh deals, DDS tables",
    "D": "`D` the true deal, its DDS table",
    "winners_curse (A - B)": "winner's curse `A - B`",
    "table_error (B - C)": "learned tables' error `B - C`",
    "deal_model_error (C - D)": "sampled deals and model of the other seats `C - D`",
}


# What each main cause points to (the plan's "Reading").
DIAGNOSIS_NEXT = {
    "winners_curse (A - B)": "confirming a change on an independent draw of deals, or a "
                             "larger `k`",
    "table_error (B - C)": "exact or more accurate double-dummy tables",
    "deal_model_error (C - D)": "a better model of the other hands (a belief network) or of "
                                "the opponents",
}


def search_diagnosis_plan() -> str:
  """The diagnosis plan, shown folded (its own Markdown)."""
  return _folded(f"{DIAGNOSIS}/PLAN.md", "Plan")


def search_diagnosis() -> str:
  """The diagnosis's measures (mean gain of the changed calls, IMPs) and its reading."""
  path = os.path.join(common.RESULTS, DIAGNOSIS, "record.json")
  if not os.path.isfile(path):
    return "The diagnosis has not run yet."
  rec = common.load(f"{DIAGNOSIS}/record.json")
  summary = rec.get("summary")
  if not summary:
    return "The diagnosis is replaying its match: no changed call is measured yet."
  whole, sub = summary["all_changed"], summary.get("dds_subset", {})

  def cell(stats):
    if stats is None:
      return "—"
    return f"{_pm(stats, 2)} ({stats['n']})"

  rows = [[label, cell(whole.get(key)), cell(sub.get(key))]
          for key, label in DIAGNOSIS_ROWS.items()]
  m = rec["match"]
  out = (f"The replayed match: {_pm(m)} IMPs/b "
         f"against `{rec['settings']['opponent']}`; the search changed "
         f"{common.thousands(m['changed_calls'])} of its "
         f"{common.thousands(m['searched_calls'])} searched calls. Mean gain of the searched "
         "call over the policy's, IMPs for the caller's side ± s.e. clustered by deal (calls):"
         "\n\n")
  out += common.md_table(["measure", "all changed calls", "random subset scored by DDS"],
                         rows, "lrr")
  if not rec.get("done"):
    out += (f"\n\nIn progress: {common.thousands(len(rec['rows']))} of "
            f"{common.thousands(m['changed_calls'])} changed calls measured; no reading yet.")
  else:
    cause = summary.get("main_cause")
    reading = (f"the main cause is the **{DIAGNOSIS_ROWS[cause]}**; it points to "
               f"{DIAGNOSIS_NEXT[cause]}" if cause else
               "no component's interval excludes 0, so **no main cause is established**")
    out += f"\n\nThe plan's reading: {reading}."
  return out + "\n\n" + _provenance(rec, f"{DIAGNOSIS}/record.json",
                                      extra_loads=rec.get("load_before", [])[:1]
                                      + rec.get("load_after", [])[:1])


# ------------------------------------------------------------------------------------------
# Fictitious self-play and PPO: the pre-registration and its pilot
# ------------------------------------------------------------------------------------------
FSP_PPO = "bridge_fsp_ppo"


def fsp_ppo_preregistration() -> str:
  """The pre-registration of the FSP / PPO comparison, shown folded (its own Markdown)."""
  return _folded(f"{FSP_PPO}/PREREGISTRATION.md", "Pre-registration")


def fsp_ppo_pilot_table() -> str:
  """The pilot of the four arms (one seed, a few CPU minutes, validation boards only):
  cost per game and the validation IMPs of each snapshot. Not a decision."""
  summary = common.load(f"{FSP_PPO}/pilot/summary.json")
  runs = common.load_dir(f"{FSP_PPO}/pilot/runs")
  out = []
  for arm, s in summary.items():
    run = runs[f"{arm}_seed{s['seeds'][0]}.json"]
    vals = [m for k, m in run["matches"].items() if k.startswith("select/")]
    snaps = ", ".join(_pm(m, 2) for m in vals)
    out.append([f"`{arm}`", str(s["runs"]), common.thousands(round(s["games_per_cpu_s"])),
                str(s["rounds"][0]), common.num(run["cpu_budget_s"], 0), snaps])
  return common.md_table(["arm", "runs", "games / CPU s", "rounds", "CPU s", "validation "
                          "IMPs/b of the snapshots vs `a2c_longer`"], out, "lrrrrl")


FSP_PPO_ARMS = ("a2c", "a2c_fsp", "ppo", "ppo_fsp")
FSP_PPO_SEEDS = 6  # the pre-registration's runs per arm


def fsp_ppo_progress() -> str:
  """How far the pre-registered experiment has come: 'k of 24 runs finished, j in progress',
  or that all its runs are finished."""
  runs = common.load_dir(f"{FSP_PPO}/runs") if _has_runs() else {}
  done = sum(1 for r in runs.values() if r.get("done"))
  total = len(FSP_PPO_ARMS) * FSP_PPO_SEEDS
  if done == total:
    return f"all {total} runs are finished"
  return f"{done} of {total} runs finished, {len(runs) - done} in progress"


def _has_runs() -> bool:
  return os.path.isdir(os.path.join(common.RESULTS, FSP_PPO, "runs"))


def fsp_ppo_summary_table() -> str:
  """Per arm over its finished runs: the mean held-out IMPs/board against `a2c_longer`, the
  95% t interval between runs, the driver's decision (none before all its runs are done), and
  which of each run's snapshots the validation selected."""
  if not os.path.isfile(os.path.join(common.RESULTS, FSP_PPO, "summary.json")):
    return "No run has finished yet."
  out = []
  for arm, s in common.load(f"{FSP_PPO}/summary.json").items():
    lo, hi = s.get("ci95", [None, None])
    interval = (f"[{common.num(lo, 3, signed=True)}, {common.num(hi, 3, signed=True)}]"
                if lo is not None and lo == lo else "— (one run)")
    out.append([f"`{arm}`", str(s["runs"]), common.num(s.get("mean"), 3, signed=True),
                interval, s.get("decision", "—"),
                ", ".join(map(str, s["selected_snapshot"])) if "selected_snapshot" in s
                else "—"])
  return common.md_table(["arm", "finished runs", "held-out IMPs/b vs `a2c_longer`",
                          "95% t interval", "decision", "selected snapshot (1-4) per run"],
                         out, "lrrlll")


def fsp_ppo_reading() -> str:
  """What the decisions so far say, from the summary: the arms decided by the rule (kept, worse,
  not established), the arms still waiting for runs, and, once all are decided, whether a
  method is adopted."""
  if not os.path.isfile(os.path.join(common.RESULTS, FSP_PPO, "summary.json")):
    return "No arm has been decided yet."
  summary = common.load(f"{FSP_PPO}/summary.json")
  decided = {a: summary[a]["decision"] for a in FSP_PPO_ARMS
             if a in summary and not summary[a]["decision"].startswith("none yet")}
  pending = [a for a in FSP_PPO_ARMS if a not in decided]

  def arms(names):
    names = [f"`{a}`" for a in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

  groups = {}
  for a, d in decided.items():
    groups.setdefault(d.split(" (")[0], []).append(a)
  out = "; ".join(f"{arms(g)}: {d}" for d, g in groups.items())
  out = f"Decided by the rule: {out}." if out else "No arm has been decided yet."
  if pending:
    return out + f" Waiting for their runs: {arms(pending)}."
  kept = groups.get("kept", [])
  if kept:
    return out + (f" {arms(kept)} gained over `a2c_longer` at this budget; a kept arm's model "
                  "becomes a candidate for `best` only after its own matches against the other "
                  "shipped bidders.")
  budgets = {r["cpu_budget_s"] for r in common.load_dir(f"{FSP_PPO}/runs").values()}
  minutes = common.num(budgets.pop() / 60, 0) if len(budgets) == 1 else "the budgeted"
  return out + (" No method is adopted: none of the four gained measurably over `a2c_longer` "
                f"in {minutes} more CPU minutes of training, and `best` stays `a2c_longer`.")


def fsp_ppo_validation_note() -> str:
  """The validation matches against the held-out ones over the finished runs: every
  snapshot's mean, the selected snapshots' mean, and the selected ones' held-out mean."""
  runs = [r for r in common.load_dir(f"{FSP_PPO}/runs").values() if r.get("done")]
  every = [m["mean"] for r in runs for k, m in r["matches"].items() if k.startswith("select/")]
  chosen = [r["matches"][f"select/{r['selected']}"]["mean"] for r in runs]
  held = [r["result_imps_per_board"] for r in runs]
  return (f"Over the {len(runs)} finished runs, the {len(every)} snapshots averaged "
          f"{_signed(sum(every) / len(every))} IMPs/b against `a2c_longer` on the validation "
          f"deals, the selected ones {_signed(sum(chosen) / len(chosen))}, and the selected ones "
          f"{_signed(sum(held) / len(held))} on the held-out deals.")


def fsp_ppo_secondary_table() -> str:
  """The pre-registration's secondary comparisons (descriptive, no decision): differences of
  the arms' mean held-out results with Welch's 95% interval."""
  if not os.path.isfile(os.path.join(common.RESULTS, FSP_PPO, "secondary.json")):
    return "No pair of arms has two finished runs each yet."
  rows = [[c["contrast"], f"{c['runs'][0]} vs {c['runs'][1]}", _signed(c["difference"]),
           _interval(c["ci95"]), common.num(c["df"], 1)]
          for c in common.load(f"{FSP_PPO}/secondary.json")]
  return common.md_table(["contrast", "runs", "difference of means (IMPs/b)",
                          "Welch 95% interval", "degrees of freedom"], rows, "llrrr")


def fsp_ppo_runs_table() -> str:
  """Every run of the pre-registered experiment so far: training CPU seconds of its budget,
  games, snapshots, and its validation and held-out results once it has them."""
  if not _has_runs():
    return "No run has started."
  out = []
  for run in common.load_dir(f"{FSP_PPO}/runs").values():
    snaps = run.get("snapshots", [])
    cpu = snaps[-1]["cpu_s"] if snaps else 0.0
    games = snaps[-1]["games"] if snaps else 0
    select = [m for k, m in run.get("matches", {}).items() if k.startswith("select/")]
    held = run.get("result_imps_per_board")
    out.append([f"`{run['arm']}`", str(run["seed"]),
                f"{common.num(cpu, 0)} of {common.num(run['cpu_budget_s'], 0)}",
                common.thousands(games), f"{len(snaps)}",
                ", ".join(_pm(m, 2) for m in select) or "—",
                common.num(held, 3, signed=True) if held is not None else "—",
                "yes" if run.get("done") else "no"])
  return common.md_table(["arm", "seed", "training CPU s", "games", "snapshots",
                          "validation IMPs/b of the snapshots", "held-out IMPs/b (6,000)",
                          "finished"], out, "lrrrrlll")
