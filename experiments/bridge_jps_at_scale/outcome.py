r"""Renders the outcome sections of this folder's README.md from its records.

  python experiments/bridge_jps_at_scale/outcome.py

Replaces the text between ``<!-- search_cost:begin -->`` and ``<!-- search_cost:end -->``
(from ``search_cost.json``, written by ``benchmarks/bridge_jps_search_cost.py``) and between
``<!-- gate:begin -->`` and ``<!-- gate:end -->`` (from ``gate.json``, written by ``gate.py``; and
``gate_dds`` from ``gate_dds.json``, the same with exact tables on a subset),
so the README's numbers are the records' (none typed by hand).
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


def gate_answer(summary: dict) -> str:
  """The gate's answer for lambda = 0 in words, from the search arms' infoset intervals."""
  search = {a: _verdict(s["infoset"]) for a, s in summary.items() if a != "random"}
  verdicts = set(search.values())
  if verdicts == {"below 0"}:
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
  if not exact:
    lines += ["", gate_answer(rec["summary"])]
    return "\n".join(lines)
  for arm in rec["summary"]:
    diff = [r["arms"][arm]["infoset"] - r["arms"][arm]["infoset_net"] for r in rec["per_root"]
            if "infoset" in r["arms"][arm] and "infoset_net" in r["arms"][arm]]
    lines += ["", f"{GATE_NAMES.get(arm, arm)}: exact minus learned tables on the same drawn "
              f"deals, paired: {_ci(_interval(diff))} IMPs per changed call (the learned "
              "tables' error in the infoset measure)."]
  return "\n".join(lines)


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
  atomic_io.write_text(readme, text)
  print(f"wrote {readme}")


if __name__ == "__main__":
  app.run(main)
