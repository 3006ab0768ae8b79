"""Distillation of the JPS search, the random control, and the Q head (tiny, seconds)."""
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import jps_bid
from ospiel_team.bridge.agents.training import search_buffer as sb
from ospiel_team.errors import UserError


def _positions(n, seed=0):
  """Observations of random auctions (each with >= 2 legal calls)."""
  eng = engine_lib.BiddingEngine()
  rng = np.random.default_rng(seed)
  eng.reset_random(rng, n)
  for _ in range(3):
    legal = eng.legal_mask()
    eng.step(np.array([rng.choice(np.flatnonzero(ln)) if ln.any() else 0 for ln in legal]))
  obs = eng.observation()[~eng.done].astype(np.float32)
  return obs[policy_net.legal_from_obs(obs).sum(axis=1) >= 2]


def _targets(probs, legal):
  """Candidates (greedy call, least probable legal call) with values (0, 1): target = 2nd."""
  greedy = policy_net.greedy_calls(probs, legal)
  least = np.argmin(np.where(legal, probs, 2.0), axis=1)
  calls = np.stack([greedy, least], axis=1).astype(np.int32)
  values = np.tile(np.array([0.0, 1.0], np.float32), (len(calls), 1))
  return calls, values, least.astype(np.int32)


@pytest.mark.parametrize("kind", ["hard", "soft"])
def test_distillation_moves_greedy_call_to_target(kind):
  net = policy_net.make_network(16, 1)
  params = policy_net.init_params(net, 0)
  obs = _positions(48)
  legal = policy_net.legal_from_obs(obs)
  probs0 = np.asarray(jax.nn.softmax(net.apply(params, obs)[0]))
  calls, values, target = _targets(probs0, legal)
  assert np.all(policy_net.greedy_calls(probs0, legal) != target)  # none there at the start
  opt = optax.adam(1e-2)
  state = opt.init(params)
  weight = jnp.ones(len(obs))

  def loss(p):
    return sb.distill_loss_terms(net.apply(p, obs)[0], calls, values, target, weight, kind,
                                 0.0, 0.5)[0]

  step = jax.jit(lambda p, s: (lambda g: (optax.apply_updates(p, opt.update(g, s, p)[0]),
                                          opt.update(g, s, p)[1]))(jax.grad(loss)(p)))
  for _ in range(60):
    params, state = step(params, state)
  probs = np.asarray(jax.nn.softmax(net.apply(params, obs)[0]))
  rows = np.arange(len(obs))
  assert np.all(probs[rows, target] > probs0[rows, target])
  moved = np.mean(policy_net.greedy_calls(probs, legal) == target)
  assert moved > 0.9, moved


def test_soft_target_kl_matches_numpy_and_the_requested_level():
  rng = np.random.default_rng(1)
  obs = _positions(40, seed=1)
  legal = policy_net.legal_from_obs(obs)
  logits = np.where(legal, rng.normal(size=legal.shape), -1e9).astype(np.float32)
  logp = np.asarray(jax.nn.log_softmax(logits))
  calls = np.stack([np.argsort(-np.where(legal, logits, -1e10), axis=1)[:, j] for j in range(3)],
                   axis=1).astype(np.int32)
  values = rng.normal(scale=0.2, size=calls.shape).astype(np.float32)
  dense_v, mask = sb.dense_candidates(jnp.asarray(calls), jnp.asarray(values))
  beta = float(sb.choose_inverse_temperature(jnp.asarray(logp), dense_v, mask, 0.075))
  # The same tilt in numpy: pi'(a) ~ pi(a) exp(beta (v(a) - vbar)) on the 3 candidates.
  p = np.exp(logp)
  kls = []
  for i in range(len(obs)):
    pc = p[i, calls[i]]
    vbar = np.sum(pc * values[i]) / pc.sum()
    q = p[i].copy()
    q[calls[i]] *= np.exp(beta * (values[i] - vbar))
    q /= q.sum()
    nz = q > 0
    kls.append(np.sum(q[nz] * (np.log(q[nz]) - logp[i, nz])))
  assert np.mean(kls) == pytest.approx(0.075, abs=1e-3)
  # and the loss reports the same KL and tau = 1 / beta
  _, m = sb.distill_loss_terms(jnp.asarray(logits), calls, values, calls[:, 0],
                               jnp.ones(len(obs)), "soft", 0.0, 0.075)
  assert float(m["distill_kl"]) == pytest.approx(np.mean(kls), abs=1e-4)
  assert float(m["distill_tau"]) == pytest.approx(1.0 / beta, rel=1e-4)


def _one_deal_dataset():
  holders = dataset_lib.load_dataset().holders[:1]
  tricks = np.full((1, 5, 4), 6, np.uint8)
  tricks[0, 3, 2] = 12   # South makes 12 tricks in spades
  return dataset_lib.BridgeDataset(holders, tricks)


def _cfg(**kw):
  base = dict(hidden=16, num_blocks=1, deals_per_round=2, batch_size=16, updates_per_round=1,
              buffer_size=500, burn_in=1, seed=3, distill_coef=1.0, search_buffer_size=300,
              uncontested=True)
  base.update(kw)
  return a2c.A2CConfig(**base)


def _search_round(target):
  tr = a2c.A2CTrainer(_cfg(distill_target=target), _one_deal_dataset())
  tr.search = jps_bid.GameSearch(fraction=1.0, depth=3, candidates=4, rollouts=1,
                                 candidate_threshold=0.0, seed=5)
  played = []
  inner = a2c.play_selfplay

  def spy(*args, **kwargs):
    ro = inner(*args, **kwargs)
    played.append(ro)
    return ro

  a2c.play_selfplay = spy
  try:
    tr.train_round()
  finally:
    a2c.play_selfplay = inner
  return tr, played[0]


def test_search_buffer_records_searched_and_random_targets():
  hard, ro_h = _search_round("hard")
  ctrl, ro_c = _search_round("random")
  for tr in (hard, ctrl):
    b = tr.search_buffer
    assert b.size > 0 and tr.search.total_points >= b.size
    calls = b.calls[:b.size]
    assert np.all((calls == b.chosen[:b.size, None]).any(axis=1))
    assert np.all((calls == b.random[:b.size, None]).any(axis=1))
    assert np.all((calls >= 0).sum(axis=1) >= 2)
  # the searched call is the candidate of the highest recorded value
  b = hard.search_buffer
  vals = np.where(b.calls[:b.size] >= 0, b.values[:b.size], -np.inf)
  best = b.calls[np.arange(b.size), np.argmax(vals, axis=1)]
  np.testing.assert_array_equal(best, b.chosen[:b.size])
  # the control's targets are random candidates, not the searched ones
  c = ctrl.search_buffer
  assert np.mean(c.random[:c.size] != c.chosen[:c.size]) > 0.3
  # the first decision (same position and search in both arms: same seeds) is played as the
  # searched call by the JPS arm and as the random candidate by the control
  assert ro_h.actions[0] == b.chosen[0] and ro_c.actions[0] == c.random[0]


def test_search_buffer_fifo_and_bad_rows():
  buf = sb.SearchBuffer(3)
  obs = _positions(5)
  calls = np.array([[0, 1]] * 5)
  buf.add(obs, calls, np.ones((5, 2)), np.array([0, 1, 0, 1, 0]), np.zeros(5, np.int64))
  assert buf.size == 3 and buf.total_added == 5
  np.testing.assert_array_equal(np.sort(buf.chosen), [0, 0, 1])
  with pytest.raises(ValueError, match="chosen"):
    buf.add(obs[:1], calls[:1], np.ones((1, 2)), np.array([7]), np.array([0]))
  o, c, v, t = buf.sample(np.random.default_rng(0), 4, "random")
  assert o.shape == (4, 267) and c.shape == (4, sb.MAX_CANDIDATES) and np.all(t == 0)


def test_values_in_imps_of_raw_scores():
  v = np.array([[420.0, 450.0, -np.inf], [100.0, -50.0, 0.0]])
  got = sb.values_in_imps(v, "score")
  # 30 points -> 1 IMP; -150 -> -4; -100 -> -3 (standard IMP scale)
  np.testing.assert_allclose(got[0, :2] * 24, [0, 1])
  assert got[0, 2] == -np.inf
  np.testing.assert_allclose(got[1] * 24, [0, -4, -3])


# ------------------------------------------------------------------------------------------
# Q head
# ------------------------------------------------------------------------------------------
def test_q_head_fits_known_returns():
  cfg = a2c.A2CConfig(hidden=16, num_blocks=1, q_coef=1.0, learning_rate=1e-2)
  qnet = policy_net.make_q_network(16, 1)
  params = policy_net.init_params(policy_net.make_network(16, 1, q_head=True), 0)
  assert set(params) >= {"q", "policy", "value"}
  opt = optax.adam(cfg.learning_rate)
  state = opt.init(params)
  update = a2c.make_search_update_fn(qnet, opt, cfg)
  obs = _positions(64, seed=2)
  legal = policy_net.legal_from_obs(obs)
  rng = np.random.default_rng(0)
  act = np.array([rng.choice(np.flatnonzero(ln)) for ln in legal], np.int32)
  ret = np.where(act == A.PASS, -0.5, 0.25).astype(np.float32)  # a return known per call
  mu = np.log(np.full(len(act), 0.1, np.float32))
  dummy = (np.zeros((1, 267), np.float32), np.full((1, 8), -1, np.int32),
           np.zeros((1, 8), np.float32), np.zeros(1, np.int32), np.zeros(1, np.float32))
  losses = []
  for _ in range(150):
    params, state, m = update(params, state, obs, act, mu, ret, np.float32(0.0), *dummy)
    losses.append(float(m["q_loss"]))
  assert losses[-1] < 0.05 * losses[0]
  q = policy_net.q_values(params, obs, {"hidden": 16, "num_blocks": 1})
  np.testing.assert_allclose(q[np.arange(len(act)), act], ret, atol=0.1)


def test_mixed_candidate_values():
  v = np.array([[0.2, -np.inf, 0.0]])
  q = np.array([[0.0, 5.0, 1.0]])
  np.testing.assert_allclose(policy_net.mixed_candidate_values(v, q, 0.25),
                             [[0.15, -np.inf, 0.25]])
  np.testing.assert_allclose(policy_net.mixed_candidate_values(v, q, 0.0), v)
  with pytest.raises(UserError, match="lam"):
    policy_net.mixed_candidate_values(v, q, 1.5)


def _numpy_forward(params, obs, num_blocks):
  relu = lambda x: np.maximum(x, 0.0)  # noqa: E731
  x = relu(obs @ params["fc_in"]["w"] + params["fc_in"]["b"])
  for i in range(num_blocks):
    y = relu(x @ params[f"block{i}_fc1"]["w"] + params[f"block{i}_fc1"]["b"])
    x = relu(x + y @ params[f"block{i}_fc2"]["w"] + params[f"block{i}_fc2"]["b"])
  return x @ params["policy"]["w"] + params["policy"]["b"]


def test_shipped_model_loads_without_q_head_and_acts_as_its_parameters_say():
  net, params, meta = policy_net.load_model(model_bidder.model_path("a2c_longer"))
  assert "q_head" not in meta["network"] and "q" not in params
  obs = _positions(32, seed=3)
  legal = policy_net.legal_from_obs(obs)
  logits = np.asarray(net.apply(params, obs)[0])
  ref = _numpy_forward({k: {n: np.asarray(a, np.float64) for n, a in d.items()}
                        for k, d in params.items()}, obs.astype(np.float64), 2)
  np.testing.assert_array_equal(policy_net.greedy_calls(logits, legal),
                                policy_net.greedy_calls(np.where(legal, ref, -1e9), legal))


def test_q_head_grafted_on_resume_and_saved_models_keep_it(tmp_path):
  ds = dataset_lib.load_dataset()
  base = dict(hidden=16, num_blocks=1, deals_per_round=4, batch_size=16, updates_per_round=1,
              buffer_size=500, burn_in=1, seed=3)
  plain = a2c.A2CTrainer(a2c.A2CConfig(**base), ds, workdir=str(tmp_path / "w"))
  plain.train(1, progress=False)
  with_q = a2c.A2CTrainer(a2c.A2CConfig(**base, q_coef=0.5), ds, workdir=str(tmp_path / "w"))
  assert with_q.round == 1 and "q" in with_q.params
  for k in plain.params:
    np.testing.assert_array_equal(np.asarray(with_q.params[k]["w"]),
                                  np.asarray(plain.params[k]["w"]))
  with_q.train(2, progress=False)
  row = with_q.log_rows[-1]
  assert np.isfinite(row["q_loss"])
  path = str(tmp_path / "m.npz")
  policy_net.save_model(path, with_q.params, with_q.cfg)
  net, params, meta = policy_net.load_model(path)
  assert meta["network"]["q_head"] is True and "q" in params
  q = policy_net.q_values(params, _positions(4), meta["network"])
  assert q.shape[1] == 38


# ------------------------------------------------------------------------------------------
# Configuration
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("field,value", [("distill_coef", -1.0), ("distill_fraction", 0.0),
                                         ("distill_fraction", 1.5), ("distill_target", "best"),
                                         ("distill_tau", -0.1), ("distill_kl", 0.0),
                                         ("search_buffer_size", 0), ("q_coef", float("nan")),
                                         ("search_q_lambda", 2.0)])
def test_new_fields_are_validated_naming_field_and_value(field, value):
  with pytest.raises(UserError, match=f"{field}.*{value!r}".replace("(", r"\(")):
    a2c.A2CConfig(**{field: value})


def test_lambda_needs_q_head_and_flags_exist():
  with pytest.raises(UserError, match="search_q_lambda=0.5 needs a Q head"):
    a2c.A2CConfig(search_q_lambda=0.5)
  cfg = a2c.A2CConfig(search_q_lambda=0.5, q_coef=0.1)
  assert cfg.network_dict() == {"hidden": 200, "num_blocks": 2, "q_head": True}
  assert a2c.A2CConfig().network_dict() == {"hidden": 200, "num_blocks": 2}
  from absl import flags

  from ospiel_team.cli import config_flags
  fv = flags.FlagValues()
  config_flags.define_config_flags(a2c.A2CConfig, flag_values=fv)
  fv(["prog", "--distill_coef=0.5", "--distill_target=soft", "--q_coef=0.1"])
  cfg = config_flags.config_from_flags(a2c.A2CConfig, flag_values=fv)
  assert dataclasses.astuple(cfg) == dataclasses.astuple(
      a2c.A2CConfig(distill_coef=0.5, distill_target="soft", q_coef=0.1))


def test_distillation_needs_a_search_and_the_numpy_trainer():
  from ospiel_team.bridge.agents.training import jax_trainer
  tr = a2c.A2CTrainer(_cfg(uncontested=False, updates_per_round=1), _one_deal_dataset())
  with pytest.raises(UserError, match="distill_coef=1.0 distils a search"):
    tr.train_round()
  with pytest.raises(UserError, match="JAX trainer has no search distillation"):
    jax_trainer.JaxA2CTrainer(a2c.A2CConfig(q_coef=0.5))


def test_distilling_a_search_of_more_candidates_than_the_buffer_keeps_is_refused_on_attaching():
  """The authors' budget (38 candidates) failed mid-training in `SearchBuffer.add`; attaching
  it to a distilling trainer is now the UserError naming candidates and distill_coef."""
  budget = jps_bid.SearchOptions.authors_budget()
  assert budget.candidates == 38 > sb.MAX_CANDIDATES == 8
  tr = a2c.A2CTrainer(_cfg(), _one_deal_dataset())  # distill_coef=1.0
  for hook in (jps_bid.GameSearch(budget), jps_bid.JPSBidSearch(budget)):
    with pytest.raises(UserError, match=r"^candidates=38 with distill_coef=1.0: .* at most 8 "
                                        r"candidates"):
      tr.search = hook
    assert tr.search is None
  fits = jps_bid.GameSearch(dataclasses.replace(budget, candidates=sb.MAX_CANDIDATES))
  tr.search = fits  # as many as a row keeps: attached
  assert tr.search is fits
  plain = a2c.A2CTrainer(_cfg(distill_coef=0.0), _one_deal_dataset())
  plain.search = jps_bid.GameSearch(budget)  # no distillation, no search buffer: no limit
  assert plain.search_buffer is None and plain.search.options.candidates == 38


def _fake_result(obs, rng):
  legal = policy_net.legal_from_obs(obs)
  calls = np.argsort(-np.where(legal, rng.random(legal.shape), -1.0), axis=1)[:, :3]
  values = rng.normal(size=calls.shape)
  best = calls[np.arange(len(calls)), np.argmax(values, axis=1)]
  return jps_bid.SearchResult(best_call=best, best_value=values.max(axis=1),
                              candidate_calls=calls, candidate_values=values, root_obs=obs,
                              root_logp=np.zeros(len(obs)), partner_obs=obs[:0],
                              partner_call=best[:0], partner_value=values[:0, 0],
                              partner_logp=values[:0, 0], partner_root=best[:0],
                              num_candidates=np.full(len(obs), 3))


@pytest.mark.parametrize("lam", [0.0, 1.0])
def test_recorded_target_is_the_best_mixed_value(lam):
  obs = _positions(20, seed=4)
  res = _fake_result(obs, np.random.default_rng(0))
  tr = a2c.A2CTrainer(_cfg(q_coef=1.0, search_q_lambda=lam), _one_deal_dataset())
  target = tr.record_search(res, "imps")
  if lam == 0:
    np.testing.assert_array_equal(target, res.best_call)
  else:  # lambda = 1: the candidate of the highest Q(I, a), computed here directly
    q = policy_net.q_values(tr.params, obs, {"hidden": 16, "num_blocks": 1})
    qc = np.take_along_axis(q, res.candidate_calls, axis=1)
    want = res.candidate_calls[np.arange(len(obs)), np.argmax(qc, axis=1)]
    np.testing.assert_array_equal(target, want)
    assert np.any(want != res.best_call)
  np.testing.assert_array_equal(tr.search_buffer.chosen[:len(obs)], target)


def test_frozen_trunk_q_head_fit_recovers_a_linear_truth_and_matches_the_network():
  rng = np.random.default_rng(5)
  net = policy_net.make_network(16, 1)
  params = policy_net.init_params(net, 0)
  obs = _positions(400, seed=6)
  h = policy_net.trunk_features(params, obs, {"hidden": 16, "num_blocks": 1})
  assert h.shape == (len(obs), 16)
  act = rng.integers(0, 3, len(obs))  # calls 0..2 played, the others never
  w_true, b_true = rng.normal(size=(16, 3)), rng.normal(size=3)
  ret = np.einsum("nd,dn->n", h, w_true[:, act]) + b_true[act]
  head = policy_net.fit_q_head(h, act, ret, ridge=1e-6)
  np.testing.assert_allclose(head["w"][:, :3], w_true, atol=1e-2)
  np.testing.assert_allclose(head["b"][:3], b_true, atol=1e-2)
  # never-played calls: no weight, the mean of all returns
  assert np.all(head["w"][:, 3:] == 0)
  np.testing.assert_allclose(head["b"][3:], ret.mean(), rtol=1e-5)
  # the fitted head grafted on the network gives the same Q as the features x weights
  q = policy_net.q_values(dict(params, q=head), obs, {"hidden": 16, "num_blocks": 1})
  np.testing.assert_allclose(q[np.arange(len(act)), act], ret, atol=1e-2)
  with pytest.raises(UserError, match="ridge"):
    policy_net.fit_q_head(h, act, ret, ridge=0.0)
  # shrunk towards a prior head: a never-played call is the prior; a heavy penalty leaves each
  # played call the prior plus the mean of its residuals (a constant advantage)
  prior = {"w": rng.normal(size=(16, 1)), "b": np.array([0.3])}
  v = h @ prior["w"][:, 0] + 0.3
  big = policy_net.fit_q_head(h, act, ret, ridge=1e9, prior=prior)
  np.testing.assert_allclose(big["w"][:, 5], prior["w"][:, 0], rtol=1e-5)
  np.testing.assert_allclose(big["b"][5], 0.3 + (ret - v).mean(), rtol=1e-4)
  for c in range(3):
    np.testing.assert_allclose(big["w"][:, c], prior["w"][:, 0], atol=1e-4)
    np.testing.assert_allclose(big["b"][c], 0.3 + (ret - v)[act == c].mean(), atol=1e-4)


def test_record_search_skips_roots_the_search_did_not_simulate():
  # GameSearch's min_candidates=2 leaves roots with one candidate unsimulated: all values -inf
  obs = _positions(6, seed=7)
  res = _fake_result(obs, np.random.default_rng(1))
  res.candidate_values[0] = -np.inf
  res.candidate_values[1, 1:] = -np.inf  # one valid candidate: not recorded either
  tr = a2c.A2CTrainer(_cfg(distill_target="random"), _one_deal_dataset())
  target = tr.record_search(res, "score")
  assert target[0] == -1 and target[1] == -1
  assert np.all((res.candidate_calls[2:] == target[2:, None]).any(axis=1))
  assert tr.search_buffer.size == len(obs) - 2
