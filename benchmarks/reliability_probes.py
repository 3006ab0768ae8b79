"""Runs the test suite's robustness probes and records what the package answered.

  python benchmarks/reliability_probes.py              # writes results/reliability/probes.json

The probes are the suite's own list, `tests/integration/probes.py` (`PROBES`): bad arguments
at the public API, bad command-line flags, damaged and crafted files, special files given as
outputs, a full disk, costs refused before they are paid, and killed runs resumed. Each runs in
a child process (a probe that kills it is recorded as a crash). The record holds one entry per
probe (class, description, outcome, seconds), the counts per class, the faults survived, and
the provenance (command, commit, date, machine, 1-minute load average before and after).
The results page renders it (`docs/render/reliability.py`); the default test suite runs the
same list (`tests/integration/test_reliability_probes.py`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
  sys.path.insert(0, REPO)

from ospiel_team import atomic_io  # noqa: E402
from ospiel_team.runner import report  # noqa: E402
from tests.integration import probes  # noqa: E402

DEFAULT_OUT = "results/reliability/probes.json"  # from the repository root, as every record


def measure(argv: list[str]) -> dict:
  """Runs every probe; returns the record (provenance, per-probe entries, summary)."""
  record = report.provenance(["python", "benchmarks/reliability_probes.py"] + argv)
  record["load_average_before"] = list(os.getloadavg())
  t0 = time.perf_counter()
  entries = probes.run_all()
  record["wall_seconds"] = round(time.perf_counter() - t0, 2)
  record["load_average_after"] = list(os.getloadavg())
  record.update(probes.summary(entries))
  record["probes"] = entries
  return record


def main(argv: list[str]) -> int:
  """Runs the probes and writes the record; returns 1 when a probe did not answer clearly."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--out", default=DEFAULT_OUT, help="the record to write")
  args = parser.parse_args(argv)
  record = measure(argv)
  atomic_io.write_text(args.out, json.dumps(record, indent=1) + "\n")
  bad = [e for e in record["probes"] if e["outcome"] != "clear"]
  for klass, counts in record["classes"].items():
    print(f"{klass:20s} {counts}")
  for e in bad:
    print(f"NOT CLEAR: {e['klass']}: {e['description']}: {e['outcome']}: {e['detail']}")
  print(f"wrote {args.out}")
  return 1 if bad else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
