r"""PPO for bridge bidding: the clipped surrogate objective with GAE, on A2C's network and engine.

Proximal policy optimisation (Schulman, Wolski, Dhariwal, Radford & Klimov, "Proximal Policy
Optimization Algorithms", arXiv:1707.06347, Eq. 7 and Algorithm 1) with generalised advantage
estimation (Schulman, Moritz, Levine, Jordan & Abbeel, "High-Dimensional Continuous Control
Using Generalized Advantage Estimation", arXiv:1506.02438, Eq. 16), as Kita et al. train their
bridge bidder ("A Simple, Solid, and Reproducible Baseline for Bridge Bidding AI", IEEE CoG
2024; github.com/harukaki/brl: gamma 1, lambda 0.95, minibatches of 1,024).

`PPOTrainer` is `a2c.A2CTrainer` with another learner (``A2CConfig.algorithm = "ppo"``): the
same network (`policy_net`), self-play on the same batched numpy engine (`a2c.play_selfplay`,
two tables a deal, duplicate IMPs / 24 as the final reward), the same checkpoints, snapshots
and optional opponent pool (`opponent_pool`, fictitious self-play). Each round's decisions are
learnt from on-policy and then dropped (no replay buffer):

* Trajectories: one per (table, seat), the seat's own decisions in auction order; the reward is
  0 until the seat's last decision, which receives the table's final reward for the seat's side
  (`scoring.seat_returns`), the value after it is 0, and gamma = 1 (the auction has no
  discount). The value V is the network's value head, read when acting.
* GAE (`gae`): ``delta_t = r_t + V(s_{t+1}) - V(s_t)``, ``A_t = sum_l lambda^l delta_{t+l}``;
  with lambda = 1, ``A_t = G - V(s_t)`` (A2C's advantage); the value target is ``A_t + V(s_t)``.
* Loss (`ppo_loss_terms`), per decision with ``ratio = pi(a|s) / mu(a|s)`` (mu: the policy that
  acted)::

    L_clip = - min(ratio * A, clip(ratio, 1 - clip_eps, 1 + clip_eps) * A)
    L      = L_clip + value_coef * 0.5 (A + V_old - V(s))^2 - entropy_coef * H(pi(.|s))

  averaged over a minibatch; ``epochs_per_batch`` passes over the round's decisions in random
  minibatches of ``minibatch_size`` (the last one of each pass padded with zero-weight rows so
  that jit compiles one shape). Advantages are not normalised.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

from ospiel_team.bridge.agents.bidders.policy_net import legal_from_obs
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig


def gae(rewards: np.ndarray, values: np.ndarray, last: np.ndarray, lam: float,
        *, gamma: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
  """Generalised advantage estimates of concatenated trajectories (Schulman et al. 2015, Eq. 16).

  Args:
    rewards: (T,) reward after each step.
    values: (T,) V(s_t) of each step.
    last: (T,) bool, True at the last step of each trajectory (the value after it is 0).
    lam: lambda in [0, 1].
    gamma: discount.

  Returns:
    (advantages, value targets = advantages + values), float64 arrays of length T.
  """
  rewards = np.asarray(rewards, np.float64)
  values = np.asarray(values, np.float64)
  last = np.asarray(last, bool)
  adv = np.zeros(len(rewards))
  running = 0.0
  for t in range(len(rewards) - 1, -1, -1):
    next_value = 0.0 if last[t] else values[t + 1]
    if last[t]:
      running = 0.0
    delta = rewards[t] + gamma * next_value - values[t]
    running = delta + gamma * lam * running
    adv[t] = running
  return adv, adv + values


def rollout_advantages(ro: a2c.Rollout, lam: float) -> tuple[np.ndarray, np.ndarray]:
  """(advantages, value targets) of a rollout's decisions, one trajectory per (table, seat).

  The decisions keep the rollout's order; see the module docstring.
  """
  n = len(ro.actions)
  if n == 0:
    return np.zeros(0), np.zeros(0)
  order = np.lexsort((ro.step, ro.seat, ro.table))
  table, seat = ro.table[order], ro.seat[order]
  last = np.ones(n, bool)
  last[:-1] = (table[1:] != table[:-1]) | (seat[1:] != seat[:-1])
  rewards = np.where(last, ro.returns()[order], 0.0)
  adv_sorted, target_sorted = gae(rewards, ro.values[order], last, lam)
  adv, target = np.empty(n), np.empty(n)
  adv[order], target[order] = adv_sorted, target_sorted
  return adv, target


def ppo_loss_terms(logits, values, actions, behaviour_logp, advantages, targets, legal,
                   weights, clip_eps: float, entropy_coef: float, value_coef: float):
  """PPO loss and its terms for a minibatch (module docstring), from network outputs.

  logits (B, 38) (already masked), values (B,), actions (B,) int, behaviour_logp (B,)
  log mu(a|s), advantages (B,), targets (B,) value targets, legal (B, 38) bool, weights (B,)
  (1 for a decision, 0 for a padding row).
  """
  w = weights / jnp.maximum(jnp.sum(weights), 1.0)
  logp_all = jax.nn.log_softmax(logits, axis=-1)
  logp = jnp.take_along_axis(logp_all, actions[:, None].astype(jnp.int32), axis=1)[:, 0]
  ratio = jnp.exp(logp - behaviour_logp)
  clipped = jnp.clip(ratio, 1.0 - clip_eps, 1.0 + clip_eps)
  policy_loss = -jnp.sum(w * jnp.minimum(ratio * advantages, clipped * advantages))
  value_loss = 0.5 * jnp.sum(w * (targets - values) ** 2)
  probs = jnp.exp(logp_all)
  entropy = -jnp.sum(w * jnp.sum(jnp.where(legal, probs * logp_all, 0.0), axis=1))
  loss = policy_loss + value_coef * value_loss - entropy_coef * entropy
  clip_frac = jnp.sum(w * (jnp.abs(ratio - 1.0) > clip_eps))
  return loss, {"loss": loss, "policy_loss": policy_loss, "value_loss": value_loss,
                "entropy": entropy, "mean_rho": jnp.sum(w * ratio), "clip_frac": clip_frac}


def make_ppo_update_fn(net, optimizer, cfg: A2CConfig):
  """Jitted Adam step on the PPO loss.

  (params, opt_state, batch..., entropy_coef) -> (params, opt_state, metrics); ``obs`` float32 or
  uint8 bits.
  """

  def loss_fn(params, obs, actions, mu_logp, adv, targets, weights, entropy_coef):
    obs = obs.astype(jnp.float32)
    logits, values = net.apply(params, obs)
    return ppo_loss_terms(logits, values, actions, mu_logp, adv, targets, legal_from_obs(obs),
                          weights, cfg.clip_eps, entropy_coef, cfg.value_coef)

  @jax.jit
  def update(params, opt_state, obs, actions, mu_logp, adv, targets, weights, entropy_coef):
    (_, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(
        params, obs, actions, mu_logp, adv, targets, weights, entropy_coef)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, metrics

  return update


class PPOTrainer(a2c.A2CTrainer):
  """PPO self-play (``cfg.algorithm == "ppo"``) on A2C's network, engine and checkpoints.

  Args: those of `a2c.A2CTrainer`. Checkpoints never hold a replay buffer (PPO has none);
  they hold the parameters, Adam state, RNG states, counters, log and opponent pool, and a
  resumed run is bit-identical to an uninterrupted one.
  """

  TRAIN_DESC = "ppo rounds"
  ALGORITHM = "ppo"

  def __init__(self, cfg: A2CConfig, *args, **kwargs):
    super().__init__(cfg, *args, **kwargs)
    self._ppo_update = make_ppo_update_fn(self.net, self.optimizer, cfg)

  def save_checkpoint(self, path: str | None = None, include_buffer: bool = True) -> None:
    """As `A2CTrainer.save_checkpoint`; there is no buffer to include."""
    super().save_checkpoint(path, include_buffer=False)

  def learn(self, ro: a2c.Rollout, entropy_coef: float) -> dict:
    """``epochs_per_batch`` passes of minibatch Adam steps on a rollout; the mean metrics."""
    cfg = self.cfg
    n = len(ro.actions)
    if n == 0:
      return {}
    adv, targets = rollout_advantages(ro, cfg.gae_lambda)
    mb = cfg.minibatch_size
    padded = -(-n // mb) * mb
    obs = ro.obs if ro.obs.dtype == np.uint8 else ro.obs.astype(np.float32)
    ms = []
    for _ in range(cfg.epochs_per_batch):
      perm = self.rng.permutation(n)
      idx = np.concatenate([perm, np.zeros(padded - n, np.int64)])
      weights = np.concatenate([np.ones(n, np.float32), np.zeros(padded - n, np.float32)])
      for s in range(0, padded, mb):
        j = idx[s:s + mb]
        self.params, self.opt_state, m = self._ppo_update(
            self.params, self.opt_state, obs[j], ro.actions[j].astype(np.int32),
            ro.logp[j].astype(np.float32), adv[j].astype(np.float32),
            targets[j].astype(np.float32), weights[s:s + mb], np.float32(entropy_coef))
        ms.append(m)
    ms = jax.device_get(ms)
    return {k: float(np.mean([float(m[k]) for m in ms])) for k in ms[0]}

  def train_round(self) -> dict:
    """One round: self-play (or a pool round), GAE, then the PPO epochs on its decisions."""
    cfg = self.cfg
    if self.search is not None:
      raise ValueError("JPSBid search is an A2C option (algorithm a2c)")
    t0 = time.time()
    obs_dtype = np.uint8 if cfg.fast_acting else np.float32
    entropy_coef = cfg.entropy_at(self.round)
    opponent, opponent_round = self._round_opponent(self.params)
    ro = a2c.play_selfplay(self.policy, self.engine, self.rng, self.train_deals,
                           cfg.deals_per_round, obs_dtype=obs_dtype, opponent=opponent)
    metrics = self.learn(ro, entropy_coef)
    self.round += 1
    games = 2 * cfg.deals_per_round
    self.games += games
    dt = time.time() - t0
    self.wall += dt
    decisions = (self.log_rows[-1].get("decisions", 0) if self.log_rows else 0) or 0
    row = {"round": self.round, "games": self.games, "decisions": int(decisions) + len(ro.actions),
           "wall_s": round(self.wall, 2), "games_per_s": round(games / max(dt, 1e-9), 1),
           "mean_auction_len": float(np.mean(ro.num_calls)), "search_points": 0,
           "opponent": opponent_round}
    row.update({k: metrics.get(k, "") for k in ("loss", "policy_loss", "value_loss",
                                                 "entropy", "mean_rho", "clip_frac")})
    return row
