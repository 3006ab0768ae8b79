r"""Throughput of the bridge dataset builder vs DDS called directly, same machine, same run.

Measures, in one process run and on the same random deals (seed-chunked exactly as the
builder draws them):

1. ``dds_direct_mt``: `dds.dd_tables` (DDS ``CalcAllTables``, 40 deals per call) in this one
   process with DDS's own thread pool (``SetMaxThreads(0)``: one thread per core).
2. ``dds_direct_1t``: the same with one DDS thread (per-core speed).
3. ``builder``: ``make_dataset.build_dataset`` with ``--workers`` processes (default all cores)
   writing chunk files and merging them, i.e. what `ospiel-team-make-dataset`
   does, including process start-up, file writes and the merge.
4. ``builder_ray`` (with ``--ray``): the same with the chunks as tasks on a local Ray instance.

For each it reports wall-clock deals/s and deals per CPU-second (the CPU time of this process
and of its worker processes), which stays meaningful when the machine is shared, plus the load
average during the run. The builder's tables are checked to equal the direct ones.

Usage::

  python benchmarks/bridge_dataset_throughput.py --deals 400 [--workers 2] [--ray] \
      [--json_out results.json]
"""

import json
import os
import resource
import tempfile
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset
from ospiel_team.bridge import dataset_builder as make_dataset
from ospiel_team.bridge import dds

_DEALS = flags.DEFINE_integer("deals", 400, "deals per measurement")
_WORKERS = flags.DEFINE_integer("workers", None, "builder workers (default: all cores)")
_CHUNK = flags.DEFINE_integer("chunk", None, "builder chunk size (default deals / (2 workers))")
_RAY = flags.DEFINE_bool("ray", False, "also measure the builder on a local Ray instance")
_SEED = flags.DEFINE_integer("seed", 12345, "seed of the deals")
_JSON_OUT = flags.DEFINE_string("json_out", None, "write the results as JSON here")


def _cpu_seconds() -> float:
  me = resource.getrusage(resource.RUSAGE_SELF)
  kids = resource.getrusage(resource.RUSAGE_CHILDREN)
  return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _measure(name, fn, num_deals):
  load0 = os.getloadavg()[0]
  cpu0, t0 = _cpu_seconds(), time.perf_counter()
  out = fn()
  wall, cpu = time.perf_counter() - t0, _cpu_seconds() - cpu0
  load1 = os.getloadavg()[0]
  row = {"name": name, "deals": num_deals, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
         "deals_per_s": round(num_deals / wall, 2),
         "deals_per_cpu_s": round(num_deals / cpu, 2) if cpu > 0 else None,
         "load_avg_1min": [round(load0, 2), round(load1, 2)]}
  print(json.dumps(row), flush=True)
  return row, out


def main(argv):
  del argv
  n = _DEALS.value
  workers = _WORKERS.value or os.cpu_count() or 1
  chunk = _CHUNK.value or max(1, n // (2 * workers))
  sizes = make_dataset.chunk_sizes(n, chunk)
  holders = np.concatenate([make_dataset.chunk_holders(_SEED.value, i, s, chunk)
                            for i, s in enumerate(sizes)])
  results = {"cpu_count": os.cpu_count(), "workers": workers, "chunk": chunk,
             "time_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "rows": []}

  dds.set_max_threads(0)
  row, direct = _measure("dds_direct_mt", lambda: dds.dd_tables(holders), n)
  results["rows"].append(row)
  dds.set_max_threads(1)
  row, direct1 = _measure("dds_direct_1t", lambda: dds.dd_tables(holders), n)
  results["rows"].append(row)
  assert np.array_equal(direct, direct1)
  dds.set_max_threads(0)

  with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "bench.npz")
    row, _ = _measure("builder", lambda: make_dataset.build_dataset(
        n, out, seed=_SEED.value, workers=workers, chunk=chunk, progress=False), n)
    results["rows"].append(row)
    built = dataset.load_dataset(out)
    assert np.array_equal(built.holders, holders) and np.array_equal(built.dd_tricks, direct)
    if _RAY.value:
      out_ray = os.path.join(tmp, "bench_ray.npz")
      row, _ = _measure("builder_ray_local", lambda: make_dataset.build_dataset(
          n, out_ray, seed=_SEED.value, chunk=chunk, ray_address="local", progress=False), n)
      row["note"] = "includes starting the local Ray instance; Ray workers' CPU is not counted"
      results["rows"].append(row)
      assert np.array_equal(dataset.load_dataset(out_ray).dd_tricks, direct)
  print(json.dumps(results, indent=1))
  if _JSON_OUT.value:
    atomic_io.write_text(_JSON_OUT.value, json.dumps(results, indent=1))


if __name__ == "__main__":
  app.run(main)
