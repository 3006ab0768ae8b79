"""The runner's solver API (`runner.api`): checkpoint schedules, options, contexts."""

import numpy as np
import pyspiel
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.runner import api
from ospiel_team.tree.game_tree import GameTree


def test_log_checkpoints():
  assert api.log_checkpoints(1) == [1]
  assert api.log_checkpoints(1000, 4) == [1, 10, 100, 1000]
  with pytest.raises(ValueError, match="iterations must be >= 1, got 0"):
    api.log_checkpoints(0)
  with pytest.raises(ValueError, match="num_points must be >= 1, got 0"):
    api.log_checkpoints(10, 0)


def test_time_checkpoints():
  marks = api.time_checkpoints(3.0, 4)
  assert marks[-1] == pytest.approx(3.0) and marks[0] == pytest.approx(0.01)
  assert np.all(np.diff(marks) > 0)
  with pytest.raises(ValueError, match="seconds must be > 0, got -1"):
    api.time_checkpoints(-1.0)


def test_parse_options():
  assert api.parse_options("a.b=1, c.d = x") == {"a.b": "1", "c.d": "x"}
  assert api.parse_options("") == {}
  with pytest.raises(ValueError, match="'oops'"):
    api.parse_options("oops")


def test_context_budget_checkpoints_and_options():
  game = pyspiel.load_game("kuhn_poker")
  ctx = api.SolverContext(game=game, tree=GameTree(game), seed=0, iterations=10,
                          checkpoints=api.log_checkpoints(10, 3),
                          options={"x.n": "7", "x.flag": "false", "x.bad": "many"})
  assert list(ctx.iterate()) == list(range(1, 11))
  assert [i for i in range(1, 11) if ctx.is_checkpoint(i)] == [1, 3, 10]
  assert ctx.option("x.n", 1) == 7 and ctx.option("x.flag", True) is False
  assert ctx.option("x.missing", 2.5) == 2.5
  with pytest.raises(ValueError, match="x.bad='many' is not a valid int"):
    ctx.option("x.bad", 1)
  with pytest.raises(ValueError, match="iteration or a seconds budget"):
    api.SolverContext(game=game, tree=ctx.tree, seed=0, iterations=None, checkpoints=[])


def test_excluded_time_is_not_charged_to_the_solver():
  clock = api.SolverClock()
  clock.start()
  with clock.excluded("jit"):
    end = np.random.default_rng(0).random(2_000_000).sum()  # some CPU work
  clock.stop()
  assert end > 0
  assert clock.excluded_seconds["jit"] > clock.elapsed()


class _SteppingClock(api.SolverClock):
  """A solver clock that advances one second at every read: the budget is crossed between two
  reads of one iteration for some budget, whichever reads a context makes."""

  def __init__(self):
    super().__init__()
    self.reads = 0

  def elapsed(self) -> float:
    self.reads += 1
    return float(self.reads)


@pytest.mark.parametrize("budget", [b + 0.5 for b in range(1, 40)])
def test_last_checkpoint_is_taken_when_the_seconds_budget_ends(budget):
  """However the clock crosses the budget between the reads of one iteration (JAX threads run
  while the solver asks), the run's last iteration is a checkpoint, taken at or past the
  budget: the loop never ends on an iteration that `is_checkpoint` passed over."""
  game = pyspiel.load_game("kuhn_poker")
  clock = _SteppingClock()
  ctx = api.SolverContext(game=game, tree=GameTree(game), seed=0, iterations=None,
                          checkpoints=[], seconds=budget, num_points=4, clock=clock)
  done, snapped = [], []
  for it in ctx.iterate():  # the adapters' loop
    done.append(it)
    if ctx.is_checkpoint(it):
      snapped.append((it, clock.reads))
  assert done == list(range(1, len(done) + 1)) and len(done) > 1
  assert snapped[-1][0] == done[-1], f"budget {budget}: last iteration {done[-1]} not snapped"
  assert snapped[-1][1] >= budget  # the clock had reached the budget at that snapshot
