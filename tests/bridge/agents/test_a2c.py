"""Bridge A2C (JPS paper Sec. 7.2, Appendix E): network, loss, sampling, checkpoints, model."""
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import replay_buffer
from tests import repo as tests_repo

REPO = tests_repo.REPO


def _random_observations(n, seed=0):
  eng = engine_lib.BiddingEngine()
  rng = np.random.default_rng(seed)
  eng.reset_random(rng, n)
  for _ in range(rng.integers(0, 6)):
    legal = eng.legal_mask()
    calls = np.array([rng.choice(np.flatnonzero(ln)) if ln.any() else 0 for ln in legal])
    eng.step(calls)
  return eng.observation()[~eng.done]


def test_network_shapes_parameter_count_and_masking():
  net = policy_net.make_network(hidden=200, num_blocks=2)
  params = policy_net.init_params(net, 0)
  n_params = sum(x.size for x in jax.tree_util.tree_leaves(params))
  # fc_in + 2 blocks x 2 FC layers + policy head + value head, weights and biases.
  expected = (267 * 200 + 200) + 2 * 2 * (200 * 200 + 200) + (200 * 38 + 38) + (200 + 1)
  assert n_params == expected
  obs = _random_observations(64)
  logits, value = net.apply(params, jnp.asarray(obs))
  assert logits.shape == (len(obs), 38) and value.shape == (len(obs),)
  legal = obs[:, A.OBS_LEGAL:] > 0.5
  probs = np.asarray(jax.nn.softmax(logits))
  assert np.all(probs[~legal] == 0.0)
  np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
  # Residual structure: zeroing a block's second layer makes the block the identity (after relu).
  p0 = jax.tree_util.tree_map(lambda x: x, params)
  for i in range(2):
    p0[f"block{i}_fc2"] = {k: jnp.zeros_like(v) for k, v in p0[f"block{i}_fc2"].items()}
  x = jax.nn.relu(jnp.asarray(obs) @ params["fc_in"]["w"] + params["fc_in"]["b"])
  v_expected = x @ params["value"]["w"][:, 0] + params["value"]["b"][0]
  np.testing.assert_allclose(np.asarray(net.apply(p0, jnp.asarray(obs))[1]), v_expected,
                             rtol=1e-5, atol=1e-5)


def test_loss_matches_hand_computation_with_ratio_clipping():
  # Two samples, three calls (call 2 illegal in sample 0).
  logits = np.array([[0.0, np.log(3.0), -1e9], [0.0, 0.0, 0.0]])
  legal = np.array([[True, True, False], [True, True, True]])
  values = np.array([0.5, -0.2])
  actions = np.array([1, 2])
  returns = np.array([1.0, 0.4])
  # pi(a0) = 3/4; behaviour 1/4 -> ratio 3, clipped to 1. pi(a1) = 1/3; behaviour 2/3 -> 0.5.
  mu_logp = np.log(np.array([0.25, 2.0 / 3.0]))
  loss, terms = a2c.a2c_loss_terms(jnp.asarray(logits), jnp.asarray(values),
                                   jnp.asarray(actions), jnp.asarray(mu_logp),
                                   jnp.asarray(returns), jnp.asarray(legal), 1.0, 0.01, 0.5)
  pg = -np.mean([1.0 * (1.0 - 0.5) * np.log(0.75), 0.5 * (0.4 + 0.2) * np.log(1 / 3)])
  vl = 0.5 * np.mean([(1.0 - 0.5) ** 2, (0.4 + 0.2) ** 2])
  ent = np.mean([-(0.25 * np.log(0.25) + 0.75 * np.log(0.75)), np.log(3.0)])
  np.testing.assert_allclose(float(terms["policy_loss"]), pg, rtol=1e-6)
  np.testing.assert_allclose(float(terms["value_loss"]), vl, rtol=1e-6)
  np.testing.assert_allclose(float(terms["entropy"]), ent, rtol=1e-6)
  np.testing.assert_allclose(float(terms["mean_rho"]), 0.75, rtol=1e-6)
  np.testing.assert_allclose(float(loss), pg + 0.5 * vl - 0.01 * ent, rtol=1e-6)
  # The gradient of the policy term does not flow through rho or the advantage:
  g = jax.grad(lambda lg: a2c.a2c_loss_terms(lg, jnp.asarray(values), jnp.asarray(actions),
                                             jnp.asarray(mu_logp), jnp.asarray(returns),
                                             jnp.asarray(legal), 1.0, 0.0, 0.0)[0])(
                                                 jnp.asarray(logits))
  # d/dlogits of -c * log softmax(a) = -c * (onehot(a) - pi), c = rho * adv / B.
  pi0 = np.array([0.25, 0.75, 0.0])
  np.testing.assert_allclose(np.asarray(g)[0], -0.5 * 1.0 * 0.5 * (np.eye(3)[1] - pi0),
                             atol=1e-6)


def test_sample_calls_legal_and_distribution():
  rng = np.random.default_rng(0)
  probs = np.tile(np.array([0.5, 0.0, 0.2, 0.3]), (20000, 1))
  legal = np.tile(np.array([True, False, True, True]), (20000, 1))
  a = policy_net.sample_calls(probs, legal, rng.random(20000))
  freq = np.bincount(a, minlength=4) / len(a)
  np.testing.assert_allclose(freq, [0.5, 0.0, 0.2, 0.3], atol=0.015)
  np.testing.assert_array_equal(policy_net.greedy_calls(probs[:1], legal[:1]), [0])


def test_duplicate_rewards_zero_sum_and_imps():
  s = np.array([420, -50, 0, 0, 100, -50])  # tables k and k + 3 are the same deal
  r = scoring.duplicate_rewards(s)
  # Standard IMP scale by hand: 420 -> 9 (370-420), 150 -> 4 (130-160), 50 -> 2 (50-80).
  np.testing.assert_allclose(r * 24, [9, -4, 2, -9, 4, -2])
  np.testing.assert_allclose(r[:3], -r[3:])


def _tiny_cfg(**kw):
  base = dict(hidden=16, num_blocks=1, deals_per_round=8, batch_size=32, updates_per_round=2,
              buffer_size=2000, burn_in=50, seed=3)
  base.update(kw)
  return a2c.A2CConfig(**base)


def test_checkpoint_resume_is_identical(tmp_path):
  ds = dataset_lib.load_dataset()
  straight = a2c.A2CTrainer(_tiny_cfg(), ds, workdir=str(tmp_path / "a"))
  straight.train(6, checkpoint_every=100, progress=False)
  half = a2c.A2CTrainer(_tiny_cfg(), ds, workdir=str(tmp_path / "b"))
  half.train(3, checkpoint_every=1, progress=False)
  resumed = a2c.A2CTrainer(_tiny_cfg(), ds, workdir=str(tmp_path / "b"))
  assert resumed.round == 3
  resumed.train(6, checkpoint_every=100, progress=False)
  for x, y in zip(jax.tree_util.tree_leaves(straight.params),
                  jax.tree_util.tree_leaves(resumed.params), strict=True):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  for x, y in zip(jax.tree_util.tree_leaves(straight.opt_state),
                  jax.tree_util.tree_leaves(resumed.opt_state), strict=True):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  np.testing.assert_array_equal(straight.buffer.obs, resumed.buffer.obs)
  assert straight.buffer.total_added == resumed.buffer.total_added
  assert straight.rng.bit_generator.state == resumed.rng.bit_generator.state
  assert os.path.exists(tmp_path / "b" / "log.csv")
  # A checkpoint of a different network or replay-buffer size is refused, naming both.
  with pytest.raises(ValueError, match=r"has network \{'hidden': 16, 'num_blocks': 1\}, this "
                     r"trainer \{'hidden': 8"):
    a2c.A2CTrainer(_tiny_cfg(hidden=8), ds, workdir=str(tmp_path / "b"))
  buffer_size = _tiny_cfg().buffer_size
  with pytest.raises(ValueError, match=f"has buffer_size {buffer_size}, this trainer 999"):
    a2c.A2CTrainer(_tiny_cfg(buffer_size=999), ds, workdir=str(tmp_path / "b"))


def test_snapshots_hold_the_parameters_of_their_round(tmp_path):
  ds = dataset_lib.load_dataset()
  tr = a2c.A2CTrainer(_tiny_cfg(), ds, workdir=str(tmp_path / "s"))
  tr.train(2, checkpoint_every=100, progress=False, snapshot_every=2)
  p2 = jax.tree_util.tree_leaves(tr.params)
  tr.train(3, checkpoint_every=100, progress=False, snapshot_every=2)
  snaps = sorted(os.listdir(tmp_path / "s" / "snapshots"))
  assert snaps == ["round_0000002.npz"]  # round 3 is not a multiple of 2
  _, params, meta = policy_net.load_model(str(tmp_path / "s" / "snapshots" / snaps[0]))
  assert meta["rounds"] == 2 and meta["games"] == 2 * 2 * _tiny_cfg().deals_per_round
  for x, y in zip(p2, jax.tree_util.tree_leaves(params), strict=True):
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
  with pytest.raises(ValueError, match="snapshot_every"):
    tr.train(4, snapshot_every=-1, progress=False)


def test_replay_buffer_roundtrip_and_fifo():
  buf = replay_buffer.ReplayBuffer(5)
  obs = (np.random.default_rng(0).random((7, 267)) < 0.3).astype(np.float32)
  buf.add(obs, np.arange(7), np.zeros(7), np.arange(7) / 10)
  assert buf.size == 5 and buf.total_added == 7
  # Oldest two overwritten: the slots hold decisions 5, 6, 2, 3, 4.
  np.testing.assert_array_equal(buf.actions, [5, 6, 2, 3, 4])
  o, a, _, r = buf.sample(np.random.default_rng(1), 50)
  for oi, ai, ri in zip(o, a, r, strict=True):
    np.testing.assert_array_equal(oi, obs[ai])
    assert ri == pytest.approx(ai / 10)


def test_bad_config_raises():
  with pytest.raises(ValueError, match="burn_in"):
    _tiny_cfg(burn_in=5000)
  with pytest.raises(ValueError, match="learning_rate"):
    _tiny_cfg(learning_rate=0.0)


def test_shipped_model_loads_and_bids_only_legal_calls():
  from ospiel_team.bridge.agents.bidders import model_bidder
  from ospiel_team.bridge.agents.evaluation import match
  for name in ("a2c", "a2c_uncontested"):
    bidder = model_bidder.load_bidder(name)
    eng = engine_lib.BiddingEngine(uncontested=name.endswith("uncontested"))
    eng.reset_random(np.random.default_rng(0), 300)
    steps = 0
    while not eng.done.all():
      active = ~eng.done
      obs = eng.observation()
      calls = np.zeros(eng.batch_size, np.int64)
      calls[active] = bidder.act(obs[active], np.random.default_rng(steps).random(active.sum()))
      assert eng.legal_mask()[np.flatnonzero(active), calls[active]].all()
      eng.step(calls)
      steps += 1
    assert steps < A.MAX_AUCTION_LENGTH
  res = match.run_match(model_bidder.load_bidder("a2c"), model_bidder.load_bidder("a2c"), 20,
                        progress=False)
  assert res.mean_imps == 0.0  # a bidder against itself


@pytest.mark.parametrize("search", [pytest.param("none", marks=pytest.mark.slow), "jps"])
def test_example_script_runs(tmp_path, search):
  cmd = [sys.executable, "-m", "ospiel_team.cli.train_bridge",
         f"--workdir={tmp_path}", "--rounds=2", "--deals_per_round=8", "--batch_size=32",
         "--burn_in=16", "--buffer_size=1000", "--eval_every=2", "--eval_boards=8",
         "--holdout=16", "--hidden=16", "--num_blocks=1", "--progress=false",
         f"--search={search}", "--search_fraction=0.5", "--search_candidates=2",
         "--search_rollouts=2", "--bc_deals=20", "--bc_steps=2"]
  out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO)
  assert out.returncode == 0, out.stderr[-3000:]
  assert "rounds 2" in out.stdout
  rows = open(tmp_path / "log.csv").read().strip().split("\n")
  assert len(rows) == 3
  if search == "jps":
    import csv
    recs = list(csv.DictReader(rows))
    assert any(int(r["search_points"]) > 0 for r in recs)
  assert os.path.exists(tmp_path / "model.npz")  # (resuming is tested in-process above)
  assert open(tmp_path / "learning_curve.png", "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_throughput_separates_self_play_from_evaluation_and_checkpoints(tmp_path,
                                                                         monkeypatch):
  """Games/s of self-play alone and wall-inclusive (evaluation, checkpoints).

  Each evaluation is made to take 0.25 s longer (an injected sleep), so the wall-inclusive
  time must exceed the time inside rounds by at least 0.25 s per evaluation, and the two
  rates must differ accordingly."""
  import time
  ds = dataset_lib.load_dataset()
  trainer = a2c.A2CTrainer(_tiny_cfg(), ds, eval_dataset=ds, workdir=str(tmp_path / "t"))
  monkeypatch.setattr(trainer, "evaluate", lambda boards, seed=0: (time.sleep(0.25),
                                                                    (0.0, 0.0, boards))[1])
  trainer.train(2, eval_every=1, eval_boards=4, checkpoint_every=2, progress=False)
  tp = trainer.throughput()
  assert tp["games"] == 2 * 16
  assert tp["total_wall_s"] >= tp["train_s"] + 2 * 0.25
  assert tp["games_per_s_selfplay"] == pytest.approx(tp["games"] / tp["train_s"])
  assert tp["games_per_s_wall"] == pytest.approx(tp["games"] / tp["total_wall_s"])
  rows = trainer.log_rows
  assert [r["games"] for r in rows] == [16, 32]
  # Each row's wall-clock increase exceeds its round time by the injected 0.25 s.
  inc = np.diff([0.0] + [r["total_wall_s"] for r in rows])
  rnd = np.diff([0.0] + [r["wall_s"] for r in rows])
  assert (inc - rnd >= 0.25 - 0.011).all()
  # Resuming keeps both clocks (the checkpoint holds the time up to its own writing).
  again = a2c.A2CTrainer(_tiny_cfg(), ds, workdir=str(tmp_path / "t"))
  assert again.wall == pytest.approx(trainer.wall)
  assert rows[-1]["total_wall_s"] - 0.01 <= again.total_wall <= trainer.total_wall
