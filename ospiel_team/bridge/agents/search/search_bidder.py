r"""Search at play time: a bidder that checks its policy's call by double-dummy search.

``search:<model>`` (e.g. ``ospiel-team-match --bidder_a search:best``, or
``search:best?k=8&m=3`` with options) wraps a policy network of ours (a shipped model or an
``.npz``) and, at every call it has to make, does what BEN (github.com/lorserker/ben) does with
its bidding network: sample the hidden hands consistent with what the seat knows, play each
candidate call out on them, and score the results double-dummy. The candidate search over
calls with rollouts of the policy is the JPSBid search of Tian, Gong & Jiang (JPS,
arXiv:2008.06495, Sec. 7.3; `jps_bid`), whose pieces are reused here (`rollouts`: the
candidate calls, the team's reward, the rollout loop); JPSBid searches with the true deal
during training, this bidder searches at play time, where the deal is hidden, over sampled
deals.

At one call of seat P (its 13 cards and the auction so far are all it uses; the other hands of
the match engine are never read):

1. **Deals.** `pool` deals: the 39 unseen cards dealt at random to the other three seats
   (`deal_hidden_hands`).
2. **Importance weights** (not hard rejection: a trained policy's calls are rarely impossible,
   and a rejection threshold would be one more arbitrary number). The weight of a deal is the
   product over the calls observed so far, made by the *other* seats (partner and opponents,
   all modelled as playing the policy), of the policy's probability of that call given that
   seat's observation on the deal (`observed_call_log_weights`). P's own calls are left out:
   they depend on P's hand only, the same on every deal. With ``tremble`` > 0 each factor is
   ``(1 - tremble) * pi(call) + tremble / #legal calls``, so a call the policy would never
   make (an opponent who bids differently) thins the evidence instead of zeroing it.
3. **Evidence floor.** If the Kish effective sample size of the weights,
   ``(sum w)^2 / sum w^2``, is below ``min_ess``, the bidder plays the policy's call.
4. **Resampling.** `k` deals are drawn from the pool with probabilities proportional to the
   weights, with replacement (sampling-importance-resampling); the distinct ones are solved
   double-dummy (`dds.dd_tables`, all the deals of all the tables of a match step in one
   batch) and each counts with its multiplicity / k. The double-dummy solver is the cost
   (`benchmarks/bridge_search_cost.py` measures it); resampling spends it on plausible deals.
   With ``dd="net"`` the tables come from the learned estimate `ospiel_team.bridge.dd_net`
   instead (each entry drawn from the network's predicted distribution of tricks), which costs
   about a millisecond a deal, so `k` can be much larger; the tables are then not exact.
5. **Candidates.** The `m` most probable legal calls of the policy, plus every legal call with
   probability above `candidate_floor`. If there is only one, the policy's call is played.
6. **Rollouts.** On each deal, each candidate is made and the auction is played to its end by
   the policy at all four seats: greedily by default (``rollout="greedy"``, deterministic, as
   models bid in matches), or sampled (``rollout="sample"``).
7. **Score.** The final contract's double-dummy score, as P's side's gain against the
   contract reached after the policy's own (most probable) call on the same deal: in IMPs
   (``reward="imps"``, the match's unit; default) or raw points (``reward="score"``, what the
   JPS authors' search actor maximises). The policy's call therefore scores exactly 0.
8. **Choice.** The candidate with the best weighted mean among those whose mean gain is
   above 0 and at least ``min_z`` standard errors (``sqrt(sum_d w_d (v_d - mean)^2 / k)``
   over the k draws); if none is, the policy's call. ``min_z = 0`` (default) takes the best
   mean; the best of several noisy means is biased upwards (the winner's curse), which a
   positive ``min_z`` guards against.

The random numbers of a call are seeded by ``(seed, the match's uniform for that call)``: the
same hand, auction and uniform give the same call, so a match is reproducible and resumable,
and the bidder playing itself scores exactly 0. Where the search does not decide (one
candidate, too little evidence) the policy's call is played, greedy or sampled with the
uniform as for a model bidder.

`SearchBidder` is a `base.AuctionBidder`: ``act_auction``, what a match and the pyspiel bot
(`bot.BidderBot`) call, reads the auction's calls in order, which the 267-bit observation
lacks; ``act(observations, uniforms)`` searches on the shortest auction that fits each
observation (`base.auctions_from_observations`: the passes the observation does not record are
the fewest that fit it, so its deal weights can differ from those of the true auction).
"""

from __future__ import annotations

import dataclasses
import time
import urllib.parse
from collections.abc import Callable

import numpy as np

from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import scoring
from ospiel_team.bridge.agents.bidders import base
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.search import rollouts
from ospiel_team.errors import UserError

PREFIX = "search:"
Policy = Callable[[np.ndarray], tuple]  # obs (n, 267) -> (probs (n, 38), values or None)
DDFunction = Callable[[np.ndarray], np.ndarray]  # holders (n, 52) -> tricks (n, 5, 4)


@dataclasses.dataclass(frozen=True)
class SearchBidderOptions:
  """Options of the play-time search (module docstring, steps 1-8).

  Attributes:
    k: deals drawn (with replacement, by weight) and scored double-dummy per searched call.
    m: the policy's most probable legal calls searched.
    candidate_floor: also search every legal call with policy probability above this.
    pool: deals dealt and weighted per searched call (the policy's cost, not DDS's).
    min_ess: below this effective sample size of the pool's weights, play the policy's call.
    tremble: the other seats' calls are modelled as ``(1 - tremble) * policy + tremble *
      uniform over the legal calls`` (0: exactly the policy).
    rollout: ``"greedy"`` or ``"sample"``: how the policy plays after a candidate.
    reward: ``"imps"`` (IMPs against the policy's call on the same deal) or ``"score"``
      (duplicate points against it).
    min_z: a candidate replaces the policy's call only if its mean gain is at least this
      many standard errors (0: any positive gain).
    dd: what scores the deals: ``"dds"`` (the double-dummy solver, `dds.dd_tables`: exact,
      about 0.4 CPU s a deal) or ``"net"`` (the learned estimate `dd_net`, each table entry
      drawn from its predicted distribution: about a thousand times cheaper, not exact).
    seed: seed of the search's random numbers (combined with the match's uniforms).

  Raises:
    UserError: on construction, naming the first bad option.
  """

  k: int = 16
  m: int = 3
  candidate_floor: float = 0.1
  pool: int = 2048
  min_ess: float = 4.0
  tremble: float = 0.05
  rollout: str = "greedy"
  reward: str = "imps"
  min_z: float = 0.0
  dd: str = "dds"
  seed: int = 0

  def __post_init__(self):
    for name, minimum in (("k", 1), ("m", 1), ("pool", self.k), ("seed", 0)):
      checks.check_int(f"search option {name}", getattr(self, name), minimum=minimum)
    for name, minimum, maximum in (("candidate_floor", 0, 1), ("min_ess", 0, self.pool),
                                   ("min_z", 0, None)):
      checks.check_real(f"search option {name}", getattr(self, name), minimum=minimum,
                        maximum=maximum)
    checks.check_real("search option tremble", self.tremble, minimum=0, below=1)
    checks.check_choice("search option rollout", self.rollout, ("greedy", "sample"))
    checks.check_choice("search option reward", self.reward, ("imps", "score"))
    checks.check_choice("search option dd", self.dd, ("dds", "net"))

  @classmethod
  def from_query(cls, query: str) -> SearchBidderOptions:
    """Options from a query string such as ``k=8&m=3&rollout=sample`` (others: defaults).

    Args:
      query: ``name=value`` pairs joined by ``&`` (empty: all defaults).

    Raises:
      UserError: an unknown or repeated option, or a bad value.
    """
    kinds = {"int": int, "float": float, "str": str}
    fields = {f.name: kinds[f.type] for f in dataclasses.fields(cls)}
    values = {}
    try:
      pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
      raise UserError(f"search options {query!r}: expected name=value pairs joined by "
                      "'&'") from None
    for name, text in pairs:
      if name not in fields:
        raise UserError(f"unknown search option {name!r}; known: {', '.join(fields)}")
      if name in values:
        raise UserError(f"search option {name!r} given twice")
      try:
        values[name] = fields[name](text)
      except ValueError:
        raise UserError(f"search option {name}={text!r} is not a valid "
                        f"{fields[name].__name__}") from None
    return cls(**values)


@dataclasses.dataclass(frozen=True)
class SearchDecision:
  """What the bidder did at one call.

  Attributes:
    call: the call made.
    policy_call: the policy's most probable legal call (the reference of the scores).
    reason: ``"searched"``, ``"one_candidate"`` or ``"low_ess"`` (the last two: no search).
    candidates: the searched calls, the policy's call first.
    values: their weighted mean scores (IMPs or points against the policy's call).
    ess: the effective sample size of the pool's weights (0 when not computed).
    deals: distinct deals solved double-dummy.
  """

  call: int
  policy_call: int
  reason: str
  candidates: tuple = ()
  values: tuple = ()
  ess: float = 0.0
  deals: int = 0


# ------------------------------------------------------------------------------------------
# Deals and weights
# ------------------------------------------------------------------------------------------
def deal_hidden_hands(own_hand: np.ndarray, seat: int, n: int,
                      rng: np.random.Generator) -> np.ndarray:
  """`n` deals (n, 52) uint8 holders: `own_hand` at `seat`, the 39 other cards at random.

  Args:
    own_hand: (52,) bool, the 13 cards of `seat`.
    seat: 0..3.
    n: number of deals.
    rng: random numbers.

  Returns:
    Holders in the `deal` convention (card = rank * 4 + suit -> seat).
  """
  own = np.flatnonzero(np.asarray(own_hand, bool))
  if own.shape != (A.NUM_CARDS // A.NUM_SEATS,):
    raise ValueError(f"own hand must hold 13 cards, got {own.shape[0]}")
  unseen = np.setdiff1d(np.arange(A.NUM_CARDS), own)
  perm = rng.permuted(np.tile(unseen, (n, 1)), axis=1)
  holders = np.empty((n, A.NUM_CARDS), np.uint8)
  holders[:, own] = seat
  others = np.repeat((seat + 1 + np.arange(3)) % A.NUM_SEATS, len(own)).astype(np.uint8)
  holders[np.arange(n)[:, None], perm] = others[None, :]
  return holders


def observed_call_log_weights(policy: Policy, auction: A.Auctions, table: int, seat: int,
                              holders: np.ndarray, *, tremble: float = 0.0
                              ) -> tuple[A.Auctions, np.ndarray]:
  """Replays table `table`'s calls on `holders`: the auctions and each deal's log weight.

  The log weight of a deal is the sum over the calls made so far by seats other than `seat`
  of ``log((1 - tremble) * pi(call | obs) + tremble / #legal)``, with ``pi`` the policy at
  that seat's observation on that deal (-inf where a call has probability 0).

  Args:
    policy: ``policy(obs) -> (probs, _)``.
    auction: the auctions of the match; only table `table`'s dealer, vulnerability and calls
      are read.
    table: the table.
    seat: the seat whose own calls are left out (the seat to call).
    holders: (n, 52) deals.
    tremble: see `SearchBidderOptions`.

  Returns:
    (`Auctions` of n tables positioned after the same calls, log weights (n,)).
  """
  n = len(holders)
  a = A.Auctions(np.full(n, auction.dealer[table]), np.full(n, auction.vulnerability[table]),
                 uncontested=auction.uncontested)
  hands = A.hands_onehot(holders)
  logw = np.zeros(n)
  history = auction.history[table, :auction.num_calls[table]].astype(np.int64)
  for t, call in enumerate(history):
    if (int(auction.dealer[table]) + t) % A.NUM_SEATS != seat:
      obs = a.observation(hands)
      probs, _ = policy(obs)
      legal = a.legal_mask()
      p = (1.0 - tremble) * np.asarray(probs)[:, call] + tremble / legal.sum(axis=1)
      with np.errstate(divide="ignore"):
        logw += np.log(p)
    a.apply(np.full(n, call))
  return a, logw


def weighted_deals(policy: Policy, auction: A.Auctions, table: int, seat: int,
                   own_hand: np.ndarray, options: SearchBidderOptions,
                   rng: np.random.Generator):
  """The deals one searched call scores (module docstring, steps 1-4).

  Deals ``options.pool`` deals around `own_hand`, weights them by the other seats' calls so
  far, and draws ``options.k`` of them by weight (with replacement).

  Args:
    policy: ``policy(obs) -> (probs, _)``, the model of the other seats.
    auction: the match's auctions; table `table`'s calls are replayed.
    table: the table.
    seat: the seat to call.
    own_hand: (52,) bool, its 13 cards.
    options: the search's options (``pool``, ``tremble``, ``min_ess``, ``k``).
    rng: random numbers.

  Returns:
    ``(root auctions, distinct deals (n, 52), their weights (n,) summing to 1, ess)``; the
    first three are None when the effective sample size is below ``options.min_ess``.
  """
  pool = deal_hidden_hands(own_hand, seat, options.pool, rng)
  root, logw = observed_call_log_weights(policy, auction, table, seat, pool,
                                         tremble=options.tremble)
  ess = effective_sample_size(logw)
  if ess < options.min_ess or ess == 0.0:
    return None, None, None, ess
  w = np.exp(logw - logw.max())
  draws = rng.choice(options.pool, size=options.k, p=w / w.sum())
  distinct, counts = np.unique(draws, return_counts=True)
  return root.take(distinct), pool[distinct], counts / options.k, ess


def effective_sample_size(logw: np.ndarray) -> float:
  """Kish's ``(sum w)^2 / sum w^2`` of weights given by their logs (0 if all are 0)."""
  logw = np.asarray(logw, np.float64)
  if logw.size == 0 or not np.isfinite(logw.max()):
    return 0.0
  w = np.exp(logw - logw.max())
  return float(w.sum() ** 2 / np.sum(w * w))


# ------------------------------------------------------------------------------------------
# Candidates and their values
# ------------------------------------------------------------------------------------------
def candidate_calls(probs: np.ndarray, legal: np.ndarray, m: int,
                    floor: float) -> list[np.ndarray]:
  """The candidate calls of each row for the search.

  Per row: the `m` most probable legal calls and the legal calls above `floor`, most
  probable first (ties: lower call id), so the first is the policy's greedy call.
  """
  order, valid = rollouts.top_candidates(probs, legal, A.NUM_CALLS)
  p = np.take_along_axis(np.asarray(probs), order, axis=1)
  keep = valid & ((np.arange(A.NUM_CALLS)[None, :] < m) | (p > floor))
  return [order[i][keep[i]] for i in range(len(order))]


def _greedy_policy(policy: Policy) -> Policy:
  """The policy's most probable legal call with probability 1 (for `rollouts.rollout_to_end`)."""
  def greedy(obs):
    probs, values = policy(obs)
    calls = policy_net.greedy_calls(np.asarray(probs), policy_net.legal_from_obs(obs))
    one_hot = np.zeros((len(calls), A.NUM_CALLS))
    one_hot[np.arange(len(calls)), calls] = 1.0
    return one_hot, values
  return greedy


def candidate_values(policy: Policy, root: A.Auctions, holders: np.ndarray,
                     dd_tricks: np.ndarray, weights: np.ndarray, candidates: np.ndarray,
                     seat: int, *, rollout: str = "greedy", reward: str = "imps",
                     rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
  """Weighted mean score of each candidate call over n deals (module docstring, steps 6-7).

  Args:
    policy: ``policy(obs) -> (probs, _)``, playing all seats after the candidate.
    root: n auctions (one per deal), all at the searched call of `seat`.
    holders: (n, 52) the deals.
    dd_tricks: (n, 5, 4) their double-dummy tables.
    weights: (n,) deal weights (normalised here).
    candidates: (C,) calls; the first is the reference (the policy's call).
    seat: the seat to call (its side's gain is scored).
    rollout: ``"greedy"`` or ``"sample"``.
    reward: ``"imps"`` or ``"score"``.
    rng: random numbers of sampled rollouts.

  Returns:
    (values (C,), per-deal values (n, C)): IMPs or points of the seat's side against the
    contract reached after ``candidates[0]`` on the same deal.
  """
  n, c = len(holders), len(candidates)
  ds = dataset_lib.BridgeDataset(np.asarray(holders, np.uint8), np.asarray(dd_tricks, np.uint8))
  deal = np.repeat(np.arange(n), c)
  eng = engine_lib.BiddingEngine.from_auctions(ds, root.uncontested, root.take(deal), deal)
  eng.step(np.tile(np.asarray(candidates, np.int64), n))
  play = _greedy_policy(policy) if rollout == "greedy" else policy
  rollouts.rollout_to_end(eng, play, rng or np.random.default_rng(0))
  ns = eng.ns_score().reshape(n, c)
  sign = 1.0 if seat % 2 == 0 else -1.0
  per_deal = rollouts.team_reward(ns, ns[:, :1], sign, kind=reward)
  if reward == "imps":
    per_deal = per_deal * scoring.IMP_SCALE
  w = np.asarray(weights, np.float64)
  return (w / w.sum()) @ per_deal, per_deal


# ------------------------------------------------------------------------------------------
# The bidder
# ------------------------------------------------------------------------------------------
@dataclasses.dataclass
class SearchStats:
  """Counters over the bidder's calls (for the cost benchmark and reports)."""
  calls: int = 0
  searched: int = 0
  changed: int = 0          # searched calls where the search played another call
  low_ess: int = 0
  one_candidate: int = 0
  deals_solved: int = 0     # distinct deals solved double-dummy
  dd_cpu_seconds: float = 0.0
  cpu_seconds: float = 0.0


class SearchBidder(base.AuctionBidder):
  """A bidder that searches its policy's candidate calls over sampled deals (module doc).

  Args:
    policy: ``policy(obs (n, 267)) -> (probs (n, 38), _)``, e.g. `policy_net.PolicyFn`.
    options: the search's options (default `SearchBidderOptions()`).
    dd_fn: ``holders (n, 52) -> tricks (n, 5, 4)`` (default: by ``options.dd``,
      `dds.dd_tables` or the shipped `dd_net` model's sampled tables; tests inject a stub).
    name: the bidder's name in matches.
    greedy: where the search does not decide, play the policy's most probable call (True) or
      sample it with the match's uniform.
  """

  def __init__(self, policy: Policy, options: SearchBidderOptions | None = None, *,
               dd_fn: DDFunction | None = None, name: str = "search", greedy: bool = True):
    checks.check_type("options", options, (SearchBidderOptions, type(None)),
                      "a SearchBidderOptions or None")
    checks.check_type("name", name, str, "a string")
    checks.check_bool("greedy", greedy)
    self.options = options or SearchBidderOptions()
    if dd_fn is None and self.options.dd == "net":
      from ospiel_team.bridge import dd_net
      dd_fn = dd_net.load().table_fn(seed=self.options.seed)
    elif dd_fn is None:
      from ospiel_team.bridge import dds
      dd_fn = dds.dd_tables
    self.policy = policy
    self.dd_fn = dd_fn
    self.name = name
    self.greedy = bool(greedy)
    self.stats = SearchStats()
    self.last_decisions: list[SearchDecision] = []
    self._rng = np.random.default_rng(self.options.seed)

  def _row_rng(self, u) -> np.random.Generator:
    if u is None:
      return np.random.default_rng([self.options.seed, int(self._rng.integers(2 ** 32))])
    return np.random.default_rng([self.options.seed, int(float(u) * 2 ** 32)])

  def act_auction(self, auctions: A.Auctions, hands: np.ndarray, rows,
                  uniforms: np.ndarray | None = None) -> np.ndarray:
    """Calls of the seats to call at tables `rows` (only each seat's own hand is read).

    Args:
      auctions: the match's auctions.
      hands: (B, 4, 52) bool hands; only ``hands[row, seat to call]`` is used.
      rows: the tables where this bidder is to call.
      uniforms: (len(rows),) the match's uniforms (seeds, and sampled fallback calls).

    Returns:
      (len(rows),) legal calls.
    """
    t0 = time.process_time()
    opt = self.options
    rows = np.asarray(rows, np.int64).reshape(-1)
    if len(rows) == 0:
      return np.zeros(0, np.int64)
    seats = auctions.current_player[rows]
    own_only = np.zeros((len(rows), A.NUM_SEATS, A.NUM_CARDS), bool)
    own_only[np.arange(len(rows)), seats] = np.asarray(hands)[rows, seats]
    obs = auctions.take(rows).observation(own_only)
    probs, _ = self.policy(obs)
    probs = np.asarray(probs)
    legal = policy_net.legal_from_obs(obs)
    policy_call = policy_net.greedy_calls(probs, legal)
    if self.greedy or uniforms is None:
      calls = policy_call.copy()
    else:
      calls = policy_net.sample_calls(probs, legal, np.asarray(uniforms))
    cands = candidate_calls(probs, legal, opt.m, opt.candidate_floor)
    decisions: list[SearchDecision | None] = [None] * len(rows)
    pending = []  # (i, rng, root auctions, distinct deals, their weights, ess)
    for i, (row, seat) in enumerate(zip(rows, seats, strict=True)):
      if len(cands[i]) < 2:
        decisions[i] = SearchDecision(int(calls[i]), int(policy_call[i]), "one_candidate")
        continue
      rng = self._row_rng(None if uniforms is None else uniforms[i])
      root, deals, weights, ess = weighted_deals(self.policy, auctions, int(row), int(seat),
                                                 own_only[i, seat], opt, rng)
      if root is None:
        decisions[i] = SearchDecision(int(calls[i]), int(policy_call[i]), "low_ess",
                                      ess=ess)
        continue
      pending.append((i, rng, root, deals, weights, ess))
    if pending:
      t_dd = time.process_time()
      tricks = self.dd_fn(np.concatenate([p[3] for p in pending]))
      self.stats.dd_cpu_seconds += time.process_time() - t_dd
      start = 0
      for i, rng, root, deals, weights, ess in pending:
        n = len(deals)
        values, per_deal = candidate_values(self.policy, root, deals,
                                            tricks[start:start + n], weights, cands[i],
                                            int(seats[i]), rollout=opt.rollout,
                                            reward=opt.reward, rng=rng)
        start += n
        se = np.sqrt(weights @ (per_deal - values) ** 2 / opt.k)
        eligible = (values > 0) & (values >= opt.min_z * se)
        best = int(np.argmax(np.where(eligible, values, -np.inf))) if eligible.any() else 0
        call = int(cands[i][best]) if best > 0 else int(calls[i])
        decisions[i] = SearchDecision(call, int(policy_call[i]), "searched",
                                      tuple(int(c) for c in cands[i]),
                                      tuple(float(v) for v in values), ess, n)
        calls[i] = call
        self.stats.deals_solved += n
    self._record(decisions, time.process_time() - t0)
    return calls.astype(np.int64)

  def _record(self, decisions: list[SearchDecision], cpu_seconds: float) -> None:
    """Counts the decisions of one `act_auction` call in `stats` and keeps them."""
    for d in decisions:
      self.stats.calls += 1
      self.stats.searched += d.reason == "searched"
      self.stats.low_ess += d.reason == "low_ess"
      self.stats.one_candidate += d.reason == "one_candidate"
      self.stats.changed += d.reason == "searched" and d.call != d.policy_call
    self.last_decisions = decisions
    self.stats.cpu_seconds += cpu_seconds


def is_search_spec(name: str) -> bool:
  """Whether a bidder name is a ``search:<model>[?options]`` spec."""
  return isinstance(name, str) and name.startswith(PREFIX)


def make_search_bidder(spec: str, greedy: bool = True,
                       dd_fn: DDFunction | None = None) -> SearchBidder:
  """The bidder of a spec ``search:<model>`` or ``search:<model>?k=8&m=3``.

  Args:
    spec: ``search:`` then a shipped model name of ours (``best``, ``a2c_longer``, ...) or an
      ``.npz`` model path, then optionally ``?`` and `SearchBidderOptions` fields as
      ``name=value`` pairs joined by ``&``.
    greedy: see `SearchBidder`.
    dd_fn: see `SearchBidder`.

  Raises:
    ValueError: (a `UserError` for bad options) naming what is wrong.
  """
  if not is_search_spec(spec):
    raise UserError(f"a search bidder spec starts with {PREFIX!r}, got {spec!r}")
  model, _, query = spec[len(PREFIX):].partition("?")
  if not model:
    raise UserError(f"{spec!r}: name the policy to search with, e.g. {PREFIX}best")
  options = SearchBidderOptions.from_query(query)
  from ospiel_team.bridge.agents.bidders import jps_paper
  from ospiel_team.bridge.agents.bidders import model_bidder
  if model in jps_paper.REFERENCE_MODELS or model.endswith(".pth"):
    raise UserError(f"{spec!r}: the search needs one of our models (a shipped name or an .npz "
                    "of policy_net), not the JPS authors' networks")
  network = model_bidder.load_bidder(model)
  policy = policy_net.PolicyFn(network.net, network.params)
  return SearchBidder(policy, options, dd_fn=dd_fn, name=spec, greedy=greedy)
