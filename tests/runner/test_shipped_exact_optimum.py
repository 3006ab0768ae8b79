"""simple_bidding(16)'s proven optimum 2752/256 ships with the package, with its provenance."""
import json
import os
import subprocess
import sys
import time

import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.cli import coop_optimum as coop_optimum_cli
from ospiel_team.runner import reference
from tests import repo as tests_repo

EXACT = os.path.join(tests_repo.REPO, "results", "coop_optima", "simple_bidding_exact.json")


def _no_solve(monkeypatch):
  def fail(*args, **kwargs):
    raise AssertionError("solved although the optimum ships with the package")
  monkeypatch.setattr(coop_optimum, "solve", fail)


def test_runner_reference_of_simple_bidding_16(monkeypatch):
  _no_solve(monkeypatch)
  with open(EXACT, encoding="utf-8") as f:
    row = next(r for r in json.load(f)["rows"] if r["size"] == 16)
  assert row["total"] == row["lower_bound"] == 2752
  ref = reference.reference(pyspiel.load_game("simple_bidding(size=16)"), None, "value")
  assert ref["value"] == 2752 / 256 == 10.75
  assert "simple_bidding_exact.json" in ref["label"] and "2752/256" in ref["label"]
  assert "simple_bidding_search" in ref["label"]


def test_cli_answers_from_the_record(monkeypatch, capsys):
  _no_solve(monkeypatch)
  start = time.perf_counter()
  status = coop_optimum_cli.main(["ospiel-team-coop-optimum", "--game",
                                  "simple_bidding(size=16)", "--json"])
  assert status == 0 and time.perf_counter() - start < 10
  out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
  assert out["value"] == 10.75 and out["proven_optimal"] and out["method"] == "record"
  assert "simple_bidding_exact.json" in out["source"]


def test_cli_norecord_solves(capsys):
  status = coop_optimum_cli.main(["ospiel-team-coop-optimum", "--game", "tiny_hanabi",
                                  "--norecord", "--json"])
  assert status == 0
  out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
  assert out["method"] != "record" and out["value"] == pytest.approx(10.0)


def test_generator_merges_the_exact_record(tmp_path):
  """Without the exact record the generated file has no simple_bidding(16); with it, 10.75."""
  script = os.path.join(tests_repo.REPO, "benchmarks", "coop_optima.py")
  record = os.path.join(tests_repo.REPO, "results", "coop_optima", "optima.json")
  out = {}
  for name, exact in (("with", EXACT), ("without", str(tmp_path / "none.json"))):
    path = tmp_path / f"{name}.json"
    subprocess.run([sys.executable, script, "--package_data_only", "--out", record,
                    "--package_data", str(path), "--exact", exact],
                   check=True, capture_output=True, text=True, timeout=120)
    out[name] = json.loads(path.read_text())["optima"]
  assert "simple_bidding(size=16)" not in out["without"]
  assert out["with"]["simple_bidding(size=16)"]["value"] == 10.75
  assert set(out["with"]) - set(out["without"]) == {"simple_bidding(size=16)"}
