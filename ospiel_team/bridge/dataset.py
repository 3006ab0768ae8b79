"""Datasets of bridge deals with their double-dummy tables: on-disk format, loading, validation.

On-disk format (one NumPy ``.npz`` archive, written with `numpy.savez_compressed`, readable
with ``numpy.load(path, allow_pickle=False)``):

==============  ===============  =====  ==========================================================
key             shape            dtype  meaning
==============  ===============  =====  ==========================================================
``holders``     (N, 52)          uint8  ``holders[i, card]`` = seat (0=N, 1=E, 2=S, 3=W) holding
                                        ``card = rank * 4 + suit`` (suits 0=C, 1=D, 2=H, 3=S;
                                        ranks 0='2' .. 12='A'), OpenSpiel `bridge`'s convention;
                                        each seat holds exactly 13 cards.
``dd_tricks``   (N, 5, 4)        uint8  ``dd_tricks[i, strain, declarer]`` = double-dummy tricks
                                        0..13 of declarer's side, strain 0=C, 1=D, 2=H, 3=S,
                                        4=NT, declarer 0=N .. 3=W (see `ospiel_team.bridge.dds`).
``format``      ()               str    ``"ospiel_team.bridge.dataset/1"`` (optional on read).
``seed``        ()               int64  base seed the builder used (optional, informational).
==============  ===============  =====  ==========================================================

A file written by `save_dataset` also holds ``content_digest`` (a str): the SHA-256 of the other
arrays (`atomic_io.content_digest`, names sorted), checked on read when present (the shipped
datasets predate it).

The builder (`ospiel-team-make-dataset`) writes chunk files in the same format
into ``<out>.chunks/`` and merges them into the single archive ``<out>``.

`load_dataset(path=None)` loads a dataset (``None`` = the shipped default,
`default_dataset_path()`) and validates it: keys present, shapes and dtypes, seats 0..3,
tricks 0..13, and that each hand of each deal holds 13 distinct cards. A corrupted, truncated
or malformed file, or one whose arrays do not match its digest (edited), raises `ValueError`
naming the file and the problem.
"""

from __future__ import annotations

import os

import numpy as np

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import shipped_digests

FORMAT_TAG = "ospiel_team.bridge.dataset/1"
DEFAULT_DATASET_NAME = "deals_dds.npz"
PathLike = str | os.PathLike


# Shipped datasets by name (files in ospiel_team/bridge/data/), each built by
# `ospiel-team-make-dataset --chunk 500 --seed S --deals N --out FILE` (the seed is stored in
# the file): train: seed 0, 50,000 deals (the default dataset; its first 10,000 are the earlier
# 10,000-deal set); validation: seed 1, 1,000 deals (model selection); heldout: seed 2, 2,000
# deals (final evaluation only, never trained on); heldout2: seed 20261123, 4,000 deals (a
# second, fresh evaluation set for the pre-registered replication in
# docs/bridge.md; never trained on nor used for selection). Different seeds
# make them disjoint (tests/bridge/test_data_split.py checks it, also under the 96
# seat-rotation x suit-permutation symmetries of `deal.symmetric_deals`).
NAMED_DATASETS = {"train": DEFAULT_DATASET_NAME, "validation": "validation_dds.npz",
                  "heldout": "heldout_dds.npz", "heldout2": "heldout2_dds.npz"}


def named_dataset_path(name: str) -> str:
  """Path of a shipped dataset by name ('train', 'validation', 'heldout', 'heldout2')."""
  if name not in NAMED_DATASETS:
    raise ValueError(f"unknown dataset name {name!r}; shipped: {sorted(NAMED_DATASETS)}")
  return os.path.join(os.path.dirname(default_dataset_path()), NAMED_DATASETS[name])


def resolve_dataset(name_or_path: PathLike | None) -> BridgeDataset:
  """Loads a shipped dataset by name or path.

  Loads a shipped dataset by name ('train', 'validation', 'heldout', 'heldout2'), a path,
  or None (the default training dataset).

  Args:
    name_or_path: a shipped dataset's name, a file path, or None.

  Returns:
    The `BridgeDataset`.
  """
  checks.check_type("name_or_path", name_or_path, (str, os.PathLike, type(None)),
                    "a dataset name, a file path or None")
  if isinstance(name_or_path, str) and name_or_path in NAMED_DATASETS:
    return load_dataset(named_dataset_path(name_or_path))
  return load_dataset(name_or_path)


def default_dataset_path() -> str:
  """Path of the dataset shipped inside the package (ospiel_team/bridge/data/deals_dds.npz)."""
  return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", DEFAULT_DATASET_NAME)


class BridgeDataset:
  """Deals and their double-dummy tables: `.holders` (N, 52) uint8, `.dd_tricks` (N, 5, 4) uint8."""

  def __init__(self, holders: np.ndarray, dd_tricks: np.ndarray, *, path: str | None = None,
               seed: int | None = None):
    checks.check_type("path", path, (str, type(None)), "a file path or None")
    checks.check_int("seed", seed, allow_none=True)
    validate_arrays(holders, dd_tricks, source=path or "arrays")
    self.holders = np.asarray(holders, dtype=np.uint8)
    self.dd_tricks = np.asarray(dd_tricks, dtype=np.uint8)
    self.path = path
    self.seed = seed
    self.content_digest: str | None = None  # the file's digest (`load_dataset`), if it had one

  def __len__(self) -> int:
    return int(self.holders.shape[0])

  def __getitem__(self, i):
    """(holders, dd_tricks) of deal(s) `i` (an int, slice or index array)."""
    return self.holders[i], self.dd_tricks[i]

  def __repr__(self) -> str:
    return f"BridgeDataset({len(self)} deals, path={self.path!r})"


def validate_arrays(holders, dd_tricks, source: str = "arrays") -> None:
  """Raises ValueError (naming `source`) unless the arrays satisfy the documented format."""
  h = np.asarray(holders)
  t = np.asarray(dd_tricks)
  if h.ndim != 2 or h.shape[1] != deal_lib.NUM_CARDS:
    raise ValueError(f"{source}: 'holders' must have shape (N, 52), got {h.shape}")
  if h.dtype != np.uint8:
    raise ValueError(f"{source}: 'holders' must have dtype uint8, got {h.dtype}")
  if t.ndim != 3 or t.shape[1:] != (5, 4):
    raise ValueError(f"{source}: 'dd_tricks' must have shape (N, 5, 4), got {t.shape}")
  if t.dtype != np.uint8:
    raise ValueError(f"{source}: 'dd_tricks' must have dtype uint8, got {t.dtype}")
  if h.shape[0] != t.shape[0]:
    raise ValueError(f"{source}: {h.shape[0]} deals but {t.shape[0]} double-dummy tables")
  if h.size and h.max() > 3:
    i, c = np.argwhere(h > 3)[0]
    raise ValueError(f"{source}: deal {i} card {c} has seat {h[i, c]}, not in 0..3")
  if t.size and t.max() > 13:
    i, s, d = np.argwhere(t > 13)[0]
    raise ValueError(f"{source}: deal {i} strain {s} declarer {d} has {t[i, s, d]} tricks, "
                     "not in 0..13")
  try:
    deal_lib.validate_holders(h, name=f"{source}: 'holders'")
  except ValueError as e:
    # Every card has exactly one holder by construction, so 13 cards per seat == 13 distinct.
    raise ValueError(f"{e} (each hand must hold 13 distinct cards)") from None


def load_dataset(path: PathLike | None = None) -> BridgeDataset:
  """Loads and validates a dataset `.npz`; `path=None` loads the shipped default.

  Args:
    path: the `.npz` file (None: the shipped training dataset).

  Returns:
    The `BridgeDataset`.

  Raises:
    ValueError: naming the file when it is missing, damaged or not a dataset (an
      `errors.UserError` naming `path` when it is no path).
  """
  checks.check_type("path", path, (str, os.PathLike, type(None)), "a file path or None")
  path = default_dataset_path() if path is None else os.fspath(path)
  if not os.path.exists(path):
    raise ValueError(f"bridge dataset file {path!r} does not exist")
  if os.path.isdir(path):
    raise ValueError(f"bridge dataset {path!r} is a directory, expected an .npz file")
  try:
    with np.load(path, allow_pickle=False) as z:
      keys = set(z.files)
      missing = {"holders", "dd_tricks"} - keys
      if missing:
        raise ValueError(f"bridge dataset {path!r} lacks array(s) {sorted(missing)} "
                         f"(has {sorted(keys)})")
      holders = z["holders"]
      dd_tricks = z["dd_tricks"]
      if "format" in keys and str(z["format"]) != FORMAT_TAG:
        raise ValueError(f"bridge dataset {path!r} has format {str(z['format'])!r}, "
                         f"expected {FORMAT_TAG!r}")
      arrays = {k: z[k] for k in keys}
      shipped_digests.check(path, arrays, "bridge dataset")
      shipped_digests.check_own(path, arrays, "bridge dataset")
      seed = int(z["seed"]) if "seed" in keys else None
      own = arrays.get(shipped_digests.OWN_DIGEST)
      digest = None if own is None else str(own)
      listed = shipped_digests.shipped_digest(path) is not None
  except ValueError as e:
    if str(path) in str(e) or isinstance(e, shipped_digests.DigestTableError):
      raise
    raise ValueError(f"bridge dataset {path!r} is corrupted or not an .npz archive: {e}") from e
  except Exception as e:  # zipfile.BadZipFile, zlib.error, EOFError, OSError on truncation
    raise ValueError(f"bridge dataset {path!r} is corrupted or truncated "
                     f"({type(e).__name__}: {e})") from e
  ds = BridgeDataset(holders, dd_tricks, path=path, seed=seed)
  if digest is None and not listed:
    spot_check(path, ds.holders, ds.dd_tricks)
  ds.content_digest = digest  # None: a file without a digest (the shipped datasets)
  return ds


# Deals of a dataset without a digest whose double-dummy tables are recomputed on load.
SPOT_CHECK_DEALS = 3


def spot_check(path: str, holders: np.ndarray, dd_tricks: np.ndarray,
               num_deals: int = SPOT_CHECK_DEALS) -> None:
  """Recomputes the double-dummy tables of a few deals of a file without a digest (DDS).

  A dataset the package writes carries its own digest, and the shipped ones are listed in
  `shipped_digests`; an older or hand-made file has neither, so `num_deals` of its deals,
  drawn from its content (the same deals for the same file), are solved again by DDS (about
  0.3-0.5 CPU s each) and compared with the tables the file holds. A file whose tables were
  edited on a fraction f of its deals is caught with probability about 1 - (1 - f)^num_deals.

  Raises:
    errors.DamagedFileError: naming the file and the first deal whose table differs.
  """
  n = holders.shape[0]
  if n == 0 or num_deals <= 0:
    return
  from ospiel_team import errors
  from ospiel_team.bridge import dds
  seed = int(atomic_io.content_digest({"holders": holders[:64]})[:8], 16)
  picks = np.sort(np.random.default_rng(seed).choice(n, min(num_deals, n), replace=False))
  solved = dds.dd_tables(holders[picks])
  for i, table in zip(picks, solved, strict=True):
    if not np.array_equal(table, dd_tricks[i]):
      raise errors.DamagedFileError(
          f"bridge dataset {path!r} has no digest, and the double-dummy table of its deal {i} "
          "differs from DDS's: the file was edited or damaged (rebuild it with "
          "ospiel-team-make-dataset)")


def save_dataset(path: PathLike, holders: np.ndarray, dd_tricks: np.ndarray,
                 *, seed: int | None = None) -> None:
  """Validates and writes a dataset atomically (`atomic_io.savez`, compressed).

  Args:
    path: the `.npz` file to write.
    holders: (n, 52) the deals.
    dd_tricks: (n, 5, 4) their double-dummy tricks.
    seed: the seed the deals were drawn with, stored when given.

  Raises:
    errors.UserError: `path` is not a path, `seed` not an integer >= 0 or None, or the arrays
      not a dataset (`validate_arrays`).
  """
  checks.check_type("path", path, (str, os.PathLike), "a file path")
  seed = checks.check_int("seed", seed, minimum=0, allow_none=True)
  path = os.fspath(path)
  validate_arrays(holders, dd_tricks, source=path)
  arrays = {"holders": np.asarray(holders, np.uint8), "dd_tricks": np.asarray(dd_tricks, np.uint8),
            "format": np.array(FORMAT_TAG)}
  if seed is not None:
    arrays["seed"] = np.asarray(np.int64(seed))
  atomic_io.savez(path, compressed=True, **shipped_digests.with_own_digest(arrays))


def load_datasets(paths) -> BridgeDataset:
  """One dataset from paths, a `BridgeDataset`, or the shipped default.

  One dataset from a path, a comma-separated list of paths, a list of paths, a
  `BridgeDataset` (returned as is), or None / "" (the shipped default); several are
  concatenated in the given order.
  """
  if isinstance(paths, BridgeDataset):
    return paths
  if paths is None or (isinstance(paths, str) and not paths):
    return load_dataset(None)
  if isinstance(paths, str):
    paths = [p for p in paths.split(",") if p]
  parts = [load_dataset(p) for p in paths]
  if not parts:
    raise ValueError(f"no dataset paths in {paths!r}")
  if len(parts) == 1:
    return parts[0]
  return BridgeDataset(np.concatenate([p.holders for p in parts]),
                       np.concatenate([p.dd_tricks for p in parts]))


def augment_deals(holders: np.ndarray, dd_tricks: np.ndarray, *, rotations: bool = True,
                  suit_permutations: bool = True) -> tuple[np.ndarray, np.ndarray]:
  """Deals and their DDS tables under seat rotations and suit permutations (up to 96 per deal).

  The images of `deal.symmetric_deals` with the tables of `deal.symmetric_dd_tricks` (no DDS
  work), concatenated symmetry by symmetry: row ``j * n + i`` is deal ``i`` under symmetry
  ``j`` (suit permutation major, rotation minor; ``j = 0`` the deals themselves).

  Args:
    holders: (n, 52) deals.
    dd_tricks: (n, 5, 4) their double-dummy tables.
    rotations: include the 4 seat rotations.
    suit_permutations: include the 24 suit permutations.

  Returns:
    (holders (S * n, 52) uint8, dd_tricks (S * n, 5, 4)).
  """
  h = deal_lib.symmetric_deals(holders, rotations, suit_permutations)
  t = deal_lib.symmetric_dd_tricks(dd_tricks, rotations, suit_permutations)
  if t.shape[1] != h.shape[1]:
    raise ValueError(f"{h.shape[1]} deals but {t.shape[1]} double-dummy tables")
  return h.reshape(-1, deal_lib.NUM_CARDS), t.reshape((-1,) + t.shape[2:])


def remove_deals(holders: np.ndarray, dd_tricks: np.ndarray, exclude_holders: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
  """Drops the deals that also appear in `exclude_holders`.

  Drops the deals (and their tables) that also appear in `exclude_holders` (same 52
  holders; a deal equal to an excluded one only up to symmetry stays).
  """
  ex = {bytes(r) for r in np.asarray(exclude_holders, np.uint8)}
  keep = np.array([bytes(r) not in ex for r in np.asarray(holders, np.uint8)], bool)
  return holders[keep], dd_tricks[keep]


# The shipped sets that nothing trains on (model selection and final evaluation).
EVALUATION_DATASETS = ("validation", "heldout", "heldout2")


def shipped_training_deals(num_deals: int | None = None) -> BridgeDataset:
  """The shipped training deals, minus any evaluation deal, augmented x96 (`augment_deals`).

  What the experiments train on: the first `num_deals` deals of the shipped ``train`` set (all
  if None), without any deal of the ``validation``, ``heldout`` and ``heldout2`` sets, under
  the 4 seat rotations and 24 suit permutations.

  Args:
    num_deals: how many training deals to start from, 1 to the set's size (None: all).

  Raises:
    ValueError: `num_deals` outside that range.
  """
  ds = resolve_dataset("train")
  if num_deals is not None and not 1 <= num_deals <= len(ds):
    raise ValueError(f"num_deals must be in [1, {len(ds)}], got {num_deals}")
  h, t = ds.holders[:num_deals], ds.dd_tricks[:num_deals]
  for name in EVALUATION_DATASETS:
    h, t = remove_deals(h, t, resolve_dataset(name).holders)
  return BridgeDataset(*augment_deals(h, t))
