"""Every command a page or `results/README.md` shows runs as printed, from the repository root.

The pages are rendered from their records as mkdocs-macros renders them (`render.render_page`),
and every command is taken from them: the shell blocks, and the inline code that starts a
script (`python benchmarks/...`, `python experiments/...`, `ospiel-team-...`); from
`results/README.md`, every script named in its tables. For each command:

- the script exists (`benchmarks/`, `experiments/`, `examples/` or a console script of
  `setup.py`);
- every flag it passes is one the script defines: found in its source (`flags.DEFINE_*`), else
  in the flags its `--helpfull` lists (run once per script, in a subprocess);
- no machine's paths (`/work/...`, `/tmp/...`, `~/...`, `/home/...`) and no `nohup` or `nice`:
  a working folder the user picks is a placeholder (`RUN`, `WORKDIR`, ...);
- an output path under `results/` or `experiments/` exists, and a command shown with its record
  (the provenance line under it names the record) writes that record's place: one of its output
  flags, given or by default, is the record or a folder holding it.
"""
from __future__ import annotations

import ast
import functools
import os
import re
import shlex
import subprocess
import sys
import textwrap

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
DOCS = os.path.join(REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

import render  # noqa: E402

SCRIPT_DIRS = ("benchmarks/", "experiments/", "examples/")
# Flags whose value is a file or folder the script writes.
OUTPUT_FLAGS = {"out", "json_out", "record", "out_md", "csv", "records", "runs_dir", "model",
                "export_checkpoint", "figure", "img", "package_data", "keep_leader"}
# absl's own flags, defined for every script.
ABSL_FLAGS = {"help", "helpfull", "helpshort", "helpxml", "flagfile", "undefok", "v",
              "verbosity", "logtostderr", "alsologtostderr", "log_dir", "stderrthreshold",
              "only_check_args", "pdb", "pdb_post_mortem", "run_with_pdb", "run_with_profiling",
              "profile_file", "use_cprofile_for_profiling", "logger_levels", "showprefixforinfo",
              "verbose"}
MACHINE_PATH = re.compile(r"(^|[\s=\"'(])(/work/|/tmp/|/home/|~/)")
_FENCE = re.compile(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", re.S | re.M)
_OURS = re.compile(r"^(?:[A-Z_]+=\S+ )*(?:python3? (?:-m ospiel_team|benchmarks/|experiments/"
                   r"|examples/)|ospiel-team-|benchmarks/|experiments/)")
_INLINE = re.compile(r"`((?:python |nice |nohup )?(?:benchmarks|experiments|examples)/[^`]+"
                     r"|ospiel-team-[^`]+)`")
_RECORD = re.compile(r"record `((?:results|experiments)/[^`]+)`")


@functools.cache
def console_scripts() -> dict[str, str]:
  """`setup.py`'s console scripts: name -> module."""
  text = open(os.path.join(REPO, "setup.py"), encoding="utf-8").read()
  return {m.group(1): m.group(2)
          for m in re.finditer(r"\"(ospiel-team-[\w-]+)\s*=\s*([\w.]+):\w+\"", text)}


def module_file(module: str) -> str:
  return os.path.join(REPO, *module.split(".")) + ".py"


@functools.cache
def static_flags(path: str) -> dict[str, object]:
  """The flags a source file defines with `flags.DEFINE_*("name", default, ...)`: name -> default
  (None where it is no literal); also those of the `ospiel_team` modules it imports from
  `ospiel_team.cli`."""
  tree = ast.parse(open(path, encoding="utf-8").read())
  found: dict[str, object] = {}
  constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Constant) for t in n.targets if isinstance(t, ast.Name)}
  for node in ast.walk(tree):
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument" and node.args
        and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("--")):
      default = next((k.value for k in node.keywords if k.arg == "default"), None)
      if isinstance(default, ast.Name):
        default = constants.get(default.id)
      found[node.args[0].value[2:]] = getattr(default, "value", default)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr.startswith("DEFINE") and node.args
        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
      default = None
      if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
        default = node.args[1].value
      found[node.args[0].value] = default
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ospiel_team.cli"):
      for a in node.names:
        sub = module_file(f"{node.module}.{a.name}")
        for candidate in (sub, module_file(node.module)):
          if os.path.isfile(candidate) and candidate != path:
            found = {**static_flags(candidate), **found}
  return found


@functools.cache
def helpfull_flags(argv0: tuple[str, ...]) -> frozenset[str]:
  """The flags `--helpfull` lists (slow: only where the source does not show a flag)."""
  env = dict(os.environ, PYTHONPATH=REPO, MPLBACKEND="Agg", JAX_PLATFORMS="cpu")
  res = subprocess.run([*argv0, "--helpfull"], cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=300)
  return frozenset(re.findall(r"^\s+--(?:\[no\])?([\w.-]+)", res.stdout, re.M))


def split_commands(block: str) -> list[str]:
  """The commands of a shell block: continuation lines joined, comments dropped, split at
  `;`, `&&`, `||`, pipes and redirections (outside quotes)."""
  out = []
  for line in re.sub(r"\s*\\\n\s*", " ", block).splitlines():
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
      tokens = list(lexer)
    except ValueError:
      out.append(line.strip())  # `problems` reports it
      continue
    current: list[str] = []
    for t in tokens + [";"]:
      if t and set(t) <= set(";&|<>"):
        if current:
          out.append(shlex.join(current))
        current = []
      else:
        current.append(t)
  return [c for c in out if c]


def program(tokens: list[str]) -> tuple[tuple[str, ...], str, list[str]] | None:
  """(argv to run it, its source file, its arguments) of a command that runs one of ours."""
  words = [t for t in tokens if not re.fullmatch(r"[A-Z_]+=.*", t)]  # VAR=value prefixes
  if not words:
    return None
  if words[0] in ("python", "python3") and len(words) > 1:
    if words[1] == "-m" and len(words) > 2 and words[2].startswith("ospiel_team"):
      return (sys.executable, "-m", words[2]), module_file(words[2]), words[3:]
    if words[1].startswith(SCRIPT_DIRS):
      return (sys.executable, words[1]), os.path.join(REPO, words[1]), words[2:]
    return None
  if words[0].startswith(SCRIPT_DIRS) and words[0].endswith(".py"):
    return (sys.executable, words[0]), os.path.join(REPO, words[0]), words[1:]
  if words[0].startswith("ospiel-team-"):
    module = console_scripts().get(words[0])
    path = module_file(module) if module else os.path.join(REPO, "no console script " + words[0])
    return (sys.executable, "-m", module or words[0]), path, words[1:]
  return None


def flag_args(args: list[str]) -> dict[str, str | None]:
  """`--name value` and `--name=value` of an argument list: name -> value (None: none)."""
  out: dict[str, str | None] = {}
  for i, a in enumerate(args):
    if not a.startswith("--") or a == "--":
      continue
    name, eq, value = a[2:].partition("=")
    if not eq:
      nxt = args[i + 1] if i + 1 < len(args) else None
      value = nxt if nxt is not None and not nxt.startswith("--") else None
    out[name] = value
  return out


def _flag_problems(argv0: tuple[str, ...], path: str, given: dict, defined: dict) -> list[str]:
  bad = []
  for name in given:
    base = name[2:] if name.startswith("no") and name[2:] in defined else name
    if base in defined or base in ABSL_FLAGS:
      continue
    helpfull = helpfull_flags(argv0)
    if base not in helpfull and name not in helpfull:
      bad.append(f"--{name} is not a flag of {os.path.relpath(path, REPO)}")
  return bad


def outputs(command: str) -> list[str]:
  """The places `command` writes: its output flags' values, given or by default; for a command
  not of ours (`cp`, `mv`), its last argument."""
  try:
    tokens = shlex.split(command)
  except ValueError:
    return []
  while tokens and tokens[0] in ("nohup", "nice"):
    tokens = tokens[3:] if tokens[0] == "nice" and tokens[1:2] == ["-n"] else tokens[1:]
  found = program(tokens)
  if found is None:
    return tokens[-1:] if tokens[:1] in (["cp"], ["mv"]) else []
  _, path, args = found
  defined = static_flags(path) if os.path.isfile(path) else {}
  given = flag_args(args)
  return ([v for n, v in given.items() if n in OUTPUT_FLAGS and v]
          + [d for n, d in defined.items() if n in OUTPUT_FLAGS and n not in given
             and isinstance(d, str) and d])


def writes_problems(commands: list[str], records: tuple[str, ...]) -> list[str]:
  """A block shown with its records writes one of their places (a record or its folder)."""
  places = [p.rstrip("/") for c in commands for p in outputs(c)]
  if records and not any(r == p or r.startswith(p + "/") for r in records for p in places):
    return [f"writes none of {list(records)} (outputs: {places})"]
  return []


def _output_problems(given: dict) -> list[str]:
  return [f"--{n} {v}: no such record" for n, v in given.items()
          if n in OUTPUT_FLAGS and v and v.startswith(("results/", "experiments/"))
          and not os.path.exists(os.path.join(REPO, v.split(",")[0]))]


def problems(command: str) -> list[str]:
  """What keeps `command` from running as printed (empty: nothing)."""
  bad = []
  if MACHINE_PATH.search(command):
    bad.append("a machine's path (use a placeholder: RUN, WORKDIR, ...)")
  try:
    tokens = shlex.split(command)
  except ValueError as e:
    return [f"does not parse: {e}"]
  if tokens and tokens[0] in ("nohup", "nice"):
    bad.append(f"starts with {tokens[0]!r}")
    while tokens and tokens[0] in ("nohup", "nice"):
      tokens = tokens[3:] if tokens[0] == "nice" and tokens[1:2] == ["-n"] else tokens[1:]
  found = program(tokens)
  if found is None:
    return bad
  argv0, path, args = found
  if not os.path.isfile(path):
    return bad + [f"no script {os.path.relpath(path, REPO)}"]
  defined, given = static_flags(path), flag_args(args)
  return bad + _flag_problems(argv0, path, given, defined) + _output_problems(given)


def page_blocks(text: str) -> list[tuple[list[str], tuple[str, ...]]]:
  """(the commands of a shell block or inline code, the records its provenance line names)
  of a rendered page."""
  found = []
  for m in _FENCE.finditer(text):
    if m.group(1) not in ("", "bash", "sh", "shell", "console"):
      continue
    after = text[m.end():m.end() + 2000].lstrip("\n")
    first = after.split("\n\n", 1)[0] if after.startswith("*") else ""
    commands = split_commands(textwrap.dedent(m.group(2)))
    if not m.group(1):  # a plain block: only the lines that run one of ours are commands
      commands = [c for c in commands if _OURS.match(c)]
    found.append((commands, tuple(_RECORD.findall(first))))
  outside = _FENCE.sub(" ", text)
  for m in _INLINE.finditer(outside):
    found.append(([m.group(1)], ()))
  return found


def readme_commands() -> list[tuple[str, tuple[str, ...]]]:
  """The commands of `results/README.md`'s tables, each with the records of its row."""
  found = []
  for line in open(os.path.join(REPO, "results", "README.md"), encoding="utf-8"):
    if not line.startswith("|"):
      continue
    cells = line.split("|")
    for m in re.finditer(r"`([^`]*(?:benchmarks|experiments)/[\w/]+\.py[^`]*|ospiel-team-[^`]+"
                         r"|python -m ospiel_team[^`]+)`", cells[-2] if len(cells) > 2 else ""):
      found.append((m.group(1), ()))
  return found


@functools.cache
def blocks() -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
  """(where, commands, records) of every block of every page, and of results/README.md."""
  found = []
  for path in render.pages(DOCS):
    rel = os.path.relpath(path, DOCS)
    found += [(rel, tuple(c), r) for c, r in page_blocks(render.render_page(path))]
  found += [("results/README.md", (c,), r) for c, r in readme_commands()]
  return tuple(found)


def _cases():
  return [pytest.param(where, commands, records, id=f"{where}: {commands[0][:60]}")
          for where, commands, records in blocks() if commands]


def test_the_check_sees_what_fails():
  ok = "python benchmarks/jps_speed.py --game kuhn_poker --json_out results/speed/jps_speed.json"
  assert problems(ok) == [] and writes_problems([ok], ("results/speed/jps_speed.json",)) == []
  assert problems("python examples/jps_experiments.py --games comm") == [
      "no script examples/jps_experiments.py"]
  assert problems("python benchmarks/jps_speed.py --no_such_flag 3") == [
      "--no_such_flag is not a flag of benchmarks/jps_speed.py"]
  assert "a machine's path" in problems("python benchmarks/jps_speed.py --json_out /tmp/x")[0]
  assert problems("nohup nice -n 19 python benchmarks/jps_speed.py")[0] == "starts with 'nohup'"
  assert problems("python benchmarks/jps_speed.py --json_out results/jps_speed.json") == [
      "--json_out results/jps_speed.json: no such record"]
  assert writes_problems(["python benchmarks/jps_speed.py"],  # its default
                         ("results/speed/jps_speed.json",)) == []
  assert "writes none of" in writes_problems(["python benchmarks/jps_speed.py --json_out OUT"],
                                             ("results/speed/jps_speed.json",))[0]
  assert writes_problems(["python benchmarks/bridge_agents.py --out OUT",
                          "cp OUT/bridge_agents.json results/bridge/uncontested_cost.json"],
                         ("results/bridge/uncontested_cost.json",)) == []
  assert writes_problems(["python benchmarks/reliability_probes.py"],
                         ("results/reliability/probes.json",)) == []  # argparse's default
  assert problems("ospiel-team-nothing --x 1")[0].startswith("no script")
  assert problems("ospiel-team-solve --instance 21K3 --json") == []
  assert split_commands('x --teams "0,1|2" | y > log') == ["x --teams '0,1|2'", "y", "log"]
  found = page_blocks("```bash\npython a.py \\\n  --x 1; b && c\n```\n\n*record "
                      "`results/speed/x.json`; commit `abc`.*\n")
  assert found == [(["python a.py --x 1", "b", "c"], ("results/speed/x.json",))]


@pytest.mark.parametrize(("where", "commands", "records"), _cases())
def test_commands_run_as_printed(where, commands, records):
  bad = [f"{c}: {p}" for c in commands for p in problems(c)]
  assert bad + writes_problems(list(commands), records) == [], where
