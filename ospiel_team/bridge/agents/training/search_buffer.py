r"""Distillation of the JPS search into the policy: the search buffer and the distillation targets.

The search (`ospiel_team.bridge.agents.search.jps_search`) improves single decisions of self-play;
A2C learns from the searched calls only through the games they were played in. Distillation adds
a direct term: every searched decision (observation, candidate calls, their values, the chosen
call) enters a replayed FIFO `SearchBuffer`, and every minibatch of the trainer
(`a2c.A2CTrainer`, ``A2CConfig.distill_coef`` > 0) also draws ``distill_fraction x batch_size``
rows of it, with a cross-entropy term towards one of three targets (``distill_target``):

* ``hard``: the searched call (the authors' ``A2CAgent.loss_search`` in
  facebookresearch/jps, a negative log-likelihood of the searched call);
* ``soft``: ``pi'(a) proportional to pi(a) exp((v(a) - vbar) / tau)`` on the candidates
  (``pi'(a) proportional to pi(a)`` elsewhere), ``vbar`` the pi-weighted mean of the candidates'
  values, with ``tau`` fixed (``distill_tau``) or chosen per minibatch so that the mean
  ``KL(pi' || pi)`` is ``distill_kl`` (`choose_inverse_temperature`): a small move of the
  policy, the JPS paper's remark that "a Delta-altered policy is more reasonable" (Tian, Gong
  & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect Information",
  NeurIPS 2020, arXiv:2008.06495, Sec. 7.3);
* ``random``: a uniformly random valid candidate of the same position (drawn once, when the
  position is recorded): the control that tells the search's information apart from a mere
  perturbation of the policy (the paper's App. F.2 control). In that arm the random candidate
  is also the call played in the searched game.

Candidate values are stored in IMPs / 24 (the trainer's return unit): the search's raw-score
values (`jps_bid.GameSearch` searches with ``reward="score"``) are converted to the IMPs of
their difference to the first (most probable) candidate, a per-row shift that changes neither
the searched call nor the soft target. With ``search_q_lambda`` > 0 the values are mixed with
the network's Q head, ``(1 - lambda) v + lambda Q(I, a)`` (`policy_net.mixed_candidate_values`),
and the searched call becomes the best mixed value.

The search hooks (`jps_bid.GameSearch`, `jps_bid.JPSBidSearch`) give every search's result to
the trainer's `a2c.A2CTrainer.record_search` (`jps_bid.record_for_distillation`), which adds it
to the buffer when the trainer distils.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders.policy_net import NUM_CALLS
from ospiel_team.bridge.agents.bidders.policy_net import OBS_SIZE
from ospiel_team.bridge.agents.training.replay_buffer import PACKED_OBS_SIZE
from ospiel_team.errors import UserError

MAX_CANDIDATES = 8  # candidate columns stored per searched decision


def check_candidates(candidates: int, distill_coef: float, *, name: str = "candidates",
                     coef_name: str = "distill_coef") -> None:
  """Refuses distilling (`distill_coef` > 0) a search of more candidates than a row keeps.

  A search of `candidates` calls per searching player gives up to that many candidate columns
  per decision; the buffer keeps `MAX_CANDIDATES`. Checked where a search is attached to a
  distilling trainer, before any training (`SearchBuffer.add` would fail mid-training).

  Args:
    candidates: the search's candidates per searching player.
    distill_coef: the trainer's distillation weight (`A2CConfig.distill_coef`).
    name: how the message names `candidates` ("--search_candidates" on a command line).
    coef_name: how the message names `distill_coef`.

  Raises:
    UserError: naming both when `distill_coef` > 0 and `candidates` > `MAX_CANDIDATES`.
  """
  if distill_coef > 0 and candidates > MAX_CANDIDATES:
    raise UserError(f"{name}={candidates} with {coef_name}={distill_coef}: the search buffer "
                    f"of distillation keeps at most {MAX_CANDIDATES} candidates a decision; "
                    f"give {name} <= {MAX_CANDIDATES} or {coef_name}=0")


class SearchBuffer:
  """FIFO of searched decisions: observation, candidates, their values, searched and random call.

  Observations are bit-packed (34 bytes); candidate calls are int8 with -1 for no candidate,
  their values float32 (IMPs / 24). At the default 200,000 rows it holds about 16 MB.
  """

  def __init__(self, capacity: int):
    if capacity < 1:
      raise ValueError(f"search buffer capacity must be >= 1, got {capacity}")
    self.capacity = int(capacity)
    self.obs = np.zeros((capacity, PACKED_OBS_SIZE), np.uint8)
    self.calls = np.full((capacity, MAX_CANDIDATES), -1, np.int8)
    self.values = np.zeros((capacity, MAX_CANDIDATES), np.float32)
    self.chosen = np.zeros(capacity, np.int8)
    self.random = np.zeros(capacity, np.int8)
    self.ptr = 0
    self.size = 0
    self.total_added = 0

  def add(self, obs: np.ndarray, calls: np.ndarray, values: np.ndarray, chosen: np.ndarray,
          random_call: np.ndarray) -> None:
    """Appends n searched decisions (the oldest are overwritten once the buffer is full).

    Args:
      obs: (n, 267) observations.
      calls: (n, k) candidate calls, -1 where a row has fewer (k <= `MAX_CANDIDATES`).
      values: (n, k) their values (ignored where the call is -1).
      chosen: (n,) the searched call (a candidate).
      random_call: (n,) a uniformly random valid candidate (the control's target).

    Raises:
      ValueError: more than `MAX_CANDIDATES` columns, or a chosen call not among the row's
        candidates.
    """
    obs = np.asarray(obs)
    n = obs.shape[0]
    if n == 0:
      return
    calls, values = np.asarray(calls), np.asarray(values, np.float64)
    if calls.ndim != 2 or calls.shape[1] > MAX_CANDIDATES or values.shape != calls.shape:
      raise ValueError(f"candidates {calls.shape} / values {values.shape}: at most "
                       f"{MAX_CANDIDATES} columns, the same shape")
    for name, c in (("chosen", chosen), ("random_call", random_call)):
      if not np.all((calls == np.asarray(c)[:, None]).any(axis=1)):
        raise ValueError(f"{name}: a call that is not among its row's candidates")
    k = calls.shape[1]
    m = min(n, self.capacity)
    idx = (self.ptr + np.arange(n)[n - m:]) % self.capacity
    self.obs[idx] = np.packbits(obs[n - m:] > 0.5, axis=1)
    self.calls[idx] = -1
    self.calls[idx, :k] = calls[n - m:]
    self.values[idx] = 0.0
    self.values[idx, :k] = np.where(calls[n - m:] >= 0, values[n - m:], 0.0)
    self.chosen[idx] = np.asarray(chosen)[n - m:]
    self.random[idx] = np.asarray(random_call)[n - m:]
    self.ptr = int((self.ptr + n) % self.capacity)
    self.size = int(min(self.capacity, self.size + n))
    self.total_added += n

  def sample(self, rng: np.random.Generator, n: int, target: str, obs_dtype=np.float32):
    """Uniform rows, n of them: (obs (n, 267), candidates (n, 8), values (n, 8), target call (n,)).

    `target` "random" gives each row's random candidate as the target call, otherwise the
    searched one.
    """
    if self.size == 0:
      raise ValueError("cannot sample from an empty search buffer")
    idx = rng.integers(0, self.size, n)
    obs = np.unpackbits(self.obs[idx], axis=1, count=OBS_SIZE).astype(obs_dtype, copy=False)
    tgt = (self.random if target == "random" else self.chosen)[idx].astype(np.int32)
    return obs, self.calls[idx].astype(np.int32), self.values[idx], tgt

  def state_dict(self) -> dict[str, np.ndarray]:
    """The buffer's arrays and counters (keys ``sbuf_*``), for a checkpoint."""
    return {"sbuf_obs": self.obs, "sbuf_calls": self.calls, "sbuf_values": self.values,
            "sbuf_chosen": self.chosen, "sbuf_random": self.random,
            "sbuf_meta": np.array([self.ptr, self.size, self.total_added], np.int64)}

  def load_state_dict(self, d) -> None:
    """Restores a `state_dict`; ValueError when its capacity is not this buffer's."""
    if d["sbuf_obs"].shape != self.obs.shape:
      raise ValueError(f"checkpoint search buffer shape {d['sbuf_obs'].shape} != "
                       f"{self.obs.shape}")
    for name in ("obs", "calls", "values", "chosen", "random"):
      getattr(self, name)[:] = d[f"sbuf_{name}"]
    self.ptr, self.size, self.total_added = (int(x) for x in d["sbuf_meta"])


# ------------------------------------------------------------------------------------------
# What a search result gives the buffer
# ------------------------------------------------------------------------------------------
def values_in_imps(values: np.ndarray, reward: str) -> np.ndarray:
  """Candidate values (R, k) in IMPs / 24; invalid candidates (-inf) stay -inf.

  ``reward="imps"`` values already are; ``"score"`` (raw points) become the IMPs of their
  difference to the row's first candidate, / 24.
  """
  v = np.asarray(values, np.float64)
  if reward == "imps":
    return v
  if reward != "score":
    raise ValueError(f"reward must be 'imps' or 'score', got {reward!r}")
  valid = np.isfinite(v)
  first = np.where(valid[:, :1], v[:, :1], 0.0)  # a row without candidates: all -inf
  diff = np.where(valid, v - first, 0.0)
  return np.where(valid, scoring.imps_array(np.rint(diff)) / scoring.IMP_SCALE, -np.inf)


def random_candidates(calls: np.ndarray, valid: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
  """(R,) one uniformly random valid candidate of each row of `calls` (R, k)."""
  counts = valid.sum(axis=1)
  if np.any(counts < 1):
    raise ValueError("a row without a valid candidate")
  pick = np.minimum((rng.random(len(calls)) * counts).astype(np.int64), counts - 1)
  order = np.argsort(~valid, axis=1, kind="stable")  # valid columns first, in order
  return calls[np.arange(len(calls)), order[np.arange(len(calls)), pick]]


# ------------------------------------------------------------------------------------------
# Targets and loss (jax)
# ------------------------------------------------------------------------------------------
def dense_candidates(calls, values):
  """(B, 38) candidate values and (B, 38) candidate mask from (B, k) calls (-1: none)."""
  onehot = jax.nn.one_hot(calls, NUM_CALLS)  # a -1 call gives a zero row
  mask = onehot.sum(axis=1) > 0
  return (onehot * values[..., None]).sum(axis=1), mask


def tilted_log_targets(logp, dense_v, mask, beta):
  """Log pi' of the tilted targets: pi exp(beta (v - vbar)) on the candidates, pi elsewhere.

  `logp` (B, 38) log pi (illegal calls at about -1e9), `beta` (B,) or scalar 1 / tau.
  """
  p = jnp.exp(logp)
  w = jnp.where(mask, p, 0.0)
  vbar = (w * dense_v).sum(axis=1) / jnp.maximum(w.sum(axis=1), 1e-30)
  tilt = jnp.where(mask, dense_v - vbar[:, None], 0.0) * jnp.reshape(beta, (-1, 1))
  return jax.nn.log_softmax(logp + tilt, axis=1)


def mean_kl(logq, logp):
  """Mean over rows of KL(q || p) from log-probabilities (illegal calls: q = 0)."""
  q = jnp.exp(logq)
  return jnp.mean(jnp.sum(jnp.where(q > 0, q * (logq - logp), 0.0), axis=1))


def choose_inverse_temperature(logp, dense_v, mask, kl_target, iters: int = 40):
  """The beta = 1 / tau whose tilted targets have mean KL(pi' || pi) = `kl_target`.

  The KL of an exponential tilt grows with beta (its derivative is beta times the tilted
  variance of v), so bisection on log beta in [log 1e-3, log 1e5] finds it; where even the
  largest beta stays below `kl_target` (all candidates about equal), the largest is used.
  """
  lo, hi = jnp.log(1e-3), jnp.log(1e5)

  def body(_, bounds):
    a, b = bounds
    mid = 0.5 * (a + b)
    kl = mean_kl(tilted_log_targets(logp, dense_v, mask, jnp.exp(mid)), logp)
    return jnp.where(kl < kl_target, mid, a), jnp.where(kl < kl_target, b, mid)

  a, b = jax.lax.fori_loop(0, iters, body, (lo, hi))
  return jnp.exp(0.5 * (a + b))


def distill_loss_terms(logits, calls, values, target_call, weight, kind: str, tau: float,
                       kl_target: float):
  """The distillation cross-entropy (mean over rows of weight > 0) and its metrics.

  Args:
    logits: (B, 38) masked logits of the search buffer's rows.
    calls: (B, k) candidate calls (-1: none); values (B, k) their values (IMPs / 24).
    values: see `calls`.
    target_call: (B,) the hard target (searched or random call).
    weight: (B,) 1 for real rows, 0 for padding.
    kind: "hard", "random" or "soft".
    tau: the soft target's temperature (0: chosen for `kl_target`).
    kl_target: mean KL(pi' || pi) that tau is chosen for.

  Returns:
    (loss, metrics) with ``distill_loss`` and, for soft targets, ``distill_kl`` (the targets'
    mean KL from the current policy) and ``distill_tau``.
  """
  logp = jax.nn.log_softmax(logits, axis=-1)
  wsum = jnp.maximum(weight.sum(), 1.0)
  if kind in ("hard", "random"):
    picked = jnp.take_along_axis(logp, target_call[:, None].astype(jnp.int32), axis=1)[:, 0]
    loss = -(weight * picked).sum() / wsum
    return loss, {"distill_loss": loss}
  lp = jax.lax.stop_gradient(logp)
  dense_v, mask = dense_candidates(calls, values)
  if tau > 0:
    beta = jnp.asarray(1.0 / tau)
  else:
    beta = choose_inverse_temperature(lp, dense_v, mask, kl_target)
  logq = jax.lax.stop_gradient(tilted_log_targets(lp, dense_v, mask, beta))
  q = jnp.exp(logq)
  ce = -jnp.sum(jnp.where(q > 0, q * logp, 0.0), axis=1)
  loss = (weight * ce).sum() / wsum
  return loss, {"distill_loss": loss, "distill_kl": mean_kl(logq, lp), "distill_tau": 1.0 / beta}
