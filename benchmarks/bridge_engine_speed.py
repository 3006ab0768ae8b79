r"""Speed of the batched bridge-auction engine (calls per second), with references.

Measures, in one run on this machine:

* ours: `BiddingEngine` with B tables; each step computes the 267-bit observations of the seats
  to call, reads their legal calls from them, draws a uniformly random legal call and applies
  it. Calls are counted only at unfinished tables; B tables run until all auctions end.
* pgx 2.x `bridge_bidding` (JAX, jit + vmap over B environments, random legal actions), if
  pgx is installed (``pip install pgx``); its DDS lookup table is pgx's own 100-deal sample
  table (`pgx.bridge_bidding._load_sample_hash`), since the real tables are downloads.
  Compilation is excluded. Steps are counted only at non-terminated environments.
* OpenSpiel's C++ `bridge(use_double_dummy_result=false)` and our pyspiel game
  `bridge_bidding`, one state at a time in a Python loop (legal actions, observation tensor,
  random legal call), for reference.

Each figure is the best of `--repeats` runs (the machine is shared).

  python benchmarks/bridge_engine_speed.py --batch_sizes=1024,4096 --repeats=5
"""

import os
import sys
import tempfile
import time

import numpy as np
import pyspiel
from absl import app
from absl import flags

import ospiel_team  # noqa: F401
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import rule_based

FLAGS = flags.FLAGS
flags.DEFINE_list("batch_sizes", ["1024", "4096"], "Engine batch sizes B.")
flags.DEFINE_integer("repeats", 5, "Repeats per measurement (the best is reported).")
flags.DEFINE_integer("rounds", 4, "Auction rounds (resets of all B tables) per repeat.")
flags.DEFINE_integer("loop_calls", 3000, "Calls per repeat for the one-state Python loops.")
flags.DEFINE_bool("pgx", True, "Also measure pgx's bridge_bidding if pgx is installed.")


def bench_ours(ds, batch: int, repeats: int, rounds: int) -> float:
  eng = engine_lib.BiddingEngine(ds)
  rng = np.random.default_rng(0)
  best = (0.0, 0.0)
  for _ in range(repeats):
    calls, table_steps = 0, 0
    elapsed = 0.0
    for _ in range(rounds):
      eng.reset_random(rng, batch)
      t0 = time.perf_counter()
      while not eng.done.all():
        obs = eng.observation()
        legal = obs[:, 229:] > 0.5
        legal[eng.done, 0] = True  # finished tables: any call, ignored by step
        calls += int((~eng.done).sum())
        table_steps += batch
        eng.step(rule_based.sample_legal(legal, rng.random(batch)))
      elapsed += time.perf_counter() - t0
    best = max(best, (calls / elapsed, table_steps / elapsed))
  return best


def bench_ours_continuous(ds, batch: int, repeats: int, steps: int = 100) -> float:
  """Calls/s with finished tables restarted in place each step (`reset_tables`)."""
  eng = engine_lib.BiddingEngine(ds)
  rng = np.random.default_rng(0)
  eng.reset_random(rng, batch)
  best = 0.0
  for _ in range(repeats):
    calls = 0
    t0 = time.perf_counter()
    for _ in range(steps):
      obs = eng.observation()
      calls += batch
      eng.step(rule_based.sample_legal(obs[:, 229:] > 0.5, rng.random(batch)))
      done = np.flatnonzero(eng.done)
      if done.size:
        eng.ns_score()  # read the finished tables' scores, as a learner would
        eng.reset_tables(done, rng.integers(0, eng.num_deals, done.size),
                         rng.integers(0, 4, done.size), rng.integers(0, 4, done.size))
    best = max(best, calls / (time.perf_counter() - t0))
  return best


def bench_pgx(batch: int, repeats: int, rounds: int):
  """Steps/s of pgx bridge_bidding, or (None, reason)."""
  try:
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx import bridge_bidding as pgx_bb
  except Exception as e:
    return None, f"pgx not importable ({type(e).__name__}: {e})"
  with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "dds_sample.npy")
    keys, values = pgx_bb._load_sample_hash()
    np.save(path, np.stack([np.asarray(keys), np.asarray(values)]))
    stderr = sys.stderr
    sys.stderr = open(os.devnull, "w")
    try:
      env = pgx_bb.BridgeBidding(path)
    finally:
      sys.stderr.close()
      sys.stderr = stderr
  init = jax.jit(jax.vmap(env.init))
  step = jax.jit(jax.vmap(env.step))

  @jax.jit
  def act(key, mask):
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf), axis=-1)

  key = jax.random.PRNGKey(0)

  def run_round(key):
    key, k1 = jax.random.split(key)
    state = init(jax.random.split(k1, batch))
    steps, env_steps = 0, 0
    while not bool(state.terminated.all()):
      key, k2 = jax.random.split(key)
      mask = state.legal_action_mask | state.terminated[:, None]
      steps += int((~state.terminated).sum())
      env_steps += batch
      state = step(state, act(k2, mask))
    return key, steps, env_steps

  key, _, _ = run_round(key)  # compile
  best = (0.0, 0.0)
  for _ in range(repeats):
    steps, env_steps, elapsed = 0, 0, 0.0
    for _ in range(rounds):
      t0 = time.perf_counter()
      key, n, m = run_round(key)
      elapsed += time.perf_counter() - t0
      steps += n
      env_steps += m
    best = max(best, (steps / elapsed, env_steps / elapsed))
  return best, f"pgx {pgx.__version__}, jax {jax.__version__}, backend {jax.default_backend()}"


def bench_loop(make_state, n_calls: int, repeats: int, openspiel_bridge: bool) -> float:
  """Calls/s of one pyspiel state at a time: legal actions, observation, random call.

  For OpenSpiel's `bridge` (no DDS) the auction ends when card actions (< 52) appear.
  """
  rng = np.random.default_rng(0)
  best = 0.0
  for _ in range(repeats):
    calls, elapsed = 0, 0.0
    while calls < n_calls:
      s = make_state(rng)
      t0 = time.perf_counter()
      while not s.is_terminal():
        legal = s.legal_actions()
        if openspiel_bridge and legal[0] < 52:
          break  # auction over, the play phase begins
        s.observation_tensor()
        s.apply_action(legal[rng.integers(len(legal))])
        calls += 1
      elapsed += time.perf_counter() - t0
    best = max(best, calls / elapsed)
  return best


def main(argv):
  del argv
  ds = dataset_lib.load_dataset()
  print(f"# bridge auction engine speed; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{os.cpu_count()} CPUs; dataset {len(ds)} deals")
  print("calls/s = calls made at unfinished tables per second; table-steps/s also counts the "
        "finished tables carried along until the whole batch is done.")
  print(f"| implementation | batch | calls/s (best of {FLAGS.repeats}) | table-steps/s |")
  print("|---|---|---|---|")
  for b in FLAGS.batch_sizes:
    b = int(b)
    rate, steps = bench_ours(ds, b, FLAGS.repeats, FLAGS.rounds)
    print(f"| ours: numpy BiddingEngine (obs + legal + random call + step) | {b} | "
          f"{rate:,.0f} | {steps:,.0f} |", flush=True)
  for b in FLAGS.batch_sizes:
    b = int(b)
    rate = bench_ours_continuous(ds, b, FLAGS.repeats)
    print(f"| ours, continuous: finished tables restarted by reset_tables | {b} | "
          f"{rate:,.0f} | {rate:,.0f} |", flush=True)
  if FLAGS.pgx:
    for b in FLAGS.batch_sizes:
      b = int(b)
      rates, info = bench_pgx(b, FLAGS.repeats, FLAGS.rounds)
      if rates is None:
        print(f"| pgx bridge_bidding | {b} | not measured: {info} | |", flush=True)
        break
      print(f"| pgx bridge_bidding ({info}) | {b} | {rates[0]:,.0f} | {rates[1]:,.0f} |",
            flush=True)

  os_game = pyspiel.load_game("bridge(use_double_dummy_result=false)")

  def os_state(rng):
    s = os_game.new_initial_state()
    for a in deal_lib.holders_to_openspiel_actions(ds.holders[rng.integers(len(ds))]):
      s.apply_action(a)
    return s

  our_game = pyspiel.load_game("bridge_bidding")

  def our_state(rng):
    s = our_game.new_initial_state()
    s.apply_action(int(rng.integers(len(ds))))
    return s

  rate = bench_loop(os_state, FLAGS.loop_calls, FLAGS.repeats, True)
  print(f"| OpenSpiel C++ bridge, Python loop over one state | 1 | {rate:,.0f} | |", flush=True)
  rate = bench_loop(our_state, FLAGS.loop_calls, FLAGS.repeats, False)
  print(f"| our pyspiel bridge_bidding, Python loop over one state | 1 | {rate:,.0f} | |",
        flush=True)


if __name__ == "__main__":
  app.run(main)
