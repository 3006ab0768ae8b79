"""The bridge bidding policy network of our A2C bidders: definition, inference, saving, loading.

Inference only (no training code), so that bidding with a saved model
(`ospiel_team.bridge.agents.bidders.model_bidder`) does not import the trainer
(`ospiel_team.bridge.agents.training.a2c`, which imports this module).

Network (JPS paper, Tian, Gong and Jiang, "Joint Policy Search for Multi-agent Collaboration
with Imperfect Information", NeurIPS 2020, arXiv:2008.06495, Fig. 2 / Appendix E): the 267-bit
observation of Appendix D (`ospiel_team.bridge.auction`) -> a fully connected layer of
``hidden`` (200) units -> ``num_blocks`` residual blocks of two fully connected layers each
(``x <- relu(x + W2 relu(W1 x))``) -> a policy head (38 logits, illegal calls masked with the
observation's legal-call bits) and a value head (the expected return of the seat to call's team);
optionally a Q head (`make_q_network`: Q(I, a) for the 38 calls in one pass; models without one
load and act as before).

Saved models (`save_model` / `load_model`) are ``.npz`` files: ``meta`` (JSON: network size,
``uncontested`` and free-form metadata) and ``param/<module>/<name>`` float32 arrays.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Mapping

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import haiku_params
from ospiel_team.bridge import shipped_digests
from ospiel_team.bridge.haiku_params import flatten_params
from ospiel_team.bridge.haiku_params import unflatten_params

NUM_CALLS = A.NUM_CALLS
OBS_SIZE = A.OBSERVATION_SIZE


# ------------------------------------------------------------------------------------------
# Network
# ------------------------------------------------------------------------------------------
def legal_from_obs(obs):
  """(B, 38) bool legal calls from (B, 267) observations (works on numpy and jax arrays)."""
  return obs[:, A.OBS_LEGAL:] > 0.5


def make_network(hidden: int = 200, num_blocks: int = 2,
                 q_head: bool = False) -> hk.Transformed:
  """Haiku transform of obs (B, 267) -> (masked logits (B, 38), value (B,)).

  Args:
    hidden: units per fully connected layer.
    num_blocks: residual blocks.
    q_head: the parameters also hold a Q head (``q``: Q(I, a) for the 38 calls, read with
      `make_q_network`); this transform's outputs are the same either way.

  Raises:
    ValueError: for a bad size.
  """
  return _transform(hidden, num_blocks, q_head, with_q=False)


def make_q_network(hidden: int = 200, num_blocks: int = 2) -> hk.Transformed:
  """Haiku transform of obs (B, 267) -> (masked logits, value, Q (B, 38)) of a Q-head network.

  Its parameters are those of ``make_network(hidden, num_blocks, q_head=True)``. Q(I, a) is
  the expected return (IMPs / 24, as the value head) of the seat to call's team after call
  ``a``; illegal calls' entries are meaningless (not masked).
  """
  return _transform(hidden, num_blocks, True, with_q=True)


def _trunk(obs, hidden: int, num_blocks: int):
  """The shared layers (input layer and residual blocks): (B, hidden) features."""
  x = jax.nn.relu(hk.Linear(hidden, name="fc_in")(obs))
  for i in range(num_blocks):
    y = jax.nn.relu(hk.Linear(hidden, name=f"block{i}_fc1")(x))
    y = hk.Linear(hidden, name=f"block{i}_fc2")(y)
    x = jax.nn.relu(x + y)
  return x


def _transform(hidden: int, num_blocks: int, q_head: bool, with_q: bool) -> hk.Transformed:
  if hidden < 1 or num_blocks < 0:
    raise ValueError(f"bad network size hidden={hidden}, num_blocks={num_blocks}")

  def forward(obs):
    x = _trunk(obs, hidden, num_blocks)
    logits = hk.Linear(NUM_CALLS, name="policy")(x)
    logits = jnp.where(legal_from_obs(obs), logits, -1e9)
    value = hk.Linear(1, name="value")(x)[:, 0]
    if not q_head:
      return logits, value
    q = hk.Linear(NUM_CALLS, name="q")(x)
    return (logits, value, q) if with_q else (logits, value)

  return hk.without_apply_rng(hk.transform(forward))


def has_q_head(params) -> bool:
  """Whether haiku parameters `params` hold a Q head (module ``q``)."""
  return "q" in params


def q_values(params, obs: np.ndarray, network: dict) -> np.ndarray:
  """(B, 38) Q(I, a) of the observations `obs` under a Q-head network's parameters.

  Args:
    params: parameters of ``make_network(**network, q_head=True)``.
    obs: (B, 267) observations (float32 or uint8 bits).
    network: the network's size, ``{"hidden", "num_blocks"}`` (``q_head`` may be present).

  Raises:
    ValueError: when `params` hold no Q head.
  """
  if not has_q_head(params):
    raise ValueError("q_values: these parameters have no Q head (train with q_coef > 0)")
  net = make_q_network(network["hidden"], network["num_blocks"])
  _, _, q = net.apply(params, jnp.asarray(np.asarray(obs), jnp.float32))
  return np.asarray(q, np.float64)


def trunk_features(params, obs: np.ndarray, network: dict) -> np.ndarray:
  """(B, hidden) float32 features of the shared layers (what the policy, value and Q heads read).

  Args:
    params: parameters of ``make_network(**network)`` (any heads).
    obs: (B, 267) observations (float32 or uint8 bits).
    network: the network's size, ``{"hidden", "num_blocks"}`` (other keys ignored).
  """
  hidden, num_blocks = network["hidden"], network["num_blocks"]
  net = hk.without_apply_rng(hk.transform(lambda o: _trunk(o, hidden, num_blocks)))
  trunk = {k: v for k, v in params.items() if k == "fc_in" or k.startswith("block")}
  obs = np.asarray(obs)
  return np.concatenate([np.asarray(net.apply(trunk, jnp.asarray(obs[i:i + 65536], jnp.float32)))
                         for i in range(0, max(len(obs), 1), 65536)])


def fit_q_head(features: np.ndarray, actions: np.ndarray, returns: np.ndarray, *,
               ridge: float = 1.0, prior: dict | None = None) -> dict[str, np.ndarray]:
  """A Q head fitted to observed returns with the trunk frozen: ridge regression per call.

  The Q head is linear in the trunk's features, ``Q(I, a) = w_a . h(I) + b_a``, and its
  training loss (`a2c_loss.make_search_update_fn`: ``0.5 (G - Q(I, a))^2`` on the decisions
  played) separates over the calls ``a``; with the trunk frozen its minimiser is the least
  squares fit of each call's returns on the features of the decisions where it was played.
  This solves it in closed form, with a ridge penalty ``ridge * |w_a|^2`` (the bias is not
  penalised), so a call played rarely (or never) falls back towards the mean of its returns
  (or of all returns). With a `prior` head, a linear function ``w0 . h + b0`` of the same
  features (the value head: ``prior=params["value"]``), the fit is of the returns minus the
  prior, and the penalty shrinks each call's weights towards the prior's instead of 0:
  ``Q(I, a) = V(I) + A(I, a)`` with the advantage ``A`` regularised.

  Args:
    features: (n, hidden) trunk features of the decisions (`trunk_features`).
    actions: (n,) the calls played there.
    returns: (n,) their returns (IMPs / 24, as the value head).
    ridge: the penalty on the weights, > 0.
    prior: None, or ``{"w": (hidden, 1) or (hidden,), "b": (1,) or scalar}``: the linear
      head the weights are shrunk towards.

  Returns:
    ``{"w": (hidden, 38), "b": (38,)}`` float32: the ``q`` module's parameters.

  Raises:
    UserError: `ridge` not above 0, or arrays whose lengths differ.
  """
  from ospiel_team import checks
  from ospiel_team.errors import UserError
  ridge = checks.check_real("ridge", ridge, above=0)
  h = np.asarray(features)
  a = np.asarray(actions, np.int64)
  g = np.asarray(returns, np.float64)
  if h.ndim != 2 or not len(h) == len(a) == len(g):
    raise UserError(f"features {h.shape}, actions {a.shape} and returns {g.shape} must have "
                    "the same number of rows")
  d = h.shape[1]
  w0, b0 = np.zeros(d), 0.0
  if prior is not None:
    w0 = np.asarray(prior["w"], np.float64).reshape(d)
    b0 = float(np.asarray(prior["b"], np.float64).reshape(()))
    g = g - (h @ w0.astype(h.dtype) + b0)
  w = np.zeros((d, NUM_CALLS))
  b = np.full(NUM_CALLS, g.mean() if len(g) else 0.0)
  for call in range(NUM_CALLS):
    rows = a == call
    if not rows.any():
      continue
    hc, gc = h[rows].astype(np.float64), g[rows]
    mu_h, mu_g = hc.mean(axis=0), gc.mean()
    hc0 = hc - mu_h
    w[:, call] = np.linalg.solve(hc0.T @ hc0 + ridge * np.eye(d), hc0.T @ (gc - mu_g))
    b[call] = mu_g - mu_h @ w[:, call]
  return {"w": (w + w0[:, None]).astype(np.float32), "b": (b + b0).astype(np.float32)}


def mixed_candidate_values(true_values: np.ndarray, q: np.ndarray, lam: float) -> np.ndarray:
  """Candidate values ``(1 - lam) * true_values + lam * q`` (the JPS paper's Eq. 7 mixture).

  The transferable target of JPS (Tian, Gong & Jiang, "Joint Policy Search for Multi-agent
  Collaboration with Imperfect Information", NeurIPS 2020, arXiv:2008.06495, Sec. 5.2, Eq. 7:
  the sampled-state term on the true deal and a network term, weight lambda): the search's
  value of a candidate on the true deal, mixed with the network's Q(I, a), which depends only
  on what the player sees.

  Args:
    true_values: (..., k) the search's candidate values, in IMPs / 24 like `q`; -inf marks an
      invalid candidate and stays -inf.
    q: (..., k) Q(I, a) of the same candidates.
    lam: lambda in [0, 1] (0: the true-deal values alone).

  Returns:
    The mixed values, (..., k).

  Raises:
    UserError: `lam` out of [0, 1], or shapes that differ.
  """
  from ospiel_team import checks
  lam = checks.check_real("lam", lam, minimum=0, maximum=1)
  v, q = np.asarray(true_values, np.float64), np.asarray(q, np.float64)
  if v.shape != q.shape:
    from ospiel_team.errors import UserError
    raise UserError(f"true_values {v.shape} and q {q.shape} must have the same shape")
  valid = np.isfinite(v)
  out = (1.0 - lam) * np.where(valid, v, 0.0) + lam * q
  return np.where(valid, out, -np.inf)


def init_params(net: hk.Transformed, seed: int):
  """The network's initial parameters, drawn from `jax.random.PRNGKey(seed)`."""
  return net.init(jax.random.PRNGKey(seed), jnp.zeros((1, OBS_SIZE), jnp.float32))


def padded_size(n: int, fine: bool = True) -> int:
  """Batch size that `PolicyFn` pads `n` rows to (jit compiles one program per size).

  ``fine=False``: the next power of two (>= 64), which wastes up to half of the network's work
  on padding rows. ``fine=True``: the next multiple of a quarter of the power of two below `n`
  (>= 64), i.e. at most 25% padding with four compiled sizes per doubling.
  """
  n = max(int(n), 1)
  if n <= 64:
    return 64
  if not fine:
    return 1 << int(np.ceil(np.log2(n)))
  step = 1 << (int(np.floor(np.log2(n))) - 2)
  return -(-n // step) * step


class PolicyFn:
  """Jitted ``obs (B, 267) -> (probs (B, 38) float64, value (B,))`` for fixed parameters.

  Batches are padded (`padded_size`) so jit compiles few shapes. Observations may be float32
  or uint8 (0/1 bits; a quarter of the bytes to copy); the network computes in float32 either
  way (the cast happens inside the jitted function).
  """

  def __init__(self, net: hk.Transformed, params, fine_padding: bool = True):
    self.net = net
    self.params = params
    self.fine_padding = bool(fine_padding)
    self._apply = jax.jit(lambda p, o: _probs_value(net, p, o))

  def __call__(self, obs: np.ndarray):
    """(probabilities (n, 38), values (n,)) of the observations `obs` (float32 or uint8 bits)."""
    obs = np.asarray(obs)
    if obs.dtype != np.uint8:
      obs = obs.astype(np.float32, copy=False)
    n = obs.shape[0]
    m = padded_size(n, self.fine_padding)
    if m != n:
      obs = np.concatenate([obs, np.zeros((m - n, OBS_SIZE), obs.dtype)])
      obs[n:, A.OBS_LEGAL] = 1  # padded rows: Pass legal (keeps softmax finite)
    probs, value = self._apply(self.params, obs)
    return np.asarray(probs, np.float64)[:n], np.asarray(value, np.float64)[:n]


def _probs_value(net, params, obs):
  logits, value = net.apply(params, obs.astype(jnp.float32))
  return jax.nn.softmax(logits, axis=-1), value


def sample_calls(probs: np.ndarray, legal: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
  """Inverse-CDF sampling of one call per row from probs restricted to legal calls."""
  p = np.where(legal, probs, 0.0)
  cum = np.cumsum(p, axis=1)
  target = np.asarray(uniforms)[:, None] * cum[:, -1:]
  a = (cum <= target).sum(axis=1)
  a = np.minimum(a, NUM_CALLS - 1)
  # Guard against round-off landing on a zero-probability (illegal) call.
  bad = ~legal[np.arange(len(a)), a]
  if np.any(bad):
    a[bad] = np.argmax(np.where(legal[bad], p[bad], -1.0), axis=1)
  return a


def greedy_calls(probs: np.ndarray, legal: np.ndarray) -> np.ndarray:
  """The most probable legal call of each row of `probs` (B, 38) under the mask `legal`."""
  return np.argmax(np.where(legal, probs, -1.0), axis=1)


def save_model(path: str, params, cfg, extra: dict | None = None) -> None:
  """Saves only the network (parameters + size + metadata) as a small .npz.

  Args:
    path: output file (written atomically).
    params: haiku parameters of `make_network`.
    cfg: the training configuration (anything with ``network_dict()`` and ``uncontested``,
      e.g. `a2c.A2CConfig`), or the ``meta`` dict of a loaded model (`load_model`).
    extra: more JSON-able metadata to store.

  Raises:
    errors.UserError: a bad argument, named, before anything is written.
  """
  checks.check_type("path", path, (str, os.PathLike), "a file path")
  checks.check_type("params", params, Mapping, "the network's parameter dict")
  if not (isinstance(cfg, dict) or callable(getattr(cfg, "network_dict", None))):
    raise errors.UserError(f"cfg must be a training configuration (A2CConfig) or a loaded "
                           f"model's meta dict, got {type(cfg).__name__} {cfg!r:.80}")
  checks.check_type("extra", extra, (Mapping, type(None)), "a dict of metadata or None")
  if isinstance(cfg, dict):
    network, uncontested = cfg["network"], bool(cfg.get("uncontested", False))
  else:
    network, uncontested = cfg.network_dict(), cfg.uncontested
  if has_q_head(params):
    network = dict(network, q_head=True)
  meta = {"network": network, "uncontested": uncontested, **(extra or {})}
  arrays = {"param/" + k: v.astype(np.float32) for k, v in flatten_params(params).items()}
  arrays["meta"] = np.array(json.dumps(meta))
  atomic_io.savez(path, **shipped_digests.with_own_digest(arrays))


def load_model(path: str):
  """(net, params, meta) from a `save_model` or checkpoint .npz.

  The file is checked before anything plays with it: a ValueError names the file when it is
  not a readable .npz (empty, truncated), not a model (no ``meta``, object arrays), holds
  arrays that do not match its digest (files written by `save_model`; the shipped models are
  checked against `shipped_digests`), or holds parameters whose names or shapes differ from its
  network's or that are not all finite.
  """
  meta, flat = _read_model_file(path)
  if not isinstance(meta, dict) or not isinstance(meta.get("network"), dict):
    raise ValueError(f"model file {path!r} is not a bridge A2C model (its meta has no "
                     "'network' size)")
  try:
    net = make_network(**meta["network"])
  except (TypeError, ValueError) as e:
    raise ValueError(f"model file {path!r}: bad network size {meta['network']}: {e}") from None
  haiku_params.check_params(path, "model file", net, OBS_SIZE, meta["network"], flat)
  return net, unflatten_params(flat), meta


def _read_model_file(path: str) -> tuple[object, dict[str, np.ndarray]]:
  """(meta, flat parameters) of a model .npz; ValueError naming the file if it is not one."""
  if not os.path.exists(path):
    raise ValueError(f"model file {path!r} does not exist")
  try:
    with np.load(path, allow_pickle=False) as z:
      if "meta" not in z.files:
        raise ValueError(f"model file {path!r} is not a bridge A2C model (no 'meta' entry)")
      arrays = {k: z[k] for k in z.files}
      shipped_digests.check(path, arrays, "model file")
      arrays = shipped_digests.check_own(path, arrays, "model file")  # `save_model`'s files
      meta = json.loads(str(arrays["meta"]))
      flat = {k[len("param/"):]: v for k, v in arrays.items() if k.startswith("param/")}
  except (EOFError, OSError, zipfile.BadZipFile, json.JSONDecodeError) as e:
    raise ValueError(f"model file {path!r} cannot be read as a model .npz (empty or "
                     f"truncated?): {type(e).__name__}: {e}") from None
  except ValueError as e:
    if str(e).startswith(f"model file {path!r}"):
      raise
    reason = ("it holds Python objects; a model holds numeric arrays and a JSON meta"
              if "allow_pickle" in str(e) else str(e))
    raise ValueError(f"model file {path!r} is not a bridge A2C model: {reason}") from None
  return meta, flat


def average_models(paths) -> tuple[hk.Transformed, dict, dict]:
  """The parameter average of saved models of one network (e.g. the snapshots of one run).

  Stochastic weight averaging: Izmailov, Podoprikhin, Garipov, Vetrov & Wilson, "Averaging
  Weights Leads to Wider Optima and Better Generalization", UAI 2018, arXiv:1803.05407 (the
  equal-weight average of Sec. 3.1 over iterates of one training run). The average of
  snapshots taken along one run stays in its basin; averaging unrelated networks does not make
  sense, and this function cannot check that (only that the networks have the same size).

  Args:
    paths: model or checkpoint ``.npz`` files (`load_model`), at least one.

  Returns:
    (net, averaged params, meta) where meta is the first model's with ``averaged_from`` (the
    file names) added.

  Raises:
    ValueError: no path, an unreadable model, or models of different network sizes.
  """
  paths = list(paths)
  if not paths:
    raise ValueError("average_models needs at least one model file")
  loaded = [load_model(p) for p in paths]
  net, _, meta = loaded[0]
  for p, (_, _, m) in zip(paths, loaded, strict=True):
    if m["network"] != meta["network"] or m.get("uncontested") != meta.get("uncontested"):
      raise ValueError(f"model file {p!r} has network {m['network']} (uncontested="
                       f"{m.get('uncontested')}), not {meta['network']} (uncontested="
                       f"{meta.get('uncontested')}) like {paths[0]!r}")
  params = jax.tree_util.tree_map(
      lambda *xs: np.mean(np.stack([np.asarray(x, np.float64) for x in xs]), 0).astype(
          np.float32), *[p for _, p, _ in loaded])
  meta = dict(meta, averaged_from=[os.path.basename(p) for p in paths])
  return net, params, meta
