"""Dataset format, validation, the shipped default dataset, and the resumable builder."""

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team.bridge import dataset
from ospiel_team.bridge import dataset_builder as make_dataset
from ospiel_team.bridge import dds
from ospiel_team.bridge import deal
from tests import repo as tests_repo
from tests.bridge import test_dds

REPO = tests_repo.REPO
# The shipped dataset: built with
#   ospiel-team-make-dataset --deals 50000 --chunk 500 --seed 0 --out OUT
SHIPPED_MIN_DEALS = 50000


def _small(n=6, seed=0):
  holders = deal.random_holders(np.random.default_rng(seed), n)
  tricks = np.random.default_rng(seed).integers(0, 14, (n, 5, 4)).astype(np.uint8)
  return holders, tricks


# ---------------------------------------------------------------------------- shipped data


def test_shipped_dataset_loads_by_default_and_matches_dds():
  ds = dataset.load_dataset()
  assert ds.path == dataset.default_dataset_path()
  assert len(ds) >= SHIPPED_MIN_DEALS
  assert ds.holders.shape == (len(ds), 52) and ds.holders.dtype == np.uint8
  assert ds.dd_tricks.shape == (len(ds), 5, 4) and ds.dd_tricks.dtype == np.uint8
  # Built by the documented command: deals are those of seed 0, chunk 500.
  rng = np.random.default_rng(make_dataset.chunk_seed_sequence(0, 1))
  np.testing.assert_array_equal(ds.holders[500:1000], deal.random_holders(rng, 500))
  # Spot-check tables against single-deal DDS calls (endplay's, not our batched path).
  for i in (0, 39, 40, len(ds) - 1):
    np.testing.assert_array_equal(test_dds.endplay_table(ds.holders[i]), ds.dd_tricks[i],
                                  err_msg=str(i))
  # Random deals: each card is with each seat about 1/4 of the time.
  frac = np.stack([(ds.holders == s).mean(0) for s in range(4)])
  assert np.abs(frac - 0.25).max() < 0.035
  h, t = ds[3]
  assert h.shape == (52,) and t.shape == (5, 4)


# ---------------------------------------------------------------------------- format


def test_save_load_round_trip(tmp_path):
  holders, tricks = _small()
  path = tmp_path / "d.npz"
  dataset.save_dataset(path, holders, tricks, seed=5)
  ds = dataset.load_dataset(path)
  assert len(ds) == 6 and ds.seed == 5
  np.testing.assert_array_equal(ds.holders, holders)
  np.testing.assert_array_equal(ds.dd_tricks, tricks)
  with np.load(path) as z:  # the documented keys, readable by plain numpy
    assert set(z.files) == {"holders", "dd_tricks", "format", "seed", "content_digest"}
    assert str(z["format"]) == dataset.FORMAT_TAG


def _write_raw(path, **arrays):
  np.savez(path, **arrays)
  return path


@pytest.mark.parametrize("mutate,msg", [
    (lambda h, t: (h[:, :51], t), r"'holders' must have shape \(N, 52\)"),
    (lambda h, t: (h.astype(np.int64), t), "'holders' must have dtype uint8"),
    (lambda h, t: (h, t[:, :4]), r"'dd_tricks' must have shape \(N, 5, 4\)"),
    (lambda h, t: (h, t.astype(np.float32)), "'dd_tricks' must have dtype uint8"),
    (lambda h, t: (h[:5], t), "5 deals but 6 double-dummy tables"),
    (lambda h, t: (np.where(np.arange(52) == 7, 4, h).astype(np.uint8), t), "seat 4"),
    (lambda h, t: (h, np.where(np.arange(4) == 2, 14, t).astype(np.uint8)), "14 tricks"),
])
def test_invalid_contents_rejected_naming_file(tmp_path, mutate, msg):
  h, t = mutate(*_small())
  path = _write_raw(tmp_path / "bad.npz", holders=h, dd_tricks=t)
  with pytest.raises(ValueError, match=msg) as e:
    dataset.load_dataset(path)
  assert "bad.npz" in str(e.value)


def test_hand_with_wrong_card_count_rejected(tmp_path):
  h, t = _small()
  h[2, np.flatnonzero(h[2] == 3)[0]] = 1  # W gives a card to E: E 14 cards, W 12
  path = _write_raw(tmp_path / "hand.npz", holders=h, dd_tricks=t)
  with pytest.raises(ValueError, match=r"deal 2: seat E holds 14 cards.*13 distinct cards"):
    dataset.load_dataset(path)


def test_missing_key_and_missing_file(tmp_path):
  h, _ = _small()
  path = _write_raw(tmp_path / "nokey.npz", holders=h)
  with pytest.raises(ValueError, match=r"nokey.npz.*lacks array\(s\) \['dd_tricks'\]"):
    dataset.load_dataset(path)
  with pytest.raises(ValueError, match="does not exist"):
    dataset.load_dataset(tmp_path / "nothing.npz")


def test_truncated_and_corrupted_files_rejected(tmp_path):
  holders, tricks = _small(200)
  path = tmp_path / "good.npz"
  dataset.save_dataset(path, holders, tricks)
  data = path.read_bytes()
  truncated = tmp_path / "truncated.npz"
  truncated.write_bytes(data[: len(data) // 2])
  with pytest.raises(ValueError, match="truncated.npz.*corrupted"):
    dataset.load_dataset(truncated)
  # Flip bytes inside the compressed payload of the first member: zlib / CRC error.
  corrupt = bytearray(data)
  for k in range(100, 140):
    corrupt[k] ^= 0xFF
  bad = tmp_path / "flipped.npz"
  bad.write_bytes(bytes(corrupt))
  with pytest.raises(ValueError, match="flipped.npz.*corrupted"):
    dataset.load_dataset(bad)
  text = tmp_path / "text.npz"
  text.write_text("not a zip archive")
  with pytest.raises(ValueError, match="text.npz.*corrupted"):
    dataset.load_dataset(text)


# ---------------------------------------------------------------------------- builder


def _expected_build(num_deals, seed, chunk):
  """The dataset the documented seeding gives, computed here without the builder."""
  parts = []
  for i, size in enumerate(make_dataset.chunk_sizes(num_deals, chunk)):
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    parts.append(deal.random_holders(rng, size))
  holders = np.concatenate(parts)
  return holders, dds.dd_tables(holders)


def test_builder_killed_mid_run_resumes_only_missing_chunks(tmp_path):
  num_deals, chunk, seed = 20, 2, 3
  out = tmp_path / "killed.npz"
  chunk_dir = str(out) + ".chunks"
  cmd = [sys.executable, "-m", "ospiel_team.cli.make_dataset", "--deals", str(num_deals),
         "--chunk", str(chunk), "--seed", str(seed), "--workers", "1", "--out", str(out),
         "--no_progress"]
  proc = subprocess.Popen(cmd, cwd=REPO, start_new_session=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
  deadline = time.time() + 240
  written = []
  try:
    while time.time() < deadline:
      written = [f for f in os.listdir(chunk_dir) if f.startswith("chunk_")] \
          if os.path.isdir(chunk_dir) else []
      if len(written) >= 2 or proc.poll() is not None:
        break
      time.sleep(0.02)
  finally:
    if proc.poll() is None:
      os.killpg(proc.pid, signal.SIGKILL)  # the builder and its worker, mid-run
    proc.wait()
  assert not out.exists(), "builder finished before it could be killed"
  done = sorted(int(f[6:12]) for f in os.listdir(chunk_dir) if f.endswith(".npz")
                and f.startswith("chunk_"))
  assert 1 <= len(done) < 10
  mtimes = {i: os.stat(make_dataset.chunk_path(chunk_dir, i)).st_mtime_ns for i in done}
  # No half-written chunk is visible: every chunk file present loads and validates.
  for i in done:
    assert len(dataset.load_dataset(make_dataset.chunk_path(chunk_dir, i))) == chunk

  computed = make_dataset.build_dataset(num_deals, str(out), seed=seed, workers=1, chunk=chunk,
                                        keep_chunks=True, progress=False)
  assert computed == [i for i in range(10) if i not in done]
  for i in done:  # finished chunks were not rewritten
    assert os.stat(make_dataset.chunk_path(chunk_dir, i)).st_mtime_ns == mtimes[i]

  resumed = dataset.load_dataset(out)
  holders, tricks = _expected_build(num_deals, seed, chunk)
  np.testing.assert_array_equal(resumed.holders, holders)
  np.testing.assert_array_equal(resumed.dd_tricks, tricks)
  # An uninterrupted build (other worker count) gives the same file contents.
  fresh = tmp_path / "fresh.npz"
  make_dataset.build_dataset(num_deals, str(fresh), seed=seed, workers=2, chunk=chunk,
                             progress=False)
  np.testing.assert_array_equal(dataset.load_dataset(fresh).holders, resumed.holders)
  np.testing.assert_array_equal(dataset.load_dataset(fresh).dd_tricks, resumed.dd_tricks)
  assert not os.path.exists(str(fresh) + ".chunks")
  # A rerun with everything on disk computes nothing.
  assert make_dataset.build_dataset(num_deals, str(out), seed=seed, workers=1, chunk=chunk,
                                    keep_chunks=True, progress=False) == []


def test_builder_grows_reuses_chunks_and_rejects_mixed_seeds(tmp_path):
  out = str(tmp_path / "grow.npz")
  first = make_dataset.build_dataset(4, out, seed=1, workers=1, chunk=3, keep_chunks=True,
                                     progress=False)
  assert first == [0, 1]
  small = dataset.load_dataset(out)
  # Corrupt chunk 0 on disk: it is detected and recomputed, not merged.
  with open(make_dataset.chunk_path(out + ".chunks", 0), "r+b") as f:
    f.truncate(50)
  grown = make_dataset.build_dataset(6, out, seed=1, workers=1, chunk=3, keep_chunks=True,
                                     progress=False)
  assert grown == [0, 1]  # 0 was corrupt, 1 grew from 1 to 3 deals
  big = dataset.load_dataset(out)
  assert len(big) == 6
  np.testing.assert_array_equal(big.holders[:4], small.holders)  # growing keeps old deals
  np.testing.assert_array_equal(big.dd_tricks[:4], small.dd_tricks)
  with pytest.raises(ValueError, match="--seed and --chunk"):
    make_dataset.build_dataset(6, out, seed=2, workers=1, chunk=3, progress=False)
  with pytest.raises(ValueError, match=r"num_deals \(--deals\) must be an integer >= 1"):
    make_dataset.build_dataset(0, out, seed=1, chunk=3, progress=False)


def test_edited_dataset_is_refused_and_an_edited_chunk_recomputed(tmp_path, capsys):
  out = str(tmp_path / "d.npz")
  assert make_dataset.build_dataset(2, out, seed=1, workers=1, chunk=1, keep_chunks=True,
                                    progress=False) == [0, 1]
  built = dataset.load_dataset(out)
  assert built.content_digest is not None
  arrays = atomic_io.read_npz(out)
  arrays["dd_tricks"] = 13 - arrays["dd_tricks"]  # still valid tricks, other answers
  atomic_io.savez(out, **arrays)
  with pytest.raises(errors.DamagedFileError, match=re.escape(repr(out)) + ".*digest"):
    dataset.load_dataset(out)
  os.remove(out)
  chunk0 = make_dataset.chunk_path(out + ".chunks", 0)
  arrays = atomic_io.read_npz(chunk0)
  arrays["dd_tricks"] = 13 - arrays["dd_tricks"]
  del arrays["content_digest"]  # edited, its digest dropped
  atomic_io.savez(chunk0, **arrays)
  capsys.readouterr()
  assert make_dataset.build_dataset(2, out, seed=1, workers=1, chunk=1, progress=False) == [0]
  assert f"recomputing chunk {chunk0}" in capsys.readouterr().err
  again = dataset.load_dataset(out)
  np.testing.assert_array_equal(again.dd_tricks, built.dd_tricks)
  np.testing.assert_array_equal(again.holders, built.holders)


def test_damaged_chunk_manifest_is_one_error_naming_it(tmp_path):
  out = str(tmp_path / "d.npz")
  os.makedirs(out + ".chunks")
  manifest = os.path.join(out + ".chunks", "manifest.json")
  with open(manifest, "w", encoding="utf-8") as f:
    f.write('{"seed": ')  # truncated
  with pytest.raises(errors.DamagedFileError, match=re.escape(repr(manifest)) + ".*remove"):
    make_dataset.build_dataset(2, out, seed=1, workers=1, chunk=1, progress=False)


@pytest.mark.slow
def test_builder_on_local_ray_equals_multiprocessing(tmp_path):
  pytest.importorskip("ray")
  out_ray = str(tmp_path / "ray.npz")
  out_mp = str(tmp_path / "mp.npz")
  make_dataset.build_dataset(8, out_ray, seed=4, chunk=2, ray_address="local", progress=False)
  make_dataset.build_dataset(8, out_mp, seed=4, chunk=2, workers=2, progress=False)
  a, b = dataset.load_dataset(out_ray), dataset.load_dataset(out_mp)
  np.testing.assert_array_equal(a.holders, b.holders)
  np.testing.assert_array_equal(a.dd_tricks, b.dd_tricks)


def test_augmentation_tables_agree_with_dds():
  d = dataset.load_dataset()
  h, t = dataset.augment_deals(d.holders[:2], d.dd_tricks[:2])
  assert h.shape == (192, 52) and t.shape == (192, 5, 4)
  assert len({bytes(x) for x in h}) == 192
  np.testing.assert_array_equal(h[:2], d.holders[:2])  # symmetry 0 is the identity
  idx = [7, 50, 95, 100, 191]
  np.testing.assert_array_equal(dds.dd_tables(h[idx]), t[idx])
  # Rotations only: deal i moved r seats on is row r * 2 + i.
  hr, tr = dataset.augment_deals(d.holders[:2], d.dd_tricks[:2], suit_permutations=False)
  assert hr.shape == (8, 52)
  np.testing.assert_array_equal(hr[2 * 3 + 1], (d.holders[1] + 3) % 4)
  np.testing.assert_array_equal(tr[2 * 3 + 1], np.roll(d.dd_tricks[1], 3, axis=1))
  with pytest.raises(ValueError, match="2 deals but 1 double-dummy tables"):
    dataset.augment_deals(d.holders[:2], d.dd_tricks[:1])


def test_remove_deals_and_load_datasets(tmp_path):
  d = dataset.load_dataset()
  h, t = dataset.remove_deals(d.holders[:10], d.dd_tricks[:10], d.holders[[2, 7, 20]])
  np.testing.assert_array_equal(h, d.holders[[0, 1, 3, 4, 5, 6, 8, 9]])
  np.testing.assert_array_equal(t, d.dd_tricks[[0, 1, 3, 4, 5, 6, 8, 9]])
  a, b = str(tmp_path / "a.npz"), str(tmp_path / "b.npz")
  dataset.save_dataset(a, d.holders[:3], d.dd_tricks[:3])
  dataset.save_dataset(b, d.holders[5:7], d.dd_tricks[5:7], seed=9)
  both = dataset.load_datasets(f"{a},{b}")
  np.testing.assert_array_equal(both.holders, d.holders[[0, 1, 2, 5, 6]])
  np.testing.assert_array_equal(both.dd_tricks, d.dd_tricks[[0, 1, 2, 5, 6]])
  assert dataset.load_datasets([b]).seed == 9
  assert dataset.load_datasets(both) is both
  assert len(dataset.load_datasets(None)) == len(d)
  assert sorted(os.listdir(tmp_path)) == ["a.npz", "b.npz"]  # atomic writes leave no temp file


def test_shipped_training_deals_takes_the_first_deals_without_evaluation_deals():
  full = dataset.resolve_dataset("train")
  part = dataset.shipped_training_deals(300)
  # By hand: the first 300 deals (none of them is a validation / held-out deal), x96.
  h, t = dataset.augment_deals(full.holders[:300], full.dd_tricks[:300])
  assert np.array_equal(part.holders, h) and np.array_equal(part.dd_tricks, t)
  for bad in (0, len(full) + 1):
    with pytest.raises(ValueError, match=f"got {bad}"):
      dataset.shipped_training_deals(bad)
