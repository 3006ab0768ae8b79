"""The speed page (docs/results/speed.md) and the speed figures other pages quote.

Records in `results/speed/`: `cfr_solvers.json` (`benchmarks/cfr_solvers.py`),
`native_kernels.json` (`benchmarks/native_kernels.py`), `jps_speed.json`
(`benchmarks/jps_speed.py`), `game_tree_speed.json` (`benchmarks/game_tree_speed.py
--json_out`), `ed_step_time.json` (`benchmarks/ed_step_time.py --json_out`) and the two tables
before the core refactor (`before_core_refactor/`); no ratio is typed by hand.
"""

import os

from render import common

GAME_TREE = "speed/game_tree_speed.json"
ED_STEP = "speed/ed_step_time.json"
JPS = "speed/jps_speed.json"
KERNELS_RECORD = "speed/native_kernels.json"
SOLVERS_RECORD = "speed/cfr_solvers.json"

SOLVERS = {"openspiel_cpp_cfr_plus": "OpenSpiel C++ CFR+", "cfr_plus": "CFR+",
           "dcfr": "DCFR", "pcfr_plus": "PCFR+", "pdcfr_plus": "PDCFR+"}
KERNELS = {
    "cfr_leduc": "CFR, leduc_poker (batch of {cfr_batch}, {cfr_iterations} iterations)",
    "cfr_mini_bridge5": "CFR, mini_bridge(size=5) (batch of {cfr_batch}, {cfr_tenth} iterations)",
    "jps_simple_bidding16": "JPS search, simple_bidding(size=16)",
    "dag_21L153": "belief DAG, 21L153 ({dag_iterations} iterations)",
    "bb_simple_bidding": "branch and bound, simple_bidding(size={bb_size})",
}


def _kernel_label(row: str, settings: dict) -> str:
  """The row's label with its settings (mini_bridge runs a tenth of the CFR iterations)."""
  tenth = max(1, settings["cfr_iterations"] // 10)
  return KERNELS.get(row, row).format(cfr_tenth=tenth, **settings)


def _short(commit: str | None) -> str:
  if not commit:
    return "not recorded"
  head, _, rest = commit.partition("+")
  return head[:7] + ("+" + rest if rest else "")


def _load_range(before, after) -> str:
  """'a-b': the 1-minute load averages before and after a run."""
  first = before[0] if isinstance(before, list) else before
  last = after[0] if isinstance(after, list) else after
  return f"{common.num(first, 2)}-{common.num(last, 2)}"


def _command(record: dict) -> str:
  command = record.get("command")
  if isinstance(command, list):
    command = " ".join(command)
  return common.runnable(command) or "not recorded"


# Array game tree, ED step and JPS search against OpenSpiel.

def game_tree_ratio(with_game: bool = False) -> str:
  """Value + NashConv on the array tree: OpenSpiel's best time over ours ('171x').

  Args:
    with_game: append the record's game ('171x on leduc_poker').

  Returns:
    The ratio of the best times.
  """
  rec = common.load(GAME_TREE)
  return f"{common.num(rec['ratio_best'], 0)}x" + (f" on {rec['game']}" if with_game else "")


def ed_step_ratio() -> str:
  """OpenSpiel's nash_conv time over one neural ED step on leduc_poker."""
  rec = common.load(ED_STEP)
  return f"{common.num(rec['ratio_openspiel_nash_conv_to_neural_step'], 0)}x"


def jps_min_speedup() -> str:
  """The JPS search's smallest speed-up over brute force per search ('158x')."""
  return f"{common.num(common.load(JPS)['min_speedup'], 0)}x"


def against_openspiel_table() -> str:
  """The array tree, a neural ED step and the JPS search against their reference."""
  rows, notes = [], []
  tree = common.load(GAME_TREE)
  rows.append([f"value + NashConv, {tree['game']}",
               f"{common.num(tree['ours_best_s'] * 1e3, 2)} ms",
               f"OpenSpiel `policy_value` + `nash_conv`: "
               f"{common.num(tree['openspiel_best_s'] * 1e3, 3, sig=True)} ms",
               f"**{game_tree_ratio()}**"])
  notes.append((GAME_TREE, tree))
  step = common.load(ED_STEP)
  rows.append([f"one neural ED step, {step['game']} (MLP {step['hidden']}, float64)",
               f"{common.num(step['neural_ed_x64']['median_ms'], 2)} ms",
               f"OpenSpiel `nash_conv` alone: "
               f"{common.num(step['openspiel_nash_conv_ms'], 3, sig=True)} ms",
               f"**{ed_step_ratio()}**"])
  notes.append((ED_STEP, step))
  jps = common.load(JPS)
  rows.append([f"JPS search, {jps['game']}, D = {jps['depth']} ({jps['iterations']} searches)",
               f"{common.num(jps['total_jps_seconds'], 2)} s in all",
               f"brute force on the same candidates, estimated: "
               f"{common.num(jps['total_brute_force_seconds'], 0)} s (est.)",
               f"**{jps_min_speedup()}** min, {common.num(jps['median_speedup'], 0)}x median "
               "(est.)"])
  notes.append((JPS, jps))
  text = common.md_table(["what", "ours", "reference", "ratio"], rows, "lrrr")
  return (text + "\n\n" + against_openspiel_includes() + " " + jps_estimate() + "\n\n"
          + "\n".join(_note(name, rec) for name, rec in notes))


def against_openspiel_includes() -> str:
  """What each row's times of the table against OpenSpiel include (all wall clock)."""
  tree, step, jps = common.load(GAME_TREE), common.load(ED_STEP), common.load(JPS)
  return (f"What the times include (wall clock): value + NashConv, the best of "
          f"{tree['repeats']} repetitions of `evaluation.game_value` + `evaluation.nash_conv` "
          f"on a tree built beforehand (the tree walk, "
          f"{common.num(tree['tree_build_s'] * 1e3, 0)} ms once, not included), against "
          f"OpenSpiel's functions on the game; the ED step, the median of {step['steps']} steps "
          f"after compilation (compiling, {common.num(step['neural_ed_x64']['compile_s'], 1)} "
          f"s once, not included), against OpenSpiel's `nash_conv` of that step's policy; the "
          f"JPS row, the searches alone (the {common.thousands(jps['cfr_iterations'])} CFR "
          f"iterations before them, {common.num(jps['cfr_seconds'], 1)} s, not included).")


def jps_estimate() -> str:
  """How the JPS row's brute-force time is estimated (it is not measured in full)."""
  jps = common.load(JPS)
  sampled = sorted({s["brute_force_sampled"] for s in jps["searches"]})
  counts = [s["candidates"] for s in jps["searches"]]
  return (f"The JPS row's brute-force time and ratios are estimates (est.): each search's "
          f"candidates ({common.thousands(min(counts))} to {common.thousands(max(counts))} per "
          f"search) were not all evaluated; at most {max(sampled)} of them (all of a search "
          f"with fewer), drawn at random, were timed, and "
          f"their mean time per candidate is multiplied by the search's number of candidates "
          f"(`benchmarks/jps_speed.py --sample`; `--sample 0` times them all). The sampled "
          f"values agree with the search's (largest difference {_max_error(jps):.0e}).")


def _max_error(jps: dict) -> float:
  return max(s["max_abs_error"] for s in jps["searches"])


# Whether a timing ran alone: a run's own process keeps the 1-minute load average near 1 on
# the 2-core machine; above this, other jobs shared the cores.
ALONE_LOAD = 1.5


def _one_minute(load) -> float:
  return float(load[0] if isinstance(load, list) else load)


def _load_words(loads: list, cores: int = 2) -> str:
  """'alone on the machine (1-minute load 0.51-0.55 on 2 cores)' or 'not alone (...)'."""
  lo, hi = min(map(_one_minute, loads)), max(map(_one_minute, loads))
  span = f"1-minute load average {common.num(lo, 2)}-{common.num(hi, 2)} on {cores} cores"
  if hi <= ALONE_LOAD:
    return f"alone on the machine ({span})"
  return f"not alone: other jobs shared the machine ({span}; the run alone keeps it near 1)"


def against_openspiel_loads() -> str:
  """Which rows of the table against OpenSpiel ran alone, from their records' loads."""
  tree, step, jps = common.load(GAME_TREE), common.load(ED_STEP), common.load(JPS)
  first = _load_words([tree["load_before"], tree["load_after"], step["load_before"],
                       step["load_after"]])
  return (f"The array-tree and ED-step rows were timed {first}; the JPS row was timed not "
          f"alone: other jobs shared the machine (1-minute load average "
          f"{jps['load_average_1min']} on {jps['machine']['cores']} cores).")


def cfr_solvers_load() -> str:
  """Whether the CFR solver run was alone, from its rows' loads."""
  rows = common.load(SOLVERS_RECORD)["rows"]
  return _load_words([x for r in rows for x in (r["load_before"], r["load_after"])])


def refactor_loads() -> str:
  """The loads of the four runs the before/after table compares."""
  kernels_before = common.load(f"{BEFORE}/native_kernels.json")["rows"]
  kernels_after = common.load(KERNELS_RECORD)["rows"]
  solvers_after = common.load(SOLVERS_RECORD)["rows"]

  def loads(rows):
    return [x for r in rows for x in (r["load_before"], r["load_after"])]
  return (f"the kernels before {_load_words(loads(kernels_before))}, after "
          f"{_load_words(loads(kernels_after))}; the CFR solvers after "
          f"{_load_words(loads(solvers_after))}")


def ab_load() -> str:
  """The A/B's load, from its rows' records."""
  rows = common.load(AB)["rows"]
  return _load_words([x for r in rows for x in (r["load_before"], r["load_after"])])


def _note(name: str, rec: dict) -> str:
  """One bullet: a row's record with its command, commit, date and load."""
  if name == JPS:
    date, load = rec.get("date_utc"), rec.get("load_average_1min")
  else:
    date = rec.get("date", "")[:16].replace("T", " ")
    load = _load_range(rec["load_before"], rec["load_after"])
  commit = f"`{_short(rec.get('commit'))}`"
  if rec.get("uncommitted_package_changes"):
    commit += " with uncommitted package changes"
  return (f"- `results/{name}`: `{_command(rec)}`; commit {commit}; "
          f"{date} UTC; load average {load}.")


# Native kernels: numba against C.

def native_kernels_table() -> str:
  """Median CPU seconds of the C and numba kernels per row, their ratio, compile, load."""
  rec = common.load(KERNELS_RECORD)
  rows = []
  for row in rec["rows"]:
    label = _kernel_label(row["row"], rec["settings"])
    rows.append([label, f"{common.num(row['old_seconds'], 3, sig=True)} s",
                 f"{common.num(row['new_seconds'], 3, sig=True)} s",
                 f"**{common.num(row['ratio_new_over_old'], 2)}**",
                 f"{common.num(row['numba_compile_seconds'], 1)} s",
                 "yes" if row["checks_agree"] else "**no**",
                 _load_range(row["load_before"], row["load_after"])])
  table = common.md_table(["kernel work", "C", "numba", "numba / C", "numba compile",
                           "same results", "load"], rows, "lrrrrll")
  times = sorted(r["measured_utc"] for r in rec["rows"])
  machine = rec.get("machine", {})
  prov = common.provenance(
      rec.get("command"), record=KERNELS_RECORD,
      commit=f"{_short(rec['old_commit'])} (C) against {_short(rec['new_commit'])} (numba)",
      date=f"{times[0]} to {times[-1]} UTC",
      machine=f"{machine.get('cores', '?')} cores ({machine.get('arch', 'x86_64')})",
      load="per row in the table (before-after)")
  return table + "\n\n" + prov


def native_kernels_worst() -> str:
  """The row with the largest numba / C ratio and that ratio."""
  rows = common.load(KERNELS_RECORD)["rows"]
  worst = max(rows, key=lambda r: r["ratio_new_over_old"])
  label = _kernel_label(worst["row"], common.load(KERNELS_RECORD)["settings"])
  return f"{label}, {common.num(worst['ratio_new_over_old'], 2)}"


def native_kernels_settings() -> str:
  """'5 alternating repetitions of 3 calls each' from the record's settings."""
  s = common.load(KERNELS_RECORD)["settings"]
  return f"{s['repeats']} alternating repetitions of {s['inner']} calls each"


# Tabular CFR solvers against OpenSpiel's C++ CFR+.

def _ms(x: float) -> str:
  return common.num(x * 1e3, 3, sig=True)


def cfr_solvers_table() -> str:
  """CPU (wall) ms per iteration, ratio to C++ CFR+, iterations and CPU s to the target."""
  rec = common.load(SOLVERS_RECORD)
  rows = []
  for row in rec["rows"]:
    cpp = row["speed"]["openspiel_cpp_cfr_plus"]
    ours = row["convergence"]["cfr_plus"]
    for i, (key, name) in enumerate(SOLVERS.items()):
      speed = row["speed"][key]
      game = f"{row['game']} ({common.thousands(row['num_nodes'])})" if i == 0 else ""
      ms = f"{_ms(speed['cpu_s_per_iteration'])} ({_ms(speed['wall_s_per_iteration'])})"
      if key == "openspiel_cpp_cfr_plus":
        est = ours["iterations"] * cpp["cpu_s_per_iteration"]
        rows.append([game, name, ms, "1", f"{ours['iterations']} (as CFR+)",
                     f"{common.num(est, 1)} (est.)"])
        continue
      conv = row["convergence"][key]
      ratio = cpp["cpu_s_per_iteration"] / speed["cpu_s_per_iteration"]
      reached = conv["iterations"] if conv["reached"] else f"> {conv['iterations']}"
      rows.append([game, name, ms, f"**{common.num(ratio, 1)}**", reached,
                   common.num(conv["cpu_s"], 2)])
  table = common.md_table(["game (histories)", "solver", "ms/iteration CPU (wall)",
                           "x C++ CFR+",
                           f"iterations to NashConv {common.num(rec['target'], 0, sig=True)}",
                           "CPU s to it"], rows, "llrrrr")
  loads = "; ".join(f"{r['game']} {_load_range(r['load_before'], r['load_after'])}"
                    for r in rec["rows"])
  machine = rec["machine"]
  prov = common.provenance(rec["command"], record=SOLVERS_RECORD,
                           commit=_short(rec["commit"]), date=f"{rec['date_utc']} UTC",
                           machine=f"{machine['cores']} cores ({machine['cpu']})",
                           load=f"before-after each game: {loads}")
  return table + "\n\n" + prov


def _ratios() -> list[tuple[str, str, float]]:
  """(game, solver, CPU-time ratio to the C++ CFR+) of every row of ours."""
  out = []
  for row in common.load(SOLVERS_RECORD)["rows"]:
    cpp = row["speed"]["openspiel_cpp_cfr_plus"]["cpu_s_per_iteration"]
    for key in SOLVERS:
      if key != "openspiel_cpp_cfr_plus":
        out.append((row["game"], SOLVERS[key], cpp / row["speed"][key]["cpu_s_per_iteration"]))
  return out


def cfr_solvers_lowest() -> str:
  """The lowest ratio to the C++ CFR+ over every game and solver: 'PDCFR+ on liars_dice, 6.4x'."""
  game, solver, ratio = min(_ratios(), key=lambda r: r[2])
  return f"{solver} on {game}, {common.num(ratio, 1)}x"


def summary_rows() -> list[dict]:
  """The speed page reproduces no paper figure: no row in the results summary."""
  return []


# The same tables before and after the core refactor (typed tree, JPS in parts, team layer).

BEFORE = "speed/before_core_refactor"


def _change(before: float, after: float) -> str:
  """'+3.1%' (slower) or '-2.0%' (faster): after over before, less one."""
  return f"{common.num(100 * (after / before - 1), 1, signed=True)}%"


def refactor_rows() -> list[dict]:
  """Per row of both speed tables: the ratio to its in-run reference before and after.

  A kernel row's figure is numba / C (lower is faster); a CFR solver row's is its CPU time
  per iteration over OpenSpiel's C++ CFR+'s (lower is faster). Each figure is measured within
  one run against a reference that the refactor did not touch, so the change between the two
  runs is the package's own, not the machine's.
  """
  out = []
  before = {r["row"]: r for r in common.load(f"{BEFORE}/native_kernels.json")["rows"]}
  after = common.load(KERNELS_RECORD)
  for row in after["rows"]:
    old = before[row["row"]]
    out.append(dict(table="kernels", what=_kernel_label(row["row"], after["settings"]),
                    before=old["ratio_new_over_old"], after=row["ratio_new_over_old"]))
  before = {r["game"]: r for r in common.load(f"{BEFORE}/cfr_solvers.json")["rows"]}
  for row in common.load(SOLVERS_RECORD)["rows"]:
    old = before[row["game"]]

    def rel(r, key):
      return r["speed"][key]["cpu_s_per_iteration"] / (
          r["speed"]["openspiel_cpp_cfr_plus"]["cpu_s_per_iteration"])
    for key, name in SOLVERS.items():
      if key != "openspiel_cpp_cfr_plus":
        out.append(dict(table="cfr", what=f"{name}, {row['game']}", before=rel(old, key),
                        after=rel(row, key)))
  return out


def refactor_table() -> str:
  """Before / after the refactor: each row's in-run ratio and the change."""
  rows = [[r["what"], "numba / C" if r["table"] == "kernels" else "CPU time / C++ CFR+",
           common.num(r["before"], 3, sig=True), common.num(r["after"], 3, sig=True),
           f"**{_change(r['before'], r['after'])}**"] for r in refactor_rows()]
  return common.md_table(["work", "ratio", "before", "after", "change"], rows, "llrrr")


def refactor_worst() -> str:
  """The row that slowed most, with its change."""
  worst = max(refactor_rows(), key=lambda r: r["after"] / r["before"])
  return f"{worst['what']}, {_change(worst['before'], worst['after'])}"


def refactor_slower_than(limit: float) -> int:
  """How many rows slowed by more than `limit` (0.05: 5%)."""
  return sum(r["after"] / r["before"] > 1 + limit for r in refactor_rows())


# The A/B across the refactor: the package before it against this one, in one run.

AB = "speed/native_kernels_ab.json"


def ab_table() -> str:
  """Per kernel row: median and fastest seconds of each side, both ratios, the spread."""
  rec = common.load(AB)
  rows = []
  for row in rec["rows"]:
    spread = max(max(row["old_all"]) / min(row["old_all"]),
                 max(row["new_all"]) / min(row["new_all"]))
    rows.append([_kernel_label(row["row"], rec["settings"]),
                 f"{common.num(row['old_seconds'], 3, sig=True)} s",
                 f"{common.num(row['new_seconds'], 3, sig=True)} s",
                 f"**{common.num(row['ratio_new_over_old'], 3)}**",
                 f"**{common.num(row['ratio_of_minimums'], 3)}**",
                 f"{common.num(spread, 2)}x",
                 "yes" if row["checks_agree"] else "**no**",
                 _load_range(row["load_before"], row["load_after"])])
  table = common.md_table(["kernel work", "before (median)", "after (median)",
                           "after / before, medians", "after / before, fastest runs",
                           "largest / smallest repetition of one side", "same results",
                           "load"], rows, "lrrrrrll")
  commit = f"{_short(rec['old_commit'])} (before) against {_short(rec['commit'])} (after)"
  if rec.get("uncommitted_package_changes"):
    commit += " with uncommitted package changes outside these kernels' code"
  prov = common.provenance(" ".join(rec["command"]), record=AB, commit=commit,
                           date=rec["date"][:16].replace("T", " ") + " UTC",
                           machine=f"{rec['machine']['cores']} cores",
                           load="per row in the table (before-after)")
  return table + "\n\n" + prov


def ab_over(limit: float, key: str) -> str:
  """The rows whose `key` ratio exceeds 1 + `limit`, with it ('none' if none)."""
  rec = common.load(AB)
  over = [f"{_kernel_label(r['row'], rec['settings'])} ({common.num(r[key], 3)})"
          for r in rec["rows"] if r[key] > 1 + limit]
  return "; ".join(over) if over else "none"


def ab_repeats() -> int:
  """Repetitions per side of the A/B."""
  return common.load(AB)["settings"]["repeats"]


# Against every peer, and how the cost grows (benchmarks/cfr_peers.py, benchmarks/cfr_growth.py).

PEERS = "speed/cfr_peers.json"
# The peers records (each one run of cfr_peers.py) and their figures in docs/img/.
PEER_RECORDS = {PEERS: "cfr_peers.png"}
GROWTH = "speed/cfr_growth.json"
_CPP = "openspiel_cpp_cfr_plus"
_OURS = ("cfr_plus", "dcfr", "pcfr_plus")


def _peer_label(name: str) -> str:
  return {"cfr_plus": "ours CFR+", "dcfr": "ours DCFR", "pcfr_plus": "ours PCFR+",
          _CPP: "OpenSpiel C++ CFR+", "openspiel_jax_cfr_plus": "OpenSpiel JAX CFR+",
          "liteefg_cfr_plus": "LiteEFG CFR+", "liteefg_dcfr": "LiteEFG DCFR",
          "liteefg_pcfr_plus": "LiteEFG PCFR+",
          "liteefg_cfr_plus_openspiel_env": "LiteEFG CFR+ via OpenSpielEnv"}.get(name, name)


def _run_state(rec: dict, rows: list[dict]) -> str:
  """'alone' or 'under load (1-minute load average a-b on N cores), not alone'."""
  loads = [x for r in rows for x in (r["load_before"][0], r["load_after"][0])]
  cores = rec["machine"]["cores"]
  span = f"{common.num(min(loads), 1)}-{common.num(max(loads), 1)}"
  if rec.get("alone"):
    return f"alone on the machine (1-minute load average {span} on {cores} cores)"
  return (f"**under load, not alone**: other jobs shared the machine (1-minute load average "
          f"{span} on {cores} cores)")


def _peer_records() -> list[tuple[str, dict]]:
  """(name, record) of each peers record present (`PEER_RECORDS`)."""
  return [(name, common.load(name)) for name in PEER_RECORDS
          if os.path.isfile(os.path.join(common.RESULTS, name))]


def _peer_rows() -> list[tuple[dict, dict]]:
  """(record, row) of every game of every peers record."""
  return [(rec, row) for _, rec in _peer_records() for row in rec["rows"]]


def peers_status() -> str:
  """Whether each peers record was run alone, with its load and settings."""
  out = []
  for name, rec in _peer_records():
    s = rec["settings"]
    games = ", ".join(r["game"] for r in rec["rows"])
    check = "" if s.get("openspiel_check", True) else "; OpenSpiel's NashConv not computed"
    out.append(f"`results/{name}` holds {games}, run {_run_state(rec, rec['rows'])}, with at "
               f"most {common.num(s['max_seconds'], 0)} CPU seconds of iterations per solver "
               f"and {s['repeats']} timing rounds{check}.")
  return " ".join(out)


def _secs(x) -> str:
  return "—" if x is None else common.num(x, 3, sig=True)


def peers_table() -> str:
  """Per game and solver: speed, set-up, memory, CPU seconds to each target, checks."""
  return "\n\n".join(_peers_table(record, rec) for record, rec in _peer_records())


def _peers_table(record: str, rec: dict) -> str:
  targets = [f"{t:g}" for t in rec["targets"]]
  rows = []
  for row in rec["rows"]:
    solvers = row["solvers"]
    cpp = solvers.get(_CPP, {}).get("speed", {}).get("cpu_ms_per_iteration")
    for i, (name, s) in enumerate(solvers.items()):
      game = f"{row['game']} ({common.thousands(row['tree']['histories'])})" if i == 0 else ""
      if "error" in s:
        rows.append([game, _peer_label(name), f"failed: {s['error'][:80]}"] + [""] * (
            4 + len(targets)))
        continue
      sp = s.get("speed", {})
      ms = sp.get("cpu_ms_per_iteration")
      ratio = "—" if not (cpp and ms) else f"**{common.num(cpp / ms, 1)}**"
      mem = s.get("memory", {})
      wall = common.num(sp.get("wall_ms_per_iteration"), 3, sig=True)
      cells = [game, _peer_label(name), f"{common.num(ms, 3, sig=True)} ({wall})",
               ratio, _secs(s["setup"]["setup_cpu_s"]),
               f"{common.num((mem.get('peak_rss_bytes') or 0) / 1e6, 0)} "
               f"({common.num((mem.get('peak_over_imports_bytes') or 0) / 1e6, 0)})"]
      for t in targets:
        hit = s["to_target"].get(t)
        if hit is None:
          cells.append(f"not in {common.thousands(s['iterations'])} it.")
        else:
          after = hit.get("cpu_s_after_first", hit["cpu_s"])
          cells.append(f"{_secs(after)} / {_secs(hit['cpu_s_with_setup'])} "
                       f"({common.thousands(hit['iterations'])} it.)")
      if "openspiel_agrees" not in s:
        check = "fell" if s.get("nash_conv_fell") else "**did not fall**"
        check += ", OpenSpiel's not computed"
      else:
        check = "yes" if s["openspiel_agrees"] and s.get("nash_conv_fell") else "**no**"
      cells.append(f"{common.num(s['final_nash_conv'], 2, sig=True)} ({check})")
      rows.append(cells)
    for name, why in row["skipped"].items():
      rows.append(["", _peer_label(name), why] + [""] * (4 + len(targets)))
  header = ["game (histories)", "solver", "ms/iteration CPU (wall)", "x C++ CFR+",
            "set-up CPU s", "peak MB (over imports)"]
  header += [f"CPU s to NashConv {t}: iterations / from nothing" for t in targets]
  header += ["final NashConv (OpenSpiel agrees, fell)"]
  table = common.md_table(header, rows, "llrrrr" + "r" * len(targets) + "r")
  m = rec["machine"]
  prov = common.provenance(rec["command"], record=record, commit=_short(rec["commit"]),
                           date=f"{rec['date_utc']} UTC",
                           machine=f"{m['cores']} cores ({m['cpu']}), numba {m.get('numba')}, "
                                   f"OpenSpiel {m.get('open_spiel')}, JAX {m.get('jax')}, "
                                   f"LiteEFG {m.get('liteefg') or 'not installed'}",
                           load="; ".join(
                               f"{r['game']} {_load_range(r['load_before'], r['load_after'])}"
                               for r in rec["rows"]))
  return table + "\n\n" + prov


def peers_same_algorithm() -> str:
  """How far OpenSpiel's CFR+ (C++, JAX) is from ours at the same iterations, per game."""
  parts = []
  for _, row in _peer_rows():
    for name in (_CPP, "openspiel_jax_cfr_plus"):
      v = row["solvers"].get(name, {}).get("vs_ours_cfr_plus")
      if v and v["max_abs_diff"] is not None:
        parts.append(f"{_peer_label(name)} on {row['game']}: at most "
                     f"{common.num(v['max_abs_diff'], 2, sig=True)} over {v['checkpoints']} "
                     "checkpoints")
  return "; ".join(parts) if parts else "not in this record"


def peers_trees() -> str:
  """Each solver's own count of the tree it ran on, per game."""
  rows = []
  for _, row in _peer_rows():
    t = row["tree"]
    rows.append([row["game"], "our GameTree", common.thousands(t["histories"]),
                 common.thousands(t["infosets"])])
    if "export" in row:
      f = row["export"]["file_counts"]
      rows.append(["", "LiteEFG file (exported from our tree)", common.thousands(f["nodes"]),
                   common.thousands(f["infosets"])])
    for name, s in row["solvers"].items():
      c = s.get("counts")
      if c and name not in _OURS:
        rows.append(["", _peer_label(name),
                     common.thousands(c["histories"]) if "histories" in c else "—",
                     common.thousands(c["infosets"])])
  return common.md_table(["game", "counted by", "histories", "infosets"], rows, "llrr")


def peers_goals() -> str:
  """Per game: the issue's three goals, measured (ratios), from the record."""
  rows = []
  for rec, row in _peer_rows():
    s = row["solvers"]
    lowest = f"{min(rec['targets']):g}"

    def ms(name, s=s):
      return s.get(name, {}).get("speed", {}).get("cpu_ms_per_iteration")

    def to_last(name, s=s, lowest=lowest):
      t = s.get(name, {}).get("to_target", {}).get(lowest)
      return None if t is None else t.get("cpu_s_after_first", t["cpu_s"])
    ours, cpp, lite = ms("cfr_plus"), ms(_CPP), ms("liteefg_cfr_plus")
    best_ours = min((x for x in map(to_last, _OURS) if x is not None), default=None)
    peers = [to_last(n) for n in s if n not in _OURS]
    best_peer = min((x for x in peers if x is not None), default=None)
    rows.append([row["game"],
                 f"{common.num(cpp / ours, 1)}x" if ours and cpp else "—",
                 f"{common.num(lite / ours, 2)}x" if ours and lite else "—",
                 f"{common.num(best_ours / best_peer, 2)}" if best_ours and best_peer else
                 "no peer reached it" if best_ours else "—"])
  return common.md_table(["game", "ours CFR+ vs C++ CFR+ per iteration (goal ≥ 10x)",
                          "ours CFR+ vs LiteEFG CFR+ per iteration (goal ≥ 1x)",
                          "best of ours / best peer, CPU s to the record's lowest target "
                          "(goal ≤ 0.5)"], rows, "lrrr")


def growth_status() -> str:
  """Whether the growth record was run alone, on which ladder, and what it has not run yet."""
  rec = common.load(GROWTH)
  rows = [r for fam in rec["families"].values() for r in fam if "load_before" in r]
  rows = [dict(r, load_after=r.get("load_after", r["load_before"])) for r in rows]
  rungs = len(rows)
  st = rec["settings"]
  text = (f"The record holds {rungs} rung{'s' if rungs != 1 else ''} of the "
          f"{rec.get('ladder', 'smoke')} ladder, run {_run_state(rec, rows)}, at most "
          f"{common.num(st['max_seconds'], 3, sig=True)} CPU seconds of iterations per solver "
          "and rung")
  if "max_setup_seconds" in st:
    text += (f", {common.num(st['max_setup_seconds'], 3, sig=True)} s of set-up, "
             f"{common.num(st['max_iteration_seconds'], 3, sig=True)} CPU s per iteration "
             "before a solver stops on its family")
  text += "."
  left = rec.get("not_run") or {}
  if left:
    text += (" Not run yet (the run's time bound; the same command resumes): " +
             "; ".join(f"{fam}: {', '.join(_rung_label(g) for g in games)}"
                       for fam, games in left.items()) + ".")
  return text


def _rung_label(game: str) -> str:
  """A short name of a ladder's game: 'leduc, 3 ranks', 'goofspiel, 4 cards', or the game."""
  import re
  ranks = re.search(r"numRanks=(\d+)", game)
  if game.startswith("universal_poker") and ranks:
    return f"leduc, {ranks.group(1)} ranks"
  cards = re.search(r"goofspiel\(.*num_cards=(\d+)", game)
  if cards:
    return f"goofspiel (imperfect information), {cards.group(1)} cards"
  return f"`{game}`"


def _growth_cell(v: dict | None) -> str:
  """One solver's cell of a rung: 'ms; B/h; s to target', or why it did not run."""
  if v is None or "skipped" in v:
    return "—"
  if "error" in v:
    return {"memory": "stopped: memory", "time": "stopped: time"}.get(v.get("limit"), "failed")
  bph = v.get("bytes_per_history")
  to = v.get("cpu_s_to_target_after_first", v.get("cpu_s_to_target"))
  reached = v.get("iterations_to_target") is not None
  ms = v.get("cpu_ms_per_iteration")
  return (f"{common.num(ms, 3, sig=True) if ms else '—'} ms; "
          f"{common.num(bph, 3, sig=True) if bph else '—'} B/h; "
          f"{_secs(to) + ' s' if reached else 'not reached'}")


def growth_table() -> str:
  """Per family and rung: histories, and per solver ms/iteration, bytes/history, s to target."""
  rec = common.load(GROWTH)
  solvers = rec["settings"]["solvers"]
  rows = []
  for fam, rungs in rec["families"].items():
    for r in rungs:
      if "error" in r:
        rows.append([fam, _rung_label(r["game"]), "not built"] + ["—"] * len(solvers))
        continue
      rows.append([fam, _rung_label(r["game"]), common.thousands(r["histories"])] +
                  [_growth_cell(r["solvers"].get(name)) for name in solvers])
  table = common.md_table(["family", "game", "histories"] +
                          [f"{_peer_label(s)}: ms/iteration; bytes/history; CPU s to "
                           f"{common.num(rec['settings']['target'], 0, sig=True)}"
                           for s in solvers],
                          rows, "llr" + "l" * len(solvers))
  stops = []
  for fam, st in rec.get("stopped", {}).items():
    for name, why in st.items():
      stops.append(f"- {fam}, {_peer_label(name)}: stops at {_rung_label(why['at'])}: "
                   f"{why['why']}")
  text = table + "\n\n" + ("\n".join(stops) if stops else
                           "No solver stopped on any family of this record.")
  prov = common.provenance(rec["command"], record=GROWTH, commit=_short(rec.get("commit")),
                           date=f"{rec['date_utc']} UTC",
                           machine=f"{rec['machine']['cores']} cores, "
                                   f"{common.num(rec['machine']['memory_bytes'] / 2**30, 0)} GiB")
  return text + "\n\n" + prov


def growth_largest() -> str:
  """Per family and solver: the largest rung it ran, its cost there, and where it stopped."""
  rec = common.load(GROWTH)
  target = common.num(rec["settings"]["target"], 0, sig=True)
  rows = []
  for fam, rungs in rec["families"].items():
    for name in rec["settings"]["solvers"]:
      ran = [r for r in rungs if "error" not in r and "error" not in r["solvers"].get(name, {
             "error": ""}) and "skipped" not in r["solvers"][name]]
      why = rec.get("stopped", {}).get(fam, {}).get(name)
      if not ran and not why:
        continue
      stop = (f"{_rung_label(why['at'])}: {why['why'][:160]}" if why else
              "not stopped on this ladder" + (" (rungs not run yet)"
                                              if fam in (rec.get("not_run") or {}) else ""))
      if not ran:
        rows.append([fam, _peer_label(name), "—", "—", "—", "—", stop])
        continue
      top = max(ran, key=lambda r: r["histories"])
      v = top["solvers"][name]
      reached = v.get("iterations_to_target") is not None
      to = v.get("cpu_s_to_target_after_first", v.get("cpu_s_to_target"))
      ms = v.get("cpu_ms_per_iteration")
      rows.append([fam, _peer_label(name), _rung_label(top["game"]),
                   common.thousands(top["histories"]),
                   common.num(ms, 3, sig=True) if ms else "—",
                   f"{_secs(to)} s ({common.thousands(v['iterations_to_target'])} it.)"
                   if reached else "not reached" if "iterations" not in v else
                   f"not in {_secs(v['iterations_cpu_s'] - v['first_iteration_cpu_s'])} s "
                   f"({common.thousands(v['iterations'])} it.)",
                   stop])
  return common.md_table(["family", "solver", "largest rung run", "histories", "ms/iteration",
                          f"CPU s to NashConv {target} there", "where it stops, and why"],
                         rows, "lllrrll")


ONE_SEED_AB = "speed/native_kernels_ab_one_seed.json"


def one_seed_ab() -> str:
  """The A/B of the one-seed CFR traversal (`cfr_traverse_one`): times, ratio, check, load."""
  rec = common.load(ONE_SEED_AB)
  row = rec["rows"][0]
  st = rec["settings"]
  text = (f"{st['cfr_iterations']} iterations of CFR on leduc_poker with one seed (the row "
          f"`{row['row']}` of `benchmarks/native_kernels.py` with `--cfr_batch 1`): "
          f"{common.num(row['old_seconds'], 3, sig=True)} s before, "
          f"{common.num(row['new_seconds'], 3, sig=True)} s after (medians of "
          f"{st['repeats']} alternating repetitions), "
          f"**{common.num(row['ratio_new_over_old'], 2)}** of the time (fastest runs: "
          f"{common.num(row['ratio_of_minimums'], 2)}); the same "
          f"results: {'yes' if row['checks_agree'] else '**no**'}; under load "
          f"{_load_range(row['load_before'], row['load_after'])}, not alone")
  # The page's command writes the record where the page reads it (the run wrote a scratch copy).
  command = list(rec["command"])
  command[command.index("--json_out") + 1] = f"results/{ONE_SEED_AB}"
  prov = common.provenance(" ".join(command), record=ONE_SEED_AB,
                           commit=f"{_short(rec['old_commit'])} (before) against "
                                  f"{_short(rec['commit'])} (after)",
                           date=rec["date"][:16].replace("T", " ") + " UTC",
                           machine=f"{rec['machine']['cores']} cores")
  return text + ".\n\n" + prov
