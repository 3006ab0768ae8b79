r"""Is OpenSpiel's `tiny_hanabi` the Mini-Hanabi the JPS authors ran? Compared exhaustively.

The JPS paper's Table 1 column "Mini-Hanabi [16]" is the authors' game `comm2`
(facebookresearch/jps, `simple_game/comm2.h`: "The game is from Bayesian Action Decoder";
their README runs it as `./jps --game comm2 --iter 100 --iter_cfr 1000`). That file is
transcribed below (payoff table `kPayOff`, the deal `card1 = action % 2, card2 = action / 2`
over four equally likely chance actions, and its information-set keys). This script compares it
with OpenSpiel's `tiny_hanabi` (default parameters), as the package's JPS experiments load it:

- the payoff of every (card1, card2, action1, action2) terminal;
- the chance probability of every deal;
- the information partition (P1 sees card1; P2 sees card2 and P1's action);
- the value of every joint pure strategy (3^2 x 3^6 = 6,561), and so the optimum;
- the tree sizes: the authors' count of states and information sets (their `Initialize done.
  #infoSet: 45, #states: 53`, which are also the paper's Table 1 cells) from their key
  functions, and ours from OpenSpiel's tree.

Writes one JSON record (`--out`) with the command, commit, date and load average.

Usage:
  python benchmarks/jps_tiny_hanabi_game.py --out results/jps/tiny_hanabi_game.json
"""

import itertools
import json
import os
import sys
import time

import pyspiel
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("out", "results/jps/tiny_hanabi_game.json", "JSON record")

AUTHORS_REPO = "facebookresearch/jps"
AUTHORS_COMMIT = "ab76f5cbe695f5afbc8dbe76703b38ca24e7c7dc"
AUTHORS_PATH = "simple_game/comm2.h"
# `kPayOff` of comm2.h, indexed [(card1 * 2 + card2) * 3 + action1][action2].
AUTHORS_PAYOFF = [
    [10, 0, 0], [4, 8, 4], [10, 0, 0],  # card1 = card2 = 0
    [0, 0, 10], [4, 8, 4], [0, 0, 10],  # card1 = 0, card2 = 1
    [0, 0, 10], [4, 8, 4], [0, 0, 0],   # card1 = 1, card2 = 0
    [10, 0, 0], [4, 8, 4], [10, 0, 0],  # card1 = 1, card2 = 1
]


def authors_payoff(c1: int, c2: int, a1: int, a2: int) -> float:
  """comm2.h's `playerReward`: kPayOff[idx * 3 + public_action][p2_action], idx = c1*2 + c2."""
  return float(AUTHORS_PAYOFF[(c1 * 2 + c2) * 3 + a1][a2])


def authors_deals() -> dict[tuple[int, int], float]:
  """comm2.h's `step` at the chance node: action in {0..3}, card1 = a % 2, card2 = a / 2."""
  deals: dict[tuple[int, int], float] = {}
  for a in range(4):
    key = (a % 2, a // 2)
    deals[key] = deals.get(key, 0.0) + 0.25
  return deals


def authors_tree_counts() -> tuple[int, int]:
  """(#states, #infoSet) as the authors' search tree counts them from comm2.h's keys.

  States: the chance root, 4 dealt states (P1 to move), 12 states after P1's action (P2 to
  move) and 36 terminals. Information-set keys (`infoSet()`): "s" at the root,
  "p1-c1=X", "p2-c2=Y-a=A", and at a terminal its complete description (one key each).
  """
  states, keys = 1, {"s"}
  for c1, c2 in itertools.product(range(2), range(2)):
    states += 1
    keys.add(f"p1-c1={c1}")
    for a1 in range(3):
      states += 1
      keys.add(f"p2-c2={c2}-a={a1}")
      for a2 in range(3):
        states += 1
        keys.add(f"done-c1={c1}-c2={c2}-a={a1}-a={a2}")
  return states, len(keys)


def openspiel_game() -> dict:
  """OpenSpiel's tiny_hanabi walked: payoffs, deal probabilities, infoset keys, sizes."""
  game = pyspiel.load_game("tiny_hanabi")
  payoff, deals, p1_keys, p2_keys = {}, {}, {}, {}
  counts = {"chance": 0, "decision": 0, "terminal": 0}

  def walk(state, prob, cards):
    if state.is_terminal():
      counts["terminal"] += 1
      c1, c2, a1, a2 = cards
      returns = state.returns()
      assert returns[0] == returns[1]
      payoff[(c1, c2, a1, a2)] = returns[0]
      return
    if state.is_chance_node():
      counts["chance"] += 1
      for a, p in state.chance_outcomes():
        walk(state.child(a), prob * p, cards + (a,))
      return
    counts["decision"] += 1
    if len(cards) == 2:
      deals[cards] = prob
    key = state.information_state_string()
    if state.current_player() == 0:
      p1_keys.setdefault(key, set()).add(cards[0])
    else:
      p2_keys.setdefault(key, set()).add((cards[1], cards[2]))
    for a in state.legal_actions():
      walk(state.child(a), prob, cards + (a,))

  walk(game.new_initial_state(), 1.0, ())
  return dict(payoff=payoff, deals=deals, p1_keys=p1_keys, p2_keys=p2_keys, counts=counts,
              params=str(game.get_parameters()["payoff"]))


def joint_values(payoff_fn, deals) -> list[float]:
  """The value of every joint pure strategy (P1: card -> action; P2: (card, a1) -> action)."""
  p2_cells = list(itertools.product(range(2), range(3)))
  values = []
  for p1 in itertools.product(range(3), repeat=2):
    for p2 in itertools.product(range(3), repeat=len(p2_cells)):
      p2_map = dict(zip(p2_cells, p2, strict=True))
      v = 0.0
      for (c1, c2), p in deals.items():
        a1 = p1[c1]
        v += p * payoff_fn(c1, c2, a1, p2_map[(c2, a1)])
      values.append(v)
  return values




def compare() -> dict:
  """The comparison as one JSON-able dict (no provenance)."""
  ours = openspiel_game()
  cells = list(itertools.product(range(2), range(2), range(3), range(3)))
  payoff_equal = all(ours["payoff"][c] == authors_payoff(*c) for c in cells)
  a_deals = authors_deals()
  deals_equal = (set(a_deals) == set(ours["deals"]) and
                 all(abs(a_deals[k] - ours["deals"][k]) < 1e-15 for k in a_deals))
  # P1's infosets: one per card1; P2's: one per (card2, action1), as comm2.h's keys.
  p1_partition = sorted(sorted(v) for v in ours["p1_keys"].values())
  p2_partition = sorted(sorted(v) for v in ours["p2_keys"].values())
  partition_equal = (p1_partition == [[0], [1]] and
                     p2_partition == [[(c2, a1)] for c2 in range(2) for a1 in range(3)])
  v_ours = joint_values(lambda c1, c2, a1, a2: ours["payoff"][(c1, c2, a1, a2)], ours["deals"])
  v_authors = joint_values(authors_payoff, a_deals)
  a_states, a_infosets = authors_tree_counts()
  c = ours["counts"]
  return {
      "authors_source": {"repo": AUTHORS_REPO, "commit": AUTHORS_COMMIT, "path": AUTHORS_PATH},
      "openspiel_payoff_parameter": ours["params"],
      "terminal_payoffs_compared": len(cells),
      "payoffs_equal": payoff_equal,
      "deal_probabilities_equal": deals_equal,
      "information_partition_equal": partition_equal,
      "joint_pure_strategies": len(v_ours),
      "joint_values_equal": all(abs(x - y) < 1e-12 for x, y in zip(v_ours, v_authors, strict=True)),
      "optimum_ours": max(v_ours),
      "optimum_authors": max(v_authors),
      "authors_states": a_states,
      "authors_infosets": a_infosets,
      "ours_histories": sum(c.values()),
      "ours_chance_nodes": c["chance"],
      "ours_decision_nodes": c["decision"],
      "ours_terminals": c["terminal"],
      "ours_infosets": len(ours["p1_keys"]) + len(ours["p2_keys"]),
  }


def main(argv):
  del argv
  atomic_io.check_writable(FLAGS.out)
  load_before = [round(x, 2) for x in os.getloadavg()]
  start = time.perf_counter()
  record = compare()
  record.update(
      command=" ".join(["python"] + [os.path.relpath(sys.argv[0])] + sys.argv[1:]),
      commit=report.short_commit(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
      seconds=round(time.perf_counter() - start, 2), load_before=load_before,
      load_after=[round(x, 2) for x in os.getloadavg()])
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  print(json.dumps(record, indent=1))


if __name__ == "__main__":
  app.run(main)
