"""The command-line page, the home page and the README list the commands `setup.py` installs.

The command-line page's flag tables are rendered from the code (docs/render/cli.py); here they
are checked against a second source, each command's own `--help` output (its `main`, run in
this process), so that a table that drops, renames or mis-states a flag fails. The page is
rendered as mkdocs-macros renders it; `check_cli_page` takes the page's text, so that it can
be run on any version of the page.
"""
import contextlib
import importlib
import io
import os
import re
import sys

from tests import repo as tests_repo

REPO = tests_repo.REPO
DOCS = os.path.join(REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

import render  # noqa: E402
from render import cli  # noqa: E402

_CONSOLE_SCRIPT = re.compile(r'"(ospiel-team-[a-z-]+) = (ospiel_team\.cli\.[a-z_]+):run"')


def setup_scripts() -> dict[str, str]:
  """setup.py's console scripts, read with a regular expression (not the renderer's parser)."""
  with open(os.path.join(REPO, "setup.py"), encoding="utf-8") as f:
    return dict(_CONSOLE_SCRIPT.findall(f.read()))


def help_flags(module: str) -> dict[str, str | None]:
  """The flags `python -m MODULE --help` prints, with the default absl prints (None: none)."""
  out = io.StringIO()
  with contextlib.redirect_stdout(out):
    status = importlib.import_module(module).main([module, "--help"])
  assert status == 0
  text = out.getvalue().split("\nFlags:\n", 1)[1]
  text = text.split("\nabsl.flags:\n", 1)[0]  # absl's own --flagfile and --undefok
  found = {}
  for name, body in re.findall(r"^  --(?:\[no\])?(\w+):(.*?)(?=^  --|\Z)", text, re.M | re.S):
    default = re.search(r"^\s*\(default: (.*)\)$", body, re.M)  # a line of its own
    # absl prints a default with quotes ('auto', "['kuhn_poker']"); unset flags print none.
    found[name] = None if default is None else default.group(1)
  return found


def _normal(text: str | None) -> str | None:
  """absl's printed default as the page's table writes it."""
  if text is None:
    return None
  text = text.strip()
  if text[:1] in "'\"" and text[-1:] == text[:1]:
    text = text[1:-1]
  if text.startswith("[") and text.endswith("]"):  # a multi flag: "['kuhn_poker']", "[]"
    text = ",".join(re.findall(r"'([^']*)'", text))
    return text or None
  if text == "":
    return '""'
  try:
    return f"{float(text):g}" if re.fullmatch(r"-?[\d.]+(e-?\d+)?", text) else text
  except ValueError:
    return text


def page_sections(text: str) -> dict[str, str]:
  """The page's `## ospiel-team-...` sections by command name."""
  parts = re.split(r"(?m)^## (ospiel-team-[a-z-]+)\n", text)
  return {parts[i]: parts[i + 1].split("\n## ", 1)[0] for i in range(1, len(parts), 2)}


def table_flags(section: str) -> dict[str, str | None]:
  """The flag table of a command's section: flag name -> the default it states (None: none)."""
  rows = re.findall(r"^\| `--(?:\[no\])?(\w+)` \| (?:`([^`]*)`|(none)) \|", section, re.M)
  return {name: (None if none else _normal(value)) for name, value, none in rows}


def check_cli_page(text: str) -> list[str]:
  """What the command-line page `text` gets wrong against setup.py and the commands' --help."""
  problems = []
  scripts = setup_scripts()
  sections = page_sections(text)
  if set(sections) != set(scripts):
    problems.append(f"sections {sorted(sections)} are not setup.py's commands {sorted(scripts)}")
  for command, module in scripts.items():
    if command not in sections:
      continue
    want = {name: _normal(d) for name, d in help_flags(module).items()}
    have = table_flags(sections[command])
    if set(have) != set(want):
      problems.append(f"{command}: the page lists {sorted(set(have) - set(want))} that --help "
                      f"does not, and misses {sorted(set(want) - set(have))}")
    for name in set(have) & set(want):
      if have[name] != want[name]:
        problems.append(f"{command} --{name}: the page says default {have[name]!r}, --help "
                        f"{want[name]!r}")
  return problems


def test_the_renderer_reads_setup_pys_seven_commands():
  scripts = setup_scripts()
  assert len(scripts) == 7
  assert cli.entry_points() == scripts


def test_the_cli_page_lists_every_flag_of_every_command_with_its_default():
  text = render.render_page(os.path.join(DOCS, "cli.md"))
  assert check_cli_page(text) == []
  # Flags that a hand-typed page once missed or mis-stated are there, as the code has them.
  sections = page_sections(text)
  solve = table_flags(sections["ospiel-team-solve"])
  assert solve["tol"] is None and solve["progress_interval"] == "5"
  assert "record" in table_flags(sections["ospiel-team-coop-optimum"])
  train = table_flags(sections["ospiel-team-train-bridge"])
  assert {"algorithm", "clip_eps", "opponent_pool_size", "max_cpu_minutes"} <= set(train)


def test_the_check_sees_a_missing_flag_and_a_wrong_default():
  text = render.render_page(os.path.join(DOCS, "cli.md"))
  broken = re.sub(r"^\| `--progress_interval` .*\n", "", text, flags=re.M)
  broken = broken.replace("| `--method` | `auto` |", "| `--method` | `lp` |", 1)
  problems = check_cli_page(broken)
  assert any("progress_interval" in p for p in problems), problems
  assert any("--method" in p and "'lp'" in p for p in problems), problems


def test_the_home_page_and_the_readme_list_every_command():
  scripts = set(setup_scripts())
  home = render.render_page(os.path.join(DOCS, "index.md"))
  row = next(line for line in home.splitlines() if line.startswith("| command lines |"))
  assert set(re.findall(r"`(ospiel-team-[a-z-]+)`", row)) == scripts
  with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
    readme = f.read()
  table = readme.split("## Command lines", 1)[1].split("\n## ", 1)[0]
  assert set(re.findall(r"^\| `(ospiel-team-[a-z-]+)` \|", table, re.M)) == scripts


def test_every_repository_file_a_hand_written_page_names_exists():
  """`tests/...`, `ospiel_team/...`, `docs/...` paths on the pages and the README exist."""
  texts = {os.path.relpath(p, REPO): open(p, encoding="utf-8").read() for p in render.pages()}
  with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
    texts["README.md"] = f.read()
  missing = []
  for page, text in texts.items():
    for path in re.findall(r"`((?:tests|ospiel_team|docs)/[\w/.-]+\.(?:py|md|css|json))`", text):
      if not os.path.exists(os.path.join(REPO, path)):
        missing.append(f"{page}: {path}")
  assert not missing, missing
