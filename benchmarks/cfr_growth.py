r"""How the CFR solvers' cost grows with the game: size ladders up to the machine's memory.

For each game family (`FAMILIES`: leduc as universal_poker with more ranks, liars_dice with
more faces and dice, imperfect-information goofspiel with more cards, the package's team_kuhn
and team_leduc with more ranks, mini_bridge with larger hands) the ladder's rungs are climbed
smallest first, the first rung of every family, then the second of every family, and so on.
A rung builds our tree once (the harness scores every solver's average policy on it); then
each solver runs on it alone (`cfr_peers.run_game` with that one solver: its own worker
process, so that its set-up and peak memory are its own) with the one target `--target`: a
*cell*. Per cell: histories and infosets of the tree, CPU milliseconds per iteration (the
speed rounds' median with `--repeats`, else the convergence run's iterations after the
first), set-up seconds, peak resident memory and bytes per history (peak over the memory after
the imports, divided by the histories), iterations and CPU seconds to NashConv `--target`
(checked by OpenSpiel's `exploitability.nash_conv` on rungs up to
`--openspiel_check_max_histories`), or the solver's error.

Bounds of a cell: `--max_seconds` CPU seconds of iterations after the first, `--max_setup_seconds`
of set-up (wall), the workers' memory (`--max_memory_gb`; killed past it). A solver stops on
a family (it is not run on the family's larger rungs) at the first rung it fails (the error
says memory, time or what failed), whose set-up took longer than its bound, whose iteration
takes longer than `--max_iteration_seconds`, or that our tree refuses (`GameTree`'s memory
check, or its walk past `--max_tree_seconds`); the record says which and why.

Resumable: the record (`--json_out`) is rewritten after every cell (`atomic_io`); a rerun with
the same settings runs only the cells it lacks (`--rerun` starts over). `--max_minutes` bounds
one invocation: no cell starts after it, and the rungs not reached are listed in the record's
`not_run` (run the command again to go on). `--figure` draws CPU ms per iteration and bytes per
history against histories, log-log, a line per solver and family.

The page's alone run (`--ladder budget`, the default: about a factor of ten in histories per
rung, up to about a million histories; about 12 minutes on 2 cores, bounded by
`--max_minutes`) and the full ladders (hours; every rung up to the machine's memory):

  python benchmarks/cfr_growth.py --alone
  python benchmarks/cfr_growth.py --alone --ladder full --max_seconds 300 --max_minutes 0 \
      --max_setup_seconds 1800 --json_out results/speed/cfr_growth_full.json --figure ''

Usage:
  python benchmarks/cfr_growth.py --ladder smoke --json_out /tmp/growth.json --figure /tmp/g.png
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

from absl import app
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_enum("ladder", "budget", ["full", "budget", "smoke"], "full: every rung of "
                  "FAMILIES (hours); budget: the rungs of BUDGET (the page's alone run, about "
                  "12 minutes); smoke: the smallest rung of each family.")
flags.DEFINE_list("families", None, "Families to run (default: all of FAMILIES).")
flags.DEFINE_list("solvers", ["cfr_plus", "openspiel_cpp_cfr_plus", "openspiel_jax_cfr_plus",
                              "liteefg_cfr_plus"],
                  "Solvers (names of cfr_peers.SOLVERS): by default one CFR+ of each peer (our "
                  "DCFR and PCFR+ run the same traversal, within a few percent of our CFR+ per "
                  "iteration in results/speed/cfr_peers.json).")
flags.DEFINE_float("target", 1e-3, "NashConv target.")
flags.DEFINE_float("max_seconds", 5.0, "CPU seconds of a solver's iterations per rung (after "
                   "the first).")
flags.DEFINE_integer("max_iterations", 100000, "Iterations of a solver per rung at most.")
flags.DEFINE_float("max_setup_seconds", 45.0, "Wall seconds a solver's set-up may take: its "
                   "worker is killed after that and the solver stops on the family.")
flags.DEFINE_float("max_iteration_seconds", 1.0, "A solver whose iteration takes longer (CPU) "
                   "stops on the family after that rung.")
flags.DEFINE_float("max_tree_seconds", 120.0, "Seconds our tree's walk may take (the harness "
                   "scores every solver on it); past it, the family stops.")
flags.DEFINE_integer("openspiel_check_max_histories", 100000, "OpenSpiel's NashConv check "
                     "(a Python best response) runs on rungs up to this many histories.")
flags.DEFINE_float("max_memory_gb", 0.0, "Resident memory of a solver's worker (GB); over "
                   "it the worker is killed and the solver stops (0: 80% of the memory "
                   "available).")
flags.DEFINE_float("max_minutes", 12.0, "Start no cell after this many minutes (0: no bound); "
                   "a rerun of the same command resumes where this one stopped.")
flags.DEFINE_integer("repeats", 2, "Timing rounds per cell after the convergence run (0: the "
                     "ms per iteration of the convergence run's iterations after the first).")
flags.DEFINE_float("block_seconds", 0.25, "CPU seconds of a timed block.")
flags.DEFINE_bool("alone", False, "Declare that nothing else ran on the machine (recorded).")
flags.DEFINE_bool("rerun", False, "Start a new record (default: resume the record at "
                  "--json_out if its settings are these).")
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


# family -> the indices of its rungs that the budget ladder (the page's alone run) climbs: about
# a factor of ten in histories apart, up to about a million (the rungs past them and their
# stops: --ladder full, hours).
BUDGET = {
    "leduc": [0, 2, 4, 5],  # 9,457; 100,993; 518,721; 1,179,777 histories
    "liars_dice": [1, 2, 3, 5],  # 8,181; 51,181; 294,883; 663,511
    "goofspiel": [1, 2, 3],  # 1,077; 26,931; 969,523
    "team_kuhn": [0, 2, 4],  # 617; 8,465; 84,257
    "team_leduc": [0, 1, 2],  # 59,887; 223,881; 589,651
    "mini_bridge": [0, 2, 3],  # 571; 25,581; 147,427
}


def _settings() -> dict:
  """What a resumed record must share with this run (not --max_minutes, not --families)."""
  return dict(target=FLAGS.target, max_seconds=FLAGS.max_seconds, repeats=FLAGS.repeats,
              block_seconds=FLAGS.block_seconds, solvers=list(FLAGS.solvers),
              max_setup_seconds=FLAGS.max_setup_seconds,
              max_iteration_seconds=FLAGS.max_iteration_seconds,
              max_tree_seconds=FLAGS.max_tree_seconds,
              openspiel_check_max_histories=FLAGS.openspiel_check_max_histories)


def rungs_of(family: str, ladder: str) -> list[str]:
  """The rungs of `family` that `ladder` climbs ("full", "budget" or "smoke")."""
  rungs = FAMILIES[family]
  if ladder == "smoke":
    return rungs[:1]
  if ladder == "budget":
    return [rungs[i] for i in BUDGET[family]]
  return list(rungs)


def ms_per_iteration(s: dict) -> float | None:
  """A solver's CPU ms per iteration: the speed phase's median, or (without one) its
  convergence run's iterations after the first; None with a single iteration."""
  speed = s.get("speed", {}).get("cpu_ms_per_iteration")
  if speed is not None:
    return speed
  its = s.get("iterations", 0)
  if its < 2:
    return None
  return 1e3 * (s["iterations_cpu_s"] - s["first_iteration"]["cpu_s"]) / (its - 1)


def summary(s: dict, histories: int, target: float) -> dict:
  """One solver's cell of a rung (from its cfr_peers row): what the page and figure read."""
  if "error" in s:
    out = {"error": s["error"][:500]}
    if "limit" in s:
      out["limit"] = s["limit"]
    return out
  mem = s.get("memory", {})
  tt = s["to_target"].get(f"{target:g}")
  return dict(
      cpu_ms_per_iteration=ms_per_iteration(s),
      ms_source="speed rounds" if "speed" in s else "convergence run",
      setup_cpu_s=s["setup"]["setup_cpu_s"], setup_wall_s=s["setup"]["setup_wall_s"],
      peak_rss_bytes=mem.get("peak_rss_bytes"),
      bytes_per_history=(mem["peak_over_imports_bytes"] / histories
                         if mem.get("peak_over_imports_bytes") else None),
      iterations=s["iterations"], iterations_cpu_s=s["iterations_cpu_s"],
      iterations_to_target=tt and tt["iterations"], cpu_s_to_target=tt and tt["cpu_s"],
      cpu_s_to_target_after_first=tt and tt.get("cpu_s_after_first"),
      first_iteration_cpu_s=s["first_iteration"]["cpu_s"],
      final_nash_conv=s["final_nash_conv"], openspiel_agrees=s.get("openspiel_agrees"))


def stop_reason(cell: dict) -> str | None:
  """Why a solver goes no further up its family after this cell (None: it goes on)."""
  if "skipped" in cell:
    return cell["skipped"]
  if "error" in cell:
    kind = {"memory": "memory", "time": "time"}.get(cell.get("limit"), "failed")
    return f"{kind}: {cell['error'][:300]}"
  if cell["setup_cpu_s"] > FLAGS.max_setup_seconds:
    return f"set-up took {cell['setup_cpu_s']:.0f} CPU s (bound {FLAGS.max_setup_seconds:g} s)"
  ms = cell["cpu_ms_per_iteration"]
  if ms is not None and ms > 1e3 * FLAGS.max_iteration_seconds:
    return (f"time: one iteration takes {ms / 1e3:.2f} CPU s (bound "
            f"{FLAGS.max_iteration_seconds:g} s): a larger rung would leave its "
            f"{FLAGS.max_seconds:g} CPU s too few iterations")
  return None


def _tree(game: str):
  """Our tree of `game` (the harness scores every solver on it), or why it cannot be built."""
  import pyspiel

  import ospiel_team  # noqa: F401  (registers the package's games)
  from ospiel_team import errors
  from ospiel_team.tree import memory
  from ospiel_team.tree.game_tree import GameTree
  c = time.process_time()
  try:
    tree = GameTree(pyspiel.load_game(game), time_limit=FLAGS.max_tree_seconds)
  except (errors.SizeLimitError, MemoryError) as e:
    return None, f"memory: our tree (the harness's) refuses it: {str(e)[:300]}"
  except memory.WalkTimeLimitError as e:
    return None, f"time: our tree's walk (the harness's) is over its bound: {str(e)[:300]}"
  return tree, time.process_time() - c


def figure(record: dict, path: str) -> None:
  """Log-log against histories: CPU ms per iteration, and peak bytes per history; a line per
  (family, solver)."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
  solvers = record["settings"]["solvers"]
  colors = {s: f"C{i}" for i, s in enumerate(solvers)}
  markers = dict(zip(FAMILIES, "osD^v<>", strict=False))
  for ax, key, label in ((axes[0], "cpu_ms_per_iteration", "CPU ms per iteration"),
                         (axes[1], "bytes_per_history",
                          "peak memory over the imports, bytes per history")):
    for fam, rungs in record["families"].items():
      for s in solvers:
        pts = [(r["histories"], r["solvers"][s][key]) for r in rungs
               if "histories" in r and (r.get("solvers", {}).get(s) or {}).get(key)]
        if pts:
          xs, ys = zip(*pts, strict=True)
          ax.plot(xs, ys, color=colors[s], marker=markers.get(fam, "o"), lw=1, ms=4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("histories")
    ax.set_ylabel(label)
    ax.grid(True, which="both", alpha=0.3)
  for s in solvers:
    axes[0].plot([], [], color=colors[s], label=s)
  for fam in record["families"]:
    axes[0].plot([], [], color="gray", marker=markers.get(fam, "o"), ls="", label=fam)
  axes[0].legend(fontsize=7, ncol=2)
  state = "alone" if record["alone"] else "under load, not alone"
  fig.suptitle(f"CFR cost against game size ({record.get('ladder', 'full')} ladder): {state}",
               fontsize=10)
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
    checks.check_real("--max_minutes", FLAGS.max_minutes, minimum=0)
    record = None if FLAGS.rerun else cfr_peers.stored_record(
        FLAGS.json_out, alone=FLAGS.alone, ladder=FLAGS.ladder, settings=_settings())
  except errors.OspielTeamError as e:
    print(f"cfr_growth.py: {e}", file=sys.stderr)
    sys.exit(2)
  if record is None:
    record = {"command": cfr_peers.command_line(), "commit": cfr_peers.commit_label(),
              "machine": cfr_peers.machine(), "alone": FLAGS.alone, "ladder": FLAGS.ladder,
              "settings": _settings(), "families": {}, "stopped": {}}
  else:
    record.setdefault("resumed", []).append(
        {"command": cfr_peers.command_line(), "commit": cfr_peers.commit_label(),
         "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())})
  ran = climb(record, families, cfr_peers)
  if ran or "resumed" not in record or not os.path.exists(FLAGS.json_out):
    record["date_utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
  else:  # nothing run: the record stays as it was (its not_run recomputed)
    record["resumed"].pop()
    if not record["resumed"]:
      del record["resumed"]
  atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
  if FLAGS.figure:
    figure(record, FLAGS.figure)
  left = sum(len(v) for v in record["not_run"].values())
  print(f"cfr_growth.py: {FLAGS.json_out} written"
        + (f"; {left} rungs not run (the time budget): run the same command again to resume"
           if left else ""), file=sys.stderr)


def climb(record: dict, families: list[str], cfr_peers) -> int:
  """Runs the cells (rung, solver) the record lacks, smallest rungs of every family first.

  Writes the record after every cell; stops starting cells after --max_minutes, and lists
  the rungs it did not reach in record["not_run"]. Returns the number of cells run.
  """
  from ospiel_team import atomic_io
  from ospiel_team.tree import memory
  start = time.monotonic()
  bound = (int(FLAGS.max_memory_gb * 2**30) if FLAGS.max_memory_gb
           else cfr_peers.default_memory_bound())
  ladders = {f: rungs_of(f, FLAGS.ladder) for f in families}
  over, ran = False, 0
  for k in range(max(len(r) for r in ladders.values())):
    for fam in families:
      if over or k >= len(ladders[fam]):
        continue
      game = ladders[fam][k]
      stopped = record["stopped"].setdefault(fam, {})
      entries = record["families"].setdefault(fam, [])
      entry = next((e for e in entries if e["game"] == game), None)
      todo = [s for s in FLAGS.solvers if s not in stopped
              and (entry is None or s not in entry.get("solvers", {}))]
      if not todo or (entry is not None and "error" in entry):
        continue
      if FLAGS.max_minutes and time.monotonic() - start > 60 * FLAGS.max_minutes:
        over = True
        continue
      load = [round(x, 2) for x in os.getloadavg()]
      tree, built = _tree(game)
      if entry is None:
        entry = {"game": game, "load_before": load}
        entries.append(entry)
      if tree is None:  # every solver stops here: nothing can score them
        entry["error"] = built
        ran += 1
        for s in todo:
          stopped[s] = {"at": game, "why": built}
      else:
        entry.update(histories=int(tree.num_nodes), infosets=int(tree.num_infosets),
                     tree_build_cpu_s=built, available_memory_bytes=memory.available_memory())
        entry.setdefault("solvers", {})
        for s in todo:
          if FLAGS.max_minutes and time.monotonic() - start > 60 * FLAGS.max_minutes:
            over = True
            break
          cell_load = round(os.getloadavg()[0], 2)
          try:
            with tempfile.TemporaryDirectory(prefix="cfr_growth_") as tmp:
              row = cfr_peers.run_game(
                  game, [s], targets=[FLAGS.target], max_iterations=FLAGS.max_iterations,
                  max_seconds=FLAGS.max_seconds, repeats=FLAGS.repeats,
                  block_seconds=FLAGS.block_seconds, openspiel_check=True, workdir=tmp,
                  tree=tree, max_setup_seconds=FLAGS.max_setup_seconds,
                  max_worker_bytes=bound,
                  openspiel_check_max_histories=FLAGS.openspiel_check_max_histories,
                  log=lambda m: print(m, file=sys.stderr))
          except Exception as e:  # noqa: BLE001  (the harness failed on this cell: recorded)
            row = {"solvers": {s: {"error": f"the harness: {type(e).__name__}: {e}"}},
                   "skipped": {}}
          if s in row["skipped"]:
            cell = {"skipped": row["skipped"][s]}
          else:
            cell = summary(row["solvers"][s], entry["histories"], FLAGS.target)
          if "openspiel_check_skipped" in row:
            cell["openspiel_check_skipped"] = row["openspiel_check_skipped"]
          cell["load"] = [cell_load, round(os.getloadavg()[0], 2)]
          entry["solvers"][s] = cell
          ran += 1
          why = stop_reason(cell)
          if why:
            stopped[s] = {"at": game, "why": why}
          entry["load_after"] = [round(x, 2) for x in os.getloadavg()]
          atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
          print(f"{fam}: {game} {s} done (load {cell['load'][0]} -> {cell['load'][1]})",
                file=sys.stderr)
      entry["load_after"] = [round(x, 2) for x in os.getloadavg()]
      del tree
      atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
  record["not_run"] = {}
  for fam in families:
    st = record["stopped"].get(fam, {})
    entries = {e["game"]: e for e in record["families"].get(fam, [])}
    left = [g for g in ladders[fam]
            if "error" not in entries.get(g, {})
            and any(s not in st and s not in entries.get(g, {}).get("solvers", {})
                    for s in FLAGS.solvers)]
    if left:
      record["not_run"][fam] = left
  return ran


if __name__ == "__main__":
  app.run(main)
