"""Command-line user errors are one line on stderr (exit 2), a full disk is one line (exit 1)
naming the file with finished work kept, and expensive runs say their cost before they start.

Every command runs in this process (each command's `main(argv)`, on its own flags), so no test
pays for a fresh interpreter.
"""
import importlib.util
import os

import pytest

from ospiel_team import atomic_io
from ospiel_team import paths
from ospiel_team.cli import compare as compare_cli
from ospiel_team.cli import coop_optimum as coop_cli
from ospiel_team.cli import make_dataset as make_dataset_cli
from ospiel_team.cli import team_solve as solve_cli
from tests.integration import probes


def _one_line(err: str) -> str:
  lines = [ln for ln in err.splitlines() if ln.strip()]
  assert len(lines) == 1, err[-2000:]
  assert "Traceback" not in err
  return lines[0]


def _error_line(err: str) -> str:
  """The one error line of a command that also draws a progress bar on stderr."""
  assert "Traceback" not in err
  lines = [ln for ln in err.splitlines() if "error" in ln]
  assert len(lines) == 1, err[-2000:]
  return lines[0]


def _compare(out, *args) -> int:
  return compare_cli.main(["ospiel-team-compare", "--solvers", "cfr_plus", "--seconds", "0.05",
                           "--seeds", "1", "--workers", "1", "--noreference", "--num_points",
                           "2", "--out", str(out), *args])


def _make_dataset(*args) -> int:
  return make_dataset_cli.main(["make_dataset", "--no_progress", *args])


def test_lp_max_local_zero_is_one_line(capfd):
  rc = coop_cli.main(["coop", "--game", "tiny_hanabi", "--method", "lp", "--lp_max_local", "0"])
  assert rc == 2 and "--lp_max_local" in _one_line(capfd.readouterr().err)


def test_mip_out_of_time_is_one_line(capfd):
  rc = coop_cli.main(["coop", "--game", "mini_bridge(size=3)", "--norecord", "--method", "mip",
                      "--time_limit", "1e-6"])
  assert rc == 3 and "time_limit" in _one_line(capfd.readouterr().err)


def test_huge_seed_count_is_one_line(tmp_path, capfd):
  assert _compare(tmp_path / "o", "--seeds", "10000000000") == 2
  assert "--seeds" in _one_line(capfd.readouterr().err)


@pytest.mark.parametrize("kind", ["file", "read_only"])
def test_unusable_cache_folder_is_one_line(tmp_path, capfd, monkeypatch, kind):
  if kind == "file":
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv(paths.ENV_VAR, str(tmp_path / "afile"))
  else:  # root writes anywhere: the read-only folder is simulated
    monkeypatch.setenv(paths.ENV_VAR, str(tmp_path / "cache"))
    monkeypatch.setattr(paths.os, "access", lambda *a, **k: False)
  assert _compare(tmp_path / "o") == 2
  line = _one_line(capfd.readouterr().err)
  assert paths.ENV_VAR in line
  assert not os.path.exists(tmp_path / "o" / "results.json")


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed")
def test_ray_missing_is_one_line_with_the_install_command(tmp_path, capfd):
  assert _make_dataset("--deals", "10", "--out", str(tmp_path / "d.npz"), "--ray", "local") == 2
  assert 'pip install "ospiel-team[ray]"' in _one_line(capfd.readouterr().err)
  assert not os.path.exists(str(tmp_path / "d.npz") + ".chunks")


@pytest.mark.parametrize("main", [coop_cli.main, solve_cli.main])
def test_unknown_game_is_one_line_with_close_names(capfd, main):
  rc = main(["prog", "--game", "kuhn_pokr"])
  err = capfd.readouterr().err  # fd 2: OpenSpiel's C++ list of games would land here
  line = _one_line(err)
  assert rc == 2 and "'kuhn_pokr'" in line and "kuhn_poker" in line
  assert "Available games" not in err


def _enospc_for(monkeypatch, target: str, after: int = 0) -> list:
  """Makes atomic writes of the files named `target` (or ending in it, for ".ext") fail with
  ENOSPC inside the atomic writer (after `after` such writes succeed), as a full disk does:
  the failing write names no file."""
  seen = []
  monkeypatch.setattr(atomic_io, "write_with",
                      probes.disk_full_writer(atomic_io.write_with, target, after, seen))
  return seen


def test_compare_on_a_full_disk_keeps_results_and_a_rerun_draws_the_figure(tmp_path, capfd,
                                                                          monkeypatch):
  out = tmp_path / "o"
  with monkeypatch.context() as m:
    _enospc_for(m, "curves.png")
    assert _compare(out) == 1
  line = _error_line(capfd.readouterr().err)
  assert "curves.png" in line and "no space left" in line and "nothing finished was lost" in line
  assert (out / "results.json").is_file() and (out / "results.md").is_file()
  assert not (out / "curves.png").exists()
  assert not [f for f in os.listdir(out) if f.startswith(".tmp_")]
  assert _compare(out) == 0  # space freed: the rerun draws the figure
  assert (out / "curves.png").stat().st_size > 0


def test_make_dataset_on_a_full_disk_keeps_finished_chunks(tmp_path, capfd, monkeypatch):
  out = tmp_path / "d.npz"
  with monkeypatch.context() as m:
    _enospc_for(m, ".npz", after=1)  # the first chunk is written, the second is not
    assert _make_dataset("--deals", "2", "--chunk", "1", "--workers", "1",
                         "--out", str(out)) == 1
  line = _one_line(capfd.readouterr().err)
  assert "chunk_" in line and "no space left" in line and "nothing finished was lost" in line
  chunks = [f for f in os.listdir(str(out) + ".chunks") if f.startswith("chunk_")]
  assert len(chunks) == 1


class _Started(Exception):
  """Raised where the solve would start walking the game's tree."""


def _no_walk(*args, **kwargs):
  raise _Started


def test_comm_8_says_its_cost_before_it_starts(capfd, monkeypatch):
  monkeypatch.setattr(coop_cli.resolver, "resolve", _no_walk)
  with pytest.raises(_Started):
    coop_cli.main(["coop", "--game", "comm(length=8)", "--norecord"])
  line = _one_line(capfd.readouterr().err)
  assert "16,777,216 terminal histories" in line and "about" in line


def test_simple_bidding_29_by_branch_and_bound_is_refused_without_force(capfd, monkeypatch):
  monkeypatch.setattr(coop_cli.resolver, "resolve", _no_walk)
  args = ["coop", "--game", "simple_bidding(size=29)", "--method", "bidding_bb"]
  assert coop_cli.main(args) == 2
  line = _one_line(capfd.readouterr().err)
  assert "years" in line and "--force" in line
  with pytest.raises(_Started):  # --force: the cost is said, then the run starts
    coop_cli.main(args + ["--force"])
  assert "years" in _one_line(capfd.readouterr().err)


def test_a_trillion_deals_are_refused_before_any_work(tmp_path, capfd):
  out = tmp_path / "d.npz"
  assert _make_dataset("--deals", "1000000000000", "--out", str(out)) == 2
  line = _one_line(capfd.readouterr().err)
  assert "--deals 1,000,000,000,000" in line and "--force" in line and "years" in line
  assert not os.path.exists(str(out) + ".chunks")


def test_a_long_build_says_its_cost_and_a_build_beyond_the_disk_is_refused(tmp_path, capfd,
                                                                        monkeypatch):
  started = []
  monkeypatch.setattr(make_dataset_cli.dataset_builder, "build_dataset",
                      lambda *a, **k: started.append(a))
  out = str(tmp_path / "d.npz")
  assert _make_dataset("--deals", "100000", "--workers", "2", "--out", out) == 0
  assert started and "CPU" in _one_line(capfd.readouterr().err)
  monkeypatch.setattr(make_dataset_cli.shutil, "disk_usage",
                      lambda p: type("U", (), {"free": 1000})())
  assert _make_dataset("--deals", "100000", "--out", out) == 2
  assert "free" in _one_line(capfd.readouterr().err) and len(started) == 1
