r"""The A2C loss and its jitted Adam steps (JPS paper Appendix E), for `a2c.A2CTrainer`.

Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495, Appendix E: A2C with a replay buffer and
importance-ratio clipping. The loss per sample (`a2c_loss_terms`), with ``mu`` the behaviour
policy and ``G`` the return, is::

  rho     = min(pi(a|s) / mu(a|s), ratio_clip)             (stop-gradient)
  L_pi    = - rho * stop_grad(G - V(s)) * log pi(a|s)
  L_V     = 0.5 * (G - V(s))^2
  H       = - sum_{legal a'} pi(a'|s) log pi(a'|s)
  L       = L_pi + value_coef * L_V - entropy_coef * H

averaged over the minibatch; `make_update_fn` is its Adam step. `make_search_update_fn` adds
the two optional terms of the search's training (both off by default): a Q head's squared
error and the distillation cross-entropy towards the JPS search's targets
(`ospiel_team.bridge.agents.training.search_buffer`).
"""

from __future__ import annotations

import haiku as hk
import jax
import jax.numpy as jnp
import optax

from ospiel_team.bridge.agents.bidders.policy_net import legal_from_obs
from ospiel_team.bridge.agents.training import search_buffer as search_buffer_lib
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig


def a2c_loss_terms(logits, values, actions, behaviour_logp, returns, legal, ratio_clip: float,
                   entropy_coef: float, value_coef: float):
  """Loss and its terms for a minibatch (see the module docstring), from network outputs.

  logits (B, 38) (already masked), values (B,), actions (B,) int, behaviour_logp (B,) log mu(a|s),
  returns (B,) G, legal (B, 38) bool.
  """
  logp_all = jax.nn.log_softmax(logits, axis=-1)
  logp = jnp.take_along_axis(logp_all, actions[:, None].astype(jnp.int32), axis=1)[:, 0]
  rho = jax.lax.stop_gradient(jnp.minimum(jnp.exp(logp - behaviour_logp), ratio_clip))
  adv = jax.lax.stop_gradient(returns - values)
  policy_loss = -jnp.mean(rho * adv * logp)
  value_loss = 0.5 * jnp.mean((returns - values) ** 2)
  probs = jnp.exp(logp_all)
  entropy = -jnp.mean(jnp.sum(jnp.where(legal, probs * logp_all, 0.0), axis=1))
  loss = policy_loss + value_coef * value_loss - entropy_coef * entropy
  return loss, {"loss": loss, "policy_loss": policy_loss, "value_loss": value_loss,
                "entropy": entropy, "mean_rho": jnp.mean(rho)}


def make_update_fn(net: hk.Transformed, optimizer, cfg: A2CConfig):
  """Jitted Adam step: (params, opt_state, batch, entropy_coef) -> (params, opt_state, metrics).

  ``obs`` may be float32 or uint8 bits (cast to float32 inside, the same computation).
  """

  def loss_fn(params, obs, actions, mu_logp, returns, entropy_coef):
    obs = obs.astype(jnp.float32)
    logits, values = net.apply(params, obs)
    return a2c_loss_terms(logits, values, actions, mu_logp, returns, legal_from_obs(obs),
                          cfg.ratio_clip, entropy_coef, cfg.value_coef)

  @jax.jit
  def update(params, opt_state, obs, actions, mu_logp, returns, entropy_coef):
    (_, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(
        params, obs, actions, mu_logp, returns, entropy_coef)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    return params, opt_state, metrics

  return update


def make_search_update_fn(qnet: hk.Transformed, optimizer, cfg: A2CConfig):
  """Jitted Adam step of the A2C loss plus the Q-head and distillation terms.

  ``(params, opt_state, obs, actions, mu_logp, returns, entropy_coef, d_obs, d_calls,
  d_values, d_target, d_weight) -> (params, opt_state, metrics)``: the A2C loss of
  `a2c_loss_terms` on the replay buffer's minibatch, ``+ q_coef * 0.5 * mean((G - Q(s, a))^2)``
  (only with a Q head: `qnet` then gives (logits, value, Q)) and ``+ distill_coef *`` the
  distillation cross-entropy (`search_buffer.distill_loss_terms`) on the search buffer's rows
  ``d_*`` (weight 0: padding).
  """
  with_q = cfg.q_coef > 0

  def loss_fn(params, obs, actions, mu_logp, returns, entropy_coef, d_obs, d_calls, d_values,
              d_target, d_weight):
    obs = obs.astype(jnp.float32)
    out = qnet.apply(params, obs)
    logits, values = out[0], out[1]
    loss, metrics = a2c_loss_terms(logits, values, actions, mu_logp, returns,
                                   legal_from_obs(obs), cfg.ratio_clip, entropy_coef,
                                   cfg.value_coef)
    if with_q:
      q = jnp.take_along_axis(out[2], actions[:, None].astype(jnp.int32), axis=1)[:, 0]
      q_loss = 0.5 * jnp.mean((returns - q) ** 2)
      loss = loss + cfg.q_coef * q_loss
      metrics["q_loss"] = q_loss
    if cfg.distill_coef > 0:
      d_logits = qnet.apply(params, d_obs.astype(jnp.float32))[0]
      d_loss, d_metrics = search_buffer_lib.distill_loss_terms(
          d_logits, d_calls, d_values, d_target, d_weight, cfg.distill_target, cfg.distill_tau,
          cfg.distill_kl)
      loss = loss + cfg.distill_coef * d_loss
      metrics.update(d_metrics)
    metrics["loss"] = loss
    return loss, metrics

  @jax.jit
  def update(params, opt_state, obs, actions, mu_logp, returns, entropy_coef, d_obs, d_calls,
             d_values, d_target, d_weight):
    (_, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(
        params, obs, actions, mu_logp, returns, entropy_coef, d_obs, d_calls, d_values,
        d_target, d_weight)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    return params, opt_state, metrics

  return update
