"""The self-play A2C trainers' hyper-parameters: the one place their defaults are declared.

`A2CConfig` is read by the numpy trainer (`a2c.A2CTrainer`), the JAX trainer
(`jax_trainer.JaxA2CTrainer`), the training command ``ospiel-team-train-bridge`` (whose flags
are generated from its fields: `ospiel_team.cli.config_flags`) and the fine-tuning benchmark.
Each field's help text is its ``metadata["help"]``. Defaults: the JPS paper's Appendix E
(Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495) at CPU size: learning rate 1e-4 and entropy
bonus 0.01 as in the paper, 2 residual blocks instead of more (Table 4: no difference).

Two options beyond the paper's A2C (`ospiel_team.bridge.agents.training.ppo`,
`ospiel_team.bridge.agents.training.opponent_pool`):

* ``algorithm="ppo"``: proximal policy optimisation (Schulman et al., "Proximal Policy
  Optimization Algorithms", arXiv:1707.06347) with generalised advantage estimation (Schulman
  et al., "High-Dimensional Continuous Control Using Generalized Advantage Estimation",
  arXiv:1506.02438): ``clip_eps``, ``gae_lambda``, ``epochs_per_batch``, ``minibatch_size``.
* fictitious self-play against a pool of the learner's past snapshots (Heinrich, Lanctot &
  Silver, "Fictitious Self-Play in Extensive-Form Games", ICML 2015; as Kita et al., "A Simple,
  Solid, and Reproducible Baseline for Bridge Bidding AI", IEEE CoG 2024, use it for bridge):
  ``opponent_pool_size``, ``pool_snapshot_every``, ``pool_probability``.

Two options for training with the JPS search (`ospiel_team.bridge.agents.training.search_buffer`),
both off by default (the trainer then computes exactly what it computed without them):

* distillation of the search: ``distill_coef``, ``distill_fraction``, ``distill_target``,
  ``distill_tau``, ``distill_kl``, ``search_buffer_size``, ``search_q_lambda``;
* a Q head (Q(I, a) for all 38 calls) regressed on the taken call's return: ``q_coef``.
"""

from __future__ import annotations

import dataclasses

from ospiel_team import checks
from ospiel_team.errors import UserError

DISTILL_TARGETS = ("hard", "soft", "random")


def _field(default, help_text: str):
  return dataclasses.field(default=default, metadata={"help": help_text})


@dataclasses.dataclass(frozen=True)
class A2CConfig:
  """Hyper-parameters of self-play A2C for bridge bidding (validated when made).

  Raises:
    UserError: on construction, naming the first field out of its range.
  """
  hidden: int = _field(200, "Units per fully connected layer.")
  num_blocks: int = _field(2, "Residual blocks (two fully connected layers each).")
  learning_rate: float = _field(1e-4, "Adam learning rate (the JPS paper: 1e-4).")
  entropy_coef: float = _field(0.01, "Entropy bonus (after the schedule).")
  entropy_coef_start: float = _field(
      0.01, "Entropy bonus at round 0, decayed linearly to entropy_coef over "
      "entropy_decay_rounds rounds.")
  entropy_decay_rounds: int = _field(0, "Rounds of the entropy schedule (0: constant "
                                     "entropy_coef).")
  value_coef: float = _field(0.5, "Weight of the value loss.")
  ratio_clip: float = _field(1.0, "Clip of the importance ratio pi/mu.")
  deals_per_round: int = _field(256, "Deals per round, each bid at two tables.")
  batch_size: int = _field(1024, "Decisions per Adam step.")
  updates_per_round: int = _field(4, "Adam steps per round.")
  buffer_size: int = _field(100_000, "Replay buffer capacity in decisions (numpy engine).")
  burn_in: int = _field(10_000, "Decisions in the replay buffer before the first Adam step "
                        "(numpy engine).")
  uncontested: bool = _field(False, "East-West may only pass (Yeh & Lin's setting).")
  seed: int = _field(0, "Random seed (network initialisation, deals, self-play).")
  fast_acting: bool = _field(True, "uint8 observations and finer jit padding when acting "
                             "(the same calls for the same random numbers; numpy engine).")
  overlap_learning: bool = _field(
      False, "Run the round's Adam steps in a thread while its games are played with the "
      "parameters from before them (faster, one round staler; numpy engine without search).")
  algorithm: str = _field("a2c", "Learner: a2c (replay buffer, importance-ratio clipped "
                          "A2C) or ppo (clipped surrogate, GAE, several epochs per round's "
                          "batch; numpy engine).")
  clip_eps: float = _field(0.2, "PPO: clip range of the probability ratio (1 - eps, 1 + eps).")
  gae_lambda: float = _field(0.95, "PPO: lambda of generalised advantage estimation (1: the "
                             "return minus the value).")
  epochs_per_batch: int = _field(4, "PPO: passes over each round's decisions.")
  minibatch_size: int = _field(1024, "PPO: decisions per Adam step within an epoch.")
  opponent_pool_size: int = _field(0, "Fictitious self-play: past snapshots of the learner "
                                   "kept as opponents (the newest N; 0: no pool).")
  pool_snapshot_every: int = _field(100, "Fictitious self-play: add the learner to the pool "
                                    "every this many rounds (and when the pool is empty).")
  pool_probability: float = _field(0.0, "Fictitious self-play: probability that a round is "
                                   "played against a pool snapshot (drawn uniformly from the "
                                   "pool) instead of the current learner.")
  distill_coef: float = _field(0.0, "Distillation of the search: weight of the cross-entropy "
                               "term towards the searched targets (0: off).")
  distill_fraction: float = _field(0.25, "Distillation: rows drawn from the search buffer for "
                                   "every minibatch, as a fraction of batch_size.")
  distill_target: str = _field("hard", "Distillation target: hard (the searched call), soft "
                               "(pi' proportional to pi exp((v(a) - mean v) / tau) over the "
                               "candidates) or random (a uniformly random valid candidate of "
                               "the same position: the control).")
  distill_tau: float = _field(0.0, "Distillation, soft target: the temperature tau in IMPs/24 "
                              "(0: chosen per minibatch so that the mean KL(pi' || pi) is "
                              "distill_kl).")
  distill_kl: float = _field(0.075, "Distillation, soft target with distill_tau 0: the mean "
                             "KL(pi' || pi) per minibatch that tau is chosen for.")
  search_buffer_size: int = _field(200_000, "Distillation: capacity of the search buffer in "
                                   "searched decisions (FIFO).")
  search_q_lambda: float = _field(0.0, "Distillation: candidate values are (1 - lambda) x the "
                                  "search's true-deal value + lambda x Q(I, a) (needs "
                                  "q_coef > 0).")
  q_coef: float = _field(0.0, "Weight of the Q head's regression on the taken call's return "
                         "(0: no Q head; > 0 adds one to the network).")

  def __post_init__(self):
    checks.check_fields(self, FIELD_RULES)
    if self.burn_in > self.buffer_size:
      raise UserError(f"burn_in {self.burn_in} exceeds buffer_size {self.buffer_size}")
    self._check_consistency()

  def _check_consistency(self) -> None:
    """Checks the pairs of fields that must agree (each field's own range: FIELD_RULES)."""
    if self.search_q_lambda > 0 and self.q_coef == 0:
      raise UserError(f"search_q_lambda={self.search_q_lambda} needs a Q head (q_coef > 0), "
                      "got q_coef=0")
    if (self.distill_coef > 0 or self.q_coef > 0) and self.algorithm != "a2c":
      raise UserError(f"distill_coef and q_coef are for algorithm 'a2c', got algorithm="
                      f"{self.algorithm!r}")
    if self.pool_probability > 0 and self.opponent_pool_size == 0:
      raise UserError(f"pool_probability {self.pool_probability} needs opponent_pool_size "
                      ">= 1")
    if self.algorithm == "ppo" and self.overlap_learning:
      raise UserError("overlap_learning is for algorithm a2c (PPO learns on the round's own "
                      "games)")

  def entropy_at(self, round_: int) -> float:
    """The entropy coefficient of round `round_` (0-based) under the linear schedule."""
    if self.entropy_decay_rounds <= 0 or round_ >= self.entropy_decay_rounds:
      return self.entropy_coef
    f = round_ / self.entropy_decay_rounds
    return (1 - f) * self.entropy_coef_start + f * self.entropy_coef

  def network_dict(self) -> dict:
    """The network's shape, as stored in model files: ``{"hidden", "num_blocks"}``.

    With a Q head (``q_coef`` > 0) also ``"q_head": True``; networks without one keep the
    two keys, so models saved before Q heads existed read as they always did.
    """
    d = {"hidden": self.hidden, "num_blocks": self.num_blocks}
    if self.q_coef > 0:
      d["q_head"] = True
    return d


# The rule of every field (finite, range, integer-ness): the one place A2CConfig's values are
# checked, by `checks.check_fields`; the command's flags are made from the same fields, so the
# command refuses the same values with the same message.
FIELD_RULES: dict[str, checks.Rule] = {
    "hidden": checks.Int(minimum=1),
    "num_blocks": checks.Int(minimum=0),
    "learning_rate": checks.Real(above=0),
    "entropy_coef": checks.Real(minimum=0),
    "entropy_coef_start": checks.Real(minimum=0),
    "entropy_decay_rounds": checks.Int(minimum=0),
    "value_coef": checks.Real(minimum=0),
    "ratio_clip": checks.Real(above=0),
    "deals_per_round": checks.Int(minimum=1),
    "batch_size": checks.Int(minimum=1),
    "updates_per_round": checks.Int(minimum=0),
    "buffer_size": checks.Int(minimum=1),
    "burn_in": checks.Int(minimum=0),
    "uncontested": checks.Bool(),
    "seed": checks.Int(minimum=0, maximum=2**32 - 1),
    "fast_acting": checks.Bool(),
    "overlap_learning": checks.Bool(),
    "algorithm": checks.Choice(("a2c", "ppo")),
    "clip_eps": checks.Real(above=0, below=1),
    "gae_lambda": checks.Real(minimum=0, maximum=1),
    "epochs_per_batch": checks.Int(minimum=1),
    "minibatch_size": checks.Int(minimum=1),
    "opponent_pool_size": checks.Int(minimum=0),
    "pool_snapshot_every": checks.Int(minimum=1),
    "pool_probability": checks.Real(minimum=0, maximum=1),
    "distill_coef": checks.Real(minimum=0),
    "distill_fraction": checks.Real(above=0, maximum=1),
    "distill_target": checks.Choice(DISTILL_TARGETS),
    "distill_tau": checks.Real(minimum=0),
    "distill_kl": checks.Real(above=0),
    "search_buffer_size": checks.Int(minimum=1),
    "search_q_lambda": checks.Real(minimum=0, maximum=1),
    "q_coef": checks.Real(minimum=0),
}
