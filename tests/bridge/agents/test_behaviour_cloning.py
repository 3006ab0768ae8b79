"""Behaviour cloning of a rule-based bidder (the warm start of `ospiel-team-train-bridge`)."""
import numpy as np
import pytest

from ospiel_team.bridge import auction
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import behaviour_cloning as bc


def test_states_carry_the_teachers_calls_and_cloning_learns_them():
  ds = dataset_lib.load_dataset()
  teacher = bidders_lib.make_bidder("natural")
  obs, calls = bc.collect_teacher_states(teacher, ds, np.random.default_rng(0), 200,
                                         epsilon=0.0)
  assert obs.shape == (len(calls), policy_net.OBS_SIZE) and len(calls) > 200
  legal = policy_net.legal_from_obs(obs)
  assert (legal.sum(axis=1) > 1).all() and legal[np.arange(len(calls)), calls].all()
  # The natural bidder is deterministic: re-asking it gives the recorded calls.
  np.testing.assert_array_equal(teacher.act(obs, np.zeros(len(obs))), calls)
  net = policy_net.make_network(32, 1)
  params = policy_net.init_params(net, 0)
  _, acc0 = bc.behaviour_cloning(net, params, obs, calls, 0, progress=False)
  _, acc = bc.behaviour_cloning(net, params, obs, calls, 300, batch_size=256,
                                learning_rate=3e-3, progress=False)
  assert acc0 < 0.2 and acc > 0.8, (acc0, acc)  # 38 calls: chance agreement is low


def test_exploration_and_bad_input():
  ds = dataset_lib.load_dataset()
  teacher = bidders_lib.make_bidder("natural")
  obs, calls = bc.collect_teacher_states(teacher, ds, np.random.default_rng(1), 100,
                                         epsilon=1.0)  # random auctions: other positions
  np.testing.assert_array_equal(teacher.act(obs, np.zeros(len(obs))), calls)
  with pytest.raises(ValueError, match="epsilon must be in"):
    bc.collect_teacher_states(teacher, ds, np.random.default_rng(1), 10, epsilon=1.5)
  net = policy_net.make_network(8, 1)
  with pytest.raises(ValueError, match="as many observations as calls"):
    bc.behaviour_cloning(net, policy_net.init_params(net, 0), obs[:3], calls[:2], 1)


def _kl(p, q):
  """Mean KL(p || q) over rows, on the calls p gives mass to."""
  m = p > 0
  return float(np.sum(np.where(m, p * (np.log(np.where(m, p, 1)) - np.log(np.maximum(q, 1e-30))),
                               0.0)) / len(p))


def test_distillation_matches_the_teachers_distribution_where_calls_cannot():
  # A teacher with a spread-out distribution: a small random network (ModelBidder).
  from ospiel_team.bridge.agents.bidders import model_bidder
  ds = dataset_lib.load_dataset()
  t_net = policy_net.make_network(16, 1)
  teacher = model_bidder.ModelBidder(t_net, policy_net.init_params(t_net, 3), name="t")
  obs, calls = bc.collect_teacher_states(teacher, ds, np.random.default_rng(2), 200)
  probs = bc.teacher_probabilities(teacher, obs, batch_size=97)  # several network calls
  np.testing.assert_allclose(probs, teacher.probabilities(obs), rtol=1e-6)  # batching is exact
  values = bc.teacher_values(teacher, obs, batch_size=97)
  np.testing.assert_allclose(values, policy_net.PolicyFn(t_net, teacher.params)(obs)[1],
                             rtol=1e-6)
  np.testing.assert_array_equal(probs.argmax(axis=1), calls)  # greedy teacher: its argmax
  assert probs.max(axis=1).mean() < 0.9  # not near one-hot, else the test proves nothing
  net = policy_net.make_network(32, 1)
  p0 = policy_net.init_params(net, 0)
  kw = dict(batch_size=256, learning_rate=3e-3, progress=False)
  hard, _ = bc.behaviour_cloning(net, p0, obs, calls, 400, **kw)
  soft, acc = bc.behaviour_cloning(net, p0, obs, calls, 400, targets=probs, **kw)
  kl_hard = _kl(probs, policy_net.PolicyFn(net, hard)(obs)[0])
  kl_soft = _kl(probs, policy_net.PolicyFn(net, soft)(obs)[0])
  # Imitating the calls sharpens the student towards one-hot; distillation keeps the spread.
  assert kl_soft < 0.05 < kl_hard and acc > 0.8, (kl_soft, kl_hard, acc)


def test_distillation_needs_a_network_teacher_and_distributions():
  natural = bidders_lib.make_bidder("natural")
  with pytest.raises(ValueError, match="'natural' has no probabilities"):
    bc.teacher_probabilities(natural, np.zeros((2, policy_net.OBS_SIZE), np.float32))
  with pytest.raises(ValueError, match="'natural' has no values"):
    bc.teacher_values(natural, np.zeros((2, policy_net.OBS_SIZE), np.float32))
  ds = dataset_lib.load_dataset()
  obs, calls = bc.collect_teacher_states(natural, ds, np.random.default_rng(1), 5)
  net = policy_net.make_network(8, 1)
  p0 = policy_net.init_params(net, 0)
  with pytest.raises(ValueError, match=r"targets must have shape \(\d+, 38\), got \(3, 38\)"):
    bc.behaviour_cloning(net, p0, obs, calls, 1, targets=np.full((3, 38), 1 / 38))
  bad = np.full((len(calls), 38), 0.5)
  with pytest.raises(ValueError, match="targets must be distributions"):
    bc.behaviour_cloning(net, p0, obs, calls, 1, targets=bad)


def test_value_head_fit_recovers_a_known_head_and_leaves_the_policy():
  # The teacher's values are a linear function of the student's own features (same shared
  # layers, another value head): the fit must recover them, and change nothing else.
  ds = dataset_lib.load_dataset()
  net = policy_net.make_network(16, 1)
  teacher = policy_net.init_params(net, 3)
  obs, _ = bc.collect_teacher_states(bidders_lib.make_bidder("natural"), ds,
                                     np.random.default_rng(4), 200)
  target = policy_net.PolicyFn(net, teacher)(obs)[1]
  student = {**teacher, "value": policy_net.init_params(net, 5)["value"]}
  mse0 = float(np.mean((policy_net.PolicyFn(net, student)(obs)[1] - target) ** 2))
  fitted, mse = bc.fit_value_head(net, student, obs, target, 1500, batch_size=256,
                                  learning_rate=1e-2, progress=False)
  assert mse < 1e-3 * max(mse0, float(np.var(target))), (mse, mse0, np.var(target))
  for name in teacher:
    if name != "value":
      for k in teacher[name]:
        np.testing.assert_array_equal(fitted[name][k], student[name][k])
  np.testing.assert_array_equal(policy_net.PolicyFn(net, fitted)(obs)[0],
                                policy_net.PolicyFn(net, student)(obs)[0])
  with pytest.raises(ValueError, match="as many observations as values"):
    bc.fit_value_head(net, student, obs, target[:-1], 1)


def test_an_actor_plays_the_auctions_and_the_teacher_labels_them():
  # The actor always passes: every deal is passed out, so each of its 4 decisions is a state
  # (an empty auction has many legal calls), labelled by the natural bidder's call there.
  ds = dataset_lib.load_dataset()
  teacher = bidders_lib.make_bidder("natural")
  obs, calls = bc.collect_teacher_states(teacher, ds, np.random.default_rng(6), 40,
                                         epsilon=0.0, actor=bidders_lib.make_bidder("pass"))
  assert len(calls) == 4 * 40
  np.testing.assert_array_equal(teacher.act(obs, np.zeros(len(obs))), calls)
  assert (calls != auction.PASS).any()  # the teacher would have opened some of them
  # Without an actor, the same seed gives the teacher's own auctions (longer: it bids).
  own, _ = bc.collect_teacher_states(teacher, ds, np.random.default_rng(6), 40, epsilon=0.0)
  assert len(own) > len(obs)
