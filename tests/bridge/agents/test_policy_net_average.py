"""policy_net.average_models: the elementwise mean of the parameters, checked by hand."""
import jax
import numpy as np
import pytest

from ospiel_team.bridge.agents.bidders import policy_net


class _Cfg:
  def __init__(self, hidden, num_blocks=1):
    self.hidden, self.num_blocks, self.uncontested = hidden, num_blocks, False

  def network_dict(self):
    return {"hidden": self.hidden, "num_blocks": self.num_blocks}


def _save(path, seed, hidden=8):
  net = policy_net.make_network(hidden, 1)
  params = policy_net.init_params(net, seed)
  policy_net.save_model(str(path), params, _Cfg(hidden))
  return params


def test_average_is_the_elementwise_mean_and_saves_and_plays(tmp_path):
  p1 = _save(tmp_path / "a.npz", 1)
  p2 = _save(tmp_path / "b.npz", 2)
  p3 = _save(tmp_path / "c.npz", 3)
  net, avg, meta = policy_net.average_models([tmp_path / "a.npz", tmp_path / "b.npz",
                                              tmp_path / "c.npz"])
  for x, y, z, m in zip(*(jax.tree_util.tree_leaves(p) for p in (p1, p2, p3, avg)),
                        strict=True):
    np.testing.assert_allclose(np.asarray(m), (np.asarray(x) + np.asarray(y) + np.asarray(z)) / 3,
                               rtol=1e-6, atol=1e-7)
  assert meta["averaged_from"] == ["a.npz", "b.npz", "c.npz"]
  # The average of a model with itself is the model; a saved average loads back equal.
  _, same, _ = policy_net.average_models([tmp_path / "a.npz", tmp_path / "a.npz"])
  for x, y in zip(jax.tree_util.tree_leaves(p1), jax.tree_util.tree_leaves(same), strict=True):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  policy_net.save_model(str(tmp_path / "avg.npz"), avg, meta)
  _, back, meta2 = policy_net.load_model(str(tmp_path / "avg.npz"))
  assert meta2["network"] == {"hidden": 8, "num_blocks": 1}
  for x, y in zip(jax.tree_util.tree_leaves(avg), jax.tree_util.tree_leaves(back), strict=True):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_average_refuses_mixed_networks_and_no_models(tmp_path):
  _save(tmp_path / "a.npz", 1, hidden=8)
  _save(tmp_path / "b.npz", 1, hidden=16)
  with pytest.raises(ValueError, match="b.npz.*has network"):
    policy_net.average_models([tmp_path / "a.npz", tmp_path / "b.npz"])
  with pytest.raises(ValueError, match="at least one"):
    policy_net.average_models([])
