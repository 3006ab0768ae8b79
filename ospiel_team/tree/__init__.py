"""The array game tree: a pyspiel game walked once into flat arrays, and what works on them.

Public modules: `game_tree` (`GameTree`: built with `GameTree(game)`, or from arrays with
`GameTree.from_arrays`), `arrays` (`TreeArrays`, the frozen schema every builder returns),
`builders` (the pyspiel walk, the shadow walk, the games' vector builders), `memory` (the
walk's memory budget, `TreeTooLargeError`), `cache` (trees stored on disk), `traversal`
(preorder), `evaluation` (reach, values, best responses, NashConv), `game_support` (what a
game provides to the tree), `fast_tree` (the shadow walk) and `teams` (who plays with whom).
"""

__all__ = ["arrays", "builders", "cache", "evaluation", "fast_tree", "game_support",
           "game_tree", "memory", "teams", "traversal"]
