"""Loading records from `results/`, formatting numbers, and provenance lines.

`load` is the only way a renderer reads a record: it remembers every path it returned
(`loaded()`), so that a test can check that each record of `results/` is shown on some page.
`RESULTS` can be pointed elsewhere (`set_results_dir`), so that a test can render the pages
from a changed copy of the records.
"""
import csv
import functools
import json
import math
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(REPO, "results")
_LOADED: set[str] = set()


def set_results_dir(path: str) -> None:
  """Reads records from `path` instead of the repository's `results/` (tests)."""
  global RESULTS
  RESULTS = path
  _cached.cache_clear()
  _LOADED.clear()


def loaded() -> set[str]:
  """The records read so far, as paths relative to the results folder."""
  return set(_LOADED)


@functools.cache
def _cached(path: str):
  with open(path, encoding="utf-8") as f:
    if path.endswith(".json"):
      return json.load(f)
    if path.endswith(".csv"):
      return list(csv.DictReader(f))
    return f.read()


def load(name: str):
  """The record `results/<name>`: parsed JSON, CSV rows as dicts, or text (.md)."""
  path = os.path.join(RESULTS, name)
  if not os.path.isfile(path):
    raise FileNotFoundError(f"no record {name!r} in {RESULTS}")
  _LOADED.add(name.replace(os.sep, "/"))
  return _cached(path)


def load_dir(name: str) -> dict:
  """Every record in the folder `results/<name>/`, by file name (sorted)."""
  folder = os.path.join(RESULTS, name)
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


# Scripts that have moved since a record's command was stored: old path -> current path. A
# record keeps the command that produced it; its provenance line names the script's new place.
MOVED_SCRIPTS = {
    "examples/jps_experiments.py": "benchmarks/jps_experiments.py",
    "examples/ed_experiments.py": "benchmarks/ed_experiments.py",
}


def moved_scripts(command: str | None) -> list[str]:
  """'`old` is now `new`' for each moved script that `command` runs."""
  return [f"`{old}` is now `{new}`" for old, new in MOVED_SCRIPTS.items()
          if command and old in command]


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
    parts.append(f"record `results/{record}`")
  if commit:
    parts.append(f"commit `{commit}`")
  if date:
    parts.append(str(date))
  if machine:
    parts.append(str(machine))
  if load:
    parts.append(f"load average {load}")
  parts += moved_scripts(command)
  text = ""
  if command:
    text += f"```bash\n{command.strip()}\n```\n\n"
  if parts:
    text += "*" + "; ".join(parts) + ".*"
  return text
