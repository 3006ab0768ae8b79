"""Teams over any finite turn-based pyspiel game (Zhang & Sandholm, Def. 2.1).

A *team assignment* partitions the players into one team (a cooperative game: no opponent) or
two teams (a zero-sum team game). Written as text, teams are separated by `|` and members by
`,`: `"0,1|2"` is players 0 and 1 against player 2; `"0,1"` is a single team.

**Team utility** = the sum of its members' returns (colluding players split evenly, so the
per-member value is the team value divided by the team size; both are reported). Two teams must
be zero-sum: the two teams' utilities add to 0 at every terminal history.

The paper's assumptions (Sec. 2.1) are checked with clear errors: every player has perfect recall
(`GameTree` raises otherwise) and the game is *timeable*: every history of an information set is
at the same depth of the tree.

Besides the assignment itself this module holds team values and the players' terminal reach;
team best responses and the metric "team 1's value when team 2 best responds" are in
`ospiel_team.lp.best_response`. It sits with the game tree because cooperative solvers, team
solvers and the runner all use it.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Sequence

import numpy as np
import pyspiel

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.games import team_instances
from ospiel_team.tree import evaluation
from ospiel_team.tree import resolver as resolve_lib
from ospiel_team.tree.game_tree import GameTree


@dataclasses.dataclass(frozen=True)
class Teams:
  """A partition of the players of an n-player game into one or two teams."""
  teams: tuple[tuple[int, ...], ...]
  num_players: int

  def __post_init__(self):
    checks.check_int("num_players", self.num_players, minimum=1)
    if (isinstance(self.teams, (str, bytes)) or not isinstance(self.teams, Sequence)
        or not all(isinstance(t, Sequence) and not isinstance(t, str) for t in self.teams)):
      raise errors.UserError(f"teams must be a tuple of tuples of player ids, got "
                             f"{self.teams!r:.80}")
    if not 1 <= len(self.teams) <= 2:
      raise errors.UserError(f"need one or two teams, got {len(self.teams)}: {self}")
    seen = [p for t in self.teams for p in t]
    for t in self.teams:
      if not t:
        raise errors.UserError(f"empty team in {self}")
    for p in seen:
      if not checks.is_integer(p):
        raise errors.UserError(f"player {p!r} in teams {self.teams} is not an integer")
      if not 0 <= p < self.num_players:
        raise errors.UserError(f"player {p} out of range for a {self.num_players}-player game")
    if len(set(seen)) != len(seen):
      raise errors.UserError(f"a player is on two teams in {self}")
    if sorted(seen) != list(range(self.num_players)):
      missing = sorted(set(range(self.num_players)) - set(seen))
      raise errors.UserError(f"players {missing} are on no team in {self}")

  @property
  def num_teams(self) -> int:
    """The number of teams."""
    return len(self.teams)

  @property
  def player_team(self) -> np.ndarray:
    """[num_players] team index of each player."""
    out = np.zeros(self.num_players, dtype=np.int64)
    for i, t in enumerate(self.teams):
      out[list(t)] = i
    return out

  def team_of(self, player: int) -> int:
    """The team index of `player`.

    Args:
      player: a player of the game.

    Returns:
      The index of its team in `teams`.
    """
    return int(self.player_team[player])

  def __str__(self):
    return "|".join(",".join(str(p) for p in t) for t in self.teams)


def parse_teams(text: str | Sequence[Sequence[int]] | Teams, num_players: int) -> Teams:
  """Parses "0,1|2" (or [[0, 1], [2]]) into `Teams`.

  Args:
    text: the teams as text ("0,1|2"), as a sequence of sequences of player ids (Python or
      numpy integers; bools and floats such as 0.5 or 1.0 are refused, not rounded), or as
      `Teams`.
    num_players: the game's number of players.

  Returns:
    The `Teams`.

  Raises:
    errors.UserError: naming the teams given and what is wrong with them.
  """
  num_players = checks.check_int("num_players", num_players, minimum=1)
  if isinstance(text, Teams):
    if text.num_players != num_players:
      raise errors.UserError(
          f"teams {text} are for {text.num_players} players, game has {num_players}")
    return text
  if isinstance(text, str):
    parts = text.split("|")
    teams = []
    for part in parts:
      members = []
      for tok in part.split(","):
        tok = tok.strip()
        if not tok:
          raise errors.UserError(f"empty player in teams {text!r}")
        try:
          members.append(int(tok))
        except ValueError as e:
          raise errors.UserError(f"player {tok!r} in teams {text!r} is not an integer") from e
      teams.append(tuple(members))
  elif isinstance(text, bytes) or not isinstance(text, (Sequence, np.ndarray)):
    raise errors.UserError(f"text (the teams) must be a string such as '0,1|2', a sequence of "
                           f"sequences of player ids or Teams, got {text!r:.80}")
  else:
    teams = [checks.check_int_sequence(f"teams {_shown(text)}: team", t, minimum=0,
                                       what="player ids") for t in text]
  try:
    return Teams(tuple(teams), num_players)
  except errors.UserError as e:
    raise errors.UserError(f"teams {_shown(text)}: {e}") from None


def _shown(text) -> str:
  """Teams as given, for a message: "0,1|2" quoted, a sequence as a list."""
  if isinstance(text, str):
    return repr(text)
  return repr([list(t) if isinstance(t, (Sequence, np.ndarray)) and not isinstance(t, str)
               else t for t in text])


def default_teams(game: pyspiel.Game) -> Teams:
  """The teams of a known instance, else one team per player for 2 players.

  Known instances come from `ospiel_team.games.team_instances` (Table 1 of the paper; `21K4` is
  `kuhn_poker(players=3)` with teams `0,1|2`); any other n-player game (n >= 3) is taken as
  "players 0..n-2 against player n-1" and a common-payoff game as a single team.

  Args:
    game: a pyspiel game.

  Returns:
    Its `Teams`.
  """
  checks.check_game("game", game)
  n = game.num_players()
  found = _instance_teams().get(str(game))
  if found is not None:
    return parse_teams(found, n)
  if game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL:
    return Teams((tuple(range(n)),), n)
  if n == 2:
    return Teams(((0,), (1,)), n)
  return Teams((tuple(range(n - 1)), (n - 1,)), n)


@functools.cache
def _instance_teams() -> dict[str, tuple[tuple[int, ...], ...]]:
  """Canonical game string -> teams of every Table 1 instance (`games.team_instances`)."""
  found: dict[str, tuple[tuple[int, ...], ...]] = {}
  for game_str, teams in team_instances.TABLE1_INSTANCES.values():
    found.setdefault(str(pyspiel.load_game(game_str)), tuple(tuple(t) for t in teams))
  return found


# ------------------------------------------------------------------------------------------------
# Checks of the paper's assumptions.
# The trees found timeable, and the teams found zero-sum on each tree, by this module's checks:
# a solve's methods and decompositions ask again about the tree they were given, and are
# answered here without another pass over its arrays (the entries die with their tree).
_TIMEABLE: weakref.WeakSet[GameTree] = weakref.WeakSet()
_ZERO_SUM: weakref.WeakKeyDictionary[GameTree, set[str]] = weakref.WeakKeyDictionary()


def check_timeable(tree: GameTree) -> None:
  """Raises `errors.NotTimeableError` unless each infoset is at a single depth (Sec. 2.1)."""
  if tree in _TIMEABLE:
    return
  _check_timeable(tree)
  _TIMEABLE.add(tree)


def _check_timeable(tree: GameTree) -> None:
  dec = tree.decisions
  if not len(dec):
    return
  inf = tree.node_infoset[dec]
  depth = tree.node_depth[dec].astype(np.int64)
  lo = np.full(tree.num_infosets, np.iinfo(np.int64).max)
  hi = np.full(tree.num_infosets, -1)
  np.minimum.at(lo, inf, depth)
  np.maximum.at(hi, inf, depth)
  bad = np.nonzero(lo != hi)[0]
  if len(bad):
    i = int(bad[0])
    raise errors.NotTimeableError(
        f"{tree.game} is not timeable: infoset {tree.infoset_keys[i]!r} of player "
        f"{tree.infoset_player[i]} has histories at depths {lo[i]} and {hi[i]}; the team LP "
        "(Zhang & Sandholm, Sec. 2.1) needs every infoset at a single depth")


def team_terminal_utilities(tree: GameTree, teams: Teams) -> np.ndarray:
  """[num_terminals, num_teams] each team's utility (sum of members' returns) per terminal."""
  ret = tree.node_returns[tree.terminals]
  return np.stack([ret[:, list(t)].sum(axis=1) for t in teams.teams], axis=1)


def check_zero_sum(tree: GameTree, teams: Teams, atol: float = 1e-9) -> None:
  """Raises `errors.NotZeroSumError` unless two teams' utilities add to zero at every terminal."""
  key = f"{teams} atol={atol!r}"
  if teams.num_teams != 2 or key in _ZERO_SUM.get(tree, ()):
    return
  u = team_terminal_utilities(tree, teams)
  s = np.abs(u.sum(axis=1))
  if len(s) and s.max() > atol:
    z = tree.terminals[int(np.argmax(s))]
    raise errors.NotZeroSumError(
        f"{tree.game} is not zero-sum between teams {teams}: at a terminal history the team "
        f"utilities are {u[int(np.argmax(s))].tolist()} (returns "
        f"{tree.node_returns[z].tolist()})")
  _ZERO_SUM.setdefault(tree, set()).add(key)


def check_assumptions(game_or_tree, teams, time_limit: float | None = None
                      ) -> tuple[GameTree, Teams]:
  """Resolves the game to its tree (`resolve`) and checks teams and the paper's assumptions.

  Args:
    game_or_tree: a pyspiel game, its string, or its `GameTree`.
    teams: a team specification (see `parse_teams`), or None for `default_teams(game)`.
    time_limit: seconds the walk of the tree may take (`GameTree`'s argument; None: no limit).

  Returns:
    `(tree, teams)`.

  Raises:
    errors.GameAssumptionError: naming the violated assumption (its subclass says which:
      `ImperfectRecallError`, `NotTimeableError`, `NotZeroSumError`).
    errors.UserError: a bad game or teams.
  """
  try:
    tree = resolve_lib.resolve(game_or_tree, time_limit=time_limit)
  except errors.ImperfectRecallError as e:
    raise errors.ImperfectRecallError(
        f"{e}: the paper's assumption that each player has perfect recall fails") from e
  return tree, check_team_game(tree, teams)


def check_team_game(tree: GameTree, teams) -> Teams:
  """The teams of `tree`, checked with the paper's assumptions (Sec. 2.1) on the tree.

  Perfect recall is checked when the tree is built; this checks the teams, timeability and
  (for two teams) zero-sum.

  Args:
    tree: the game's tree.
    teams: a team specification (see `parse_teams`), or None for `default_teams(tree.game)`.

  Returns:
    The parsed `Teams`.

  Raises:
    errors.NotTimeableError: an infoset with histories at two depths.
    errors.NotZeroSumError: two teams whose utilities do not add to zero.
    errors.UserError: teams that are not a split of the players.
  """
  checks.check_tree("tree", tree)
  if teams is None:
    teams = default_teams(tree.game)
  teams = parse_teams(teams, tree.num_players)
  check_timeable(tree)
  check_zero_sum(tree, teams)
  return teams


# ------------------------------------------------------------------------------------------------
# Team values.
def team_values(tree: GameTree, pi: np.ndarray, teams: Teams) -> dict[str, list[float]]:
  """Team values (sum of members' expected returns) and per-member values of a profile."""
  v = evaluation.game_value(tree, pi)
  return dict(team=[float(sum(v[p] for p in t)) for t in teams.teams],
              per_member=[float(sum(v[p] for p in t)) / len(t) for t in teams.teams],
              players=[float(x) for x in v])


def player_reach_plans(tree: GameTree, pi: np.ndarray) -> np.ndarray:
  """[num_terminals, num_players + 1] each player's (last column: chance's) terminal reach."""
  return evaluation.reach_by_owner(tree, pi)[tree.terminals]
