"""A thin, checked wrapper around HiGHS (`highspy`) for the team LPs and MIPs.

One function, `solve`, builds a `highspy.Highs` model from scipy sparse data and runs it; every
option is checked: an option HiGHS does not know, or a value it refuses (e.g. `solver="bogus"`,
a negative `time_limit`), raises `ValueError` naming it instead of being silently ignored (HiGHS
itself only returns an error status from `setOptionValue`).

Every caller reads HiGHS's outcome through one status check, `check_status`: it returns the
model status when the caller can use the solution and raises otherwise (`TimeLimitError` when
the time limit stopped HiGHS first, `RuntimeError` for any other failure).

Used by the team LP (`algorithms.team.team_lp`), the restricted LP and column generation's master
LPs, the best-response LPs and MIPs of `best_response` and `plan_mip`, and the cooperative
optimum.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

import highspy
import numpy as np
from scipy import sparse

from ospiel_team import checks
from ospiel_team import errors


def new_highs():
  """A silent `highspy.Highs()`.

  highspy >= 1.16 prints a banner to the process's C-level stdout when the first model of a
  process is constructed, before any option can be set; that would corrupt the JSON a CLI prints
  on stdout. The constructor therefore runs with file descriptor 1 pointed at /dev/null.
  (highspy is imported with this module, not here: its import, ~0.03-0.4 s, is start-up, not
  part of a timed solve.)

  Returns:
    A `highspy.Highs` with output turned off.
  """
  sys.stdout.flush()
  saved = os.dup(1)
  try:
    with open(os.devnull, "w") as null:
      os.dup2(null.fileno(), 1)
      h = highspy.Highs()
  finally:
    os.dup2(saved, 1)
    os.close(saved)
  set_option(h, "output_flag", False)
  return h


# Values of HiGHS's `solver` option (HiGHS 1.x documentation, option `solver`).
SOLVERS = ("choose", "simplex", "ipm", "pdlp", "ipx", "hipo", "qpasm", "")


def set_option(h, key: str, value: Any) -> None:
  """Sets one HiGHS option; raises ValueError naming the option if HiGHS refuses it.

  Args:
    h: a `highspy.Highs`.
    key: the option's name.
    value: its value.
  """
  status = h.setOptionValue(key, value)
  if status == highspy.HighsStatus.kError:
    raise ValueError(f"HiGHS refused option {key}={value!r} (unknown option or bad value)")


def set_options(h, options: dict[str, Any] | None) -> None:
  """Sets each HiGHS option of `options` (None: none) with `set_option`'s check.

  Args:
    h: a `highspy.Highs`.
    options: option name -> value.
  """
  for key, value in (options or {}).items():
    set_option(h, key, value)


def check_lp_options(solver: str, highs_options: dict | None, *,
                     names: tuple[str, str] = ("solver", "highs_options")) -> None:
  """Raises `errors.UserError` for an LP `solver` or HiGHS option HiGHS would refuse.

  Checked before the walk and the solve (on a throwaway HiGHS instance), so a bad value is
  refused at once rather than when the LP is built.

  Args:
    solver: "auto" (the team solvers' choice) or a value of HiGHS's `solver` option
      (`SOLVERS`).
    highs_options: extra HiGHS options (None: none).
    names: how the message names the two (the command line: its flags).

  Raises:
    errors.UserError: naming the argument and the value.
  """
  checks.check_choice(names[0], solver, ("auto",) + tuple(s for s in SOLVERS if s))
  if highs_options is None:
    return
  checks.check_type(names[1], highs_options, dict, "a dict of HiGHS options")
  try:
    set_options(new_highs(), highs_options)
  except ValueError as e:
    raise errors.UserError(f"{names[1]}: {e}") from None


def check_time_limit(time_limit: float | None) -> float | None:
  """Returns the time limit (seconds) as a float, or None (no limit).

  Args:
    time_limit: seconds, or None.

  Returns:
    The limit as a float, or None.

  Raises:
    errors.UserError: `time_limit` is not a finite number >= 0 or None (`checks.check_real`).
  """
  return checks.check_real("time_limit", time_limit, minimum=0, allow_none=True)


def solve(c: np.ndarray, a_mat, row_lo, row_hi, col_lo, col_hi, maximize: bool, *,
          time_limit: float | None = None, threads: int | None = None,
          solver: str = "", integrality: np.ndarray | None = None,
          mip_gap: float | None = None, options: dict[str, Any] | None = None,
          initial_solution: np.ndarray | None = None):
  """Solves max/min c.x s.t. row_lo <= A x <= row_hi, col_lo <= x <= col_hi with HiGHS.

  Args:
    c: the objective coefficients, one per column.
    a_mat: the constraint matrix A (any scipy sparse matrix).
    row_lo: the rows' lower bounds (-inf: none).
    row_hi: the rows' upper bounds (inf: none).
    col_lo: the columns' lower bounds.
    col_hi: the columns' upper bounds.
    maximize: the objective sense.
    time_limit: seconds (None: no limit); negative is an error.
    threads: HiGHS threads (None: HiGHS's default).
    solver: HiGHS's `solver` option ("" keeps HiGHS's default, "choose").
    integrality: optional boolean mask of integer columns (a MIP).
    mip_gap: HiGHS's `mip_rel_gap`.
    options: further HiGHS options, each checked.
    initial_solution: a feasible point handed to the MIP solver as its first incumbent.

  Returns:
    The `highspy.Highs` object after `run()` (status, solution, info).
  """
  h = new_highs()
  time_limit = check_time_limit(time_limit)
  if time_limit is not None:
    set_option(h, "time_limit", time_limit)
  if threads is not None:
    set_option(h, "threads", int(threads))
  if solver:
    set_option(h, "solver", solver)
  if mip_gap is not None:
    set_option(h, "mip_rel_gap", float(mip_gap))
  set_options(h, options)
  h.passModel(model(c, a_mat, row_lo, row_hi, col_lo, col_hi, maximize, integrality=integrality))
  if initial_solution is not None:
    set_start(h, initial_solution)
  run(h)
  return h


# HiGHS runs every model of a process on one global task scheduler, started by the first run
# with that run's `threads` option (0: HiGHS's default count). A later run asking for another
# count is refused by HiGHS ("Option 'threads' is set to 1 but the scheduler has already been
# initialized to use 2 threads") and ends with model status "Not Set". `run` therefore shuts the
# scheduler down (`Highs.resetGlobalScheduler`, well under a millisecond) before a run whose
# count differs from the one the scheduler was started with; the next run starts it afresh.
_scheduler_lock = threading.Lock()
_scheduler_threads: int | None = None  # the `threads` option that started the scheduler


def run(h) -> None:
  """Runs `h` (`h.run()`) on a HiGHS scheduler started with `h`'s `threads` option.

  Every HiGHS run of the package goes through here, so that solves with different `threads`
  follow one another in one process. Runs are serialized by a lock: the scheduler is shared by
  every model of the process and must not be shut down under a running solve.

  Args:
    h: a `highspy.Highs` holding its model and options.
  """
  global _scheduler_threads
  threads = int(h.getOptionValue("threads")[1])
  with _scheduler_lock:
    # threads=0 (HiGHS's default) runs on whatever scheduler is started.
    if _scheduler_threads is not None and threads not in (0, _scheduler_threads):
      highspy.Highs.resetGlobalScheduler(True)
      _scheduler_threads = None
    if _scheduler_threads is None:
      _scheduler_threads = threads
    h.run()


def set_start(h, x: np.ndarray) -> None:
  """Hands the feasible point `x` to HiGHS as the MIP's first incumbent.

  Args:
    h: a `highspy.Highs` holding the MIP.
    x: [num_cols] a feasible point.
  """
  start = highspy.HighsSolution()
  start.col_value = list(np.asarray(x, dtype=np.float64))
  h.setSolution(start)


def model(c, a_mat, row_lo, row_hi, col_lo, col_hi, maximize: bool,
          *, integrality: np.ndarray | None = None):
  """A `highspy.HighsLp` from scipy sparse data (column-wise).

  Args:
    c: [num_cols] objective coefficients.
    a_mat: [num_rows, num_cols] constraint matrix (any scipy sparse format).
    row_lo: [num_rows] row lower bounds.
    row_hi: [num_rows] row upper bounds.
    col_lo: [num_cols] column lower bounds.
    col_hi: [num_cols] column upper bounds.
    maximize: maximize (else minimize) the objective.
    integrality: [num_cols] HiGHS integrality per column (None: an LP).

  Returns:
    The `highspy.HighsLp`.
  """
  a_csc = sparse.csc_matrix(a_mat)
  a_csc.sort_indices()
  lp = highspy.HighsLp()
  lp.num_col_ = a_csc.shape[1]
  lp.num_row_ = a_csc.shape[0]
  lp.col_cost_ = np.asarray(c, dtype=np.float64)
  lp.col_lower_ = np.asarray(col_lo, dtype=np.float64)
  lp.col_upper_ = np.asarray(col_hi, dtype=np.float64)
  lp.row_lower_ = np.asarray(row_lo, dtype=np.float64)
  lp.row_upper_ = np.asarray(row_hi, dtype=np.float64)
  lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
  lp.a_matrix_.start_ = a_csc.indptr.astype(np.int32)
  lp.a_matrix_.index_ = a_csc.indices.astype(np.int32)
  lp.a_matrix_.value_ = a_csc.data.astype(np.float64)
  lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
  if integrality is not None:
    lp.integrality_ = [highspy.HighsVarType.kInteger if b else highspy.HighsVarType.kContinuous
                       for b in integrality]
  return lp


def status(h) -> str:
  """HiGHS's model status as text ("Optimal", "Time limit reached", "Infeasible", ...).

  Args:
    h: a `highspy.Highs` after `run`.

  Returns:
    The status text.
  """
  return h.modelStatusToString(h.getModelStatus())


OPTIMAL = "Optimal"
TIME_LIMIT = "Time limit reached"


class TimeLimitError(TimeoutError, RuntimeError):
  """HiGHS stopped at its time limit without a solution the caller can use.

  A `TimeoutError` (what the command lines report as a time-out) and a `RuntimeError` (what a
  failed solve raised before). `bound` is HiGHS's proven bound on the objective at that moment
  (a MIP's dual bound; `inf` or `-inf` when it had none).
  """

  def __init__(self, message: str, bound: float):
    super().__init__(message)
    self.bound = float(bound)


def check_status(h, what: str, time_limit: float | None, *,
                 incumbent_ok: bool = False) -> str:
  """The one check of a HiGHS run: returns its model status when the solution is usable.

  Args:
    h: the `highspy.Highs` object after `run()`.
    what: what was solved, for the messages (e.g. "the team LP of kuhn_poker()").
    time_limit: the time limit the run had (for the messages).
    incumbent_ok: accept a run that stopped early (time limit or any other status) when it has
      a feasible primal solution (a MIP's incumbent); otherwise only "Optimal" is accepted.

  Returns:
    The model status text: "Optimal", or with `incumbent_ok` the status of a run that stopped
    with a feasible solution.

  Raises:
    TimeLimitError: the time limit came before a usable solution (its `bound`: HiGHS's dual
      bound).
    RuntimeError: any other run without a usable solution.
  """
  st = status(h)
  if st == OPTIMAL:
    return st
  info = h.getInfo()
  if incumbent_ok and info.primal_solution_status >= 2:  # 2: a feasible primal solution
    return st
  if st == TIME_LIMIT:
    if incumbent_ok:
      bound = float(info.mip_dual_bound)
      raise TimeLimitError(f"{what} found no feasible solution within time_limit={time_limit} "
                           f"s (HiGHS: {st})", bound if np.isfinite(bound) else np.inf)
    raise TimeLimitError(f"{what} was not solved within time_limit={time_limit} s (HiGHS: "
                         f"{st})", np.inf)
  if incumbent_ok:
    raise RuntimeError(f"HiGHS found no feasible solution of {what}: {st}")
  raise RuntimeError(f"HiGHS did not solve {what}: {st}")
