"""The suite's robustness probes, in one list: what a careless user, a damaged or hostile file,
or a fault does to the package, and the answer it must give.

Each `Probe` has a class (`CLASSES`), a short description, and `run(folder)`, which does the
thing in a fresh temporary folder. It returns normally when the package answered as it must: a
clear error (its own exception naming the bad value or file, or a command's one line and exit
status), or for a fault (`FAULTS`) the fault survived (finished work kept, the rerun completes
with the answer of an uninterrupted run). Otherwise it raises `Silent` (an answer where a refusal
was due, or a wrong answer) or `Unclear` (an error, but not the one due), or lets the package's
unexpected exception through (a traceback).

`run_all` runs the probes in a child process (``python -m tests.integration.probes``), so that a
probe that kills the process is recorded as a crash and the next probe runs in a fresh child.
`tests/integration/test_reliability_probes.py` runs the list in the default suite;
`benchmarks/reliability_probes.py` records it in `results/reliability.json` for the results page.
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from collections.abc import Sequence

from tests import repo as tests_repo

CLASSES = ("bad argument", "bad flag", "damaged file", "special output file", "full disk",
           "cost refused", "killed run", "diverged run")
# Classes whose probes are faults the package must survive.
FAULTS = ("full disk", "killed run", "diverged run")
OUTCOMES = ("clear", "unclear", "traceback", "crash", "silent")


class Silent(AssertionError):
  """The package answered where it had to refuse, or answered wrongly."""


class Unclear(AssertionError):
  """The package refused, but not with the error due (type, status, message or line count)."""


@dataclasses.dataclass(frozen=True)
class Probe:
  """One probe: its class (`CLASSES`), what it does, and how it is run."""
  klass: str
  description: str
  run: Callable[[str], None]


# ---------------------------------------------------------------------------------------------
# What the package must answer.

def _package_error_types() -> tuple[type, ...]:
  from ospiel_team import errors
  return (errors.OspielTeamError, ValueError, TimeoutError)


def refuses(call: Callable[[], object], types: type | tuple[type, ...], *needles: str) -> None:
  """`call()` must raise `types` with every needle in its message.

  Raises:
    Silent: it returned.
    Unclear: it raised one of the package's error types, but another one or without a needle.
    Any other exception of `call` passes through (a traceback).
  """
  try:
    result = call()
  except types as e:
    missing = [n for n in needles if n not in str(e)]
    if missing:
      raise Unclear(f"{type(e).__name__} without {missing}: {e}") from None
    return
  except _package_error_types() as e:
    raise Unclear(f"{type(e).__name__} instead of {types}: {e}") from None
  raise Silent(f"returned {result!r:.100}")


def command(main: Callable[[list[str]], int], argv: Sequence[str]) -> tuple[int, str, str]:
  """Runs a command's `main(argv)` in this process: (status, stdout, stderr)."""
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
      status = main(list(argv))
    except SystemExit as e:
      status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
      if isinstance(e.code, str):
        print(e.code, file=sys.stderr)
  return int(status or 0), out.getvalue(), err.getvalue()


def one_line_error(main: Callable[[list[str]], int], argv: Sequence[str], status: int,
                   *needles: str) -> str:
  """The command must exit with `status` after one line on stderr holding every needle.

  Returns:
    That line.

  Raises:
    Silent: it exited 0.
    Unclear: another status, more than one line, or a needle missing.
    AssertionError: it printed a traceback (recorded as one).
  """
  rc, _, err = command(main, argv)
  if "Traceback" in err:
    raise _Traceback(err[-300:])
  lines = [ln for ln in err.splitlines() if ln.strip() and "%|" not in ln]
  if rc == 0:
    raise Silent(f"exit 0; stderr {err[-200:]!r}")
  if rc != status or len(lines) != 1 or any(n not in lines[0] for n in needles):
    raise Unclear(f"exit {rc} (wanted {status}), stderr {err[-300:]!r}")
  return lines[0]


class _Traceback(Exception):
  """A command printed a traceback (it caught and printed an exception it did not mean)."""


def _clean_answer(check: bool, message: str) -> None:
  if not check:
    raise Silent(message)


# ---------------------------------------------------------------------------------------------
# Helpers of the probes.

def _game(text: str):
  import pyspiel

  import ospiel_team  # noqa: F401  (registers the package's games)
  return pyspiel.load_game(text)


def _flip_byte(path: str, where: float = 0.5) -> None:
  with open(path, "r+b") as f:
    f.seek(0, os.SEEK_END)
    at = int(f.tell() * where)
    f.seek(at)
    byte = f.read(1)
    f.seek(at)
    f.write(bytes([byte[0] ^ 0xFF]))


def _truncate(path: str, keep: float = 0.5) -> None:
  size = os.path.getsize(path)
  with open(path, "r+b") as f:
    f.truncate(int(size * keep))


def _package_file(*parts: str) -> str:
  return os.path.join(tests_repo.REPO, "ospiel_team", *parts)


def disk_full_writer(real, target: str, after: int, seen: list):
  """A replacement for `atomic_io.write_with` whose writes of files named `target` (or ending
  in it, for ".ext") fail with ENOSPC inside the atomic writer after `after` such writes
  succeed, as a full disk does (the failing write names no file); `seen` gets their paths."""

  def write_with(path, write, suffix=""):
    name = os.path.basename(str(path))
    if name == target or (target.startswith(".") and name.endswith(target)):
      seen.append(path)
      if len(seen) > after:
        def full(f):
          f.write(b"partial")
          raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, full, suffix)
    return real(path, write, suffix)

  return write_with


@contextlib.contextmanager
def _disk_full_for(target: str, after: int = 0):
  """`disk_full_writer` installed for the duration of the block."""
  from ospiel_team import atomic_io
  real = atomic_io.write_with
  seen = []
  atomic_io.write_with = disk_full_writer(real, target, after, seen)
  try:
    yield seen
  finally:
    atomic_io.write_with = real


# ---------------------------------------------------------------------------------------------
# bad argument: the public API.

def _tree(text: str, **kwargs):
  from ospiel_team.tree.game_tree import GameTree
  return GameTree(_game(text), **kwargs)


def _bad_max_memory(value) -> Callable[[str], None]:
  def run(_):
    from ospiel_team import errors
    refuses(lambda: _tree("kuhn_poker", max_memory=value), errors.UserError, "max_memory",
            repr(value))
  return run


def _max_memory_one_byte(_):
  from ospiel_team.tree import memory
  refuses(lambda: _tree("comm(length=5)", max_memory=1), memory.TreeTooLargeError,
          "max_memory=1 ", "34,785 histories")  # comm(length=5)'s walk has 34,785


def _max_memory_whole_float(_):
  a, b = _tree("kuhn_poker", max_memory=1.5e9), _tree("kuhn_poker", max_memory=None)
  _clean_answer(a.num_nodes == b.num_nodes == 58, "max_memory=1.5e9 built another tree")


def _bad_time_limit(_):
  from ospiel_team import errors
  refuses(lambda: _tree("kuhn_poker", time_limit=math.nan), errors.UserError, "time_limit")


def _game_not_a_game(_):
  from ospiel_team import errors
  from ospiel_team.tree.game_tree import GameTree
  refuses(lambda: GameTree("kuhn_poker"), errors.UserError, "game")


def _teams_of_floats(_):
  from ospiel_team import errors
  from ospiel_team.algorithms.team import solver as team_solver
  refuses(lambda: team_solver.solve(_game("kuhn_poker(players=3)"), [[0.5, 1], [2]]),
          errors.UserError, "0.5")


def _digits_true(_):
  from ospiel_team import errors
  from ospiel_team.algorithms.team import solver as team_solver
  refuses(lambda: team_solver.solve(_game("kuhn_poker(players=3)"), "0,1|2", digits=True),
          errors.UserError, "digits")


# ---------------------------------------------------------------------------------------------
# bad flag: the command lines.

def _solve_main(argv):
  from ospiel_team.cli import team_solve
  return team_solve.main(argv)


def _flag_probe(module: str, argv: Sequence[str], status: int, *needles: str
                ) -> Callable[[str], None]:
  def run(folder):
    import importlib
    main = importlib.import_module(f"ospiel_team.cli.{module}").main
    one_line_error(main, [a.replace("{tmp}", folder) for a in argv], status, *needles)
  return run


# ---------------------------------------------------------------------------------------------
# damaged file.

def _tree_cache_damaged(damage: Callable[[str], None]) -> Callable[[str], None]:
  """ospiel-team-solve --tree_cache on a damaged cache file: rebuilt, said so, right value."""
  def run(folder):
    from ospiel_team.cli import team_solve
    argv = ["solve", "--game", "kuhn_poker(players=3)", "--teams", "0,1|2", "--json",
            "--progress_interval", "0", "--tree_cache", folder]
    rc, out, err = command(team_solve.main, argv)
    first = json.loads(out)
    (name,) = [f for f in os.listdir(folder) if f.endswith(".npz")]
    damage(os.path.join(folder, name))
    with _warnings_to(err_sink := io.StringIO()):
      rc, out, err = command(team_solve.main, argv)
    if "Traceback" in err:
      raise _Traceback(err[-300:])
    if rc != 0:
      raise Unclear(f"exit {rc}: {err[-300:]!r}")
    second = json.loads(out)
    _clean_answer(second["value"] == first["value"],
                  f"value {second['value']} from the damaged cache, {first['value']} before")
    _clean_answer(second["tree_cache"] == "rebuilt", f"tree_cache {second['tree_cache']!r}")
    if "rebuilding" not in err_sink.getvalue():
      raise Unclear("no warning named the damaged file")
  return run


@contextlib.contextmanager
def _warnings_to(sink):
  import warnings
  with warnings.catch_warnings():
    warnings.simplefilter("always")
    old = warnings.showwarning
    warnings.showwarning = lambda message, *a, **k: sink.write(f"{message}\n")
    try:
      yield
    finally:
      warnings.showwarning = old


def _doubled_returns(path: str) -> None:
  import numpy as np
  with np.load(path) as z:
    data = {k: z[k] for k in z.files}
  data["node_returns"] = data["node_returns"] * 2
  np.savez(path, **data)


def _damaged_copy(source: str, folder: str, damage: Callable[[str], None]) -> str:
  path = os.path.join(folder, os.path.basename(source))
  shutil.copyfile(source, path)
  damage(path)
  return path


def _a2c_checkpoint(folder: str) -> str:
  """An a2c trainer checkpoint's layout (a JSON state entry and arrays), compressed."""
  import numpy as np

  from ospiel_team import atomic_io
  path = os.path.join(folder, "checkpoint.npz")
  atomic_io.savez(path, compressed=True, state=np.asarray(json.dumps({"config": {}})),
                  **{"param/w": np.arange(4096, dtype=np.float32)})
  return path


def _checkpoint_probe(damage: Callable[[str], None]) -> Callable[[str], None]:
  def run(folder):
    from ospiel_team import errors
    from ospiel_team.bridge.agents.training import round_trainer
    path = _a2c_checkpoint(folder)
    damage(path)
    refuses(lambda: round_trainer.read_checkpoint(path, None, None), errors.DamagedFileError,
            path)
  return run


def _shipped_file_probe(parts: tuple[str, ...], load: Callable[[str], object],
                        damage: Callable[[str], None]) -> Callable[[str], None]:
  def run(folder):
    path = _damaged_copy(_package_file(*parts), folder, damage)
    refuses(lambda: load(path), ValueError, path)
  return run


def _load_dataset(path):
  from ospiel_team.bridge import dataset
  return dataset.load_dataset(path)


def _load_model(path):
  from ospiel_team.bridge.agents.bidders import policy_net
  return policy_net.load_model(path)


def _load_cost_dataset(path):
  from ospiel_team.bridge import uncontested_costs
  return uncontested_costs.load_cost_dataset(path)


def _crafted_pth(folder):
  from ospiel_team.bridge.agents.bidders import jps_paper
  from tests.bridge.agents.test_jps_paper_damaged_files import write_legacy
  path = os.path.join(folder, "model.pth")
  # A 4-float storage viewed as 10 rows of stride 2^26: reads far outside the storage.
  write_legacy(path, {"w": ("0", 0, (10,), (2 ** 26,))}, {"0": [1.0, 2.0, 3.0, 4.0]})
  refuses(lambda: jps_paper.load_torch_legacy(path), ValueError, path)


# ---------------------------------------------------------------------------------------------
# special output file.

def _fifo(folder: str) -> str:
  path = os.path.join(folder, "fifo")
  os.mkfifo(path)
  return path


def _special_output(module: str, argv: Sequence[str], make: Callable[[str], str]
                    ) -> Callable[[str], None]:
  def run(folder):
    import importlib
    import stat
    target = make(folder)
    main = importlib.import_module(f"ospiel_team.cli.{module}").main
    try:
      one_line_error(main, [a.replace("{target}", target) for a in argv], 2, target)
    finally:
      mode = os.lstat(target).st_mode
    if stat.S_ISREG(mode):
      raise Silent(f"{target} was replaced by a regular file")
  return run


def _writer_refuses_fifo(folder):
  import stat

  from ospiel_team import atomic_io
  target = _fifo(folder)
  refuses(lambda: atomic_io.write_text(target, "x"), ValueError, target)
  _clean_answer(stat.S_ISFIFO(os.lstat(target).st_mode), "the FIFO was replaced")


def _socket(folder: str) -> str:
  import socket
  path = os.path.join(folder, "sock")
  s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
  s.bind(path)
  s.close()
  return path


# ---------------------------------------------------------------------------------------------
# full disk and killed runs (faults).

_COMPARE = ["compare", "--solvers", "cfr_plus", "--iterations", "8", "--seeds", "2",
            "--workers", "1", "--noreference", "--num_points", "2"]


def _compare_rows(out: str) -> list:
  with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
    rows = json.load(f)["rows"]
  return sorted((r["solver"], r["seed"], r["iteration"], r["metric"]) for r in rows)


def _compare_full_disk(folder):
  from ospiel_team.cli import compare
  out = os.path.join(folder, "o")
  with _disk_full_for("curves.png"):
    line = one_line_error(compare.main, _COMPARE + ["--out", out], 1, "curves.png",
                          "nothing finished was lost")
  del line
  _clean_answer(os.path.isfile(os.path.join(out, "results.json")), "results.json lost")
  rc, _, err = command(compare.main, _COMPARE + ["--out", out])
  _clean_answer(rc == 0 and os.path.getsize(os.path.join(out, "curves.png")) > 0,
                f"the rerun did not draw curves.png (exit {rc}: {err[-200:]!r})")


def _compare_store_full_disk(folder):
  """No space for the second run's record: the first is kept, the rerun runs only the second
  and ends with the rows of an uninterrupted comparison."""
  from ospiel_team.cli import compare
  out = os.path.join(folder, "o")
  with _disk_full_for(".json", after=1) as seen:
    one_line_error(compare.main, _COMPARE + ["--out", out], 1, "no space left",
                   "nothing finished was lost")
  kept = [f for f in os.listdir(os.path.join(out, "runs")) if f.endswith(".json")]
  _clean_answer(len(kept) == 1 and len(seen) == 2, f"run records kept: {kept}")
  rc, _, err = command(compare.main, _COMPARE + ["--out", out])
  _clean_answer(rc == 0, f"the rerun failed: {err[-200:]!r}")
  fresh = os.path.join(folder, "fresh")
  command(compare.main, _COMPARE + ["--out", fresh])
  _clean_answer(_compare_rows(out) == _compare_rows(fresh),
                "the resumed comparison's rows differ from an uninterrupted run's")


def _compare_store_damaged(folder):
  """A truncated run record of a comparison's store: warned about, the run made again, the
  rows of an uninterrupted comparison."""
  from ospiel_team.cli import compare
  out = os.path.join(folder, "o")
  command(compare.main, _COMPARE + ["--out", out])
  runs = os.path.join(out, "runs")
  first = os.path.join(runs, sorted(os.listdir(runs))[0])
  _truncate(first)
  with _warnings_to(sink := io.StringIO()):
    rc, _, err = command(compare.main, _COMPARE + ["--out", out])
  if "Traceback" in err:
    raise _Traceback(err[-300:])
  if rc != 0 or first not in sink.getvalue():
    raise Unclear(f"exit {rc}, warnings {sink.getvalue()[-200:]!r}, stderr {err[-200:]!r}")
  fresh = os.path.join(folder, "fresh")
  command(compare.main, _COMPARE + ["--out", fresh])
  _clean_answer(_compare_rows(out) == _compare_rows(fresh),
                "the comparison's rows differ from an uninterrupted run's")
  with open(first, encoding="utf-8") as f:
    json.load(f)  # replaced by a whole record


def _compare_store_edited(folder):
  """A run record of a comparison's store edited to valid JSON with other numbers: it fails its
  digest, is warned about, the run made again, and the rows are an uninterrupted run's."""
  from ospiel_team.cli import compare
  out = os.path.join(folder, "o")
  command(compare.main, _COMPARE + ["--out", out])
  runs = os.path.join(out, "runs")
  first = os.path.join(runs, sorted(os.listdir(runs))[0])
  with open(first, encoding="utf-8") as f:
    record = json.load(f)
  for row in record["rows"]:
    row["metric"] = row["metric"] / 2  # valid JSON, other numbers
  with open(first, "w", encoding="utf-8") as f:
    json.dump(record, f)
  with _warnings_to(sink := io.StringIO()):
    rc, _, err = command(compare.main, _COMPARE + ["--out", out])
  if "Traceback" in err:
    raise _Traceback(err[-300:])
  fresh = os.path.join(folder, "fresh")
  command(compare.main, _COMPARE + ["--out", fresh])
  with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
    rows = json.load(f)["rows"]
  with open(os.path.join(fresh, "results.json"), encoding="utf-8") as f:
    fresh_rows = json.load(f)["rows"]
  key = ("solver", "seed", "iteration", "variant", "metric")
  _clean_answer([[r[k] for k in key] for r in rows] == [[r[k] for k in key] for r in fresh_rows],
                "the comparison's metrics differ from an uninterrupted run's")
  if rc != 0 or first not in sink.getvalue():
    raise Unclear(f"exit {rc}, warnings {sink.getvalue()[-200:]!r}, stderr {err[-200:]!r}")


def _reference_damaged(folder):
  """A truncated reference.json of a comparison: warned about, solved again, same value."""
  from ospiel_team.cli import compare
  argv = ["compare", "--game", "kuhn_poker(players=3)", "--teams", "0,1|2", "--solvers",
          "cfr_plus", "--iterations", "2", "--seeds", "1", "--workers", "1", "--num_points",
          "2", "--out", os.path.join(folder, "o")]  # the team LP's value, stored
  command(compare.main, argv)
  path = os.path.join(folder, "o", "reference.json")
  with open(path, encoding="utf-8") as f:
    before = json.load(f)
  _truncate(path)
  with _warnings_to(sink := io.StringIO()):
    rc, _, err = command(compare.main, argv)
  if "Traceback" in err:
    raise _Traceback(err[-300:])
  if rc != 0 or path not in sink.getvalue():
    raise Unclear(f"exit {rc}, warnings {sink.getvalue()[-200:]!r}, stderr {err[-200:]!r}")
  with open(path, encoding="utf-8") as f:
    _clean_answer(json.load(f) == before, "the reference solved again differs")


def _make_dataset_full_disk(folder):
  from ospiel_team.cli import make_dataset
  out = os.path.join(folder, "d.npz")
  argv = ["make_dataset", "--no_progress", "--deals", "2", "--chunk", "1", "--workers", "1",
          "--seed", "3", "--out", out]
  with _disk_full_for(".npz", after=1):
    one_line_error(make_dataset.main, argv, 1, "chunk_", "nothing finished was lost")
  kept = [f for f in os.listdir(out + ".chunks") if f.startswith("chunk_")]
  _clean_answer(len(kept) == 1, f"chunks kept: {kept}")
  rc, _, err = command(make_dataset.main, argv)
  _clean_answer(rc == 0 and os.path.isfile(out), f"the rerun did not finish: {err[-200:]!r}")
  _same_dataset(out, os.path.join(folder, "fresh.npz"), argv)


def _same_dataset(out: str, fresh: str, argv: list[str]) -> None:
  """`out` must equal a build of the same flags from scratch (no interruption)."""
  import numpy as np

  from ospiel_team.cli import make_dataset
  rc, _, err = command(make_dataset.main, argv[:-1] + [fresh])
  _clean_answer(rc == 0, f"the fresh build failed: {err[-200:]!r}")
  with np.load(out) as a, np.load(fresh) as b:
    same = all(np.array_equal(a[k], b[k]) for k in ("holders", "dd_tricks"))
  _clean_answer(same, "the resumed dataset differs from a fresh build")


def _compare_killed(folder):
  """A comparison interrupted after its first run resumes to the rows of an uninterrupted one."""
  from ospiel_team.cli import compare
  from ospiel_team.runner import execute
  out = os.path.join(folder, "o")
  real = execute.run_task
  calls = []

  def run_task(*args, **kwargs):
    calls.append(1)
    if len(calls) == 2:
      raise KeyboardInterrupt
    return real(*args, **kwargs)

  execute.run_task = run_task
  try:
    rc, _, err = command(compare.main, _COMPARE + ["--out", out])
  finally:
    execute.run_task = real
  if rc != 130 or "rerun" not in err:
    raise Unclear(f"interrupted: exit {rc}, {err[-200:]!r}")
  rc, _, err = command(compare.main, _COMPARE + ["--out", out])
  _clean_answer(rc == 0, f"the resumed comparison failed: {err[-200:]!r}")
  fresh = os.path.join(folder, "fresh")
  rc, _, _ = command(compare.main, _COMPARE + ["--out", fresh])
  _clean_answer(_compare_rows(out) == _compare_rows(fresh),
                "the resumed comparison's rows differ from an uninterrupted run's")


def _make_dataset_killed(folder):
  from ospiel_team.bridge import dataset_builder
  from ospiel_team.cli import make_dataset
  out = os.path.join(folder, "d.npz")
  argv = ["make_dataset", "--no_progress", "--deals", "2", "--chunk", "1", "--workers", "1",
          "--seed", "4", "--out", out]
  lib = dataset_builder.dataset_lib  # the chunks are saved in this process, in order
  real = lib.save_dataset
  calls = []

  def save_dataset(*args, **kwargs):  # the build is killed (Ctrl-C) after its first chunk
    calls.append(1)
    if len(calls) == 2:
      raise KeyboardInterrupt
    return real(*args, **kwargs)

  lib.save_dataset = save_dataset
  try:
    rc, _, err = command(make_dataset.main, argv)
  finally:
    lib.save_dataset = real
  if rc == 0 or "resume" not in err:
    raise Unclear(f"interrupted: exit {rc}, {err[-200:]!r}")
  rc, _, err = command(make_dataset.main, argv)
  _clean_answer(rc == 0, f"the resumed build failed: {err[-200:]!r}")
  _same_dataset(out, os.path.join(folder, "fresh.npz"), argv)


# ---------------------------------------------------------------------------------------------
# cost refused.

def _leduc6_memory(_):
  from ospiel_team.tree import builders
  from ospiel_team.tree import memory
  real = builders.walk_arrays

  def walk_arrays(*args, **kwargs):
    raise Silent("team_leduc(players=6) was walked instead of refused before its walk")

  builders.walk_arrays = walk_arrays
  try:
    refuses(lambda: _tree("team_leduc(players=6)", max_memory=10 ** 8),
            memory.TreeTooLargeError, "max_memory=100,000,000", "histories")
  finally:
    builders.walk_arrays = real


def _leduc6_at_once(_):
  from ospiel_team.cli import team_solve
  t0 = time.monotonic()
  one_line_error(team_solve.main, ["solve", "--game", "team_leduc(players=6)",
                                   "--progress_interval", "0"], 2, "refusing before walking")
  _clean_answer(time.monotonic() - t0 < 30, "team_leduc(players=6) was not refused at once")


def _leduc4_time_limit(_):
  from ospiel_team.cli import team_solve
  t0 = time.monotonic()
  one_line_error(team_solve.main, ["solve", "--game", "team_leduc(players=4)",
                                   "--progress_interval", "0", "--time_limit", "2"], 3,
                 "time_limit=2")
  _clean_answer(time.monotonic() - t0 < 30, "the walk ran far past --time_limit 2")


# ---------------------------------------------------------------------------------------------
# Issue 47: training's options, its files and limits, and the public API's arguments.

def _small_dataset(folder: str) -> str:
  """A 300-deal bridge dataset written by the package (with its digest), for quick training."""
  from ospiel_team.bridge import dataset
  ds = dataset.load_dataset()
  path = os.path.join(folder, "small.npz")
  dataset.save_dataset(path, ds.holders[:300], ds.dd_tricks[:300])
  return path


_TRAIN_SMALL = ["--deals_per_round=8", "--batch_size=32", "--updates_per_round=2",
                "--hidden=16", "--num_blocks=1", "--holdout=16", "--progress=false",
                "--bc_teacher=", "--buffer_size=1000", "--eval_every=0", "--augment=false",
                "--checkpoint_every=1"]


def _train_flag(args: Sequence[str], status: int, *needles: str, data: bool = False
                ) -> Callable[[str], None]:
  """ospiel-team-train-bridge with `args`: one line (every needle), `status`, nothing written."""
  def run(folder):
    from ospiel_team.cli import train_bridge
    work = os.path.join(folder, "w")
    extra = [f"--datasets={_small_dataset(folder)}", "--augment=false"] if data else []
    one_line_error(train_bridge.main, ["train_bridge", f"--workdir={work}", "--rounds=1",
                                       *extra, *args], status, *needles)
    _clean_answer(not os.path.exists(os.path.join(work, "model.npz")), "a model was written")
  return run


def _api_probe(call: Callable[[], object], *needles: str) -> Callable[[str], None]:
  def run(_):
    refuses(call, (ValueError, TypeError), *needles)
  return run


def _a2c_config(**kw):
  from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
  return A2CConfig(**kw)


def _round_q(**kw):
  from ospiel_team.bridge.agents.training.uncontested import RoundQLearner
  return RoundQLearner(**kw)


def _default_teams(_):
  from ospiel_team.tree import teams
  refuses(lambda: teams.default_teams(5), ValueError, "game")


def _teams_7_2(_):
  from ospiel_team.tree import teams
  refuses(lambda: teams.Teams(7, 2), ValueError, "teams", "7")


def _choose_method_string(_):
  from ospiel_team.algorithms.team import solver
  refuses(lambda: solver.choose_method(_tree("kuhn_poker"), "0|1"), ValueError, "teams")


def _parse_seeds_none(_):
  from ospiel_team.runner import parse_seeds
  refuses(lambda: parse_seeds(None), ValueError, "seeds", "None")


def _imps_list(_):
  from ospiel_team.bridge import scoring
  refuses(lambda: scoring.imps([]), ValueError, "score_diff")


def _progress_yes(_):
  refuses(lambda: _tree("kuhn_poker", progress="yes"), ValueError, "progress", "'yes'")


def _resume_from_damaged(folder):
  from ospiel_team.cli import train_bridge
  bad = os.path.join(folder, "slim.npz")
  with open(bad, "wb") as f:
    f.write(b"PK\x03\x04 not a checkpoint")
  work = os.path.join(folder, "w")
  line = one_line_error(train_bridge.main, [
      "train_bridge", f"--workdir={work}", f"--datasets={_small_dataset(folder)}",
      f"--resume_from={bad}", "--rounds=1", "--burn_in=20", *_TRAIN_SMALL], 2, repr(bad))
  if "checkpoint.npz" in line:
    raise Unclear(f"the line names the working copy: {line}")
  _clean_answer(not os.path.exists(os.path.join(work, "checkpoint.npz")),
                "the damaged copy stayed in the working folder")


def _dataset_without_digest_edited(folder):
  import numpy as np

  from ospiel_team import errors
  from ospiel_team.bridge import dataset
  ds = dataset.load_dataset()
  tricks = ds.dd_tricks[:3].copy()
  tricks[:, 4] = 13 - tricks[:, 4]  # every NT table edited
  path = os.path.join(folder, "edited.npz")
  np.savez(path, holders=ds.holders[:3], dd_tricks=tricks)
  refuses(lambda: dataset.load_dataset(path), errors.DamagedFileError, path, "no digest")


def _digest_table_not_json(folder):
  from ospiel_team.bridge import dataset
  from ospiel_team.bridge import shipped_digests
  bad = os.path.join(folder, "shipped_digests.json")
  with open(bad, "w", encoding="utf-8") as f:
    f.write("{ not json")
  real = shipped_digests.TABLE
  shipped_digests.TABLE = bad
  shipped_digests._table.cache_clear()
  try:
    refuses(lambda: dataset.load_dataset(), shipped_digests.DigestTableError, bad)
  finally:
    shipped_digests.TABLE = real
    shipped_digests._table.cache_clear()


def _model_not_finite(folder):
  import jax
  import numpy as np

  from ospiel_team.bridge.agents.bidders import policy_net
  from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
  cfg = A2CConfig(hidden=8, num_blocks=0)
  net = policy_net.make_network(**cfg.network_dict())
  params = jax.tree_util.tree_map(lambda x: np.asarray(x) * np.nan, policy_net.init_params(
      net, 0))
  path = os.path.join(folder, "nan_model.npz")
  policy_net.save_model(path, params, cfg)
  refuses(lambda: policy_net.load_model(path), ValueError, path, "finite")


def _coop_time_limit(argv: Sequence[str], seconds: float) -> Callable[[str], None]:
  def run(_):
    from ospiel_team.cli import coop_optimum
    t0 = time.monotonic()
    one_line_error(coop_optimum.main, ["coop", "--norecord", *argv], 3, "time_limit")
    _clean_answer(time.monotonic() - t0 < seconds, "ran past --time_limit")
  return run


def _train_full_disk(folder):
  from ospiel_team.bridge.agents.training import round_trainer
  from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
  from ospiel_team.cli import train_bridge
  work = os.path.join(folder, "w")
  argv = ["train_bridge", f"--workdir={work}", f"--datasets={_small_dataset(folder)}",
          "--rounds=3", "--burn_in=20", *_TRAIN_SMALL]
  with _disk_full_for("checkpoint.npz", after=1):
    one_line_error(train_bridge.main, argv, 1, "checkpoint.npz", "no space left")
  cfg = A2CConfig(hidden=16, num_blocks=1, buffer_size=1000, burn_in=20)
  _, state, _ = round_trainer.check_checkpoint(os.path.join(work, "checkpoint.npz"), cfg)
  _clean_answer(state["round"] == 1, f"the kept checkpoint is of round {state['round']}")
  rc, out, err = command(train_bridge.main, argv)  # space freed: the rerun resumes, finishes
  _clean_answer(rc == 0 and "rounds 3" in out, f"the rerun failed: exit {rc} {err[-200:]!r}")


def _train_diverges(folder):
  import hashlib

  from ospiel_team.cli import train_bridge
  work = os.path.join(folder, "w")
  argv = ["train_bridge", f"--workdir={work}", f"--datasets={_small_dataset(folder)}",
          "--burn_in=200", *_TRAIN_SMALL]
  rc, _, err = command(train_bridge.main, argv + ["--rounds=1"])
  _clean_answer(rc == 0, f"the good round failed: {err[-200:]!r}")
  files = [os.path.join(work, n) for n in ("checkpoint.npz", "model.npz", "log.csv")]

  def digests():
    return [hashlib.sha256(open(p, "rb").read()).hexdigest() for p in files]

  before = digests()
  one_line_error(train_bridge.main, argv + ["--rounds=5", "--learning_rate=1e30"], 4,
                 "diverged at round 2", "round 1) is kept")
  _clean_answer(digests() == before, "the checkpoint, model or log changed")


PROBES: tuple[Probe, ...] = (
    Probe("bad argument", "GameTree(max_memory=True): a bool is no number of bytes",
          _bad_max_memory(True)),
    Probe("bad argument", "GameTree(max_memory=1.5): not a whole number of bytes",
          _bad_max_memory(1.5)),
    Probe("bad argument", "GameTree(max_memory=0)", _bad_max_memory(0)),
    Probe("bad argument", "GameTree(comm(length=5), max_memory=1): one byte is refused",
          _max_memory_one_byte),
    Probe("bad argument", "GameTree(max_memory=1.5e9): a whole float of bytes builds",
          _max_memory_whole_float),
    Probe("bad argument", "GameTree(time_limit=nan)", _bad_time_limit),
    Probe("bad argument", "GameTree('kuhn_poker'): a string, not a pyspiel game",
          _game_not_a_game),
    Probe("bad argument", "team solve with teams [[0.5, 1], [2]]", _teams_of_floats),
    Probe("bad argument", "team solve with digits=True", _digits_true),
    Probe("bad flag", "ospiel-team-solve --time_limit -1",
          _flag_probe("team_solve", ["solve", "--game", "kuhn_poker(players=3)",
                                     "--time_limit", "-1"], 2, "--time_limit")),
    Probe("bad flag", "ospiel-team-solve --game kuhn_pokr (unknown game)",
          _flag_probe("team_solve", ["solve", "--game", "kuhn_pokr"], 2, "kuhn_poker")),
    Probe("bad flag", "ospiel-team-compare --seeds 10000000000",
          _flag_probe("compare", ["compare", "--out", "{tmp}/o", "--seeds", "10000000000"], 2,
                      "--seeds")),
    Probe("bad flag", "ospiel-team-compare --solvers no_such_solver",
          _flag_probe("compare", ["compare", "--out", "{tmp}/o", "--solvers",
                                  "no_such_solver"], 2, "no_such_solver")),
    Probe("bad flag", "ospiel-team-coop-optimum --method lp --lp_max_local 0",
          _flag_probe("coop_optimum", ["coop", "--game", "tiny_hanabi", "--method", "lp",
                                       "--lp_max_local", "0"], 2, "--lp_max_local")),
    Probe("bad flag", "ospiel-team-uncontested --train_datasets '/nonexistent/*.npz'",
          _flag_probe("uncontested", ["uncontested", "--out", "{tmp}/cost.npz",
                                      "--q_iterations", "1", "--train_datasets",
                                      "/nonexistent/*.npz"], 2, "/nonexistent/*.npz")),
    Probe("bad flag", "ospiel-team-make-dataset --deals 0",
          _flag_probe("make_dataset", ["make_dataset", "--deals", "0", "--out",
                                       "{tmp}/d.npz"], 2, "deals")),
    Probe("damaged file", "tree cache truncated: rebuilt with a warning, reported 'rebuilt'",
          _tree_cache_damaged(_truncate)),
    Probe("damaged file", "tree cache with node_returns doubled (a valid .npz): rebuilt",
          _tree_cache_damaged(_doubled_returns)),
    Probe("damaged file", "a2c checkpoint with a flipped byte",
          _checkpoint_probe(_flip_byte)),
    Probe("damaged file", "a2c checkpoint truncated", _checkpoint_probe(_truncate)),
    Probe("damaged file", "bridge dataset with a flipped byte",
          _shipped_file_probe(("bridge", "data", "validation_dds.npz"), _load_dataset,
                              _flip_byte)),
    Probe("damaged file", "bridge model truncated",
          _shipped_file_probe(("bridge", "models", "a2c_baseline.npz"), _load_model,
                              _truncate)),
    Probe("damaged file", "bridge model with a flipped byte",
          _shipped_file_probe(("bridge", "models", "a2c_baseline.npz"), _load_model,
                              _flip_byte)),
    Probe("damaged file", "uncontested cost dataset truncated",
          _shipped_file_probe(("bridge", "models", "uncontested_cost.npz"),
                              _load_cost_dataset, _truncate)),
    Probe("damaged file", ".pth tensor of stride 2^26 over a 4-float storage", _crafted_pth),
    Probe("damaged file", "ospiel-team-compare's run record truncated: run again, same rows",
          _compare_store_damaged),
    Probe("damaged file", "ospiel-team-compare's run record edited to other valid numbers: "
          "run again, same metrics", _compare_store_edited),
    Probe("damaged file", "ospiel-team-compare's reference.json truncated: solved again",
          _reference_damaged),
    Probe("special output file", "ospiel-team-uncontested --out FIFO",
          _special_output("uncontested", ["uncontested", "--pairs", "1", "--k", "1", "--out",
                                          "{target}"], _fifo)),
    Probe("special output file", "ospiel-team-make-dataset --out FIFO",
          _special_output("make_dataset", ["make_dataset", "--deals", "1", "--out",
                                           "{target}"], _fifo)),
    Probe("special output file", "ospiel-team-uncontested --out a Unix socket",
          _special_output("uncontested", ["uncontested", "--pairs", "1", "--k", "1", "--out",
                                          "{target}"], _socket)),
    Probe("special output file", "the atomic writer on a FIFO", _writer_refuses_fifo),
    Probe("full disk", "ospiel-team-compare, no space for curves.png; the rerun draws it",
          _compare_full_disk),
    Probe("full disk", "ospiel-team-make-dataset, no space for the second chunk; the rerun "
          "completes", _make_dataset_full_disk),
    Probe("full disk", "ospiel-team-compare, no space for the second run's record; the rerun "
          "completes", _compare_store_full_disk),
    Probe("cost refused", "GameTree(team_leduc(players=6), max_memory=1e8): refused before "
          "its walk", _leduc6_memory),
    Probe("cost refused", "ospiel-team-solve --game team_leduc(players=6): refused at once",
          _leduc6_at_once),
    Probe("cost refused", "ospiel-team-solve --game team_leduc(players=4) --time_limit 2: "
          "the limit covers the walk (minutes)", _leduc4_time_limit),
    Probe("cost refused", "ospiel-team-make-dataset --deals 10^12",
          _flag_probe("make_dataset", ["make_dataset", "--deals", "1000000000000", "--out",
                                       "{tmp}/d.npz"], 2, "--force")),
    Probe("cost refused", "ospiel-team-coop-optimum simple_bidding(size=29) by bidding_bb",
          _flag_probe("coop_optimum", ["coop", "--game", "simple_bidding(size=29)",
                                       "--method", "bidding_bb"], 2, "--force")),
    Probe("killed run", "ospiel-team-compare interrupted after its first run, rerun",
          _compare_killed),
    Probe("killed run", "ospiel-team-make-dataset interrupted after its first chunk, rerun",
          _make_dataset_killed),
    *(Probe("bad flag", f"ospiel-team-train-bridge --{flag}={value}",
            _train_flag([f"--{flag}={value}"], 2, f"--{flag} must be", f"got {value}"))
      for flag, value in (("learning_rate", "nan"), ("learning_rate", "inf"),
                          ("entropy_coef", "nan"), ("ratio_clip", "nan"),
                          ("ratio_clip", "inf"), ("value_coef", "nan"),
                          ("max_minutes", "nan"), ("max_cpu_minutes", "nan"),
                          ("refresh_minutes", "nan"), ("seed", "-1"))),
    Probe("bad flag", "ospiel-team-train-bridge --eval_boards 500 --holdout 10",
          _train_flag(["--eval_boards=500", "--holdout=10"], 2, "--eval_boards=500",
                      "10 held-out", data=True)),
    Probe("bad flag", "ospiel-team-train-bridge --bc_teacher bogus",
          _train_flag(["--bc_teacher=bogus"], 2, "--bc_teacher 'bogus'")),
    Probe("bad flag", "ospiel-team-train-bridge --bc_teacher jps_paper_0.63 --reference_dir "
          "/nonexistent",
          _train_flag(["--bc_teacher=jps_paper_0.63", "--reference_dir=/nonexistent"], 2,
                      "--reference_dir '/nonexistent'")),
    Probe("bad flag", "ospiel-team-compare --seeds 2**70,1",
          _flag_probe("compare", ["compare", "--out", "{tmp}/o", "--seeds",
                                  f"{2 ** 70},1"], 2, "--seeds", str(2 ** 70))),
    Probe("bad flag", "ospiel-team-compare --solver_options nfsp.episodes=-5",
          _flag_probe("compare", ["compare", "--out", "{tmp}/o", "--solvers", "nfsp",
                                  "--solver_options", "nfsp.episodes=-5"], 2,
                      "nfsp.episodes", "-5")),
    Probe("bad flag", "ospiel-team-solve --solver bogus: refused before the solve",
          _flag_probe("team_solve", ["solve", "--game", "kuhn_poker(players=3)", "--teams",
                                     "0,1|2", "--solver", "bogus", "--progress_interval",
                                     "0"], 2, "--solver", "'bogus'")),
    Probe("bad argument", "A2CConfig(learning_rate=nan)",
          _api_probe(lambda: _a2c_config(learning_rate=math.nan), "learning_rate", "nan")),
    Probe("bad argument", "A2CConfig(batch_size=1.5)",
          _api_probe(lambda: _a2c_config(batch_size=1.5), "batch_size", "1.5")),
    Probe("bad argument", "RoundQLearner(learning_rate=-1)",
          _api_probe(lambda: _round_q(learning_rate=-1), "learning_rate", "-1")),
    Probe("bad argument", "RoundQLearner(hidden=-1)",
          _api_probe(lambda: _round_q(hidden=-1), "hidden", "-1")),
    Probe("bad argument", "tree.default_teams(5)", _default_teams),
    Probe("bad argument", "Teams(7, 2)", _teams_7_2),
    Probe("bad argument", "choose_method(tree, '0|1')", _choose_method_string),
    Probe("bad argument", "runner.parse_seeds(None)", _parse_seeds_none),
    Probe("bad argument", "bridge.imps([])", _imps_list),
    Probe("bad argument", "GameTree(game, progress='yes')", _progress_yes),
    Probe("damaged file", "ospiel-team-train-bridge --resume_from damaged: named as given, no "
          "copy left", _resume_from_damaged),
    Probe("damaged file", "bridge dataset without a digest, its tables edited: spot-checked",
          _dataset_without_digest_edited),
    Probe("damaged file", "shipped_digests.json not JSON: reported as itself",
          _digest_table_not_json),
    Probe("damaged file", "bridge model with NaN parameters", _model_not_finite),
    Probe("cost refused", "ospiel-team-train-bridge --deals_per_round 10^12",
          _train_flag(["--deals_per_round=1000000000000"], 2, "of memory",
                      "--deals_per_round=1000000000000")),
    Probe("cost refused", "ospiel-team-train-bridge --buffer_size 10^13",
          _train_flag(["--buffer_size=10000000000000"], 2, "of memory",
                      "--buffer_size=10000000000000")),
    Probe("cost refused", "ospiel-team-train-bridge --hidden 10^8",
          _train_flag(["--hidden=100000000"], 2, "of memory", "--hidden=100000000")),
    Probe("cost refused", "ospiel-team-uncontested --pairs 10^9",
          _flag_probe("uncontested", ["uncontested", "--pairs", "1000000000", "--out",
                                      "{tmp}/c.npz"], 2, "--pairs", "lower --pairs")),
    Probe("cost refused", "ospiel-team-coop-optimum comm(7) --method mip --time_limit 1: the "
          "limit covers the walk", _coop_time_limit(["--game", "comm(length=7)", "--method",
                                                     "mip", "--time_limit", "1"], 30)),
    Probe("cost refused", "ospiel-team-coop-optimum mini_bridge(3) --method brute_force "
          "--time_limit 1e-9", _coop_time_limit(["--game", "mini_bridge(size=3)", "--method",
                                                 "brute_force", "--time_limit", "1e-9"], 30)),
    Probe("full disk", "ospiel-team-train-bridge, no space for the second checkpoint; the "
          "rerun resumes", _train_full_disk),
    Probe("diverged run", "ospiel-team-train-bridge --learning_rate 1e30: stops at the round, "
          "keeps the last good checkpoint and model, exit 4", _train_diverges),
)


# ---------------------------------------------------------------------------------------------
# Running them.

def run_one(probe: Probe) -> tuple[str, str]:
  """Runs `probe` in this process, in a fresh temporary folder: (outcome, detail)."""
  folder = tempfile.mkdtemp(prefix="ospiel_probe_")
  try:
    probe.run(folder)
    return "clear", ""
  except Silent as e:
    return "silent", str(e)[:300]
  except Unclear as e:
    return "unclear", str(e)[:300]
  except _Traceback as e:
    return "traceback", str(e)[:300]
  except Exception as e:  # an exception the package did not mean: a traceback
    return "traceback", f"{type(e).__name__}: {e}"[:300]
  finally:
    shutil.rmtree(folder, ignore_errors=True)


def _worker(start: int, out: str, names: Sequence[str]) -> None:
  """Runs the probes from `start` on, appending one JSON line before and after each."""
  probes = [p for p in _probe_list(names)]
  with open(out, "a", encoding="utf-8") as f:
    for i in range(start, len(probes)):
      f.write(json.dumps({"start": i}) + "\n")
      f.flush()
      t0 = time.perf_counter()
      outcome, detail = run_one(probes[i])
      f.write(json.dumps({"index": i, "outcome": outcome, "detail": detail,
                          "seconds": round(time.perf_counter() - t0, 3)}) + "\n")
      f.flush()


def _probe_list(names: Sequence[str]) -> list[Probe]:
  """The probes of the lists named "module:attribute" (default: this module's `PROBES`)."""
  import importlib
  found = []
  for name in names:
    module, _, attribute = name.partition(":")
    found += list(getattr(importlib.import_module(module), attribute))
  return found


def run_all(lists: Sequence[str] = ("tests.integration.probes:PROBES",),
            timeout: float = 600.0) -> list[dict]:
  """Runs every probe of `lists` in child processes; one record per probe, in order.

  A child that dies during a probe (a signal, or an exit) records that probe as "crash"; the
  next probe runs in a fresh child.

  Args:
    lists: probe lists as "module:attribute".
    timeout: seconds for all the probes together.

  Returns:
    {class, description, fault, outcome, detail, seconds} per probe.
  """
  probes = _probe_list(lists)
  results: dict[int, dict] = {}
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(
      [tests_repo.REPO] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
  deadline = time.monotonic() + timeout
  with tempfile.TemporaryDirectory(prefix="ospiel_probes_") as tmp:
    log = os.path.join(tmp, "log.jsonl")
    start = 0
    while start < len(probes):
      proc = subprocess.run(
          [sys.executable, "-m", "tests.integration.probes", str(start), log, *lists],
          cwd=tests_repo.REPO, env=env, capture_output=True, text=True,
          timeout=max(1.0, deadline - time.monotonic()))
      started = None
      with open(log, encoding="utf-8") as f:
        for line in f:
          entry = json.loads(line)
          if "start" in entry:
            started = entry["start"]
          else:
            results[entry["index"]] = entry
            started = None
      if started is None or started in results:
        if len(results) < len(probes) and proc.returncode != 0:
          raise RuntimeError(f"the probe worker failed outside a probe: {proc.stderr[-2000:]}")
        break
      results[started] = {"index": started, "outcome": "crash", "seconds": None,
                          "detail": f"exit status {proc.returncode}: "
                                    f"{proc.stderr.strip()[-300:]}"}
      start = started + 1
  return [dict(klass=p.klass, description=p.description,
               fault=p.klass in FAULTS, **{k: results[i][k] for k in
                                           ("outcome", "detail", "seconds")})
          for i, p in enumerate(probes)]


def summary(records: Sequence[dict]) -> dict:
  """Counts per class (`CLASSES` order): probes run and each outcome; and faults survived."""
  by_class = {}
  for klass in CLASSES:
    mine = [r for r in records if r["klass"] == klass]
    if not mine:
      continue
    by_class[klass] = {"probes": len(mine), **{o: sum(r["outcome"] == o for r in mine)
                                              for o in OUTCOMES},
                       "seconds": round(sum(r["seconds"] or 0.0 for r in mine), 2)}
  faults = {klass: {"tried": c["probes"], "survived": c["clear"]}
            for klass, c in by_class.items() if klass in FAULTS}
  return {"classes": by_class, "faults": faults}


if __name__ == "__main__":
  # Through the module's own name, so that its exception classes are the ones the probes raise.
  from tests.integration import probes as _probes
  _probes._worker(int(sys.argv[1]), sys.argv[2], sys.argv[3:] or
                  ["tests.integration.probes:PROBES"])
