r"""JPSBid: fine-tuning the A2C bidder with Joint Policy Search (JPS paper Sec. 7.3).

The search itself, `joint_search` (Tian, Gong & Jiang, arXiv:2008.06495, Sec. 5.2, Eq. 7-8:
the best joint change of a seat's call and its partner's next call, valued by rollouts under
the current policy ``sigma``), lives in `ospiel_team.bridge.agents.search.jps_search`; this module
attaches it to self-play training (`a2c.A2CTrainer.search`). `SearchOptions` are the options
both hooks share (`SEARCH_OPTION_RULES` checks them).

Two ways to use the search in training (docs/bridge.md compares them):

* `GameSearch`, the authors' protocol (facebookresearch/jps, ``rela/search_actor.h``): a
  fraction of the self-play games is searched at *every* decision (candidates: calls with
  sigma-probability above 0.05) and the searched call is *played*; the stored returns are the
  real results of those games, so no search estimate enters the replay buffer.
* `JPSBidSearch`, our earlier reading of Sec. 7.3: one decision of a searched game is searched
  after the game and the best joint change is added to the buffer as extra decisions.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.search import jps_search
from ospiel_team.bridge.agents.search.jps_search import AUTHORS_BUDGET as AUTHORS_BUDGET
from ospiel_team.bridge.agents.search.jps_search import SearchResult as SearchResult
from ospiel_team.bridge.agents.search.jps_search import joint_search as joint_search
from ospiel_team.bridge.agents.search.jps_search import selfplay_roots as selfplay_roots
from ospiel_team.bridge.agents.search.jps_search import top_candidates as top_candidates
from ospiel_team.bridge.agents.training import a2c


# ------------------------------------------------------------------------------------------
# Hook into A2C self-play
# ------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SearchOptions:
  """The options both search hooks (`JPSBidSearch`, `GameSearch`) share (see `joint_search`).

  Raises:
    UserError: on construction, naming the first bad option.
  """
  fraction: float = 0.05            # fraction p of the self-play games searched
  depth: int = 3                    # 3: JPS (P1, opponent, P2); 1: the 1-search ablation
  candidates: int = 5               # at most this many candidate calls per searching player
  rollouts: int = 5                 # opponent samples, and rollouts per stage (paper: 5 x 5)
  candidate_threshold: float = 0.0  # candidates: sigma-probability above this (0: top-k)
  partner: str = "max"              # P2's candidates: "max" (Eq. 7-8) or "mean"
  min_gain: float = 0.0             # a change is used only if its estimated gain reaches this
  seed: int = 7                     # the search's own random numbers
  opponent_samples: int | None = None  # opponent samples per P1 candidate (None: rollouts)
  continuations: int | None = None     # rollouts per P2 candidate (None: rollouts)

  def __post_init__(self):
    checks.check_fields(self, SEARCH_OPTION_RULES)
    jps_search.check_depth(self.depth)

  def search_kwargs(self) -> dict:
    """The `joint_search` arguments these options set."""
    return {"depth": self.depth, "candidates": self.candidates, "rollouts": self.rollouts,
            "candidate_threshold": self.candidate_threshold, "partner": self.partner,
            "opponent_samples": self.opponent_samples, "continuations": self.continuations}

  @classmethod
  def authors_budget(cls, **overrides) -> SearchOptions:
    """The authors' search budget (`AUTHORS_BUDGET`), other fields at their defaults."""
    return cls(**{**AUTHORS_BUDGET, **overrides})


# The rule of every `SearchOptions` field, checked by `checks.check_fields` (the training
# command checks its --search_* flags by the same rules); the search's own arguments are
# checked by the rules `joint_search` checks them by.
SEARCH_OPTION_RULES: dict[str, checks.Rule] = {
    "fraction": checks.Real(minimum=0, maximum=1),
    "depth": jps_search.SEARCH_ARGUMENT_RULES["depth"],
    "candidates": jps_search.SEARCH_ARGUMENT_RULES["candidates"],
    "rollouts": jps_search.SEARCH_ARGUMENT_RULES["rollouts"],
    "candidate_threshold": jps_search.SEARCH_ARGUMENT_RULES["candidate_threshold"],
    "partner": jps_search.SEARCH_ARGUMENT_RULES["partner"],
    "min_gain": checks.Real(minimum=0),
    "seed": checks.Int(minimum=0),
    "opponent_samples": jps_search.SEARCH_ARGUMENT_RULES["opponent_samples"],
    "continuations": jps_search.SEARCH_ARGUMENT_RULES["continuations"],
}


def record_for_distillation(trainer, result: SearchResult, reward: str) -> np.ndarray | None:
  """Gives a search's result to the trainer's `record_search` when it distils the search.

  Args:
    trainer: the trainer the hook is attached to (`a2c.A2CTrainer`, or any object: one
      without a ``record_search`` method records nothing).
    result: the search's `SearchResult`.
    reward: the search's reward kind, "imps" or "score".

  Returns:
    (R,) the call each root decision is distilled towards (-1 where it has fewer than 2
    candidates), or None when the trainer does not distil (``record_search`` returns None).
  """
  record = getattr(trainer, "record_search", None)
  return None if record is None else record(result, reward)


class JPSBidSearch:
  """Attach to `a2c.A2CTrainer.search`: searches a fraction of each round's games.

  Args:
    options: the search's `SearchOptions` (default `DEFAULTS`); keyword `overrides` replace
      single fields (e.g. ``JPSBidSearch(fraction=0.01)``).
    fresh_returns: store fresh-rollout returns of the chosen change (see `jps_search`).

  Raises:
    UserError: `options` not a `SearchOptions` or None, `fresh_returns` not a bool, or a bad
      override (named).
  """

  DEFAULTS = SearchOptions()

  def __init__(self, options: SearchOptions | None = None, *, fresh_returns: bool = True,
               **overrides):
    checks.check_type("options", options, (SearchOptions, type(None)), "a SearchOptions or None")
    checks.check_bool("fresh_returns", fresh_returns)
    self.options = dataclasses.replace(options or self.DEFAULTS, **overrides)
    self.fresh_returns = fresh_returns
    self.rng = np.random.default_rng(self.options.seed)
    self.total_points = 0
    self.total_gain = 0.0

  def reseed(self, seed: int) -> None:
    """Restarts the search's random numbers from `seed`.

    The protocol script reseeds per chunk of rounds so that a resumed run searches exactly like
    an uninterrupted one.
    """
    self.rng = np.random.default_rng(seed)

  def begin_round(self, trainer, num_tables: int) -> None:
    """Chooses the round's tables to search, each with probability `fraction`."""
    self.selected = self.rng.random(num_tables) < self.options.fraction
    self.count = np.zeros(num_tables, np.int64)
    self.snap = {}

  def on_step(self, step: int, eng: engine_lib.BiddingEngine) -> None:
    """Keeps one random decision with a choice of calls per chosen table (reservoir sampling)."""
    del step
    rows = np.flatnonzero(self.selected & ~eng.done)
    if len(rows) == 0:
      return
    nlegal = eng.legal_mask()[rows].sum(axis=1)
    rows = rows[nlegal > 1]
    self.count[rows] += 1
    take = rows[self.rng.random(len(rows)) * self.count[rows] < 1.0]  # reservoir sampling
    if len(take):
      snaps = eng.auctions.take(take)
      for j, t in enumerate(take):
        self.snap[int(t)] = (snaps.take([j]), int(eng.deal_index[t]))

  def end_round(self, trainer, ro: a2c.Rollout) -> int:
    """Searches the kept decisions and adds their improved calls to the buffer; returns how many."""
    if not self.snap:
      return 0
    tables = sorted(self.snap)
    auctions = A.Auctions.concat([self.snap[t][0] for t in tables])
    deals = [self.snap[t][1] for t in tables]
    root = engine_lib.BiddingEngine.from_auctions(
        trainer.engine.dataset, trainer.engine.uncontested, auctions, deals)
    k = len(ro.ns_score) // 2
    other = np.array([(t + k) % (2 * k) for t in tables])
    res = joint_search(trainer.policy, root, ro.ns_score[other], self.rng,
                       fresh_returns=self.fresh_returns, **self.options.search_kwargs())
    record_for_distillation(trainer, res, "imps")
    ok = (res.num_candidates >= 2) & (res.gain >= self.options.min_gain)
    trainer.buffer.add(res.root_obs[ok], res.best_call[ok], res.root_logp[ok],
                       res.root_return[ok])
    if len(res.partner_call):
      pk = ok[res.partner_root]
      trainer.buffer.add(res.partner_obs[pk], res.partner_call[pk], res.partner_logp[pk],
                         res.partner_return[pk])
    self.total_points += int(ok.sum())
    self.total_gain += float(res.gain[ok].sum())
    return int(ok.sum())


class GameSearch:
  """The authors' JPSBid training protocol: attach to `a2c.A2CTrainer.search`.

  As in facebookresearch/jps ``rela/search_actor.h`` (``SearchActor``): each self-play game
  is searched with probability `fraction` (a dice per game, the paper's "a game thread works
  on one of the two modes decided by rolling a dice"); in a searched game *every* decision
  with at least two candidates (calls with sigma-probability above `candidate_threshold`,
  0.05 in their code) is searched before it is made (`joint_search`, depth 3 = JPS, depth 1
  = 1-search), and the search's call is *played* in that game. The decisions enter the
  replay buffer like all others, with the behaviour log-probability of sigma and the game's
  real duplicate result as return (so no max-biased search value is ever stored), and A2C
  learns from them. The search's reward is the team's raw score in points (the authors'
  ``playerRawScore``): the other table of the deal is still being bid, so its result is not
  known yet.

  Options beyond the authors' code: ``partner="max"`` (the paper's joint maximisation over
  P2's candidates; their ``SearchActor`` averages them, ``partner="mean"``), `min_gain`
  (points: the searched call is played only when its estimated gain over sigma's
  candidate-weighted value reaches it) and ``target="nll"`` (also one cross-entropy Adam step
  per round towards the searched calls, weight `nll_coef`, as in their ``A2CAgent.loss_search``).
  """

  DEFAULTS = SearchOptions(fraction=0.01, candidate_threshold=0.05)

  def __init__(self, options: SearchOptions | None = None, *, target: str = "a2c",
               nll_coef: float = 1.0, **overrides):
    checks.check_type("options", options, (SearchOptions, type(None)), "a SearchOptions or None")
    checks.check_choice("target", target, ("a2c", "nll"))
    nll_coef = checks.check_real("nll_coef", nll_coef, above=0)
    self.options = dataclasses.replace(options or self.DEFAULTS, **overrides)
    self.target = target
    self.nll_coef = nll_coef
    self.rng = np.random.default_rng(self.options.seed)
    self.total_points = 0
    self.total_changed = 0
    self._nll_step = None

  def reseed(self, seed: int) -> None:
    """Restarts the search's random numbers (see `JPSBidSearch.reseed`)."""
    self.rng = np.random.default_rng(seed)

  def begin_round(self, trainer, num_tables: int) -> None:
    """Chooses the round's tables to search, each with probability `fraction`."""
    self.trainer = trainer
    self.selected = self.rng.random(num_tables) < self.options.fraction
    self.obs, self.calls = [], []

  def on_step(self, step: int, eng: engine_lib.BiddingEngine) -> np.ndarray | None:
    """Forced calls (B,) for this step (-1: sample from sigma), or None."""
    del step
    rows = np.flatnonzero(self.selected & ~eng.done)
    if len(rows):
      rows = rows[eng.legal_mask()[rows].sum(axis=1) > 1]
    if len(rows) == 0:
      return None
    root = eng.take(rows)
    res = joint_search(self.trainer.policy, root, np.zeros(len(rows)), self.rng,
                       fresh_returns=False, reward="score", min_candidates=2,
                       **self.options.search_kwargs())
    targets = record_for_distillation(self.trainer, res, "score")
    ok = (res.num_candidates >= 2) & (res.gain >= self.options.min_gain)
    forced = np.full(eng.batch_size, -1, np.int64)
    forced[rows[ok]] = res.best_call[ok]
    if targets is not None and getattr(self.trainer, "plays_distill_target", False):
      forced[rows[ok]] = targets[ok]  # the random control plays its recorded candidate
    self.total_points += int((res.num_candidates >= 2).sum())
    # decisions where the search plays another call than sigma's most probable one
    self.total_changed += int((ok & (res.best_call != res.candidate_calls[:, 0])).sum())
    if self.target == "nll" and ok.any():
      self.obs.append(res.root_obs[ok])
      self.calls.append(res.best_call[ok])
    return forced

  def end_round(self, trainer, ro: a2c.Rollout) -> int:
    """Takes the NLL step towards the round's searched calls; returns the games searched."""
    del ro
    if self.target == "nll" and self.obs:
      obs = np.concatenate(self.obs)
      calls = np.concatenate(self.calls)
      if self._nll_step is None:
        self._nll_step = make_nll_step(trainer.net, trainer.optimizer, self.nll_coef)
      n = len(calls)
      m = max(64, 1 << int(np.ceil(np.log2(n))))  # few padded shapes -> few jit compilations
      pad_obs = np.zeros((m, obs.shape[1]), np.float32)
      pad_obs[:n] = obs
      pad_obs[n:, A.OBS_LEGAL] = 1  # padded rows: Pass legal (finite softmax), weight 0
      pad_calls = np.zeros(m, np.int32)
      pad_calls[:n] = calls
      weight = (np.arange(m) < n).astype(np.float32)
      trainer.params, trainer.opt_state = self._nll_step(
          trainer.params, trainer.opt_state, pad_obs, pad_calls, weight)
    return int(self.selected.sum())


def make_nll_step(net, optimizer, coef: float):
  """A jitted Adam step on the negative log-likelihood of the searched calls.

  Jitted Adam step on ``coef * mean(-log pi(searched call | s))`` (the authors'
  ``A2CAgent.loss_search`` policy term), sharing the trainer's optimizer state.
  """
  import jax
  import jax.numpy as jnp
  import optax

  def loss_fn(params, obs, calls, weight):
    logits, _ = net.apply(params, obs)
    logp = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logp, calls[:, None], axis=1)[:, 0]
    return -coef * jnp.sum(weight * picked) / jnp.maximum(jnp.sum(weight), 1.0)

  @jax.jit
  def step(params, opt_state, obs, calls, weight):
    grads = jax.grad(loss_fn)(params, obs, calls, weight)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state

  return step
