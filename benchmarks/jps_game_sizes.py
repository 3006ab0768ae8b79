"""Sizes of the JPS collaborative games and the time to walk their trees.

For each game: walks the whole pyspiel tree once (clone + apply, as any
tree-building algorithm does), counts chance / decision / terminal histories
and each player's information states, checks the terminal count against the
closed form of the game's module docstring, and reports the walk time.

  python benchmarks/jps_game_sizes.py
  python benchmarks/jps_game_sizes.py --games="comm(length=7)"

The README games table (histories / infosets at the default sizes) comes from
the default run of this script.
"""

import time

import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401  (registers the games)
from ospiel_team.games import comm
from ospiel_team.games import mini_bridge
from ospiel_team.games import simple_bidding

_GAMES = flags.DEFINE_list(
    "games",
    ["comm", "simple_bidding", "mini_bridge", "tiny_hanabi",
     "comm(length=5)", "simple_bidding(size=16)", "mini_bridge(size=4)",
     "mini_bridge(size=5)"],
    "Game strings to measure.")


def walk(game: pyspiel.Game) -> dict:
  """Counts histories and information states of every player."""
  counts = {"chance": 0, "decision": 0, "terminal": 0}
  infosets = [set() for _ in range(game.num_players())]
  stack = [game.new_initial_state()]
  while stack:
    state = stack.pop()
    if state.is_terminal():
      counts["terminal"] += 1
      continue
    if state.is_chance_node():
      counts["chance"] += 1
      actions = [a for a, _ in state.chance_outcomes()]
    else:
      counts["decision"] += 1
      player = state.current_player()
      infosets[player].add(state.information_state_string(player))
      actions = state.legal_actions()
    for a in actions:
      stack.append(state.child(a))
  counts["infosets"] = [len(s) for s in infosets]
  return counts


def closed_form_terminals(game: pyspiel.Game):
  """Terminal-history closed form of our games (None for others)."""
  name = game.get_type().short_name
  params = game.get_parameters()
  if name == "comm":
    return comm.num_terminal_histories(params["length"])
  if name == "simple_bidding":
    return simple_bidding.num_terminal_histories(params["size"])
  if name == "mini_bridge":
    return mini_bridge.num_terminal_histories(params["size"])
  return None


def main(argv):
  del argv
  print("| game | histories (chance / decision / terminal) | infosets "
        "(P1 + P2) | walk seconds |")
  print("|---|---|---|---|")
  for name in _GAMES.value:
    game = pyspiel.load_game(name)
    start = time.perf_counter()
    c = walk(game)
    seconds = time.perf_counter() - start
    expected = closed_form_terminals(game)
    if expected is not None and expected != c["terminal"]:
      raise AssertionError(
          f"{game}: {c['terminal']} terminals, closed form {expected}")
    total = c["chance"] + c["decision"] + c["terminal"]
    p1, p2 = c["infosets"]
    print(f"| `{game}` | {total} ({c['chance']} / {c['decision']} / "
          f"{c['terminal']}) | {p1 + p2} ({p1} + {p2}) | {seconds:.2f} |",
          flush=True)


if __name__ == "__main__":
  app.run(main)
