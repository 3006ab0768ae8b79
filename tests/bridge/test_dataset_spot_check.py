"""A bridge dataset without a digest is spot-checked by DDS on load, and a damaged digest table
is reported as itself (not blamed on the dataset being loaded)."""

import re

import numpy as np
import pytest

from ospiel_team import errors
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import shipped_digests


def _write_without_digest(path, holders, tricks):
  np.savez(path, holders=holders, dd_tricks=tricks, format=np.array(dataset_lib.FORMAT_TAG))


@pytest.fixture(scope="module")
def shipped():
  return dataset_lib.load_dataset()


def test_a_file_without_a_digest_loads_when_its_tables_are_dds(tmp_path, shipped):
  path = tmp_path / "old.npz"
  _write_without_digest(path, shipped.holders[:3], shipped.dd_tricks[:3])
  ds = dataset_lib.load_dataset(path)
  assert ds.content_digest is None and len(ds) == 3
  np.testing.assert_array_equal(ds.dd_tricks, shipped.dd_tricks[:3])


def test_an_edited_table_in_a_file_without_a_digest_is_refused(tmp_path, shipped):
  tricks = shipped.dd_tricks[:3].copy()
  tricks[1, 4, 0] = 13 - tricks[1, 4, 0] if tricks[1, 4, 0] != 6 else 7  # NT by North edited
  path = tmp_path / "edited.npz"
  _write_without_digest(path, shipped.holders[:3], tricks)
  with pytest.raises(errors.DamagedFileError,
                     match=re.escape(f"bridge dataset {str(path)!r} has no digest, and the "
                                     "double-dummy table of its deal 1 differs from DDS's")):
    dataset_lib.load_dataset(path)
  # The same arrays written by the package carry a digest: no spot check, the digest decides.
  dataset_lib.save_dataset(tmp_path / "own.npz", shipped.holders[:3], tricks)
  assert dataset_lib.load_dataset(tmp_path / "own.npz").content_digest is not None


def test_a_damaged_digest_table_is_reported_as_itself(tmp_path, monkeypatch):
  bad = tmp_path / "shipped_digests.json"
  bad.write_text("{ not json")
  monkeypatch.setattr(shipped_digests, "TABLE", str(bad))
  shipped_digests._table.cache_clear()
  try:
    with pytest.raises(shipped_digests.DigestTableError) as e:
      dataset_lib.load_dataset()  # the shipped dataset, checked against the table
  finally:
    shipped_digests._table.cache_clear()
  message = str(e.value)
  assert message.startswith(f"the package's digest table {str(bad)!r} is missing or damaged")
  assert dataset_lib.DEFAULT_DATASET_NAME not in message  # not blamed on the dataset
