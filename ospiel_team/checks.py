"""Argument checks at the package's public boundary: one family, one message format.

Every public entry point checks its arguments with these functions before it does any work. A
bad value raises `errors.UserError` (a `ValueError`) whose message names the argument, says
what it must be and shows the value given: ``"max_memory must be an integer >= 1, got True"``.

Conventions:

* integers are Python or numpy integers; bools (Python or numpy) are refused where a number is
  wanted, and so are floats, even whole ones such as ``1.0``;
* real numbers are Python or numpy integers or floats (not bools) and must be finite;
* bounds: ``minimum`` and ``maximum`` are inclusive, ``above`` and ``below`` exclusive.

The command lines share the range logic (`requirement`) and word their messages after the
flag (``--time_limit=-1 must be a finite number > 0``), see `ospiel_team.cli._flags`.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from ospiel_team.errors import UserError


def is_integer(value: Any) -> bool:
  """Whether `value` is a Python or numpy integer (not a bool)."""
  return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_real(value: Any) -> bool:
  """Whether `value` is a Python or numpy integer or float (not a bool); NaN and inf count."""
  return (isinstance(value, (int, float, np.integer, np.floating))
          and not isinstance(value, (bool, np.bool_)))


def _shown(v: float) -> str:
  return str(v) if isinstance(v, (int, np.integer)) else f"{v:g}"


def requirement(*, integer: bool = False, minimum: float | None = None,
                above: float | None = None, maximum: float | None = None,
                below: float | None = None) -> str:
  """The phrase for what a number must be: ``"an integer >= 1"``, ``"a finite number > 0"``.

  Args:
    integer: an integer is wanted.
    minimum: inclusive lower bound.
    above: exclusive lower bound.
    maximum: inclusive upper bound.
    below: exclusive upper bound.

  Returns:
    The phrase, without the argument's name.
  """
  parts = ["an integer" if integer else "a finite number"]
  if minimum is not None and maximum is not None:
    parts.append(f"from {_shown(minimum)} to {_shown(maximum)}")
  else:
    if minimum is not None:
      parts.append(f">= {_shown(minimum)}")
    if maximum is not None:
      parts.append(f"<= {_shown(maximum)}")
  bounds = []
  if above is not None:
    bounds.append(f"> {_shown(above)}")
  if below is not None:
    bounds.append(f"< {_shown(below)}")
  if bounds:
    parts.insert(1, " and ".join(bounds) + (" and" if len(parts) > 1 else ""))
  return " ".join(parts)


def in_range(x: float, *, minimum: float | None = None, above: float | None = None,
             maximum: float | None = None, below: float | None = None) -> bool:
  """Whether the finite number `x` lies within the bounds (NaN and inf never do).

  A Python int is compared exactly, however large (no conversion to float).
  """
  if not isinstance(x, int) and not math.isfinite(x):
    return False
  return ((minimum is None or x >= minimum) and (above is None or x > above)
          and (maximum is None or x <= maximum) and (below is None or x < below))


def _as_float(value: Any) -> float:
  """float(value), or NaN for an int too large for a float (it is not a finite float)."""
  try:
    return float(value)
  except OverflowError:
    return math.nan


def check_int(name: str, value: Any, *, minimum: int | None = None,
              maximum: int | None = None, allow_none: bool = False) -> int | None:
  """`value` as an `int` if it is an integer within the bounds.

  Args:
    name: the argument's name, for the message.
    value: the value given.
    minimum: smallest allowed value (inclusive).
    maximum: largest allowed value (inclusive).
    allow_none: whether None is accepted (and returned).

  Returns:
    `int(value)`, or None when `value` is None and `allow_none`.

  Raises:
    UserError: naming `name` and the value otherwise (bools and floats such as 1.0 included).
  """
  if value is None and allow_none:
    return None
  if not (is_integer(value) and in_range(int(value), minimum=minimum, maximum=maximum)):
    want = requirement(integer=True, minimum=minimum, maximum=maximum)
    raise UserError(f"{name} must be {want}{' or None' if allow_none else ''}, got {value!r}")
  return int(value)


def check_real(name: str, value: Any, *, minimum: float | None = None,
               above: float | None = None, maximum: float | None = None,
               below: float | None = None, allow_none: bool = False) -> float | None:
  """`value` as a `float` if it is a finite real number within the bounds.

  Args:
    name: the argument's name, for the message.
    value: the value given (Python or numpy integer or float).
    minimum: inclusive lower bound.
    above: exclusive lower bound.
    maximum: inclusive upper bound.
    below: exclusive upper bound.
    allow_none: whether None is accepted (and returned).

  Returns:
    `float(value)`, or None when `value` is None and `allow_none`.

  Raises:
    UserError: naming `name` and the value otherwise (NaN, inf and bools included).
  """
  if value is None and allow_none:
    return None
  bounds = dict(minimum=minimum, above=above, maximum=maximum, below=below)
  if not (is_real(value) and in_range(_as_float(value), **bounds)):
    want = requirement(**bounds)
    raise UserError(f"{name} must be {want}{' or None' if allow_none else ''}, got {value!r}")
  return float(value)


def check_bool(name: str, value: Any, *, allow_none: bool = False) -> bool | None:
  """`value` as a `bool` if it is a Python or numpy bool (not 0, 1 or a string).

  Args:
    name: the argument's name, for the message.
    value: the value given.
    allow_none: whether None is accepted (and returned).

  Returns:
    `bool(value)`, or None when `value` is None and `allow_none`.

  Raises:
    UserError: naming `name` and the value otherwise.
  """
  if value is None and allow_none:
    return None
  if not isinstance(value, (bool, np.bool_)):
    raise UserError(f"{name} must be a bool{' or None' if allow_none else ''}, got {value!r}")
  return bool(value)


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
  """`value` if it is one of the strings `choices`.

  Args:
    name: the argument's name, for the message.
    value: the value given.
    choices: the allowed strings.

  Returns:
    `value`.

  Raises:
    UserError: naming `name`, the value and the choices otherwise.
  """
  if not isinstance(value, str) or value not in choices:
    raise UserError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
  return value


def check_type(name: str, value: Any, types: type | tuple[type, ...], what: str) -> Any:
  """`value` if it is an instance of `types`.

  Args:
    name: the argument's name, for the message.
    value: the value given.
    types: the accepted type or types.
    what: how the message names what is wanted, e.g. "a pyspiel.Game".

  Returns:
    `value`.

  Raises:
    UserError: naming `name`, `what` and the type given otherwise.
  """
  if not isinstance(value, types):
    raise UserError(f"{name} must be {what}, got {type(value).__name__} {value!r:.80}")
  return value


def check_int_sequence(name: str, value: Any, *, minimum: int | None = None,
                       what: str = "ints", allow_none: bool = False) -> tuple[int, ...] | None:
  """`value` as a tuple of ints if it is a sequence (not a string) of integers >= `minimum`.

  Args:
    name: the argument's name, for the message.
    value: the value given (list, tuple or integer numpy array).
    minimum: smallest allowed element.
    what: how the message names the elements.
    allow_none: whether None is accepted (and returned).

  Returns:
    The elements as a tuple of Python ints, or None when `value` is None and `allow_none`.

  Raises:
    UserError: naming `name` and the first bad element otherwise.
  """
  if value is None and allow_none:
    return None
  if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
    raise UserError(f"{name} must be a sequence of {what}, got {value!r}")
  for x in value:
    if not (is_integer(x) and in_range(int(x), minimum=minimum)):
      want = requirement(integer=True, minimum=minimum)
      raise UserError(f"{name}={list(value)!r}: {x!r} is not {want}")
  return tuple(int(x) for x in value)


def check_game(name: str, value: Any, *, allow_string: bool = False,
               allow_tree: bool = False) -> Any:
  """`value` if it is a `pyspiel.Game` (or, where allowed, a game string or a `GameTree`).

  Args:
    name: the argument's name, for the message.
    value: the value given.
    allow_string: whether a game string such as "kuhn_poker" is accepted.
    allow_tree: whether a `GameTree` is accepted.

  Returns:
    `value`.

  Raises:
    UserError: naming `name`, what is accepted and the type given otherwise.
  """
  if allow_tree and _is_game_tree(value):
    return value
  types: tuple[type, ...] = (pyspiel.Game,)
  what = ["a pyspiel.Game"]
  if allow_string:
    types += (str,)
    what.append("a game string")
  if allow_tree:
    what.append("a GameTree")
  if isinstance(value, str) and allow_string and not value.strip():
    raise UserError(f"{name} must be a game string such as 'kuhn_poker', got {value!r}")
  words = what[0] if len(what) == 1 else ", ".join(what[:-1]) + " or " + what[-1]
  return check_type(name, value, types, words)


def _is_game_tree(value: Any) -> bool:
  """Whether `value` is an `ospiel_team.tree.game_tree.GameTree` (or a subclass's instance).

  Recognised by its class's module and name: this module sits below the tree layer and imports
  none of it (tests/test_layering.py). `__class__`, not `type`, so that a `weakref.proxy` of a
  tree (the ED solvers' jitted steps hold one) counts, as it does for `isinstance`.
  """
  return any(c.__module__ == "ospiel_team.tree.game_tree" and c.__qualname__ == "GameTree"
             for c in value.__class__.__mro__)


def check_tree(name: str, value: Any) -> Any:
  """`value` if it is a `GameTree`.

  Args:
    name: the argument's name, for the message.
    value: the value given.

  Returns:
    `value`.

  Raises:
    UserError: naming `name` and the type given otherwise.
  """
  if not _is_game_tree(value):
    raise UserError(f"{name} must be a GameTree, got {type(value).__name__} {value!r:.80}")
  return value


def load_game(name: str, text: Any) -> pyspiel.Game:
  """The game named by the game string `text` ("kuhn_poker(players=3)"), by pyspiel.load_game.

  The package's one game loader: the command lines, the runner and the public entry points
  (through `ospiel_team.tree.resolve`) all load game strings here. An unknown game is refused
  before `pyspiel.load_game`, which would print OpenSpiel's whole list of games on stderr (from
  C++, even when the error is caught); the message names at most three close names.

  Args:
    name: the argument's name, for the message ("game", or a flag such as "--game").
    text: the game string.

  Returns:
    The loaded game.

  Raises:
    UserError: naming `name`, the string and pyspiel's reason when it names no game.
  """
  check_game(name, text, allow_string=True)
  short = text.split("(", 1)[0].strip()
  known = pyspiel.registered_names()
  if short not in known:
    close = difflib.get_close_matches(short, known, n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise UserError(f"{name}={text!r} is not a game pyspiel can load: unknown game "
                    f"{short!r}{hint}")
  try:
    return pyspiel.load_game(text)
  except (pyspiel.SpielError, RuntimeError, ValueError) as e:
    reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    reason = reason.split(" Available games are")[0]
    raise UserError(f"{name}={text!r} is not a game pyspiel can load: {reason}") from None


# --- configuration fields: one rule per field, checked by one function ----------------------------
@dataclasses.dataclass(frozen=True)
class Int:
  """Rule for an integer field: `check_int` with these bounds."""
  minimum: int | None = None
  maximum: int | None = None
  allow_none: bool = False

  def check(self, name: str, value: Any) -> int | None:
    """`value` if it keeps the rule; UserError naming `name` and the value otherwise."""
    return check_int(name, value, minimum=self.minimum, maximum=self.maximum,
                     allow_none=self.allow_none)


@dataclasses.dataclass(frozen=True)
class Real:
  """Rule for a real field: `check_real` (finite) with these bounds."""
  minimum: float | None = None
  above: float | None = None
  maximum: float | None = None
  below: float | None = None
  allow_none: bool = False

  def check(self, name: str, value: Any) -> float | None:
    """`value` if it keeps the rule; UserError naming `name` and the value otherwise."""
    return check_real(name, value, minimum=self.minimum, above=self.above,
                      maximum=self.maximum, below=self.below, allow_none=self.allow_none)


@dataclasses.dataclass(frozen=True)
class Bool:
  """Rule for a bool field: `check_bool`."""
  allow_none: bool = False

  def check(self, name: str, value: Any) -> bool | None:
    """`value` if it keeps the rule; UserError naming `name` and the value otherwise."""
    return check_bool(name, value, allow_none=self.allow_none)


@dataclasses.dataclass(frozen=True)
class Choice:
  """Rule for a string field with a fixed set of values: `check_choice`."""
  choices: tuple[str, ...]
  allow_none: bool = False

  def check(self, name: str, value: Any) -> str | None:
    """`value` if it keeps the rule; UserError naming `name` and the value otherwise."""
    if value is None and self.allow_none:
      return None
    return check_choice(name, value, self.choices)


@dataclasses.dataclass(frozen=True)
class Text:
  """Rule for a free string field (or None where allowed)."""
  allow_none: bool = False

  def check(self, name: str, value: Any) -> str | None:
    """`value` if it keeps the rule; UserError naming `name` and the value otherwise."""
    if value is None and self.allow_none:
      return None
    return check_type(name, value, str, "a string" + (" or None" if self.allow_none else ""))


Rule = Int | Real | Bool | Choice | Text


def check_fields(config: Any, rules: Mapping[str, Rule]) -> None:
  """Checks the fields of the dataclass instance `config` named in `rules`, in their order.

  Each value is replaced by its checked form (numpy scalars become Python numbers), also on a
  frozen dataclass. Fields without a rule are left alone (a configuration's tests check that
  every field has one: `missing_rules`).

  Args:
    config: a dataclass instance (a configuration).
    rules: the rule of each field, e.g. ``{"hidden": Int(minimum=1), "lr": Real(above=0)}``.

  Raises:
    UserError: naming the first field whose value breaks its rule, and the value.
  """
  for name, rule in rules.items():
    object.__setattr__(config, name, rule.check(name, getattr(config, name)))


def missing_rules(cls: type, rules: Mapping[str, Rule]) -> list[str]:
  """The fields of dataclass `cls` that `rules` does not cover (for tests: none may be)."""
  return [f.name for f in dataclasses.fields(cls) if f.name not in rules]
