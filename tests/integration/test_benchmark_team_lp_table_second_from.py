"""benchmarks/team_lp_table.py --second_from: a row without a second method takes the earlier
record's, re-checked against the row's own bracket (a bracket moved away must read DISAGREES),
and a missing file is a one-line error."""

import json
import os
import subprocess
import sys

from tests import repo as tests_repo

SCRIPT = os.path.join(tests_repo.REPO, "benchmarks", "team_lp_table.py")


def _run(*args, cwd):
  return subprocess.run([sys.executable, SCRIPT, *args], cwd=cwd, capture_output=True,
                        text=True, timeout=300)


def _row(name, value, lower, upper, second=None):
  r = dict(instance=name, game="kuhn_poker(players=3)", teams="0,1|2", method="lp",
           finished=True, value=value, lower=lower, upper=upper, exact=lower == upper,
           seconds=0.04, wall_seconds=0.7, load_before="1", load_after="1")
  if second is not None:
    r["second"] = second
  return r


def test_second_method_taken_from_an_earlier_record_and_rechecked(tmp_path):
  v = -1 / 24  # 21K4's exact value (-.0417 in the paper)
  out = tmp_path / "t.json"
  out.write_text(json.dumps({"rows": [_row("21K4", v, v, v), _row("21K3", 0.0, 0.0, 0.0)]}))
  near = dict(method="dag", finished=True, value=v, lower=v - 2e-6, upper=v + 1e-6)
  far = dict(method="dag", finished=True, value=0.5, lower=0.4999, upper=0.5)
  earlier = tmp_path / "earlier.json"
  earlier.write_text(json.dumps({"rows": [_row("21K4", v, v, v, second=near),
                                          _row("21K3", 0.0, 0.0, 0.0, second=far)]}))
  res = _run("--markdown_only", "--instances", "21K4,21K3", "--second_from", str(earlier),
             "--out", str(out), "--out_md", str(tmp_path / "t.md"), cwd=tmp_path)
  assert res.returncode == 0, res.stderr[-2000:]
  rows = {r["instance"]: r for r in json.loads(out.read_text())["rows"]}
  assert rows["21K4"]["second"]["check"] == "agrees: -0.0417"
  assert rows["21K3"]["second"]["check"].startswith("DISAGREES")
  assert rows["21K4"]["second"]["source"] == "earlier.json"
  res = _run("--markdown_only", "--second_from", str(tmp_path / "none.json"), "--out", str(out),
             "--out_md", str(tmp_path / "t.md"), cwd=tmp_path)
  assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
  assert "--second_from" in res.stderr and "is not a file" in res.stderr
