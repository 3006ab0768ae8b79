"""Algorithms on the array game tree (see ospiel_team/algorithms/game_tree.py)."""
