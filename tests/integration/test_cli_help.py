"""Every installed command answers --help with its usage and flags, and a bad flag in one line."""
import re
import subprocess
import sys

import pytest

from tests import repo

COMMANDS = {  # console script -> module, and one flag its help must list
    "ospiel-team-compare": ("ospiel_team.cli.compare", "--solvers"),
    "ospiel-team-solve": ("ospiel_team.cli.team_solve", "--instance"),
    "ospiel-team-coop-optimum": ("ospiel_team.cli.coop_optimum", "--warm_start"),
    "ospiel-team-match": ("ospiel_team.cli.match", "--bidder_a"),
    "ospiel-team-make-dataset": ("ospiel_team.cli.make_dataset", "--deals"),
    "ospiel-team-uncontested": ("ospiel_team.cli.uncontested", "--pairs"),
    "ospiel-team-train-bridge": ("ospiel_team.cli.train_bridge", "--deals_per_round"),
}


def _run(module, *args):
  return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                        timeout=120)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_shows_usage_and_flags(command):
  module, flag = COMMANDS[command]
  for help_flag in ("--help", "-h"):
    res = _run(module, help_flag)
    assert res.returncode == 0, res.stderr
    assert command in res.stdout and flag in res.stdout, res.stdout[:500]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_unknown_flag_is_one_line(command):
  res = _run(COMMANDS[command][0], "--no_such_flag=1")
  assert res.returncode == 2
  lines = res.stderr.strip().splitlines()
  assert len(lines) == 1 and "no_such_flag" in lines[0], res.stderr


def test_console_scripts_are_declared_for_every_command():
  setup = open(f"{repo.REPO}/setup.py", encoding="utf-8").read()
  declared = dict(re.findall(r'"(ospiel-team-[a-z-]+) = (ospiel_team\.cli\.[a-z_]+):run"', setup))
  assert declared == {c: m for c, (m, _) in COMMANDS.items()}
