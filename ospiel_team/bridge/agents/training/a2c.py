r"""Self-play A2C for bridge bidding (JPS paper Sec. 7.1-7.2 and Appendix E), in JAX + haiku.

This module trains; the network itself (definition, inference, saving and loading) lives in
`ospiel_team.bridge.agents.bidders.policy_net`, the optional behaviour-cloning warm start in
`ospiel_team.bridge.agents.training.behaviour_cloning`, and training-deal augmentation in
`ospiel_team.bridge.dataset` (`augment_deals`).

Network (JPS paper Fig. 2 / Appendix E): the 267-bit observation of Appendix D
(`ospiel_team.bridge.auction`) -> a fully connected layer of ``hidden`` (200) units ->
``num_blocks`` residual blocks of two fully connected layers each (a skip connection every two
layers, ``x <- relu(x + W2 relu(W1 x))``) -> a policy head (38 logits, illegal calls masked with
the observation's legal-call bits) and a value head (one number: the expected return of the seat
to call's team). The paper ablates 2 to 20 blocks (Table 4: no difference); we default to 2 to
save CPU.

Self-play: all four seats share the parameters. Every round plays ``deals_per_round`` random
deals of the training dataset, each at TWO tables with the same dealer and vulnerability (drawn
uniformly), on the batched numpy engine (`ospiel_team.bridge.engine`), sampling calls from the
current policy. The auction's result is scored double-dummy from the dataset's DDS tables.

Reward scaling: the reward of a table is the *duplicate IMPs
against the other table of the same deal*, divided by 24 (the largest IMP swing), so it lies
in [-1, 1]: N-S at table 1 get ``r = imps(s1 - s2) / 24`` and E-W ``-r`` (``s`` = N-S
double-dummy score); table 2 symmetrically. This is zero-sum between the teams, the way the
agents are compared (duplicate IMPs), and the other table acts as a variance-reducing reference
(a pure score reward varies by thousands of points with the cards). No discount (gamma = 1),
rewards only at the end, so every decision's return is its team's final reward.

Learning (A2C with a replay buffer and importance-ratio clipping, Appendix E): decisions
(observation, call, behaviour log-probability, return) enter a FIFO replay buffer (observations
bit-packed, 34 bytes each); each round does ``updates_per_round`` Adam steps on minibatches of
``batch_size`` uniform samples once the buffer holds ``burn_in`` decisions. The loss per sample
(`a2c_loss.a2c_loss_terms`, with its jitted Adam steps in
`ospiel_team.bridge.agents.training.a2c_loss`) is::

  rho     = min(pi(a|s) / mu(a|s), ratio_clip)             (stop-gradient; mu = behaviour)
  L_pi    = - rho * stop_grad(G - V(s)) * log pi(a|s)
  L_V     = 0.5 * (G - V(s))^2
  H       = - sum_{legal a'} pi(a'|s) log pi(a'|s)
  L       = L_pi + value_coef * L_V - entropy_coef * H        (entropy_coef = 0.01)

averaged over the minibatch. Two optional terms (`a2c_loss.make_search_update_fn`, both off by
default): ``q_coef * 0.5 * (G - Q(s, a))^2`` for a Q head (`policy_net.make_q_network`), and
``distill_coef`` x a cross-entropy towards the JPS search's targets on rows of a search buffer
drawn beside every minibatch (`ospiel_team.bridge.agents.training.search_buffer`; the trainer
records the searches of its ``search`` hook, `record_search`). Decisions with a single legal call
(East-West in the uncontested variant) are not stored. Evaluation uses the greedy (argmax) call,
as in the paper.

Two additions not in the paper, both optional (docs/bridge.md): a linear
entropy-coefficient schedule (`A2CConfig.entropy_coef_start` / `entropy_decay_rounds`), and a
behaviour-cloning warm start on a rule-based bidder (`behaviour_cloning`). On our CPU budget
(~20 minutes) pure contested self-play collapsed to all-pass (bids in early random auctions are
punished, so Pass dominates before the policy learns to bid); the shipped baseline is
warm-started on the natural bidder and then trained by the self-play A2C above. Training deals
can be augmented x96 (`dataset.augment_deals`: seat rotations x suit permutations, whose DDS
tables are permutations of the original ones).

Checkpoints (``workdir/checkpoint.npz``: parameters, Adam state, replay buffer, numpy RNG state
and counters) are written atomically (`ospiel_team.atomic_io`) every ``checkpoint_every``
rounds and at the end; `train` resumes from it, and a resumed run is bit-identical to an
uninterrupted one (tests/bridge/agents/test_a2c.py). Log: ``workdir/log.csv`` (one row per
round, written with each checkpoint); a tqdm progress bar over rounds.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax

from ospiel_team import atomic_io
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders.policy_net import OBS_SIZE
from ospiel_team.bridge.agents.bidders.policy_net import PolicyFn
from ospiel_team.bridge.agents.bidders.policy_net import init_params
from ospiel_team.bridge.agents.bidders.policy_net import legal_from_obs
from ospiel_team.bridge.agents.bidders.policy_net import load_model
from ospiel_team.bridge.agents.bidders.policy_net import make_network
from ospiel_team.bridge.agents.bidders.policy_net import make_q_network
from ospiel_team.bridge.agents.bidders.policy_net import mixed_candidate_values
from ospiel_team.bridge.agents.bidders.policy_net import padded_size
from ospiel_team.bridge.agents.bidders.policy_net import sample_calls
from ospiel_team.bridge.agents.training import opponent_pool
from ospiel_team.bridge.agents.training import round_trainer
from ospiel_team.bridge.agents.training import search_buffer as search_buffer_lib
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.bridge.agents.training.a2c_loss import a2c_loss_terms as a2c_loss_terms
from ospiel_team.bridge.agents.training.a2c_loss import make_search_update_fn
from ospiel_team.bridge.agents.training.a2c_loss import make_update_fn
from ospiel_team.bridge.agents.training.replay_buffer import ReplayBuffer
from ospiel_team.bridge.agents.training.round_trainer import RoundTrainer
from ospiel_team.bridge.agents.training.round_trainer import read_checkpoint
from ospiel_team.errors import UserError


# ------------------------------------------------------------------------------------------
# Parameter trees
# ------------------------------------------------------------------------------------------
def graft_tree(new, old):
  """`new` (a parameter or Adam-state tree) with every entry that `old` also has taken from it.

  Adds a Q head to parameters (and their Adam state) saved without one: the Q head keeps its
  fresh values, everything else is `old`'s.
  """
  if isinstance(new, dict):
    return {k: graft_tree(v, old[k]) if k in old else v for k, v in new.items()}
  if isinstance(new, tuple) and hasattr(new, "_fields"):
    return type(new)(*(graft_tree(a, b) for a, b in zip(new, old, strict=True)))
  if isinstance(new, (tuple, list)):
    return type(new)(graft_tree(a, b) for a, b in zip(new, old, strict=True))
  return old


# ------------------------------------------------------------------------------------------
# Self-play collection
# ------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Rollout:
  """Result of one self-play round on 2K tables (tables k and K + k bid the same deal)."""
  obs: np.ndarray        # (T, 267) the learner's decisions with >= 2 legal calls
  actions: np.ndarray    # (T,)
  logp: np.ndarray       # (T,) behaviour log-prob
  table: np.ndarray      # (T,) table of each decision
  seat: np.ndarray       # (T,) seat of each decision
  ns_score: np.ndarray   # (2K,)
  reward_ns: np.ndarray  # (2K,) IMPs/24 for N-S at each table vs the other table
  num_calls: np.ndarray  # (2K,) auction lengths
  engine: engine_lib.BiddingEngine
  values: np.ndarray | None = None  # (T,) the acting policy's value of each decision
  step: np.ndarray | None = None    # (T,) the auction step of each decision

  def returns(self) -> np.ndarray:
    """(T,) float32 return of each decision: its table's reward for the deciding seat's side."""
    return scoring.seat_returns(self.reward_ns[self.table], self.seat).astype(np.float32)


def play_selfplay(policy: Callable, eng: engine_lib.BiddingEngine, rng: np.random.Generator,
                  deal_pool: np.ndarray, num_deals: int,
                  *, on_step: Callable | None = None, obs_dtype=np.float32,
                  opponent: Callable | None = None) -> Rollout:
  """Plays `num_deals` deals from `deal_pool` at two tables each, sampling from `policy`.

  `policy(obs) -> (probs, values)`; `on_step(step, eng)` (optional) is called before each step
  (JPSBid snapshots positions there). `obs_dtype`: dtype of the observations given to `policy`
  and stored in the rollout (np.uint8 moves a quarter of float32's bytes; same bits). The
  random numbers are drawn in the same order whatever the dtype, so the same `rng` state gives
  the same calls wherever `policy` gives the same probabilities.

  `opponent` (optional, a policy like `policy`; fictitious self-play,
  `ospiel_team.bridge.agents.training.opponent_pool`): it calls for East-West at each deal's first
  table and for North-South at its second (`opponent_pool.opponent_mask`), with the same random
  numbers; its decisions are not in the rollout (only the learner's are learnt from).
  """
  deals = deal_pool[rng.integers(0, len(deal_pool), num_deals)]
  dealer = rng.integers(0, 4, num_deals)
  vul = rng.integers(0, 4, num_deals)
  eng.reset(np.concatenate([deals, deals]), np.concatenate([dealer, dealer]),
            np.concatenate([vul, vul]))
  b = 2 * num_deals
  obs_l, act_l, logp_l, tab_l, seat_l, val_l, step_l = [], [], [], [], [], [], []
  step = 0
  while not eng.done.all():
    forced = on_step(step, eng) if on_step is not None else None  # may force calls (-1: no)
    active = np.flatnonzero(~eng.done)
    obs = eng.observation(dtype=obs_dtype)[active]
    legal = legal_from_obs(obs)
    seats = eng.current_player[active]
    if opponent is None:
      probs, values = policy(obs)
      mine = np.ones(len(active), bool)
    else:
      mine = ~opponent_pool.opponent_mask(active, seats, num_deals)
      probs = np.zeros((len(active), legal.shape[1]))
      values = np.zeros(len(active))
      for rows, fn in ((np.flatnonzero(mine), policy), (np.flatnonzero(~mine), opponent)):
        if len(rows):
          probs[rows], values[rows] = fn(obs[rows])
    u = rng.random(len(active))
    a = sample_calls(probs, legal, u)
    if forced is not None:  # jps_bid.GameSearch plays its searched calls
      a = np.where(forced[active] >= 0, forced[active], a)
    calls = np.zeros(b, np.int64)
    calls[active] = a
    keep = (legal.sum(axis=1) > 1) & mine
    obs_l.append(obs[keep])
    act_l.append(a[keep])
    logp_l.append(np.log(np.maximum(probs[np.arange(len(a)), a], 1e-30))[keep])
    tab_l.append(active[keep])
    seat_l.append(seats[keep])
    val_l.append(np.asarray(values, np.float64)[keep])
    step_l.append(np.full(int(keep.sum()), step, np.int64))
    eng.step(calls)
    step += 1
  ns = eng.ns_score()
  cat = lambda ln, shape, dt: np.concatenate(ln) if ln else np.zeros(shape, dt)
  return Rollout(obs=cat(obs_l, (0, OBS_SIZE), obs_dtype), actions=cat(act_l, (0,), np.int64),
                 logp=cat(logp_l, (0,), np.float64), table=cat(tab_l, (0,), np.int64),
                 seat=cat(seat_l, (0,), np.int64), ns_score=ns,
                 reward_ns=scoring.duplicate_rewards(ns),
                 num_calls=eng.auctions.num_calls.copy(),
                 engine=eng, values=cat(val_l, (0,), np.float64),
                 step=cat(step_l, (0,), np.int64))


# ------------------------------------------------------------------------------------------
# Trainer
# ------------------------------------------------------------------------------------------
def _search_training_columns(metrics: dict) -> dict:
  """The Q-head and distillation metrics of a round that has them (log-row columns)."""
  keys = ("q_loss", "distill_loss", "distill_kl", "distill_tau")
  return {k: metrics[k] for k in keys if k in metrics}


def _same_network(network: dict, cfg: A2CConfig) -> bool:
  """Whether a model's `network` size is `cfg`'s, its Q head aside (one is added if missing)."""
  size = {k: v for k, v in network.items() if k != "q_head"}
  own = {k: v for k, v in cfg.network_dict().items() if k != "q_head"}
  return size == own and (cfg.q_coef > 0 or not network.get("q_head", False))


class A2CTrainer(RoundTrainer):
  """Self-play A2C on the batched engine; see the module docstring.

  With ``cfg.opponent_pool_size`` > 0 the trainer keeps a pool of its past snapshots
  (`opponent_pool.OpponentPool`) and plays a round against one of them with probability
  ``cfg.pool_probability`` (fictitious self-play).
  """

  TRAIN_DESC = "a2c rounds"
  ALGORITHM = "a2c"

  def __init__(self, cfg: A2CConfig, dataset=None, train_deals: np.ndarray | None = None,
               eval_dataset=None, workdir: str | None = None,
               init_params_from: str | None = None):
    round_trainer.check_trainer_arguments(cfg, dataset, train_deals, workdir=workdir,
                                          init_params_from=init_params_from)
    if not (eval_dataset is None or hasattr(eval_dataset, "holders")):
      raise UserError(f"eval_dataset must be a BridgeDataset of held-out deals or None, got "
                      f"{type(eval_dataset).__name__} {eval_dataset!r:.80}")
    if cfg.algorithm != self.ALGORITHM:
      raise ValueError(f"{type(self).__name__} runs algorithm {self.ALGORITHM!r}, the "
                       f"configuration says {cfg.algorithm!r} (use trainers.make_trainer)")
    self.cfg = cfg
    self.dataset = dataset_lib.load_datasets(dataset)
    n = self.dataset.holders.shape[0]
    self.train_deals = np.arange(n) if train_deals is None else np.asarray(train_deals)
    self.eval_dataset = eval_dataset  # a BridgeDataset of held-out deals (or None)
    if len(self.train_deals) == 0:
      raise ValueError("no training deals")
    self.workdir = workdir
    self.net = make_network(cfg.hidden, cfg.num_blocks, q_head=cfg.q_coef > 0)
    self.optimizer = optax.adam(cfg.learning_rate)
    self.params = init_params(self.net, cfg.seed)
    if init_params_from is not None:
      _, p, meta = load_model(init_params_from)
      if not _same_network(meta["network"], cfg):
        raise ValueError(f"{init_params_from}: network {meta['network']} != {cfg.network_dict()}")
      self.params = graft_tree(self.params, p)  # a Q head added to a model without one
    self.opt_state = self.optimizer.init(self.params)
    self.buffer = ReplayBuffer(cfg.buffer_size)
    # Distillation of the search (search_buffer module): its buffer and the random stream of
    # the control's random candidates.
    self.search_buffer = (search_buffer_lib.SearchBuffer(cfg.search_buffer_size)
                          if cfg.distill_coef > 0 else None)
    self.distill_rng = np.random.default_rng([cfg.seed, 2])
    self._q_apply = None  # jitted Q head (search_q_lambda > 0), made when first needed
    self.rng = np.random.default_rng(cfg.seed)
    self.round = 0
    self.games = 0
    self.wall = 0.0          # seconds inside train_round (self-play + learning)
    self.total_wall = 0.0    # wall-clock seconds of train() incl. evaluation and checkpoints
    self.log_rows: list[dict] = []
    self.engine = engine_lib.BiddingEngine(self.dataset, uncontested=cfg.uncontested)
    self._extended = cfg.distill_coef > 0 or cfg.q_coef > 0
    if self._extended:
      qnet = make_q_network(cfg.hidden, cfg.num_blocks) if cfg.q_coef > 0 else self.net
      self._update = make_search_update_fn(qnet, self.optimizer, cfg)
    else:
      self._update = make_update_fn(self.net, self.optimizer, cfg)
    self._policy = PolicyFn(self.net, self.params, fine_padding=cfg.fast_acting)
    # The overlapped learner samples the buffer with its own stream (so that acting and
    # learning in two threads stay deterministic); the sequential loop uses self.rng for both.
    self.learner_rng = np.random.default_rng([cfg.seed, 1])
    self.overlap_threads = True  # False: the overlapped schedule run in one thread (tests)
    self._search = None  # optional JPSBid hook (`search`)
    self.pool = opponent_pool.OpponentPool(cfg.opponent_pool_size, cfg.pool_probability,
                                           cfg.seed)
    if workdir is not None and os.path.exists(self.checkpoint_path):
      self.load_checkpoint()

  def set_training_data(self, dataset, train_deals: np.ndarray | None = None) -> None:
    """Replaces the training deals (e.g. when a dataset being built has grown)."""
    self.dataset = dataset_lib.load_datasets(dataset)
    n = self.dataset.holders.shape[0]
    self.train_deals = np.arange(n) if train_deals is None else np.asarray(train_deals)
    self.engine = engine_lib.BiddingEngine(self.dataset, uncontested=self.cfg.uncontested)

  # --- policy -----------------------------------------------------------------------------
  def policy(self, obs):
    """The network's policy output for the observations `obs` under the current parameters."""
    self._policy.params = self.params
    return self._policy(obs)

  # --- checkpoints --------------------------------------------------------------------------
  def save_checkpoint(self, path: str | None = None, include_buffer: bool = True) -> None:
    """Writes the training state atomically to `path` (default ``workdir/checkpoint.npz``).

    ``include_buffer=False`` leaves the replay buffer out (a "slim" checkpoint: parameters,
    Adam state, RNG states, counters and log; ~2.7 MB at the default size, small enough to
    commit): training resumes from it with an empty buffer, refilled for ``burn_in``
    decisions before the next Adam step, so such a resume is not bit-identical. A slim
    checkpoint is also a model file (`policy_net.load_model` reads it). It is written
    compressed (`np.savez_compressed`): its training log, one JSON row per round stored as a
    numpy string (4 bytes a character), would otherwise grow by ~1.5 KB a round.
    """
    if path is None:
      if self.workdir is None:
        return
      path = self.checkpoint_path
    extra = self.buffer.state_dict() if include_buffer else {}
    if include_buffer and self.search_buffer is not None:
      extra.update(self.search_buffer.state_dict())
    if self.pool.size:
      extra.update(self.pool.state_dict())
    self._write_checkpoint(path, self.rng.bit_generator.state,
                           self.learner_rng.bit_generator.state,
                           compressed=not include_buffer, extra_arrays=extra)

  def load_checkpoint(self) -> None:
    """Resumes from ``workdir/checkpoint.npz`` (slim: with an empty replay buffer)."""
    z = atomic_io.read_npz(self.checkpoint_path, "checkpoint")  # damaged: named
    file_cfg = self.cfg
    if self.cfg.q_coef > 0 and "param/q/w" not in z:  # a Q head added to a run without one
      file_cfg = dataclasses.replace(self.cfg, q_coef=0.0, search_q_lambda=0.0)
    state, params, opt_state, buffer = read_checkpoint(
        self.checkpoint_path, file_cfg, self.optimizer, check_buffer_size=True)
    if file_cfg is not self.cfg:
      params = graft_tree(self.params, params)
      opt_state = graft_tree(self.optimizer.init(params), opt_state)
    self.params = params
    self.opt_state = jax.tree_util.tree_map(jnp.asarray, opt_state)
    if buffer is not None:
      self.buffer.load_state_dict(buffer)
    if self.search_buffer is not None and "sbuf_meta" in z:
      self.search_buffer.load_state_dict(z)
    self.round, self.games, self.wall = state["round"], state["games"], state["wall"]
    self.total_wall = state.get("total_wall", self.wall)  # older checkpoints: rounds only
    self.rng.bit_generator.state = state["rng"]
    if "learner_rng" in state:  # older checkpoints: the sequential loop only
      self.learner_rng.bit_generator.state = state["learner_rng"]
    self.log_rows = state["log_rows"]
    self.total_cpu = state.get("total_cpu", 0.0)  # older checkpoints: not counted
    if self.pool.size:
      if "pool_meta" in z:  # a checkpoint without a pool (e.g. a2c_longer): empty
        self.pool.load_state_dict({k: z[k] for k in z if k.startswith("pool")})

  # --- fictitious self-play -----------------------------------------------------------------
  def _round_opponent(self, params) -> tuple[Callable | None, str]:
    """This round's opponent (None: self-play) and its log entry (the snapshot's round).

    First adds `params` (the parameters the round plays with) to the pool when due.
    """
    if self.pool.wants_snapshot(self.round, self.cfg.pool_snapshot_every):
      self.pool.add(self.round, params)
    i = self.pool.draw()
    if i is None:
      return None, ""
    snapshot = self.pool.params[i]

    def opponent(obs):  # the learner's jitted network (compiled once) with the snapshot
      own = self._policy.params
      self._policy.params = snapshot
      try:
        return self._policy(obs)
      finally:
        self._policy.params = own

    return opponent, str(self.pool.rounds[i])

  # --- training -----------------------------------------------------------------------------
  def _learn(self, rng: np.random.Generator, params, opt_state, entropy_coef: float):
    """Runs one round's Adam steps on samples of the replay buffer.

    `updates_per_round` Adam steps on buffer samples drawn with `rng`; returns
    (params, opt_state, mean metrics) (metrics empty before the burn-in).
    """
    cfg = self.cfg
    if self.buffer.size < max(cfg.burn_in, 1) or cfg.updates_per_round == 0:
      return params, opt_state, {}
    obs_dtype = np.uint8 if cfg.fast_acting else np.float32
    ms = []
    for _ in range(cfg.updates_per_round):
      obs, act, logp, ret = self.buffer.sample(rng, cfg.batch_size, obs_dtype=obs_dtype)
      if self._extended:
        params, opt_state, m = self._update(params, opt_state, obs, act, logp, ret,
                                            np.float32(entropy_coef),
                                            *self._distill_rows(rng, obs_dtype))
      else:
        params, opt_state, m = self._update(params, opt_state, obs, act, logp, ret,
                                            np.float32(entropy_coef))
      ms.append(m)
    ms = jax.device_get(ms)  # waits for the steps (inside the learner thread when overlapped)
    return params, opt_state, {k: float(np.mean([float(m[k]) for m in ms])) for k in ms[0]}

  @property
  def search(self):
    """The optional JPSBid search hook (`jps_bid.JPSBidSearch`, `jps_bid.GameSearch`) or None.

    Attaching one to a distilling trainer (``distill_coef`` > 0) checks that the search buffer
    keeps its candidates (`search_buffer.check_candidates`): a UserError naming `candidates` and
    `distill_coef` here, before any training.
    """
    return self._search

  @search.setter
  def search(self, hook) -> None:
    candidates = getattr(getattr(hook, "options", None), "candidates", None)
    if self.search_buffer is not None and candidates is not None:
      search_buffer_lib.check_candidates(candidates, self.cfg.distill_coef)
    self._search = hook

  def _distill_rows(self, rng: np.random.Generator, obs_dtype) -> tuple:
    """The search buffer's rows of one minibatch: (obs, calls, values, target, weight).

    ``round(distill_fraction * batch_size)`` rows (at least 1) drawn with `rng`; all of weight 0
    (Pass-only padding) while the buffer is empty or distillation is off.
    """
    cfg = self.cfg
    n = max(1, int(round(cfg.distill_fraction * cfg.batch_size)))
    sb = self.search_buffer
    if sb is not None and self.search is None:
      raise UserError(f"distill_coef={cfg.distill_coef} distils a search, but this trainer has "
                      "none (attach jps_bid.GameSearch or JPSBidSearch to trainer.search)")
    if sb is not None and sb.size:
      obs, calls, values, target = sb.sample(rng, n, cfg.distill_target, obs_dtype=obs_dtype)
      return obs, calls, values, target, np.ones(n, np.float32)
    obs = np.zeros((n, OBS_SIZE), obs_dtype)
    obs[:, A.OBS_LEGAL] = 1  # Pass legal: a finite softmax
    calls = np.full((n, search_buffer_lib.MAX_CANDIDATES), -1, np.int32)
    return (obs, calls, np.zeros(calls.shape, np.float32), np.zeros(n, np.int32),
            np.zeros(n, np.float32))

  def record_search(self, result, reward: str) -> np.ndarray | None:
    """Adds a search's decisions with >= 2 candidates to the search buffer.

    Args:
      result: a `jps_bid.SearchResult` (its root decisions: observations, candidates and
        their values).
      reward: the search's reward kind, "imps" or "score" (`search_buffer.values_in_imps`).

    Returns:
      (R,) the call each root decision is distilled towards (the random candidate for the
      control ``distill_target="random"``; -1 where it has fewer than 2 candidates), or None
      without a search buffer. With ``search_q_lambda`` > 0 the searched call is the best
      mixed value ``(1 - lambda) v + lambda Q(I, a)``.
    """
    if self.search_buffer is None:
      return None
    cfg = self.cfg
    calls = np.asarray(result.candidate_calls)
    values = search_buffer_lib.values_in_imps(result.candidate_values, reward)
    valid = np.isfinite(values)
    chosen = np.asarray(result.best_call)
    if cfg.search_q_lambda > 0:
      q = self._q_values(result.root_obs)
      values = mixed_candidate_values(values, np.take_along_axis(q, calls, axis=1),
                                      cfg.search_q_lambda)
      chosen = calls[np.arange(len(calls)), np.argmax(values, axis=1)]
    ok = valid.sum(axis=1) >= 2  # roots the search did not simulate have no valid candidate
    rand = np.full(len(calls), -1, np.int64)
    if ok.any():
      rand[ok] = search_buffer_lib.random_candidates(calls[ok], valid[ok], self.distill_rng)
    self.search_buffer.add(result.root_obs[ok], np.where(valid, calls, -1)[ok],
                           np.where(valid, values, 0.0)[ok], chosen[ok], rand[ok])
    target = rand if cfg.distill_target == "random" else chosen
    return np.where(ok, target, -1)

  def _q_values(self, obs: np.ndarray) -> np.ndarray:
    """(n, 38) Q(I, a) of the current parameters (jitted, rows padded to few shapes)."""
    if self._q_apply is None:
      self._q_apply = jax.jit(make_q_network(self.cfg.hidden, self.cfg.num_blocks).apply)
    n = len(obs)
    pad = np.zeros((padded_size(n), OBS_SIZE), np.float32)
    pad[:n] = obs
    return np.asarray(self._q_apply(self.params, pad)[2], np.float64)[:n]

  @property
  def plays_distill_target(self) -> bool:
    """Whether a searched decision plays its distillation target (the random control).

    `jps_bid.GameSearch` reads it: in the control arm (``distill_target="random"``) the call
    played at a searched decision is the random candidate `record_search` recorded for it, so
    that the control differs from the JPS arm only by the call chosen.
    """
    return self.search_buffer is not None and self.cfg.distill_target == "random"

  def train_round(self) -> dict:
    """One round: self-play of `deals_per_round` deals at two tables, buffer, learner steps.

    Sequential (default): play with the current parameters, add the decisions to the buffer,
    then `updates_per_round` Adam steps. With ``cfg.overlap_learning`` (and no search): the
    Adam steps (on the buffer before this round's games, `learner_rng`) run in a second thread
    while the games are played with the parameters from before the steps; the JAX update
    releases the GIL, so the engine's numpy work and the learner's XLA work share the CPUs.
    """
    cfg = self.cfg
    t0 = time.time()
    obs_dtype = np.uint8 if cfg.fast_acting else np.float32
    entropy_coef = cfg.entropy_at(self.round)
    search_points = 0
    if cfg.overlap_learning and self.search is None:
      params, opt_state = self.params, self.opt_state
      opponent, opponent_round = self._round_opponent(params)
      out = {}

      def learner():
        try:
          out["result"] = self._learn(self.learner_rng, params, opt_state, entropy_coef)
        except BaseException as e:
          out["error"] = e

      thread = None
      if self.overlap_threads:
        thread = threading.Thread(target=learner, name="a2c-learner", daemon=True)
        thread.start()
      else:
        learner()
      self._policy.params = params
      try:
        ro = play_selfplay(self._policy, self.engine, self.rng, self.train_deals,
                           cfg.deals_per_round, obs_dtype=obs_dtype, opponent=opponent)
      finally:
        if thread is not None:
          thread.join()
      if "error" in out:
        raise out["error"]
      self.params, self.opt_state, metrics = out["result"]
      self.buffer.add(ro.obs, ro.actions, ro.logp, ro.returns())
    else:
      on_step = None if self.search is None else self.search.on_step
      opponent, opponent_round = self._round_opponent(self.params)
      if self.search is not None:
        if opponent is not None:
          raise ValueError("JPSBid search and fictitious self-play cannot run together")
        self.search.begin_round(self, 2 * cfg.deals_per_round)
      ro = play_selfplay(self.policy, self.engine, self.rng, self.train_deals,
                         cfg.deals_per_round, on_step=on_step, obs_dtype=obs_dtype,
                         opponent=opponent)
      self.buffer.add(ro.obs, ro.actions, ro.logp, ro.returns())
      if self.search is not None:
        search_points = self.search.end_round(self, ro)
      self.params, self.opt_state, metrics = self._learn(self.rng, self.params, self.opt_state,
                                                         entropy_coef)
    self.round += 1
    games = 2 * cfg.deals_per_round
    self.games += games
    dt = time.time() - t0
    self.wall += dt
    row = {"round": self.round, "games": self.games, "decisions": self.buffer.total_added,
           "wall_s": round(self.wall, 2), "games_per_s": round(games / max(dt, 1e-9), 1),
           "mean_auction_len": float(np.mean(ro.num_calls)), "search_points": search_points,
           "opponent": opponent_round}
    row.update({k: metrics.get(k, "") for k in ("loss", "policy_loss", "value_loss",
                                                 "entropy", "mean_rho")})
    row.update(_search_training_columns(metrics))
    return row

  def evaluate(self, boards: int, seed: int = 0) -> tuple[float, float, int]:
    """Duplicate match (greedy model vs the natural bidder) on the held-out deals."""
    from ospiel_team.bridge.agents.bidders import model_bidder
    from ospiel_team.bridge.agents.evaluation import match as match_lib
    ds = self.eval_dataset
    if ds is None or ds.holders.shape[0] == 0:
      raise ValueError("no held-out deals to evaluate on")
    bidder = model_bidder.ModelBidder(self.net, self.params, name="a2c")
    boards = min(boards, ds.holders.shape[0])
    res = match_lib.run_match(bidder, "natural", boards, dataset=ds, seed=seed,
                              uncontested=self.cfg.uncontested, progress=False)
    return res.mean_imps, res.stderr_imps, boards
