"""Limits are honoured and bad values refused before the work they would spoil: coop-optimum's
--time_limit covers the whole command (the walk included) and brute force stops at its time
and memory limits as it grows; bad --solver, --seeds, --solver_options and --pairs are one line
before any solve or build starts."""

import time

import pyspiel
import pytest

from ospiel_team import errors
from ospiel_team.algorithms.coop import optimum
from ospiel_team.cli import compare as compare_cli
from ospiel_team.cli import coop_optimum as coop_cli
from ospiel_team.cli import team_solve as solve_cli
from ospiel_team.cli import uncontested as uncontested_cli
from ospiel_team.lp import highs
from ospiel_team.lp import plan_mip
from ospiel_team.runner import parse_seeds
from ospiel_team.tree.game_tree import GameTree


def _line(capfd) -> str:
  err = [ln for ln in capfd.readouterr().err.splitlines() if ln.strip()]
  assert len(err) == 1 and "Traceback" not in err[0], err
  return err[0]


class _Walked(Exception):
  """Raised where the command would walk the game's tree."""


def _no_walk(*args, **kwargs):
  raise _Walked


def test_coop_time_limit_covers_the_walk(capfd):
  t0 = time.perf_counter()
  rc = coop_cli.main(["coop", "--game", "mini_bridge(size=3)", "--norecord", "--method",
                      "brute_force", "--time_limit", "1e-9"])
  assert rc == 3 and time.perf_counter() - t0 < 30
  assert "--time_limit 1e-09 s ran out before the walk" in _line(capfd)


def test_brute_force_stops_at_its_time_and_memory_limits():
  tree = GameTree(pyspiel.load_game("tiny_hanabi"))
  w = optimum.team_weights(tree, [0, 1])
  full = plan_mip.brute_force_best_joint(tree, [0, 1], w, time_limit=60)
  assert full.value == pytest.approx(optimum.solve(tree, method="mip").value * 2)
  with pytest.raises(highs.TimeLimitError, match="time limit ran out while enumerating"):
    plan_mip.brute_force_best_joint(tree, [0, 1], w, time_limit=0.0)
  with pytest.raises(errors.SizeLimitError, match="over the memory budget of 100 bytes"):
    plan_mip.brute_force_best_joint(tree, [0, 1], w, max_memory=100)


def test_solve_refuses_a_bad_lp_solver_before_the_walk(capfd, monkeypatch):
  monkeypatch.setattr(solve_cli, "_walked_tree", _no_walk)
  rc = solve_cli.main(["solve", "--game", "kuhn_poker(players=3)", "--teams", "0,1|2",
                       "--solver", "bogus", "--time_limit", "100"])
  assert rc == 2
  assert _line(capfd) == ("error: --solver must be one of 'auto', 'choose', 'simplex', 'ipm', "
                          "'pdlp', 'ipx', 'hipo', 'qpasm', got 'bogus'")
  rc = solve_cli.main(["solve", "--game", "kuhn_poker(players=3)", "--teams", "0,1|2",
                       "--highs_option", "no_such_option=1", "--time_limit", "100"])
  assert rc == 2 and "--highs_option" in _line(capfd)


@pytest.mark.parametrize("args,want", [
    (["--seeds", str(2**70) + ",1"], f"seed {2**70} is not from 0 to 4294967295"),
    (["--solvers", "nfsp", "--solver_options", "nfsp.episodes=-5"],
     "solver option nfsp.episodes must be an integer >= 1, got -5"),
    (["--solvers", "nfsp", "--solver_options", "nfsp.rl_lr=nan"],
     "solver option nfsp.rl_lr must be a finite number > 0, got nan"),
    (["--solvers", "ed", "--solver_options", "ed.lr=-1"],
     "solver option ed.lr must be a finite number > 0, got -1.0"),
])
def test_compare_refuses_bad_seeds_and_options_in_one_line(args, want, tmp_path, capfd):
  out = tmp_path / "o"
  rc = compare_cli.main(["compare", "--seconds", "0.05", "--workers", "1", "--noreference",
                         "--out", str(out), *args])
  assert rc == 2
  assert want in _line(capfd)
  assert not out.exists() or not list(out.iterdir())  # no run started


def test_parse_seeds_names_bad_values():
  for bad in (None, [1.5], [True], [2**40]):
    with pytest.raises(ValueError, match="seeds"):  # the runner's UserError
      parse_seeds(bad)
  assert parse_seeds([0, 2**32 - 1]) == [0, 2**32 - 1]


def test_uncontested_estimates_its_build_and_refuses_what_cannot_fit(tmp_path, capfd):
  rc = uncontested_cli.main(["uncontested", "--pairs", str(10**9), "--out",
                             str(tmp_path / "c.npz")])
  line = _line(capfd)
  assert rc == 2 and "5,000,000,000 double-dummy tables" in line and "lower --pairs" in line
  assert not list(tmp_path.iterdir())
