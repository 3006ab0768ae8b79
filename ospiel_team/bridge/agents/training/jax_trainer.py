r"""Self-play A2C for bridge bidding with acting AND learning in JAX (runs on CPU, GPU or TPU).

The algorithm of `ospiel_team.bridge.agents.training.a2c` (JPS paper: Tian, Gong & Jiang, "Joint
Policy Search for Multi-agent Collaboration with Imperfect Information", NeurIPS 2020,
arXiv:2008.06495, Sec. 7 and Appendix E) with the auctions played by the pure-JAX auction
`ospiel_team.bridge.jax_env` instead of the numpy engine, so that one jitted function per round
plays and learns on whatever device JAX uses:

* the same network (`policy_net.make_network`), parameters shared by the four seats;
* the same games: each round draws ``deals_per_round`` training deals (optionally under one of
  the 96 seat-rotation x suit-permutation symmetries of `dataset.augment_deals`, drawn per deal,
  with the permuted DDS table) and bids each at two tables with the same dealer and
  vulnerability (uniform), sampling calls from the current policy (`jax.lax.while_loop` over
  the calls of a vmapped batch of tables);
* the same reward: duplicate IMPs against the other table of the deal / 24, +r for N-S and
  -r for E-W (`scoring.duplicate_rewards`, the numpy trainer's function given `jax.numpy`);
* the same loss and Adam step (`a2c_loss.make_update_fn`, i.e. `a2c_loss.a2c_loss_terms`), on
  ``updates_per_round`` minibatches of ``batch_size`` decisions drawn uniformly (with
  replacement) from the round's own decisions (on-policy: no replay buffer; the stored
  behaviour log-probabilities make the later steps of a round importance-weighted as in
  `a2c`). Decisions with a single legal call are not used, as in `a2c`; only the first
  ``max_stored_calls`` calls of a table are stored for learning (auctions average about 11
  calls; the log's ``calls_not_stored`` counts the rest).

Checkpoints are the *slim* checkpoints of `a2c.A2CTrainer.save_checkpoint(include_buffer=False)`
(parameters, Adam state leaves, configuration, counters, log rows; written atomically):
``ospiel-team-train-bridge --resume_from`` continues one on either engine,
`policy_net.load_model` plays it, and this trainer resumes from its own or from `a2c`'s
(e.g. ``experiments/bridge_a2c_training/checkpoints/a2c_longer.npz``). Each round's random key is
``fold_in(PRNGKey(seed), round)``, so a resumed run is the uninterrupted one on the same device.
The numpy random states of the `a2c` format are carried through unchanged.

The device is chosen only by `JaxTrainOptions.platform` (None: JAX's default, the GPU when
there is one).
"""

from __future__ import annotations

import dataclasses
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import jax_env
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders.policy_net import init_params
from ospiel_team.bridge.agents.bidders.policy_net import legal_from_obs
from ospiel_team.bridge.agents.bidders.policy_net import make_network
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import round_trainer
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.errors import UserError


@dataclasses.dataclass(frozen=True)
class JaxTrainOptions:
  """Settings of the JAX trainer beyond `A2CConfig` (not stored in checkpoints).

  Raises:
    UserError: on construction, naming a bad setting.
  """
  max_stored_calls: int = dataclasses.field(
      default=64, metadata={"help": "Calls per table stored for learning (JAX engine)."})
  augment: bool = dataclasses.field(
      default=True, metadata={"help": "Augment the training deals by their 96 seat-rotation "
                              "x suit-permutation symmetries (JAX: one drawn per deal and "
                              "round; numpy engine: all 96)."})
  platform: str | None = dataclasses.field(
      default=None, metadata={"help": "JAX device to train on: cpu, gpu, tpu, or None for "
                              "JAX's default (the GPU when there is one)."})

  def __post_init__(self):
    checks.check_fields(self, JAX_OPTION_RULES)


JAX_OPTION_RULES: dict[str, checks.Rule] = {
    "max_stored_calls": checks.Int(minimum=1, maximum=A.MAX_AUCTION_LENGTH),  # longest auction
    "augment": checks.Bool(),
    "platform": checks.Choice(("cpu", "gpu", "tpu", "cuda", "rocm"), allow_none=True),
}


def pick_device(platform: str | None) -> jax.Device:
  """The first device of `platform` (None: JAX's default); ValueError if there is none.

  Args:
    platform: "cpu", "gpu", "tpu" (or "cuda", "rocm") or None.
  """
  if platform is None:
    return jax.devices()[0]
  try:
    devices = jax.devices(platform)
  except RuntimeError as e:
    raise ValueError(f"platform {platform!r}: no such JAX device here ({e})") from None
  if not devices:
    raise ValueError(f"platform {platform!r}: no such JAX device here")
  return devices[0]


# ------------------------------------------------------------------------------------------
# Deal symmetries (those of dataset.augment_deals), as gather indices
# ------------------------------------------------------------------------------------------
def symmetry_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """(card sources (96, 52), seat shifts (96,), DDS gather indices (96, 20)) of the symmetries.

  Image ``j`` of a deal (row ``j * n + i`` of `dataset.augment_deals`) has holders
  ``(holders[src[j]] + shift[j]) % 4`` and DDS table ``dd.reshape(20)[dd_idx[j]]``.
  """
  num_rot = A.NUM_SEATS
  cards = np.arange(A.NUM_CARDS)
  ranks, suits = cards // 4, cards % 4
  src = np.empty((len(deal_lib.SUIT_PERMUTATIONS) * num_rot, A.NUM_CARDS), np.int32)
  shift = np.empty(src.shape[0], np.int32)
  for k, perm in enumerate(deal_lib.SUIT_PERMUTATIONS):
    s = np.empty(A.NUM_CARDS, np.int32)
    s[ranks * 4 + np.asarray(perm)[suits]] = cards
    for r in range(num_rot):
      src[k * num_rot + r] = s
      shift[k * num_rot + r] = r
  index_table = np.arange(A.NUM_STRAINS * A.NUM_SEATS).reshape(1, A.NUM_STRAINS, A.NUM_SEATS)
  dd_idx = deal_lib.symmetric_dd_tricks(index_table)[:, 0].reshape(src.shape[0], -1)
  return src, shift, dd_idx.astype(np.int32)


def apply_symmetries(holders, dd_tricks, sym):
  """Deals (K, 52) and DDS tables (K, 5, 4) under symmetries `sym` (K,) in 0..95 (jittable)."""
  src, shift, dd_idx = (jnp.asarray(x) for x in symmetry_tables())
  h = jnp.take_along_axis(jnp.asarray(holders, jnp.int32), src[sym], axis=1)
  h = (h + shift[sym][:, None]) % A.NUM_SEATS
  k = dd_tricks.shape[0]
  t = jnp.take_along_axis(jnp.asarray(dd_tricks, jnp.int32).reshape(k, -1), dd_idx[sym], axis=1)
  return h, t.reshape(k, A.NUM_STRAINS, A.NUM_SEATS)


# ------------------------------------------------------------------------------------------
# Self-play in JAX
# ------------------------------------------------------------------------------------------
def make_selfplay_fn(net, num_deals: int, *, max_stored_calls: int = 64, augment: bool = True,
                     uncontested: bool = False, greedy: bool = False):
  """A jittable ``play(params, key, pool_holders, pool_dd) -> dict`` of one self-play round.

  `num_deals` deals drawn uniformly from the pool (`augment`: each under a random symmetry),
  each bid at tables k and K + k with the same dealer and vulnerability, calls sampled from
  the network (``greedy``: argmax). The result holds the stored decisions ``obs`` (T, 2K, 267)
  uint8, ``actions``, ``logp`` (behaviour log-probabilities), ``keep`` (stored decision with at
  least two legal calls), ``seat`` (each (T, 2K)), and per table ``ns_score``, ``reward_ns``,
  ``num_calls``, plus ``not_stored`` (decisions beyond the first T calls).

  Args:
    net: the haiku network of `policy_net.make_network`.
    num_deals: deals K per round (2K tables).
    max_stored_calls: T.
    augment: apply one of the 96 deal symmetries per deal.
    uncontested: East-West may only pass.
    greedy: argmax calls instead of sampling.
  """
  num_tables = 2 * num_deals
  t_max = int(max_stored_calls)
  src_count = symmetry_tables()[0].shape[0]

  def play(params, key, pool_holders, pool_dd):
    k_deal, k_sym, k_dealer, k_vul, k_play = jax.random.split(key, 5)
    idx = jax.random.randint(k_deal, (num_deals,), 0, pool_holders.shape[0])
    holders, dd = pool_holders[idx], pool_dd[idx]
    if augment:
      sym = jax.random.randint(k_sym, (num_deals,), 0, src_count)
      holders, dd = apply_symmetries(holders, dd, sym)
    dealer = jax.random.randint(k_dealer, (num_deals,), 0, 4)
    vul = jax.random.randint(k_vul, (num_deals,), 0, 4)
    two = lambda x: jnp.concatenate([x, x])
    state = jax_env.reset(two(holders), two(dd), two(dealer), two(vul), uncontested=uncontested)
    bufs = (jnp.zeros((t_max, num_tables, A.OBSERVATION_SIZE), jnp.uint8),
            jnp.zeros((t_max, num_tables), jnp.int32),
            jnp.zeros((t_max, num_tables), jnp.float32),
            jnp.zeros((t_max, num_tables), jnp.bool_),
            jnp.zeros((t_max, num_tables), jnp.int32))

    def cond(carry):
      state, t = carry[0], carry[1]
      return (t < A.MAX_AUCTION_LENGTH) & ~jnp.all(state.done)

    def body(carry):
      state, t, key, not_stored, (obs_b, act_b, logp_b, keep_b, seat_b) = carry
      key, k_act = jax.random.split(key)
      obs = jax_env.observation(state, dtype=jnp.float32)
      logits, _ = net.apply(params, obs)
      a = (jnp.argmax(logits, axis=-1) if greedy
           else jax.random.categorical(k_act, logits, axis=-1)).astype(jnp.int32)
      logp = jnp.take_along_axis(jax.nn.log_softmax(logits, axis=-1), a[:, None], axis=1)[:, 0]
      keep = legal_from_obs(obs).sum(axis=1) > 1
      seat = jax_env.current_player(state)
      not_stored = not_stored + jnp.where(t >= t_max, keep.sum(), 0)
      obs_b = obs_b.at[t].set(obs.astype(jnp.uint8), mode="drop")
      act_b = act_b.at[t].set(a, mode="drop")
      logp_b = logp_b.at[t].set(logp, mode="drop")
      keep_b = keep_b.at[t].set(keep, mode="drop")
      seat_b = seat_b.at[t].set(seat, mode="drop")
      state = jax_env.step(state, a)
      return state, t + 1, key, not_stored, (obs_b, act_b, logp_b, keep_b, seat_b)

    carry = (state, jnp.int32(0), k_play, jnp.int32(0), bufs)
    state, _, _, not_stored, (obs_b, act_b, logp_b, keep_b, seat_b) = jax.lax.while_loop(
        cond, body, carry)
    ns = jax_env.ns_score(state)
    return {"obs": obs_b, "actions": act_b, "logp": logp_b, "keep": keep_b, "seat": seat_b,
            "ns_score": ns, "reward_ns": scoring.duplicate_rewards(ns, xp=jnp),
            "num_calls": state.num_calls, "not_stored": not_stored}

  return play


_ROUND_FNS: dict = {}  # compiled rounds, shared by trainers of equal settings


def cached_round_fn(cfg: A2CConfig, options: JaxTrainOptions):
  """`make_round_fn` for `cfg` and `options`, cached per distinct setting.

  `make_round_fn` for `cfg` and `options`, made once per distinct setting (so that several
  trainers in one process compile one program).
  """
  key = (dataclasses.astuple(dataclasses.replace(cfg, seed=0)), options.max_stored_calls,
         options.augment)
  if key not in _ROUND_FNS:
    net = make_network(cfg.hidden, cfg.num_blocks)
    _ROUND_FNS[key] = make_round_fn(net, optax.adam(cfg.learning_rate), cfg, options)
  return _ROUND_FNS[key]


def make_round_fn(net, optimizer, cfg: A2CConfig, options: JaxTrainOptions):
  """The jitted training round: self-play, then A2C updates.

  The jitted round ``(params, opt_state, key, entropy_coef, pool_holders, pool_dd) ->
  (params, opt_state, metrics, stats)``: self-play (`make_selfplay_fn`), then
  ``updates_per_round`` Adam steps of `a2c_loss.make_update_fn` on uniform samples of the round's
  decisions.

  Args:
    net: the network of `policy_net.make_network`.
    optimizer: the optax optimizer (`optax.adam(cfg.learning_rate)`, as `a2c`).
    cfg: hyper-parameters.
    options: `JaxTrainOptions`.
  """
  play = make_selfplay_fn(net, cfg.deals_per_round, max_stored_calls=options.max_stored_calls,
                          augment=options.augment, uncontested=cfg.uncontested)
  update = a2c.make_update_fn(net, optimizer, cfg)

  @jax.jit
  def round_fn(params, opt_state, key, entropy_coef, pool_holders, pool_dd):
    k_play, k_learn = jax.random.split(key)
    ro = play(params, k_play, pool_holders, pool_dd)
    r = ro["reward_ns"][None, :]
    returns = scoring.seat_returns(r, ro["seat"]).reshape(-1).astype(jnp.float32)
    obs = ro["obs"].reshape(-1, A.OBSERVATION_SIZE)
    actions, logp = ro["actions"].reshape(-1), ro["logp"].reshape(-1)
    keep = ro["keep"].reshape(-1)
    n_keep = keep.sum()
    p = jnp.where(n_keep > 0, keep / jnp.maximum(n_keep, 1), 1.0 / keep.shape[0])

    def learn(carry, k):
      params, opt_state = carry
      i = jax.random.choice(k, keep.shape[0], (cfg.batch_size,), p=p)
      params, opt_state, m = update(params, opt_state, obs[i], actions[i], logp[i],
                                    returns[i], entropy_coef)
      return (params, opt_state), m

    keys = jax.random.split(k_learn, cfg.updates_per_round)
    (params, opt_state), ms = jax.lax.scan(learn, (params, opt_state), keys)
    metrics = jax.tree_util.tree_map(jnp.mean, ms)
    stats = {"decisions": n_keep, "not_stored": ro["not_stored"],
             "mean_auction_len": jnp.mean(ro["num_calls"].astype(jnp.float32))}
    return params, opt_state, metrics, stats

  return round_fn


# ------------------------------------------------------------------------------------------
# Trainer
# ------------------------------------------------------------------------------------------
class JaxA2CTrainer(round_trainer.RoundTrainer):
  """Self-play A2C with acting and learning in JAX; see the module docstring.

  Args:
    cfg: hyper-parameters (`A2CConfig`; the replay-buffer fields are unused but stored).
    dataset: training deals (a `dataset.BridgeDataset`, path(s), or None: the shipped set).
    train_deals: indices of the training deals in `dataset` (None: all).
    workdir: folder of ``checkpoint.npz`` and ``log.csv`` (None: nothing written); training
      resumes from its checkpoint when there is one.
    resume_from: a slim (or full) `a2c` checkpoint to start from when `workdir` has none.
    options: `JaxTrainOptions`.
  """

  def __init__(self, cfg: A2CConfig, dataset=None, train_deals: np.ndarray | None = None,
               *, workdir: str | None = None, resume_from: str | None = None,
               options: JaxTrainOptions | None = None):
    round_trainer.check_trainer_arguments(cfg, dataset, train_deals, workdir=workdir,
                                          resume_from=resume_from)
    checks.check_type("options", options, (JaxTrainOptions, type(None)),
                      "a JaxTrainOptions or None")
    if cfg.distill_coef > 0 or cfg.q_coef > 0:
      raise UserError(f"the JAX trainer has no search distillation or Q head (distill_coef="
                      f"{cfg.distill_coef}, q_coef={cfg.q_coef}); use the numpy trainer")
    self.options = options or JaxTrainOptions()
    self.cfg = cfg
    self.device = pick_device(self.options.platform)
    ds = dataset_lib.load_datasets(dataset)
    idx = np.arange(ds.holders.shape[0]) if train_deals is None else np.asarray(train_deals)
    if idx.size == 0:
      raise ValueError("no training deals")
    put = lambda x: jax.device_put(x, self.device)
    self.pool_holders = put(np.asarray(ds.holders[idx], np.int32))
    self.pool_dd = put(np.asarray(ds.dd_tricks[idx], np.int32))
    self.workdir = workdir
    self.net = make_network(cfg.hidden, cfg.num_blocks)
    self.optimizer = optax.adam(cfg.learning_rate)
    resume = (self.checkpoint_path if workdir is not None and os.path.exists(
        os.path.join(workdir, "checkpoint.npz")) else resume_from)
    if resume is None:  # (a resumed trainer skips the initialisation)
      self.params = put(init_params(self.net, cfg.seed))
      self.opt_state = put(self.optimizer.init(self.params))
    # The numpy random states of the a2c checkpoint format (a2c resumes with them).
    self.rng_state = np.random.default_rng(cfg.seed).bit_generator.state
    self.learner_rng_state = np.random.default_rng([cfg.seed, 1]).bit_generator.state
    self.round = 0
    self.games = 0
    self.decisions = 0
    self.wall = 0.0
    self.total_wall = 0.0
    self.log_rows: list[dict] = []
    self._round_fn = cached_round_fn(cfg, self.options)
    if resume is not None:
      self.load_checkpoint(resume)

  TRAIN_DESC = "jax a2c rounds"

  # --- checkpoints --------------------------------------------------------------------------
  def save_checkpoint(self, path: str | None = None, include_buffer: bool = False) -> None:
    """Writes a slim `a2c` checkpoint atomically to `path` (default ``workdir/checkpoint.npz``).

    Args:
      path: output file; None: the workdir's checkpoint (nothing when there is no workdir).
      include_buffer: must be False: this trainer has no replay buffer (the argument is
        `a2c.A2CTrainer.save_checkpoint`'s).

    Raises:
      ValueError: when `include_buffer` is True.
    """
    if include_buffer:
      raise ValueError("the JAX trainer has no replay buffer to save")
    if path is None:
      if self.workdir is None:
        return
      path = self.checkpoint_path
    self._write_checkpoint(path, self.rng_state, self.learner_rng_state, compressed=True)

  def load_checkpoint(self, path: str) -> None:
    """Loads parameters, Adam state, counters and log of an `a2c` checkpoint (slim or full).

    Args:
      path: the checkpoint; its network must be this trainer's.
    """
    state, params, opt_state, _ = round_trainer.read_checkpoint(path, self.cfg, self.optimizer)
    put = lambda x: jax.device_put(x, self.device)
    self.params = put(params)
    self.opt_state = put(opt_state)
    self.round, self.games, self.wall = state["round"], state["games"], state["wall"]
    self.total_wall = state.get("total_wall", self.wall)
    self.rng_state = state["rng"]
    self.learner_rng_state = state.get("learner_rng", self.learner_rng_state)
    self.log_rows = state["log_rows"]
    last = self.log_rows[-1] if self.log_rows else {}
    self.decisions = int(last.get("decisions", 0) or 0)

  # --- training -----------------------------------------------------------------------------
  def round_key(self, round_: int) -> jax.Array:
    """The random key of round `round_` (0-based): fold_in(PRNGKey(seed), round_)."""
    return jax.random.fold_in(jax.random.PRNGKey(self.cfg.seed), round_)

  def train_round(self) -> dict:
    """One round (self-play of 2 x deals_per_round tables, then the Adam steps); its log row."""
    t0 = time.time()
    key = jax.device_put(self.round_key(self.round), self.device)
    ent = jax.device_put(np.float32(self.cfg.entropy_at(self.round)), self.device)
    self.params, self.opt_state, metrics, stats = self._round_fn(
        self.params, self.opt_state, key, ent, self.pool_holders, self.pool_dd)
    metrics, stats = jax.device_get((metrics, stats))
    self.round += 1
    games = 2 * self.cfg.deals_per_round
    self.games += games
    self.decisions += int(stats["decisions"])
    dt = time.time() - t0
    self.wall += dt
    row = {"round": self.round, "games": self.games, "decisions": self.decisions,
           "wall_s": round(self.wall, 2), "games_per_s": round(games / max(dt, 1e-9), 1),
           "mean_auction_len": float(stats["mean_auction_len"]), "search_points": 0,
           "calls_not_stored": int(stats["not_stored"])}
    row.update({k: float(metrics[k]) for k in ("loss", "policy_loss", "value_loss", "entropy",
                                               "mean_rho")})
    return row
