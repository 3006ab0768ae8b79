"""PPO (Schulman et al. 2017, GAE of Schulman et al. 2015) and fictitious self-play against a
pool of past snapshots (Heinrich et al. 2015; Kita et al. 2024) for the bridge bidder.

Facts checked against independent computations: GAE against its closed form on a short
trajectory and, with lambda = 1, against return minus value; the clipped surrogate against a
hand computation; one PPO step lowers the loss of its batch; the pool keeps the newest
snapshots and draws pool rounds at its probability (binomial check); pool probability 0 is
plain self-play bit for bit; PPO and pool training resume exactly from checkpoints.
"""
import math
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats

from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import opponent_pool
from ospiel_team.bridge.agents.training import ppo
from ospiel_team.bridge.agents.training import trainers
from ospiel_team.errors import UserError
from tests import repo as tests_repo

SMALL = dict(hidden=32, num_blocks=1, deals_per_round=8, batch_size=16, updates_per_round=2,
             buffer_size=2000, burn_in=20)
PPO = dict(algorithm="ppo", minibatch_size=32, epochs_per_batch=2)
FSP = dict(opponent_pool_size=2, pool_snapshot_every=2, pool_probability=0.5)


@pytest.fixture(scope="module")
def ds():
  return dataset_lib.load_dataset()


def _leaves(tree):
  return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def _assert_same(t1, t2):
  for x, y in zip(_leaves(t1.params) + _leaves(t1.opt_state),
                  _leaves(t2.params) + _leaves(t2.opt_state), strict=True):
    np.testing.assert_array_equal(x, y)


# --- GAE ------------------------------------------------------------------------------------
def test_gae_equals_its_closed_form_and_lambda_one_is_return_minus_value():
  lam = 0.7
  v = np.array([0.3, -0.1, 0.5])  # one trajectory of three decisions, final reward r
  r = 0.8
  rewards = np.array([0.0, 0.0, r])
  last = np.array([False, False, True])
  adv, target = ppo.gae(rewards, v, last, lam)
  # Closed form with gamma = 1 and rewards only at the end:
  # A_t = lam^(T-1-t) r + (1 - lam) sum_{k=t+1}^{T-1} lam^(k-t-1) V_k - V_t.
  closed = [lam ** 2 * r + (1 - lam) * (v[1] + lam * v[2]) - v[0],
            lam * r + (1 - lam) * v[2] - v[1],
            r - v[2]]
  np.testing.assert_allclose(adv, closed, rtol=1e-12)
  np.testing.assert_allclose(target, np.asarray(closed) + v, rtol=1e-12)
  # Two trajectories back to back: the second does not leak into the first.
  adv2, _ = ppo.gae(np.r_[rewards, 0.0, -0.4], np.r_[v, 0.2, 0.1],
                    np.r_[last, False, True], lam)
  np.testing.assert_allclose(adv2[:3], closed, rtol=1e-12)
  np.testing.assert_allclose(adv2[3:], [lam * -0.4 + (1 - lam) * 0.1 - 0.2, -0.4 - 0.1],
                             rtol=1e-12)
  # lambda = 1: the plain return minus the value; lambda = 0: the one-step TD error.
  adv1, _ = ppo.gae(rewards, v, last, 1.0)
  np.testing.assert_allclose(adv1, r - v, rtol=1e-12)
  adv0, _ = ppo.gae(rewards, v, last, 0.0)
  np.testing.assert_allclose(adv0, [v[1] - v[0], v[2] - v[1], r - v[2]], rtol=1e-12)


def test_rollout_advantages_with_lambda_one_are_each_decisions_return_minus_value(ds):
  t = trainers.make_trainer(a2c.A2CConfig(**SMALL, **PPO), ds)
  ro = a2c.play_selfplay(t.policy, t.engine, np.random.default_rng(3), t.train_deals, 16)
  adv, target = ppo.rollout_advantages(ro, 1.0)
  np.testing.assert_allclose(adv, ro.returns() - ro.values, atol=1e-6)
  np.testing.assert_allclose(target, ro.returns(), atol=1e-6)
  # lambda < 1: each (table, seat) trajectory ends with return - value at its last call.
  adv, _ = ppo.rollout_advantages(ro, 0.5)
  for (tab, seat) in {(int(a), int(b)) for a, b in zip(ro.table, ro.seat, strict=True)}:
    idx = np.flatnonzero((ro.table == tab) & (ro.seat == seat))
    last = idx[np.argmax(ro.step[idx])]
    assert adv[last] == pytest.approx(ro.returns()[last] - ro.values[last], abs=1e-6)


# --- clipped surrogate ------------------------------------------------------------------------
def test_clipped_loss_matches_a_hand_computation():
  eps = 0.2
  # Two legal calls each; the policy's probability of the call taken is p, behaviour q.
  p = np.array([0.55, 0.6, 0.3, 0.5, 0.5, 0.5])
  q = np.array([0.5, 0.3, 0.6, 0.5, 0.3, 0.8])       # ratios 1.1, 2, 0.5, 1, 5/3, 0.625
  adv = np.array([1.0, 1.0, 1.0, -2.0, -1.0, -1.0])
  targets = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
  values = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
  logits = np.log(np.stack([p, 1 - p], axis=1))
  legal = np.ones((6, 2), bool)
  actions = np.zeros(6, int)
  ratio = p / q
  # By hand: A > 0 gains at most (1 + eps) A; A < 0 loses at least (1 - eps) A (pessimistic).
  surrogate = [1.1 * 1.0, 1.2 * 1.0, 0.5 * 1.0,      # inside, clipped above, below (no clip)
               1.0 * -2.0, 5 / 3 * -1.0, 0.8 * -1.0]  # inside, above (no clip), clipped below
  clipped_frac = 4 / 6                                # |ratio - 1| > eps: 2, 0.5, 5/3, 0.625
  entropy = -np.sum(p * np.log(p) + (1 - p) * np.log(1 - p)) / 6
  value_loss = 0.5 * np.mean((targets - values) ** 2)
  loss, terms = ppo.ppo_loss_terms(
      jnp.asarray(logits), jnp.asarray(values), jnp.asarray(actions), jnp.log(q),
      jnp.asarray(adv), jnp.asarray(targets), jnp.asarray(legal), jnp.ones(6), eps, 0.01, 0.5)
  np.testing.assert_allclose(float(terms["policy_loss"]), -np.mean(surrogate), rtol=1e-5)
  np.testing.assert_allclose(float(terms["value_loss"]), value_loss, rtol=1e-5)
  np.testing.assert_allclose(float(terms["entropy"]), entropy, rtol=1e-5)
  np.testing.assert_allclose(float(terms["mean_rho"]), ratio.mean(), rtol=1e-5)
  np.testing.assert_allclose(float(terms["clip_frac"]), clipped_frac, rtol=1e-6)
  np.testing.assert_allclose(float(loss), -np.mean(surrogate) + 0.5 * value_loss
                             - 0.01 * entropy, rtol=1e-5)
  # The gradient of the policy term is zero exactly where the clip binds (rows 1 and 5).
  g = jax.grad(lambda lg: ppo.ppo_loss_terms(
      lg, jnp.asarray(values), jnp.asarray(actions), jnp.log(q), jnp.asarray(adv),
      jnp.asarray(targets), jnp.asarray(legal), jnp.ones(6), eps, 0.0, 0.0)[1]["policy_loss"])(
          jnp.asarray(logits))
  g = np.asarray(g)
  assert np.all(g[[1, 5]] == 0) and np.all(np.abs(g[[0, 2, 3, 4]]).sum(axis=1) > 0)
  # Zero-weight (padding) rows change nothing.
  loss_pad, _ = ppo.ppo_loss_terms(
      jnp.asarray(np.r_[logits, logits[:2]]), jnp.asarray(np.r_[values, 9.0, 9.0]),
      jnp.zeros(8, int), jnp.log(np.r_[q, 0.1, 0.1]), jnp.asarray(np.r_[adv, 5.0, 5.0]),
      jnp.asarray(np.r_[targets, 0.0, 0.0]), jnp.ones((8, 2), bool),
      jnp.asarray(np.r_[np.ones(6), 0.0, 0.0]), eps, 0.01, 0.5)
  np.testing.assert_allclose(float(loss_pad), float(loss), rtol=1e-6)


def test_one_ppo_update_lowers_the_loss_of_its_batch(ds):
  cfg = a2c.A2CConfig(**SMALL, **PPO, learning_rate=1e-3)
  t = trainers.make_trainer(cfg, ds)
  ro = a2c.play_selfplay(t.policy, t.engine, np.random.default_rng(0), t.train_deals, 16)
  adv, targets = ppo.rollout_advantages(ro, cfg.gae_lambda)
  n = len(ro.actions)
  batch = (ro.obs.astype(np.float32), ro.actions.astype(np.int32), ro.logp.astype(np.float32),
           adv.astype(np.float32), targets.astype(np.float32), np.ones(n, np.float32))

  def loss_of(params):
    logits, values = t.net.apply(params, batch[0])
    return float(ppo.ppo_loss_terms(logits, values, *batch[1:5],
                                    policy_net.legal_from_obs(batch[0]), batch[5],
                                    cfg.clip_eps, cfg.entropy_coef, cfg.value_coef)[0])

  before = loss_of(t.params)
  params, _, m = t._ppo_update(t.params, t.opt_state, *batch, np.float32(cfg.entropy_coef))
  assert float(m["loss"]) == pytest.approx(before, rel=1e-5)  # the step's loss is that loss
  assert loss_of(params) < before


# --- training and resuming ------------------------------------------------------------------
@pytest.mark.parametrize("extra", [PPO, FSP, {**PPO, **FSP}], ids=["ppo", "fsp", "ppo_fsp"])
def test_training_resumes_exactly(tmp_path, ds, extra):
  cfg = a2c.A2CConfig(**SMALL, **extra)
  straight = trainers.make_trainer(cfg, ds, workdir=str(tmp_path / "a"))
  straight.train(6, checkpoint_every=100, progress=False)
  half = trainers.make_trainer(cfg, ds, workdir=str(tmp_path / "b"))
  half.train(3, checkpoint_every=1, progress=False)
  resumed = trainers.make_trainer(cfg, ds, workdir=str(tmp_path / "b"))
  assert resumed.round == 3 and type(resumed) is type(straight)
  if cfg.opponent_pool_size:
    assert resumed.pool.rounds == half.pool.rounds == [0, 2]
  resumed.train(6, checkpoint_every=100, progress=False)
  _assert_same(straight, resumed)
  assert straight.rng.bit_generator.state == resumed.rng.bit_generator.state
  strip = lambda rows: [{k: v for k, v in r.items() if "wall" not in k and "per_s" not in k
                         and k != "cpu_s"} for r in rows]
  assert strip(straight.log_rows) == strip(resumed.log_rows)
  if cfg.opponent_pool_size:
    assert straight.pool.rounds == resumed.pool.rounds == [2, 4]
    assert straight.pool.rng.bit_generator.state == resumed.pool.rng.bit_generator.state
    for p, q in zip(straight.pool.params, resumed.pool.params, strict=True):
      for x, y in zip(_leaves(p), _leaves(q), strict=True):
        np.testing.assert_array_equal(x, y)
    assert {r["opponent"] for r in straight.log_rows} > {""}  # some pool rounds were played


@pytest.mark.parametrize("extra", [{}, PPO, {"overlap_learning": True}],
                         ids=["a2c", "ppo", "a2c_overlap"])
def test_pool_probability_zero_is_plain_self_play_bit_for_bit(ds, extra):
  plain = trainers.make_trainer(a2c.A2CConfig(**SMALL, **extra), ds)
  plain.train(4, progress=False)
  pooled = trainers.make_trainer(a2c.A2CConfig(**SMALL, **extra, opponent_pool_size=3,
                                          pool_snapshot_every=1, pool_probability=0.0), ds)
  pooled.train(4, progress=False)
  assert len(pooled.pool) == 3  # snapshots were taken, none played
  _assert_same(plain, pooled)
  assert plain.rng.bit_generator.state == pooled.rng.bit_generator.state


def test_ppo_is_on_policy_at_its_first_step(ds):
  t = trainers.make_trainer(a2c.A2CConfig(**SMALL, algorithm="ppo", minibatch_size=10_000,
                                     epochs_per_batch=1), ds)
  row = t.train_round()  # one minibatch, one step: the parameters that acted
  assert row["mean_rho"] == pytest.approx(1.0, abs=1e-5) and row["clip_frac"] == 0.0


# --- the pool -------------------------------------------------------------------------------
def test_pool_keeps_the_newest_snapshots_as_copies():
  pool = opponent_pool.OpponentPool(3, 0.5, seed=0)
  for r in range(5):
    params = {"layer": {"w": np.full(2, float(r))}}
    pool.add(r * 10, params)
    params["layer"]["w"][:] = -1  # the pool holds a copy
  assert pool.rounds == [20, 30, 40] and len(pool) == 3
  assert [float(p["layer"]["w"][0]) for p in pool.params] == [2.0, 3.0, 4.0]
  assert not pool.wants_snapshot(40, 10) and pool.wants_snapshot(50, 10)
  assert not pool.wants_snapshot(55, 10)
  assert opponent_pool.OpponentPool(2, 0.0, 0).wants_snapshot(7, 10)  # empty: the start
  assert not opponent_pool.OpponentPool(0, 0.0, 0).wants_snapshot(0, 10)


def test_pool_round_frequency_matches_the_probability_and_draws_are_uniform():
  p, n = 0.3, 20_000
  pool = opponent_pool.OpponentPool(4, p, seed=123)
  for r in range(4):
    pool.add(r, {"m": {"w": np.zeros(1)}})
  draws = [pool.draw() for _ in range(n)]
  hits = np.array([d for d in draws if d is not None])
  # Two-sided binomial test at the 0.1% level, then a chi-square test of uniform snapshots.
  assert scipy.stats.binomtest(len(hits), n, p).pvalue > 1e-3
  counts = np.bincount(hits, minlength=4)
  assert scipy.stats.chisquare(counts).pvalue > 1e-3
  assert abs(len(hits) / n - p) < 4 * math.sqrt(p * (1 - p) / n)
  empty = opponent_pool.OpponentPool(4, 1.0, seed=0)
  assert empty.draw() is None  # nothing to play yet


def test_pool_rounds_learn_only_from_the_learners_seats(ds):
  t = trainers.make_trainer(a2c.A2CConfig(**SMALL, **FSP), ds)
  ro = a2c.play_selfplay(t.policy, t.engine, np.random.default_rng(1), t.train_deals, 16,
                         opponent=t.policy)
  k = 16
  first = ro.table < k
  assert np.all(ro.seat[first] % 2 == 0) and np.all(ro.seat[~first] % 2 == 1)
  # The learner holds N-S at a deal's first table and E-W at its second: the same return at
  # both (its duplicate result against the snapshot).
  r = ro.returns()
  by_table = {int(tab): float(x) for tab, x in zip(ro.table, r, strict=True)}
  for tab in range(k):
    if tab in by_table and tab + k in by_table:
      assert by_table[tab] == pytest.approx(by_table[tab + k])
  # Same random numbers and the same policy on both sides: the same calls as self-play.
  ro_self = a2c.play_selfplay(t.policy, t.engine, np.random.default_rng(1), t.train_deals, 16)
  np.testing.assert_array_equal(ro.num_calls, ro_self.num_calls)
  np.testing.assert_array_equal(
      opponent_pool.opponent_mask(np.array([0, 0, 15, 16, 16]), np.array([1, 2, 3, 0, 1]), 16),
      [True, False, True, True, False])


# --- configuration and budget ---------------------------------------------------------------
@pytest.mark.parametrize("bad,match", [
    (dict(algorithm="sac"), "algorithm"), (dict(clip_eps=0.0), "clip_eps"),
    (dict(clip_eps=1.0), "clip_eps"), (dict(gae_lambda=1.5), "gae_lambda"),
    (dict(epochs_per_batch=0), "epochs_per_batch"), (dict(minibatch_size=0), "minibatch_size"),
    (dict(opponent_pool_size=-1), "opponent_pool_size"),
    (dict(pool_probability=1.2, opponent_pool_size=1), "pool_probability"),
    (dict(pool_probability=0.5), "needs opponent_pool_size"),
    (dict(pool_snapshot_every=0), "pool_snapshot_every"),
    (dict(algorithm="ppo", overlap_learning=True), "overlap_learning")])
def test_bad_ppo_and_pool_settings_are_refused(bad, match):
  with pytest.raises(UserError, match=match):
    a2c.A2CConfig(**bad)


def test_trainer_classes_follow_the_configuration(ds):
  assert type(trainers.make_trainer(a2c.A2CConfig(**SMALL, **PPO), ds)) is ppo.PPOTrainer
  with pytest.raises(ValueError, match="make_trainer"):
    a2c.A2CTrainer(a2c.A2CConfig(**SMALL, **PPO), ds)


def test_cpu_budget_stops_training_and_counts_over_resumes(tmp_path, ds):
  cfg = a2c.A2CConfig(**SMALL, **PPO)
  t = trainers.make_trainer(cfg, ds, workdir=str(tmp_path))
  t.train(1000, max_cpu_seconds=1e-9, progress=False, checkpoint_every=100)
  assert t.round == 1 and t.total_cpu > 0 and t.log_rows[-1]["cpu_s"] > 0
  used = t.total_cpu
  again = trainers.make_trainer(cfg, ds, workdir=str(tmp_path))
  assert again.round == 1 and 0 < again.total_cpu <= used
  again.train(1000, max_cpu_seconds=1e-9, progress=False)  # budget spent: nothing to do
  assert again.round == 1


# --- the command line -----------------------------------------------------------------------
def _cli(tmp_path, *args):
  cmd = [sys.executable, "-m", "ospiel_team.cli.train_bridge", f"--workdir={tmp_path}",
         "--rounds=2", "--deals_per_round=8", "--hidden=16", "--num_blocks=1",
         "--holdout=16", "--progress=false", "--bc_teacher=", *args]
  return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tests_repo.REPO)


def test_command_trains_ppo_with_a_pool_and_refuses_them_on_the_jax_engine(tmp_path):
  out = _cli(tmp_path / "p", "--algorithm=ppo", "--minibatch_size=32", "--eval_every=0",
             "--opponent_pool_size=2", "--pool_probability=0.5", "--pool_snapshot_every=1")
  assert out.returncode == 0, out.stderr[-3000:]
  assert "rounds 2" in out.stdout
  with np.load(tmp_path / "p" / "checkpoint.npz") as z:
    assert "pool_meta" in z.files and not any(k.startswith("buf_") for k in z.files)
  out = _cli(tmp_path / "j", "--engine=jax", "--algorithm=ppo")
  assert out.returncode != 0 and "--algorithm: numpy engine only" in out.stderr
  out = _cli(tmp_path / "s", "--search=jps", "--pool_probability=0.5",
             "--opponent_pool_size=1")
  assert out.returncode != 0 and "--search is for plain A2C" in out.stderr
