r"""Renders the outcome sections of this folder's README.md from its records.

  python experiments/bridge_jps_at_scale/outcome.py

Replaces the text between ``<!-- TAG:begin -->`` and ``<!-- TAG:end -->`` for each TAG:
``search_cost`` (``search_cost.json``, written by ``benchmarks/bridge_jps_search_cost.py``),
``search_profile``, ``gate`` (``gate.json``, written by ``gate.py``), ``gate_dds``
(``gate_dds.json``, the same with exact tables on a subset), ``q_head`` (``q_head.json``,
``q_head.py``), ``gate_lam<lambda>`` (``gate_lam<lambda>.json``, ``gate.py --lam``), ``churn``
(``churn.json``, ``churn.py``), ``gate_decision`` (the reading rule over all gate records),
``power`` (``power/record.json``, the power check's plain lineages) and ``study``
(``record.json``, the study's lineages and, once finished, its effect and decision), so the
README's numbers are the records' (none typed by hand). The results page *Bridge
experiments* (``docs/render/bridge_experiments.py``) renders the same records with these
functions.
"""

from __future__ import annotations

import json
import os
import re

from absl import app

from ospiel_team import atomic_io

HERE = os.path.dirname(os.path.abspath(__file__))

COST_NAMES = {
    "study_padded": "the 27-run study's layout (5 x 5 x 5 x 5, invalid candidates padded)",
    "default": "package default (`GameSearch.DEFAULTS`: 5 candidates above 0.05, 5 x 5), "
               "valid candidates only",
    "authors": "authors' budget (calls above 0.05, 5 opponent samples, 1 continuation per "
               "partner candidate, partner mean)",
    "authors_max": "authors' budget, partner max",
    "1search": "1-search, authors' budget (5 rollouts per candidate)",
    "1search_default": "1-search, package default (25 rollouts per candidate)",
}
GATE_NAMES = {"jps": "JPS, authors' budget (partner mean)",
              "jps_max": "JPS, authors' budget, partner max",
              "1search": "1-search, authors' budget",
              "random": "control: a random other candidate above 0.05 (no search)"}


def _f(x, digits=2) -> str:
  return "-" if x is None else f"{x:+.{digits}f}"


def _ci(s: dict) -> str:
  if not s or s.get("n", 0) < 2:
    return "-"
  lo, hi = s["ci95"]
  return f"{s['mean']:+.2f} [{lo:+.2f}, {hi:+.2f}] (n = {s['n']})"


def cost_section(rec: dict) -> str:
  """Markdown of the search-cost record."""
  lines = [
      f"Record `search_cost.json`: {rec['roots']} roots (`{rec['model']}` self-play on the "
      f"{rec['dataset']} deals, seed {rec['seed']}), commit `{rec['commit']}`, "
      f"{rec['date']}, {rec['machine']}. **Not alone**: {rec['note']}.", "",
      "| setting | CPU ms / decision | wall ms / decision | network rows / decision | "
      "changed | confirmed by 2x search | same call | load before -> after |",
      "|---|---|---|---|---|---|---|---|"]
  for name, row in rec["settings"].items():
    conf = row.get("confirmed_rate")
    conf_s = "-" if conf is None else f"{conf:.1%} ± {row['confirmed_rate_stderr']:.1%}"
    same = row.get("same_call_rate")
    lines.append(
        f"| {COST_NAMES.get(name, name)} | {row['cpu_ms_per_decision']:.1f} | "
        f"{row['wall_ms_per_decision']:.1f} | {row['network_rows_per_decision']:.0f} | "
        f"{row['changed_rate']:.1%} | {conf_s} | "
        f"{'-' if same is None else f'{same:.1%}'} | "
        f"{row['load_before'][0]:.1f} -> {row['load_after'][0]:.1f} |")
  return "\n".join(lines)


def profile_section(rec: dict) -> str:
  """Markdown of the profile record (where a searched decision's CPU time goes)."""
  p = rec["profile"]
  parts = ", ".join(f"{name} {share:.0%}" for name, share in p["share_of_search_time"].items())
  return (f"Record `search_profile.json` (cProfile, CPU time, setting `{p['setting']}`, "
          f"{p['roots']} roots, commit `{rec['commit']}`, {rec['date']}, load "
          f"{p['load_before'][0]:.1f}, not alone): share of the search's time, cumulative (the "
          f"legal calls are partly computed inside the observations): {parts}.")


def _verdict(s: dict) -> str:
  if not s or s.get("n", 0) < 2:
    return "no evidence"
  lo, hi = s["ci95"]
  return "above 0" if lo > 0 else "below 0" if hi < 0 else "contains 0"


def gate_answer(summary: dict, lam: float = 0.0) -> str:
  """The gate's answer for one lambda in words, from the search arms' infoset intervals."""
  search = {a: _verdict(s["infoset"]) for a, s in summary.items() if a != "random"}
  verdicts = set(search.values())
  if lam > 0:
    what = {"below 0": "lose on", "above 0": "gain on"}.get(
        next(iter(verdicts)) if len(verdicts) == 1 else "", "")
    if what:
      text = (f"**Answer (lambda = {lam}): the changed calls of the mixed target {what} the "
              f"deals the searcher cannot tell apart from the true one** (every search arm's "
              f"interval lies {next(iter(verdicts))}).")
    else:
      text = ("**Answer (lambda = " + str(lam) + "): not decided** (" + ", ".join(
          f"{GATE_NAMES.get(a, a)}: {v}" for a, v in search.items()) + ").")
    if lam == 1:
      text += (" (lambda = 1: Q alone chooses among the search's candidates, the true deal "
               "unused.)")
  elif verdicts == {"below 0"}:
    text = ("**Answer: the true-deal search's changed calls lose on the deals the searcher "
            "cannot tell apart from the true one** (every search arm's interval lies below 0): "
            "by the reading rule, distilling the true-deal target (lambda = 0) is likely to "
            "hurt; the study's target waits for the lambda > 0 gate (the Q head), else only "
            "scale remains.")
  elif verdicts == {"above 0"}:
    text = ("**Answer: the true-deal search's changed calls also gain on the deals the "
            "searcher sees** (every search arm's interval lies above 0): the true-deal target "
            "(lambda = 0) may be distilled.")
  else:
    text = ("**Answer: mixed or not decided** (" +
            ", ".join(f"{GATE_NAMES.get(a, a)}: {v}" for a, v in search.items()) + ").")
  if "random" in summary:
    r = summary["random"]["infoset"]
    text += (" The control (a random other candidate, no search) scores "
             f"{_ci(r)}: the search's changes are "
             + ("better than a random change" if all(
                 s["infoset"].get("n", 0) >= 2 and s["infoset"]["mean"] > r["mean"]
                 for a, s in summary.items() if a != "random") else
                "not all better than a random change") + " by their means.")
  return text


def gate_section(rec: dict, name: str) -> str:
  """Markdown of a gate record (file `name`)."""
  cfg = rec["config"]
  exact = cfg.get("dd") == "dds"
  lines = [
      f"Record `{name}`: {rec['roots_done']} of {cfg['roots']} roots (`{cfg['model']}` "
      f"self-play on the {cfg['dataset']} deals), lambda = {cfg['lam']}, {cfg['deals']} deals "
      f"drawn from the searcher's view per changed call (pool {cfg['pool']}, tables "
      f"{'exact (DDS)' if exact else 'learned (dd_net)'}), {cfg['rollouts']} policy rollouts "
      f"per deal, {cfg['true_rollouts']} on the true deal; {rec['cpu_s'] / 60:.0f} CPU "
      f"minutes, commit `{rec['commit']}`, {rec['date']}, load {rec['load'][0]:.1f} (shared "
      "machine). Gains in IMPs per changed call against the policy's most probable call, "
      "mean [95% interval] (n).", ""]
  head = ["arm", "changed", "left out (ESS)", "search's estimate (points)",
          "true deal, exact tables", "true deal, learned tables"]
  if exact:
    head.append("searcher's view, learned tables (same deals)")
  head += ["**searcher's view (infoset)**", "infoset gain per searched decision",
           "infoset gain"]
  lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for arm, s in rec["summary"].items():
    cells = [GATE_NAMES.get(arm, arm), f"{s['changed_rate']:.1%}", str(s["low_ess"]),
             _ci(s["search_estimate_points"]), _ci(s["true_exact"]), _ci(s["true_net"])]
    if exact:
      cells.append(_ci(s.get("infoset_net")))
    cells += [_ci(s["infoset"]), _ci(s["infoset_per_searched_decision"]),
              _verdict(s["infoset"])]
    lines.append("| " + " | ".join(cells) + " |")
  flips = [f"{GATE_NAMES.get(a, a)} {s['q_flipped']}" for a, s in rec["summary"].items()
           if "q_flipped" in s]
  if flips:
    lines += ["", f"Roots where the Q term changed the same search's choice (against lambda = "
              f"0), of {rec['roots_done']}: " + ", ".join(flips) + "."]
  if not exact:
    lines += ["", gate_answer(rec["summary"], cfg["lam"])]
    return "\n".join(lines)
  for arm in rec["summary"]:
    diff = [r["arms"][arm]["infoset"] - r["arms"][arm]["infoset_net"] for r in rec["per_root"]
            if "infoset" in r["arms"][arm] and "infoset_net" in r["arms"][arm]]
    lines += ["", f"{GATE_NAMES.get(arm, arm)}: exact minus learned tables on the same drawn "
              f"deals, paired: {_ci(_interval(diff))} IMPs per changed call (the learned "
              "tables' error in the infoset measure)."]
  return "\n".join(lines)


def q_head_useful(rec: dict) -> bool:
  """Whether the Q head beats the value head on held-out self-play (paired interval below 0):
  it then knows something about the calls beyond the position."""
  return rec["heldout"]["paired_q_minus_value_head_ci95"][1] < 0


def q_head_section(rec: dict) -> str:
  """Markdown of the Q head's record (`q_head.json`): its fit and its held-out error."""
  h, t = rec["heldout"], rec["train"]
  lo, hi = h["paired_q_minus_value_head_ci95"]
  useful = q_head_useful(rec)
  return (
      f"Record `q_head.json`: a Q head on `{rec['model']}`'s frozen trunk, fitted by ridge "
      f"regression per call (penalty {rec['ridge']:g}, chosen on a fifth of the training "
      f"decisions) to the returns (IMPs / 24) of {t['decisions']:,} decisions of its self-play "
      f"on {t['deals']:,} training deals; {rec['cpu_s'] / 60:.0f} CPU minutes, commit "
      f"`{rec['commit']}`, {rec['date']}, load {rec['load'][0]:.1f} (shared machine).\n\n"
      "| held-out self-play (validation deals), "
      f"{h['decisions']:,} decisions | mean squared error (IMPs / 24)^2 | R^2 against the "
      "constant |\n|---|---|---|\n"
      f"| constant (the training returns' mean) | {h['constant']['mse']:.4f} | 0 |\n"
      f"| value head V(I) (the position, not the call) | {h['value_head']['mse']:.4f} | "
      f"{h['r2_value_head_vs_constant']:+.4f} |\n"
      f"| **Q head Q(I, a)** | {h['q']['mse']:.4f} | {h['r2_vs_constant']:+.4f} |\n\n"
      f"Q minus V, paired: {h['paired_q_minus_value_head']:+.5f} [{lo:+.5f}, {hi:+.5f}]; "
      "correlation of Q(I, a) - V(I) with the return minus V(I): "
      f"{h['corr_q_minus_v_with_return_minus_v']:+.3f}. "
      + (f"**The Q head's error is below the value head's**, by "
         f"{-h['paired_q_minus_value_head'] / h['value_head']['mse']:.2%} of it (the paired "
         "interval lies below 0; the decisions of one game are correlated, so it is indicative): "
         "it knows a little about the calls beyond the position, and its advantages Q - V are "
         "small beside the true-deal differences (the lambda > 0 gates below count how often "
         "they change the search's choice)."
         if useful else
         "**The Q head is no better than the value head** on held-out self-play: it knows "
         "nothing measurable about the calls beyond the position, and the lambda > 0 targets "
         "below mix the true-deal values with noise (their gate is then no test of the "
         "transferable target, only of this head)."))


def gate_decision(gate0: dict, lam_records: dict, q_rec: dict | None) -> str:
  """The gate's answer by the reading rule, over lambda = 0 and the lambda > 0 records.

  Args:
    gate0: the lambda = 0 record (`gate.json`).
    lam_records: lambda -> its record (`gate_lam<lambda>.json`).
    q_rec: the Q head's record (`q_head.json`), or None.
  """
  def verdicts(rec):
    return {_verdict(s["infoset"]) for a, s in rec["summary"].items() if a != "random"}

  above = [lam for lam, rec in sorted(lam_records.items()) if verdicts(rec) == {"above 0"}]
  zero = verdicts(gate0)
  per = ", ".join(f"lambda = {lam}: " + " / ".join(
      f"{GATE_NAMES.get(a, a)} {_ci(s['infoset'])}" for a, s in rec["summary"].items()
      if a != "random") for lam, rec in sorted(lam_records.items()))
  if not lam_records:
    return "The lambda > 0 gate has not run."
  q_note = ""
  if q_rec is not None and not q_head_useful(q_rec):
    q_note = (" The Q head is no better than the value head on held-out self-play, so the "
              "lambda > 0 arms test this head, not the transferable target in general.")
  if above:
    best = max(above, key=lambda lam: lam_records[lam]["summary"]["jps"][
        "infoset_per_searched_decision"]["mean"])
    return (f"**Gate: the study's target is lambda = {best}** (its changed calls gain on the "
            f"searcher's view, every search arm's interval above 0; {per})." + q_note)
  if zero == {"above 0"}:
    return ("**Gate: the study's target is lambda = 0** (the true-deal changes gain on the "
            f"searcher's view; lambda > 0: {per}).")
  return ("**Gate: no target gains on the searcher's view** (lambda = 0: "
          + " / ".join(sorted(zero)) + f"; {per}). By the reading rule distilling the search "
          "is likely to hurt and only scale remains: the study's JPS arm plays the searched "
          "calls (A2C learns from them) and distils nothing, so it tests what the paper's "
          "Table 3 tests, JPS played in self-play at scale." + q_note)


def churn_section(rec: dict) -> str:
  """Markdown of the churn record (`churn.json`): greedy calls changed, per pair of models."""
  lines = [f"Record `churn.json`: greedy calls that differ between a model and its start on "
           f"the start's fixed positions ({rec['deals']} validation deals, seed 0), commit "
           f"`{rec['commit']}`, {rec['date']}.", "",
           "| model | start | what | positions | greedy calls changed |", "|---|---|---|---|---|"]
  for row in rec["pairs"].values():
    lines.append(f"| `{row['model']}` | `{row['start']}` | {row['what']} | "
                 f"{row['positions']:,} | {row['changed']:.1%} |")
  return "\n".join(lines)


def _lineage_rows(rec: dict) -> list[str]:
  """One table row per lineage of a study record: progress, leader, movement."""
  panel = (rec.get("panel_available") or rec["settings"]["panel"])[0]
  end = rec["settings"]["schedule"][-1][0]
  rows = []
  for name in sorted(rec.get("lineages", {}) | rec.get("progress", {})):
    lin = rec.get("lineages", {}).get(name, {})
    snaps = lin.get("snapshots", {})
    lead = lin.get("leader")
    best = snaps[lead] if lead else None
    moved = sum(1 for x in snaps.values() if x["moved"])
    if best is None:
      rows.append(f"| `{name}` | {rec.get('progress', {}).get(name, 0):,} of {end:,} | - | - | "
                  f"- | - | 0 of 0 |")
      continue
    v = best["movement"]["validation"]
    rows.append(
        f"| `{name}` | {rec['progress'].get(name, 0):,} of {end:,} | `{lead}` | "
        f"{best['panel'][panel]:+.3f} | {v['mean']:+.3f} [{v['ci95'][0]:+.3f}, "
        f"{v['ci95'][1]:+.3f}] | {best['movement']['changed']:.1%} | {moved} of {len(snaps)} |")
  return rows


def lineages_section(rec: dict, name: str) -> str:
  """Markdown of a study record's lineages (the power check's or the study's)."""
  st = rec["settings"]
  panel = (rec.get("panel_available") or st["panel"])[0]
  sched = ", ".join(f"lr {lr:g} to round {e:,}" for e, lr in st["schedule"])
  command = re.sub(r"--(workdir|reference_dir)(=|\s+)\S+", lambda m: f"--{m.group(1)} "
                   + m.group(1).upper(), rec.get("command", "-"))
  lines = [f"Record `{name}`: from `{st['start']}`, arms {', '.join(st['arms'])}, seeds "
           f"{', '.join(str(x) for x in st['seeds'])}; {sched} (rounds after the start); "
           f"snapshots every {st['snapshot_every']:,} rounds, each scored on "
           f"{st['select_boards']:,} validation boards. Command: `{command}`.",
           "",
           f"| lineage | rounds | validation leader | leader vs `{panel}` (IMPs/b) | leader vs "
           f"the start [95%] | greedy calls changed | snapshots moved |",
           "|---|---|---|---|---|---|---|"]
  lines += _lineage_rows(rec)
  power = rec.get("power")
  if power:
    need = power["seeds_needed"]
    lines += ["", f"Spread between seeds of the plain leaders (vs `{power['plain_leaders_vs']}`"
              f", validation, board noise included): standard deviation "
              f"{power['sd_between_seeds']:.3f} IMPs/b over {len(power['scores'])} lineages; "
              f"a paired effect's standard deviation taken as sqrt(2) times that, "
              f"{power['sd_paired_effect']:.3f}; seeds for a 95% t interval of half-width "
              f"at most 0.15: {need if need is not None else 'more than 100'}."]
  if rec.get("stopped"):
    lines += ["", f"**Stopped**: {rec['stopped']}."]
  for arm, eff in rec.get("effect", {}).items():
    lo, hi = eff["ci95"]
    lines += ["", f"**{arm}**: {eff['mean']:+.3f} IMPs/b [{lo:+.3f}, {hi:+.3f}] "
              f"({eff['method']}): {eff['decision']}."]
  return "\n".join(lines)


def lam_records(folder: str = HERE) -> dict:
  """lambda -> the file name of each `gate_lam<lambda>.json` of `folder`."""
  out = {}
  for name in sorted(os.listdir(folder)):
    m = re.fullmatch(r"gate_lam([0-9.]+)\.json", name)
    if m:
      out[float(m.group(1))] = name
  return out


def _interval(x) -> dict:
  n = len(x)
  if n < 2:
    return {"n": n}
  m = sum(x) / n
  se = (sum((v - m) ** 2 for v in x) / (n - 1) / n) ** 0.5
  return {"n": n, "mean": m, "ci95": [m - 1.96 * se, m + 1.96 * se]}


def replace_between(text: str, tag: str, body: str) -> str:
  """`text` with the part between the markers of `tag` replaced by `body`."""
  pattern = re.compile(rf"(<!-- {tag}:begin -->\n).*?(\n<!-- {tag}:end -->)", re.S)
  if not pattern.search(text):
    raise ValueError(f"README.md has no <!-- {tag}:begin/end --> markers")
  return pattern.sub(lambda m: m.group(1) + body + m.group(2), text)


def main(argv):
  """Rewrites the README's outcome sections from the records that exist."""
  del argv
  readme = os.path.join(HERE, "README.md")
  with open(readme, encoding="utf-8") as f:
    text = f.read()
  cost = os.path.join(HERE, "search_cost.json")
  if os.path.exists(cost):
    with open(cost, encoding="utf-8") as f:
      text = replace_between(text, "search_cost", cost_section(json.load(f)))
  prof = os.path.join(HERE, "search_profile.json")
  if os.path.exists(prof):
    with open(prof, encoding="utf-8") as f:
      text = replace_between(text, "search_profile", profile_section(json.load(f)))
  for tag, name in (("gate", "gate.json"), ("gate_dds", "gate_dds.json")):
    path = os.path.join(HERE, name)
    if os.path.exists(path):
      text = replace_between(text, tag, gate_section(atomic_io.read_json(path, "gate record"),
                                                     name))
  churn = os.path.join(HERE, "churn.json")
  if os.path.exists(churn):
    text = replace_between(text, "churn", churn_section(atomic_io.read_json(churn, "churn")))
  q_path = os.path.join(HERE, "q_head.json")
  q_rec = atomic_io.read_json(q_path, "Q head record") if os.path.exists(q_path) else None
  if q_rec is not None:
    text = replace_between(text, "q_head", q_head_section(q_rec))
  lams = {}
  for lam, name in lam_records().items():
    lams[lam] = atomic_io.read_json(os.path.join(HERE, name), "gate record")
    text = replace_between(text, f"gate_lam{lam}", gate_section(lams[lam], name))
  if lams:
    text = replace_between(text, "gate_decision", gate_decision(
        atomic_io.read_json(os.path.join(HERE, "gate.json"), "gate record"), lams, q_rec))
  for tag, name in (("power", "power/record.json"), ("study", "record.json")):
    path = os.path.join(HERE, name)
    if os.path.exists(path):
      text = replace_between(text, tag, lineages_section(
          atomic_io.read_json(path, "study record"), name))
  atomic_io.write_text(readme, text)
  print(f"wrote {readme}")


if __name__ == "__main__":
  app.run(main)
