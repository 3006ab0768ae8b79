"""The JAX self-play trainer (`ospiel_team.bridge.agents.training.jax_trainer`) on CPU, small
batches.

Its checkpoints must be `a2c`'s slim checkpoints in both directions: it starts from the
committed slim checkpoint `experiments/bridge_a2c_training/checkpoints/a2c_long.npz`, trains,
exports; `policy_net.load_model` and `a2c.A2CTrainer` read the export with equal parameters and
counters, and the numpy trainer continues from it; the JAX trainer resumed from the export
continues exactly as the uninterrupted run.
"""

import dataclasses
import json
import os
import shutil

import jax
import numpy as np
import pytest

from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import jax_trainer
from tests import repo as tests_repo

LONG = os.path.join(tests_repo.REPO, "experiments", "bridge_a2c_training",
                    "checkpoints", "a2c_long.npz")


@pytest.fixture(scope="module")
def ds():
  return dataset_lib.load_dataset()


def _flat(params):
  return policy_net.flatten_params(jax.device_get(params))


def _assert_params_equal(a, b):
  fa, fb = _flat(a), _flat(b)
  assert sorted(fa) == sorted(fb)
  for k in fa:
    np.testing.assert_array_equal(np.asarray(fa[k], np.float32), np.asarray(fb[k], np.float32))


def _cfg():
  with np.load(LONG) as z:
    saved = a2c.A2CConfig(**json.loads(str(z["state"]))["config"])
  # The shipped run's network; small rounds for the test.
  return dataclasses.replace(saved, deals_per_round=8, batch_size=64, updates_per_round=2,
                             buffer_size=1000, burn_in=16, overlap_learning=False)


def test_jax_trainer_round_trips_with_the_numpy_trainer(ds, tmp_path):
  cfg = _cfg()
  opts = jax_trainer.JaxTrainOptions(platform="cpu")
  _, long_params, _ = policy_net.load_model(LONG)
  tr = jax_trainer.JaxA2CTrainer(cfg, ds, workdir=str(tmp_path / "jax"), resume_from=LONG,
                                 options=opts)
  start = tr.round
  assert start > 0 and tr.games > 0 and len(tr.log_rows) == start
  _assert_params_equal(tr.params, long_params)
  games0 = tr.games
  tr.train(start + 1, progress=False)
  assert tr.round == start + 1 and tr.games == games0 + 16
  assert os.path.exists(tmp_path / "jax" / "checkpoint.npz")
  assert os.path.exists(tmp_path / "jax" / "log.csv")
  # Rerunning in the same workdir resumes from its checkpoint (not from resume_from).
  rerun = jax_trainer.JaxA2CTrainer(cfg, ds, workdir=str(tmp_path / "jax"), resume_from=LONG,
                                    options=opts)
  assert (rerun.round, rerun.games, len(rerun.log_rows)) == (start + 1, tr.games, start + 1)
  _assert_params_equal(rerun.params, tr.params)
  row = tr.log_rows[-1]
  assert row["round"] == start + 1 and row["mean_auction_len"] >= 4
  assert np.isfinite(row["loss"]) and row["mean_rho"] > 0
  changed = [k for k, v in _flat(tr.params).items()
             if not np.array_equal(v, np.asarray(_flat(long_params)[k]))]
  assert changed  # the Adam steps moved the network

  slim = str(tmp_path / "slim.npz")
  tr.save_checkpoint(slim)
  with np.load(slim) as z, np.load(LONG) as zl:  # the same entries as a2c's slim checkpoint,
    # and the content digest that checkpoints carry since LONG was written
    assert "content_digest" in z.files and "content_digest" not in zl.files
    assert sorted(set(z.files) - {"content_digest"}) == sorted(zl.files)
  # policy_net plays it.
  _, params, meta = policy_net.load_model(slim)
  assert meta["network"] == cfg.network_dict()
  _assert_params_equal(params, tr.params)
  # a2c resumes it (as ospiel-team-train-bridge --resume_from does) and goes on training.
  os.makedirs(tmp_path / "np")
  shutil.copyfile(slim, tmp_path / "np" / "checkpoint.npz")
  np_tr = a2c.A2CTrainer(cfg, ds, workdir=str(tmp_path / "np"))
  assert (np_tr.round, np_tr.games) == (tr.round, tr.games)
  _assert_params_equal(np_tr.params, tr.params)
  for x, y in zip(jax.tree_util.tree_leaves(np_tr.opt_state),
                  jax.tree_util.tree_leaves(tr.opt_state), strict=True):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  np_tr.train(start + 2, progress=False, checkpoint_every=100)
  assert np_tr.round == start + 2
  # The JAX trainer resumed from the export continues exactly as the uninterrupted one.
  again = jax_trainer.JaxA2CTrainer(cfg, ds, resume_from=slim, options=opts)
  assert (again.round, again.games) == (tr.round, tr.games)
  again.train(start + 2, progress=False)
  tr.train(start + 2, progress=False)
  assert again.round == start + 2 and len(again.log_rows) == start + 2
  _assert_params_equal(again.params, tr.params)
  assert again.log_rows[-1]["loss"] == tr.log_rows[-1]["loss"]


def test_deal_symmetries_are_those_of_augment_deals(ds):
  h, t = ds.holders[:3], ds.dd_tricks[:3]
  want_h, want_t = dataset_lib.augment_deals(h, t)  # row j * n + i: deal i, symmetry j
  sym = np.repeat(np.arange(96), 3)
  got_h, got_t = jax_trainer.apply_symmetries(h[np.tile(np.arange(3), 96)],
                                              t[np.tile(np.arange(3), 96)], sym)
  np.testing.assert_array_equal(np.asarray(got_h), want_h)
  np.testing.assert_array_equal(np.asarray(got_t), want_t)


def test_bad_settings_are_named(ds, tmp_path):
  with pytest.raises(ValueError, match="platform must be one of 'cpu', .*, got 'quantum'"):
    jax_trainer.JaxTrainOptions(platform="quantum")
  with pytest.raises(ValueError, match="max_stored_calls must be an integer from 1 to 319, got 0"):
    jax_trainer.JaxTrainOptions(max_stored_calls=0)
  small = a2c.A2CConfig(hidden=8, num_blocks=1)
  with pytest.raises(ValueError, match=r"has network \{'hidden': 200, 'num_blocks': 2\}"):
    jax_trainer.JaxA2CTrainer(small, ds, resume_from=LONG)
  with pytest.raises(ValueError, match="is not a file"):
    jax_trainer.JaxA2CTrainer(small, ds, resume_from=str(tmp_path / "none.npz"))
  tr = jax_trainer.JaxA2CTrainer(small, ds)
  with pytest.raises(ValueError, match="eval_every=5: JaxA2CTrainer does not evaluate"):
    tr.train(1, eval_every=5, progress=False)
  with pytest.raises(ValueError, match="checkpoint_every must be >= 1, got 0"):
    tr.train(1, checkpoint_every=0, progress=False)
  assert tr.round == 0
