"""Loading records from `results/` and `experiments/`, formatting numbers, provenance lines.

`load` is the only way a renderer reads a record: it remembers every path it returned
(`loaded()`), so that a test can check that each record is shown on some page. A record's
name is its path under `results/` (the library's benchmarks: `"speed/jps_speed.json"`) or,
for an experiment's record, its path from the repository root (`"experiments/<study>/..."`).
`RESULTS` and `EXPERIMENTS` can be pointed elsewhere (`set_results_dir`), so that a test can
render the pages from a changed copy of the records.
"""
import csv
import functools
import json
import math
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(REPO, "results")
EXPERIMENTS = os.path.join(REPO, "experiments")
_EXPERIMENT_PREFIX = "experiments/"
_LOADED: set[str] = set()


def set_results_dir(path: str, experiments: str | None = None) -> None:
  """Reads records from `path` (and `experiments`) instead of the repository's (tests)."""
  global RESULTS, EXPERIMENTS
  RESULTS = path
  if experiments is not None:
    EXPERIMENTS = experiments
  _cached.cache_clear()
  _LOADED.clear()


def loaded() -> set[str]:
  """The records read so far, by name (`load`'s argument)."""
  return set(_LOADED)


def record_path(name: str) -> str:
  """The file of the record `name`: under `RESULTS`, or under `EXPERIMENTS` for
  `experiments/...`."""
  if name.startswith(_EXPERIMENT_PREFIX):
    return os.path.join(EXPERIMENTS, name[len(_EXPERIMENT_PREFIX):])
  return os.path.join(RESULTS, name)


def record_label(name: str) -> str:
  """A record's path from the repository root, as a page names it."""
  return name if name.startswith(_EXPERIMENT_PREFIX) else f"results/{name}"


@functools.cache
def _cached(path: str):
  with open(path, encoding="utf-8") as f:
    if path.endswith(".json"):
      return json.load(f)
    if path.endswith(".csv"):
      return list(csv.DictReader(f))
    return f.read()


def load(name: str):
  """The record `name` (`record_path`): parsed JSON, CSV rows as dicts, or text (.md)."""
  path = record_path(name)
  if not os.path.isfile(path):
    raise FileNotFoundError(f"no record {name!r} at {path}")
  _LOADED.add(name.replace(os.sep, "/"))
  return _cached(path)


def load_dir(name: str) -> dict:
  """Every record in the folder `name` (as `load` names it), by file name (sorted)."""
  folder = record_path(name)
  return {f: load(f"{name}/{f}") for f in sorted(os.listdir(folder))
          if os.path.isfile(os.path.join(folder, f))}


def num(x, digits: int = 4, *, signed: bool = False, sig: bool = False) -> str:
  """`x` with `digits` decimals (or significant digits with `sig`); `signed` adds a '+'.

  Spreads that are zero up to floating-point noise (|x| < 1e-12) print as 0.
  """
  if x is None:
    return "—"
  x = float(x)
  if math.isnan(x):
    return "nan"
  if abs(x) < 1e-12:
    x = 0.0
  if sig:
    text = f"{x:.{digits}g}"
  else:
    text = f"{x:.{digits}f}"
  if signed and x >= 0:
    text = "+" + text
  return text


def thousands(n) -> str:
  """An integer with thousands separators: 42593417 -> '42,593,417'."""
  return f"{int(n):,}"


def md_table(header: list[str], rows: list[list], align: str | None = None) -> str:
  """A Markdown table; `align` is one character per column ('l', 'r' or 'c')."""
  align = align or "l" * len(header)
  marks = {"l": "---", "r": "---:", "c": ":---:"}
  lines = ["| " + " | ".join(header) + " |",
           "| " + " | ".join(marks[a] for a in align) + " |"]
  for row in rows:
    lines.append("| " + " | ".join(str(c) for c in row) + " |")
  return "\n".join(lines)


# Paths that have moved since a record's command was stored (scripts, records, checkpoints):
# old -> current. A record keeps the command as it was run; a page shows `runnable(command)`.
MOVED = {
    "examples/jps_experiments.py": "benchmarks/jps_experiments.py",
    "examples/ed_experiments.py": "benchmarks/ed_experiments.py",
    "benchmarks/bridge_search_experiment.py":
        "experiments/bridge_search/bridge_search_experiment.py",
    "benchmarks/bridge_search_diagnosis.py": "experiments/bridge_search/bridge_search_diagnosis.py",
    "benchmarks/bridge_method_comparison.py":
        "experiments/bridge_fsp_ppo/bridge_method_comparison.py",
    "benchmarks/bridge_wide_start.py": "experiments/bridge_wide_start/bridge_wide_start.py",
    "benchmarks/bridge_wide_run.py": "experiments/bridge_wide_run/bridge_wide_run.py",
    "benchmarks/bridge_finetune_table.py": "experiments/bridge_jpsbid/bridge_finetune_table.py",
    "benchmarks/bridge_replication.py": "experiments/bridge_jpsbid/bridge_replication.py",
    "benchmarks/bridge_select_snapshot.py":
        "experiments/bridge_a2c_training/bridge_select_snapshot.py",
    "benchmarks/bridge_training_curves.py":
        "experiments/bridge_a2c_training/bridge_training_curves.py",
    "results/ed_defaults.json": "results/ed/defaults.json",
    "results/ed_figure1.json": "results/ed/figure1.json",
    "results/jps_experiments.json": "results/jps/experiments.json",
    "results/jps_experiments.store.json": "results/jps/experiments.store.json",
    "results/jps_beyond_search.store.json": "results/jps/beyond_search.store.json",
    "results/ed_openspiel_reproduction.json": "results/ed/openspiel_reproduction.json",
    "results/team_dice_readings.json": "results/team/dice_readings.json",
    "results/team_plan_views.json": "results/team/plan_views.json",
    "results/team_lp_highs_options.json": "results/team_lp_table/highs_options.json",
    "results/team_cg_oracle.json": "results/team_lp_table/cg_oracle.json",
    "results/game_tree_speed.json": "results/speed/game_tree_speed.json",
    "results/ed_step_time.json": "results/speed/ed_step_time.json",
    "results/jps_speed.json": "results/speed/jps_speed.json",
    "results/bridge_search_bidder.json": "results/bridge/search_bidder.json",
    "results/bridge_selection.json": "experiments/bridge_a2c_training/selection.json",
    "results/bridge_replication.json": "experiments/bridge_jpsbid/jpsbid_from_a2c.json",
    "results/jpsbid_from_a2c_longer": "experiments/bridge_jpsbid/jpsbid_from_a2c_longer",
    "results/bridge_search": "experiments/bridge_search",
    "results/bridge_fsp_ppo": "experiments/bridge_fsp_ppo",
    "results/bridge_wide_start": "experiments/bridge_wide_start",
    "results/bridge_wide_run": "experiments/bridge_wide_run",
    "checkpoints/bridge/wide_run.npz": "experiments/bridge_wide_run/checkpoints/wide_run.npz",
    "checkpoints/bridge/wide_run_leader.npz":
        "experiments/bridge_wide_run/checkpoints/wide_run_leader.npz",
    "checkpoints/bridge": "experiments/bridge_a2c_training/checkpoints",
}
_MOVED = re.compile("(?<![\\w/])(" + "|".join(
    re.escape(k) for k in sorted(MOVED, key=len, reverse=True)) + r")(?![\w])")
# A working folder of the machine that ran it: the user's choice, shown as WORKDIR.
_MACHINE_PATH = re.compile(r"(?<![\w/])(?:/work/runs|/work|/tmp|/home/\w+|~)/([^\s'\"]*)")
_PREFIX = re.compile(r"(^|;\s*|&&\s*)[ \t]*(?:nohup\s+)?(?:nice\s+-n\s*\d+\s+)?(?:nohup\s+)?",
                     re.M)
_BACKGROUND = re.compile(r"\s*(?:>>?\s*\S+)?(?:\s+2>&1)?\s*&\s*$", re.M)


def _placeholder(match: re.Match) -> str:
  last = match.group(1).rstrip("/").split("/")[-1]
  return f"WORKDIR/{last}" if "." in last else "WORKDIR"


def with_flag(command: str, flag: str, value: str) -> str:
  """`command` with `--flag value`: replacing the flag's value where it is given, else added."""
  pattern = re.compile(rf"(--{flag}[ =])\S+")
  if pattern.search(command):
    return pattern.sub(lambda m: m.group(1) + value, command)
  return f"{command} --{flag} {value}"


def runnable(command: str | None) -> str | None:
  """`command` as a user runs it now, from the repository root: moved scripts and records at
  their current place, a machine's working folders as `WORKDIR`, no `nohup` or `nice`, not in
  the background."""
  if not command:
    return command
  text = _MOVED.sub(lambda m: MOVED[m.group(1)], command)
  text = _MACHINE_PATH.sub(_placeholder, text)
  text = _BACKGROUND.sub("", _PREFIX.sub(r"\1", text))
  return text


def commit_label(rec: dict) -> str:
  """A record's short commit, and whether the package had uncommitted changes then."""
  label = (rec.get("commit") or "not recorded")[:7]
  if rec.get("uncommitted_package_changes"):
    label += " with uncommitted package changes"
  return label


def provenance(command: str | None = None, *, commit: str | None = None,
               date: str | None = None, load: str | None = None,
               machine: str | None = None, record: str | None = None) -> str:
  """One 'Command / record / commit / date / machine / load' block for a table."""
  parts = []
  if record:
    parts.append(f"record `{record_label(record)}`")
  if commit:
    parts.append(f"commit `{commit}`")
  if date:
    parts.append(str(date))
  if machine:
    parts.append(str(machine))
  if load:
    parts.append(f"load average {load}")
  command = runnable(command)
  text = ""
  if command:
    text += f"```bash\n{command.strip()}\n```\n\n"
  if parts:
    text += "*" + "; ".join(parts) + ".*"
  return text
