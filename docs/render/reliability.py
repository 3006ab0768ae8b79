"""The reliability page (docs/results/reliability.md): the suite's robustness probes by class.

Record: `reliability/probes.json` (`benchmarks/reliability_probes.py`, which runs the probe
list of `tests/integration/probes.py`).
"""

from render import common

RECORD = "reliability/probes.json"

OUTCOME_COLUMNS = (("clear", "clear errors"), ("unclear", "unclear errors"),
                   ("traceback", "tracebacks"), ("crash", "crashes"),
                   ("silent", "silent wrong answers"))


def _command(rec: dict) -> str:
  command = rec.get("command")
  return " ".join(command) if isinstance(command, list) else str(command)


def _load(rec: dict) -> str:
  return (f"{common.num(rec['load_average_before'][0], 2)}-"
          f"{common.num(rec['load_average_after'][0], 2)}")


def provenance() -> str:
  """The command that runs the probes, with the record's commit, date and load."""
  rec = common.load(RECORD)
  return common.provenance(_command(rec), commit=common.commit_label(rec), date=rec.get("date"),
                           load=_load(rec), record=RECORD)


def classes_table() -> str:
  """Probes run per class, and what the package answered."""
  rec = common.load(RECORD)
  header = ["class", "probes"] + [label for _, label in OUTCOME_COLUMNS] + ["seconds"]
  rows = []
  for klass, counts in rec["classes"].items():
    rows.append([klass, counts["probes"]] + [counts[k] for k, _ in OUTCOME_COLUMNS]
                + [common.num(counts["seconds"], 1)])
  total = {k: sum(c[k] for c in rec["classes"].values())
           for k in ["probes"] + [k for k, _ in OUTCOME_COLUMNS]}
  rows.append(["**all**", total["probes"]] + [total[k] for k, _ in OUTCOME_COLUMNS]
              + [common.num(rec["wall_seconds"], 1) + " (wall)"])
  return common.md_table(header, rows, "l" + "r" * (len(header) - 1))


def faults_table() -> str:
  """The faults the package must survive: tried, and survived (finished work kept, the rerun
  gives the answer of an uninterrupted run)."""
  rec = common.load(RECORD)
  rows = [[fault, counts["tried"], counts["survived"]] for fault, counts in rec["faults"].items()]
  return common.md_table(["fault", "tried", "survived"], rows, "lrr")


def probes_table() -> str:
  """Every probe: class, what it does, the answer, seconds."""
  rec = common.load(RECORD)
  rows = [[p["klass"], p["description"].replace("|", "\\|"), p["outcome"],
           common.num(p["seconds"], 2) if p["seconds"] is not None else "—"]
          for p in rec["probes"]]
  return common.md_table(["class", "probe", "answer", "seconds"], rows, "llll")


def summary() -> str:
  """'N probes in K classes: ...' in one sentence."""
  rec = common.load(RECORD)
  total = sum(c["probes"] for c in rec["classes"].values())
  clear = sum(c["clear"] for c in rec["classes"].values())
  return f"{total} probes in {len(rec['classes'])} classes, {clear} answered clearly"
