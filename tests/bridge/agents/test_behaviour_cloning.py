"""Behaviour cloning of a rule-based bidder (the warm start of `ospiel-team-train-bridge`)."""
import numpy as np
import pytest

from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents import behaviour_cloning as bc
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents import policy_net


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
