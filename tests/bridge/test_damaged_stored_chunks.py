"""Damaged files of the bridge jobs' resumable stores are never used and never a traceback.

A stored batch of match boards or a finished chunk of a cost-dataset build that is empty,
truncated or bit-flipped is computed again with a warning naming the file (the results equal
those of an undamaged run); a damaged cost dataset is one ValueError naming the file. Before,
each ended in an EOFError / BadZipFile / Bad CRC-32 traceback without the file's name.
"""
import os
import re
import shutil
import struct
import zipfile

import numpy as np
import pytest

import ospiel_team  # noqa: F401
from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import uncontested_costs
from ospiel_team.bridge.agents.evaluation import match

_DAMAGES = ["empty", "truncated", "bit_flipped"]


def _damage(path, damage):
  data = open(path, "rb").read()
  if damage == "empty":
    data = b""
  elif damage == "truncated":
    data = data[:len(data) // 2]
  else:  # a bit in the middle of the first member's (stored or deflated) data
    with zipfile.ZipFile(path) as z:
      info = z.infolist()[0]
    name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:
                                                    info.header_offset + 30])
    at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
    data = data[:at] + bytes([data[at] ^ 0x08]) + data[at + 1:]
  with open(path, "wb") as f:
    f.write(data)


def _same(r1, r2):
  for f in ("deal_index", "ns_score_table1", "ns_score_table2", "imps"):
    np.testing.assert_array_equal(getattr(r1, f), getattr(r2, f))
  assert r1.auctions_table1 == r2.auctions_table1 and r1.contracts_table2 == r2.contracts_table2


@pytest.mark.parametrize("damage", _DAMAGES)
def test_a_damaged_stored_batch_of_boards_is_played_again(tmp_path, capsys, damage):
  ds = dataset_lib.load_dataset()
  fresh = match.run_match("natural", "random", 16, dataset=ds, seed=3, batch_boards=8,
                          progress=False)
  store = tmp_path / "boards"
  match.run_match("natural", "random", 16, dataset=ds, seed=3, batch_boards=8,
                  progress=False, results_dir=str(store))
  bad = store / "boards_0000008_0000016.npz"
  _damage(bad, damage)
  capsys.readouterr()
  resumed = match.run_match("natural", "random", 16, dataset=ds, seed=3, batch_boards=8,
                            progress=False, results_dir=str(store))
  _same(resumed, fresh)
  err = capsys.readouterr().err
  assert f"warning: playing the boards again: stored boards {str(bad)!r}" in err
  assert atomic_io.read_npz(str(bad))["ns_score_table1"].shape == (8,)  # stored again


def test_an_edited_or_foreign_batch_of_boards_is_played_again(tmp_path, capsys):
  """A batch rewritten as a valid .npz with other scores, or another match's batch under this
  match's name, fails its digest: played again, the result of an undamaged match."""
  ds = dataset_lib.load_dataset()
  args = dict(dataset=ds, batch_boards=8, progress=False)
  fresh = match.run_match("natural", "random", 16, seed=3, **args)
  store, other = tmp_path / "boards", tmp_path / "other"
  match.run_match("natural", "random", 16, seed=3, results_dir=str(store), **args)
  match.run_match("natural", "random", 16, seed=4, results_dir=str(other), **args)
  edited, foreign = store / "boards_0000000_0000008.npz", store / "boards_0000008_0000016.npz"
  arrays = atomic_io.read_npz(str(edited))
  arrays["ns_score_table1"] = arrays["ns_score_table1"] + 100  # a valid file, other scores
  atomic_io.savez(str(edited), **arrays)
  shutil.copy(other / foreign.name, foreign)
  (store / "key.json").write_text("{")  # damaged: written again
  capsys.readouterr()
  resumed = match.run_match("natural", "random", 16, seed=3, results_dir=str(store), **args)
  _same(resumed, fresh)
  err = capsys.readouterr().err
  assert f"match key {str(store / 'key.json')!r} is damaged" in err
  for path in (edited, foreign):
    assert f"stored boards {str(path)!r} do not match their digest" in err
  again = match.run_match("natural", "random", 16, seed=3, results_dir=str(store), **args)
  _same(again, fresh)
  assert "warning" not in capsys.readouterr().err  # stored again, read back


@pytest.fixture(scope="module")
def cost_build(tmp_path_factory):
  """A 2-pair, 1-redeal cost dataset built in chunks of 1, its chunks kept."""
  folder = tmp_path_factory.mktemp("cost")
  out = str(folder / "cost.npz")
  data = uncontested_costs.build_cost_dataset(2, out, k=1, seed=7, chunk=1, progress=False,
                                              keep_chunks=True)
  return out, data


@pytest.mark.parametrize("damage", _DAMAGES)
def test_a_damaged_chunk_of_a_cost_build_is_computed_again(tmp_path, capsys, cost_build,
                                                          damage):
  out, data = cost_build
  chunks = tmp_path / "again.npz.chunks"
  shutil.copytree(out + ".chunks", chunks)
  bad = chunks / sorted(os.listdir(chunks))[0]
  _damage(bad, damage)
  capsys.readouterr()
  again = uncontested_costs.build_cost_dataset(2, str(tmp_path / "again.npz"), k=1, seed=7,
                                               chunk=1, progress=False)
  for key, value in data.items():
    np.testing.assert_array_equal(again[key], value, err_msg=key)
  assert f"warning: recomputing chunk {bad}: chunk {str(bad)!r} cannot be read" in (
      capsys.readouterr().err)


@pytest.mark.parametrize("damage", _DAMAGES)
def test_a_damaged_cost_dataset_is_one_value_error_naming_it(tmp_path, cost_build, damage):
  path = tmp_path / "cost.npz"
  shutil.copy(cost_build[0], path)
  _damage(path, damage)
  with pytest.raises(ValueError, match=f"cost dataset {str(path)!r} cannot be read"):
    uncontested_costs.load_cost_dataset(str(path))


def test_an_edited_or_other_seed_chunk_of_a_cost_build_is_computed_again(tmp_path, capsys,
                                                                         cost_build):
  """A chunk rewritten with other valid tricks, or a chunk of another seed, fails its digest."""
  out, data = cost_build
  chunks = tmp_path / "again.npz.chunks"
  shutil.copytree(out + ".chunks", chunks)
  first, second = (chunks / name for name in sorted(os.listdir(chunks)))
  arrays = atomic_io.read_npz(str(first))
  arrays["dd_tricks"] = 13 - arrays["dd_tricks"]  # valid tricks, other costs
  atomic_io.savez(str(first), **arrays)
  other = tmp_path / "other.npz"
  uncontested_costs.build_cost_dataset(2, str(other), k=1, seed=8, chunk=1, progress=False,
                                       keep_chunks=True)
  shutil.copy(str(other) + ".chunks/" + second.name, second)  # same name, seed 8
  capsys.readouterr()
  again = uncontested_costs.build_cost_dataset(2, str(tmp_path / "again.npz"), k=1, seed=7,
                                               chunk=1, progress=False)
  for key, value in data.items():
    np.testing.assert_array_equal(again[key], value, err_msg=key)
  err = capsys.readouterr().err
  for path in (first, second):
    assert f"chunk {str(path)!r} does not match its digest" in err


def test_an_edited_cost_dataset_is_refused(tmp_path, cost_build):
  path = str(tmp_path / "cost.npz")
  arrays = atomic_io.read_npz(cost_build[0])
  arrays["dd_tricks"] = 13 - arrays["dd_tricks"]
  atomic_io.savez(path, **arrays)
  with pytest.raises(errors.DamagedFileError, match=re.escape(repr(path)) + ".*digest"):
    uncontested_costs.load_cost_dataset(path)
  assert uncontested_costs.load_cost_dataset(cost_build[0])["dd_tricks"].shape == (2, 1, 5, 4)
