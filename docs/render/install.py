"""The install page's figures: the wheel's size by part.

Record: `install/wheel_size.json` (`benchmarks/wheel_size.py`).
"""

from render import common

WHEEL = "install/wheel_size.json"


def _mb(n: int) -> str:
  return f"{common.num(n / 1e6, 1)} MB"


def wheel_size() -> str:
  """'7.5 MB (shipped models 5.8 MB, datasets 1.2 MB, code 0.4 MB)', compressed."""
  rec = common.load(WHEEL)
  p = rec["parts"]
  return (f"{_mb(rec['wheel_bytes'])} (shipped bridge models {_mb(p['models']['compressed_bytes'])}"
          f", shipped bridge datasets {_mb(p['datasets']['compressed_bytes'])}, code "
          f"{_mb(p['code']['compressed_bytes'])})")


def wheel_size_provenance() -> str:
  """The command, commit and date of the wheel-size record."""
  rec = common.load(WHEEL)
  return common.provenance(" ".join(rec["command"]), record=WHEEL, commit=common.commit_label(rec),
                           date=rec["date"][:16].replace("T", " ") + " UTC")
