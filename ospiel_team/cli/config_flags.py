"""absl flags generated from a configuration dataclass: one flag per field.

Each flag has the field's name, its default and its help text (``metadata["help"]``), so a
command's defaults are the dataclass's and are declared nowhere else. Supported field types:
bool, int, float, str and ``str | None``.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Iterable

from absl import flags

_DEFINERS = {bool: flags.DEFINE_bool, int: flags.DEFINE_integer, float: flags.DEFINE_float,
             str: flags.DEFINE_string}


def _flag_type(cls, field: dataclasses.Field) -> type:
  hint = typing.get_type_hints(cls)[field.name]
  if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if len(args) == 1:
      hint = args[0]
  if hint not in _DEFINERS:
    raise TypeError(f"{cls.__name__}.{field.name}: no flag type for {hint!r}")
  return hint


def config_fields(cls, exclude: Iterable[str] = ()) -> list[dataclasses.Field]:
  """The fields of dataclass `cls` that become flags (all but `exclude`)."""
  skip = set(exclude)
  return [f for f in dataclasses.fields(cls) if f.name not in skip]


def define_config_flags(cls, *, flag_values: flags.FlagValues, exclude: Iterable[str] = (),
                        module_name: str | None = None) -> None:
  """Defines one flag per field of dataclass `cls`: its name, default and help text.

  Args:
    cls: a dataclass whose fields have defaults and ``metadata["help"]``.
    flag_values: where to define them: the command's own `flags.FlagValues`.
    exclude: fields that get no flag.
    module_name: the command module the flags belong to (its ``--help`` lists them).

  Raises:
    TypeError: for a field of a type without a flag kind, or without help text.
  """
  if module_name == "__main__":  # absl files a script's own flags under its path
    module_name = sys.argv[0]
  for f in config_fields(cls, exclude):
    if "help" not in f.metadata:
      raise TypeError(f"{cls.__name__}.{f.name} has no metadata['help']")
    _DEFINERS[_flag_type(cls, f)](f.name, f.default, f.metadata["help"],
                                  flag_values=flag_values, module_name=module_name)


def config_from_flags(cls, *, flag_values: flags.FlagValues, exclude: Iterable[str] = (),
                      **overrides):
  """`cls` made from the parsed flags of `define_config_flags` (and `overrides`).

  Args:
    cls: the dataclass.
    flag_values: the parsed flags.
    exclude: fields without flags (they keep their defaults unless in `overrides`).
    **overrides: field values that replace the flags'.

  Returns:
    The configuration (its own validation runs).
  """
  values = {f.name: flag_values[f.name].value for f in config_fields(cls, exclude)}
  values.update(overrides)
  return cls(**values)
