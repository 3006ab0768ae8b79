"""The example scripts' user errors are one line naming the bad value, found before any work."""

import os
import subprocess
import sys

from tests import repo as tests_repo

REPO = tests_repo.REPO


def _run(script, *args, cwd):
  res = subprocess.run([sys.executable, os.path.join(REPO, "examples", script), *args],
                       cwd=cwd, capture_output=True, text=True, timeout=300)
  assert res.returncode != 0
  assert "Traceback" not in res.stderr, res.stderr
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1, res.stderr
  return errors[0]


def test_evaluate_policy_names_the_bad_game(tmp_path):
  line = _run("evaluate_policy.py", "--game", "no_such_game", cwd=tmp_path)
  assert line == "evaluate_policy: error: --game 'no_such_game': Unknown game 'no_such_game'."
  line = _run("evaluate_policy.py", "--game", "team_kuhn(players=8,ranks=8)", cwd=tmp_path)
  assert "41,328,000 terminal histories" in line and "max_nodes=30,000,000" in line


def test_match_checks_out_before_playing(tmp_path):
  afile = tmp_path / "afile"
  afile.write_text("x")
  res = subprocess.run([sys.executable, "-m", "ospiel_team.cli.match", "--boards", "100000",
                        "--out", str(afile)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
  assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert errors == [f"match: error: --out {str(afile)!r} is an existing file, not a folder"]
  assert "boards" not in res.stdout  # no match was played


def test_bridge_opening_table_user_errors(tmp_path):
  line = _run("bridge_opening_table.py", "--model", "no_such_model", cwd=tmp_path)
  assert "unknown model 'no_such_model'" in line
  line = _run("bridge_opening_table.py", "--model", "natural", "--json", str(tmp_path),
              cwd=tmp_path)
  assert f"--json {str(tmp_path)!r} is an existing folder" in line


def test_team_lp_table_checks_outputs_before_solving(tmp_path):
  res = subprocess.run([sys.executable, os.path.join(REPO, "benchmarks", "team_lp_table.py"),
                        "--out", str(tmp_path), "--instances", "21K3"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
  assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
  assert f"team_lp_table: error: --out {str(tmp_path)!r} is an existing folder" in res.stderr
