"""Conformance suite of the team solvers: what every method must satisfy, on small exact cases.

As pgx's `api_test` does for environments, `team_solver_conformance(solve)` runs a team
method on a fixed set of small two-team zero-sum games and checks what any correct method
returns: a certified bracket `lower <= value <= upper` that holds the exact TMECor value (team
1's max-min value over both teams' correlated joint pure strategies; Zhang & Sandholm,
"Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree Decompositions", AAAI
2022, arXiv:2109.05284, Def. 2.2), and, for an exact method, `value` equal to it. The
reference is computed here by brute force (`brute_force_tmecor`: the matrix game of joint pure
strategies, solved by scipy's `linprog`), independently of the package's decompositions, LPs
and best responses.

The cases cover what the methods treat specially: terminals reached without one team acting
(the team LP's constant leaf), chance at the root and chance inside the tree, teams in either
order, and a team of one player against a team of two.

Example:
  from ospiel_team.algorithms.team import conformance, solve
  conformance.team_solver_conformance(lambda tree, teams: solve(tree, teams, method="cg"))
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
from scipy import optimize

from ospiel_team.tree import teams as teams_lib
from ospiel_team.tree.arrays import CHANCE
from ospiel_team.tree.arrays import TERMINAL
from ospiel_team.tree.arrays import TreeArrays
from ospiel_team.tree.game_tree import GameTree

# A spec node: ("T", u) a terminal where team {0, 1} gets u (each member u / 2) and player 2
# gets -u; ("C", [(prob, child), ...]) a chance node; ("D", player, infoset key, [child for
# action 0, child for action 1]) a decision node.
Spec = tuple


@dataclasses.dataclass(frozen=True)
class ConformanceCase:
  """One game of the suite, its teams and what it exercises.

  Attributes:
    name: a short name.
    tree: the game's tree (3 players, 2 actions).
    teams: its two teams.
    covers: what the case exercises.
  """
  name: str
  tree: GameTree
  teams: teams_lib.Teams
  covers: str


def tree_from_spec(spec: Spec, game: pyspiel.Game | None = None) -> GameTree:
  """The `GameTree` of a nested spec (module comment of `Spec`), nodes in level order.

  Args:
    spec: the root's spec.
    game: the pyspiel game the tree stands for (3 players, 2 distinct actions; default
      `kuhn_poker(players=3)`: only its player and action counts are used).

  Returns:
    The tree (`GameTree.from_arrays`).
  """
  game = game or pyspiel.load_game("kuhn_poker(players=3)")
  parent, action, player, depth, infoset, prob, returns = [], [], [], [], [], [], []
  keys: list[str] = []
  key_players: list[int] = []
  level = [(spec, -1, -1, 1.0)]
  d = 0
  while level:
    nxt = []
    for node, par, act, p in level:
      n = len(parent)
      parent.append(par)
      action.append(act)
      depth.append(d)
      prob.append(p)
      r = np.zeros(3)
      inf = -1
      if node[0] == "T":
        player.append(TERMINAL)
        r[:] = (node[1] / 2, node[1] / 2, -node[1])
      elif node[0] == "C":
        player.append(CHANCE)
        nxt += [(child, n, a, q) for a, (q, child) in enumerate(node[1])]
      else:
        _, who, key, children = node
        player.append(who)
        if key not in keys:
          keys.append(key)
          key_players.append(who)
        inf = keys.index(key)
        nxt += [(child, n, a, 1.0) for a, child in enumerate(children)]
      infoset.append(inf)
      returns.append(r)
    level, d = nxt, d + 1
  int64 = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
  arrays = TreeArrays(
      node_parent=int64(parent), node_action=int64(action), node_player=int64(player),
      node_depth=np.asarray(depth, dtype=np.int32), node_infoset=int64(infoset),
      node_chance_prob=np.asarray(prob), node_returns=np.asarray(returns),
      infoset_player=int64(key_players), infoset_legal=np.ones((len(keys), 2), dtype=bool),
      infoset_keys=tuple(keys))
  return GameTree.from_arrays(game, arrays)


def _t(u: float) -> Spec:
  return ("T", float(u))


# Team {0, 1} may stop at once (a terminal team 2 never reaches), else chance deals one of two
# hands that player 2 cannot tell apart; player 1 acts only in the second.
_TEAM1_STOPS = ("D", 0, "a", [
    _t(0.5),
    ("C", [(0.5, ("D", 2, "x", [_t(2.0), _t(-1.0)])),
           (0.5, ("D", 2, "x", [("D", 1, "b", [_t(-2.0), _t(1.0)]), _t(1.0)]))])])
# Chance at the root (1/3, 2/3); player 2 may stop at once in the first deal (a terminal team
# {0, 1} never reaches); player 0 cannot tell the deals apart.
_CHANCE_AT_ROOT = ("C", [
    (1 / 3, ("D", 2, "x", [_t(-1.0), ("D", 0, "a", [_t(2.0), _t(-1.0)])])),
    (2 / 3, ("D", 2, "x", [("D", 1, "b", [_t(1.0), _t(-2.0)]),
                           ("D", 0, "a", [_t(-1.0), _t(1.0)])]))])
# Chance inside, below both teams' first moves, then player 1 who sees neither chance nor
# player 2; team 2 never acts after player 0's second action.
_CHANCE_INSIDE = ("D", 0, "a", [
    ("D", 2, "x", [
        ("C", [(0.25, ("D", 1, "b", [_t(3.0), _t(-1.0)])),
               (0.75, ("D", 1, "b", [_t(-1.0), _t(0.5)]))]),
        ("C", [(0.6, ("D", 1, "c", [_t(-2.0), _t(1.0)])),
               (0.4, ("D", 1, "c", [_t(0.0), _t(-0.5)]))])]),
    ("C", [(0.5, ("D", 1, "d", [_t(1.5), _t(-1.0)])),
           (0.5, ("D", 1, "d", [_t(-1.5), _t(0.25)]))])])


def conformance_cases() -> list[ConformanceCase]:
  """The suite's games and teams (each small enough for `brute_force_tmecor`).

  Returns:
    The cases, in a fixed order.
  """
  specs = [("team1_stops", _TEAM1_STOPS, "terminals team 2 never reaches"),
           ("chance_at_root", _CHANCE_AT_ROOT,
            "chance at the root; terminals team {0, 1} never reaches"),
           ("chance_inside", _CHANCE_INSIDE, "chance inside the tree, after both teams moved")]
  cases = []
  for name, spec, covers in specs:
    tree = tree_from_spec(spec)
    for teams in ("0,1|2", "2|0,1"):
      cases.append(ConformanceCase(f"{name} {teams}", tree, teams_lib.parse_teams(teams, 3),
                                   f"{covers}; teams {teams}"))
  return cases


def _paths(tree: GameTree) -> list[tuple[float, list[tuple[int, int]]]]:
  """Every terminal's chance probability and its (infoset, action) decisions, root first."""
  out = []
  for z in tree.terminals:
    p, decisions, n = 1.0, [], int(z)
    while tree.node_parent[n] >= 0:
      par = int(tree.node_parent[n])
      if tree.node_player[par] == CHANCE:
        p *= float(tree.node_chance_prob[n])
      else:
        decisions.append((int(tree.node_infoset[par]), int(tree.node_action[n])))
      n = par
    out.append((p, decisions[::-1]))
  return out


def _pure_strategies(tree: GameTree, members) -> list[dict[int, int]]:
  """Every joint pure strategy of `members`: {infoset: action} over all their infosets."""
  infosets = [i for i in range(tree.num_infosets) if tree.infoset_player[i] in members]
  choices = [np.nonzero(tree.infoset_legal[i])[0].tolist() for i in infosets]
  return [dict(zip(infosets, c, strict=True)) for c in itertools.product(*choices)]


def _plays(strategy: dict[int, int], decisions, members_infosets: set[int]) -> bool:
  return all(strategy[i] == a for i, a in decisions if i in members_infosets)


def brute_force_tmecor(tree: GameTree, teams: teams_lib.Teams) -> float:
  """Team 1's TMECor value by brute force: the matrix game of joint pure strategies.

  A[s1, s2] = sum over terminals z of chance(z) u1(z) [s1 and s2 play to z]; the value
  max_x min_s2 (x^T A)[s2] over distributions x, by scipy's `linprog` (HiGHS).

  Args:
    tree: a small game tree (every joint pure strategy is enumerated).
    teams: two teams.

  Returns:
    Team 1's value.
  """
  util1 = teams_lib.team_terminal_utilities(tree, teams)[:, 0]
  paths = _paths(tree)
  sides = []
  for members in teams.teams:
    own = {i for i in range(tree.num_infosets) if tree.infoset_player[i] in members}
    sides.append((own, _pure_strategies(tree, members)))
  (own1, s1), (own2, s2) = sides
  a = np.zeros((len(s1), len(s2)))
  for z, (p, decisions) in enumerate(paths):
    rows = np.array([_plays(s, decisions, own1) for s in s1])
    cols = np.array([_plays(s, decisions, own2) for s in s2])
    a += p * util1[z] * np.outer(rows, cols)
  # Variables (x_1..x_n, v): maximise v s.t. v - (A^T x)[j] <= 0, sum x = 1, x >= 0.
  n, m = a.shape
  res = optimize.linprog(
      c=np.r_[np.zeros(n), -1.0], A_ub=np.c_[-a.T, np.ones(m)], b_ub=np.zeros(m),
      A_eq=np.r_[np.ones(n), 0.0][None], b_eq=[1.0],
      bounds=[(0, None)] * n + [(None, None)], method="highs")
  if res.status != 0:
    raise RuntimeError(f"brute-force TMECor LP: {res.message}")
  return float(-res.fun)


def brute_force_team_best_response(tree: GameTree, teams: teams_lib.Teams, team: int,
                                   pi: np.ndarray) -> float:
  """The best joint pure strategy value of `team` against the other team's policies `pi`.

  Args:
    tree: a small game tree.
    teams: two teams.
    team: the responding team (0 or 1).
    pi: [num_infosets, num_actions] behaviour policies (the other team's rows are used).

  Returns:
    The responding team's value (the sum of its members' returns).
  """
  util = teams_lib.team_terminal_utilities(tree, teams)[:, team]
  own = {i for i in range(tree.num_infosets) if tree.infoset_player[i] in teams.teams[team]}
  paths = _paths(tree)
  # w[z]: chance x the other team's reach of z x this team's utility.
  w = [p * util[z] * np.prod([float(pi[i, a]) for i, a in decisions if i not in own])
       for z, (p, decisions) in enumerate(paths)]
  return max(sum(w[z] for z, (_, decisions) in enumerate(paths) if _plays(s, decisions, own))
             for s in _pure_strategies(tree, teams.teams[team]))


def team_solver_conformance(solve: Callable[[GameTree, teams_lib.Teams], Any], *,
                            exact: bool = False, atol: float = 1e-6,
                            cases: list[ConformanceCase] | None = None) -> list[str]:
  """Runs a team method on every case and checks its bracket against the exact value.

  Args:
    solve: the method: (tree, teams) -> a result with `lower`, `value` and `upper` (team 1's;
      e.g. an `AnytimeResult`, a `TeamSolveResult`).
    exact: the method claims an exact value (`value` within `atol` of the reference).
    atol: the tolerance of every comparison.
    cases: the cases (default `conformance_cases()`).

  Returns:
    The names of the cases run.

  Raises:
    AssertionError: listing every case whose bracket is out of order, misses the reference,
      or (with `exact`) whose value differs from it.
  """
  failures, names = [], []
  for case in cases if cases is not None else conformance_cases():
    ref = brute_force_tmecor(case.tree, case.teams)
    res = solve(case.tree, case.teams)
    lo, v, hi = float(res.lower), float(res.value), float(res.upper)
    names.append(case.name)
    if not lo - atol <= v <= hi + atol:
      failures.append(f"{case.name}: value {v} outside its bracket [{lo}, {hi}]")
    if not lo - atol <= ref <= hi + atol:
      failures.append(f"{case.name}: bracket [{lo}, {hi}] misses the exact value {ref} "
                      f"({case.covers})")
    if exact and abs(v - ref) > atol:
      failures.append(f"{case.name}: value {v} != the exact value {ref} ({case.covers})")
  if failures:
    raise AssertionError("team solver conformance failed:\n" + "\n".join(failures))
  return names
