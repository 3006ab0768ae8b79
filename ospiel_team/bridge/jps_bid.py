r"""JPSBid: online Joint Policy Search for bridge bidding (JPS paper Sec. 5.2, Eq. 7-8; Sec. 7.3).

In a fraction ``p`` of the self-play games (1% and 5% in the paper) one decision point ``h0`` of
the game, drawn uniformly among the game's decisions (reservoir sampling during play), is
searched after the game: with P1 the seat to call at ``h0`` and P2 its partner, JPS changes the
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
in our measurements (docs/benchmarks/bridge_agents.md). The reward R is the same as in self-play (`a2c` module): the searching team's
duplicate IMPs against the game's other table (whose result is fixed), / 24.

``depth=1`` is the paper's "1-search" ablation: only P1's call is searched, the rest (opponent,
partner, ...) follows ``sigma`` with ``rollouts x rollouts`` rollouts per candidate.

All the rollouts of all the searched positions of a round run together, batched, on the numpy
engine, with the policy network batched on them.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import numpy as np

from ospiel_team.bridge import a2c
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring


# ------------------------------------------------------------------------------------------
# Auctions / engine helpers
# ------------------------------------------------------------------------------------------
def engine_from_auctions(dataset, uncontested: bool, auctions: A.Auctions,
                         deal_index) -> engine_lib.BiddingEngine:
  """A `BiddingEngine` positioned at the given auctions of the dataset's deals."""
  eng = engine_lib.BiddingEngine(dataset, uncontested=uncontested)
  idx = np.asarray(deal_index, np.int64)
  eng.auctions = auctions
  eng.deal_index = idx
  eng.holders = np.asarray(eng.dataset.holders[idx])
  eng.dd_tricks = np.asarray(eng.dataset.dd_tricks[idx])
  eng.hands = A.hands_onehot(eng.holders)
  return eng


def _replicate(eng: engine_lib.BiddingEngine, idx) -> engine_lib.BiddingEngine:
  idx = np.asarray(idx, np.int64)
  return engine_from_auctions(eng.dataset, eng.uncontested, eng.auctions.take(idx),
                              eng.deal_index[idx])


def _step_policy(eng: engine_lib.BiddingEngine, policy: Callable, rng: np.random.Generator,
                 forced: Optional[np.ndarray] = None) -> None:
  """One call at every unfinished table: `forced[b]` where >= 0, else sampled from `policy`."""
  b = eng.batch_size
  active = np.flatnonzero(~eng.done)
  calls = np.zeros(b, np.int64)
  if forced is not None:
    f = np.asarray(forced)[active]
    sample_rows = active[f < 0]
    calls[active[f >= 0]] = f[f >= 0]
  else:
    sample_rows = active
  if len(sample_rows):
    obs = eng.observation()[sample_rows]
    probs, _ = policy(obs)
    calls[sample_rows] = a2c.sample_calls(probs, a2c.legal_from_obs(obs),
                                          rng.random(len(sample_rows)))
  eng.step(calls)


def _rollout_to_end(eng, policy, rng) -> None:
  while not eng.done.all():
    _step_policy(eng, policy, rng)


def top_candidates(probs: np.ndarray, legal: np.ndarray, k: int):
  """(calls (n, k), valid (n, k)): the k most probable legal calls (ties: lower call id)."""
  score = np.where(legal, probs, -1.0)
  order = np.argsort(-score, axis=1, kind="stable")[:, :k]
  valid = np.take_along_axis(legal, order, axis=1)
  return order, valid


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
  root_return: Optional[np.ndarray] = None     # (R,)
  partner_return: Optional[np.ndarray] = None  # (M,)


def joint_search(policy: Callable, root: engine_lib.BiddingEngine, ref_ns_score: np.ndarray,
                 rng: np.random.Generator, depth: int = 3, candidates: int = 5,
                 rollouts: int = 5, fresh_returns: bool = True) -> SearchResult:
  """JPSBid search (depth 3) or 1-search (depth 1) at every table of `root` (none finished).

  `policy(obs) -> (probs, values)` is sigma; `ref_ns_score[r]` is the N-S score of root r's
  other table (the reward is the searching team's IMPs against it, / 24).
  """
  if depth not in (1, 3):
    raise ValueError(f"search depth must be 1 (1-search) or 3 (JPS), got {depth}")
  if candidates < 1 or rollouts < 1:
    raise ValueError(f"candidates and rollouts must be >= 1, got {candidates}, {rollouts}")
  if np.any(root.done):
    raise ValueError("joint_search: a root table's auction is already over")
  r_n = root.batch_size
  k1, n_o, k2, n_r = candidates, rollouts, candidates, rollouts
  p1 = root.current_player.copy()
  sign = np.where(p1 % 2 == 0, 1.0, -1.0)
  obs0 = root.observation()
  probs0, _ = policy(obs0)
  c1, valid1 = top_candidates(probs0, a2c.legal_from_obs(obs0), k1)

  # Stage 1: P1 plays each candidate, then one opponent call under sigma (n_o samples each).
  # Table order: (root, cand1, opp sample).
  r1 = np.repeat(np.arange(r_n), k1 * n_o)
  i1 = np.tile(np.repeat(np.arange(k1), n_o), r_n)
  eng = _replicate(root, r1)
  eng.step(np.where(valid1, c1, c1[:, :1])[r1, i1])  # invalid candidates: masked later
  if depth == 1:
    # Everything after P1's call follows sigma: n_o * n_r rollouts per candidate.
    eng = _replicate(eng, np.repeat(np.arange(eng.batch_size), n_r))
    _rollout_to_end(eng, policy, rng)
    rew = _team_reward(eng.ns_score(), np.repeat(ref_ns_score, k1 * n_o * n_r),
                       np.repeat(sign, k1 * n_o * n_r))
    v1 = rew.reshape(r_n, k1, n_o * n_r).mean(axis=2)
    empty = np.zeros((0, A.OBSERVATION_SIZE), np.float32)
    res = _finish(v1, valid1, c1, obs0, probs0, empty, np.zeros(0, np.int64),
                  np.zeros(0), np.zeros(0), np.zeros(0, np.int64))
    res.root_return, res.partner_return = res.best_value, np.zeros(0)
    if fresh_returns:
      m = n_o * n_r
      ef = _replicate(root, np.repeat(np.arange(r_n), m))
      ef.step(np.repeat(res.best_call, m))
      _rollout_to_end(ef, policy, rng)
      res.root_return = _team_reward(ef.ns_score(), np.repeat(ref_ns_score, m),
                                     np.repeat(sign, m)).reshape(r_n, m).mean(axis=1)
    return res
  _step_policy(eng, policy, rng)  # the opponent (LHO) calls under sigma
  # Stage 2: P2 (partner) plays each of its candidates; then rollouts under sigma.
  obs2 = eng.observation()  # zeros for finished tables' legal bits
  probs2, _ = policy(obs2) if len(obs2) else (np.zeros((0, A.NUM_CALLS)), None)
  legal2 = a2c.legal_from_obs(obs2)
  c2, valid2 = top_candidates(probs2, legal2, k2)
  finished = eng.done.copy()
  valid2[finished] = False
  valid2[finished, 0] = True  # auction over: one (dummy) candidate, the final result
  t2 = np.repeat(np.arange(eng.batch_size), k2 * n_r)
  j2 = np.tile(np.repeat(np.arange(k2), n_r), eng.batch_size)
  eng3 = _replicate(eng, t2)
  eng3.step(np.where(valid2, c2, c2[:, :1])[t2, j2])  # finished tables ignore their call
  _rollout_to_end(eng3, policy, rng)
  n_tab2 = r_n * k1 * n_o
  rew = _team_reward(eng3.ns_score(), np.repeat(ref_ns_score, k1 * n_o * k2 * n_r),
                     np.repeat(sign, k1 * n_o * k2 * n_r))
  v2 = rew.reshape(n_tab2, k2, n_r).mean(axis=2)          # (tables after opp, k2)
  v2 = np.where(valid2, v2, -np.inf)
  best2 = np.argmax(v2, axis=1)
  v2best = v2[np.arange(n_tab2), best2]
  v1 = v2best.reshape(r_n, k1, n_o).mean(axis=2)
  res = _finish(v1, valid1, c1, obs0, probs0, None, None, None, None, None)
  # Partner decisions along the best a1 (one per opponent sample, where P2 still had to call).
  best_i1 = np.argmax(np.where(valid1, v1, -np.inf), axis=1)
  rows = ((np.arange(r_n)[:, None] * k1 + best_i1[:, None]) * n_o
          + np.arange(n_o)[None, :]).reshape(-1)
  keep = rows[~finished[rows]]
  res.partner_obs = obs2[keep]
  res.partner_call = c2[keep, best2[keep]]
  res.partner_value = v2best[keep]
  res.partner_logp = np.log(np.maximum(probs2[keep, res.partner_call], 1e-30))
  res.partner_root = keep // (k1 * n_o)
  res.root_return, res.partner_return = res.best_value, res.partner_value
  if fresh_returns:
    # n_r fresh rollouts after each chosen (a1*, o, a2*(o)), independent of the choice.
    ef = _replicate(eng, np.repeat(rows, n_r))
    ef.step(np.repeat(np.where(valid2, c2, c2[:, :1])[rows, best2[rows]], n_r))
    _rollout_to_end(ef, policy, rng)
    root_of = np.repeat(rows // (k1 * n_o), n_r)
    vf = _team_reward(ef.ns_score(), ref_ns_score[root_of], sign[root_of])
    vf = vf.reshape(r_n, n_o, n_r).mean(axis=2)  # (root, opp sample)
    res.root_return = vf.mean(axis=1)
    res.partner_return = vf.reshape(-1)[~finished[rows]]
  return res


def _team_reward(ns_score, ref_ns_score, sign) -> np.ndarray:
  return sign * scoring.imps_array(np.asarray(ns_score) - np.asarray(ref_ns_score)) / a2c.IMP_SCALE


def _finish(v1, valid1, c1, obs0, probs0, p_obs, p_call, p_val, p_logp, p_root) -> SearchResult:
  v1 = np.where(valid1, v1, -np.inf)
  best = np.argmax(v1, axis=1)
  rows = np.arange(len(best))
  call = c1[rows, best]
  return SearchResult(best_call=call, best_value=v1[rows, best], candidate_calls=c1,
                      candidate_values=v1, root_obs=obs0,
                      root_logp=np.log(np.maximum(probs0[rows, call], 1e-30)),
                      partner_obs=p_obs, partner_call=p_call, partner_value=p_val,
                      partner_logp=p_logp, partner_root=p_root)


# ------------------------------------------------------------------------------------------
# Hook into A2C self-play
# ------------------------------------------------------------------------------------------
class JPSBidSearch:
  """Attach to `a2c.A2CTrainer.search`: searches a fraction of each round's games."""

  def __init__(self, fraction: float = 0.05, depth: int = 3, candidates: int = 5,
               rollouts: int = 5, seed: int = 7, fresh_returns: bool = True):
    if not 0.0 <= fraction <= 1.0:
      raise ValueError(f"search fraction must be in [0, 1], got {fraction}")
    if depth not in (1, 3):
      raise ValueError(f"search depth must be 1 or 3, got {depth}")
    self.fraction = fraction
    self.depth = depth
    self.candidates = candidates
    self.rollouts = rollouts
    self.fresh_returns = fresh_returns
    self.rng = np.random.default_rng(seed)
    self.total_points = 0
    self.total_gain = 0.0

  def begin_round(self, trainer, num_tables: int) -> None:
    self.selected = self.rng.random(num_tables) < self.fraction
    self.count = np.zeros(num_tables, np.int64)
    self.snap = {}

  def on_step(self, step: int, eng: engine_lib.BiddingEngine) -> None:
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
    if not self.snap:
      return 0
    tables = sorted(self.snap)
    auctions = A.Auctions.concat([self.snap[t][0] for t in tables])
    deals = [self.snap[t][1] for t in tables]
    root = engine_from_auctions(trainer.engine.dataset, trainer.engine.uncontested, auctions,
                                deals)
    k = len(ro.ns_score) // 2
    other = np.array([(t + k) % (2 * k) for t in tables])
    res = joint_search(trainer.policy, root, ro.ns_score[other], self.rng, depth=self.depth,
                       candidates=self.candidates, rollouts=self.rollouts,
                       fresh_returns=self.fresh_returns)
    trainer.buffer.add(res.root_obs, res.best_call, res.root_logp, res.root_return)
    if len(res.partner_call):
      trainer.buffer.add(res.partner_obs, res.partner_call, res.partner_logp,
                         res.partner_return)
    self.total_points += len(tables)
    return len(tables)
