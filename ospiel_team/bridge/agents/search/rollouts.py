"""Pieces shared by the bridge searches.

Candidate calls, the searching team's reward, and policy rollouts on the numpy engine.

JPSBid (`jps_search`, after Tian et al., arXiv:2008.06495) and the play-time search bidder
(`search_bidder`) both use them; they live below both so that neither imports the other (nor
the trainer).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders import policy_net


def step_policy(eng: engine_lib.BiddingEngine, policy: Callable, rng: np.random.Generator,
                *, forced: np.ndarray | None = None) -> None:
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
    calls[sample_rows] = policy_net.sample_calls(probs, policy_net.legal_from_obs(obs),
                                                 rng.random(len(sample_rows)))
  eng.step(calls)


def rollout_to_end(eng: engine_lib.BiddingEngine, policy: Callable,
                   rng: np.random.Generator) -> None:
  """Plays every unfinished table to the end of its auction, calls sampled from `policy`."""
  while not eng.done.all():
    step_policy(eng, policy, rng)


def top_candidates(probs: np.ndarray, legal: np.ndarray, k: int, *, threshold: float = 0.0):
  """The k most probable legal calls of each row, and which of them are valid.

  (calls (n, k), valid (n, k)): the k most probable legal calls (ties: lower call id);
  with `threshold` > 0 only those with probability above it are valid (the first always is).
  """
  score = np.where(legal, probs, -1.0)
  order = np.argsort(-score, axis=1, kind="stable")[:, :k]
  valid = np.take_along_axis(legal, order, axis=1)
  if threshold > 0:
    above = np.take_along_axis(probs, order, axis=1) > threshold
    above[:, 0] = True
    valid &= above
  return order, valid


def team_reward(ns_score, ref_ns_score, sign, *, kind: str = "imps") -> np.ndarray:
  """The searching team's reward.

  IMPs of (N-S score - reference) / 24, or the raw score difference in points (``kind="score"``),
  times `sign` (+1 for N-S, -1 for E-W).
  """
  diff = np.asarray(ns_score) - np.asarray(ref_ns_score)
  if kind == "score":
    return sign * diff.astype(np.float64)
  return sign * scoring.imps_array(diff) / scoring.IMP_SCALE
