"""The command-line reference, generated from the code at build time.

The commands are `setup.py`'s console scripts; each command's flags are the ones its module's
`define_flags(fv)` defines on a fresh `absl.flags.FlagValues` (what its `main` parses), with
their defaults and help text as absl holds them. Nothing here is typed by hand, so a flag
added, removed or given another default changes the page.
"""
import ast
import html
import importlib
import os
import re

from absl import flags

from render import common

SETUP = os.path.join(common.REPO, "setup.py")


def entry_points() -> dict[str, str]:
  """`setup.py`'s console scripts: command name -> module (e.g. 'ospiel_team.cli.match').

  Read from the `entry_points={"console_scripts": [...]}` literal of `setup.py`'s
  `setuptools.setup(...)` call, without running `setup.py`.
  """
  with open(SETUP, encoding="utf-8") as f:
    tree = ast.parse(f.read())
  for node in ast.walk(tree):
    if isinstance(node, ast.keyword) and node.arg == "entry_points":
      scripts = ast.literal_eval(node.value)["console_scripts"]
      found = {}
      for line in scripts:
        name, target = (s.strip() for s in line.split("="))
        module, func = target.split(":")
        if func != "run":
          raise ValueError(f"setup.py: {name} runs {target}, not a command module's run()")
        found[name] = module
      return found
  raise ValueError("setup.py has no entry_points")


def command_flags(command: str) -> flags.FlagValues:
  """The flags `command` parses: its module's `define_flags` on a fresh `FlagValues`."""
  fv = flags.FlagValues()
  importlib.import_module(entry_points()[command]).define_flags(fv)
  return fv


def flag_list(fv: flags.FlagValues) -> list:
  """The flags of `fv` (each once, not its short names), sorted by name as `--help` lists them."""
  return sorted({f.name: f for f in fv._flags().values()}.values(), key=lambda f: f.name)  # noqa: SLF001


def default_text(flag) -> str:
  """A flag's default as a user types it ('' when unset; '""' the empty string; lists by commas)."""
  value = flag.default
  if value is None or (isinstance(value, (list, tuple)) and not value):
    return ""
  if value == "":
    return '""'
  if isinstance(value, bool):
    return "true" if value else "false"
  if isinstance(value, (list, tuple)):
    return ",".join(str(v) for v in value)
  if isinstance(value, float):
    return f"{value:g}"
  return str(value)


def _escape(text: str) -> str:
  """Help text as Markdown table-cell text (no HTML, no emphasis, no cell breaks)."""
  text = html.escape(" ".join(text.split()), quote=False)
  return re.sub(r"([\\`*_\[\]|])", r"\\\1", text)


def _code(text: str) -> str:
  text = text.replace("|", "\\|")
  return f"``{text}``" if "`" in text else f"`{text}`"


def _kind(flag) -> str:
  """What the flag takes: absl's syntactic help (a positive integer ...) or its enum values."""
  if isinstance(flag, flags.BooleanFlag) or isinstance(flag.default, bool):
    return "true/false"
  parser = flag.parser
  values = getattr(parser, "enum_values", None)
  if values:
    return "one of " + ", ".join(values)
  kind = parser.syntactic_help or parser.flag_type()
  if isinstance(flag, flags.MultiFlag):
    kind += ", repeatable"
  return kind


def _help(flag) -> str:
  text = flag.help
  if getattr(flag.parser, "enum_values", None):  # absl prefixes '<a|b|c>: '
    text = re.sub(r"^<[^>]*>:\s*", "", text)
  return text


def flags_table(command: str) -> str:
  """Every flag of `command`: name, default, what it takes, and its help text (from the code)."""
  rows = ["| flag | default | takes | meaning |", "|---|---|---|---|"]
  for flag in flag_list(command_flags(command)):
    name = f"--[no]{flag.name}" if isinstance(flag.default, bool) else f"--{flag.name}"
    default = default_text(flag)
    rows.append(f"| {_code(name)} | {_code(default) if default else 'none'} | "
                f"{_escape(_kind(flag))} | {_escape(_help(flag))} |")
  return "\n".join(rows)


def flag_count(command: str) -> int:
  """How many flags `command` defines."""
  return len(flag_list(command_flags(command)))


def summary(command: str) -> str:
  """The first sentence of the command module's docstring, without the command's name."""
  doc = importlib.import_module(entry_points()[command]).__doc__ or ""
  first = doc.strip().splitlines()[0].rstrip(".")
  first = re.sub(r"\s*\((`[^`]+`(?: or `[^`]+`)?)\)", "", first)
  first = re.sub(r":\s*`[^`]+`(?: \(or `[^`]+`\))?", "", first)
  first = first.replace(f"`{command}`", "").strip(" ,:")
  first = re.sub(r"^Command line of ", "", first)
  return first[0].lower() + first[1:]


def commands_list() -> str:
  """The console scripts of `setup.py`, each with its module's one-line summary."""
  names = entry_points()
  return "\n".join(f"- `{c}`: {_escape(summary(c))}" for c in names)


def commands_inline() -> str:
  """The console scripts of `setup.py` as one comma-separated line of code spans."""
  return ", ".join(f"`{c}`" for c in entry_points())


def status(name: str) -> str:
  """The exit status `ospiel_team.cli._flags.<name>` (e.g. 'EXIT_USER_ERROR' -> '2')."""
  from ospiel_team.cli import _flags
  if not name.startswith("EXIT_"):
    raise ValueError(f"{name!r} is not an exit status of ospiel_team.cli._flags")
  return str(getattr(_flags, name))


def command_count() -> str:
  """How many console scripts `setup.py` installs, in words up to ten."""
  n = len(entry_points())
  words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
  return words[n] if n < len(words) else str(n)
