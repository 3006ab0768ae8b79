"""What every command line shares: flag errors in one line, and --help on every command."""

from __future__ import annotations

import errno
import math
import os
import sys
from collections.abc import Sequence

from absl import flags

from ospiel_team import checks
from ospiel_team import errors

HELP_FLAGS = ("--help", "-h", "-?", "--helpshort", "--helpfull")


def _program(argv: Sequence[str]) -> str:
  return os.path.basename(argv[0]) if argv else "ospiel-team"


def parse_private(fv: flags.FlagValues, argv: Sequence[str], doc: str) -> int | None:
  """Parses `argv` into a command's own `FlagValues`: the one pattern of every command.

  Each command module defines ``main(argv) -> status``, which makes a fresh `flags.FlagValues`,
  defines its flags on it and calls this, so that a command runs in-process (tests, scripts)
  as it runs from its console script (``run()``: ``sys.exit(main(sys.argv))``), and no two
  commands share absl's global flags.

  Returns 0 after printing the command's help when `argv` asks for it (``--help``, ``-h``,
  ``--helpshort``, ``--helpfull``), 2 after printing one line for a bad flag or an unexpected
  positional argument, else None (parsed).
  """
  if any(a in HELP_FLAGS for a in argv[1:]):
    print(f"{doc.strip()}\n\nFlags:\n{fv.get_help()}")
    return 0
  try:
    rest = fv(list(argv))
  except flags.Error as e:
    print(f"{_program(argv)}: error: {str(e).splitlines()[0]}", file=sys.stderr)
    return EXIT_USER_ERROR
  if len(rest) > 1:
    print(f"{_program(argv)}: error: unexpected arguments {rest[1:]} (every option is a "
          "--flag)", file=sys.stderr)
    return EXIT_USER_ERROR
  return None


# ---------------------------------------------------------------------------------------------
# Checks at the command-line boundary, shared by every command.
#
# Exit statuses of every command: 0 done; 2 a user error (a bad flag value, an unknown game, a
# cost refused without --force, a missing optional dependency), one line on stderr; 1 a write
# failed for lack of space (ENOSPC, EDQUOT), one line naming the file, finished work kept;
# 3 a solver's time limit ran out (ospiel-team-solve, ospiel-team-coop-optimum); 4 a training
# run diverged (ospiel-team-train-bridge: its loss or parameters became non-finite).
# A bug keeps its traceback.

EXIT_USER_ERROR = 2
EXIT_DISK_FULL = 1
EXIT_TIME_LIMIT = 3
EXIT_DIVERGED = 4
DISK_FULL_ERRNOS = tuple(e for e in (getattr(errno, "ENOSPC", None),
                                     getattr(errno, "EDQUOT", None)) if e is not None)


def check_number(name: str, value: float | int | None, *, minimum: float | None = None,
                 above: float | None = None, maximum: float | None = None,
                 integer: bool = False, allow_none: bool = True, why: str = "") -> None:
  """Raises `UserError` naming the flag when its value is out of range (the one shared check).

  Every number must be finite (NaN and +-inf are refused); `minimum` is inclusive, `above`
  exclusive, `maximum` inclusive (a plausible size: past it the run would not finish or fit).

  Args:
    name: the flag's name without dashes, e.g. "time_limit".
    value: the parsed value (None: unset, accepted when `allow_none`).
    minimum: smallest allowed value.
    above: the value must be strictly greater than this.
    maximum: largest allowed value.
    integer: the value must be a whole number.
    allow_none: whether an unset flag is fine.
    why: a short reason appended to the message (e.g. what the maximum stands for).

  Raises:
    errors.UserError: "--name=VALUE must be ...".
  """
  if value is None:
    if allow_none:
      return
    raise errors.UserError(f"--{name} is required")
  try:
    x = float(value)
  except (TypeError, ValueError, OverflowError):
    x = math.nan
  if not (checks.in_range(x, minimum=minimum, above=above, maximum=maximum)
          and (not integer or x.is_integer())):
    want = checks.requirement(integer=integer, minimum=minimum, above=above, maximum=maximum)
    raise errors.UserError(f"--{name}={value} must be {want}" + (f" ({why})" if why else ""))


def error_line(program: str, message: object) -> str:
  """`program: error: <first line of message>` (one line, whatever the message holds)."""
  first = (str(message).strip().splitlines() or [""])[0]
  return f"{program}: error: {first}" if program else f"error: {first}"


def is_disk_full(e: BaseException) -> bool:
  """Whether `e` is an `OSError` for a full disk or an exhausted quota (ENOSPC, EDQUOT)."""
  return isinstance(e, OSError) and e.errno in DISK_FULL_ERRNOS


def disk_full_line(program: str, e: OSError, kept: str, resume: str = "") -> str:
  """One line for a write that failed on a full disk: the file, and that finished work is kept.

  The package's writers are atomic (`atomic_io`): a failed write leaves the file it was
  replacing, and every earlier file, as they were.
  """
  what = "disk quota exceeded" if e.errno == getattr(errno, "EDQUOT", None) else (
      "no space left on the device")
  name = e.filename or "an output file"
  return (f"{program}: error: cannot write {name}: {what}; nothing finished was lost "
          f"({kept}); free some space and {resume or 'run the same command again'}")


def say_cost(program: str, text: str) -> None:
  """Prints the one-line cost estimate of a run on stderr, before the run starts."""
  print(f"{program}: {text}", file=sys.stderr, flush=True)


def refuse_unless_forced(force: bool, reason: str) -> None:
  """Raises `UserError` (reason + how to insist) unless `--force` was given."""
  if not force:
    raise errors.UserError(f"{reason}; refusing to start (--force starts it anyway)")


def rough_duration(seconds: float) -> str:
  """An order-of-magnitude duration in words: "about 3 minutes", "about 270 years"."""
  for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600),
                     ("minutes", 60)):
    if seconds >= 2 * size:
      return f"about {_one_or_two_digits(seconds / size)} {unit}"
  if seconds < 2:
    return "about a second or less"
  return f"about {_one_or_two_digits(seconds)} seconds"


def _one_or_two_digits(x: float) -> str:
  if x >= 1e6:
    return f"{x:.0e}"
  return f"{round(x, -int(math.floor(math.log10(x))) + 1):,.0f}" if x >= 100 else f"{x:.0f}"
