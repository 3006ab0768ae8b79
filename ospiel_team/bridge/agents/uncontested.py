r"""Yeh & Lin 2016's uncontested bidding benchmark: the IMP cost of the reached contract.

Setting (Yeh & Lin, "Automatic Bridge Bidding Using Deep Reinforcement Learning", ECAI 2016,
arXiv:1607.03290, Sec. 2): only
North and South bid, East and West always pass (`bridge_bidding(uncontested=true)`,
`BiddingEngine(uncontested=True)`). The quality of the reached contract is judged against the
North-South cards only, not against the particular East-West layout: for each North-South pair
of hands, the 26 East-West cards are dealt at random ``k = 5`` times, each of the ``k`` deals is
solved double-dummy (`ospiel_team.bridge.dds`), and each contract's score is averaged over the
``k`` deals. As in their footnote 2, the declarer of a strain is the North-South player who takes
more tricks in it (per deal). The *cost* of a contract is ``imps(best average score - its average
score)`` (IMPs of the score difference, `scoring.imps_array`), so the best contract costs 0; the
benchmark is the mean cost of the contracts a bidder reaches on a held-out set (Yeh & Lin: 2.70
for their best model, 3.00 for WBridge5; lower is better).

Contracts: index 0 = passed out (score 0), index ``1 + j`` = bid ``j`` (call ``3 + j``, 1C..7NT),
undoubled (nobody can double in an uncontested auction: doubles are only of the opponents' bids).
Vulnerability: none by default (Yeh & Lin do not state one), dealer North (their Player 1 bids
first). One difference to Yeh & Lin's protocol: there a Pass by either player ends the auction,
while here the Laws apply (North's opening Pass gives South a chance to open; a Pass after a
bid ends the auction only when the opponents' forced passes follow, i.e. at once).

Cost datasets (``.npz``): ``holders`` (n, 52) uint8 the first of the k deals (its North and South
hands are those of all k), ``redeal_holders`` (n, k, 52), ``dd_tricks`` (n, k, 5, 4) uint8, ``format``.
``ospiel-team-uncontested --pairs 200 --out FILE`` builds one (chunked, atomic,
resumable, tqdm).

`single_deal_costs` gives the hindsight version on any `dataset` (k = 1: the actual deal's DDS
table), which needs no extra DDS work.
"""

from __future__ import annotations

import os
import shutil
from typing import Optional

import numpy as np
import tqdm

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import scoring
import functools
from ospiel_team import atomic_io

NUM_CONTRACTS = 1 + A.NUM_BIDS  # 0 = passed out, 1 + j = bid j
FORMAT_TAG = "ospiel_team.bridge.agents.uncontested/1"
PUBLISHED_COSTS = {"Yeh & Lin 2016 (best, 4 rounds)": 2.70, "WBridge5": 3.00}

_LEVEL = np.concatenate([[0], 1 + np.arange(A.NUM_BIDS) // 5])
_STRAIN = np.concatenate([[0], np.arange(A.NUM_BIDS) % 5])


def redeal_east_west(holders: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
  """(n, 52) deals -> (n, k, 52): North/South keep their cards, E-W cards dealt at random."""
  h = deal_lib.validate_holders(np.asarray(holders)).reshape(-1, 52)
  if k < 1:
    raise ValueError(f"number of redeals k must be >= 1, got {k}")
  n = h.shape[0]
  out = np.repeat(h[:, None, :], k, axis=1)
  ew_seats = np.array([1] * 13 + [3] * 13, np.uint8)
  for i in range(n):
    ew_cards = np.flatnonzero((h[i] == 1) | (h[i] == 3))
    for j in range(k):
      out[i, j, ew_cards] = rng.permutation(ew_seats)
  return out


def contract_scores(dd_tricks: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(..., 5, 4) DDS tricks -> (..., 36) N-S score of each contract, best N-S declarer."""
  t = np.asarray(dd_tricks).astype(np.int64)
  ns_best = np.maximum(t[..., :, 0], t[..., :, 2])  # (..., 5) tricks by strain
  tricks = ns_best[..., _STRAIN]  # (..., 36)
  shape = tricks.shape
  s = scoring.contract_score_array(np.broadcast_to(_LEVEL, shape), np.broadcast_to(_STRAIN, shape),
                                   np.zeros(shape, np.int64),
                                   np.full(shape, bool(vulnerable)), tricks)
  return s.astype(np.float64)


def cost_vectors(dd_tricks_redeals: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(n, k, 5, 4) tricks of k redeals -> (n, 36) IMP cost of each contract (Yeh & Lin)."""
  t = np.asarray(dd_tricks_redeals)
  if t.ndim != 4 or t.shape[2:] != (5, 4):
    raise ValueError(f"expected (n, k, 5, 4) DDS tricks, got shape {t.shape}")
  avg = contract_scores(t, vulnerable).mean(axis=1)  # (n, 36)
  return scoring.imps_array(avg.max(axis=1, keepdims=True) - avg).astype(np.float64)


def single_deal_costs(dd_tricks: np.ndarray, vulnerable: bool = False) -> np.ndarray:
  """(n, 5, 4) tricks of the actual deals -> (n, 36) hindsight costs (k = 1)."""
  return cost_vectors(np.asarray(dd_tricks)[:, None], vulnerable)


def contract_index(level, strain) -> np.ndarray:
  """Contract index 0..35 from (level 0..7, strain) arrays (level 0 = passed out)."""
  level = np.asarray(level)
  return np.where(level > 0, 1 + (level - 1) * 5 + np.asarray(strain), 0)


def reached_contracts(bidder, holders: np.ndarray, dd_tricks: Optional[np.ndarray] = None,
                      vulnerability: int = 0, dealer: int = 0, seed: int = 0,
                      batch: int = 1024) -> np.ndarray:
  """Contract indices (n,) a bidder reaches on `holders` in the uncontested auction.

  `bidder` has the `bidders` interface (``act(obs, uniforms)``); E-W's forced passes are made
  by the engine's rules (their only legal call). `dd_tricks` is unused by the auction (pass any
  valid table, default zeros).
  """
  from ospiel_team.bridge import engine as engine_lib  # pylint: disable=g-import-not-at-top
  from ospiel_team.bridge import dataset as dataset_lib  # pylint: disable=g-import-not-at-top
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
      obs = eng.observation()[active]
      calls = np.zeros(len(idx), np.int64)
      ew = (eng.current_player[active] & 1) == 1
      if np.any(~ew):
        calls[active[~ew]] = bidder.act(obs[~ew], rng.random(int((~ew).sum())))
      eng.step(calls)  # E-W rows: Pass (0), their only legal call
    level, strain, doubled, _ = eng.contract()
    if np.any(doubled):
      raise AssertionError("a doubled contract in an uncontested auction")
    out[idx] = contract_index(level, strain)
  return out


def evaluate_costs(bidder, cost_data: dict, vulnerable: bool = False, seed: int = 0) -> dict:
  """Mean Yeh & Lin cost (IMPs) of `bidder` on a cost dataset (`load_cost_dataset`)."""
  costs = cost_vectors(cost_data["dd_tricks"], vulnerable)
  reached = reached_contracts(bidder, cost_data["holders"], vulnerability=1 if vulnerable else 0,
                              seed=seed)
  c = costs[np.arange(len(reached)), reached]
  return summarize(c, reached)


def summarize(c: np.ndarray, reached: np.ndarray) -> dict:
  n = len(c)
  names = ["Pass"] + [A.call_string(3 + j) for j in range(A.NUM_BIDS)]
  counts = np.bincount(reached, minlength=NUM_CONTRACTS)
  top = np.argsort(-counts)[:8]
  return {"pairs": n, "mean_cost": float(c.mean()),
          "stderr": float(c.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
          "fraction_best": float(np.mean(c == 0)),
          "top_contracts": {names[i]: float(counts[i] / n) for i in top if counts[i]}}


def oracle_bidder_costs(cost_data: dict, vulnerable: bool = False) -> np.ndarray:
  """(n,) costs of always reaching the contract that is best on the actual (first) deal."""
  costs = cost_vectors(cost_data["dd_tricks"], vulnerable)
  actual = contract_scores(cost_data["dd_tricks"][:, 0], vulnerable)
  return costs[np.arange(len(costs)), actual.argmax(axis=1)]


# ------------------------------------------------------------------------------------------
# Building cost datasets (k redeals + DDS), resumable
# ------------------------------------------------------------------------------------------
_atomic_savez = functools.partial(atomic_io.savez, compressed=True)


def build_cost_dataset(pairs: int, out: str, k: int = 5, seed: int = 2016, chunk: int = 20,
                       progress: bool = True, keep_chunks: bool = False) -> dict:
  """Draws `pairs` random deals, redeals E-W k times, solves all with DDS; writes `out`.

  Chunk ``i`` uses ``default_rng(SeedSequence([seed, i]))``; finished chunks are written to
  ``out + '.chunks/'`` (atomic writes) so an interrupted build resumes; once `out` is written
  the chunk folder is removed unless `keep_chunks`.
  """
  from ospiel_team.bridge import dds  # pylint: disable=g-import-not-at-top
  if pairs < 1 or k < 1 or chunk < 1:
    raise ValueError(f"pairs, k and chunk must be >= 1, got {pairs}, {k}, {chunk}")
  atomic_io.check_writable(out)
  cdir = out + ".chunks"
  atomic_io.check_writable(cdir, folder=True)
  os.makedirs(cdir, exist_ok=True)
  nchunks = (pairs + chunk - 1) // chunk
  bar = tqdm.tqdm(total=pairs, desc="redeals+DDS", unit="pair", disable=not progress)
  parts = []
  for i in range(nchunks):
    m = min(chunk, pairs - i * chunk)
    path = os.path.join(cdir, f"chunk_{i:05d}_{m}_{k}.npz")
    if not os.path.exists(path):
      rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
      base = deal_lib.random_holders(rng, m)
      red = redeal_east_west(base, k, rng)
      red[:, 0] = base  # the first "redeal" is the deal itself
      tricks = dds.dd_tables(red.reshape(m * k, 52)).reshape(m, k, 5, 4)
      _atomic_savez(path, redeal_holders=red, dd_tricks=tricks)
    with np.load(path) as z:
      parts.append((z["redeal_holders"], z["dd_tricks"]))
    bar.update(m)
  bar.close()
  red = np.concatenate([p[0] for p in parts])
  tricks = np.concatenate([p[1] for p in parts])
  data = {"holders": red[:, 0].copy(), "redeal_holders": red, "dd_tricks": tricks}
  _atomic_savez(out, format=np.array(FORMAT_TAG), **data)
  if not keep_chunks:
    shutil.rmtree(cdir)
  return data


def load_cost_dataset(path: str) -> dict:
  """Loads and checks a cost dataset written by `build_cost_dataset`."""
  if not os.path.exists(path):
    raise ValueError(f"cost dataset {path!r} does not exist")
  with np.load(path, allow_pickle=False) as z:
    for key in ("holders", "redeal_holders", "dd_tricks"):
      if key not in z.files:
        raise ValueError(f"cost dataset {path!r} lacks {key!r}")
    d = {k: z[k] for k in ("holders", "redeal_holders", "dd_tricks")}
  n, k = d["redeal_holders"].shape[:2]
  if d["dd_tricks"].shape != (n, k, 5, 4) or d["holders"].shape != (n, 52):
    raise ValueError(f"cost dataset {path!r}: inconsistent shapes "
                     f"{ {key: v.shape for key, v in d.items()} }")
  ns = (d["redeal_holders"] == 0) | (d["redeal_holders"] == 2)
  if not np.all(np.where(ns, d["redeal_holders"], 0) ==
                np.where(ns[:, :1], d["redeal_holders"][:, :1], 0)):
    raise ValueError(f"cost dataset {path!r}: North-South hands differ between redeals")
  return d


def shipped_cost_dataset_path() -> str:
  """The small held-out cost set shipped beside the models (ospiel_team/bridge/models/)."""
  return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models",
                      "uncontested_cost.npz")


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
  """

  def __init__(self, rounds: int = 4, hidden: int = 128, ucb_c: float = 0.1,
               learning_rate: float = 1e-3, seed: int = 0):
    import haiku as hk  # pylint: disable=g-import-not-at-top
    import jax  # pylint: disable=g-import-not-at-top
    import optax  # pylint: disable=g-import-not-at-top
    if rounds < 1:
      raise ValueError(f"rounds must be >= 1, got {rounds}")
    self.rounds, self.ucb_c = rounds, ucb_c
    self.rng = np.random.default_rng(seed)

    def mlp(x):
      for _ in range(3):
        x = jax.nn.relu(hk.Linear(hidden)(x))
      return hk.Linear(NUM_CONTRACTS)(x)

    self.net = hk.without_apply_rng(hk.transform(mlp))
    self.params = [self.net.init(jax.random.PRNGKey(seed + t),
                                 np.zeros((1, 52 + A.NUM_BIDS), np.float32))
                   for t in range(rounds)]
    self.opt = optax.adam(learning_rate)
    self.opt_state = [self.opt.init(p) for p in self.params]
    self.counts = np.ones((rounds, NUM_CONTRACTS))
    self._apply = jax.jit(self.net.apply)
    net, opt = self.net, self.opt

    def loss(p, x, y, w):
      return (((net.apply(p, x) - y) ** 2).mean(axis=1) * w).sum() / (w.sum() + 1e-9)

    @jax.jit
    def update(p, s, x, y, w):
      l, g = jax.value_and_grad(loss)(p, x, y, w)
      u, s = opt.update(g, s, p)
      return optax.apply_updates(p, u), s, l

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
                           np.arange(1, NUM_CONTRACTS)[None, :] > last[:, None]], axis=1)

  def q_values(self, t, hands, bids):
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
    h = np.asarray(holders)
    return np.stack([h == 0, h == 2], axis=1).astype(np.float32)  # (n, 2, 52): N, S

  def train(self, holders, costs, iterations: int, batch: int = 256, progress: bool = True):
    """`costs` (n, 36) in IMPs; trains all rounds for `iterations` passes (their Alg. 1)."""
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
        rep = np.repeat(np.arange(m), NUM_CONTRACTS)
        a = np.tile(np.arange(NUM_CONTRACTS), m)
        ok = legal[rep, a]
        b2 = bids_r[rep].copy()
        isbid = ok & (a > 0)
        b2[isbid, a[isbid] - 1] = 1
        l2 = np.where(isbid, a, last_r[rep])
        final = self._play(hands_r[rep], t + 1, b2, l2, isbid) if t + 1 < self.rounds else l2
        y = np.where(ok, tgt_r[rep, final], 1.2).reshape(m, NUM_CONTRACTS)
        x = self._inputs(hands_r, bids_r, t)
        self.params[t], self.opt_state[t], l = self._update(
            self.params[t], self.opt_state[t], x, y.astype(np.float32), alive.astype(np.float32))
        losses.append(float(l))
    return losses

  def reached(self, holders) -> np.ndarray:
    """Greedy final contracts (n,) for deals `holders` (their N and S hands)."""
    hands = self.hands_of(holders)
    n = len(hands)
    return self._play(hands, 0, np.zeros((n, A.NUM_BIDS), np.float32), np.zeros(n, np.int64),
                      np.ones(n, bool))

  def evaluate_costs(self, cost_data: dict, vulnerable: bool = False) -> dict:
    costs = cost_vectors(cost_data["dd_tricks"], vulnerable)
    reached = self.reached(cost_data["holders"])
    return summarize(costs[np.arange(len(reached)), reached], reached)
