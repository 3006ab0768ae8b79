"""The shipped train / validation / held-out deal sets: reproducible from their seeds and
disjoint, also under the 96 seat-rotation x suit-permutation symmetries of augmentation."""
import numpy as np
import pytest

from ospiel_team.bridge import a2c
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import make_dataset

SIZES = {"train": 10_000, "validation": 1_000, "heldout": 2_000}
CHUNK = 500  # the --chunk of the documented build commands


@pytest.fixture(scope="module")
def sets():
  return {name: dataset_lib.resolve_dataset(name) for name in SIZES}


def test_sizes_and_seeds(sets):
  for name, ds in sets.items():
    assert len(ds) == SIZES[name], name
    assert ds.seed == dataset_lib.NAMED_DATASET_SEEDS[name], name


def test_deals_regenerate_from_their_seeds(sets):
  """Deal j of chunk i is what make_dataset draws from SeedSequence([seed, i]): rebuilding the
  first and last chunk's deals (without DDS) gives the shipped ones."""
  for name, ds in sets.items():
    seed = dataset_lib.NAMED_DATASET_SEEDS[name]
    last = len(ds) // CHUNK - 1
    for i in (0, last):
      expect = make_dataset.chunk_holders(seed, i, CHUNK, CHUNK)
      np.testing.assert_array_equal(ds.holders[i * CHUNK:(i + 1) * CHUNK], expect, name)


def test_canonical_keys_agree_with_augmentation():
  ds = dataset_lib.load_dataset()
  h, _ = a2c.augment_deals(ds.holders[:3], ds.dd_tricks[:3])  # 3 x 96 transformed deals
  keys = deal_lib.canonical_keys(h)
  base = deal_lib.canonical_keys(ds.holders[:3])
  for k in range(3):
    assert set(keys[k::3].tolist()) <= {base[k]}  # augment_deals orders perm-major
  assert len(set(keys.tolist())) == 3


def test_no_held_out_deal_is_in_training_under_any_symmetry(sets):
  keys = {name: set(deal_lib.canonical_keys(ds.holders).tolist()) for name, ds in sets.items()}
  for name in SIZES:
    assert len(keys[name]) == SIZES[name], f"{name} repeats a deal up to symmetry"
  names = sorted(SIZES)
  for i, a in enumerate(names):
    for b in names[i + 1:]:
      assert not keys[a] & keys[b], f"{a} and {b} share a deal up to symmetry"


def test_the_check_would_see_a_leak(sets):
  """A rotated, suit-permuted copy of a training deal is caught by the key comparison."""
  import itertools  # pylint: disable=g-import-not-at-top
  train = sets["train"].holders
  perm = list(itertools.permutations(range(4)))[17]
  maps = deal_lib.symmetry_card_maps()[17]
  leaked = np.empty(52, np.int64)
  leaked[maps] = train[123]
  leaked = ((leaked + 3) % 4).astype(np.uint8)
  assert perm != (0, 1, 2, 3) and not (leaked == train[123]).all()
  train_keys = set(deal_lib.canonical_keys(train[100:200]).tolist())
  assert deal_lib.canonical_keys(leaked[None])[0] in train_keys
