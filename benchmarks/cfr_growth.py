r"""How the CFR solvers' cost grows with the game: size ladders up to the machine's memory.

For each game family (`FAMILIES`: leduc as universal_poker with more ranks, liars_dice with
more faces and dice, imperfect-information goofspiel with more cards, the package's team_kuhn
and team_leduc with more ranks, mini_bridge with larger hands) the rungs are run one after the
other, each by `benchmarks/cfr_peers.py` in a subprocess (one more subprocess per solver, so
that a solver's set-up and peak memory are its own) with the one target `--target`:
histories and infosets of the tree, and per solver CPU milliseconds per iteration, set-up
seconds, peak resident memory and bytes per history (peak over the memory after the imports,
divided by the histories), iterations and CPU seconds to NashConv `--target` (checked by
OpenSpiel's `exploitability.nash_conv` on the final policy), or the solver's error.

A solver stops on a family (it is not run on the family's larger rungs) at the first rung it
fails (the error, e.g. out of memory, is recorded), whose set-up took more than
`--max_setup_seconds`, or that our tree refuses before its walk (`GameTree`'s memory check:
more histories than fit in 75% of the available memory); the record says which and why. A
rung runs at most `--max_seconds` CPU seconds of iterations per solver.

The record (`--json_out`) is rewritten after every rung (`ospiel_team.atomic_io`): a rerun
with the same settings skips the rungs it holds (resume). `--figure` draws CPU ms per
iteration against histories, log-log, a line per solver and family.

The alone run of the page (hours; the machine otherwise idle):

  python benchmarks/cfr_growth.py --alone

Usage:
  python benchmarks/cfr_growth.py --ladder smoke --json_out /tmp/growth.json --figure /tmp/g.png
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from absl import app
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_enum("ladder", "full", ["full", "smoke"], "full: every rung; smoke: the smallest "
                  "rung of each family.")
flags.DEFINE_list("families", None, "Families to run (default: all of FAMILIES).")
flags.DEFINE_list("solvers", ["cfr_plus", "dcfr", "pcfr_plus", "openspiel_cpp_cfr_plus",
                              "openspiel_jax_cfr_plus", "liteefg_cfr_plus", "liteefg_dcfr"],
                  "Solvers (names of cfr_peers.SOLVERS).")
flags.DEFINE_float("target", 1e-3, "NashConv target.")
flags.DEFINE_float("max_seconds", 300.0, "CPU-second cap of a solver's iterations per rung.")
flags.DEFINE_float("max_setup_seconds", 1800.0, "A solver whose set-up takes longer stops.")
flags.DEFINE_integer("repeats", 3, "Timing rounds per rung.")
flags.DEFINE_float("block_seconds", 0.5, "CPU seconds of a timed block.")
flags.DEFINE_bool("alone", False, "Declare that nothing else ran on the machine (recorded).")
flags.DEFINE_string("json_out", "results/speed/cfr_growth.json", "Where the record goes.")
flags.DEFINE_string("figure", "docs/img/cfr_growth.png", "Where the figure goes ('' for none).")

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(_HERE)


def _leduc(ranks: int) -> str:
  """Leduc hold'em with `ranks` ranks of two suits, as universal_poker (OpenSpiel's leduc
  betting: two rounds, raises of 2 then 4, at most two per round)."""
  return ("universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
          f"firstPlayer=1 1,maxRaises=2 2,numSuits=2,numRanks={ranks},numHoleCards=1,"
          "numBoardCards=0 1)")


def _goofspiel(cards: int) -> str:
  return ("turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards="
          f"{cards},points_order=descending))")


# family -> its rungs (game strings), smallest first.
FAMILIES = {
    "leduc": [_leduc(r) for r in (3, 4, 6, 8, 10, 13)],
    "liars_dice": [f"liars_dice(numdice={d},dice_sides={s})"
                   for d, s in ((1, 3), (1, 4), (1, 5), (1, 6), (2, 2), (2, 3), (2, 4), (2, 5))],
    "goofspiel": [_goofspiel(c) for c in (3, 4, 5, 6, 7)],
    "team_kuhn": [f"team_kuhn(ranks={r})" for r in (4, 6, 8, 12, 16)],
    "team_leduc": [f"team_leduc(ranks={r})" for r in (3, 4, 5)],
    "mini_bridge": [f"mini_bridge(size={s})" for s in (2, 3, 4, 5)],
}


def _settings() -> dict:
  return dict(target=FLAGS.target, max_seconds=FLAGS.max_seconds, repeats=FLAGS.repeats,
              block_seconds=FLAGS.block_seconds, solvers=list(FLAGS.solvers))


def _run_rung(game: str, solvers: list[str], tmp: str) -> dict:
  """One cfr_peers.py run of `game` with `solvers`; its record's row (or the failure)."""
  out = os.path.join(tmp, "rung.json")
  cmd = [sys.executable, os.path.join(_HERE, "cfr_peers.py"), "--games=" + game,
         "--solvers=" + ",".join(solvers), f"--targets={FLAGS.target}",
         f"--max_seconds={FLAGS.max_seconds}", f"--repeats={FLAGS.repeats}",
         f"--block_seconds={FLAGS.block_seconds}", "--json_out=" + out, "--figure="]
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(
      p for p in [_REPO, os.environ.get("PYTHONPATH", "")] if p))
  res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
  if res.returncode != 0:
    return {"game": game, "error": res.stderr[-2000:]}
  with open(out, encoding="utf-8") as f:
    return json.load(f)["rows"][0]


def _summary(row: dict) -> dict:
  """The rung's figures per solver: what the page and the figure read."""
  out = {}
  hist = row["tree"]["histories"]
  for name, s in row["solvers"].items():
    if "error" in s:
      out[name] = {"error": s["error"][:500]}
      continue
    mem = s.get("memory", {})
    tt = s["to_target"].get(f"{FLAGS.target:g}")
    out[name] = dict(
        cpu_ms_per_iteration=s.get("speed", {}).get("cpu_ms_per_iteration"),
        setup_cpu_s=s["setup"]["setup_cpu_s"], peak_rss_bytes=mem.get("peak_rss_bytes"),
        bytes_per_history=(mem["peak_over_imports_bytes"] / hist
                           if mem.get("peak_over_imports_bytes") else None),
        iterations_to_target=tt and tt["iterations"], cpu_s_to_target=tt and tt["cpu_s"],
        cpu_s_to_target_after_first=tt and tt.get("cpu_s_after_first"),
        first_iteration_cpu_s=s["first_iteration"]["cpu_s"],
        final_nash_conv=s["final_nash_conv"], openspiel_agrees=s.get("openspiel_agrees"))
  for name, why in row.get("skipped", {}).items():
    out[name] = {"skipped": why}
  return out


def figure(record: dict, path: str) -> None:
  """CPU ms per iteration against histories, log-log: a line per (family, solver)."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, ax = plt.subplots(figsize=(8, 5.5))
  solvers = record["settings"]["solvers"]
  colors = {s: f"C{i}" for i, s in enumerate(solvers)}
  markers = dict(zip(FAMILIES, "osD^v<>", strict=False))
  for fam, rungs in record["families"].items():
    for s in solvers:
      pts = [(r["histories"], r["solvers"][s]["cpu_ms_per_iteration"]) for r in rungs
             if "histories" in r and r["solvers"].get(s, {}).get("cpu_ms_per_iteration")]
      if pts:
        xs, ys = zip(*pts, strict=True)
        ax.plot(xs, ys, color=colors[s], marker=markers.get(fam, "o"), lw=1, ms=4)
  for s in solvers:
    ax.plot([], [], color=colors[s], label=s)
  for fam in record["families"]:
    ax.plot([], [], color="gray", marker=markers.get(fam, "o"), ls="", label=fam)
  ax.set_xscale("log")
  ax.set_yscale("log")
  ax.set_xlabel("histories")
  ax.set_ylabel("CPU ms per iteration")
  state = "alone" if record["alone"] else "under load, not alone"
  ax.set_title(f"CFR cost against game size: {state}")
  ax.legend(fontsize=7, ncol=2)
  ax.grid(True, which="both", alpha=0.3)
  fig.tight_layout()
  from ospiel_team import atomic_io
  atomic_io.write_with(path, lambda f: fig.savefig(f, format="png", dpi=110), suffix=".png")
  plt.close(fig)


def main(argv):
  del argv
  sys.path.insert(0, _HERE)
  import cfr_peers

  from ospiel_team import atomic_io
  from ospiel_team import checks
  from ospiel_team import errors
  families = FLAGS.families or list(FAMILIES)
  try:  # a bad flag is one line and exit status 2
    atomic_io.check_writable(FLAGS.json_out, flag="--json_out")
    for f in families:
      checks.check_choice("--families", f, tuple(FAMILIES))
    for s in FLAGS.solvers:
      checks.check_choice("--solvers", s, tuple(cfr_peers.SOLVERS))
  except errors.UserError as e:
    print(f"cfr_growth.py: {e}", file=sys.stderr)
    sys.exit(2)
  settings = _settings()
  record = None
  if os.path.exists(FLAGS.json_out):
    old = atomic_io.read_json(FLAGS.json_out, "growth record")
    if old.get("settings") == settings:
      record = old
  if record is None:
    record = {"command": cfr_peers.command_line(), "commit": cfr_peers.commit_label(),
              "machine": cfr_peers.machine(),
              "alone": FLAGS.alone, "settings": settings, "families": {}, "stopped": {}}
  record["date_utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
  from ospiel_team.tree import memory
  for fam in families:
    rungs = FAMILIES[fam][:1] if FLAGS.ladder == "smoke" else FAMILIES[fam]
    done = {r["game"] for r in record["families"].get(fam, [])}
    stopped = record["stopped"].setdefault(fam, {})
    for game in rungs:
      if game in done:
        continue
      solvers = [s for s in FLAGS.solvers if s not in stopped]
      if not solvers:
        break
      load_before = [round(x, 2) for x in os.getloadavg()]
      with tempfile.TemporaryDirectory(prefix="cfr_growth_") as tmp:
        row = _run_rung(game, solvers, tmp)
      entry = {"game": game, "load_before": load_before,
               "load_after": [round(x, 2) for x in os.getloadavg()]}
      if "error" in row:  # our tree refused it, or the run failed as a whole
        entry["error"] = row["error"]
        why = ("memory: our tree refuses it before its walk" if "memory" in row["error"].lower()
               or "SizeLimit" in row["error"] else "the rung failed: " + row["error"][-200:])
        for s in solvers:
          stopped[s] = {"at": game, "why": why}
      else:
        entry.update(histories=row["tree"]["histories"], infosets=row["tree"]["infosets"],
                     tree_build_cpu_s=row["tree"]["build_cpu_s"], solvers=_summary(row),
                     available_memory_bytes=memory.available_memory())
        for s, v in entry["solvers"].items():
          if "error" in v:
            stopped[s] = {"at": game, "why": "failed: " + v["error"][:200]}
          elif "skipped" in v:
            stopped[s] = {"at": game, "why": v["skipped"]}
          elif v["setup_cpu_s"] > FLAGS.max_setup_seconds:
            stopped[s] = {"at": game, "why": f"set-up took {v['setup_cpu_s']:.0f} CPU s"}
      record["families"].setdefault(fam, []).append(entry)
      atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
      print(f"{fam}: {game} done (load {load_before[0]} -> {entry['load_after'][0]})",
            file=sys.stderr)
  atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
  if FLAGS.figure:
    figure(record, FLAGS.figure)


if __name__ == "__main__":
  app.run(main)
