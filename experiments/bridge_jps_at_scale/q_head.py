r"""A Q head for `a2c_longer` with its trunk frozen, and how good it is on held-out self-play.

  nice -n 10 python experiments/bridge_jps_at_scale/q_head.py \
      --out experiments/bridge_jps_at_scale/q_head.json

The lambda > 0 gate (`gate.py --lam`) mixes the search's true-deal candidate values with
Q(I, a), a function of what the player sees (the transferable target of JPS: Tian, Gong & Jiang,
"Joint Policy Search for Multi-agent Collaboration with Imperfect Information", NeurIPS 2020,
arXiv:2008.06495, Sec. 5.2, Eq. 7). The shipped `a2c_longer` has no Q head. This script gives it
one without moving its policy: ``--train_deals`` deals of its own self-play on the shipped
training deals (`dataset.shipped_training_deals`, two tables a deal, every call sampled from the
policy, seed ``--seed``) give decisions (observation, call played, return in IMPs / 24 against
the other table: the trainer's Q target), and the Q head, a linear layer on the frozen trunk's
features, is their least-squares fit per call (`policy_net.fit_q_head`), the ridge penalty
chosen among ``--ridges`` on a fifth of the training decisions held apart, each call's weights
shrunk towards the value head's (``--prior value``: Q(I, a) = V(I) + a regularised advantage;
the returns are noisy, one game's result against the other table, so most of a call's weights
are better left at V's).

The fit is then checked on ``--heldout_passes`` passes of self-play on the 1,000 ``validation``
deals (seed ``--seed`` + 1): the mean squared error of Q(I, a) for the calls played against
their returns, beside two baselines, a constant (the training returns' mean) and the value
head V(I) (which knows the position but not the call). A Q head no better than V(I) knows
nothing about the calls beyond the position, and mixing it into the candidate values would
only add noise: the record says which.

Writes the head's parameters (``q/w``, ``q/b``) to ``--head`` (about 30 KB) and the record to
``--out``; `q_hook.q_a2c_longer` reads the head for the gate.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
import time

import numpy as np
import tqdm
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.runner import report

HERE = os.path.dirname(os.path.abspath(__file__))

FLAGS = flags.FLAGS
flags.DEFINE_string("model", "a2c_longer", "Policy whose trunk the head is fitted on.")
flags.DEFINE_integer("train_deals", 20_000, "Self-play deals (two tables each) to fit on.")
flags.DEFINE_integer("source_deals", 5_000, "Shipped training deals (before the x96 "
                     "augmentation) the self-play draws from.")
flags.DEFINE_integer("heldout_passes", 4, "Self-play passes over the 1,000 validation deals.")
flags.DEFINE_integer("chunk", 500, "Deals per self-play call.")
flags.DEFINE_list("ridges", ["1", "10", "100", "1000", "10000", "100000"],
                  "Ridge penalties tried.")
flags.DEFINE_enum("prior", "value", ["value", "none"], "What the ridge shrinks each call's "
                  "weights towards: the value head (Q = V + a regularised advantage) or 0.")
flags.DEFINE_integer("seed", 0, "Seed of the training self-play (held-out: seed + 1).")
flags.DEFINE_string("head", os.path.join(HERE, "q_head.npz"), "The head's parameters.")
flags.DEFINE_string("out", os.path.join(HERE, "q_head.json"), "The record.")


def selfplay(policy, dataset, num_deals: int, seed: int, chunk: int, desc: str):
  """(obs uint8, actions, returns, values) of `num_deals` deals of self-play on `dataset`."""
  eng = engine_lib.BiddingEngine(dataset)
  rng = np.random.default_rng(seed)
  pool = np.arange(len(dataset))
  parts = []
  for lo in tqdm.trange(0, num_deals, chunk, desc=desc):
    ro = a2c.play_selfplay(policy, eng, rng, pool, min(chunk, num_deals - lo),
                           obs_dtype=np.uint8)
    parts.append((ro.obs, ro.actions, ro.returns(), ro.values))
  return tuple(np.concatenate(x) for x in zip(*parts, strict=True))


def validation_passes(policy, passes: int, seed: int):
  """Self-play on the validation deals: `passes` x 1,000 games, drawn 500 at a time from each
  half of the deals (with replacement, random dealer and vulnerability)."""
  ds = dataset_lib.resolve_dataset("validation")
  eng = engine_lib.BiddingEngine(ds)
  rng = np.random.default_rng(seed)
  parts = []
  for _ in tqdm.trange(passes, desc="held-out"):
    for lo in range(0, len(ds), 500):
      ro = a2c.play_selfplay(policy, eng, rng, np.arange(lo, min(lo + 500, len(ds))),
                             min(500, len(ds) - lo), obs_dtype=np.uint8)
      parts.append((ro.obs, ro.actions, ro.returns(), ro.values))
  return tuple(np.concatenate(x) for x in zip(*parts, strict=True))


def _mse(pred, g) -> dict:
  """Mean squared error with its standard error (decisions of a game are correlated: the
  interval is indicative)."""
  e = (np.asarray(pred, np.float64) - g) ** 2
  return {"mse": float(e.mean()), "stderr": float(e.std(ddof=1) / np.sqrt(len(e)))}


def q_of(head, features, actions) -> np.ndarray:
  """Q(I, a) of the calls `actions` at decisions with trunk `features`."""
  return np.einsum("nd,dn->n", features, head["w"][:, actions]) + head["b"][actions]


def main(argv):
  """Fits the head, checks it on held-out self-play, writes head and record."""
  del argv
  for name in ("train_deals", "source_deals", "heldout_passes", "chunk"):
    checks.check_int(f"--{name}", getattr(FLAGS, name), minimum=1)
  ridges = [checks.check_real("--ridges", float(r), above=0) for r in FLAGS.ridges]
  atomic_io.check_writable(FLAGS.out)
  atomic_io.check_writable(FLAGS.head)
  t0, c0 = time.time(), time.process_time()
  net, params, meta = policy_net.load_model(model_bidder.model_path(FLAGS.model))
  policy = policy_net.PolicyFn(net, params)
  train = dataset_lib.shipped_training_deals(FLAGS.source_deals)
  obs, act, ret, _ = selfplay(policy, train, FLAGS.train_deals, FLAGS.seed, FLAGS.chunk,
                              "training self-play")
  feats = policy_net.trunk_features(params, obs, meta["network"])
  # the ridge: fitted on four fifths, scored on the last fifth of the training decisions
  cut = len(act) * 4 // 5
  prior = params["value"] if FLAGS.prior == "value" else None
  inner = {}
  for r in ridges:
    head = policy_net.fit_q_head(feats[:cut], act[:cut], ret[:cut], ridge=r, prior=prior)
    inner[str(r)] = _mse(q_of(head, feats[cut:], act[cut:]), ret[cut:])["mse"]
  ridge = min(ridges, key=lambda r: inner[str(r)])
  head = policy_net.fit_q_head(feats, act, ret, ridge=ridge, prior=prior)
  t_fit = time.process_time() - c0

  h_obs, h_act, h_ret, h_val = validation_passes(policy, FLAGS.heldout_passes, FLAGS.seed + 1)
  h_feats = policy_net.trunk_features(params, h_obs, meta["network"])
  q = q_of(head, h_feats, h_act)
  # the same Q through the network (the head grafted on the model): one implementation check
  full = dict(params, q={"w": head["w"], "b": head["b"]})
  q_net = policy_net.q_values(full, h_obs[:256], meta["network"])[np.arange(256), h_act[:256]]
  np.testing.assert_allclose(q_net, q[:256], rtol=1e-4, atol=1e-4)
  adv_q, adv_g = q - h_val, h_ret - h_val
  heldout = {"decisions": int(len(h_act)),
             "q": _mse(q, h_ret),
             "constant": _mse(np.full(len(h_ret), ret.mean()), h_ret),
             "value_head": _mse(h_val, h_ret),
             "corr_q_minus_v_with_return_minus_v": float(np.corrcoef(adv_q, adv_g)[0, 1]),
             "paired_q_minus_value_head": _mse(q, h_ret)["mse"] - _mse(h_val, h_ret)["mse"]}
  d = (q - h_ret) ** 2 - (h_val - h_ret) ** 2
  se = float(d.std(ddof=1) / np.sqrt(len(d)))
  heldout["paired_q_minus_value_head_ci95"] = [float(d.mean() - 1.96 * se),
                                               float(d.mean() + 1.96 * se)]
  heldout["r2_vs_constant"] = 1 - heldout["q"]["mse"] / heldout["constant"]["mse"]
  heldout["r2_value_head_vs_constant"] = 1 - heldout["value_head"]["mse"] / \
      heldout["constant"]["mse"]
  atomic_io.savez(FLAGS.head, **{"q/w": head["w"], "q/b": head["b"],
                                 "model": np.array(FLAGS.model)})
  record = {
      "command": "python experiments/bridge_jps_at_scale/q_head.py " + " ".join(sys.argv[1:]),
      "model": FLAGS.model, "network": meta["network"],
      "train": {"deals": FLAGS.train_deals, "source_deals": FLAGS.source_deals,
                "decisions": int(len(act)), "seed": FLAGS.seed,
                "return_mean": float(ret.mean()), "return_std": float(ret.std())},
      "ridges": inner, "ridge": ridge, "prior": FLAGS.prior, "heldout": heldout,
      "heldout_passes": FLAGS.heldout_passes, "fit_cpu_s": t_fit,
      "cpu_s": time.process_time() - c0, "wall_s": time.time() - t0,
      "commit": report.short_commit(),
      "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
      "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
      "load": [round(x, 2) for x in os.getloadavg()]}
  atomic_io.write_json(FLAGS.out, record)
  print(heldout)


if __name__ == "__main__":
  app.run(main)
