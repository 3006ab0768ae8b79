"""Whether a game is common-payoff (cooperative): the package's one check.

A common-payoff game gives every player the same return at every terminal history; all its
players form one team, and its value is the common payoff (`runner.metrics`). On an array
game tree the check reads the terminal returns themselves; on a pyspiel game, whose tree may
be too large to walk, it reads the declared utility (`pyspiel.GameType.Utility.IDENTICAL`).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ospiel_team import checks
from ospiel_team.errors import UserError
from ospiel_team.tree.game_tree import GameTree

# Largest difference between two players' returns at a terminal that still counts as equal.
ATOL = 1e-9


def _worst_terminals(tree: GameTree, atol: float) -> np.ndarray:
  """Indices into `tree.terminals` where some player's return differs from player 0's."""
  returns = tree.node_returns[tree.terminals]
  if not returns.size:
    return np.zeros(0, dtype=np.int64)
  return np.nonzero(np.abs(returns - returns[:, :1]).max(axis=1) > atol)[0]


def is_common_payoff(game: pyspiel.Game | GameTree, *, atol: float = ATOL) -> bool:
  """Whether every player receives the same return at every terminal history.

  Args:
    game: an array game tree (its terminal returns are compared) or a pyspiel game (its
      declared utility is read: `IDENTICAL`).
    atol: the largest difference between two players' returns that counts as equal (trees
      only).

  Returns:
    True for a common-payoff game (and for any one-player tree).

  Raises:
    UserError: `game` is neither, or `atol` is not a finite number >= 0.
  """
  checks.check_game("game", game, allow_tree=True)
  checks.check_real("atol", atol, minimum=0)
  if isinstance(game, GameTree):
    return not len(_worst_terminals(game, atol))
  return game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL


def check_common_payoff(tree: GameTree, *, atol: float = ATOL) -> None:
  """Raises unless every player gets the same return at every terminal of `tree`.

  Args:
    tree: the game's array tree.
    atol: the largest difference between two players' returns that counts as equal.

  Raises:
    UserError: naming the game, how many terminal histories differ and one example (or a bad
      argument, named).
  """
  checks.check_tree("tree", tree)
  checks.check_real("atol", atol, minimum=0)
  bad = _worst_terminals(tree, atol)
  if len(bad):
    z = int(tree.terminals[bad[0]])
    raise UserError(
        f"{tree.game} is not a common-payoff (cooperative) game: the players' returns differ "
        f"at {len(bad)} terminal histories, e.g. {list(map(float, tree.node_returns[z]))}; "
        f"for two teams use team_solve / team_lp")
