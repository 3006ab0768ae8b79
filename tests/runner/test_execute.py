"""Running tasks (`runner.execute`): inline, in a process pool, on Ray; the resumable store."""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import ospiel_team  # noqa: F401
from ospiel_team.runner import comparison
from ospiel_team.runner import execute
from tests import repo as tests_repo


def _strip(rows):
  return [{k: v for k, v in r.items() if "seconds" not in k} for r in rows]


def _task(**kw):
  task = dict(game="kuhn_poker()", solver="cfr", seed=0, iterations=3, seconds=None,
              num_points=2, metric="nash_conv", teams=None, options={})
  task.update(kw)
  return task


def test_run_task_rows_and_info():
  res = execute.run_task(_task())
  assert [(r["iteration"], r["variant"]) for r in res["rows"]] == [
      (it, v) for it in (1, 3) for v in ("average", "current", "purified")]
  assert res["info"]["iterations"] == 3 and res["info"]["solver"] == "cfr"
  # One CFR iteration from the uniform policy: its average is uniform, NashConv 11/12.
  assert res["rows"][0]["metric"] == pytest.approx(11 / 12, abs=1e-12)


def test_task_key_names_the_run_and_hashes_the_rest():
  a, b = execute.task_key(_task()), execute.task_key(_task(seed=1))
  assert a.startswith("cfr-seed0-") and b.startswith("cfr-seed1-")
  assert execute.task_key(_task()) == a != execute.task_key(_task(iterations=4))
  assert execute.task_key(_task(solver="cfr+jps")).startswith("cfr_jps-seed0-")


def test_same_results_inline_and_in_a_process_pool():
  """Seeded runs give identical rows whatever the parallelism (randomized solvers included)."""
  kwargs = dict(iterations=6, num_points=3, seeds=[0, 1], progress=False)
  solvers = ["cfr", "jps"]
  inline, _ = comparison.run_all("mini_bridge(size=2)", solvers, workers=1, **kwargs)
  pooled, _ = comparison.run_all("mini_bridge(size=2)", solvers, workers=2, **kwargs)
  assert _strip(inline) == _strip(pooled)
  # Different seeds do differ for a randomized solver (JPS's CFR starts from a random policy).
  by_seed = {r["seed"]: r["metric"] for r in inline
             if r["solver"] == "jps" and r["variant"] == "current" and r["iteration"] == 6}
  assert by_seed[0] != by_seed[1]


def _children(pid):
  try:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
      return [int(c) for c in f.read().split()]
  except OSError:
    return []


def _alive(pid):
  try:
    with open(f"/proc/{pid}/stat") as f:
      return f.read().split(") ")[-1][0] != "Z"
  except OSError:
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_a_killed_parent():
  script = textwrap.dedent("""
      from ospiel_team.runner import comparison
      comparison.run_all("kuhn_poker", ["cfr"], seconds=120, seeds=[0, 1], workers=2,
                      progress=False)
  """)
  proc = subprocess.Popen([sys.executable, "-c", script], cwd=tests_repo.REPO)
  try:
    deadline = time.time() + 120
    workers = []
    while time.time() < deadline and len(workers) < 2:
      time.sleep(0.2)
      workers = [c for c in _children(proc.pid)
                 if "spawn_main" in open(f"/proc/{c}/cmdline").read()]
    assert len(workers) >= 2, "the pool did not start"
  finally:
    proc.send_signal(signal.SIGKILL)
    proc.wait()
  deadline = time.time() + 10
  while time.time() < deadline and any(_alive(w) for w in workers):
    time.sleep(0.1)
  assert not any(_alive(w) for w in workers), "a worker outlived its killed parent"


def test_out_that_cannot_be_written_fails_before_work(tmp_path):
  a_file = tmp_path / "file"
  a_file.write_text("x")
  with pytest.raises(ValueError, match="is an existing file, not a folder"):
    comparison.run_all("kuhn_poker", ["cfr"], iterations=2, out=str(a_file), progress=False)
  if os.geteuid() != 0:
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    with pytest.raises(ValueError, match="locked"):
      comparison.run_all("kuhn_poker", ["cfr"], iterations=2, out=str(locked / "sub"),
                      progress=False)


def test_store_keeps_finished_tasks(tmp_path):
  store = execute.ResultStore(str(tmp_path / "out"))
  task = _task()
  assert store.load(task) is None
  result = execute.run_task(task)
  store.save(task, result)
  assert store.load(task) == json.loads(json.dumps(result))
  assert os.listdir(store.runs) == [execute.task_key(task) + ".json"]


def test_store_reruns_an_edited_or_misplaced_record(tmp_path):
  """A record edited to valid JSON with other numbers, or another task's record under this
  task's name, fails its digest: a warning names the file, and the task counts as not run."""
  store = execute.ResultStore(str(tmp_path / "out"))
  task, other = _task(), _task(seed=1)
  result = execute.run_task(task)
  store.save(task, result)
  store.save(other, execute.run_task(other))
  path = store.path(task)
  record = json.loads(open(path, encoding="utf-8").read())
  record["rows"][0]["metric"] = record["rows"][0]["metric"] / 2  # still valid JSON
  with open(path, "w", encoding="utf-8") as f:
    json.dump(record, f)
  with pytest.warns(UserWarning, match=re.escape(repr(path)) + ".*digest.*running it again"):
    assert store.load(task) is None
  os.replace(store.path(other), path)  # seed 1's record under seed 0's name
  with pytest.warns(UserWarning, match="digest"):
    assert store.load(task) is None
  store.save(task, result)
  assert store.load(task) == json.loads(json.dumps(result))


def _cli(args, **kw):
  return subprocess.run([sys.executable, "-m", "ospiel_team.cli.compare", *args],
                        capture_output=True, text=True, timeout=600, **kw)


def test_kill_and_resume(tmp_path):
  """A killed run keeps its finished (solver, seed) runs; the rerun does only the rest; a
  finished command rerun recomputes nothing."""
  out = tmp_path / "run"
  args = ["--game", "kuhn_poker", "--solvers", "cfr,cfr_plus,xfp", "--seeds", "3",
          "--iterations", "150", "--workers", "1", "--out", str(out)]
  proc = subprocess.Popen([sys.executable, "-m", "ospiel_team.cli.compare", *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
  runs = out / "runs"
  deadline = time.time() + 300
  while time.time() < deadline and not (runs.exists() and list(runs.glob("*.json"))):
    time.sleep(0.02)
  proc.send_signal(signal.SIGKILL)
  proc.wait()
  kept = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in runs.glob("*.json")}
  assert 1 <= len(kept) < 9, "kill landed before the first or after the last run"
  assert not (out / "results.json").exists()
  assert _cli(args).returncode == 0
  done = {p.name: p.stat().st_mtime_ns for p in runs.glob("*.json")}
  assert len(done) == 9
  for name, (mtime, data) in kept.items():  # not recomputed
    assert done[name] == mtime and (runs / name).read_bytes() == data
  fresh, _ = comparison.run_all("kuhn_poker", ["cfr", "cfr_plus", "xfp"], iterations=150,
                             seeds=[0, 1, 2], progress=False)
  resumed = json.loads((out / "results.json").read_text())["rows"]
  assert _strip(resumed) == _strip(fresh)
  # A finished command rerun: nothing recomputed, the outputs re-rendered.
  before = (out / "results.md").stat().st_mtime_ns
  assert _cli(args).returncode == 0
  assert {p.name: p.stat().st_mtime_ns for p in runs.glob("*.json")} == done
  assert (out / "results.md").stat().st_mtime_ns > before
  assert not [p for p in out.rglob(".tmp*")]  # every write was atomic and completed


def test_workers_use_the_one_cache_folder(tmp_path):
  env = {k: v for k, v in os.environ.items()
         if k not in ("JAX_COMPILATION_CACHE_DIR", "OMP_NUM_THREADS")}
  env["OSPIEL_TEAM_CACHE"] = str(tmp_path / "cache")
  script = ("import os, jax; from ospiel_team.runner import execute; "
            "execute.configure_worker(); "
            "print(os.environ['JAX_COMPILATION_CACHE_DIR'], os.environ['OMP_NUM_THREADS'], "
            "jax.config.jax_compilation_cache_dir)")
  out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                       check=True, timeout=120).stdout.split()
  folder = str(tmp_path / "cache" / "jax_compilation_cache")
  assert out == [folder, "1", folder]
  assert os.path.isdir(folder)


@pytest.mark.slow
def test_same_results_on_ray_local():
  pytest.importorskip("ray", reason="Ray is the optional extra ospiel-team[ray]")
  kwargs = dict(iterations=4, num_points=2, seeds=[0, 1], progress=False)
  inline, _ = comparison.run_all("kuhn_poker", ["cfr", "neural_ed"], workers=1, **kwargs)
  on_ray, _ = comparison.run_all("kuhn_poker", ["cfr", "neural_ed"], workers=2,
                              ray_address="local", **kwargs)
  assert _strip(inline) == _strip(on_ray)
