"""Both ED solvers take their learning rate as `learning_rate`; `init_lr` is a deprecated alias."""
import inspect

import numpy as np
import pyspiel
import pytest

from ospiel_team import errors
from ospiel_team.algorithms.nash import exploitability_descent as ed


def test_both_solvers_name_the_learning_rate_alike():
  for cls in (ed.TabularEDSolver, ed.NeuralEDSolver):
    assert "learning_rate" in inspect.signature(cls).parameters, cls.__name__


def test_init_lr_warns_and_gives_the_same_solver():
  game = pyspiel.load_game("kuhn_poker")
  new = ed.NeuralEDSolver(game, learning_rate=0.01, seed=3)
  with pytest.warns(DeprecationWarning, match="learning_rate"):
    old = ed.NeuralEDSolver(game, init_lr=0.01, seed=3)
  for solver in (new, old):
    for _ in range(3):
      solver.step()
  # Same seed, same learning rate: the same policy after the same steps.
  np.testing.assert_array_equal(new.current_policy().action_probability_array,
                                old.current_policy().action_probability_array)
  with pytest.warns(DeprecationWarning):
    other = ed.NeuralEDSolver(game, init_lr=0.5, seed=3)
  for _ in range(3):
    other.step()
  assert not np.array_equal(other.current_policy().action_probability_array,
                            new.current_policy().action_probability_array)


def test_both_names_at_once_is_an_error():
  game = pyspiel.load_game("kuhn_poker")
  with pytest.warns(DeprecationWarning), pytest.raises(errors.UserError, match="not both"):
    ed.NeuralEDSolver(game, learning_rate=0.01, init_lr=0.02)
