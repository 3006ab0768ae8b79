r"""The JPSBid search: Joint Policy Search at sampled bridge-bidding decisions.

Tian, Gong & Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495, Sec. 5.2 (Eq. 7-8), applied to bridge bidding as
in their Sec. 7.3. `joint_search` searches a batch of root decisions ``h0``; the training hooks
that decide which decisions are searched and what the trainer learns from the results live in
`ospiel_team.bridge.agents.training.jps_bid`.

With P1 the seat to call at ``h0`` and P2 its partner, JPS changes the
policy of P1 at ``I(h0)`` and of P2 at its next infoset jointly, keeping the opponents (and all
later calls) at the current policy ``sigma`` (search depth D = 3: P1, opponent, P2):

* P1's candidates: its ``candidates`` most probable legal calls under ``sigma``;
* after each candidate ``a1``, ``rollouts`` samples of the opponent's call under ``sigma``;
* at each resulting state, P2's ``candidates`` most probable legal calls ``a2``;
* after each ``a2``, ``rollouts`` rollouts to the end under ``sigma`` estimate ``v^sigma``
  (so 5 x 5 rollouts per pair of candidates with the paper's settings).

The value of a joint change is the sampled-state term of Eq. 7 at the sampled state, with
``lambda = 0`` (at ``h0`` itself ``pi(h|h0) = 1`` for both policies, so
``J1(h0) = sum_a sigma'(I, a) v^sigma(h0 a) - v^sigma(h0)``; we do not use the network-based
``J2`` term)::

  v(a1) = mean over opponent samples o of  max_{a2} mean over rollouts of R(h0 a1 o a2 ...)

where P2's best ``a2`` is chosen separately at each of its infosets (the states after different
opponent calls are different infosets of P2). The best joint change, ``a1* = argmax v(a1)``
and ``a2*(o)``, goes into the replay buffer as decisions (P1's observation at ``h0``, ``a1*``,
return ``v(a1*)``) and (P2's observation after ``a1* o``, ``a2*(o)``, return of that branch),
with behaviour log-probability ``log sigma(a*)`` (importance ratio 1 at the time of the search),
so A2C's policy gradient moves ``sigma`` towards the searched change with advantage
``v - V(s)``. By default (``fresh_returns``) the stored returns ``v`` are re-estimated with
fresh rollouts of the chosen change (``rollouts`` per opponent sample): the search's own
estimates are maxima of noisy means, biased upwards, and storing them made fine-tuning worse
in our measurements (docs/bridge.md). The reward R is the same as in
self-play (`a2c` module): the searching team's duplicate IMPs against the game's other table
(whose result is fixed), / 24.

``depth=1`` is the paper's "1-search" ablation: only P1's call is searched, the rest (opponent,
partner, ...) follows ``sigma`` with ``opponent_samples x continuations`` rollouts per candidate.

All the rollouts of all the searched positions of a round run together, batched, on the numpy
engine, with the policy network batched on them. Only valid candidates are simulated, and the
budget is set per stage: ``opponent_samples`` after P1's call and ``continuations`` after P2's
(both ``rollouts`` by default); `AUTHORS_BUDGET` is the authors' (calls above 0.05 with no
cap, 5 opponent samples, one continuation per partner candidate, partner candidates averaged).
``benchmarks/bridge_jps_search_cost.py`` measures the cost of a searched decision and how
often an independent search with twice the rollouts confirms a changed call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.search.rollouts import rollout_to_end as _rollout_to_end
from ospiel_team.bridge.agents.search.rollouts import step_policy as _step_policy
from ospiel_team.bridge.agents.search.rollouts import team_reward
from ospiel_team.bridge.agents.search.rollouts import top_candidates
from ospiel_team.errors import UserError


# ------------------------------------------------------------------------------------------
# The search
# ------------------------------------------------------------------------------------------
@dataclasses.dataclass
class SearchResult:
  """Best joint changes at R root positions."""
  best_call: np.ndarray        # (R,) a1*
  best_value: np.ndarray       # (R,) v(a1*)
  candidate_calls: np.ndarray  # (R, k1)
  candidate_values: np.ndarray  # (R, k1) v(a1) (-inf for invalid candidates)
  root_obs: np.ndarray         # (R, 267)
  root_logp: np.ndarray        # (R,) log sigma(a1*)
  # Partner decisions of the best joint change (depth 3), flattened over roots x opp samples:
  partner_obs: np.ndarray      # (M, 267)
  partner_call: np.ndarray     # (M,)
  partner_value: np.ndarray    # (M,)
  partner_logp: np.ndarray     # (M,)
  partner_root: np.ndarray     # (M,) root of each partner decision
  # Returns stored in the replay buffer: fresh rollouts of the chosen change when
  # `fresh_returns` (unbiased given the choice), else the search's own (max-biased) estimates.
  root_return: np.ndarray | None = None     # (R,)
  partner_return: np.ndarray | None = None  # (M,)
  num_candidates: np.ndarray | None = None  # (R,) valid candidates of P1
  gain: np.ndarray | None = None            # (R,) v(a1*) - sum_a sigma(a) v(a)


def joint_search(policy: Callable, root: engine_lib.BiddingEngine, ref_ns_score: np.ndarray,
                 rng: np.random.Generator, *, depth: int = 3, candidates: int = 5,
                 rollouts: int = 5, fresh_returns: bool = True,
                 candidate_threshold: float = 0.0, partner: str = "max",
                 reward: str = "imps", opponent_samples: int | None = None,
                 continuations: int | None = None, padded: bool = False,
                 min_candidates: int = 1) -> SearchResult:
  """JPSBid search (depth 3) or 1-search (depth 1) at every table of `root` (none finished).

  Only valid candidates are simulated (a candidate below `candidate_threshold`, or beyond the
  legal calls, costs nothing); ``padded=True`` also plays copies of the first candidate in
  their place, as this function did before, and reproduces its random numbers exactly.

  The authors' budget (facebookresearch/jps ``rela/search_actor_refactored.h``: P1's
  candidates are the calls above 0.05 with no cap, each repeated 5 times with the opponent's
  call sampled, then each partner candidate above 0.05 followed by one continuation, partner
  candidates averaged) is `AUTHORS_BUDGET`: ``joint_search(..., **AUTHORS_BUDGET)``.

  Args:
    policy: sigma, ``policy(obs) -> (probs, values)``.
    root: engine positioned at the root states h0 (one per table).
    ref_ns_score: (R,) N-S score of each root's other table (``reward="imps"``: the reward is
      the searching team's IMPs against it, / 24) or a reference subtracted from the raw score
      (``reward="score"``: the searching team's raw duplicate score in points, the authors'
      ``playerRawScore`` in facebookresearch/jps ``rela/search_actor.h``).
    rng: random numbers of the rollouts.
    depth: 3 (JPS: P1, opponent, P2) or 1 (1-search: P1 only).
    candidates: at most this many candidate calls per searching player (most probable first).
    rollouts: the default of `opponent_samples` and `continuations` (5 x 5 in the paper).
    fresh_returns: also estimate the chosen change's value with fresh rollouts (see the
      module docstring).
    candidate_threshold: only calls with sigma-probability above this are candidates (the
      most probable call always is); the authors' code uses 0.05 with no cap. 0: the top
      `candidates` legal calls.
    partner: how P2's candidates are aggregated after each opponent sample: ``"max"`` (the
      best joint change, the paper's Eq. 7-8) or ``"mean"`` (uniform over P2's candidates,
      what the authors' bridge ``SearchActor`` computes).
    reward: ``"imps"`` or ``"score"`` (see `ref_ns_score`).
    opponent_samples: samples of the opponent's call after each P1 candidate (None:
      `rollouts`; the authors: 5).
    continuations: rollouts to the end after each P2 candidate (depth 3), or after each
      opponent sample (depth 1: ``opponent_samples * continuations`` rollouts per P1
      candidate); None: `rollouts` (the authors: 1).
    padded: simulate invalid candidates too, as earlier versions did (costlier; it gives
      their results to the last bit; where every candidate is valid both layouts do).
    min_candidates: roots with fewer valid P1 candidates are not simulated (the authors skip
      the search with one candidate: 2); their result is the policy's most probable call,
      with value, gain and returns NaN and no partner decisions.

  Returns:
    The `SearchResult` of every root.

  Raises:
    ValueError: an argument out of its range, or a finished root.
  """
  n_o = rollouts if opponent_samples is None else opponent_samples
  n_c = rollouts if continuations is None else continuations
  _check_search_arguments(root, depth, candidates, rollouts, candidate_threshold, partner,
                          reward, n_o, n_c, min_candidates)
  s = _Roots.of(policy, root, ref_ns_score, rng, candidates, n_o, n_c, candidate_threshold,
                reward, padded)
  searched = s.valid.sum(axis=1) >= min_candidates
  pairs, eng = _play_candidates(s, searched)
  if len(pairs) == 0:  # nothing to search
    res = _nothing_searched(s)
  elif depth == 1:
    res = _one_search(s, eng, pairs, fresh_returns)
  else:
    res = _three_search(s, eng, pairs, fresh_returns, partner)
  _blank_unsearched(res, searched)
  return res


# The authors' search budget (facebookresearch/jps rela/search_actor_refactored.h).
AUTHORS_BUDGET = {"candidates": A.NUM_CALLS, "candidate_threshold": 0.05,
                  "opponent_samples": 5, "continuations": 1, "partner": "mean"}


# The rule of every `joint_search` argument that the training hooks also take as an option
# (`jps_bid.SEARCH_OPTION_RULES` shares them).
SEARCH_ARGUMENT_RULES: dict[str, checks.Rule] = {
    "depth": checks.Int(minimum=1, maximum=3),
    "candidates": checks.Int(minimum=1),
    "rollouts": checks.Int(minimum=1),
    "candidate_threshold": checks.Real(minimum=0, below=1),
    "partner": checks.Choice(("max", "mean")),
    "opponent_samples": checks.Int(minimum=1, allow_none=True),
    "continuations": checks.Int(minimum=1, allow_none=True),
}


def check_depth(depth: int) -> None:
  """Raises UserError unless `depth` is 1 (1-search) or 3 (JPS)."""
  if depth not in (1, 3):
    raise UserError(f"search depth must be 1 (1-search) or 3 (JPS), got {depth}")


def _check_search_arguments(root: engine_lib.BiddingEngine, depth: int, candidates: int,
                            rollouts: int, candidate_threshold: float, partner: str,
                            reward: str, n_o: int, n_c: int, min_candidates: int) -> None:
  """Raises ValueError for a `joint_search` argument out of its range (or a finished root)."""
  for name, value in (("depth", depth), ("candidates", candidates), ("rollouts", rollouts),
                      ("candidate_threshold", candidate_threshold), ("partner", partner),
                      ("opponent_samples", n_o), ("continuations", n_c)):
    SEARCH_ARGUMENT_RULES[name].check(name, value)
  check_depth(depth)
  checks.check_choice("reward", reward, ("imps", "score"))
  if np.any(root.done):
    raise ValueError("joint_search: a root table's auction is already over")
  if min_candidates < 1:
    raise ValueError(f"min_candidates must be >= 1, got {min_candidates}")


@dataclasses.dataclass
class _Roots:
  """The root positions of one `joint_search` and what every stage of it reads."""
  policy: Callable
  root: engine_lib.BiddingEngine
  ref_ns_score: np.ndarray  # (R,)
  sign: np.ndarray          # (R,) +1 where N-S searches, -1 where E-W does
  rng: np.random.Generator
  reward: str
  k: int                    # candidates per searching player (k1 = k2)
  n_o: int                  # opponent samples after each P1 candidate
  n_c: int                  # continuations after each P2 candidate (depth 3)
  threshold: float
  padded: bool              # also simulate invalid candidates
  obs: np.ndarray           # (R, 267) P1's observations at h0
  probs: np.ndarray         # (R, 38) sigma there
  calls: np.ndarray         # (R, k) P1's candidates
  valid: np.ndarray         # (R, k)

  @classmethod
  def of(cls, policy, root, ref_ns_score, rng, k, n_o, n_c, threshold, reward,
         padded) -> _Roots:
    obs = root.observation()
    probs, _ = policy(obs)
    calls, valid = top_candidates(probs, policy_net.legal_from_obs(obs), k, threshold=threshold)
    sign = np.where(root.current_player % 2 == 0, 1.0, -1.0)
    return cls(policy, root, np.asarray(ref_ns_score), sign, rng, reward, k, n_o, n_c,
               threshold, bool(padded), obs, probs, calls, valid)

  @property
  def r_n(self) -> int:
    return self.root.batch_size

  def rewards(self, eng: engine_lib.BiddingEngine, root_of: np.ndarray) -> np.ndarray:
    """The searching team's reward at each finished table of `eng` (of root `root_of`)."""
    return team_reward(eng.ns_score(), self.ref_ns_score[root_of], self.sign[root_of],
                       kind=self.reward)

  def each_root(self, m: int) -> np.ndarray:
    """Root of each table when each root is repeated `m` times in order."""
    return np.repeat(np.arange(self.r_n), m)

  def scatter(self, pairs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(R, k) candidate values: `values` at the simulated (root, cand) `pairs`, else -inf."""
    out = np.full(self.r_n * self.k, -np.inf)
    out[pairs] = values
    return out.reshape(self.r_n, self.k)


def _play_candidates(s: _Roots, searched: np.ndarray
                     ) -> tuple[np.ndarray, engine_lib.BiddingEngine]:
  """Stage 1: P1 plays each simulated candidate, n_o copies each (the opponent's samples).

  Returns the simulated (root, cand1) pairs (flat indices into (R, k), row-major) and the
  engine after P1's call, its tables in order (root, cand1, opp sample); invalid candidates
  are left out unless `padded`, and roots not `searched` (R,) are left out altogether.
  """
  sim = (s.valid | s.padded) & searched[:, None]
  pairs = np.flatnonzero(sim.reshape(-1))
  tables = np.repeat(pairs, s.n_o)
  eng = s.root.take(tables // s.k)
  eng.step(np.where(s.valid, s.calls, s.calls[:, :1]).reshape(-1)[tables])
  return pairs, eng


def _nothing_searched(s: _Roots) -> SearchResult:
  """The result when no root is simulated: sigma's most probable call, no partner decisions."""
  res = _finish(s.scatter(np.zeros(0, np.int64), np.zeros(0)), s.valid, s.calls, s.obs,
                s.probs, np.zeros((0, A.OBSERVATION_SIZE), np.float32), np.zeros(0, np.int64),
                np.zeros(0), np.zeros(0), np.zeros(0, np.int64))
  res.root_return, res.partner_return = res.best_value.copy(), np.zeros(0)
  return res


def _blank_unsearched(res: SearchResult, searched: np.ndarray) -> None:
  """Sets value, gain and return of the roots not `searched` (R,) to NaN, in place."""
  if not searched.all():
    with np.errstate(invalid="ignore"):
      res.root_return = np.where(searched, res.root_return, np.nan)
      res.best_value = np.where(searched, res.best_value, np.nan)
      res.gain = np.where(searched, res.gain, np.nan)


def _one_search(s: _Roots, eng: engine_lib.BiddingEngine, pairs: np.ndarray,
                fresh_returns: bool) -> SearchResult:
  """1-search: everything after P1's call follows sigma, n_o * n_c rollouts per candidate."""
  m = s.n_o * s.n_c
  eng = eng.take(np.repeat(np.arange(eng.batch_size), s.n_c))
  _rollout_to_end(eng, s.policy, s.rng)
  v1 = s.rewards(eng, np.repeat(pairs // s.k, m)).reshape(len(pairs), m).mean(axis=1)
  empty = np.zeros((0, A.OBSERVATION_SIZE), np.float32)
  res = _finish(s.scatter(pairs, v1), s.valid, s.calls, s.obs, s.probs, empty,
                np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0, np.int64))
  res.root_return, res.partner_return = res.best_value, np.zeros(0)
  if fresh_returns:
    ef = s.root.take(s.each_root(m))
    ef.step(np.repeat(res.best_call, m))
    _rollout_to_end(ef, s.policy, s.rng)
    res.root_return = s.rewards(ef, s.each_root(m)).reshape(s.r_n, m).mean(axis=1)
  return res


@dataclasses.dataclass
class _PartnerStage:
  """P2's candidates at each table after (root, a1, opponent sample), and their values."""
  obs: np.ndarray       # (T, 267) P2's observations (T = simulated pairs * n_o)
  probs: np.ndarray     # (T, 38) sigma there
  calls: np.ndarray     # (T, k2) candidates
  valid: np.ndarray     # (T, k2); a finished table has one dummy candidate, its result
  finished: np.ndarray  # (T,) the auction ended before P2's turn
  values: np.ndarray    # (T, k2) mean rollout reward of each candidate (-inf: invalid)


def _partner_stage(s: _Roots, eng: engine_lib.BiddingEngine,
                   root_of: np.ndarray) -> _PartnerStage:
  """Stage 2: P2 (partner) plays each of its candidates; then n_c rollouts under sigma.

  `root_of` (T,): the root of each table of `eng`.
  """
  k2, n_c = s.k, s.n_c
  obs2 = eng.observation()  # zeros for finished tables' legal bits
  probs2, _ = s.policy(obs2) if len(obs2) else (np.zeros((0, A.NUM_CALLS)), None)
  c2, valid2 = top_candidates(probs2, policy_net.legal_from_obs(obs2), k2, threshold=s.threshold)
  finished = eng.done.copy()
  valid2[finished] = False
  valid2[finished, 0] = True  # auction over: one (dummy) candidate, the final result
  if s.padded:
    sim = np.ones_like(valid2)
    reps = np.full(valid2.shape, n_c)
  else:  # a finished table's result is known: one copy, no rollout
    sim = valid2
    reps = np.where(finished[:, None], 1, n_c) * np.ones_like(valid2, np.int64)
  pairs = np.flatnonzero(sim.reshape(-1))         # simulated (table, cand2), row-major
  reps = reps.reshape(-1)[pairs]
  rows = np.repeat(pairs, reps)
  eng3 = eng.take(rows // k2)
  eng3.step(np.where(valid2, c2, c2[:, :1]).reshape(-1)[rows])  # finished tables ignore it
  _rollout_to_end(eng3, s.policy, s.rng)
  rew = s.rewards(eng3, root_of[rows // k2])
  # (pair, continuation) rewards; a finished table's single result fills its row, so that
  # the means are computed exactly as with n_c copies (the padded layout's numerics).
  per = np.empty((len(pairs), n_c))
  one = reps == 1
  if one.all():
    per[:] = rew[:, None]
  else:
    start = np.concatenate([[0], np.cumsum(reps)[:-1]])
    per[~one] = rew[start[~one][:, None] + np.arange(n_c)[None, :]]
    per[one] = rew[start[one]][:, None]
  v2 = np.full(valid2.size, -np.inf)
  v2[pairs] = per.mean(axis=1)
  v2 = v2.reshape(valid2.shape)
  return _PartnerStage(obs2, probs2, c2, valid2, finished, np.where(valid2, v2, -np.inf))


def _three_search(s: _Roots, eng: engine_lib.BiddingEngine, pairs: np.ndarray,
                  fresh_returns: bool, partner: str) -> SearchResult:
  """JPS (depth 3): the opponent calls under sigma, P2 searches, the best joint change."""
  r_n, k1, n_o, n_c = s.r_n, s.k, s.n_o, s.n_c
  root_of = np.repeat(pairs // k1, n_o)  # root of each table (pair, opp sample)
  _step_policy(eng, s.policy, s.rng)  # the opponent (LHO) calls under sigma
  p2 = _partner_stage(s, eng, root_of)
  valid2, v2 = p2.valid, p2.values
  best2 = np.argmax(v2, axis=1)
  v2best = v2[np.arange(len(v2)), best2]
  if partner == "mean":  # the authors' SearchActor: P2's candidates averaged, not maximised
    v2best = np.where(valid2, v2, 0.0).sum(axis=1) / valid2.sum(axis=1)
  v1 = s.scatter(pairs, v2best.reshape(len(pairs), n_o).mean(axis=1))
  # P2 playing sigma (renormalised over its candidates): for the gain over v^sigma(h0).
  w2 = np.where(valid2, np.take_along_axis(p2.probs, p2.calls, axis=1), 0.0)
  w2[p2.finished, 0] = 1.0
  w2 = w2 / np.maximum(w2.sum(axis=1, keepdims=True), 1e-300)
  v1_sigma = (w2 * np.where(valid2, v2, 0.0)).sum(axis=1)
  v1_sigma = s.scatter(pairs, v1_sigma.reshape(len(pairs), n_o).mean(axis=1))
  res = _finish(v1, s.valid, s.calls, s.obs, s.probs, None, None, None, None, None, v1_sigma)
  # Partner decisions along the best a1 (one per opponent sample, where P2 still had to call).
  best_i1 = np.argmax(np.where(s.valid, v1, -np.inf), axis=1)
  position = np.full(r_n * k1, -1)
  position[pairs] = np.arange(len(pairs))  # the best a1 of a searched root is simulated
  best_pos = position[np.arange(r_n) * k1 + best_i1]
  sr = np.flatnonzero(best_pos >= 0)  # the searched roots
  rows = (best_pos[sr][:, None] * n_o + np.arange(n_o)[None, :]).reshape(-1)
  keep = rows[~p2.finished[rows]]
  res.partner_obs = p2.obs[keep]
  res.partner_call = p2.calls[keep, best2[keep]]
  res.partner_value = v2best[keep]
  res.partner_logp = np.log(np.maximum(p2.probs[keep, res.partner_call], 1e-30))
  res.partner_root = root_of[keep]
  res.root_return, res.partner_return = res.best_value, res.partner_value
  if fresh_returns:
    # n_c fresh rollouts after each chosen (a1*, o, a2*(o)), independent of the choice.
    ef = eng.take(np.repeat(rows, n_c))
    ef.step(np.repeat(np.where(valid2, p2.calls, p2.calls[:, :1])[rows, best2[rows]], n_c))
    _rollout_to_end(ef, s.policy, s.rng)
    vf = s.rewards(ef, np.repeat(root_of[rows], n_c))
    vf = vf.reshape(len(sr), n_o, n_c).mean(axis=2)  # (searched root, opp sample)
    res.root_return = np.full(r_n, np.nan)
    res.root_return[sr] = vf.mean(axis=1)
    res.partner_return = vf.reshape(-1)[~p2.finished[rows]]
  if partner == "mean":  # no single best partner call to store
    none = np.zeros(0, np.int64)
    res.partner_obs, res.partner_call = p2.obs[none], none
    res.partner_value = res.partner_logp = res.partner_return = np.zeros(0)
    res.partner_root = none
  return res


def _finish(v1, valid1, c1, obs0, probs0, p_obs, p_call, p_val, p_logp, p_root,
            v1_sigma=None) -> SearchResult:
  """`v1_sigma` (R, k1): candidate values with P2 playing sigma (depth 3); None: `v1`."""
  v1 = np.where(valid1, v1, -np.inf)
  best = np.argmax(v1, axis=1)
  rows = np.arange(len(best))
  call = c1[rows, best]
  # sigma's own value at h0 estimated on the candidates: sum_a sigma(a) v^sigma(a) with sigma
  # renormalised over the valid candidates (P2 also on sigma); gain = v(a1*, a2*) - that,
  # the estimated improvement of the joint change over sigma at h0 (Eq. 7's J1 at h0).
  v_sig = v1 if v1_sigma is None else v1_sigma
  w = np.where(valid1, np.take_along_axis(probs0, c1, axis=1), 0.0)
  w = w / np.maximum(w.sum(axis=1, keepdims=True), 1e-300)
  with np.errstate(invalid="ignore"):  # a root not searched: -inf - (-inf), NaN
    sigma_value = (w * np.where(valid1, v_sig, 0.0)).sum(axis=1)
    gain = v1[rows, best] - sigma_value
  return SearchResult(best_call=call, best_value=v1[rows, best], candidate_calls=c1,
                      candidate_values=v1, root_obs=obs0,
                      root_logp=np.log(np.maximum(probs0[rows, call], 1e-30)),
                      partner_obs=p_obs, partner_call=p_call, partner_value=p_val,
                      partner_logp=p_logp, partner_root=p_root,
                      num_candidates=valid1.sum(axis=1), gain=gain)


# ------------------------------------------------------------------------------------------
# Fixed roots for benchmarks and experiments
# ------------------------------------------------------------------------------------------
def selfplay_roots(policy: Callable, dataset, num_roots: int, seed: int, *,
                   candidate_threshold: float = 0.05, min_candidates: int = 2,
                   uncontested: bool = False) -> engine_lib.BiddingEngine:
  """`num_roots` searched decisions drawn from the policy's self-play on `dataset`'s deals.

  Games are played on the deals in order, in chunks of ``min(#deals, max(64, 2 * num_roots))``
  games (game ``g``: deal ``g % #deals``, dealer ``(g + g // #deals) % 4``, vulnerability
  ``(deal // 4) % 4``), every call sampled from the policy, until enough roots are found; from
  each game one decision is kept, uniformly among those with at least `min_candidates` calls
  of probability above `candidate_threshold` (the decisions a search with the authors'
  threshold searches). The same arguments give the same roots.

  Args:
    policy: ``policy(obs) -> (probs, _)``.
    dataset: the deals (a dataset object, a path or a shipped name such as ``"validation"``).
    num_roots: how many roots.
    seed: seed of the self-play's random numbers.
    candidate_threshold: see `joint_search`.
    min_candidates: see `joint_search`.
    uncontested: East-West may only pass.

  Returns:
    An engine positioned at the roots, in order of (pass, deal).

  Raises:
    UserError: a bad argument.
  """
  from ospiel_team.bridge import dataset as dataset_lib
  checks.check_int("num_roots", num_roots, minimum=1)
  checks.check_int("seed", seed, minimum=0)
  checks.check_real("candidate_threshold", candidate_threshold, minimum=0, below=1)
  checks.check_int("min_candidates", min_candidates, minimum=1)
  ds = dataset_lib.resolve_dataset(dataset) if isinstance(dataset, str) else dataset
  n_deals = int(ds.holders.shape[0])
  chunk = min(n_deals, max(64, 2 * num_roots))
  rng = np.random.default_rng(seed)
  parts, deals, g0 = [], [], 0
  while len(deals) < num_roots:
    if g0 >= 8 * n_deals:
      raise UserError(f"selfplay_roots: only {len(deals)} of {num_roots} roots in "
                      f"{g0} games on {n_deals} deals")
    games = g0 + np.arange(chunk)
    idx = games % n_deals
    eng = engine_lib.BiddingEngine(ds, uncontested=uncontested)
    eng.reset(idx, dealer=(games + games // n_deals) % 4, vulnerability=(idx // 4) % 4)
    count = np.zeros(chunk, np.int64)
    kept: dict[int, A.Auctions] = {}
    while not eng.done.all():
      active = np.flatnonzero(~eng.done)
      obs = eng.observation()[active]
      probs, _ = policy(obs)
      legal = policy_net.legal_from_obs(obs)
      _, valid = top_candidates(probs, legal, A.NUM_CALLS, threshold=candidate_threshold)
      rows = active[valid.sum(axis=1) >= min_candidates]
      count[rows] += 1
      take = rows[rng.random(len(rows)) * count[rows] < 1.0]  # reservoir sampling
      if len(take):
        snaps = eng.auctions.take(take)
        for j, t in enumerate(take):
          kept[int(t)] = snaps.take([j])
      calls = np.zeros(eng.batch_size, np.int64)
      calls[active] = policy_net.sample_calls(probs, legal, rng.random(len(active)))
      eng.step(calls)
    for t in sorted(kept)[:num_roots - len(deals)]:
      parts.append(kept[t])
      deals.append(int(idx[t]))
    g0 += chunk
  return engine_lib.BiddingEngine.from_auctions(ds, uncontested, A.Auctions.concat(parts),
                                                np.array(deals))
