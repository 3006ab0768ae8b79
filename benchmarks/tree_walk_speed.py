r"""Speed of the GameTree walk of our Python team games: cheap clones vs generic deep copies.

pyspiel clones a Python game's state by deep-copying every attribute (`PyState::Clone`); our
team games keep their lists in `cheap_clone.FlatList` / `NestedList`, whose deepcopy is a
shallow copy. This script walks each Table-1 instance's game (`GameTree(game)`) with the cheap
clones and with the generic element-by-element deepcopy the plain lists had before (patched in
for the baseline), alternating the two `--repeats` times in one run, and prints the best times
and their ratio.

Usage:
  python benchmarks/tree_walk_speed.py --instances 21K6,21L133,21D3,31G --repeats 3
"""

import contextlib
import copy
import time

from absl import app
from absl import flags

import ospiel_team  # noqa: F401
from ospiel_team.tree.game_tree import GameTree
from ospiel_team.games import cheap_clone
from ospiel_team.games import team_instances

flags.DEFINE_string("instances", "21K6,21L133,21D3,31G", "Table-1 instance names")
flags.DEFINE_integer("repeats", 3, "alternating timed walks of each variant")
FLAGS = flags.FLAGS


@contextlib.contextmanager
def generic_deepcopy():
  """Makes FlatList / NestedList deep-copy element by element, like a plain list."""
  saved = cheap_clone.FlatList.__deepcopy__, cheap_clone.NestedList.__deepcopy__
  def deep(self, memo):
    return type(self)(copy.deepcopy(list(self), memo))
  cheap_clone.FlatList.__deepcopy__ = deep
  cheap_clone.NestedList.__deepcopy__ = deep
  try:
    yield
  finally:
    cheap_clone.FlatList.__deepcopy__, cheap_clone.NestedList.__deepcopy__ = saved


def walk_seconds(game) -> tuple:
  start = time.perf_counter()
  tree = GameTree(game)
  return time.perf_counter() - start, tree.num_nodes


def main(argv):
  del argv
  print("| instance | game | histories | cheap clones (s) | generic deepcopy (s) | speed-up |")
  print("|---|---|---:|---:|---:|---:|")
  for name in FLAGS.instances.split(","):
    game, _ = team_instances.load_instance(name)
    cheap, generic = [], []
    for _ in range(FLAGS.repeats):
      t, nodes = walk_seconds(game)
      cheap.append(t)
      with generic_deepcopy():
        t2, nodes2 = walk_seconds(game)
      generic.append(t2)
      assert nodes == nodes2
    print(f"| {name} | {game} | {nodes} | {min(cheap):.2f} | {min(generic):.2f} | "
          f"{min(generic) / min(cheap):.2f}x |", flush=True)


if __name__ == "__main__":
  app.run(main)
