r"""The size of the package's wheel, by part: code, shipped bridge models, shipped datasets.

Builds the wheel as `tests/integration/test_wheel.py` does (`pip wheel . --no-deps
--no-build-isolation --no-index` on a copy of setup.py, README.md, LICENSE and ospiel_team/),
then records the wheel's size in bytes, the compressed and uncompressed bytes of each part
(`ospiel_team/bridge/models/`, `ospiel_team/bridge/data/`, everything else) and its largest
files, with the command, commit and machine, to `--json_out` (written atomically).

Usage:
  python benchmarks/wheel_size.py
  python benchmarks/wheel_size.py --json_out /tmp/wheel_size.json
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("json_out", "results/install/wheel_size.json", "Where the record goes.")

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = (("models", "ospiel_team/bridge/models/"), ("datasets", "ospiel_team/bridge/data/"))


def part_of(name: str) -> str:
  """The part of the wheel that the archive member `name` belongs to."""
  for part, prefix in PARTS:
    if name.startswith(prefix):
      return part
  return "code"


def build_wheel(out_dir: str) -> str:
  """Builds the wheel from a copy of the source distribution's files; returns its path."""
  src = os.path.join(out_dir, "src")
  os.makedirs(src)
  for name in ("setup.py", "README.md", "LICENSE"):
    shutil.copy(os.path.join(_REPO, name), os.path.join(src, name))
  shutil.copytree(os.path.join(_REPO, "ospiel_team"), os.path.join(src, "ospiel_team"),
                  ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
  dist = os.path.join(out_dir, "dist")
  subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
                  "--no-index", "-q", "-w", dist], cwd=src, check=True, capture_output=True)
  (wheel,) = [f for f in os.listdir(dist) if f.endswith(".whl")]
  return os.path.join(dist, wheel)


def measure(wheel: str) -> dict:
  """The wheel's bytes and, per part, its files' compressed and uncompressed bytes."""
  parts = {p: dict(files=0, compressed_bytes=0, bytes=0) for p in ("code", "models", "datasets")}
  largest = []
  with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
      part = parts[part_of(info.filename)]
      part["files"] += 1
      part["compressed_bytes"] += info.compress_size
      part["bytes"] += info.file_size
      largest.append((info.compress_size, info.filename))
  largest.sort(reverse=True)
  return dict(wheel=os.path.basename(wheel), wheel_bytes=os.path.getsize(wheel), parts=parts,
              largest=[dict(name=n, compressed_bytes=s) for s, n in largest[:5]])


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  atomic_io.check_writable(FLAGS.json_out, flag="--json_out")
  with tempfile.TemporaryDirectory() as tmp:
    record = dict(report.provenance(["python"] + sys.argv), **measure(build_wheel(tmp)))
  atomic_io.write_text(FLAGS.json_out, json.dumps(record, indent=1) + "\n")
  mb = record["wheel_bytes"] / 1e6
  print(f"{record['wheel']}: {mb:.1f} MB; " + ", ".join(
      f"{p} {v['compressed_bytes'] / 1e6:.1f} MB" for p, v in record["parts"].items()))


if __name__ == "__main__":
  app.run(main)
