"""The numpy engine and the JAX auction, driven through the one auction interface, agree.

Both implement `auction_tables.AuctionTables`; the same random legal auctions (many seeds, all
dealers and vulnerabilities, contested and uncontested, with doubles, redoubles and passed-out
deals; bids drawn among all legal bids or, for longer auctions, among the 6 lowest) are played
on both, and at every call the seat to call, the legal-call masks, the done flags and the
observations of every seat must be equal, and at the end the call histories, the final
contracts, declarers, N-S scores, duplicate rewards and returns by seat. The pyspiel game holds
a `BiddingEngine` and is checked against it in tests/bridge/test_engine.py; hand-checked
auctions of the JAX auction are in tests/bridge/test_jax_env.py.
"""

import jax.numpy as jnp
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import auction_tables
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import jax_env
from ospiel_team.bridge import scoring
from tests.bridge.random_calls import random_legal_calls

TABLES = 24


@pytest.fixture(scope="module")
def ds():
  return dataset_lib.load_dataset()


def _random_legal_calls(rng, legal, seed=0):
  """One legal call per row, with a per-row probability of passing; odd seeds bid only among
  the 6 lowest legal bids (longer auctions, more doubles and redoubles)."""
  return random_legal_calls(rng, legal, rng.random(legal.shape[0]),
                            max_bids=6 if seed % 2 else None)


def _both(ds, seed, uncontested):
  """The same tables on both: random deals; dealer and vulnerability cover all 16 pairs."""
  rng = np.random.default_rng(seed)
  deals = rng.integers(0, ds.holders.shape[0], TABLES)
  dealer, vul = np.arange(TABLES) % 4, (np.arange(TABLES) // 4 + seed) % 4
  eng = engine_lib.BiddingEngine(ds, uncontested=uncontested)
  eng.reset(deals, dealer, vul)
  jx = jax_env.JaxAuctionTables(ds.holders[deals], ds.dd_tricks[deals], dealer, vul,
                                uncontested=uncontested)
  return rng, eng, jx


@pytest.mark.parametrize("uncontested", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_numpy_and_jax_tables_agree_call_by_call(ds, seed, uncontested):
  rng, eng, jx = _both(ds, seed, uncontested)
  for tables in (eng, jx):
    assert isinstance(tables, auction_tables.AuctionTables)
    assert tables.batch_size == TABLES
  steps = 0
  while not eng.done.all():
    np.testing.assert_array_equal(jx.done, eng.done)
    active = ~eng.done
    np.testing.assert_array_equal(jx.current_player[active], eng.current_player[active])
    legal = eng.legal_mask()
    np.testing.assert_array_equal(jx.legal_mask(), legal)
    np.testing.assert_array_equal(jx.observation(), eng.observation())
    for offset in (1, 2, 3):  # the other seats' views (no legal calls: not their turn)
      other = (eng.current_player + offset) & 3
      np.testing.assert_array_equal(jx.observation(other), eng.observation(other))
    calls = _random_legal_calls(rng, legal, seed)
    eng.step(calls)
    jx.step(calls)
    steps += 1
  assert jx.done.all() and steps > 4
  np.testing.assert_array_equal(np.asarray(jx.state.num_calls), eng.auctions.num_calls)
  np.testing.assert_array_equal(np.asarray(jx.state.history), eng.auctions.history)
  for got, want, name in zip(jx.contract(), eng.contract(), ("level", "strain", "doubled",
                                                            "declarer"), strict=True):
    np.testing.assert_array_equal(got, want, err_msg=name)
  ns = eng.ns_score()
  np.testing.assert_array_equal(jx.ns_score(), ns)
  np.testing.assert_allclose(np.asarray(scoring.duplicate_rewards(jx.ns_score(), xp=jnp)),
                             scoring.duplicate_rewards(ns), rtol=0, atol=1e-7)
  np.testing.assert_array_equal(jx.returns(), eng.returns())
  np.testing.assert_array_equal(eng.returns(), scoring.seat_returns(ns[:, None], np.arange(4)))
  if uncontested:  # East-West only passed
    assert np.all(eng.auctions.bids[:, 1::2].sum(axis=(1, 2)) == 0)


def test_the_seeds_cover_every_kind_of_result(ds):
  """The random auctions above reach passed-out deals, doubled and redoubled contracts and
  both sides declaring (so the equality covers every branch of the scoring)."""
  seen = {"passed_out": 0, "doubled": 0, "redoubled": 0, "ns": 0, "ew": 0}
  for seed in range(6):
    rng, eng, _ = _both(ds, seed, False)
    while not eng.done.all():
      eng.step(_random_legal_calls(rng, eng.legal_mask(), seed))
    level, _, doubled, declarer = eng.contract()
    seen["passed_out"] += int((level == 0).sum())
    seen["doubled"] += int((doubled == 1).sum())
    seen["redoubled"] += int((doubled == 2).sum())
    seen["ns"] += int(((level > 0) & (declarer % 2 == 0)).sum())
    seen["ew"] += int(((level > 0) & (declarer % 2 == 1)).sum())
  assert all(v > 0 for v in seen.values()), seen


def test_illegal_calls_raise_on_both(ds):
  _, eng, jx = _both(ds, 0, False)
  bad = np.full(TABLES, A.DOUBLE)  # no bid yet: Dbl is illegal everywhere
  for tables in (eng, jx):
    with pytest.raises(ValueError, match="table 0: call Dbl"):
      tables.step(bad)
  np.testing.assert_array_equal(jx.legal_mask(), eng.legal_mask())  # nothing changed
