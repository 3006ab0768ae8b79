"""The tree core is one frozen schema and one constructor path: `TreeArrays` checks its
invariants, `GameTree.from_arrays` makes the tree from them, and nothing is set on a tree
afterwards (algorithms keep their caches themselves)."""

import dataclasses

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team import errors
from ospiel_team.tree import cache as tree_cache
from ospiel_team.tree import evaluation
from ospiel_team.tree.arrays import ARRAY_NAMES
from ospiel_team.tree.arrays import InfosetKeys
from ospiel_team.tree.arrays import TreeArrays
from ospiel_team.tree.game_tree import GameTree


@pytest.fixture(scope="module")
def kuhn():
  return GameTree(pyspiel.load_game("kuhn_poker"))


def _with(tree: GameTree, **changes) -> dict:
  """The fields of the tree's arrays as writable copies, with `changes` applied to copies."""
  fields = {name: getattr(tree.arrays, name).copy() for name in ARRAY_NAMES}
  fields["infoset_keys"] = tuple(tree.infoset_keys)
  for name, change in changes.items():
    change(fields[name])
  return fields


def test_from_arrays_gives_the_walked_tree(kuhn):
  again = GameTree.from_arrays(kuhn.game, kuhn.arrays)
  assert again.builder == "arrays" and kuhn.builder == "walk"
  for name in ARRAY_NAMES + ("terminals", "decisions", "node_owner", "decision_children_flat",
                             "node_last_seq", "preorder"):
    np.testing.assert_array_equal(getattr(again, name), getattr(kuhn, name), err_msg=name)
  assert again.level_slices == kuhn.level_slices
  pi = kuhn.uniform_policy_array()
  assert evaluation.nash_conv(again, pi) == evaluation.nash_conv(kuhn, pi) == 11 / 12
  # Its representative states are replayed (the arrays carry none).
  assert ([s.history() for s in again.infoset_states] ==
          [s.history() for s in kuhn.infoset_states])


def test_a_tree_rejects_setting_and_deleting_attributes(kuhn):
  for name in ("foo", "node_depth", "num_nodes", "terminals", "game"):
    with pytest.raises(AttributeError, match="immutable"):
      setattr(kuhn, name, 1)
  with pytest.raises(AttributeError, match="immutable"):
    del kuhn.game
  assert not hasattr(kuhn, "foo")


def test_the_arrays_are_read_only(kuhn):
  with pytest.raises(dataclasses.FrozenInstanceError):
    kuhn.arrays.node_depth = kuhn.node_depth
  for name in ARRAY_NAMES + ("terminals", "node_last_seq"):
    with pytest.raises(ValueError, match="read-only"):
      getattr(kuhn, name)[0] = 0
  with pytest.raises(ValueError, match="read-only"):
    kuhn.chance_reach()[0] = 0.0


@pytest.mark.parametrize("name,change,needle", [
    ("node_depth", lambda a: a.__setitem__(-1, a[-1] + 1), "one deeper than its parent"),
    ("node_parent", lambda a: a.__setitem__(5, 7), "does not precede its child"),
    ("node_chance_prob", lambda a: a.__setitem__(1, 0.5), "do not sum to 1"),
    ("node_returns", lambda a: a.__setitem__((0, 0), 1.0), "nonzero returns at a non-terminal"),
    ("node_infoset", lambda a: a.__setitem__(4, 99), "not below 12"),
    ("infoset_player", lambda a: a.__setitem__(0, 1), "in an infoset of player 1"),
    ("infoset_legal", lambda a: a.__setitem__((0, 1), False), "illegal action"),
])
def test_a_broken_invariant_is_named(kuhn, name, change, needle):
  fields = _with(kuhn, **{name: change})
  with pytest.raises(errors.UserError, match=needle):
    TreeArrays(**fields)


def test_dtypes_shapes_and_keys_are_checked(kuhn):
  fields = _with(kuhn)
  with pytest.raises(errors.UserError, match="node_depth must be a 1-d int32 array, got int64"):
    TreeArrays(**{**fields, "node_depth": fields["node_depth"].astype(np.int64)})
  with pytest.raises(errors.UserError, match="infoset_legal has 11 rows, expected 12"):
    TreeArrays(**{**fields, "infoset_legal": fields["infoset_legal"][:-1]})
  with pytest.raises(errors.UserError, match="11 keys for 12 infosets"):
    TreeArrays(**{**fields, "infoset_keys": fields["infoset_keys"][:-1]})
  with pytest.raises(errors.UserError,
                     match=r"2 players and 2 actions; kuhn_poker\(players=3\) has 3"):
    GameTree.from_arrays(pyspiel.load_game("kuhn_poker(players=3)"), kuhn.arrays)


def test_lazy_keys_are_made_once_and_checked():
  calls = []
  keys = InfosetKeys(2, lambda: calls.append(1) or ["a", "b"])
  assert len(keys) == 2 and not keys.made
  assert list(keys) == ["a", "b"] and keys[1] == "b" and keys == ("a", "b") and keys.made
  assert calls == [1]
  with pytest.raises(errors.UserError, match="made 1 infoset keys, expected 2"):
    list(InfosetKeys(2, lambda: ["a"]))


def test_a_cache_file_with_invalid_arrays_is_damaged(tmp_path, kuhn):
  """A file whose digest matches but whose arrays break an invariant (e.g. written by a
  broken builder) is refused as damaged, not loaded."""
  path = str(tmp_path / "kuhn.npz")
  tree_cache.save_tree(kuhn, path)
  with np.load(path) as f:
    data = {k: f[k] for k in f.files}
  data["node_chance_prob"] = data["node_chance_prob"].copy()
  data["node_chance_prob"][1] = 0.5
  data["content_digest"] = np.asarray(tree_cache.content_digest(data))
  np.savez(path, **data)
  with pytest.raises(errors.DamagedFileError, match="holds invalid arrays.*sum to 1"):
    tree_cache.load_tree(kuhn.game, path)
