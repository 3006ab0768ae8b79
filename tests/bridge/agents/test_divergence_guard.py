"""The divergence guard: a run whose loss overflows stops with one line naming the round, keeps
the last good checkpoint and model unchanged, and exits 4; files with non-finite parameters
are refused on load, naming the file."""

import hashlib
import re

import jax
import numpy as np
import pytest

from ospiel_team import errors
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import round_trainer
from ospiel_team.cli import train_bridge

# burn_in 200: round 1 (about 120 decisions of 16 tables) takes no Adam step, so its checkpoint
# is good; round 2 takes two steps, the first with a learning rate of 1e30 (Adam moves every
# parameter by about the learning rate), so the second step's loss is not finite.
SMALL = ["--deals_per_round=8", "--batch_size=32", "--updates_per_round=2", "--hidden=16",
         "--num_blocks=1", "--holdout=16", "--progress=false", "--bc_teacher=",
         "--burn_in=200", "--buffer_size=1000", "--eval_every=0", "--checkpoint_every=1",
         "--augment=false"]


def _digest(path) -> str:
  return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory):
  ds = dataset_lib.load_dataset()
  path = tmp_path_factory.mktemp("data") / "small.npz"
  dataset_lib.save_dataset(path, ds.holders[:300], ds.dd_tricks[:300])
  return str(path)


def test_an_overflowing_loss_stops_the_run_and_keeps_the_last_good_files(
    tmp_path, capsys, small_dataset):
  work = tmp_path / "w"
  args = ["train_bridge", f"--workdir={work}", f"--datasets={small_dataset}", *SMALL]
  assert train_bridge.main([*args, "--rounds=1"]) == 0  # a good round: checkpoint and model
  capsys.readouterr()
  ckpt, model = work / "checkpoint.npz", work / "model.npz"
  before = {p: _digest(p) for p in (ckpt, model, work / "log.csv")}

  status = train_bridge.main([*args, "--rounds=5", "--learning_rate=1e30"])
  err = capsys.readouterr().err.strip().splitlines()
  assert status == train_bridge._flags.EXIT_DIVERGED == 4
  assert len(err) == 1, err
  assert re.fullmatch(
      r"train_bridge: error: training diverged at round 2: loss (nan|inf|-inf), .*; the last "
      rf"good checkpoint '{re.escape(str(ckpt))}' \(round 1\) is kept .*", err[0]), err[0]
  # Nothing of the diverged round was written: the checkpoint, model and log are as before.
  assert {p: _digest(p) for p in before} == before
  cfg = a2c.A2CConfig(hidden=16, num_blocks=1, buffer_size=1000, burn_in=200)
  _, state, params = round_trainer.check_checkpoint(str(ckpt), cfg)
  assert state["round"] == 1 and round_trainer.params_finite(params)
  _, model_params, meta = policy_net.load_model(str(model))
  assert meta["rounds"] == 1 and round_trainer.params_finite(model_params)


def test_the_guard_checks_the_parameters_as_well_as_the_loss(tmp_path, small_dataset):
  ds = dataset_lib.load_dataset(small_dataset)
  trainer = a2c.A2CTrainer(a2c.A2CConfig(hidden=16, num_blocks=1, deals_per_round=8,
                                         buffer_size=1000, burn_in=200), ds,
                           workdir=str(tmp_path / "t"))
  trainer.params = jax.tree_util.tree_map(lambda x: x.at[0].set(np.inf), trainer.params)
  with pytest.raises(errors.DivergenceError,
                     match=r"at round 1: the parameters hold NaN or infinite values; no "
                           r"checkpoint was written"):
    trainer.train(3, progress=False)  # round 1 takes no Adam step: its loss is not logged
  assert not (tmp_path / "t" / "checkpoint.npz").exists()


def test_files_with_non_finite_parameters_are_refused_naming_the_file(tmp_path, small_dataset):
  ds = dataset_lib.load_dataset(small_dataset)
  cfg = a2c.A2CConfig(hidden=16, num_blocks=1, buffer_size=1000, burn_in=200)
  trainer = a2c.A2CTrainer(cfg, ds, workdir=str(tmp_path / "t"))
  trainer.params = jax.tree_util.tree_map(lambda x: x * np.nan, trainer.params)
  ckpt = str(tmp_path / "nan_checkpoint.npz")
  trainer.save_checkpoint(ckpt)
  with pytest.raises(errors.DamagedFileError, match=re.escape(f"checkpoint {ckpt!r} holds NaN")):
    round_trainer.check_checkpoint(ckpt, cfg)
  model = str(tmp_path / "nan_model.npz")
  policy_net.save_model(model, jax.device_get(trainer.params), cfg)
  with pytest.raises(ValueError, match=re.escape(repr(model)) + ".*finite"):
    policy_net.load_model(model)
