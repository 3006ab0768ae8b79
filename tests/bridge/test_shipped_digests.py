"""Shipped bridge models and datasets are checked against their recorded digests on load."""

import json
import os
import shutil

import numpy as np
import pytest

from ospiel_team import errors
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import shipped_digests
from ospiel_team.bridge import uncontested_costs
from ospiel_team.bridge.agents.bidders import policy_net

SHIPPED = shipped_digests.BRIDGE_DIR  # the package's own folders (the fixture redirects the module)


def test_the_table_lists_every_shipped_file_with_its_current_digest():
  """Rerun `shipped_digests.write_table()` after replacing a shipped file on purpose."""
  with open(shipped_digests.TABLE, encoding="utf-8") as f:
    table = json.load(f)["digests"]
  assert table == shipped_digests.compute_table()
  names = {f"{d}/{n}" for d in ("models", "data") for n in os.listdir(
      os.path.join(shipped_digests.BRIDGE_DIR, d)) if n.endswith(".npz")}
  assert set(table) == names and len(names) >= 10


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch):
  """A copy of the shipped folders and table that the checks treat as the shipped ones."""
  for folder in ("models", "data"):
    os.makedirs(tmp_path / folder)
  shutil.copy(shipped_digests.TABLE, tmp_path / "table.json")
  monkeypatch.setattr(shipped_digests, "BRIDGE_DIR", str(tmp_path))
  monkeypatch.setattr(shipped_digests, "TABLE", str(tmp_path / "table.json"))
  return tmp_path


def _copy_edited(src: str, dst, edit) -> None:
  with np.load(src, allow_pickle=False) as z:
    arrays = {k: z[k] for k in z.files}
  edit(arrays)
  np.savez(dst, **arrays)


def _nudge_first_param(arrays):
  key = next(k for k in sorted(arrays) if k.startswith("param/"))
  arrays[key] = arrays[key].copy()
  arrays[key].flat[0] += 0.25  # still finite, same shape: only the digest can tell


def test_an_edited_shipped_model_is_refused_and_an_intact_copy_loads(shipped_copy, tmp_path):
  src = os.path.join(SHIPPED, "models", "a2c_baseline.npz")
  shutil.copy(src, shipped_copy / "models" / "a2c_baseline.npz")
  _, params, _ = policy_net.load_model(str(shipped_copy / "models" / "a2c_baseline.npz"))
  assert params
  _copy_edited(src, shipped_copy / "models" / "a2c_baseline.npz", _nudge_first_param)
  with pytest.raises(errors.DamagedFileError, match="a2c_baseline.npz.*shipped with the package"):
    policy_net.load_model(str(shipped_copy / "models" / "a2c_baseline.npz"))
  # The same edited file outside the shipped folders is a user's own model: it loads.
  own = tmp_path / "own.npz"
  _copy_edited(src, own, _nudge_first_param)
  policy_net.load_model(str(own))


def test_an_edited_shipped_dataset_is_refused(shipped_copy):
  src = os.path.join(SHIPPED, "data", "validation_dds.npz")

  def one_more_trick(arrays):  # a valid table entry (0..13), a different deal's result
    arrays["dd_tricks"] = arrays["dd_tricks"].copy()
    t = arrays["dd_tricks"].flat[0]
    arrays["dd_tricks"].flat[0] = t + 1 if t < 13 else t - 1

  path = shipped_copy / "data" / "validation_dds.npz"
  shutil.copy(src, path)
  assert len(dataset_lib.load_dataset(str(path))) == 1000
  _copy_edited(src, path, one_more_trick)
  with pytest.raises(errors.DamagedFileError, match="validation_dds.npz.*differs from the digest"):
    dataset_lib.load_dataset(str(path))


def test_an_edited_shipped_cost_dataset_is_refused(shipped_copy):
  src = os.path.join(SHIPPED, "models", "uncontested_cost.npz")
  path = shipped_copy / "models" / "uncontested_cost.npz"
  shutil.copy(src, path)
  uncontested_costs.load_cost_dataset(str(path))

  def swap_two_redeals(arrays):
    arrays["dd_tricks"] = arrays["dd_tricks"].copy()
    arrays["dd_tricks"][0, [0, 1]] = arrays["dd_tricks"][0, [1, 0]]

  _copy_edited(src, path, swap_two_redeals)
  with pytest.raises(errors.DamagedFileError, match="uncontested_cost.npz"):
    uncontested_costs.load_cost_dataset(str(path))


def test_a_saved_model_carries_its_digest_and_an_edit_is_refused(tmp_path):
  net, params, meta = policy_net.load_model(os.path.join(SHIPPED, "models", "a2c_baseline.npz"))
  path = tmp_path / "mine.npz"
  policy_net.save_model(str(path), params, meta)
  _, again, _ = policy_net.load_model(str(path))
  flat, flat_again = policy_net.flatten_params(params), policy_net.flatten_params(again)
  assert all(np.array_equal(flat[k], flat_again[k]) for k in flat)
  edited = tmp_path / "edited.npz"
  _copy_edited(str(path), edited, _nudge_first_param)  # keeps the stored digest
  with pytest.raises(ValueError, match="edited.npz.*do not match their digest"):
    policy_net.load_model(str(edited))


def test_a_checkpoint_with_a_digest_refuses_an_edit_and_one_without_loads(tmp_path):
  """A checkpoint written since digests exist carries one (`_write_checkpoint`); the repository's
  older checkpoints have none and load as before."""
  import json as json_lib

  import optax

  from ospiel_team.bridge.agents.training import round_trainer
  from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
  from tests import repo
  old = os.path.join(repo.REPO, "experiments", "bridge_a2c_training", "checkpoints", "a2c_long.npz")
  with np.load(old, allow_pickle=False) as z:
    arrays = {k: z[k] for k in z.files}
  assert "content_digest" not in arrays
  cfg = A2CConfig(**json_lib.loads(str(arrays["state"]))["config"])
  opt = optax.adam(cfg.learning_rate)
  state, params, _, _ = round_trainer.read_checkpoint(old, cfg, opt)
  with_digest = tmp_path / "new.npz"
  np.savez(with_digest, content_digest=np.array(shipped_digests.digest(arrays)), **arrays)
  state2, params2, _, _ = round_trainer.read_checkpoint(str(with_digest), cfg, opt)
  assert state2["round"] == state["round"]
  edited = tmp_path / "edited.npz"
  _copy_edited(str(with_digest), edited, _nudge_first_param)
  with pytest.raises(errors.DamagedFileError, match="edited.npz.*do not match their digest"):
    round_trainer.read_checkpoint(str(edited), cfg, opt)
