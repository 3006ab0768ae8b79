"""What every command line shares: flag errors in one line, and --help on every command."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from absl import app
from absl import flags

HELP_FLAGS = ("--help", "-h", "-?", "--helpshort", "--helpfull")


def _program(argv: Sequence[str]) -> str:
  return os.path.basename(argv[0]) if argv else "ospiel-team"


def one_line_flags_parser(argv: list[str]) -> list[str]:
  """`absl.app.run`'s flags parser: a bad flag prints one line and exits with status 2."""
  try:
    return flags.FLAGS(argv)
  except flags.Error as e:
    print(f"{_program(argv)}: error: {str(e).splitlines()[0]}", file=sys.stderr)
    sys.exit(2)


def run(main: Callable[[list[str]], int | None], define_flags: Callable[[], None]) -> None:
  """Defines the command's flags and runs `main` under absl.

  ``--help`` (``-h``, ``--helpshort``) prints the docstring of the module that defines the
  flags (the command's usage) and those flags, however the command was started (console script
  or ``python -m``); ``--helpfull`` is absl's, with every flag of every module.
  """
  define_flags()
  if any(a in HELP_FLAGS[:4] for a in sys.argv[1:]):
    command = define_flags.__module__
    print(f"{(sys.modules[command].__doc__ or '').strip()}\n\nFlags:\n"
          f"{flags.FLAGS.module_help(command)}")
    sys.exit(0)
  app.run(main, flags_parser=one_line_flags_parser)


def parse_private(fv: flags.FlagValues, argv: Sequence[str], doc: str) -> int | None:
  """Parses `argv` into a command's own `FlagValues` (commands callable in-process as
  ``main(argv) -> status``).

  Returns 0 after printing the command's help when `argv` asks for it (``--help``, ``-h``,
  ``--helpshort``, ``--helpfull``), 2 after printing one line for a bad flag, else None (parsed).
  """
  if any(a in HELP_FLAGS for a in argv[1:]):
    print(f"{doc.strip()}\n\nFlags:\n{fv.get_help()}")
    return 0
  try:
    fv(list(argv))
  except flags.Error as e:
    print(f"{_program(argv)}: error: {str(e).splitlines()[0]}", file=sys.stderr)
    return 2
  return None
