r"""Yeh & Lin 2016's uncontested bidding benchmark, bidder side.

Reached contracts and a Q-learning baseline.

Yeh & Lin, "Automatic Bridge Bidding Using Deep Reinforcement Learning", ECAI 2016,
arXiv:1607.03290. The cost datasets and IMP costs (the data side) are
`ospiel_team.bridge.uncontested_costs`; here a bidder is run on them: `reached_contracts` bids
the North-South hands (East-West pass), `evaluate_costs` gives its mean cost, and
`RoundQLearner` is a baseline in the spirit of their learner.

Dealer North (their Player 1 bids first). One difference to Yeh & Lin's protocol: there a Pass
by either player ends the auction, while here the Laws apply (North's opening Pass gives South
a chance to open; a Pass after a bid ends the auction only when the opponents' forced passes
follow, i.e. at once). `RoundQLearner` follows their protocol.
"""

from __future__ import annotations

import numpy as np
import tqdm

from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import uncontested_costs as costs_lib
from ospiel_team.bridge.agents.bidders import base


def reached_contracts(bidder, holders: np.ndarray, dd_tricks: np.ndarray | None = None,
                      *, vulnerability: int = 0, dealer: int = 0, seed: int = 0,
                      batch: int = 1024) -> np.ndarray:
  """Contract indices (n,) a bidder reaches on `holders` in the uncontested auction.

  `bidder` is a `bidders.base.Bidder` (asked through ``act_auction``); E-W's forced passes
  are made by the engine's rules (their only legal call). `dd_tricks` is unused by the auction
  (pass any valid table, default zeros).
  """
  checks.check_type("bidder", bidder, base.Bidder, "a bidder (bidders.base.Bidder)")
  h = np.asarray(holders, np.uint8)
  t = np.zeros((len(h), 5, 4), np.uint8) if dd_tricks is None else np.asarray(dd_tricks)
  eng = engine_lib.BiddingEngine(dataset_lib.BridgeDataset(h, t), uncontested=True)
  rng = np.random.default_rng(seed)
  out = np.zeros(len(h), np.int64)
  for lo in range(0, len(h), batch):
    idx = np.arange(lo, min(len(h), lo + batch))
    eng.reset(idx, dealer, vulnerability)
    while not eng.done.all():
      active = np.flatnonzero(~eng.done)
      calls = np.zeros(len(idx), np.int64)
      ew = (eng.current_player[active] & 1) == 1
      if np.any(~ew):
        calls[active[~ew]] = bidder.act_auction(eng.auctions, eng.hands, active[~ew],
                                                rng.random(int((~ew).sum())))
      eng.step(calls)  # E-W rows: Pass (0), their only legal call
    level, strain, doubled, _ = eng.contract()
    if np.any(doubled):
      raise AssertionError("a doubled contract in an uncontested auction")
    out[idx] = costs_lib.contract_index(level, strain)
  return out


def evaluate_costs(bidder, cost_data: dict, *, vulnerable: bool = False, seed: int = 0) -> dict:
  """Mean Yeh & Lin cost of a bidder on a cost dataset.

  Mean Yeh & Lin cost (IMPs) of `bidder` on a cost dataset
  (`uncontested_costs.load_cost_dataset`).
  """
  costs = costs_lib.cost_vectors(cost_data["dd_tricks"], vulnerable)
  reached = reached_contracts(bidder, cost_data["holders"], vulnerability=1 if vulnerable else 0,
                              seed=seed)
  c = costs[np.arange(len(reached)), reached]
  return costs_lib.summarize(c, reached)


# ------------------------------------------------------------------------------------------
# A baseline in the spirit of Yeh & Lin: one Q-network per bidding round, penetrative
# Bellman targets, UCB1 exploration (their Algorithm 1 with P = penetrative, E = UCB1)
# ------------------------------------------------------------------------------------------
class RoundQLearner:
  """Yeh & Lin's protocol and learner, vectorized over instances.

  Protocol (their Sec. 2): Player 1 (North) and Player 2 (South) alternate, North first; a call
  is Pass or a bid higher than the last one; Pass ends the auction (a Pass in round 1 passes
  the deal out), and so does the ``rounds``-th call. The final contract is the last bid.

  Learner (their Sec. 3): for each round t a network Q_t (3 hidden layers of 128, ReLU) maps
  the caller's 52 card bits (and, from round 2 on, the 35 bits of the bids made so far) to the
  predicted cost of each of the 36 calls. Targets (penetrative Bellman, their Eq. 4-5): the
  cost of call a at a state is the cost of the contract reached when a is made and every later
  round plays greedily (argmin Q); illegal calls get cost 1.2 (costs are IMPs / 25). States of
  round t are reached by playing rounds 1..t-1 with UCB1 exploration,
  ``argmin_a Q(s, a) - c sqrt(2 ln N / n_a)`` (N: examples of the round so far, n_a: times a
  was chosen). Cost vectors come from the training deals' own DDS tables (k = 1: the only
  tables we have for them), not from 5 redeals as in their paper.

  Raises:
    errors.UserError: on construction, naming a bad argument (rounds from 1 to 36, hidden
      >= 1, ucb_c >= 0, learning_rate > 0, all finite; seed from 0 to 2**31 - 1).
  """

  def __init__(self, *, rounds: int = 4, hidden: int = 128, ucb_c: float = 0.1,
               learning_rate: float = 1e-3, seed: int = 0):
    import haiku as hk
    import jax
    import optax
    rounds = checks.check_int("rounds", rounds, minimum=1, maximum=A.NUM_BIDS + 1)
    hidden = checks.check_int("hidden", hidden, minimum=1)
    ucb_c = checks.check_real("ucb_c", ucb_c, minimum=0)
    learning_rate = checks.check_real("learning_rate", learning_rate, above=0)
    seed = checks.check_int("seed", seed, minimum=0, maximum=2**31 - 1)
    self.rounds, self.ucb_c = rounds, ucb_c
    self.rng = np.random.default_rng(seed)

    def mlp(x):
      for _ in range(3):
        x = jax.nn.relu(hk.Linear(hidden)(x))
      return hk.Linear(costs_lib.NUM_CONTRACTS)(x)

    self.net = hk.without_apply_rng(hk.transform(mlp))
    self.params = [self.net.init(jax.random.PRNGKey(seed + t),
                                 np.zeros((1, 52 + A.NUM_BIDS), np.float32))
                   for t in range(rounds)]
    self.opt = optax.adam(learning_rate)
    self.opt_state = [self.opt.init(p) for p in self.params]
    self.counts = np.ones((rounds, costs_lib.NUM_CONTRACTS))
    self._apply = jax.jit(self.net.apply)
    net, opt = self.net, self.opt

    def loss(p, x, y, w):
      return (((net.apply(p, x) - y) ** 2).mean(axis=1) * w).sum() / (w.sum() + 1e-9)

    @jax.jit
    def update(p, s, x, y, w):
      value, g = jax.value_and_grad(loss)(p, x, y, w)
      u, s = opt.update(g, s, p)
      return optax.apply_updates(p, u), s, value

    self._update = update

  @staticmethod
  def _inputs(hands, bids, t):
    x = np.concatenate([hands[:, t % 2], bids], axis=1).astype(np.float32)
    if t == 0:
      x[:, 52:] = 0.0
    return x

  @staticmethod
  def _legal(last):
    """(n, 36) legal calls: Pass and bids above `last` (contract index; 0 = none yet)."""
    return np.concatenate([np.ones((len(last), 1), bool),
                           np.arange(1, costs_lib.NUM_CONTRACTS)[None, :] > last[:, None]], axis=1)

  def q_values(self, t, hands, bids):
    """Round `t`'s Q-values of each next bid, for the given hands and bid histories."""
    return np.asarray(self._apply(self.params[t], self._inputs(hands, bids, t)))

  def _play(self, hands, t0, bids, last, alive, explore=False):
    """Plays rounds t0.. greedily (or with UCB1); returns the final contract indices."""
    last, bids, alive = last.copy(), bids.copy(), alive.copy()
    for t in range(t0, self.rounds):
      q = self.q_values(t, hands, bids)
      if explore:
        n = self.counts[t]
        q = q - self.ucb_c * np.sqrt(2 * np.log(n.sum()) / n)
      a = np.argmin(np.where(self._legal(last), q, np.inf), axis=1)
      if explore:
        np.add.at(self.counts[t], a[alive], 1)
      bid = alive & (a > 0)
      bids[bid, a[bid] - 1] = 1
      last = np.where(bid, a, last)
      alive = bid
    return last

  def hands_of(self, holders):
    """(n, 2, 52) float32 one-hot hands of North and South from (n, 52) card holders."""
    h = np.asarray(holders)
    return np.stack([h == 0, h == 2], axis=1).astype(np.float32)  # (n, 2, 52): N, S

  def train(self, holders, costs, iterations: int, *, batch: int = 256, progress: bool = True):
    """`costs` (n, 36) in IMPs; trains all rounds for `iterations` passes (their Alg. 1)."""
    checks.check_int("iterations", iterations, minimum=0)
    checks.check_int("batch", batch, minimum=1)
    checks.check_bool("progress", progress)
    hands_all = self.hands_of(holders)
    target_all = np.asarray(costs, np.float64) / 25.0
    losses = []
    for _ in tqdm.trange(iterations, desc="Q per round", disable=not progress):
      for t in range(self.rounds):
        idx = self.rng.integers(0, len(hands_all), batch)
        hands, tgt = hands_all[idx], target_all[idx]
        bids = np.zeros((batch, A.NUM_BIDS), np.float32)
        last = np.zeros(batch, np.int64)
        alive = np.ones(batch, bool)
        # Rounds before t with UCB1 exploration.
        for s in range(t):
          q = self.q_values(s, hands, bids)
          n = self.counts[s]
          q = q - self.ucb_c * np.sqrt(2 * np.log(n.sum()) / n)
          a = np.argmin(np.where(self._legal(last), q, np.inf), axis=1)
          np.add.at(self.counts[s], a[alive], 1)
          bid = alive & (a > 0)
          bids[bid, a[bid] - 1] = 1
          last = np.where(bid, a, last)
          alive = bid
        if not alive.any():
          continue
        # All rows keep fixed shapes (one jit compilation); finished auctions get weight 0.
        hands_r, bids_r, last_r, tgt_r = hands, bids, last, tgt
        m = batch
        legal = self._legal(last_r)
        # Penetrative targets: each call a, then greedy play to the end.
        rep = np.repeat(np.arange(m), costs_lib.NUM_CONTRACTS)
        a = np.tile(np.arange(costs_lib.NUM_CONTRACTS), m)
        ok = legal[rep, a]
        b2 = bids_r[rep].copy()
        isbid = ok & (a > 0)
        b2[isbid, a[isbid] - 1] = 1
        l2 = np.where(isbid, a, last_r[rep])
        final = self._play(hands_r[rep], t + 1, b2, l2, isbid) if t + 1 < self.rounds else l2
        y = np.where(ok, tgt_r[rep, final], 1.2).reshape(m, costs_lib.NUM_CONTRACTS)
        x = self._inputs(hands_r, bids_r, t)
        self.params[t], self.opt_state[t], value = self._update(
            self.params[t], self.opt_state[t], x, y.astype(np.float32), alive.astype(np.float32))
        losses.append(float(value))
    return losses

  def reached(self, holders) -> np.ndarray:
    """Greedy final contracts (n,) for deals `holders` (their N and S hands)."""
    hands = self.hands_of(holders)
    n = len(hands)
    return self._play(hands, 0, np.zeros((n, A.NUM_BIDS), np.float32), np.zeros(n, np.int64),
                      np.ones(n, bool))

  def evaluate_costs(self, cost_data: dict, vulnerable: bool = False) -> dict:
    """Cost summary (`uncontested_costs.summarize`) of the contracts this bidder reaches."""
    costs = costs_lib.cost_vectors(cost_data["dd_tricks"], vulnerable)
    reached = self.reached(cost_data["holders"])
    return costs_lib.summarize(costs[np.arange(len(reached)), reached], reached)
