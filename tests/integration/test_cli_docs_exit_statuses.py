"""docs/cli.md states the commands' exit statuses and `--force` as the code defines them.

The statuses come from `ospiel_team/cli/_flags.py` (EXIT_*), the commands with `--force` from
each command's own flags; the page is read and parsed, so a status or a command added to one
side only fails here.
"""
import importlib
import os
import re
import sys

from absl import flags

from ospiel_team.cli import _flags
from tests import repo as tests_repo

PAGE = os.path.join(tests_repo.REPO, "docs", "cli.md")
if os.path.dirname(PAGE) not in sys.path:
  sys.path.insert(0, os.path.dirname(PAGE))
import render  # noqa: E402  (docs/render: the page's flag tables are rendered from the code)

COMMANDS = {  # console script -> module (setup.py's entry points, test_cli_help checks them)
    "ospiel-team-compare": "ospiel_team.cli.compare",
    "ospiel-team-solve": "ospiel_team.cli.team_solve",
    "ospiel-team-coop-optimum": "ospiel_team.cli.coop_optimum",
    "ospiel-team-match": "ospiel_team.cli.match",
    "ospiel-team-make-dataset": "ospiel_team.cli.make_dataset",
    "ospiel-team-uncontested": "ospiel_team.cli.uncontested",
    "ospiel-team-train-bridge": "ospiel_team.cli.train_bridge",
}


def _page() -> str:
  """docs/cli.md as the site shows it (its flag tables rendered)."""
  return render.render_page(PAGE)


def _section(title: str) -> str:
  text = _page()
  start = text.index(f"\n## {title}\n")
  end = text.find("\n## ", start + 1)
  return text[start:end if end >= 0 else len(text)]


def _status_rows() -> dict[int, str]:
  rows = re.findall(r"^\| (\d+) \| (.+) \|$", _section("Exit statuses"), re.M)
  return {int(code): meaning for code, meaning in rows}


def test_the_page_lists_exactly_the_codes_exit_statuses():
  codes = {name: value for name, value in vars(_flags).items() if name.startswith("EXIT_")}
  assert set(codes) == {"EXIT_USER_ERROR", "EXIT_DISK_FULL", "EXIT_TIME_LIMIT",
                        "EXIT_DIVERGED"}, codes
  rows = _status_rows()
  assert set(rows) == {0} | set(codes.values())
  assert "space" in rows[_flags.EXIT_DISK_FULL]
  assert "user error" in rows[_flags.EXIT_USER_ERROR]
  assert "--force" in rows[_flags.EXIT_USER_ERROR]
  assert "time limit" in rows[_flags.EXIT_TIME_LIMIT]
  assert "diverged" in rows[_flags.EXIT_DIVERGED]


def _has_force(module_name: str) -> bool:
  """Whether the command defines --force (on a fresh FlagValues, as its `main` does)."""
  fv = flags.FlagValues()
  importlib.import_module(module_name).define_flags(fv)
  return "force" in fv


def test_the_force_section_names_exactly_the_commands_with_force():
  with_force = {c for c, m in COMMANDS.items() if _has_force(m)}
  assert with_force, "no command defines --force"
  section = _section("`--force`: runs beyond the machine")
  named = set(re.findall(r"`(ospiel-team-[a-z-]+)`", section))
  assert named == with_force


def test_every_command_with_force_lists_it_among_its_flags():
  text = _page()
  for command, module in COMMANDS.items():
    if _has_force(module):
      block = text[text.index(f"\n## {command}\n"):]
      block = block[:block.find("\n## ", 1)]
      assert "| `--[no]force` |" in block, command
