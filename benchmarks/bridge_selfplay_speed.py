r"""Where the time of bridge self-play goes: engine, observations, network, sampling, learner.

  python benchmarks/bridge_selfplay_speed.py --deals_per_round 256,1024 --repeats 3

For each ``deals_per_round`` D (2 D games per round), one run measures, with the network of
the shipped model's size (hidden 200, 2 blocks, `policy_net.make_network`):

* ``selfplay``: `a2c.play_selfplay` (the trainer's acting loop), games/s;
* its parts, timed inside a copy of that loop: engine observation + step, the jitted policy
  forward (`policy_net.PolicyFn`), inverse-CDF sampling, bookkeeping;
* ``update``: one learner step (`a2c.make_update_fn`, batch 1024), and a whole
  `A2CTrainer.train_round` (self-play + buffer + `updates_per_round` = 4 steps), games/s.

Best of ``--repeats`` (the machine is shared); prints a Markdown table and the load average.
"""

import time

from absl import app
from absl import flags
import jax
import numpy as np
import optax

from ospiel_team.bridge import a2c
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge import policy_net

FLAGS = flags.FLAGS
flags.DEFINE_list("deals_per_round", ["256", "1024"], "Deals per round (2 games each).")
flags.DEFINE_integer("repeats", 3, "Repeats (best reported).")


def _parts(policy, eng, rng, pool, d):
  """One self-play round with a stopwatch per part (same steps as a2c.play_selfplay)."""
  t = dict(engine=0.0, network=0.0, sampling=0.0, other=0.0)
  deals = pool[rng.integers(0, len(pool), d)]
  dealer, vul = rng.integers(0, 4, d), rng.integers(0, 4, d)
  t0 = time.perf_counter()
  eng.reset(np.concatenate([deals, deals]), np.concatenate([dealer, dealer]),
            np.concatenate([vul, vul]))
  t["engine"] += time.perf_counter() - t0
  calls_made = 0
  while not eng.done.all():
    t0 = time.perf_counter()
    active = np.flatnonzero(~eng.done)
    obs = eng.observation()[active]
    t1 = time.perf_counter()
    probs, _ = policy(obs)
    t2 = time.perf_counter()
    a = a2c.sample_calls(probs, policy_net.legal_from_obs(obs), rng.random(len(active)))
    t3 = time.perf_counter()
    calls = np.zeros(eng.batch_size, np.int64)
    calls[active] = a
    np.log(np.maximum(probs[np.arange(len(a)), a], 1e-30))
    t4 = time.perf_counter()
    eng.step(calls)
    t5 = time.perf_counter()
    calls_made += len(active)
    t["engine"] += (t1 - t0) + (t5 - t4)
    t["network"] += t2 - t1
    t["sampling"] += t3 - t2
    t["other"] += t4 - t3
  return t, calls_made


def main(argv):
  del argv
  ds = dataset_lib.load_dataset()
  pool = np.arange(len(ds))
  net = policy_net.make_network(200, 2)
  params = policy_net.init_params(net, 0)
  policy = policy_net.PolicyFn(net, params)
  rows = []
  for d in [int(x) for x in FLAGS.deals_per_round]:
    eng = engine_lib.BiddingEngine(ds)
    rng = np.random.default_rng(0)
    a2c.play_selfplay(policy, eng, rng, pool, d)  # compile
    best = {}
    for _ in range(FLAGS.repeats):
      t0 = time.perf_counter()
      a2c.play_selfplay(policy, eng, rng, pool, d)
      sp = time.perf_counter() - t0
      parts, ncalls = _parts(policy, eng, rng, pool, d)
      cand = dict(selfplay=sp, **parts, calls=ncalls)
      if not best or sp < best["selfplay"]:
        best = cand
    cfg = a2c.A2CConfig(deals_per_round=d, burn_in=1, buffer_size=200_000)
    trainer = a2c.A2CTrainer(cfg, ds)
    trainer.train_round()
    trainer.train_round()  # compile the update
    rounds = []
    for _ in range(FLAGS.repeats):
      t0 = time.perf_counter()
      trainer.train_round()
      rounds.append(time.perf_counter() - t0)
    update = a2c.make_update_fn(net, optax.adam(1e-4), cfg)
    opt_state = optax.adam(1e-4).init(params)
    o, act, lp, ret = trainer.buffer.sample(np.random.default_rng(1), 1024)
    p2, s2, _ = update(params, opt_state, o, act, lp, ret, np.float32(0.01))
    jax.block_until_ready(p2)
    ups = []
    for _ in range(FLAGS.repeats):
      t0 = time.perf_counter()
      p2, s2, _ = update(params, opt_state, o, act, lp, ret, np.float32(0.01))
      jax.block_until_ready(p2)
      ups.append(time.perf_counter() - t0)
    games = 2 * d
    rows.append((d, games / best["selfplay"], best, min(ups), games / min(rounds),
                 best["calls"]))
  load = open("/proc/loadavg").read().split()[:3]
  print(f"load average {' '.join(load)}; JAX devices {jax.devices()}")
  print("| deals/round | games/round | calls | self-play games/s | engine s | network s | "
        "sampling s | other s | learner step (1024) s | train_round games/s |")
  print("|---|---|---|---|---|---|---|---|---|---|")
  for d, gps, b, up, tr, nc in rows:
    print(f"| {d} | {2 * d} | {nc} | {gps:.0f} | {b['engine']:.3f} | {b['network']:.3f} | "
          f"{b['sampling']:.3f} | {b['other']:.3f} | {up:.3f} | {tr:.0f} |")


if __name__ == "__main__":
  app.run(main)
