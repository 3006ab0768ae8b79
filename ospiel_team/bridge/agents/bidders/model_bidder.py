"""A bridge bidder backed by a trained policy network (`policy_net`).

It is a `base.ObservationBidder` (the bidder interface, `ospiel_team.bridge.agents.bidders.base`:
``act(observations, uniforms) -> calls``), so duplicate matches
(`ospiel_team.bridge.agents.evaluation.match`) can use it::

  from ospiel_team.bridge.agents.bidders import model_bidder

  from ospiel_team.bridge.agents.evaluation import match
  bidder = model_bidder.load_bidder()                 # the shipped model
  match.run_match(bidder, "natural", boards=1000)

By default it bids greedily (the most probable legal call, as in the JPS paper's evaluation);
``greedy=False`` samples from the policy with the match's uniforms (inverse CDF).

Shipped models live in ``ospiel_team/bridge/models/`` (parameters only, ~0.9 MB each):
``best`` (the name of the strongest shipped model on the held-out deals, now ``a2c_longer``),
``a2c_longer`` and ``a2c_long`` (self-play A2C trained long, 4 seats, contested), ``a2c``
(the documented baseline, ``a2c_baseline.npz``: the start of the fine-tuning experiments) and
``a2c_uncontested`` (trained with East-West passing). Models that only an experiment uses
(the fine-tuning experiment's models, for instance) are not shipped: they stay with their
experiment in the repository and load by path. The training checkpoints the shipped models
come from (parameters, Adam state, RNG states and the whole training log), which training
resumes from with ``ospiel-team-train-bridge --resume_from``, are kept in the repository with
the command and data of each, not in the package.
`load_bidder(name_or_path)` takes one of those names or a path to any ``.npz`` written by
`policy_net.save_model` (or an A2C checkpoint). Loading a model imports only the network
(`policy_net`), not the trainer (`a2c`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.bridge.agents.bidders import base
from ospiel_team.bridge.agents.bidders import policy_net

# ospiel_team/bridge/models/ (this module is ospiel_team/bridge/agents/bidders/model_bidder.py).
MODELS_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          os.pardir, os.pardir, "models"))
SHIPPED_MODELS = {"a2c": "a2c_baseline.npz", "a2c_uncontested": "a2c_uncontested.npz",
                  "a2c_long": "a2c_long.npz", "a2c_longer": "a2c_longer.npz"}
# The strongest shipped model on the held-out deals (docs: results page, bridge head-to-heads).
SHIPPED_MODELS["best"] = SHIPPED_MODELS["a2c_longer"]


def resolved_name(name: str) -> str:
  """The shipped model a name stands for: ``best`` -> ``a2c_longer``; other names unchanged.

  Args:
    name: a bidder name or a path.

  Returns:
    The first shipped name with the same model file as `name` (the name itself unless it is
    an alias such as ``best``).
  """
  if name not in SHIPPED_MODELS:
    return name
  return next(n for n, f in SHIPPED_MODELS.items() if f == SHIPPED_MODELS[name])


def model_path(name_or_path: str = "a2c") -> str:
  """Path of a shipped model name (`SHIPPED_MODELS`) or the path itself."""
  if name_or_path in SHIPPED_MODELS:
    path = os.path.join(MODELS_DIR, SHIPPED_MODELS[name_or_path])
    if not os.path.isfile(path):
      present = sorted(n for n, f in SHIPPED_MODELS.items()
                       if os.path.isfile(os.path.join(MODELS_DIR, f)))
      raise ValueError(f"model {name_or_path!r} is not in this build ({path} is missing); "
                       f"shipped: {present}")
    return path
  if os.path.exists(name_or_path):
    return name_or_path
  raise ValueError(f"unknown model {name_or_path!r}: not a shipped model "
                   f"({sorted(SHIPPED_MODELS)}) nor an existing file")


class ModelBidder(base.ObservationBidder):
  """Bids with a trained policy network: greedy by default, or sampled with `uniforms`.

  Raises:
    errors.UserError: on construction, naming a bad argument (`net` not a haiku network,
      `params` not its parameter dict, `name` not a string, `greedy` not a bool).
  """

  def __init__(self, net, params, *, name: str = "a2c", greedy: bool = True):
    if not callable(getattr(net, "apply", None)):
      raise errors.UserError(f"net must be a haiku network (policy_net.make_network), got "
                             f"{type(net).__name__} {net!r:.80}")
    checks.check_type("params", params, Mapping, "the network's parameter dict")
    checks.check_type("name", name, str, "a string")
    checks.check_bool("greedy", greedy)
    self.name = name
    self.greedy = bool(greedy)
    self.net = net
    self.params = params
    self._policy = policy_net.PolicyFn(net, params)

  def probabilities(self, observations: np.ndarray) -> np.ndarray:
    """(n, 38) policy probabilities (zero on illegal calls)."""
    probs, _ = self._policy(np.asarray(observations, np.float32))
    return probs

  def values(self, observations: np.ndarray) -> np.ndarray:
    """(n,) the value head's expected returns of the seats to call."""
    _, values = self._policy(np.asarray(observations, np.float32))
    return values

  def act(self, observations: np.ndarray, uniforms: np.ndarray | None = None) -> np.ndarray:
    """The calls of the n tables' seats to call, from their (n, 267) observations."""
    obs = np.asarray(observations, np.float32)
    if obs.ndim != 2 or obs.shape[1] != policy_net.OBS_SIZE:
      raise ValueError(f"observations must have shape (n, {policy_net.OBS_SIZE}), got {obs.shape}")
    if len(obs) == 0:
      return np.zeros(0, np.int64)
    legal = policy_net.legal_from_obs(obs)
    if np.any(legal.sum(axis=1) == 0):
      raise ValueError(f"row {int(np.flatnonzero(legal.sum(axis=1) == 0)[0])} has no legal call")
    probs = self.probabilities(obs)
    if self.greedy or uniforms is None:
      return policy_net.greedy_calls(probs, legal)
    return policy_net.sample_calls(probs, legal, uniforms)


def load_bidder(name_or_path: str = "a2c", greedy: bool = True,
                name: str | None = None) -> ModelBidder:
  """A `ModelBidder` for a shipped model name or a model/checkpoint path.

  Args:
    name_or_path: a shipped model name (`SHIPPED_MODELS`) or a model or checkpoint file.
    greedy: bid the most probable legal call (True) or sample with the match's uniforms.
    name: the bidder's name (None: the shipped name, or the file's name without extension).

  Raises:
    errors.UserError: a bad argument (naming it); ValueError: an unknown or damaged model.
  """
  checks.check_type("name_or_path", name_or_path, (str, os.PathLike), "a model name or path")
  checks.check_bool("greedy", greedy)
  checks.check_type("name", name, (str, type(None)), "a string or None")
  name_or_path = os.fspath(name_or_path)
  net, params, _ = policy_net.load_model(model_path(name_or_path))
  label = name or (name_or_path if name_or_path in SHIPPED_MODELS
                   else os.path.splitext(os.path.basename(name_or_path))[0])
  return ModelBidder(net, params, name=label, greedy=greedy)

