r"""Builds a dataset of random deals with their double-dummy tables, resumably, on all cores or Ray.

Usage::

  ospiel-team-make-dataset --deals 100000 --out deals.npz \
      [--seed 0] [--workers K] [--chunk 1000] [--ray ADDRESS] [--keep_chunks]

The ``--deals`` deals are cut into chunks of ``--chunk`` deals. Chunk ``i`` draws its deals with
``numpy.random.default_rng(SeedSequence([seed, i]))`` (`deal.random_holders`) and computes their
tables with DDS (`dds.dd_tables`), so the dataset depends only on ``--seed``, ``--chunk`` and
``--deals`` -- not on the number of workers, on Ray, or on interruptions. Each finished chunk
is written atomically (`ospiel_team.atomic_io`) to ``<out>.chunks/chunk_<i>.npz`` in the
format of `ospiel_team.bridge.dataset`; a rerun of the same command skips chunks already on
disk, so a killed run resumes without recomputing finished deals. When all chunks are present
they are merged into ``<out>`` (atomically) and the chunk folder is removed unless
``--keep_chunks`` is given. A rerun whose ``<out>`` already holds exactly the deals these
parameters give does nothing; an ``<out>`` holding another dataset (and no chunk folder to
resume) is an error, never overwritten. Ctrl-C stops the build with one line saying how to
resume; worker processes end with the command (also when it is killed). Growing a dataset:
rerun with a larger ``--deals`` (same seed and chunk size) while keeping the chunks; the old
chunks are reused and only the new ones computed.

Parallelism: by default one process per local core (``--workers``, default ``os.cpu_count()``),
each running DDS single-threaded. With ``--ray ADDRESS`` the chunks run as Ray tasks on the
cluster at ADDRESS (``auto`` for a running cluster, ``local`` to start a local instance); the
driver writes the chunk files. Ray is optional (``pip install ray``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys

import numpy as np
import tqdm

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team import processes
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib


def chunk_seed_sequence(seed: int, index: int) -> np.random.SeedSequence:
  """The seed of chunk `index` of a build with base seed `seed`."""
  return np.random.SeedSequence([int(seed), int(index)])


def chunk_sizes(num_deals: int, chunk: int) -> list[int]:
  """Sizes of the chunks of a build of `num_deals` deals in chunks of `chunk`."""
  n_chunks = math.ceil(num_deals / chunk)
  return [min(chunk, num_deals - i * chunk) for i in range(n_chunks)]


def chunk_holders(seed: int, index: int, size: int, chunk: int) -> np.ndarray:
  """The deals of chunk `index`: the first `size` of the `chunk` deals its seed gives.

  So a partial last chunk is a prefix of the full chunk it becomes when the dataset grows.
  """
  rng = np.random.default_rng(chunk_seed_sequence(seed, index))
  return deal_lib.random_holders(rng, chunk)[:size]


def compute_chunk(seed: int, index: int, size: int, chunk: int) -> tuple[int, np.ndarray,
                                                                          np.ndarray]:
  """Deals and DDS tables of chunk `index` (`size` deals). Runs in a worker process or Ray task."""
  from ospiel_team.bridge import dds
  holders = chunk_holders(seed, index, size, chunk)
  return index, holders, dds.dd_tables(holders)


def _worker_init(parent_pid: int | None = None) -> None:
  from ospiel_team.bridge import dds
  if parent_pid is not None:
    processes.die_with_parent(parent_pid)
  dds.set_max_threads(1)


def _compute_chunk_star(args):
  return compute_chunk(*args)


def chunk_path(chunk_dir: str, index: int) -> str:
  """The file of chunk `index` in `chunk_dir`."""
  return os.path.join(chunk_dir, f"chunk_{index:06d}.npz")


def _manifest_check(chunk_dir: str, seed: int, chunk: int) -> None:
  """Refuses to mix chunks of builds with different seeds or chunk sizes."""
  path = os.path.join(chunk_dir, "manifest.json")
  want = {"seed": int(seed), "chunk": int(chunk), "format": dataset_lib.FORMAT_TAG}
  if os.path.exists(path):
    try:
      with open(path, encoding="utf-8") as f:
        have = json.load(f)
    except (OSError, ValueError) as e:  # UnicodeDecodeError, JSONDecodeError
      raise errors.DamagedFileError(
          f"chunk folder manifest {path!r} is damaged ({type(e).__name__}: {e}); the seed and "
          f"chunk size of its chunks are unknown: remove {chunk_dir!r} to build afresh") from None
    if have != want:
      raise ValueError(f"chunk folder {chunk_dir!r} was built with {have}, but this run asks "
                       f"for {want}; use the same --seed and --chunk or another --out")
  else:
    atomic_io.write_text(path, json.dumps(want))


def _existing_chunk_ok(path: str, size: int) -> bool:
  """True if `path` holds a valid chunk of `size` deals (a corrupt one is recomputed)."""
  try:
    ds = dataset_lib.load_dataset(path)
    if ds.content_digest is None:  # every chunk is written with one: edited or foreign
      raise ValueError(f"chunk {path!r} has no content digest")
  except ValueError as e:
    print(f"warning: recomputing chunk {path}: {e}", file=sys.stderr)
    return False
  return len(ds) == size


def finished_output_matches(out: str, num_deals: int, seed: int, chunk: int) -> bool:
  """True if `out` is a dataset of exactly the deals a build with these parameters gives.

  The deals are regenerated (cheap, no DDS) and compared, so a file built with another seed,
  chunk size or number of deals never counts as finished.
  """
  try:
    ds = dataset_lib.load_dataset(out)
  except ValueError:
    return False
  if len(ds) != num_deals or (ds.seed is not None and ds.seed != seed):
    return False
  expected = np.concatenate([chunk_holders(seed, i, s, chunk)
                             for i, s in enumerate(chunk_sizes(num_deals, chunk))])
  return bool(np.array_equal(ds.holders, expected))


def build_dataset(num_deals: int, out: str, *, seed: int = 0, workers: int | None = None,
                  chunk: int = 1000, ray_address: str | None = None,
                  keep_chunks: bool = False, progress: bool = True) -> list[int]:
  """Builds (or resumes building) a dataset of random deals and their double-dummy tables.

  The deals are computed in chunks of `chunk` deals, each saved under ``out + ".chunks"`` as
  it finishes, so an interrupted build resumes where it stopped; the chunks are then
  concatenated into `out`.

  Args:
    num_deals: the number of deals (>= 1).
    out: the dataset file to write.
    seed: the seed of the deals (>= 0); chunk i's deals depend on (seed, i) only.
    workers: worker processes (None: one per CPU).
    chunk: deals per chunk (>= 1).
    ray_address: compute the chunks as Ray tasks at this address ("local": a local Ray).
    keep_chunks: keep the chunk folder after `out` is written.
    progress: show a progress bar.

  Returns:
    The chunk indices computed by this call (empty when `out` already holds these deals).

  Raises:
    ValueError: a bad argument, or an `out` that holds another dataset.
  """
  _check_build_args(num_deals, seed, chunk, workers)
  checks.check_type("out (--out)", out, (str, os.PathLike), "a file path")
  checks.check_type("ray_address (--ray)", ray_address, (str, type(None)), "an address or None")
  checks.check_bool("keep_chunks", keep_chunks)
  checks.check_bool("progress", progress)
  workers = workers or os.cpu_count() or 1
  out = os.fspath(out)
  atomic_io.check_writable(out)  # also refuses a device, FIFO or socket (e.g. /dev/full)
  chunk_dir = out + ".chunks"
  if os.path.exists(out):
    if finished_output_matches(out, num_deals, seed, chunk):
      print(f"make_dataset: {out} already holds these {num_deals} deals (seed {seed}, chunk "
            f"{chunk}); nothing to do", flush=True)
      return []
    if not os.path.isdir(chunk_dir):
      raise ValueError(f"--out {out!r} already holds another dataset than --deals {num_deals} "
                       f"--seed {seed} --chunk {chunk} give; delete it or choose another --out")
  atomic_io.check_writable(chunk_dir, folder=True)
  os.makedirs(chunk_dir, exist_ok=True)
  _manifest_check(chunk_dir, seed, chunk)
  sizes = chunk_sizes(num_deals, chunk)
  todo = [i for i, s in enumerate(sizes)
          if not (os.path.exists(chunk_path(chunk_dir, i))
                  and _existing_chunk_ok(chunk_path(chunk_dir, i), s))]
  done_deals = num_deals - sum(sizes[i] for i in todo)
  print(f"make_dataset: {num_deals} deals in {len(sizes)} chunks of {chunk}; "
        f"{len(sizes) - len(todo)} chunks already on disk, computing {len(todo)}: "
        f"{todo if len(todo) <= 20 else str(todo[:20])[:-1] + ', ...]'}", flush=True)
  bar = tqdm.tqdm(total=num_deals, initial=done_deals, unit="deal", disable=not progress,
                  desc="DDS tables", smoothing=0.1)

  def _save(result):
    index, holders, tricks = result
    dataset_lib.save_dataset(chunk_path(chunk_dir, index), holders, tricks, seed=seed)
    bar.update(len(holders))

  _compute_chunks([(seed, i, sizes[i], chunk) for i in todo], workers, ray_address, _save)
  bar.close()
  _concatenate_chunks(chunk_dir, sizes, out, seed)
  print(f"make_dataset: wrote {num_deals} deals to {out} "
        f"({os.path.getsize(out) / 1e6:.2f} MB)", flush=True)
  if not keep_chunks:
    shutil.rmtree(chunk_dir)
  return todo


def _check_build_args(num_deals: int, seed: int, chunk: int, workers: int | None) -> None:
  """UserError naming the argument and its flag of a count that is not an integer in its range."""
  for name, v, lo in (("num_deals (--deals)", num_deals, 1), ("chunk (--chunk)", chunk, 1),
                      ("seed (--seed)", seed, 0)):
    checks.check_int(name, v, minimum=lo)
  checks.check_int("workers (--workers)", workers, minimum=1, allow_none=True)


def _compute_chunks(tasks: list[tuple], workers: int, ray_address: str | None, save) -> None:
  """Runs `compute_chunk` on each task (Ray tasks or a spawned pool); `save`s each result."""
  if tasks and ray_address:
    _run_ray(tasks, ray_address, save)
  elif tasks:
    with processes.spawn_pool(min(workers, len(tasks)), _worker_init,
                              (os.getpid(),)) as pool:
      for result in pool.imap_unordered(_compute_chunk_star, tasks):
        save(result)


def _concatenate_chunks(chunk_dir: str, sizes: list[int], out: str, seed: int) -> None:
  """Writes the chunks of `chunk_dir`, in order, as one dataset `out`."""
  holders = []
  tricks = []
  for i, s in enumerate(sizes):
    ds = dataset_lib.load_dataset(chunk_path(chunk_dir, i))
    if len(ds) != s:
      raise ValueError(f"chunk {chunk_path(chunk_dir, i)!r} has {len(ds)} deals, expected {s}")
    holders.append(ds.holders)
    tricks.append(ds.dd_tricks)
  dataset_lib.save_dataset(out, np.concatenate(holders), np.concatenate(tricks), seed=seed)


def _run_ray(tasks, address: str, save) -> None:
  """Runs the chunk tasks as Ray tasks at `address`; `save` is called as each one finishes."""
  try:
    import ray
  except ImportError as e:
    raise ImportError("--ray needs Ray: pip install 'ospiel_team[ray]' (or pip install ray)"
                      ) from e
  started_here = not ray.is_initialized()
  if started_here:
    # Workers must be able to import ospiel_team (pip install it on every node).
    ray.init(address=None if address == "local" else address, include_dashboard=False,
             log_to_driver=False)

  @ray.remote(num_cpus=1)
  def _ray_chunk(args):
    _worker_init()
    return compute_chunk(*args)

  try:
    pending = [_ray_chunk.remote(t) for t in tasks]
    while pending:
      ready, pending = ray.wait(pending, num_returns=1)
      save(ray.get(ready[0]))
  finally:
    if started_here:
      ray.shutdown()
