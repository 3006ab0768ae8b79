r"""Where NFSP's JAX compilation goes in a runner run: into its budget, or excluded as "jit".

Runs the runner's `nfsp` task (`execute.run_task`, the code path of `ospiel-team-compare`) on
Kuhn poker under a CPU-second budget and listens to JAX's compile events
(`jax.monitoring`): each event is counted as happening while the solver's clock is stopped
(setup, the throwaway warm-up, snapshots: excluded), inside one of the agents' jitted calls that
the runner moves to "jit" when it compiles (`adapters.openspiel._exclude_compiling_calls`), or
anywhere else while the solver's clock runs: charged to the budget. Writes a JSON record.

Usage:
  python benchmarks/runner_nfsp_jit.py [--seconds 3] [--seed 0] \
      [--out results/runner/nfsp_jit.json]
"""

from __future__ import annotations

import json
import os
import sys

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.runner import api
from ospiel_team.runner import execute
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_float("seconds", 3.0, "NFSP's CPU-second budget.")
flags.DEFINE_integer("seed", 0, "The run's seed.")
flags.DEFINE_string("out", "results/runner/nfsp_jit.json", "The JSON record.")


def _inside_wrapped_call(frame) -> bool:
  """Whether `frame` runs inside the runner's wrapper of a jitted agent function."""
  while frame is not None:
    code = frame.f_code
    if code.co_name == "wrapped" and code.co_filename.endswith(
        os.path.join("adapters", "openspiel.py")):
      return True
    frame = frame.f_back
  return False


def measure(seconds: float, seed: int) -> dict:
  """One `nfsp` run on kuhn_poker with its compile events classified.

  Args:
    seconds: the run's CPU-second budget.
    seed: the run's seed.

  Returns:
    The run's info (budget, solver and excluded CPU seconds), the CPU seconds the runner moved
    from the solver to "jit", and [count, wall seconds] of the compile events per place.
  """
  execute.configure_worker()
  running = [False]
  moved = [0.0]
  start, stop, reclassify = (api.SolverClock.start, api.SolverClock.stop,
                             api.SolverClock.reclassify)

  def start_(self):
    running[0] = True
    start(self)

  def stop_(self):
    running[0] = False
    stop(self)

  def reclassify_(self, sec, kind):
    moved[0] += sec
    reclassify(self, sec, kind)
  api.SolverClock.start, api.SolverClock.stop, api.SolverClock.reclassify = (
      start_, stop_, reclassify_)
  events = {"excluded": [0, 0.0], "moved_to_jit": [0, 0.0], "charged_to_budget": [0, 0.0]}

  def listener(event, duration, **kwargs):
    del kwargs
    if not event.startswith("/jax/core/compile/"):
      return
    if not running[0]:
      where = "excluded"
    elif _inside_wrapped_call(sys._getframe()):  # noqa: SLF001
      where = "moved_to_jit"
    else:
      where = "charged_to_budget"
    events[where][0] += 1
    events[where][1] += duration
  from jax import monitoring
  monitoring.register_event_duration_secs_listener(listener)
  try:
    task = dict(game="kuhn_poker()", solver="nfsp", seed=seed, iterations=None,
                seconds=seconds, num_points=8, metric="nash_conv", teams=None, options={})
    info = execute.run_task(task)["info"]
  finally:
    api.SolverClock.start, api.SolverClock.stop, api.SolverClock.reclassify = (
        start, stop, reclassify)
  return dict(budget_seconds=seconds, solver_cpu_seconds=info["solver_cpu_seconds"],
              excluded_cpu_seconds=info["excluded_cpu_seconds"],
              cpu_seconds_moved_to_jit=moved[0], compile_events=events,
              iterations=info["iterations"], iterations_run=info["iterations_run"])


def main(argv):
  del argv
  load_before = os.getloadavg()[0]
  record = measure(FLAGS.seconds, FLAGS.seed)
  prov = report.provenance(["python", "benchmarks/runner_nfsp_jit.py",
                            f"--seconds={FLAGS.seconds:g}", f"--seed={FLAGS.seed}"])
  prov["machine"]["load_average_before"] = round(load_before, 2)
  prov["machine"]["load_average_after"] = round(os.getloadavg()[0], 2)
  record = {"provenance": prov, **record}
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  print(json.dumps(record["compile_events"]), f"-> {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
