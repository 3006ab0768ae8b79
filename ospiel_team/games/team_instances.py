"""The benchmark instances of Table 1 of Zhang & Sandholm (AAAI 2022).

The benchmark instances of Table 1 of Zhang & Sandholm (team-correlated equilibria by tree
decomposition, Sec. 5): name -> (pyspiel game string, teams).

Names read `<n1><n2><letter><parameters>` (Table 1 of Zhang & Sandholm, AAAI 2022): team 1 is
players 0 .. n1-1 and team 2 the rest, except in Liar's Dice where both teams would otherwise be
consecutive blocks of two or more players (`22D3`, `33D2`, `42D2`): there the last 2*n2 players
alternate teams, team 1 first (`42D2`: {0,1,2,4} vs {3,5}; the same as "team 1 = even seats
first, then the lowest odd seats"). OpenSpiel built-ins are used where they are exactly the game
(`kuhn_poker(players=n)` is Kuhn poker with n+1 ranks).

`PAPER_TABLE1` holds the size columns of Table 1 (terminal histories, #sequences of each team,
the paper's LP size and runtime "Ours"), as facts to check the constructions against
(`tests/games/test_games_team.py`) and to compare with (benchmarks). Missing entries are None.

Checked here (tests, some marked slow): every instance's terminal-history count and both
teams' sequence counts equal Table 1 (see the tests for the list each check covers).
"""

import dataclasses

import pyspiel

from ospiel_team.games import team_goofspiel  # noqa: F401  (registers the games)
from ospiel_team.games import team_kuhn  # noqa: F401
from ospiel_team.games import team_leduc  # noqa: F401
from ospiel_team.games import team_liars_dice  # noqa: F401

Teams = tuple[tuple[int, ...], tuple[int, ...]]


def _blocks(n1: int, n2: int) -> Teams:
  return tuple(range(n1)), tuple(range(n1, n1 + n2))


def _alternating(n1: int, n2: int) -> Teams:
  """First n1-n2 players in team 1, then the last 2*n2 players alternate (team 1 first)."""
  head = n1 - n2
  team1 = list(range(head)) + [head + 2 * i for i in range(n2)]
  team2 = [head + 2 * i + 1 for i in range(n2)]
  return tuple(sorted(team1)), tuple(team2)


def _kuhn(n1: int, n2: int, ranks: int) -> tuple[str, Teams]:
  n = n1 + n2
  if ranks == n + 1:
    return f"kuhn_poker(players={n})", _blocks(n1, n2)
  return f"team_kuhn(players={n},ranks={ranks})", _blocks(n1, n2)


def _leduc(n1: int, n2: int, bets: int, ranks: int, suits: int,
           prime: bool = False) -> tuple[str, Teams]:
  n = n1 + n2
  extra = f",team1_size={n1},no_raise_team=1" if prime else ""
  return (f"team_leduc(players={n},bets={bets},ranks={ranks},suits={suits}{extra})",
          _blocks(n1, n2))


def _dice(n1: int, n2: int, sides: int) -> tuple[str, Teams]:
  teams = _alternating(n1, n2) if n2 >= 2 else _blocks(n1, n2)
  # Face-first bid order, no wild face: the reading that gives 21D3 = .2840 (team_liars_dice.py).
  return (f"team_liars_dice(players={n1 + n2},sides={sides},bidding_rule=reset-quantity,"
          "wild=False)", teams)


def _goof(n1: int, n2: int, limited: bool) -> tuple[str, Teams]:
  info = "limited" if limited else "full"
  return f"team_goofspiel(players={n1 + n2},info={info})", _blocks(n1, n2)


# name -> (pyspiel game string, (team 1 players, team 2 players))
TABLE1_INSTANCES: dict[str, tuple[str, Teams]] = {
    "21K3": _kuhn(2, 1, 3),
    "21K4": _kuhn(2, 1, 4),
    "21K6": _kuhn(2, 1, 6),
    "21K8": _kuhn(2, 1, 8),
    "21K12": _kuhn(2, 1, 12),
    "22K5": _kuhn(2, 2, 5),
    "31K5": _kuhn(3, 1, 5),
    "21L133": _leduc(2, 1, 1, 3, 3),
    "21L143": _leduc(2, 1, 1, 4, 3),
    "21L151": _leduc(2, 1, 1, 5, 1),
    "21L153": _leduc(2, 1, 1, 5, 3),
    "21L223": _leduc(2, 1, 2, 2, 3),
    "21L523": _leduc(2, 1, 5, 2, 3),
    "22L133": _leduc(2, 2, 1, 3, 3),
    "31L'132": _leduc(3, 1, 1, 3, 2, prime=True),
    "31L'133": _leduc(3, 1, 1, 3, 3, prime=True),
    "31L133": _leduc(3, 1, 1, 3, 3),
    "21D3": _dice(2, 1, 3),
    "21D4": _dice(2, 1, 4),
    "22D3": _dice(2, 2, 3),
    "33D2": _dice(3, 3, 2),
    "42D2": _dice(4, 2, 2),
    "51D2": _dice(5, 1, 2),
    "21GL": _goof(2, 1, True),
    "21G": _goof(2, 1, False),
    "31GL": _goof(3, 1, True),
    "31G": _goof(3, 1, False),
    "32GL": _goof(3, 2, True),
    "32G": _goof(3, 2, False),
}


@dataclasses.dataclass(frozen=True)
class PaperRow:
  """Size columns of one row of Table 1 (Zhang & Sandholm)."""
  terminals: int  # terminal histories |Z|
  seq1: int  # #Seq of team 1
  seq2: int  # #Seq of team 2
  lp_size: int | None  # "LP Size" (None: not reported)
  seconds: float | None  # runtime "Ours" (None: not finished, "oom")


PAPER_TABLE1: dict[str, PaperRow] = {
    "21K3": PaperRow(78, 91, 25, 2386, 0.01),
    "21K4": PaperRow(312, 177, 33, 18810, 0.02),
    "21K6": PaperRow(1560, 433, 49, 1150838, 1.37),
    "21K8": PaperRow(4368, 801, 65, 62574750, 144.0),
    "21K12": PaperRow(17160, 1873, 97, None, None),
    # The printed row reads "611 | 23711 | 39 | 3083 | 521 | 5.9": team 2's #Seq and its next
    # column are swapped (its ratio 5.9 = 3083 / 521); the tree has 521 team-2 sequences.
    "22K5": PaperRow(3960, 611, 521, 426297, 1.27),
    "31K5": PaperRow(3960, 2611, 81, 21106658, 200.0),
    "21L133": PaperRow(6477, 2725, 457, 126075, 0.49),
    "21L143": PaperRow(20856, 6377, 801, 1195766, 7.66),
    "21L151": PaperRow(10020, 6051, 1001, 1425583, 8.02),
    "21L153": PaperRow(51215, 12361, 1241, 11234573, 230.0),
    "21L223": PaperRow(8762, 5765, 1443, 112305, 0.23),
    "21L523": PaperRow(775148, 492605, 123153, 10507398, 207.0),
    "22L133": PaperRow(80322, 9781, 9745, 785032, 9.26),
    "31L'132": PaperRow(3834, 3991, 151, 369673, 2.97),
    "31L'133": PaperRow(8898, 5644, 151, 577942, 8.88),
    "31L133": PaperRow(80322, 42361, 1633, 6326658, 112.0),
    "21D3": PaperRow(13797, 6085, 1021, 500665, 2.03),
    "21D4": PaperRow(262080, 87217, 10921, 32755273, 599.0),
    "22D3": PaperRow(331695, 36784, 36388, 5275196, 60.0),
    "33D2": PaperRow(262080, 31545, 29433, 1862387, 15.7),
    "42D2": PaperRow(262080, 83969, 9491, 4751391, 84.0),
    "51D2": PaperRow(262080, 185905, 3459, 17635669, 501.0),
    "21GL": PaperRow(1296, 2713, 934, 34310, 0.06),
    "21G": PaperRow(1296, 3601, 1630, 47810, 0.08),
    "31GL": PaperRow(7776, 21082, 3502, 249374, 0.66),
    "31G": PaperRow(7776, 30250, 8758, 378410, 0.79),
    "32GL": PaperRow(46656, 71722, 34393, 1095542, 3.19),
    "32G": PaperRow(46656, 160498, 102097, 2620502, 7.86),
}


def load_instance(name: str) -> tuple[pyspiel.Game, Teams]:
  """Returns (game, teams) for a Table 1 instance name such as "21K3" or "31L'132"."""
  if name not in TABLE1_INSTANCES:
    raise KeyError(f"unknown Table 1 instance {name!r}; known: {sorted(TABLE1_INSTANCES)}")
  game_string, teams = TABLE1_INSTANCES[name]
  return pyspiel.load_game(game_string), teams


# Runtimes of the two other solvers in Table 1 (seconds; None: "—", not reported): FCGS-21
# (Farina, Celli, Gatti & Sandholm, ICML 2021) and ZAC-20 (Zhang, An & Cerny 2020), as printed.
# The extracted table has merged cells (the same time repeated over rows of one game family,
# e.g. 2m23s for 21L133/22L133/31L133); they are copied as printed. 21K12's row lost its
# leading cells in the extraction and ends "oom | 4.96s | 10s": Ours out of memory, FCGS-21
# 4.96 s, ZAC-20 10 s.
OTHER_SOLVERS_SECONDS: dict[str, tuple[float | None, float | None]] = {
    "21K3": (0.01, 0.7), "21K4": (0.01, 0.7), "21K6": (None, 2.0), "21K8": (4.96, 4.0),
    "21K12": (4.96, 10.0), "22K5": (None, None), "31K5": (None, None),
    "21L133": (143.0, 4920.0), "21L143": (4020.0, 4920.0), "21L151": (None, 15840.0),
    "21L153": (4020.0, 15840.0), "21L223": (209.0, None), "21L523": (209.0, None),
    "22L133": (143.0, 4920.0), "31L'132": (None, 68.0), "31L'133": (None, 1264.0),
    "31L133": (143.0, 4920.0), "21D3": (72.0, None), "21D4": (21600.0, None),
    "22D3": (21600.0, None), "33D2": (None, None), "42D2": (None, None), "51D2": (None, None),
    "21GL": (0.33, None), "21G": (1.18, None), "31GL": (None, None), "31G": (1.18, None),
    "32GL": (None, None), "32G": (None, None),
}


def fastest_published(name: str) -> tuple[float, str] | None:
  """(seconds, solver) of the fastest of Table 1's three runtime columns, or None."""
  row = PAPER_TABLE1[name]
  fcgs, zac = OTHER_SOLVERS_SECONDS[name]
  times = [(t, s) for t, s in ((row.seconds, "paper Ours"), (fcgs, "FCGS-21"), (zac, "ZAC-20"))
           if t is not None]
  return min(times) if times else None
