"""team_leduc against a second, independent implementation of the written rules.

The reference below is written from the rules of Zhang & Sandholm's Leduc family ("Team
Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree Decompositions", AAAI 2022,
arXiv:2109.05284, Sec. 5) as `team_leduc`'s docstring states them, and shares no code with
it: a set of players who still owe an action replaces the call counter, chance probabilities
and pots are exact fractions. Every terminal history of each small game below, and of Table 1's
`21L523` (`bets=5`, the only Leduc row with several raises and pairs whose value Table 1 prints,
slow), must have the same chance probability and the same returns in both. The hand-checked
histories fix the rules that only show with many raises (the raise cap, the stake after five
raises in each round) and with three suits (two players paired with the public card).
"""

from fractions import Fraction

import pyspiel
import pytest

from ospiel_team.games import team_instances
from ospiel_team.games import team_leduc  # noqa: F401  (registers team_leduc)

FOLD, CALL, RAISE = 0, 1, 2


def reference_terminals(players: int, bets: int, ranks: int, suits: int) -> dict:
  """{action path: (chance probability, returns)} of every terminal history.

  Args:
    players: number of players.
    bets: most raises (the opening bet included) per betting round.
    ranks: ranks in the deck.
    suits: cards per rank.
  """
  raise_size = (2, 4)
  out = {}

  def showdown(contrib, folded, cards, public):
    alive = [p for p in range(players) if not folded[p]]
    strength = {p: (cards[p] == public, cards[p]) for p in alive}
    best = max(strength.values())
    winners = [p for p in alive if strength[p] == best]
    pot = sum(contrib)
    return tuple(Fraction(pot, len(winners)) * (p in winners) - contrib[p]
                 for p in range(players))

  def betting(path, prob, cards, public, rnd, contrib, folded, owe, raises, cur):
    stake = max(contrib)
    actions = ([FOLD] if contrib[cur] < stake else []) + [CALL]
    if raises < bets:
      actions.append(RAISE)
    for a in actions:
      c, f, o, k = list(contrib), list(folded), set(owe) - {cur}, raises
      if a == FOLD:
        f[cur] = True
      elif a == CALL:
        c[cur] = stake
      else:
        c[cur] = stake + raise_size[rnd]
        k += 1
        o = {p for p in range(players) if not f[p] and p != cur}
      alive = [p for p in range(players) if not f[p]]
      if len(alive) == 1:
        pot = sum(c)
        out[path + (a,)] = (prob, tuple(pot * (p in alive) - c[p] for p in range(players)))
      elif not o and rnd == 1:
        out[path + (a,)] = (prob, showdown(c, f, cards, public))
      elif not o:
        deal_public(path + (a,), prob, cards, c, f)
      else:
        nxt = next((cur + i) % players for i in range(1, players + 1)
                    if (cur + i) % players in o)
        betting(path + (a,), prob, cards, public, rnd, c, f, o, k, nxt)

  def start_round(path, prob, cards, public, rnd, contrib, folded):
    owe = {p for p in range(players) if not folded[p]}
    betting(path, prob, cards, public, rnd, contrib, folded, owe, 0, min(owe))

  def deal_public(path, prob, cards, contrib, folded):
    left = [suits - cards.count(r) for r in range(ranks)]
    for r in range(ranks):
      if left[r]:
        start_round(path + (r,), prob * Fraction(left[r], sum(left)), cards, r, 1, contrib,
                    folded)

  def deal_private(path, prob, cards):
    if len(cards) == players:
      start_round(path, prob, cards, None, 0, [1] * players, [False] * players)
      return
    left = [suits - cards.count(r) for r in range(ranks)]
    for r in range(ranks):
      if left[r]:
        deal_private(path + (r,), prob * Fraction(left[r], sum(left)), cards + [r])

  deal_private((), Fraction(1), [])
  return out


def team_leduc_terminals(game: pyspiel.Game) -> dict:
  """{action path: (chance probability, returns)} of every terminal history of `game`."""
  out = {}
  stack = [(game.new_initial_state(), (), 1.0)]
  while stack:
    s, path, prob = stack.pop()
    if s.is_terminal():
      out[path] = (prob, tuple(s.returns()))
    elif s.is_chance_node():
      stack.extend((s.child(a), path + (a,), prob * p) for a, p in s.chance_outcomes())
    else:
      stack.extend((s.child(a), path + (a,), prob) for a in s.legal_actions())
  return out


def _differences(game_string: str) -> tuple[dict, list]:
  """(the reference's terminals, the paths where team_leduc differs from it)."""
  game = pyspiel.load_game(game_string)
  p = game.get_parameters()
  ref = reference_terminals(p["players"], p["bets"], p["ranks"], p["suits"])
  ours = team_leduc_terminals(game)
  diffs = sorted(ours.keys() ^ ref.keys())
  for path, (prob, returns) in ref.items():
    if path in ours and (ours[path][0] != pytest.approx(float(prob), rel=1e-12, abs=0) or
                         ours[path][1] != tuple(float(x) for x in returns)):
      diffs.append(path)
  return ref, diffs


@pytest.mark.parametrize("game_string,terminals", [
    ("team_leduc(players=3,bets=3,ranks=2,suits=2)", None),
    ("team_leduc(players=2,bets=5,ranks=2,suits=3)", None),
    ("team_leduc(players=3,bets=2,ranks=2,suits=3)", None),
    ("team_leduc(players=3,bets=4,ranks=1,suits=4)", None),  # every showdown a tie
    # 21L151's game, with the paper's terminal count
    ("team_leduc(players=3,bets=1,ranks=5,suits=1)",
     team_instances.PAPER_TABLE1["21L151"].terminals),
])
def test_team_leduc_equals_reference(game_string, terminals):
  ref, diffs = _differences(game_string)
  assert diffs == []
  if terminals is not None:
    assert len(ref) == terminals


@pytest.mark.slow
def test_21l523_equals_reference():
  """Table 1's 21L523: 775,148 terminal histories in both, same probabilities and returns."""
  game_string, _ = team_instances.TABLE1_INSTANCES["21L523"]
  ref, diffs = _differences(game_string)
  assert diffs == []
  assert len(ref) == team_instances.PAPER_TABLE1["21L523"].terminals == 775148


def _play(game: pyspiel.Game, actions: list[int]) -> pyspiel.State:
  s = game.new_initial_state()
  for a in actions:
    assert a in (s.legal_actions() if not s.is_chance_node()
                 else [o for o, _ in s.chance_outcomes()])
    s.apply_action(a)
  return s


def test_five_raises_hand_checked():
  """21L523's game: after five raises a player may only fold or call; stakes 1 + 5 * 2 = 11
  after round 1 and 11 + 5 * 4 = 31 after round 2 (player 2 folds after raising to 23)."""
  game_string, _ = team_instances.TABLE1_INSTANCES["21L523"]
  game = pyspiel.load_game(game_string)
  r, c, f = RAISE, CALL, FOLD
  # Deal ranks 0, 1, 1; players 0, 1, 2, 0, 1 raise; 2 and 0 call.
  s = _play(game, [0, 1, 1, r, r, r, r, r])
  assert s.current_player() == 2 and s.legal_actions() == [f, c]
  s = _play(game, [0, 1, 1, r, r, r, r, r, c, c])
  assert s.is_chance_node() and s.ante == [11, 11, 11]
  # Public rank 0 pairs player 0; five raises again, player 2 folds, player 0 calls.
  s = _play(game, [0, 1, 1, r, r, r, r, r, c, c, 0, r, r, r, r, r])
  assert s.current_player() == 2 and s.legal_actions() == [f, c]
  s = _play(game, [0, 1, 1, r, r, r, r, r, c, c, 0, r, r, r, r, r, f, c])
  assert s.is_terminal() and s.ante == [31, 31, 23]
  assert s.returns() == [85 - 31, -31, -23]  # pot 85: player 0's pair beats player 1's 1


def test_two_pairs_split_hand_checked():
  """Three suits: players 0 and 1 both pair the public card and split the pot."""
  game = pyspiel.load_game("team_leduc(players=3,bets=5,ranks=2,suits=3)")
  c, r = CALL, RAISE
  s = _play(game, [0, 0, 1, r, c, c, 0, c, c, c])
  assert s.is_terminal() and s.returns() == [4.5 - 3, 4.5 - 3, -3]
  # The chance probability of this deal: 3/6 * 2/5 * 3/4, then public 0: 1/3.
  s = game.new_initial_state()
  prob = 1.0
  for a in (0, 0, 1):
    prob *= dict(s.chance_outcomes())[a]
    s.apply_action(a)
  assert prob == pytest.approx(3 / 6 * 2 / 5 * 3 / 4)
