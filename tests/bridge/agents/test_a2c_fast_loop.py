"""The fast self-play loop computes what the plain float32 loop computes.

* fast acting (uint8 observations, finer jit padding) gives the same probabilities as a numpy
  forward pass written out here, and the same calls as the float32 / power-of-two loop
  (``fast_acting=False``) for the same random numbers;
* a learner step on uint8 observations equals the step on float32 observations;
* the overlapped trainer (learner thread) is deterministic: the same parameters, buffer and
  log as the same schedule run in one thread, its games are played with the parameters from
  before the round's Adam steps, and it resumes bit-identically from a checkpoint.
"""
import json
import os
import shutil
import zipfile

import jax
import numpy as np
import optax
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c
from tests import repo as tests_repo

SMALL = dict(hidden=32, num_blocks=1, deals_per_round=8, batch_size=16, updates_per_round=2,
             buffer_size=2000, burn_in=20)


def _numpy_forward(params, obs, num_blocks):
  """The network of policy_net.make_network written out in float64 numpy."""
  p = {m: {k: np.asarray(v, np.float64) for k, v in d.items()} for m, d in params.items()}
  relu = lambda z: np.maximum(z, 0.0)
  x = relu(obs @ p["fc_in"]["w"] + p["fc_in"]["b"])
  for i in range(num_blocks):
    y = relu(x @ p[f"block{i}_fc1"]["w"] + p[f"block{i}_fc1"]["b"])
    x = relu(x + y @ p[f"block{i}_fc2"]["w"] + p[f"block{i}_fc2"]["b"])
  logits = x @ p["policy"]["w"] + p["policy"]["b"]
  legal = obs[:, A.OBS_LEGAL:] > 0.5
  logits = np.where(legal, logits, -np.inf)
  e = np.exp(logits - logits.max(axis=1, keepdims=True))
  return e / e.sum(axis=1, keepdims=True), x @ p["value"]["w"][:, 0] + p["value"]["b"][0]


def test_padded_size_hand_checked():
  # fine: next multiple of a quarter of the power of two below n (at least 64 rows)
  assert [policy_net.padded_size(n) for n in (1, 64, 65, 80, 81, 100, 128, 129, 1000, 8192)] \
      == [64, 64, 80, 80, 96, 112, 128, 160, 1024, 8192]
  assert [policy_net.padded_size(n, fine=False) for n in (1, 64, 65, 129, 1000)] == \
      [64, 64, 128, 256, 1024]
  for n in range(1, 3000, 7):
    m = policy_net.padded_size(n)
    assert n <= m and (n <= 64 or m < 1.25 * n + 1e-9)


def test_fast_acting_same_probabilities_and_calls_as_old_loop():
  ds = dataset_lib.load_dataset()
  net = policy_net.make_network(48, 2)
  params = policy_net.init_params(net, 3)
  # Sharpen the random network's policy so that the calls differ between rows.
  params["policy"]["w"] = params["policy"]["w"] * 20
  old = policy_net.PolicyFn(net, params, fine_padding=False)
  new = policy_net.PolicyFn(net, params, fine_padding=True)
  eng = engine_lib.BiddingEngine(ds)
  eng.reset_random(np.random.default_rng(0), 300)
  obs = eng.observation()
  p_old, v_old = old(obs)
  p_new, v_new = new(obs.astype(np.uint8))
  p_np, v_np = _numpy_forward(params, obs.astype(np.float64), 2)
  np.testing.assert_allclose(p_new, p_np, rtol=1e-4, atol=1e-6)
  np.testing.assert_allclose(v_new, v_np, rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(p_new, p_old, rtol=1e-5, atol=1e-7)
  pool = np.arange(len(ds))
  r_old = a2c.play_selfplay(old, engine_lib.BiddingEngine(ds), np.random.default_rng(7), pool,
                            64)
  r_new = a2c.play_selfplay(new, engine_lib.BiddingEngine(ds), np.random.default_rng(7), pool,
                            64, obs_dtype=np.uint8)
  assert r_new.obs.dtype == np.uint8 and r_old.obs.dtype == np.float32
  assert len(set(r_old.actions.tolist())) > 5  # a non-trivial policy
  np.testing.assert_array_equal(r_new.obs, r_old.obs)
  np.testing.assert_array_equal(r_new.actions, r_old.actions)
  np.testing.assert_array_equal(r_new.table, r_old.table)
  np.testing.assert_array_equal(r_new.ns_score, r_old.ns_score)
  np.testing.assert_allclose(r_new.logp, r_old.logp, rtol=1e-5, atol=1e-6)


def test_update_on_uint8_observations_equals_float32():
  ds = dataset_lib.load_dataset()
  cfg = a2c.A2CConfig(**SMALL)
  net = policy_net.make_network(cfg.hidden, cfg.num_blocks)
  params = policy_net.init_params(net, 0)
  ro = a2c.play_selfplay(policy_net.PolicyFn(net, params), engine_lib.BiddingEngine(ds),
                         np.random.default_rng(1), np.arange(len(ds)), 16)
  opt = optax.adam(1e-3)
  update = a2c.make_update_fn(net, opt, cfg)
  args = (ro.actions.astype(np.int32), ro.logp.astype(np.float32), ro.returns(),
          np.float32(0.01))
  p32, _, m32 = update(params, opt.init(params), ro.obs.astype(np.float32), *args)
  p8, _, m8 = update(params, opt.init(params), ro.obs.astype(np.uint8), *args)
  for a, b in zip(jax.tree_util.tree_leaves(p32), jax.tree_util.tree_leaves(p8), strict=True):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  assert float(m32["loss"]) == float(m8["loss"])


def _trainer(tmp=None, **kw):
  cfg = a2c.A2CConfig(**{**SMALL, "overlap_learning": True, **kw})
  return a2c.A2CTrainer(cfg, dataset_lib.load_dataset(), workdir=tmp)


def _leaves(params):
  return [np.asarray(x) for x in jax.tree_util.tree_leaves(params)]


def test_overlapped_rounds_threaded_equal_sequential_and_act_with_the_old_parameters():
  a, b = _trainer(), _trainer()
  b.overlap_threads = False
  strip = lambda row: {k: v for k, v in row.items() if "wall" not in k and "per_s" not in k}
  for _ in range(3):  # the buffer passes burn_in (20 decisions) in round 1
    assert strip(a.train_round()) == strip(b.train_round())
  # Round 4 (threaded): its games are played with the parameters from before its Adam steps.
  before = jax.tree_util.tree_map(np.array, a.params)
  rng_state = a.rng.bit_generator.state
  n0 = a.buffer.total_added
  ra, rb = a.train_round(), b.train_round()
  assert strip(ra) == strip(rb)
  assert ra["loss"] != ""  # the learner ran
  for x, y in zip(_leaves(a.params), _leaves(b.params), strict=True):
    np.testing.assert_array_equal(x, y)
  np.testing.assert_array_equal(a.buffer.obs, b.buffer.obs)
  np.testing.assert_array_equal(a.buffer.returns, b.buffer.returns)
  assert any(np.any(x != y) for x, y in zip(_leaves(before), _leaves(a.params), strict=True))
  rng = np.random.default_rng()
  rng.bit_generator.state = rng_state
  ro = a2c.play_selfplay(policy_net.PolicyFn(a.net, before), engine_lib.BiddingEngine(
      a.dataset), rng, a.train_deals, a.cfg.deals_per_round, obs_dtype=np.uint8)
  n = a.buffer.total_added - n0
  assert n == len(ro.actions)
  idx = (n0 + np.arange(n)) % a.buffer.capacity
  np.testing.assert_array_equal(a.buffer.actions[idx], ro.actions)
  np.testing.assert_array_equal(a.buffer.obs[idx], np.packbits(ro.obs > 0, axis=1))


def test_overlapped_training_resumes_bit_identically(tmp_path):
  full = _trainer(str(tmp_path / "full"))
  full.train(5, checkpoint_every=100, progress=False)
  part = _trainer(str(tmp_path / "part"))
  part.train(3, checkpoint_every=100, progress=False)
  resumed = _trainer(str(tmp_path / "part"))
  assert resumed.round == 3
  resumed.train(5, checkpoint_every=100, progress=False)
  for x, y in zip(_leaves(full.params), _leaves(resumed.params), strict=True):
    np.testing.assert_array_equal(x, y)
  strip = lambda rows: [{k: v for k, v in r.items()  # timing columns (wall and CPU seconds)
                         if "wall" not in k and "per_s" not in k and k != "cpu_s"}
                        for r in rows]
  assert strip(full.log_rows) == strip(resumed.log_rows)


def test_slim_checkpoint_resumes_without_the_buffer_and_is_a_model_file(tmp_path):
  t = _trainer()
  for _ in range(3):
    t.train_round()
  path = str(tmp_path / "slim.npz")
  t.save_checkpoint(path, include_buffer=False)
  with np.load(path) as z:
    assert not any(k.startswith("buf_") for k in z.files)
  with zipfile.ZipFile(path) as zf:  # written compressed (the log grows ~1.5 KB a round)
    assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in zf.infolist())
  os.makedirs(tmp_path / "w")
  shutil.copyfile(path, tmp_path / "w" / "checkpoint.npz")
  r = _trainer(str(tmp_path / "w"))
  assert r.round == 3 and r.games == t.games and r.buffer.size == 0
  assert r.rng.bit_generator.state == t.rng.bit_generator.state
  assert r.learner_rng.bit_generator.state == t.learner_rng.bit_generator.state
  for x, y in zip(_leaves(t.params) + _leaves(t.opt_state),
                  _leaves(r.params) + _leaves(r.opt_state), strict=True):
    np.testing.assert_array_equal(x, y)
  _, params, meta = policy_net.load_model(path)
  assert meta["network"] == {"hidden": 32, "num_blocks": 1}
  for x, y in zip(_leaves(t.params), _leaves(params), strict=True):
    np.testing.assert_array_equal(x, y)
  # Resuming refills the buffer (burn_in 20 decisions) before the next Adam step.
  row = r.train_round()
  assert row["loss"] == "" and r.buffer.size > 0


@pytest.mark.parametrize("name", ["a2c_long", "a2c_longer"])
def test_committed_checkpoints_are_small_resumable_checkpoints(tmp_path, name):
  path = os.path.join(tests_repo.REPO, "experiments", "bridge_a2c_training",
                    "checkpoints", f"{name}.npz")
  assert os.path.getsize(path) < 12e6  # the whole training log inside, compressed
  with np.load(path, allow_pickle=False) as z:
    state = json.loads(str(z["state"]))
    assert not any(k.startswith("buf_") for k in z.files)
  rows = state["log_rows"]
  assert rows[-1]["round"] == state["round"] and rows[-1]["games"] == state["games"]
  cfg = a2c.A2CConfig(**state["config"])
  assert state["games"] == 2 * cfg.deals_per_round * state["round"]
  os.makedirs(tmp_path / "w")
  shutil.copyfile(path, tmp_path / "w" / "checkpoint.npz")
  t = a2c.A2CTrainer(cfg, dataset_lib.load_dataset(), workdir=str(tmp_path / "w"))
  assert t.round == state["round"] and t.buffer.size == 0
  _, params, _ = policy_net.load_model(path)
  for x, y in zip(_leaves(t.params), _leaves(params), strict=True):
    np.testing.assert_array_equal(x, y)
  bidder = model_bidder.load_bidder(name)
  obs = engine_lib.BiddingEngine()
  obs.reset_random(np.random.default_rng(0), 32)
  o = obs.observation()
  calls = bidder.act(o)
  assert np.all(o[np.arange(32), A.OBS_LEGAL + calls] == 1)
