"""Q(I, a) of `a2c_longer` with the Q head fitted by `q_head.py`, for ``gate.py --q_hook``.

  python experiments/bridge_jps_at_scale/gate.py --lam 0.25 \\
      --q_hook experiments.bridge_jps_at_scale.q_hook:q_a2c_longer ...

(run from the repository root, so that ``experiments`` is importable). The head's parameters
are ``q_head.npz`` of this folder; the trunk is the shipped `a2c_longer`'s, unchanged.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net

HEAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "q_head.npz")


@functools.cache
def _model(head_path: str = HEAD):
  """(params with the Q head grafted on, network size) of the head's model."""
  with np.load(head_path, allow_pickle=False) as z:
    model, w, b = str(z["model"]), z["q/w"], z["q/b"]
  _, params, meta = policy_net.load_model(model_bidder.model_path(model))
  return dict(params, q={"w": w, "b": b}), meta["network"]


def q_a2c_longer(obs: np.ndarray) -> np.ndarray:
  """(n, 38) Q(I, a) in IMPs / 24 for the seat to call at observations `obs` (n, 267)."""
  params, network = _model()
  return policy_net.q_values(params, obs, network)
