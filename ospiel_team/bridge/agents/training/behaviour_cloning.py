"""Behaviour cloning of a bidder: an optional warm start for the self-play A2C (`a2c`).

Not in the JPS paper (Tian, Gong and Jiang, "Joint Policy Search for Multi-agent Collaboration
with Imperfect Information", NeurIPS 2020, arXiv:2008.06495, Sec. 7.2 trains from scratch). On
our CPU budget pure contested self-play collapsed to all-pass (docs/bridge.md),
so the shipped baseline first imitates a rule-based bidder (`rule_based.NaturalBidder`):

1. `collect_teacher_states` plays auctions of the teacher at all four seats on the batched
   engine, replacing each call by a random legal one with probability ``epsilon`` so that the
   states also cover positions the teacher itself would not reach, and records (observation,
   the teacher's call) at every decision with two or more legal calls;
2. `behaviour_cloning` fits the policy head by cross-entropy on those pairs (Adam): on the
   teacher's calls, or, for a network teacher, on its whole distribution over the calls
   (`teacher_probabilities`; distillation, Hinton, Vinyals and Dean, "Distilling the Knowledge
   in a Neural Network", arXiv:1503.02531).
"""

from __future__ import annotations

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax
import tqdm

from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import base
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net


def collect_teacher_states(teacher, dataset, rng: np.random.Generator, num_deals: int,
                           *, epsilon: float = 0.1, uncontested: bool = False, actor=None
                           ) -> tuple[np.ndarray, np.ndarray]:
  """Observations and the teacher's calls along epsilon-perturbed auctions of the teacher.

  With an `actor`, the auctions are the actor's and the teacher only labels their states:
  the data aggregation of DAgger (Ross, Gordon and Bagnell, "A Reduction of Imitation
  Learning and Structured Prediction to No-Regret Online Learning", AISTATS 2011,
  arXiv:1011.0686), which shows a student the states its own mistakes lead to.

  Args:
    teacher: a `base.Bidder` (asked through ``act_auction``, as in a match).
    dataset: the deals (`dataset.BridgeDataset` or what `engine.BiddingEngine` accepts).
    rng: the random numbers (deals, dealers, vulnerabilities, exploration).
    num_deals: auctions to play.
    epsilon: probability that a call is replaced by a uniformly random legal call.
    uncontested: East-West always pass (their decisions are not recorded: one legal call).
    actor: the `base.Bidder` whose calls are played (None: the teacher's own).

  Returns:
    (obs (T, 267), calls (T,)): the states with two or more legal calls and the teacher's call.
  """
  if not 0.0 <= epsilon <= 1.0:
    raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
  for name, bidder in (("teacher", teacher), ("actor", actor)):
    if not isinstance(bidder, base.Bidder) and not (name == "actor" and bidder is None):
      raise TypeError(f"{name} must be a bidder (bidders.base.Bidder), got "
                      f"{type(bidder).__name__} {bidder!r:.80}")
  eng = engine_lib.BiddingEngine(dataset, uncontested=uncontested)
  eng.reset_random(rng, num_deals)
  obs_l, call_l = [], []
  while not eng.done.all():
    active = np.flatnonzero(~eng.done)
    obs = eng.observation()[active]
    legal = policy_net.legal_from_obs(obs)
    u = rng.random(len(active))
    target = _calls_of(teacher, eng, active, u)
    keep = legal.sum(axis=1) > 1
    obs_l.append(obs[keep])
    call_l.append(target[keep])
    played = target if actor is None else _calls_of(actor, eng, active, u)
    explore = rng.random(len(active)) < epsilon
    rand = policy_net.sample_calls(np.ones_like(legal, float), legal, rng.random(len(active)))
    calls = np.zeros(eng.batch_size, np.int64)
    calls[active] = np.where(explore, rand, played)
    eng.step(calls)
  return np.concatenate(obs_l), np.concatenate(call_l)


def _calls_of(bidder: base.Bidder, eng: engine_lib.BiddingEngine, active: np.ndarray,
              uniforms: np.ndarray) -> np.ndarray:
  """The calls of `bidder` at the engine's active tables."""
  return np.asarray(bidder.act_auction(eng.auctions, eng.hands, active, uniforms), np.int64)


def check_distillable(teacher) -> None:
  """Raises ValueError unless `teacher` is a network bidder of ours (`ModelBidder`).

  Its ``probabilities(obs)`` are the distillation targets.
  """
  if not isinstance(teacher, model_bidder.ModelBidder):
    raise ValueError(f"teacher {_label(teacher)!r} has no probabilities(obs): distillation "
                     "needs a network bidder of ours")


def _label(bidder) -> str:
  return bidder.name if isinstance(bidder, base.Bidder) else type(bidder).__name__


def teacher_probabilities(teacher, obs: np.ndarray, *, batch_size: int = 65536) -> np.ndarray:
  """The teacher's (T, 38) distributions over the calls at the observations `obs`.

  Args:
    teacher: a bidder with ``probabilities(obs)`` (a network bidder, `model_bidder.ModelBidder`).
    obs: (T, 267) observations (`collect_teacher_states`).
    batch_size: observations per network call.

  Raises:
    ValueError: the teacher has no distribution (a rule-based or the authors' bidder).
  """
  check_distillable(teacher)
  return _in_batches(teacher.probabilities, obs, batch_size, (policy_net.NUM_CALLS,))


def teacher_values(teacher, obs: np.ndarray, *, batch_size: int = 65536) -> np.ndarray:
  """The teacher's (T,) values at the observations `obs` (the targets of `fit_value_head`).

  Args:
    teacher: a network bidder of ours (`model_bidder.ModelBidder`, with ``values(obs)``).
    obs: (T, 267) observations.
    batch_size: observations per network call.

  Raises:
    ValueError: the teacher has no value head (a rule-based or the authors' bidder).
  """
  if not isinstance(teacher, model_bidder.ModelBidder):
    raise ValueError(f"teacher {_label(teacher)!r} has no values(obs): a value head needs a "
                     "network bidder of ours")
  return _in_batches(teacher.values, obs, batch_size, ())


def _in_batches(fn, obs: np.ndarray, batch_size: int, shape: tuple) -> np.ndarray:
  """``fn(obs)`` as float32, computed `batch_size` rows at a time (rows of `shape`)."""
  out = [np.asarray(fn(obs[i:i + batch_size]), np.float32)
         for i in range(0, len(obs), batch_size)]
  return np.concatenate(out) if out else np.zeros((0, *shape), np.float32)


def behaviour_cloning(net: hk.Transformed, params, obs: np.ndarray, calls: np.ndarray,
                      steps: int, *, batch_size: int = 1024, learning_rate: float = 1e-3,
                      seed: int = 0, progress: bool = True,
                      targets: np.ndarray | None = None):
  """Cross-entropy training of the policy head on (obs, calls), or on soft `targets`.

  Args:
    net: the network (`policy_net.make_network`).
    params: its initial parameters.
    obs: (T, 267) observations (`collect_teacher_states`).
    calls: (T,) the calls to imitate.
    steps: Adam steps, each on `batch_size` uniformly drawn pairs.
    batch_size: pairs per step.
    learning_rate: Adam's step size.
    seed: seed of the minibatch draws.
    progress: show a tqdm bar.
    targets: None (imitate `calls`), or (T, 38) distributions to imitate instead
      (`teacher_probabilities`): the loss is the cross-entropy -sum_c targets[c] log pi(c),
      which for one-hot targets is the loss on `calls`. The accuracy is still measured
      against `calls`.

  Returns:
    (params, accuracy): the trained parameters and the fraction of the first (up to) 20,000
    pairs whose greedy call is the teacher's.
  """
  if len(calls) == 0 or len(obs) != len(calls):
    raise ValueError(f"need as many observations as calls (> 0), got {len(obs)} and "
                     f"{len(calls)}")
  if targets is not None:
    targets = np.asarray(targets, np.float32)
    if targets.shape != (len(calls), policy_net.NUM_CALLS):
      raise ValueError(f"targets must have shape ({len(calls)}, {policy_net.NUM_CALLS}), got "
                       f"{targets.shape}")
    if not np.allclose(targets.sum(axis=1), 1.0, atol=1e-4) or (targets < 0).any():
      raise ValueError("targets must be distributions (non-negative rows summing to 1)")
  else:
    targets = np.asarray(calls, np.int32)

  def loss_fn(p, o, t):
    logits, _ = net.apply(p, o)
    logp = jax.nn.log_softmax(logits, axis=-1)
    if t.ndim == 1:  # the teacher's calls
      return -jnp.mean(jnp.take_along_axis(logp, t[:, None], axis=1))
    # Illegal calls carry no target mass; where() keeps 0 * (-inf) out of the sum.
    return -jnp.mean(jnp.sum(jnp.where(t > 0, t * logp, 0.0), axis=1))

  params = _adam_steps(loss_fn, params, obs, targets, steps, batch_size=batch_size,
                       learning_rate=learning_rate, seed=seed, desc="behaviour cloning",
                       progress=progress)
  pol = policy_net.PolicyFn(net, params)
  m = min(len(calls), 20000)
  probs, _ = pol(obs[:m])
  acc = float(np.mean(policy_net.greedy_calls(probs, policy_net.legal_from_obs(obs[:m]))
                      == calls[:m]))
  return params, acc


def fit_value_head(net: hk.Transformed, params, obs: np.ndarray, values: np.ndarray,
                   steps: int, *, batch_size: int = 1024, learning_rate: float = 1e-3,
                   seed: int = 0, progress: bool = True):
  """Fits the value head alone to `values` (squared error, Adam); the policy is unchanged.

  Behaviour cloning trains the policy head and the shared layers only, so a cloned network's
  value head is still at its initial parameters. Self-play A2C would then start from large
  value errors whose gradients reach the shared layers; fitting the head first, here to the
  teacher's values (`teacher_values`), leaves every other parameter as it is.

  Args:
    net: the network (`policy_net.make_network`).
    params: its parameters (e.g. from `behaviour_cloning`).
    obs: (T, 267) observations.
    values: (T,) the values to fit (the teacher's, at the same observations).
    steps: Adam steps, each on `batch_size` uniformly drawn observations.
    batch_size: observations per step.
    learning_rate: Adam's step size.
    seed: seed of the minibatch draws.
    progress: show a tqdm bar.

  Returns:
    (params, mse): the parameters with the fitted value head, and its mean squared error on
    the first (up to) 20,000 observations.

  Raises:
    ValueError: `obs` and `values` of different lengths, or no value head named ``value``.
  """
  values = np.asarray(values, np.float32)
  if len(values) == 0 or len(obs) != len(values) or values.ndim != 1:
    raise ValueError(f"need as many observations as values (> 0), got {len(obs)} and "
                     f"{values.shape}")
  if "value" not in params:
    raise ValueError(f"parameters have no value head 'value' (modules: {sorted(params)})")
  rest = {k: v for k, v in params.items() if k != "value"}

  def loss_fn(h, o, t):
    _, v = net.apply({**rest, "value": h}, o)
    return jnp.mean((v - t) ** 2)

  head = _adam_steps(loss_fn, params["value"], obs, values, steps, batch_size=batch_size,
                     learning_rate=learning_rate, seed=seed, desc="value head",
                     progress=progress)
  out = {**rest, "value": head}
  m = min(len(values), 20000)
  _, v = policy_net.PolicyFn(net, out)(obs[:m])
  return out, float(np.mean((v - values[:m]) ** 2))


def _adam_steps(loss_fn, params, obs: np.ndarray, targets: np.ndarray, steps: int, *,
                batch_size: int, learning_rate: float, seed: int, desc: str, progress: bool):
  """The parameters after `steps` Adam steps on ``loss_fn(params, obs_batch, targets_batch)``.

  Each step is on `batch_size` uniformly drawn rows of (obs, targets).
  """
  opt = optax.adam(learning_rate)
  opt_state = opt.init(params)

  @jax.jit
  def step(p, s, o, t):
    g = jax.grad(loss_fn)(p, o, t)
    u, s = opt.update(g, s, p)
    return optax.apply_updates(p, u), s

  rng = np.random.default_rng(seed)
  packed = np.packbits(obs > 0.5, axis=1)  # an eighth of the memory of the float rows
  for _ in tqdm.trange(steps, desc=desc, disable=not progress):
    idx = rng.integers(0, len(targets), batch_size)
    o = np.unpackbits(packed[idx], axis=1, count=policy_net.OBS_SIZE).astype(np.float32)
    params, opt_state = step(params, opt_state, o, targets[idx])
  return params
