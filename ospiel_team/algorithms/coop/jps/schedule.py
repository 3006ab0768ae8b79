"""JPS-Main: the schedule of searches and its stopping rule.

JPS-Main (Algorithm 1 of Tian, Gong & Jiang, NeurIPS 2020, arXiv:2008.06495): which
searches run, in which order, and when JPS stops.

Two schedules (`JPSConfig.schedule`):

* "passes": passes over the starting depths in a seeded random order; exact JPS stops after a
  pass without an improvement (Theorem 2: no step lowers the value, so the last policy is the
  best); sampled JPS (Sec. 6) runs T iterations, evaluates every step exactly and returns the
  best policy seen.
* "reference": the authors' `Solver::runSearch` (facebookresearch/jps,
  `simple_game/search.h`), exact JPS only.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
from open_spiel.python import policy as policy_lib

from ospiel_team.algorithms.coop.jps.search import ChainSearch
from ospiel_team.algorithms.coop.jps.search import SearchResult
from ospiel_team.algorithms.coop.jps.search import Sweep
from ospiel_team.algorithms.coop.jps.search import apply_chain

# A step of the authors' schedule that gains more than this reshuffles the starting depths.
REFERENCE_RESHUFFLE_GAIN = 1e-4


@dataclasses.dataclass(frozen=True)
class JPSIteration:
  """One JPS iteration: one search from one starting depth, and the change it applied.

  Attributes:
    iteration: 1, 2, ...
    start_depth: the search's starting depth.
    value: the search objective after the step (the team's mean return).
    predicted_gain: Theorem 1 prediction of the applied change (0 if none).
    true_gain: value after minus value before, by full evaluation.
    changes: (infoset key, action) set one-hot by the step.
    num_candidates: chains of active infosets valued in the search.
    search_seconds: the search alone (Theorem 1 evaluation of all candidates).
    seconds: the whole iteration (sweep, sampling, search, update, evaluation).
  """
  iteration: int
  start_depth: int
  value: float
  predicted_gain: float
  true_gain: float
  changes: tuple[tuple[str, int], ...]
  num_candidates: int
  search_seconds: float
  seconds: float

  @classmethod
  def of_step(cls, it: int, depth: int, res: SearchResult,
              changes: tuple[tuple[str, int], ...], value: float, new_value: float,
              t0: float) -> JPSIteration:
    """One step of a schedule: a search result and the values around it.

    The record of one step: search result `res` applied (or not) from `value` to
    `new_value`; the iteration began at `t0` (`time.perf_counter`).

    Args:
      it: the iteration number.
      depth: the search's starting depth.
      res: the search's `SearchResult`.
      changes: the (infoset key, action) changes applied.
      value: the objective before the step.
      new_value: the objective after it.
      t0: `time.perf_counter()` when the iteration began.

    Returns:
      The `JPSIteration` record of the step.
    """
    return cls(iteration=it, start_depth=int(depth), value=new_value,
               predicted_gain=res.gain if res.chain else 0.0, true_gain=new_value - value,
               changes=changes, num_candidates=res.num_candidates, search_seconds=res.seconds,
               seconds=time.perf_counter() - t0)


@dataclasses.dataclass(frozen=True, eq=False)
class JPSResult:
  """Output of `JointPolicySearch.improve`.

  Attributes:
    policy: the returned policy as an OpenSpiel policy.
    policy_array: the same, [num_infosets, A].
    value: the package's value convention: the common payoff in a common-payoff game, else
      the team's summed return (e.g. team 1's return in a two-team zero-sum game).
    initial_value: the same quantity for the starting policy.
    history: one record per iteration.
    best_iteration: iteration whose policy is returned (0 = the initial policy).
    seconds: the whole run.
    stopped_by: why the run stopped: "quiet pass" (exact JPS: a pass without an improvement),
      "no gain" (reference schedule without a depth: a search without gain), "depths
      exhausted" (reference schedule with a depth), "iteration limit" (`iteration_limit`),
      "nothing to search" (no starting depth, or a limit of 0).
  """
  policy: policy_lib.TabularPolicy
  policy_array: np.ndarray
  value: float
  initial_value: float
  history: tuple[JPSIteration, ...]
  best_iteration: int
  seconds: float
  stopped_by: str = ""


@dataclasses.dataclass(frozen=True)
class Run:
  """The fixed inputs of a schedule run.

  What a schedule needs besides the policy: the searches, the starting depths, the
  factor from the search objective (team mean) to the reported value, the clock's start.
  """
  search: ChainSearch
  start_depths: tuple[int, ...]
  value_scale: int
  t_start: float

  def step(self, pi: np.ndarray, res: SearchResult, sweep_after: bool
           ) -> tuple[np.ndarray, tuple[tuple[str, int], ...], Sweep | None]:
    """Applies the search's chain to `pi` (Eq. 6).

    Returns the new policy, its changes by infoset key, and its sweep (only with `sweep_after` and a
    change; None otherwise).
    """
    if not res.chain:
      return pi, (), None
    pi = apply_chain(pi, res.chain)
    keys = self.search.tree.infoset_keys
    changes = tuple((keys[i], a) for i, a in res.chain)
    return pi, changes, (self.search.sweep(pi) if sweep_after else None)

  def result(self, pi: np.ndarray, value: float, initial_value: float,
             history: Sequence[JPSIteration], best_iteration: int,
             stopped_by: str) -> JPSResult:
    """The `JPSResult` of a finished run: the final policy, its value and the history."""
    return JPSResult(policy=self.search.tree.tabular_policy(pi), policy_array=pi,
                     value=value * self.value_scale,
                     initial_value=initial_value * self.value_scale, history=tuple(history),
                     best_iteration=best_iteration,
                     seconds=time.perf_counter() - self.t_start, stopped_by=stopped_by)


def run_passes(run: Run, pi: np.ndarray, rng: np.random.Generator) -> JPSResult:
  """The "passes" schedule from policy `pi` (JPS-Main of Algorithm 1; Sec. 6 when sampled).

  Args:
    run: the searches and starting depths.
    pi: the starting policy array.
    rng: orders the starting depths of every pass and draws sampled JPS's histories.

  Returns:
    Exact JPS: the last policy (never worse than the first, Theorem 2). Sampled JPS: the
    best policy seen by exact evaluation.
  """
  config = run.search.config
  sampled = config.samples is not None
  limit = config.iteration_limit
  value = initial_value = run.search.value(pi)
  best_value, best_pi, best_it = value, pi.copy(), 0
  history: list[JPSIteration] = []
  pbar = _progress_bar(run)
  done = limit == 0 or not run.start_depths
  stopped_by = "nothing to search" if done else "quiet pass"
  sweep = None
  while not done:
    improved = False
    for d in rng.permutation(run.start_depths):
      if len(history) >= limit:
        done, stopped_by = True, "iteration limit"
        break
      pi, sweep, value, record = _passes_iteration(run, pi, value, sweep, int(d), rng,
                                                   len(history) + 1)
      history.append(record)
      improved = improved or bool(record.changes)
      if value > best_value + (1e-12 if sampled else 0.0):
        best_value, best_pi, best_it = value, pi.copy(), len(history)
      if pbar is not None:
        pbar.update(1)
        pbar.set_postfix(value=f"{value:.6f}")
    done = done or (not improved and config.stops_on_quiet_pass)
    if not done and len(history) >= limit:  # a full pass ended exactly at the limit
      done, stopped_by = True, "iteration limit"
  if pbar is not None:
    pbar.close()
  if not sampled:  # exact JPS never lowers the value: the last policy is the best
    best_pi, best_value, best_it = pi, value, len(history)
  return run.result(best_pi, best_value, initial_value, history, best_it, stopped_by)


def _progress_bar(run: Run):
  """A tqdm progress bar of the run's iterations when `JPSConfig.progress` asks for one."""
  if not run.search.config.progress:
    return None
  import tqdm
  return tqdm.tqdm(desc=f"JPS {run.search.tree.game}", unit=" it")


def _passes_iteration(run: Run, pi: np.ndarray, value: float, sweep: Sweep | None, d: int,
                      rng: np.random.Generator, iteration: int
                      ) -> tuple[np.ndarray, Sweep | None, float, JPSIteration]:
  """One iteration of the passes schedule: a search from start depth `d`, its chain applied.

  pi^sigma and v^sigma are computed once per policy (Algorithm 1, line 3): exact JPS reuses
  `sweep` while no change is applied; sampled JPS redraws it every iteration.

  Returns:
    (the new policy, the sweep to reuse, the new value, the iteration's record).
  """
  config = run.search.config
  sampled = config.samples is not None
  t0 = time.perf_counter()
  if sweep is None or sampled:
    sweep = run.search.sweep(pi, rng)
  res = run.search.search(sweep, d)
  if config.verify:
    run.search.verify(pi, res)
  pi, changes, new_sweep = run.step(pi, res, sweep_after=not sampled)
  new_value = value
  if changes:
    if new_sweep is not None:
      sweep = new_sweep
    new_value = run.search.value(pi) if sampled else sweep.value
  return pi, sweep, new_value, JPSIteration.of_step(iteration, d, res, changes, value,
                                                    new_value, t0)


def run_reference(run: Run, pi: np.ndarray, rng: np.random.Generator) -> JPSResult:
  """The authors' `Solver::runSearch` schedule (`JPSConfig.schedule`) from policy `pi`.

  With a depth D, the starting depths are popped from a shuffled list that is reshuffled in
  full after the first step and every step gaining more than 1e-4; JPS stops when the list
  runs out. Without a depth, every iteration searches from the first starting depth and JPS
  stops at the first search without gain. Both stop after `iteration_limit` iterations.

  Args:
    run: the searches and starting depths.
    pi: the starting policy array.
    rng: shuffles the starting depths and breaks ties (tie_break="random").

  Returns:
    The last policy.
  """
  config = run.search.config
  tie_rng = rng if config.tie_break == "random" else None
  value = initial_value = run.search.value(pi)
  history: list[JPSIteration] = []
  depths = run.start_depths
  order: list[int] = []
  if config.depth is not None:
    order = [int(d) for d in rng.permutation(depths)]
  sweep = None
  limit = config.iteration_limit
  stopped_by = "iteration limit" if depths else "nothing to search"
  while len(history) < limit and depths:
    if config.depth is not None and not order:
      stopped_by = "depths exhausted"
      break
    d = order.pop() if config.depth is not None else depths[0]
    t0 = time.perf_counter()
    if sweep is None:
      sweep = run.search.sweep(pi)
    res = run.search.search(sweep, int(d), rng=tie_rng)
    if config.verify:
      run.search.verify(pi, res)
    if config.depth is None and not res.gain > config.improvement_tol:
      history.append(JPSIteration(iteration=len(history) + 1, start_depth=int(d), value=value,
                                  predicted_gain=0.0, true_gain=0.0, changes=(),
                                  num_candidates=res.num_candidates,
                                  search_seconds=res.seconds,
                                  seconds=time.perf_counter() - t0))
      stopped_by = "no gain"
      break
    pi, changes, new_sweep = run.step(pi, res, sweep_after=True)
    new_value = value
    if changes:
      sweep = new_sweep
      new_value = sweep.value
    history.append(JPSIteration.of_step(len(history) + 1, d, res, changes, value, new_value,
                                        t0))
    value = new_value
    if config.depth is not None and (res.gain > REFERENCE_RESHUFFLE_GAIN or len(history) == 1):
      order = [int(x) for x in rng.permutation(depths)]
  if limit == 0:
    stopped_by = "nothing to search"
  return run.result(pi, value, initial_value, history, len(history), stopped_by)
