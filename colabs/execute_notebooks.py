r"""Executes the notebooks in colabs/ top to bottom and stores them with their outputs.

Usage (from the repository root; run it after any change to a notebook)::

  python colabs/execute_notebooks.py                  # every notebook, its own settings
  python colabs/execute_notebooks.py --notebooks jps,team_lp
  python colabs/execute_notebooks.py --small          # the test suite's small settings

The stored outputs (tables, plots, printed values) let a notebook be read on a code host
without running it. By default each notebook runs with the parameters written in it, so the
stored outputs match its code; `--small` overrides the parameters with the small settings the
test suite uses (`SMALL_SETTINGS`) and stores those settings in the notebook's parameter cell
as well, so code and outputs still agree. Progress bars and warnings on stderr are not stored;
execution timestamps are not recorded (smaller diffs). A notebook that fails, or that was
edited while it ran, is left unchanged and the command exits non-zero after trying the others.
"""

import os
import tempfile
import time
from collections.abc import Sequence

from absl import app
from absl import flags

from ospiel_team import atomic_io

COLABS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(COLABS)

# Small settings per notebook (the values the tests in tests/test_colab_*.py use): name ->
# {variable assigned at the start of a line in a code cell: Python source of its new value}.
SMALL_SETTINGS: dict[str, dict[str, str]] = {
    "bridge_agents": {"BOARDS": "16", "STAT_BOARDS": "40", "SHOW_DEALS": "2", "FT_ROUNDS": "2",
                      "FT_DEALS": "8", "FT_FRACTION": "0.5", "FT_BOARDS": "16"},
    "bridge_bidding": {"BOARDS": "100", "SEED": "1"},
    "exploitability_descent": {"GAMES": '["kuhn_poker"]', "ITERATIONS": "4"},
    "getting_started": {"GAME": '"mini_bridge(size=2)"', "SECONDS": "0.2", "SEEDS": "2",
                        "SOLVERS": '["cfr_plus", "jps"]'},
    "jps": {"SIZE": "2", "CFR_ITERATIONS": "50", "DEPTH": "3", "SEED": "1"},
    "team_lp": {"ITERATIONS": "20"},
}


def notebook_names() -> list:
  return sorted(f[:-6] for f in os.listdir(COLABS) if f.endswith(".ipynb"))


def override_parameters(nb, parameters: dict[str, str], name: str = "notebook") -> None:
  """Replaces the first `NAME = ...` line of each name in the code cells (in place)."""
  remaining = dict(parameters)
  for cell in nb.cells:
    if cell.cell_type != "code":
      continue
    lines = cell.source.split("\n")
    for i, line in enumerate(lines):
      for var in list(remaining):
        if line.startswith(f"{var} = "):
          comment = line[line.index("#"):] if "#" in line else ""
          lines[i] = f"{var} = {remaining.pop(var)}" + (f"  {comment}" if comment else "")
    cell.source = "\n".join(lines)
  if remaining:
    raise KeyError(f"{name} assigns no {sorted(remaining)}")


def execute(name: str, small: bool, timeout: int) -> float:
  """Executes colabs/<name>.ipynb and writes it back with its outputs; returns seconds."""
  import nbclient
  import nbformat
  path = os.path.join(COLABS, name + ".ipynb")
  with open(path, "rb") as f:
    before = f.read()
  nb = nbformat.reads(before.decode("utf-8"), as_version=4)
  if small:
    override_parameters(nb, SMALL_SETTINGS[name], name)
  start = time.time()
  with tempfile.TemporaryDirectory() as cache:
    os.environ["OSPIEL_TEAM_CACHE"] = cache  # no cached trees from earlier runs
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     record_timing=False,
                                     resources={"metadata": {"path": REPO}})
    client.execute()
  for cell in nb.cells:
    cell.metadata.pop("execution", None)  # timestamps of an earlier run with record_timing
    if cell.cell_type == "code":
      kept = []
      for o in cell.outputs:
        if o.get("output_type") == "stream" and o.get("name") == "stderr":
          continue
        if (o.get("output_type") == "stream" and kept and
            kept[-1].get("output_type") == "stream" and kept[-1].get("name") == o.get("name")):
          kept[-1]["text"] += o["text"]  # one output per run of prints: stable diffs
          continue
        kept.append(o)
      cell.outputs = kept
  nbformat.validate(nb)
  with open(path, "rb") as f:
    if f.read() != before:  # edited while it ran: keep the edit, run again later
      raise RuntimeError(f"{path} changed while it was executed; not overwritten")
  atomic_io.write_text(path, nbformat.writes(nb) + "\n")
  return time.time() - start


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  names = notebook_names()
  chosen = flags.FLAGS.notebooks or names
  unknown = [n for n in chosen if n not in names]
  if unknown:
    raise SystemExit(f"execute_notebooks: error: no notebook {unknown} in {COLABS} "
                     f"(have {names})")
  failed = []
  for name in chosen:
    try:
      seconds = execute(name, flags.FLAGS.small, flags.FLAGS.timeout)
    except Exception as e:
      print(f"{name}: FAILED ({type(e).__name__}: {str(e).splitlines()[-1] if str(e) else ''})",
            flush=True)
      failed.append(name)
      continue
    print(f"{name}: executed and stored with outputs in {seconds:.0f} s", flush=True)
  if failed:
    raise SystemExit(f"execute_notebooks: {len(failed)} notebook(s) failed: {failed}")


if __name__ == "__main__":
  flags.DEFINE_list("notebooks", None, "Notebook names (without .ipynb) to execute; default: "
                    "every notebook in colabs/.")
  flags.DEFINE_bool("small", False, "Use the test suite's small settings (SMALL_SETTINGS) "
                    "instead of the parameters written in each notebook.")
  flags.DEFINE_integer("timeout", 1800, "Seconds allowed per cell.", lower_bound=1)
  app.run(main)
