"""Every default a page states is the code's default.

Every page under docs/ (rendered as the site shows it) and the README are read for the
defaults they state, in each of the forms the pages use:

- a command's flag, in a command-line section (`## ospiel-team-...`): a row of its flag table
  (`| `--tol` | none | ...`) or a listing as `--help` prints it (`--tol: ... (default: ...)`);
- a flag in prose: "`--out` (default `out/compare`)", "default `--engine numpy`",
  "`--seeds 5` ...; default 3";
- a game parameter in a games page's table ("`dealer` | `N` (default)", "`length` L, 1-8 (3)");
- a solver class's hyper-parameters in a table row ("`TreeDCFRSolver` | ... | α = 1.5, ...");
- the main job's defaults in the README and the runner page ("3 seeds", "6 solver CPU seconds").

A flag's stated default is right when it is the flag's default (absl's `FlagValues`, as the
command's `main` defines it) or, for a flag whose default is unset, when the code's help text
says it (an unset `--workers` is "all cores" because its help says so). The main job's time in
the README is checked against its record. `check_text` takes a page's text, so that any version
of a page can be checked.
"""
import dataclasses
import inspect
import os
import re
import sys

import pyspiel
import pytest

import ospiel_team  # noqa: F401  (registers the games whose parameters the pages state)
from tests import repo as tests_repo

REPO = tests_repo.REPO
DOCS = os.path.join(REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

import render  # noqa: E402
from render import cli  # noqa: E402
from render import runner  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Statement:
  """One default a page states: where, about what, and the value it gives."""
  page: str
  kind: str        # "flag", "param", "class"
  owner: str       # a command ("" when the page does not say which), a game or a class
  name: str        # the flag, parameter or argument
  value: str


def _flags_by_command() -> dict:
  return {c: {f.name: f for f in cli.flag_list(cli.command_flags(c))} for c in cli.entry_points()}


FLAGS = _flags_by_command()


def _same(stated: str, default) -> bool:
  stated = stated.strip().rstrip(".").strip("'\"`")
  if default is None:
    return stated.lower() in ("none", "")
  if isinstance(default, bool):
    return stated.lower() == str(default).lower()
  if isinstance(default, (list, tuple)):
    if stated.startswith("["):  # as absl prints a list: ['kuhn_poker']
      stated = ",".join(re.findall(r"'([^']*)'", stated))
    return stated.replace(" ", "") == ",".join(map(str, default)) or (
        not default and stated.lower() in ("none", "", "[]"))
  if isinstance(default, (int, float)):
    try:
      return float(stated) == float(default)
    except ValueError:
      return False
  return stated == str(default)


def _in_help(stated: str, flag) -> bool:
  """Whether the flag's help text says `stated` (what an unset default means)."""
  words = " ".join(stated.strip().strip("'\"`").split()).lower()
  text = " ".join(flag.help.split()).lower()
  if words and re.search(rf"(?<!\w){re.escape(words)}(?!\w)", text):
    return True
  if isinstance(flag.default, (int, float)) and not isinstance(flag.default, bool):
    # "(0 = all cores, 1 = inline)": the help names what the default number means.
    if re.search(rf"\b{flag.default:g}\s*[=:]\s*{re.escape(words)}", text):
      return True
  # "Default 6.0 when --iterations is not given": a number the help gives as the default.
  for said in re.findall(r"default:?\s+(-?[\d.]+)", text):
    try:
      if float(said.rstrip(".")) == float(words):
        return True
    except ValueError:
      pass
  return False


def flag_problem(s: Statement) -> str | None:
  """Why the flag statement `s` is wrong (None: right)."""
  if s.owner == "script":
    return None  # a script's flag, not a command's
  everyone = [c for c in FLAGS if s.name in FLAGS[c]]
  if s.owner.startswith("prose:"):  # the paragraph's commands that have it, else any command
    commands = [c for c in s.owner[6:].split(",") if s.name in FLAGS[c]] or everyone
  else:
    commands = [s.owner] if s.owner else everyone
  if s.owner in FLAGS and s.name not in FLAGS[s.owner]:
    return f"{s.page}: {s.owner} has no flag --{s.name} (the page says its default is {s.value!r})"
  for command in commands:
    flag = FLAGS[command][s.name]
    if _same(s.value, flag.default) or _in_help(s.value, flag):
      return None
  if not commands:
    return None  # a flag of a script, not of a command (checked by the commands' own test)
  got = {c: FLAGS[c][s.name].default for c in commands}
  return f"{s.page}: --{s.name} default {s.value!r} on the page, {got} in the code"


def param_problem(s: Statement) -> str | None:
  spec = {g.short_name: g.parameter_specification for g in pyspiel.registered_games()}
  if s.owner not in spec or s.name not in spec[s.owner]:
    return f"{s.page}: game {s.owner} has no parameter {s.name!r}"
  default = spec[s.owner][s.name]
  if not _same(s.value, default):
    return f"{s.page}: {s.owner}'s {s.name} default {s.value!r} on the page, {default!r} in code"
  return None


def class_problem(s: Statement) -> str | None:
  from ospiel_team.algorithms.nash import cfr
  params = inspect.signature(getattr(cfr, s.owner)).parameters
  if s.name not in params:
    return f"{s.page}: {s.owner} has no argument {s.name}"
  if not _same(s.value, params[s.name].default):
    return (f"{s.page}: {s.owner}({s.name}=) default {s.value} on the page, "
            f"{params[s.name].default} in the code")
  return None


_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma"}


def _command_statements(page: str, text: str) -> list[Statement]:
  """Flag defaults in a command's section: its flag table and `--help` listings."""
  found = []
  parts = re.split(r"(?m)^## (ospiel-team-[a-z-]+)\n", text)
  for i in range(1, len(parts), 2):
    command, body = parts[i], parts[i + 1].split("\n## ", 1)[0]
    for name, value, none in re.findall(
        r"^\| `--(?:\[no\])?(\w+)` \| (?:`([^`]*)`|(none)) \|", body, re.M):
      found.append(Statement(page, "flag", command, name, "none" if none else value))
    for name, entry in re.findall(r"^\s+--(?:\[no\])?(\w+): (.*?)(?=^\s+--|^```|\Z)", body,
                                  re.M | re.S):
      entry = " ".join(entry.split())
      for value in re.findall(r"\(default: ((?:[^()]|\([^()]*\))*)\)", entry):
        found.append(Statement(page, "flag", command, name, value))
  return found


_PROSE = (r"`--(\w+)`[^.;\n`]{0,30}?\(default:? `?([^`),;\n]+)`?",   # `--out` (default `x`)
          r"[Dd]efault:? `--(\w+)[ =]([^`]+)`",                   # the default `--engine numpy`
          r"`--(\w+) [^`]*`[^.\n]*?; default:? `?([\w./-]+)`?",     # `--seeds 5` ...; default 3
          r"`--(\w+)` processes \(default ([^;)\n]+)")            # `--workers` processes (default


def _prose_statements(page: str, text: str) -> list[Statement]:
  """Flag defaults stated in prose (outside code blocks), each with whose flag it is.

  A paragraph (or list item) that names commands states their flags' defaults (`prose:` and
  the commands); one that names a script (`benchmarks/x.py`) and no command, the script's
  (`script`: not a command's, not checked here); any other, whichever command has the flag.
  """
  prose = re.sub(r"```.*?```", "", text, flags=re.S)
  found = []
  for paragraph in re.split(r"\n\s*\n|\n(?=\s*[-*] |\|)", prose):
    commands = sorted(set(re.findall(r"ospiel-team-[a-z-]+", paragraph)) & set(FLAGS))
    if commands:
      owner = "prose:" + ",".join(commands)
    elif re.search(r"[\w/-]+\.py\b", paragraph):
      owner = "script"
    else:
      owner = ""
    found += [Statement(page, "flag", owner, name, value)
              for pattern in _PROSE for name, value in re.findall(pattern, paragraph)]
  return found


def _game_statements(page: str, text: str) -> list[Statement]:
  """Game parameter defaults in the games pages' tables."""
  found = []
  if page.endswith("games/bridge_bidding.md"):
    for name, cell in re.findall(r"^\| `(\w+)` \| (.*) \|$", text, re.M):
      said = (re.search(r"\(default `([^`]*)`", cell) or re.search(r"`([^`]*)` \(default\)", cell))
      if said:
        found.append(Statement(page, "param", "bridge_bidding", name, said.group(1)))
  for game, name, value in re.findall(r"^\| `(\w+)` \| `(\w+)` \w+, [\d-]+ \((\d+)\) \|", text,
                                      re.M):
    found.append(Statement(page, "param", game, name, value))
  return found


def _class_statements(page: str, text: str) -> list[Statement]:
  """Solver classes' hyper-parameter defaults in a table row (α = 1.5, β = 0, γ = 2)."""
  found = []
  for cls, cell in re.findall(r"^\| `(Tree\w+Solver)` \|.*\| ([^|]*=[^|]*) \|$", text, re.M):
    for greek, value in re.findall(r"([αβγ]) = ([\d.]+)", cell):
      found.append(Statement(page, "class", cls, _GREEK[greek], value))
  return found


def statements(page: str, text: str) -> list[Statement]:
  """Every default the page's `text` states, in the forms the module docstring lists."""
  return (_command_statements(page, text) + _prose_statements(page, text)
          + _game_statements(page, text) + _class_statements(page, text))


def check_text(page: str, text: str) -> tuple[list[Statement], list[str]]:
  """The defaults `text` states and the problems among them."""
  found = statements(page, text)
  check = {"flag": flag_problem, "param": param_problem, "class": class_problem}
  problems = [p for s in found if (p := check[s.kind](s))]
  return found, problems


def _pages() -> list[tuple[str, str]]:
  out = [(os.path.relpath(p, REPO), render.render_page(p)) for p in render.pages()]
  with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
    out.append(("README.md", f.read()))
  return out


@pytest.fixture(scope="module")
def pages():
  return _pages()


def test_every_default_a_page_states_is_the_codes(pages):
  found, problems = [], []
  for page, text in pages:
    f, p = check_text(page, text)
    found += f
    problems += p
  assert not problems, "\n".join(problems)
  # The forms above are all read: the command tables, prose, games and classes.
  kinds = {(s.kind, s.owner in FLAGS) for s in found}
  assert {("flag", True), ("flag", False), ("param", False), ("class", False)} <= kinds, kinds
  assert len([s for s in found if s.kind == "flag" and s.owner in FLAGS]) > 100
  prose = {(s.page, s.name) for s in found if s.kind == "flag" and s.owner not in FLAGS}
  assert ("docs/runner.md", "seeds") in prose and ("docs/runner.md", "out") in prose, prose


def test_a_wrong_default_is_caught():
  """The hand-typed `--tol` listing the command-line page once had, and other wrong defaults."""
  old = ("## ospiel-team-solve\n\n```text\n  --tol: anytime methods (cg, dag): target certified "
         "gap (default: 1e-6 for cg, 1e-4 for dag)\n  --method: one of ('auto', 'lp', 'cg', "
         "'dag')\n    (default: 'auto')\n```\n")
  found, problems = check_text("cli.md", old)
  assert {s.name for s in found} == {"tol", "method"}
  (line,) = problems
  assert "--tol" in line and "1e-6 for cg" in line
  _, problems = check_text("runner.md", "- **Seeds.** `--seeds 5` (seeds 0-4); default 5.")
  assert problems and "--seeds" in problems[0]
  # A paragraph about a command checks that command's flag; one about a script, nothing.
  _, problems = check_text("x.md", "`ospiel-team-match` writes to `--out` (default `m`).")
  assert problems and "'m'" in problems[0] and "ospiel-team-match" in problems[0]
  found, problems = check_text("x.md", "`benchmarks/x.py` writes to `--out` (default `m`).")
  assert found and not problems
  _, problems = check_text("games/bridge_bidding.md", "| `dealer` | `S` (default), `N` |")
  assert problems and "dealer" in problems[0]
  _, problems = check_text("algorithms/cfr.md", "| `TreeDCFRSolver` | r | p | α = 2, β = 0 |")
  assert problems and "alpha" in problems[0]


def test_the_main_jobs_defaults_and_time_in_the_readme_are_the_codes_and_its_records():
  with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
    readme = " ".join(f.read().split())
  compare = FLAGS["ospiel-team-compare"]
  sentence = readme[readme.index("with its defaults"):][:400]
  assert f"`{compare['game'].default[0]}`" in sentence
  assert f"{int(compare['seeds'].default)} seeds" in sentence
  assert re.search(r"Default ([\d.]+) when --iterations", compare["seconds"].help)
  seconds = float(re.search(r"Default ([\d.]+)", compare["seconds"].help).group(1))
  assert f"{seconds:g} solver CPU seconds" in sentence
  # The time is the record's, in the words the renderer gives it (results/runner/default.json).
  assert runner.wall_words("default") in readme
