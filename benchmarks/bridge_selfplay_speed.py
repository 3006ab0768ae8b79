r"""Where the time of bridge self-play goes, and the old loop against the new one in one run.

  python benchmarks/bridge_selfplay_speed.py --deals_per_round 256,1024,4096 --repeats 3

For each ``deals_per_round`` D (2 D games per round), with the network of the shipped model's
size (hidden 200, 2 blocks, `policy_net.make_network`), interleaving old and new so that both
see the same load of the shared machine:

* acting alone (`a2c.play_selfplay`): old = float32 observations and power-of-two jit padding
  (the plain loop), new = uint8 observations and `policy_net.padded_size` padding;
* a whole `A2CTrainer.train_round` (self-play + replay buffer + ``--updates_per_round`` Adam
  steps of batch 1024): old = the sequential loop with the old acting, new = the new acting
  with the learner overlapped in a thread (``A2CConfig.overlap_learning``);
* games per wall second and per CPU second of this process (all threads; `getrusage`), the
  latter being what the machine's other users cannot take away;
* the new acting loop's parts, timed inside a copy of that loop (engine observation + step,
  the jitted policy forward, inverse-CDF sampling, bookkeeping), and one learner step.

Best of ``--repeats`` (wall and CPU times separately; the machine is shared); prints Markdown
tables and the load average before and after.
"""

import functools
import resource
import time

import jax
import numpy as np
import optax
from absl import app
from absl import flags

from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import a2c

FLAGS = flags.FLAGS
flags.DEFINE_list("deals_per_round", ["256", "1024"], "Deals per round (2 games each).")
flags.DEFINE_integer("repeats", 3, "Repeats (best reported).")
flags.DEFINE_integer("updates_per_round", 4, "Learner Adam steps (batch 1024) per round.")


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
    obs = eng.observation(dtype=np.uint8)[active]
    t1 = time.perf_counter()
    probs, _ = policy(obs)
    t2 = time.perf_counter()
    a = policy_net.sample_calls(probs, policy_net.legal_from_obs(obs), rng.random(len(active)))
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


def _cpu():
  r = resource.getrusage(resource.RUSAGE_SELF)
  return r.ru_utime + r.ru_stime


def _timed(fn):
  """(wall s, CPU s of this process, all threads) of fn()."""
  w, c = time.perf_counter(), _cpu()
  fn()
  return time.perf_counter() - w, _cpu() - c


# Whole-round variants: name -> (fast_acting, overlap_learning).
LOOPS = {"old (float32, pow2 padding, sequential)": (False, False),
         "new acting (uint8, fine padding), sequential": (True, False),
         "new acting, learner overlapped (thread)": (True, True)}


def _trainer(ds, d, fast, overlap):
  cfg = a2c.A2CConfig(learning_rate=3e-4, deals_per_round=d, burn_in=1, buffer_size=400_000,
                      updates_per_round=FLAGS.updates_per_round, fast_acting=fast,
                      overlap_learning=overlap)
  trainer = a2c.A2CTrainer(cfg, ds)
  trainer.train_round()
  trainer.train_round()  # compile the update and the policy's batch sizes
  return trainer


def main(argv):
  del argv
  ds = dataset_lib.load_dataset()
  pool = np.arange(len(ds))
  net = policy_net.make_network(200, 2)
  params = policy_net.init_params(net, 0)
  policies = {False: policy_net.PolicyFn(net, params, fine_padding=False),
              True: policy_net.PolicyFn(net, params, fine_padding=True)}
  dtypes = {False: np.float32, True: np.uint8}
  load0 = open("/proc/loadavg").read().split()[:3]
  rows = []
  for d in [int(x) for x in FLAGS.deals_per_round]:
    eng = engine_lib.BiddingEngine(ds)
    rng = np.random.default_rng(0)
    for fast in (False, True):  # compile every batch size
      for _ in range(2):
        a2c.play_selfplay(policies[fast], eng, rng, pool, d, obs_dtype=dtypes[fast])
    trainers = {name: _trainer(ds, d, *v) for name, v in LOOPS.items()}
    act = {False: [], True: []}
    rnd = {name: [] for name in LOOPS}
    parts = None
    for _ in range(FLAGS.repeats):
      for fast in (False, True):  # interleaved, so that both see the same load
        act[fast].append(_timed(functools.partial(
            a2c.play_selfplay, policies[fast], eng, rng, pool, d, obs_dtype=dtypes[fast])))
      for name, tr in trainers.items():
        rnd[name].append(_timed(tr.train_round))
      cand = _parts(policies[True], eng, rng, pool, d)
      if parts is None or sum(cand[0].values()) < sum(parts[0].values()):
        parts = cand
    update = a2c.make_update_fn(net, optax.adam(1e-4), trainers[list(LOOPS)[-1]].cfg)
    opt_state = optax.adam(1e-4).init(params)
    o, ac, lp, ret = trainers[list(LOOPS)[-1]].buffer.sample(np.random.default_rng(1), 1024,
                                                  obs_dtype=np.uint8)
    ups = []
    for _ in range(FLAGS.repeats + 1):
      t0 = time.perf_counter()
      p2, _, _ = update(params, opt_state, o, ac, lp, ret, np.float32(0.01))
      jax.block_until_ready(p2)
      ups.append(time.perf_counter() - t0)
    rows.append(dict(d=d, act=act, rnd=rnd, parts=parts, update=min(ups[1:])))
  load1 = open("/proc/loadavg").read().split()[:3]
  print(f"load average before {' '.join(load0)}, after {' '.join(load1)}; "
        f"JAX devices {jax.devices()}; updates_per_round {FLAGS.updates_per_round}; "
        f"best of {FLAGS.repeats} (wall and CPU separately)")
  print("\n| deals/round | acting loop | acting games/s | acting games/CPU-s |")
  print("|---|---|---|---|")
  for r in rows:
    g = 2 * r["d"]
    for fast in (False, True):
      aw, ac = (min(x[i] for x in r["act"][fast]) for i in (0, 1))
      name = "new (uint8, fine padding)" if fast else "old (float32, pow2 padding)"
      print(f"| {r['d']} | {name} | {g / aw:.0f} | {g / ac:.0f} |")
  print("\n| deals/round | whole train_round | games/s | games/CPU-s | round wall s | "
        "round CPU s |")
  print("|---|---|---|---|---|---|")
  for r in rows:
    g = 2 * r["d"]
    for name in LOOPS:
      rw, rc = (min(x[i] for x in r["rnd"][name]) for i in (0, 1))
      print(f"| {r['d']} | {name} | {g / rw:.0f} | {g / rc:.0f} | {rw:.3f} | {rc:.3f} |")
  print("\nnew acting loop, instrumented (seconds per round; best repeat):\n")
  print("| deals/round | calls | engine s | network s | sampling s | other s | "
        "learner step (batch 1024) s |")
  print("|---|---|---|---|---|---|---|")
  for r in rows:
    t, nc = r["parts"]
    print(f"| {r['d']} | {nc} | {t['engine']:.3f} | {t['network']:.3f} | {t['sampling']:.3f} | "
          f"{t['other']:.3f} | {r['update']:.3f} |")


if __name__ == "__main__":
  app.run(main)
