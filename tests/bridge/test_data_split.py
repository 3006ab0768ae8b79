"""The shipped train / validation / held-out / second held-out deal sets: reproducible from their
seeds and disjoint, also under the 96 seat-rotation x suit-permutation symmetries of
augmentation (and the held-out sets also from the whole 50,000-deal seed-0 training build)."""
import numpy as np
import pytest

from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import dataset_builder as make_dataset
from ospiel_team.bridge import deal as deal_lib

SIZES = {"train": 50_000, "validation": 1_000, "heldout": 2_000, "heldout2": 4_000}
SEEDS = {"train": 0, "validation": 1, "heldout": 2, "heldout2": 20261123}  # documented builds
TRAIN_BUILD_DEALS = 50_000  # the growing training build: make_dataset --deals 50000 --seed 0
CHUNK = 500  # the --chunk of the documented build commands


@pytest.fixture(scope="module")
def sets():
  return {name: dataset_lib.resolve_dataset(name) for name in SIZES}


def test_sizes_and_seeds(sets):
  for name, ds in sets.items():
    assert len(ds) == SIZES[name], name
    assert ds.seed == SEEDS[name], name


def test_deals_regenerate_from_their_seeds(sets):
  """Deal j of chunk i is what make_dataset draws from SeedSequence([seed, i]): rebuilding the
  first and last chunk's deals (without DDS) gives the shipped ones."""
  for name, ds in sets.items():
    seed = SEEDS[name]
    last = len(ds) // CHUNK - 1
    for i in (0, last):
      expect = make_dataset.chunk_holders(seed, i, CHUNK, CHUNK)
      np.testing.assert_array_equal(ds.holders[i * CHUNK:(i + 1) * CHUNK], expect, name)


def transformed(holders: np.ndarray, perm, rotation: int) -> np.ndarray:
  """The deal with suit s renamed perm[s] (ranks kept) and every card moved `rotation` seats
  on, written out card by card."""
  out = np.empty(52, np.uint8)
  for card in range(52):
    out[(card // 4) * 4 + perm[card % 4]] = (holders[card] + rotation) % 4
  return out


def test_canonical_keys_agree_with_augmentation():
  ds = dataset_lib.load_dataset()
  h, _ = dataset_lib.augment_deals(ds.holders[:3], ds.dd_tricks[:3])  # 3 x 96 transformed deals
  keys = deal_lib.canonical_keys(h)
  base = deal_lib.canonical_keys(ds.holders[:3])
  for k in range(3):
    assert set(keys[k::3].tolist()) <= {base[k]}  # augment_deals: symmetry-major
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
  train = sets["train"].holders
  leaked = transformed(train[123], (3, 0, 2, 1), 3)
  assert not (leaked == train[123]).all()
  train_keys = set(deal_lib.canonical_keys(train[100:200]).tolist())
  assert deal_lib.canonical_keys(leaked[None])[0] in train_keys


def suit_mask_invariant(holders: np.ndarray) -> np.ndarray:
  """A fingerprint of each deal that no seat permutation or suit permutation changes.

  Per seat, the 4 suit holdings as 13-bit rank masks, sorted (a suit permutation only
  reorders them) and packed into one 52-bit number; per deal, the 4 seats' numbers sorted
  (a seat rotation only reorders them). Equal canonical keys imply equal fingerprints, so
  deals with different fingerprints are never the same up to symmetry. The converse need
  not hold, so collisions are re-checked with `deal.canonical_keys`. Returns an (n,) array
  of 32-byte strings. Independent of `canonical_keys`, and about 100x faster.
  """
  h = np.asarray(holders)
  cards = np.arange(52)
  weight = (1 << (cards // 4)).astype(np.int64)
  masks = np.zeros((len(h), 4, 4), np.int64)  # [deal, seat, suit]
  for seat in range(4):
    held = h == seat
    for suit in range(4):
      cols = cards % 4 == suit
      masks[:, seat, suit] = (held[:, cols] * weight[cols]).sum(axis=1)
  masks.sort(axis=2)
  per_seat = sum(masks[:, :, k] << (13 * k) for k in range(4))
  per_seat.sort(axis=1)
  return np.ascontiguousarray(per_seat.astype(">u8")).view("S32").reshape(len(h))


def test_invariant_is_invariant_under_augmentation_and_separates_deals(sets):
  ds = sets["heldout2"]
  h, _ = dataset_lib.augment_deals(ds.holders[:4], ds.dd_tricks[:4])  # 4 x 96 transformed deals
  inv = suit_mask_invariant(h)
  base = suit_mask_invariant(ds.holders[:4])
  for k in range(4):
    assert set(inv[k::4].tolist()) == {base[k]}
  assert len(set(suit_mask_invariant(ds.holders).tolist())) == len(ds)
  # North's lowest card and East's lowest card change hands: another deal, another print
  moved = ds.holders[:1].copy()
  a, b = np.flatnonzero(moved[0] == 0)[0], np.flatnonzero(moved[0] == 1)[0]
  moved[0, a], moved[0, b] = 1, 0
  assert suit_mask_invariant(moved)[0] != base[0]
  assert deal_lib.canonical_keys(moved)[0] != deal_lib.canonical_keys(ds.holders[:1])[0]


def test_held_out_sets_are_not_in_the_50000_deal_training_build(sets):
  """The held-out sets are disjoint (under the 96 symmetries) also from the whole seed-0
  training build that the shipped training set grows into (regenerated from its seed; no
  DDS needed), so a model trained on the grown set has not seen them either."""
  train = np.concatenate([make_dataset.chunk_holders(0, i, CHUNK, CHUNK)
                          for i in range(TRAIN_BUILD_DEALS // CHUNK)])
  np.testing.assert_array_equal(train[:len(sets["train"])], sets["train"].holders)
  train_inv = suit_mask_invariant(train)
  for name in ("validation", "heldout", "heldout2"):
    held = sets[name].holders
    hit = np.isin(suit_mask_invariant(held), train_inv)
    if hit.any():  # a fingerprint collision: decide with the exact canonical keys
      tk = set(deal_lib.canonical_keys(train[np.isin(train_inv, suit_mask_invariant(held[hit]))]
                                       ).tolist())
      assert not tk & set(deal_lib.canonical_keys(held[hit]).tolist()), name


def test_the_fingerprint_check_would_see_a_leak(sets):
  """A rotated, suit-permuted copy of a deal of the 50,000-deal build planted in heldout2 is
  found by the fingerprint comparison."""
  src = make_dataset.chunk_holders(0, 77, CHUNK, CHUNK)[321]
  leaked = transformed(src, (1, 2, 0, 3), 1)
  assert not (leaked == src).all()
  planted = sets["heldout2"].holders.copy()
  planted[1234] = leaked
  train_inv = suit_mask_invariant(make_dataset.chunk_holders(0, 77, CHUNK, CHUNK))
  assert np.flatnonzero(np.isin(suit_mask_invariant(planted), train_inv)).tolist() == [1234]
