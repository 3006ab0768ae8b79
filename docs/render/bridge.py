"""Bridge bidding: the head-to-head tables, Yeh & Lin's cost, the search bidder's cost.

Records (under `results/`): in `bridge/`, `jps_paper.json`, `best_cross.json`,
`seeded_baselines.json` / `.csv`, `uncontested_cost.json`, `search_bidder.json` (the play-time
search bidder), `dd_net.json` (the learned double-dummy estimate), `network_size.json`; the
published values `published/bridge.json`. The pre-registered studies (under `experiments/`)
render from `bridge_experiments`; the formatting functions here are shared with it.
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
def loads_of(rows) -> list[float]:
  """The 1-minute load averages of the rows that carry them."""
  out = []
  for r in rows:
    la = r.get("loadavg") if isinstance(r, dict) else None
    if la:
      out.append(float(la[0]))
  return out


def load_range(values) -> str | None:
  values = [float(v) for v in values]
  if not values:
    return None
  lo, hi = min(values), max(values)
  return common.num(lo, 1) if lo == hi else f"{common.num(lo, 1)}-{common.num(hi, 1)}"


def record_provenance(rec: dict, name: str, rows=(), extra_loads=(),
                      record_flag: str | None = None) -> str:
  """The provenance block of a record; `record_flag`: the command's flag that writes it."""
  command = rec.get("command")
  if record_flag and command:
    command = common.with_flag(command, record_flag, common.record_label(name))
  return common.provenance(command, record=name,
                           commit=common.commit_label(rec) if rec.get("commit") else None,
                           date=rec.get("date") or rec.get("date_utc"),
                           machine=rec.get("machine"),
                           load=load_range(loads_of(rows) + list(extra_loads)))


def signed(x, digits: int = 3) -> str:
  return common.num(x, digits, signed=True)


def pm(r: dict, digits: int = 3) -> str:
  """'+m ± se' of a record's ``mean`` and ``se``."""
  return f"{signed(r['mean'], digits)} ± {common.num(r['se'], digits)}"


def interval(ci, digits: int = 3) -> str:
  return f"[{signed(ci[0], digits)}, {signed(ci[1], digits)}]"


def folded(rel: str, label: str, until: str | None = None) -> str:
  """A Markdown record (its title line dropped, and from a line starting with `until` on),
  shown folded under `label`, with the scripts, records and working folders it names at their
  current place (`common.runnable`)."""
  text = common.runnable(common.load(rel))
  if until:
    text = re.split(rf"^{re.escape(until)}", text, maxsplit=1, flags=re.M)[0]
  body = "\n".join(("    " + line) if line.strip() else "" for line in text.splitlines()[1:])
  return (f'??? note "{label} (`{common.record_label(rel)}`; paths as they are now)"\n'
          f"{body}\n")


def _published() -> dict:
  return common.load("published/bridge.json")


def row_of(rows, **match) -> dict:
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
  return row_of(rec["rows"], a="jps_paper_0.63", b="jps_paper_baseline", dataset=dataset,
              acting=acting)


def published_jps() -> str:
  """'0.0318 x 24 = +0.76 IMPs/b over 50,000 deals', from the published record."""
  p = _published()["jps_2020"]
  x = p["agent_0.63_vs_baseline_per_board_over_24"]
  return (f"{common.num(x, 4)} × {p['imp_scale']} = "
          f"**{signed(x * p['imp_scale'], 2)} IMPs/b** over {common.thousands(p['deals'])} deals")


def jps_paper_headline() -> str:
  """'+0.72 ± 0.07 against their +0.76': the greedy match on the training deals."""
  r = _jps_row("train", "greedy")
  p = _published()["jps_2020"]
  theirs = p["agent_0.63_vs_baseline_per_board_over_24"] * p["imp_scale"]
  return f"{pm(r, 2)} against their {signed(theirs, 2)}"


def jps_paper_value(dataset: str, acting: str, digits: int = 2) -> str:
  """IMPs/b of agent-1610-0.63 against agent-baseline-15-189 on `dataset`, signed."""
  return signed(_jps_row(dataset, acting)["mean"], digits)


def jps_paper_table() -> str:
  """The four matches of agent-1610-0.63 against agent-baseline-15-189."""
  rec = common.load("bridge/jps_paper.json")
  rows, used = [], []
  for dataset, acting, deals, acting_text in _JPS_ROWS:
    r = _jps_row(dataset, acting)
    used.append(r)
    mean = signed(r["mean"])
    if (dataset, acting) == ("train", "greedy"):
      mean = _BOLD.format(mean)
    rows.append([deals, acting_text, common.thousands(r["boards"]), mean,
                 common.num(r["se"], 3), interval(r["ci95"])])
  table = common.md_table(["deals", "acting", "boards", "IMPs/b for 0.63", "s.e.",
                           "95% interval"], rows, "lllrrl")
  return table + "\n\n" + record_provenance(rec, "bridge/jps_paper.json", used,
                                                    record_flag="record")


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
                 common.thousands(r["boards"]), pm(r)])
  table = common.md_table(["A", "B", "deals", "acting", "boards", "IMPs/b for A"], rows,
                          "llllrr")
  return table + "\n\n" + record_provenance(rec, "bridge/jps_paper.json", used,
                                                    record_flag="record")


# ------------------------------------------------------------------------------------------
# a2c_longer against the authors' agents (bridge/best_cross.json)
# ------------------------------------------------------------------------------------------
_BEST_OPPONENTS = (("jps_paper_baseline", "`jps_paper_baseline` (the authors' A2C baseline)"),
                   ("jps_paper_0.63",
                    "`jps_paper_0.63` (the authors' best JPS agent, agent-1610-0.63)"),
                   ("a2c_long", "`a2c_long` (its start)"),
                   ("natural", "the natural bidder"))


def _best_row(b: str, dataset: str) -> dict:
  return row_of(common.load("bridge/best_cross.json")["rows"], a="a2c_longer", b=b,
              dataset=dataset)


def best_cross(b: str, dataset: str, digits: int = 2) -> str:
  """`a2c_longer`'s IMPs/b against `b` on `dataset` (``both``: the two held-out sets pooled,
  with its 95% interval), signed."""
  if dataset != "both":
    return signed(_best_row(b, dataset)["mean"], digits)
  r = _pooled_sets([_best_row(b, s) for s in ("heldout", "heldout2")])
  return f"{signed(r['mean'], digits)} {interval(r['ci95'], digits)}"


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
      cells.append(f"{pm(r)} {interval(r['ci95'])}")
    both = _pooled_sets([_best_row(b, s) for s in sets])
    cells.append(f"{pm(both)} {interval(both['ci95'])}")
    rows.append(cells)
  return (common.md_table(header, rows) + "\n\nBoth sets together: the board-weighted mean of "
          "the two sets' results; the sets share no deal, so its variance is the weighted sum "
          "of theirs.\n\n" + record_provenance(rec, "bridge/best_cross.json", rec["rows"],
                                             record_flag="record"))


def _pooled_sets(rows: list[dict]) -> dict:
  """One estimate from matches on disjoint deal sets: the board-weighted mean, its standard
  error from the sets' own (independent sets), and the normal 95% interval."""
  n = sum(r["boards"] for r in rows)
  mean = sum(r["boards"] * r["mean"] for r in rows) / n
  se = math.sqrt(sum((r["boards"] * r["se"]) ** 2 for r in rows)) / n
  return {"boards": n, "mean": mean, "se": se, "ci95": (mean - 1.959964 * se,
                                                        mean + 1.959964 * se)}


def across(rec: dict) -> dict:
  return rec["across_runs"]


JPSBID_STUDIES = (("jpsbid_from_a2c", "a2c"), ("jpsbid_from_a2c_longer", "a2c_longer"))


def table3_sentence() -> str:
  """The JPS paper's Table 3 gain of JPSBid over plain fine-tuning beside ours, per start."""
  t = _published()["jps_2020"]["table3"]
  paper = t["vs_baseline"]["JPS (1%)"] - t["vs_baseline"]["non-search"]
  paper10 = t["vs_10_baselines"]["JPS (1%)"][0] - t["vs_10_baselines"]["non-search"][0]
  ours = []
  for study, start in JPSBID_STUDIES:
    rec = common.load(f"experiments/bridge_jpsbid/{study}.json")
    a = across(rec)
    ours.append(f"{signed(a['mean'])} IMPs/b over {a['runs']} training runs from `{start}` "
                f"(95% interval {interval(a['ci95'])}: {rec['method_decision']})")
  return (f"The JPS paper's Table 3 has JPSBid (search on 1% of the games) "
          f"{signed(paper, 2)} IMPs/b ahead of plain A2C fine-tuning against its start "
          f"({signed(paper10, 2)} against 10 independent baselines). Head to head at our "
          "scale, JPSBid minus plain fine-tuning is " + " and ".join(ours) + ".")


def table3_table() -> str:
  """The JPS paper's Table 3 (search over plain fine-tuning) beside our measurements of it.

  Paper rows: the gain of each searched arm over the non-search arm against 10 independent
  baselines (its columns' difference). Our rows: the 27-run JPSBid studies and the
  JPS-at-scale study (its effect once finished; its state until then).
  """
  t = _published()["jps_2020"]["table3"]["vs_10_baselines"]
  base = t["non-search"][0]
  rows = [[f"Tian et al. 2020, Table 3: {arm} minus non-search", "2 GPU-days a run",
           "vs 10 independent A2C baselines", f"{signed(t[arm][0] - base, 2)}", "-"]
          for arm in ("1-search", "JPS (1%)", "JPS (5%)", "JPS (10%)")]
  for study, start in JPSBID_STUDIES:
    rec = common.load(f"experiments/bridge_jpsbid/{study}.json")
    a = across(rec)
    moved = " (neither arm moved from its start)" if start == "a2c_longer" else ""
    rows.append([f"ours, JPSBid (1%) minus plain, from `{start}`",
                 f"200 rounds a run, {a['runs']} runs", "paired, held-out boards",
                 f"{signed(a['mean'])} {interval(a['ci95'])}",
                 f"{rec['method_decision']}{moved}"])
  scale = "experiments/bridge_jps_at_scale/record.json"
  if os.path.isfile(common.record_path(scale)):
    rec = common.load(scale)
    eff = rec.get("effect", {}).get("jps - plain")
    if eff:
      cell, state = f"{signed(eff['mean'])} {interval(eff['ci95'])}", eff["decision"]
    else:
      end = rec["settings"]["schedule"][-1][0]
      done = sum(rec["progress"].values())
      cell = "-"
      panel = (rec.get("panel_available") or rec["settings"]["panel"])[0]
      leaders = ", ".join(
          f"{name.split('_')[0]} {signed(lin['snapshots'][lin['leader']]['panel'][panel])}"
          for name, lin in sorted(rec.get("lineages", {}).items()) if lin.get("leader"))
      state = (rec.get("stopped") or f"running: {done:,} of {end * len(rec['progress']):,} "
               "lineage rounds trained" + (f"; validation leaders so far vs `{panel}`: "
                                           f"{leaders}" if leaders else ""))
  else:
    cell, state = "-", "pre-registered, not started"
  rows.append(["ours, JPS (5%, authors' budget) minus plain at a fair scale",
               "a2c_longer's schedule, 22,194 rounds", "paired lineages, 6,000 held-out boards",
               cell, state])
  return common.md_table(["arm", "training", "measured", "IMPs/b [95%]", "decision"], rows,
                         "lllrl")


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
  return row_of(common.load("bridge/uncontested_cost.json")["uncontested"], bidder=bidder)


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
      common.with_flag(rec["command"], "record", "results/bridge/uncontested_cost.json"),
      record="bridge/uncontested_cost.json", commit=common.commit_label(rec),
      date=rec["date_utc"], machine=rec.get("machine"), load=load_range(rec["loadavg"]))


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
    final = (f"{signed(float(last[-1]['eval_imps_vs_natural']), 2)} "
             f"(game {common.thousands(last[-1]['games'])})") if last else "—"
    cells = [f"`{m}`", final]
    for b in opponents:
      r = row_of(rec["rows"], a=m, b=b)
      used.append(r)
      cells.append(pm(r))
    rows.append(cells)
  header = ["model", "last validation eval vs natural (400 boards)"] + [
      f"IMPs/b vs `{b}` (heldout)" for b in opponents]
  pairwise = [r for r in rec["rows"] if r["a"].startswith("a2c_seed")
              and r["b"].startswith("a2c_seed")] + [
      r for r in rec["rows"] if r["a"] == "a2c_main" and r["b"].startswith("a2c_seed")]
  pair_text = "; ".join(f"`{r['a']}` vs `{r['b']}` {signed(r['mean'], 2)}" for r in pairwise)
  return (common.md_table(header, rows, "lrrrr") + "\n\nHead to head on heldout: " + pair_text
          + ".\n\n" + _seeded_provenance(rec, used + pairwise))


def _seeded_provenance(rec: dict, rows: list) -> str:
  """The seeded baselines' command: the record names its bidders, not its exact flags."""
  command, _, note = rec["command"].partition(" (")
  text = record_provenance({**rec, "command": command}, "bridge/seeded_baselines.json", rows,
                           record_flag="record")
  return text + (f" The command's bidders: {note.rstrip(')')}." if note else "")


# ------------------------------------------------------------------------------------------
# The results index
# ------------------------------------------------------------------------------------------
def summary_rows() -> list[dict]:
  """One row per paper figure or table that the bridge pages reproduce or compare."""
  ours = _jps_row("train", "greedy")
  p = _published()
  theirs = p["jps_2020"]["agent_0.63_vs_baseline_per_board_over_24"] * p["jps_2020"]["imp_scale"]
  longer = across(common.load("experiments/bridge_jpsbid/jpsbid_from_a2c_longer.json"))
  unc = _uncontested_row("a2c_uncontested")
  yl = p["yeh_lin_2016"]["uncontested_cost_imps"]["yeh_lin"]
  return [
      {"paper": "Tian et al. 2020 (JPS)", "figure": "Sec. 7: agent-1610-0.63 vs baseline",
       "status": "reproduced",
       "why": f"{pm(ours, 2)} IMPs/b on our engine "
              f"vs their {signed(theirs, 2)}",
       "page": PAGE},
      {"paper": "Tian et al. 2020 (JPS)", "figure": "Sec. 7: the published agents vs ours",
       "status": "differs (open)",
       "why": f"`best` beats their A2C baseline ({best_cross('jps_paper_baseline', 'heldout2')})"
              f", loses to agent-1610-0.63 ({best_cross('jps_paper_0.63', 'heldout2')})",
       "page": PAGE},
      {"paper": "Tian et al. 2020 (JPS)", "figure": "Table 3: JPSBid vs A2C fine-tuning",
       "status": "differs (open)",
       "why": f"at 102,400 games a method: {signed(longer['mean'])} IMPs/b, "
              f"{interval(longer['ci95'])}, not established",
       "page": "bridge_experiments.md#jpsbid-against-plain-a2c-fine-tuning"},
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
  return common.md_table(header, rows, "lrrrrrr") + "\n\n" + record_provenance(
      rec, "bridge/search_bidder.json", extra_loads=loads)


def search_bidder_match() -> str:
  """The record's small match: IMPs/board ± clustered s.e. [95% interval], with its command."""
  m = common.load("bridge/search_bidder.json")["match"]
  text = (f"`{m['bidder_a']}` against `{m['bidder_b']}` on {m['boards']} `{m['dataset']}` "
          f"boards: {signed(m['imps_per_board'], 2)} ± {common.num(m['stderr_clustered'], 2)} "
          f"IMPs/board {interval(m['ci95'], 2)}, standard error clustered by deal.")
  command = m.get("command") and common.with_flag(m["command"], "out",
                                                   "results/bridge/search_bidder.json")
  return text + "\n\n" + common.provenance(
      command, record="bridge/search_bidder.json", commit=m.get("commit"),
      date=m.get("date"), machine=m.get("machine"),
      load=load_range([m["load_before"][0], m["load_after"][0]]))


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
  return table + "\n\n" + text + "\n\n" + record_provenance(rec, "bridge/dd_net.json",
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
  return table + "\n\n" + record_provenance(
      rec, "bridge/network_size.json",
      extra_loads=[rec["load_before"][0], rec["load_after"][0]])
