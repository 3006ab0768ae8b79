"""The one place a game-like argument becomes a `GameTree`: `resolve`.

The command lines, the runner and the public entry points (`algorithms.team.solve`,
`algorithms.coop.optimum.solve`, the team LP, belief DAG and column generation, JPS,
Exploitability Descent) accept a game string, a pyspiel game or a `GameTree`, and call
`resolve` once, at their top; everything below them takes the `GameTree`. A string is loaded by
the package's one loader (`checks.load_game`); a game is walked by `GameTree` (its size
estimate refuses a game too large before the walk, its `time_limit` stops a walk too long); a
tree is returned as it is.

Example:
  from ospiel_team.tree import resolve
  tree = resolve("kuhn_poker(players=3)", time_limit=60)
"""

from __future__ import annotations

from typing import TypeAlias

import pyspiel

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.tree import builders
from ospiel_team.tree import memory
from ospiel_team.tree.game_tree import GameTree

GameLike: TypeAlias = "str | pyspiel.Game | GameTree"


def _check_name(name: str) -> None:
  """Refuses a `name` (the argument's name, for messages) that is not a non-empty string."""
  checks.check_type("name", name, str, "the argument's name, a string")
  if not name.strip():
    raise errors.UserError(f"name must be the argument's name, a non-empty string, got {name!r}")


def resolve_game(game: GameLike, *, name: str = "game") -> pyspiel.Game:
  """The pyspiel game of a game-like argument, without walking it.

  Args:
    game: a game string, a pyspiel game or a `GameTree` (its `game`).
    name: the argument's name, for messages.

  Returns:
    The pyspiel game.

  Raises:
    errors.UserError: naming `name`, for a value that is no game or a string pyspiel cannot
      load; `name` itself when it is not a string.
  """
  _check_name(name)
  checks.check_game(name, game, allow_string=True, allow_tree=True)
  if isinstance(game, GameTree):
    return game.game
  if isinstance(game, str):
    return checks.load_game(name, game)
  return game


def resolve(game: GameLike, *, name: str = "game", time_limit: float | None = None,
            max_nodes: int = builders.DEFAULT_MAX_NODES, max_memory: int | float | None = -1,
            builder: str = "auto", progress: bool = False, turn_based: bool = False
            ) -> GameTree:
  """The `GameTree` of a game-like argument: loaded and walked once, or returned as given.

  Args:
    game: a game string, a pyspiel game or a `GameTree` (returned as it is).
    name: the argument's name, for messages.
    time_limit: seconds the walk may take (None: no limit; `GameTree`'s argument): a walk
      estimated at more is refused before it starts, one past it stops.
    max_nodes: most histories the walk may keep (`GameTree`'s argument).
    max_memory: bytes the walk may take (`GameTree`'s argument; -1: its default budget).
    builder: how the tree is built (`GameTree`'s argument).
    progress: show a progress bar of the walk.
    turn_based: refuse a simultaneous-move game (`errors.NotTurnBasedError`) with the
      `turn_based_simultaneous_game` wrapper to use instead (the tree itself refuses it too,
      with a message about explicit chance and sequential moves).

  Returns:
    The game's `GameTree`.

  Raises:
    errors.UserError: a value that is no game, a string pyspiel cannot load, or a game the tree
      cannot represent; a bad value of another argument, named (checked for a tree too).
    errors.ImperfectRecallError: a player without perfect recall.
    errors.SizeLimitError: a game past `max_nodes` or `max_memory`, refused before its walk
      where the size estimate shows it.
    tree.memory.WalkTimeLimitError: a walk past `time_limit`, or estimated past it.
  """
  _check_name(name)
  turn_based = checks.check_bool("turn_based", turn_based)
  if isinstance(game, GameTree):
    # The walk's arguments are unused for a tree; checked all the same, as `GameTree` checks
    # them, so that a bad value is refused whatever the game argument is.
    checks.check_bool("progress", progress)
    checks.check_real("time_limit", time_limit, minimum=0, allow_none=True)
    checks.check_int("max_nodes", max_nodes, minimum=1)
    checks.check_choice("builder", builder, builders.BUILDERS)
    memory.resolve_max_memory(max_memory)
    return game
  loaded = resolve_game(game, name=name)
  if turn_based and loaded.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise errors.NotTurnBasedError(
        f"{name}={str(loaded)!r} is a simultaneous-move game; a turn-based one is needed: "
        f"'turn_based_simultaneous_game(game={loaded})'")
  return GameTree(loaded, time_limit=time_limit, max_nodes=max_nodes, max_memory=max_memory,
                  builder=builder, progress=progress)
