"""Reference values (`runner.reference`) and the shipped cooperative optima."""

import json
import os
import subprocess
import sys

import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team import atomic_io
from ospiel_team.algorithms.coop import optimum as coop_optimum
from ospiel_team.algorithms.team import team_lp
from ospiel_team.runner import reference
from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.game_tree import GameTree
from tests import repo as tests_repo

SHIPPED = os.path.join(tests_repo.REPO, "ospiel_team", "runner", "data", "coop_optima.json")
RECORD = os.path.join(tests_repo.REPO, "results", "coop_optima", "optima.json")


def test_shipped_optima_are_the_records_proven_rows(tmp_path):
  """The package data file is what benchmarks/coop_optima.py writes from its record, and holds
  every game the record proves (and no other)."""
  regenerated = tmp_path / "coop_optima.json"
  subprocess.run([sys.executable, os.path.join(tests_repo.REPO, "benchmarks", "coop_optima.py"),
                  "--package_data_only", "--out", RECORD, "--package_data", str(regenerated)],
                 check=True, capture_output=True, text=True, timeout=120)
  with open(SHIPPED, encoding="utf-8") as f:
    shipped = json.load(f)
  assert json.loads(regenerated.read_text()) == shipped
  with open(RECORD, encoding="utf-8") as f:
    rows = json.load(f)["rows"]
  proven = {r["game"]: r["value"] for r in rows
            if r.get("finished") and r.get("proven_optimal")}
  proven["simple_bidding(size=16)"] = 2752 / 256  # results/coop_optima/simple_bidding_exact.json
  assert proven.keys() == shipped["optima"].keys() == reference.shipped_coop_optima().keys()
  for game, value in proven.items():
    assert reference.shipped_coop_optima()[game] == pytest.approx(value, abs=1e-12)
  # mini_bridge(size=4): the common payoff 1.84 (3.68 summed over the two players)
  assert reference.shipped_coop_optima()["mini_bridge(size=4)"] == pytest.approx(1.84)


@pytest.mark.parametrize("game", ["tiny_hanabi()", "comm(length=3)", "simple_bidding(size=4)"])
def test_shipped_optima_agree_with_a_fresh_solve(game):
  res = coop_optimum.solve(GameTree(pyspiel.load_game(game)), time_limit=60)
  assert res.proven_optimal
  assert reference.shipped_coop_optima()[game] == pytest.approx(res.value, abs=1e-9)


def test_value_reference_reads_the_shipped_optimum_without_solving(monkeypatch):
  def fail(*args, **kwargs):
    raise AssertionError("solved although the optimum ships with the package")
  monkeypatch.setattr(coop_optimum, "solve", fail)
  game = pyspiel.load_game("mini_bridge(size=4)")
  ref = reference.reference(game, None, "value")
  assert ref == {"value": pytest.approx(1.84), "label": reference.PROVEN_LABEL}


def test_value_reference_of_an_unshipped_game_is_solved_and_stored(tmp_path):
  game = pyspiel.load_game("comm(length=2)")
  assert str(game) not in reference.shipped_coop_optima()
  tree = GameTree(game)
  ref = reference.reference(game, tree, "value", out_dir=str(tmp_path))
  # comm's optimum: both players always get 1 (one bit is communicated exactly).
  assert ref == {"value": pytest.approx(1.0), "label": reference.PROVEN_LABEL}
  stored = json.loads((tmp_path / "reference.json").read_text())
  assert list(stored) == ["value|comm(length=2)|None", "content_digest"]
  assert atomic_io.read_json(str(tmp_path / "reference.json"), "reference") == {
      "value|comm(length=2)|None": ref}
  assert [p.name for p in tmp_path.iterdir()] == ["reference.json"]  # no temp file left


def test_edited_reference_is_solved_again_with_a_warning(tmp_path):
  game = pyspiel.load_game("comm(length=2)")
  tree = GameTree(game)
  ref = reference.reference(game, tree, "value", out_dir=str(tmp_path))
  path = tmp_path / "reference.json"
  path.write_text(path.read_text().replace('"value": 1.0', '"value": 2.0'))  # valid JSON
  with pytest.warns(UserWarning, match=f"{path}.*digest.*solving the reference again"):
    again = reference.reference(game, tree, "value", out_dir=str(tmp_path))
  assert again == ref and again["value"] == pytest.approx(1.0)
  assert atomic_io.read_json(str(path), "reference") == {"value|comm(length=2)|None": ref}


def test_tmecor_reference_and_store(tmp_path, monkeypatch):
  game = pyspiel.load_game("kuhn_poker(players=3)")
  teams = teams_lib.parse_teams("0,1|2", 3)
  ref = reference.reference(game, GameTree(game), "team_value_vs_br", teams,
                            out_dir=str(tmp_path))
  assert ref["value"] == pytest.approx(team_lp.solve(game, "0,1|2").value, abs=1e-9)
  assert ref["label"].startswith("TMECor value of team 1")

  def fail(*args, **kwargs):
    raise AssertionError("solved again although the store holds the value")
  monkeypatch.setattr(team_lp, "solve", fail)
  assert reference.reference(game, None, "team_value_vs_br", teams,
                             out_dir=str(tmp_path)) == ref


def test_nash_conv_reference_and_unknown_metric():
  game = pyspiel.load_game("kuhn_poker")
  assert reference.reference(game, None, "nash_conv")["value"] == 0.0
  with pytest.raises(ValueError, match="'bogus'"):
    reference.reference(game, None, "bogus")


def test_the_runner_reads_nothing_under_docs_or_results():
  """No module of the runner names the repository's docs/ or results/ folders in code."""
  folder = os.path.join(tests_repo.REPO, "ospiel_team", "runner")
  for dirpath, _, files in os.walk(folder):
    for name in files:
      if not name.endswith(".py"):
        continue
      with open(os.path.join(dirpath, name), encoding="utf-8") as f:
        code = f.read()
      for needle in ('"docs"', "'docs'", '"docs/', '"results"', '"results/'):
        assert needle not in code, f"{name} names {needle}"
