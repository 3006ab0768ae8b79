"""The bridge experiments: each pre-registered study's question, registration and outcome.

Records (under `experiments/`): `bridge_a2c_training/` (the lineage and model selection of
`a2c_longer`: `selection.json`, `learning_curve.csv`), `bridge_jpsbid/` (JPSBid against plain
fine-tuning from `a2c` and from `a2c_longer`: one file per run and the across-run test),
`bridge_search/` (search at play time, and `diagnosis/`), `bridge_wide_start/`,
`bridge_wide_run/`, `bridge_fsp_ppo/` and `bridge_jps_at_scale/` (the search's cost, the
gates and the Q head, rendered by that folder's own `outcome.py`, the functions its README uses);
each study's `registration.json` (when its plan and each amendment were committed). The page:
`docs/results/bridge_experiments.md`.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import re

from render import common
from render.bridge import across
from render.bridge import best_cross
from render.bridge import folded
from render.bridge import interval
from render.bridge import load_range
from render.bridge import loads_of
from render.bridge import pm
from render.bridge import record_provenance
from render.bridge import row_of
from render.bridge import signed

PAGE = "bridge_experiments.md"
JPSBID = "experiments/bridge_jpsbid"


# ------------------------------------------------------------------------------------------
# Registrations and the outcome table
# ------------------------------------------------------------------------------------------
def _dated(reg: dict) -> str:
  """'Registered on DATE (commit `c`)' and its amendments as a dated list."""
  out = (f"Registered on {reg['registered']['date']} (commit `{reg['registered']['commit']}`), "
         f"before {reg['registered'].get('before', 'its first run')}.")
  if not reg["amendments"]:
    return out + " No amendment."
  return out + " Amendments:\n\n" + "\n".join(
      f"- {a['date']} (`{a['commit']}`): {a['change']}." for a in reg["amendments"])


def registration(folder: str, label: str = "Pre-registration") -> str:
  """A study's registration (`<folder>/registration.json`): its date, its amendments as a
  dated list, and its plan (the Markdown beside it) folded under `label`."""
  reg = common.load(f"{folder}/registration.json")
  return _dated(reg) + "\n\n" + folded(f"{folder}/{reg['plan']}", label + " as registered",
                                       until="## Amendment")


def jpsbid_registration(study: str) -> str:
  """The registration of one JPSBid study (`jpsbid_from_a2c` or `jpsbid_from_a2c_longer`)."""
  return _dated(common.load(f"{JPSBID}/registration.json")["studies"][study])


def outcomes_table() -> str:
  """One row per pre-registered comparison: what is compared, the estimate, its 95% interval
  and the registered decision."""
  rows = []
  for study, start in (("jpsbid_from_a2c", "a2c"), ("jpsbid_from_a2c_longer", "a2c_longer")):
    rec = common.load(f"{JPSBID}/{study}.json")
    a = across(rec)
    rows.append([f"[JPSBid](#jpsbid-against-plain-a2c-fine-tuning) from `{start}`",
                 f"JPSBid minus plain fine-tuning, {a['runs']} runs", signed(a["mean"]),
                 interval(a["ci95"]), rec["method_decision"]])
  rec = common.load(f"{SEARCH}/record.json")
  r = rec["result"]
  rows.append(["[Search at play time](#search-at-play-time-against-its-own-policy)",
               f"`{rec['selected']}` minus its policy `best`, "
               f"{common.thousands(r['boards'])} boards", signed(r["mean"]),
               interval(r["ci95"]), r["decision"]])
  for arm, x in common.load(f"{FSP_PPO}/summary.json").items():
    rows.append(["[FSP and PPO](#fictitious-self-play-and-ppo-against-plain-a2c)",
                 f"`{arm}` minus `a2c_longer`, {x['runs']} runs", signed(x["mean"]),
                 interval(x["ci95"]), x["decision"]])
  ws = common.load(f"{WIDE_START}/record.json")
  m = ws["arms"][ws["decision"]["start"]]["match"]
  rows.append(["[A wider network: the start](#a-start-for-a-wider-network)",
               f"`{ws['decision']['start']}` student minus `{ws['settings']['teacher']}`, "
               f"{common.thousands(m['boards'])} validation boards",
               signed(m["imps_per_board_for_a"]), interval((m["ci95_low"], m["ci95_high"])),
               "level: the run starts from it" if ws["decision"]["level_with_teacher"]
               else "not level"])
  wr = common.load(f"{WIDE_RUN}/record.json")
  if "result" in wr:
    r = wr["result"]
    rows.append(["[A wider network: the run](#the-wide-networks-self-play-run)",
                 f"`{wr['selected']}` minus `{wr['settings']['opponent']}`, "
                 f"{common.thousands(r['boards'])} boards", signed(r["mean"]),
                 interval(r["ci95"]), r["decision"]])
  return common.md_table(["study", "compared (IMPs/board)", "estimate", "95% interval",
                          "decision"], rows, "llrrl")


# ------------------------------------------------------------------------------------------
# Training and model selection of a2c_longer (bridge/learning_curve.csv, bridge/selection.json)
# ------------------------------------------------------------------------------------------
_LR_PHASES = ((0, "1e-4"), (29696000, "3e-5"), (39563264, "1e-5"))  # games where each began
_LINEAGE_START = 24662016  # self-play games of a2c_long, where a2c_longer's training began


def _phase(games: int) -> str:
  return [lr for start, lr in _LR_PHASES if games >= start][-1]


def learning_curve_summary() -> str:
  """The lineage's log in the CSV: evaluations, self-play games and training seconds."""
  rows = common.load("experiments/bridge_a2c_training/learning_curve.csv")
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
  rec = common.load("experiments/bridge_a2c_training/selection.json")
  snaps = [r for r in rec["rows"] if r["snapshot"].startswith("round_")]
  avgs = [r for r in rec["rows"] if r["snapshot"].startswith("avg_")]
  ses = [r["stderr"] for r in rec["rows"]]
  parts = []
  for _, lr in _LR_PHASES:
    xs = [r["imps"] for r in snaps if _phase(r["games"]) == lr]
    if not xs:
      continue
    mean = sum(xs) / len(xs)
    parts.append(f"the {len(xs)} at lr {lr} {signed(min(xs), 2)} to {signed(max(xs), 2)} "
                 f"(mean {signed(mean, 2)})")
  best = row_of(rec["rows"], snapshot=rec["best"])
  avg_sizes = sorted({int(re.match(r"avg_last(\d+)_", r["snapshot"]).group(1)) for r in avgs})
  late = [r for r in avgs if r["games"] == max(a["games"] for a in avgs)]
  late_sizes = ", ".join(str(n) for n in sorted(
      int(re.match(r"avg_last(\d+)_", r["snapshot"]).group(1)) for r in late))
  late_imps = [r["imps"] for r in late]
  text = (f"Snapshots against `a2c_long` on validation (s.e. {common.num(min(ses), 2)} to "
          f"{common.num(max(ses), 2)}): " + "; ".join(parts) + ". Parameter averages of the "
          f"last {late_sizes} snapshots at the end (stochastic weight averaging) scored "
          f"{signed(min(late_imps), 2)} to {signed(max(late_imps), 2)}"
          f" (averages tried: the last {', '.join(map(str, avg_sizes))}). The selected snapshot, "
          f"`{rec['best']}` at lr {_phase(best['games'])}, scored {signed(best['imps'], 2)}: the "
          f"largest of {len(rec['rows'])} noisy candidates; its unbiased figure is the held-out "
          f"{best_cross('a2c_long', 'heldout')} and {best_cross('a2c_long', 'heldout2')} of the "
          "[bridge results](bridge.md).")
  return text + "\n\n" + record_provenance(rec, "experiments/bridge_a2c_training/selection.json",
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
        [["JPSBid vs plain"] + [signed(r["jps_vs_plain"]["mean"]) for r in part],
         ["s.e. (boards)"] + [common.num(r["jps_vs_plain"]["se"], 3) for r in part]],
        "l" + "r" * len(part)))
  return "\n\n".join(out)


def _from_a2c_runs() -> list[dict]:
  runs = []
  for s in range(10, 21):
    runs.append(common.load(f"experiments/bridge_jpsbid/jpsbid_from_a2c/bridge_finetune_seed{s}.json"))
  return runs


def finetune_seed_table() -> str:
  """JPSBid minus plain per training run from `a2c` (seeds 10-20)."""
  runs = _from_a2c_runs()
  rec = common.load("experiments/bridge_jpsbid/jpsbid_from_a2c.json")
  loads = loads_of([r["jps_vs_plain"] for r in runs])
  return _seed_table(runs) + "\n\n" + record_provenance(
      rec, "experiments/bridge_jpsbid/jpsbid_from_a2c.json", extra_loads=loads) + (
      " Runs: `experiments/bridge_jpsbid/jpsbid_from_a2c/bridge_finetune_seed10.json` ... "
      "`seed20.json`.")


def replication_value(what: str) -> str:
  """Inline values of the method-level test from `a2c` (bridge/jpsbid_from_a2c.json)."""
  rec = common.load("experiments/bridge_jpsbid/jpsbid_from_a2c.json")
  a = across(rec)
  runs = [r["mean"] for r in rec["runs"]]
  start = rec["across_runs_vs_start (descriptive)"]
  values = {
      "mean": signed(a["mean"]), "ci": interval(a["ci95"]), "sd": common.num(a["sd"], 3),
      "runs": str(a["runs"]), "decision": rec["method_decision"],
      "min": signed(min(runs), 2), "max": signed(max(runs), 2),
      "plain_vs_start": signed(start["plain_vs_a2c"]["mean"]),
      "jps_vs_start": signed(start["jps_vs_a2c"]["mean"]),
      "t975": common.num(a["t975"], 3),
  }
  return values[what]


def runs_needed_sentence() -> str:
  """How many runs a 95% interval narrower than 0.2 IMPs/b takes at the spread of `a2c`'s runs."""
  from scipy import stats  # noqa: PLC0415  (only this sentence needs it)
  a = across(common.load("experiments/bridge_jpsbid/jpsbid_from_a2c.json"))
  sd, n = a["sd"], 2
  while stats.t.ppf(0.975, n - 1) * sd / n ** 0.5 >= 0.1:
    n += 1
  half = stats.t.ppf(0.975, n - 1) * sd / n ** 0.5
  return (f"{n} runs (t-interval half-width {common.num(stats.t.ppf(0.975, n - 1), 3)} × "
          f"{common.num(sd, 3)} / √{n} = {common.num(half, 3)})")


def longer_seed_tables() -> str:
  """JPSBid minus plain per pre-registered run from `a2c_longer`, 9 seeds a table."""
  runs = list(common.load_dir("experiments/bridge_jpsbid/jpsbid_from_a2c_longer").values())
  runs.sort(key=lambda r: r["seed"])
  rec = common.load("experiments/bridge_jpsbid/jpsbid_from_a2c_longer.json")
  loads = []
  for r in runs:
    for v in r["variants"].values():
      loads += loads_of([v.get("run_stats", {})])
  return _seed_table(runs, per_row=9) + "\n\n" + record_provenance(
      rec, "experiments/bridge_jpsbid/jpsbid_from_a2c_longer.json", extra_loads=loads) + (
      " Runs: `experiments/bridge_jpsbid/jpsbid_from_a2c_longer/bridge_finetune_seed<S>.json`;"
      " load "
      "averages at the end of the training runs.")


def longer_value(what: str) -> str:
  """Inline values of the method-level test from `a2c_longer`."""
  rec = common.load("experiments/bridge_jpsbid/jpsbid_from_a2c_longer.json")
  a = across(rec)
  pb = rec["per_board_mean_of_runs"]
  if what in ("changed", "points"):  # from the run files (the search counts of each run)
    runs = list(common.load_dir("experiments/bridge_jpsbid/jpsbid_from_a2c_longer").values())
    counts = [r["variants"]["jps"]["run_stats"][f"search_{what}"] for r in runs]
    return f"{common.thousands(min(counts))}-{common.thousands(max(counts))}"
  values = {
      "mean": signed(a["mean"]), "ci": interval(a["ci95"]), "sd": common.num(a["sd"], 3),
      "runs": str(a["runs"]), "decision": rec["method_decision"],
      "width": common.num(a["ci95"][1] - a["ci95"][0], 3),
      "per_board": pm(pb),
      "high": signed(a["ci95"][1], 3), "low": signed(a["ci95"][0], 3),
  }
  return values[what]


# ------------------------------------------------------------------------------------------
# A start for a wider network (pre-registered plan, two students of `a2c_longer`)
# ------------------------------------------------------------------------------------------
WIDE_START = "experiments/bridge_wide_start"
# The plan's arms, in its order: key -> what the student imitates.
WIDE_START_ARMS = {"calls": "the teacher's greedy calls",
                   "probabilities": "the teacher's distribution over the calls"}


def wide_start_plan() -> str:
  """When the wide-start plan was committed, and the plan folded."""
  return registration(WIDE_START, "Plan")


def wide_start() -> str:
  """Each student's validation match against its teacher, its fit on validation states, its
  training cost, and the plan's decision once both arms are done."""
  if not os.path.isfile(common.record_path(f"{WIDE_START}/record.json")):
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
                 f"{signed(m['imps_per_board_for_a'])} ± {common.num(m['stderr_clustered'], 3)}",
                 interval((m["ci95_low"], m["ci95_high"])),
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
  return out + "\n\n" + record_provenance(rec, f"{WIDE_START}/record.json", extra_loads=loads)


WIDE_RUN = "experiments/bridge_wide_run"


def wide_run_preregistration() -> str:
  """The wide run's registration: its date, its amendments, the pre-registration folded."""
  return registration(WIDE_RUN)


def wide_run_status() -> str:
  """The wide network's run from its record: its training, the trainer's evaluations beside
  the start's and the opponent's on the same boards, each selectable candidate's validation
  match, and once its budget is used the selection, the held-out estimate and the decision."""
  if not os.path.isfile(common.record_path(f"{WIDE_RUN}/record.json")):
    return "The run has not reported yet: no result of it is on this page."
  rec = common.load(f"{WIDE_RUN}/record.json")
  st, m, lost = rec["settings"], rec["matches"], rec.get("lost") or {}
  tr = rec.get("training") or lost["training"]  # before the continued run's first report
  opp = st["opponent"]
  finished = "training" in rec and tr["finished"]
  out = (f"The run trained {common.thousands(tr['round'])} rounds "
         f"({common.thousands(tr['games'])} self-play games) in "
         f"{common.thousands(round(tr['cpu_s']))} of its "
         f"{common.thousands(round(tr['budget_cpu_s']))} CPU seconds"
         + ("." if finished else " so far: it has not used its budget.") + " ")
  ref = {k: m[f"reference/{k}"] for k in ("start", "opponent") if f"reference/{k}" in m}
  rows = [["the start", "", "", pm(r)] for k, r in ref.items() if k == "start"]
  rows += [[f"round {common.thousands(e['round'])}", common.thousands(e["games"]),
            common.thousands(round(e["cpu_s"])), f"{signed(e['imps_vs_natural'])} ± "
            f"{common.num(e['se'], 3)}"] for e in sorted(tr.get("evals", []),
                                                        key=lambda e: e["round"])]
  rows += [[f"`{opp}` (the opponent)", "", "", pm(r)]
           for k, r in ref.items() if k == "opponent"]
  out += (f"Its own evaluations, greedy against the natural bidder on the first "
          f"{common.thousands(st['eval_boards'])} validation boards, beside the start's and "
          f"`{opp}`'s on the same boards (a guide only: the decision is the match against "
          f"`{opp}`):\n\n")
  out += common.md_table(["model", "games", "CPU s", "IMPs/b vs natural ± s.e."], rows, "lrrr")
  sel = sorted(((k[len("select/"):], r) for k, r in m.items() if k.startswith("select/")),
               key=lambda x: (x[0] != "start", x[0]))
  rows = [[f"`{n}`" + (" (selected)" if n == rec.get("selected") else ""), pm(r)]
          for n, r in sel]
  if rows:
    out += (f"\n\nThe selection's matches: each candidate against `{opp}` on "
            f"{common.thousands(st['select_boards'])} validation boards"
            + ("" if finished else ", played as the snapshots appear") + ":\n\n")
    out += common.md_table(["candidate", f"IMPs/b vs `{opp}` ± s.e."], rows, "lr")
  if lost.get("matches"):
    out += (f"\n\n{len(lost['matches'])} further candidates were played on the validation "
            "deals but have no model file (amendment 3), so they were not selectable; their "
            "matches are in the record.")
  if not finished:
    out += ("\n\nNo candidate has been selected yet and no held-out result of the run is on "
            "this page.")
  elif "result" in rec:
    r = rec["result"]
    out += (f"\n\n**Estimate:** `{rec['selected']}` against `{opp}` on the "
            f"{common.thousands(r['boards'])} held-out boards: {pm(r)} IMPs/b, 95% interval "
            f"{interval(r['ci95'])}. **Decision:** {r['decision']}.")
    if not r["decision"].startswith("kept"):
      out += (f" `best` stays `{opp}`; the cross table and the 200 x 2 control, planned for a "
              "kept model only, were not run. The selected snapshot is kept in "
              "`experiments/bridge_wide_run/checkpoints/wide_run_leader.npz`.")
  else:
    out += "\n\nThe held-out estimate is not finished."
  rows_all = list(m.values()) + list(lost.get("matches", {}).values())
  loads = [x for v in rows_all for x in (v["load_before"][:1] + v["load_after"][:1])]
  return out + "\n\n" + record_provenance({**rec, "commit": tr["commit"], "date": tr["date"]},
                                            f"{WIDE_RUN}/record.json", extra_loads=loads)


SEARCH = "experiments/bridge_search"


def search_preregistration() -> str:
  """The search experiment's registration: date, amendments, the pre-registration folded."""
  return registration(SEARCH)


def _search_record() -> dict | None:
  path = common.record_path(f"{SEARCH}/record.json")
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
    load = load_range([m["load_before"][0], m["load_after"][0]])
    rows.append([key.split("/")[0], f"`{m['spec']}`", f"`{m['dataset']}`",
                 common.thousands(m["boards"]),
                 pm(m), cost,
                 f"{m['date']}, `{m['commit']}`, load {load}"])
  opponent = rec["settings"]["opponent"]
  out = common.md_table(["stage", "bidder", "deals", "boards", f"IMPs/b vs `{opponent}` ± s.e.",
                         "CPU s per call", "run"], rows, "lllrrll")
  if "selected" in rec:
    out += f"\n\nSelected on the validation deals: `{rec['selected']}`."
  if "result" in rec:
    r = rec["result"]
    out += (f" Over the {common.thousands(r['boards'])} held-out boards: "
            f"**{pm(r)} IMPs/b**, 95% interval "
            f"{interval(r['ci95'])}: **{r['decision']}**.")
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
  """When the diagnosis plan was committed, and the plan folded."""
  return registration(DIAGNOSIS, "Plan")


def search_diagnosis() -> str:
  """The diagnosis's measures (mean gain of the changed calls, IMPs) and its reading."""
  path = common.record_path(f"{DIAGNOSIS}/record.json")
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
    return f"{pm(stats, 2)} ({stats['n']})"

  rows = [[label, cell(whole.get(key)), cell(sub.get(key))]
          for key, label in DIAGNOSIS_ROWS.items()]
  m = rec["match"]
  out = (f"The replayed match: {pm(m)} IMPs/b "
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
  return out + "\n\n" + record_provenance(rec, f"{DIAGNOSIS}/record.json",
                                      extra_loads=rec.get("load_before", [])[:1]
                                      + rec.get("load_after", [])[:1])


# ------------------------------------------------------------------------------------------
# Fictitious self-play and PPO: the pre-registration and its pilot
# ------------------------------------------------------------------------------------------
FSP_PPO = "experiments/bridge_fsp_ppo"


def fsp_ppo_preregistration() -> str:
  """The FSP / PPO comparison's registration: date, amendments, the pre-registration folded."""
  return registration(FSP_PPO)


def fsp_ppo_pilot_table() -> str:
  """The pilot of the four arms (one seed, a few CPU minutes, validation boards only):
  cost per game and the validation IMPs of each snapshot. Not a decision."""
  summary = common.load(f"{FSP_PPO}/pilot/summary.json")
  runs = common.load_dir(f"{FSP_PPO}/pilot/runs")
  out = []
  for arm, s in summary.items():
    run = runs[f"{arm}_seed{s['seeds'][0]}.json"]
    vals = [m for k, m in run["matches"].items() if k.startswith("select/")]
    snaps = ", ".join(pm(m, 2) for m in vals)
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
  return os.path.isdir(common.record_path(f"{FSP_PPO}/runs"))


def fsp_ppo_summary_table() -> str:
  """Per arm over its finished runs: the mean held-out IMPs/board against `a2c_longer`, the
  95% t interval between runs, the driver's decision (none before all its runs are done), and
  which of each run's snapshots the validation selected."""
  if not os.path.isfile(common.record_path(f"{FSP_PPO}/summary.json")):
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
  if not os.path.isfile(common.record_path(f"{FSP_PPO}/summary.json")):
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
          f"{signed(sum(every) / len(every))} IMPs/b against `a2c_longer` on the validation "
          f"deals, the selected ones {signed(sum(chosen) / len(chosen))}, and the selected ones "
          f"{signed(sum(held) / len(held))} on the held-out deals.")


def fsp_ppo_secondary_table() -> str:
  """The pre-registration's secondary comparisons (descriptive, no decision): differences of
  the arms' mean held-out results with Welch's 95% interval."""
  if not os.path.isfile(common.record_path(f"{FSP_PPO}/secondary.json")):
    return "No pair of arms has two finished runs each yet."
  rows = [[c["contrast"], f"{c['runs'][0]} vs {c['runs'][1]}", signed(c["difference"]),
           interval(c["ci95"]), common.num(c["df"], 1)]
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
                ", ".join(pm(m, 2) for m in select) or "—",
                common.num(held, 3, signed=True) if held is not None else "—",
                "yes" if run.get("done") else "no"])
  return common.md_table(["arm", "seed", "training CPU s", "games", "snapshots",
                          "validation IMPs/b of the snapshots", "held-out IMPs/b (6,000)",
                          "finished"], out, "lrrrrlll")


# ------------------------------------------------------------------------------------------
# JPS at a fair scale (experiments/bridge_jps_at_scale): its README's renderer, reused
# ------------------------------------------------------------------------------------------
JPS_AT_SCALE = "experiments/bridge_jps_at_scale"
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.cache
def _jps_outcome():
  """The experiment's `outcome.py` (one implementation of its sections: README and page)."""
  path = os.path.join(_REPO, JPS_AT_SCALE, "outcome.py")
  spec = importlib.util.spec_from_file_location("bridge_jps_at_scale_outcome", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def jps_at_scale_cost() -> str:
  """The cost of a searched decision (`search_cost.json`) and where it goes (the profile)."""
  o = _jps_outcome()
  return (o.cost_section(common.load(f"{JPS_AT_SCALE}/search_cost.json")) + "\n\n"
          + o.profile_section(common.load(f"{JPS_AT_SCALE}/search_profile.json")))


def jps_at_scale_gate(name: str) -> str:
  """One gate record (`gate.json`, `gate_dds.json`, `gate_lam<lambda>.json`) as its table."""
  return _jps_outcome().gate_section(common.load(f"{JPS_AT_SCALE}/{name}"), name)


def jps_at_scale_lam_gates() -> str:
  """Every lambda > 0 gate record of the folder, each as its table."""
  names = _jps_outcome().lam_records(common.record_path(JPS_AT_SCALE))
  if not names:
    return "The lambda > 0 gate has not run."
  return "\n\n".join(jps_at_scale_gate(n) for n in names.values())


def jps_at_scale_q_head() -> str:
  """The Q head's fit and its held-out error against a constant and the value head."""
  return _jps_outcome().q_head_section(common.load(f"{JPS_AT_SCALE}/q_head.json"))


def jps_at_scale_decision() -> str:
  """The gates' answer by the reading rule (which target the study distils)."""
  o = _jps_outcome()
  lams = {lam: common.load(f"{JPS_AT_SCALE}/{n}")
          for lam, n in o.lam_records(common.record_path(JPS_AT_SCALE)).items()}
  return o.gate_decision(common.load(f"{JPS_AT_SCALE}/gate.json"), lams,
                         common.load(f"{JPS_AT_SCALE}/q_head.json"))


def jps_at_scale_churn() -> str:
  """The greedy calls training changes (`churn.json`): the movement gate's threshold."""
  return _jps_outcome().churn_section(common.load(f"{JPS_AT_SCALE}/churn.json"))


def jps_at_scale_status() -> str:
  """The study's state: the power check, its pre-registration (folded) and its lineages."""
  o = _jps_outcome()
  parts = []
  if os.path.isfile(common.record_path(f"{JPS_AT_SCALE}/power/record.json")):
    parts.append("**The power check** (plain lineages, the first 2,000 rounds of the "
                 "schedule):\n\n" + o.lineages_section(
                     common.load(f"{JPS_AT_SCALE}/power/record.json"), "power/record.json"))
  if os.path.isfile(common.record_path(f"{JPS_AT_SCALE}/registration.json")):
    plan = registration(JPS_AT_SCALE)
  else:
    plan = folded(f"{JPS_AT_SCALE}/PREREGISTRATION.md", "Pre-registration (draft)")
  if os.path.isfile(common.record_path(f"{JPS_AT_SCALE}/record.json")):
    rec = common.load(f"{JPS_AT_SCALE}/record.json")
    done = "effect" in rec or "stopped" in rec
    parts.append(("**Status: finished.**" if done else
                  "**Status: running** (the held-out decision is played only when every "
                  "lineage has finished its schedule; the table shows the lineages so far).")
                 + "\n\n" + o.lineages_section(rec, "record.json"))
  else:
    parts.append("**Status: not started** (no lineage of the study has been trained).")
  return "\n\n".join(parts + [plan])
