r"""Self-play acting speed: the numpy engine (`a2c.play_selfplay`) against the JAX auction.

  python benchmarks/bridge_jax_env_speed.py --deals 64,256,1024 --repeats 3 --out /tmp/s.json

For each number of deals D per round (2 D games: each deal at two tables), with one fixed
network (the shipped model `a2c_long`, hidden 200, 2 blocks),
both loops play a round of self-play, sampling calls from the network and keeping every
decision's observation, call and log-probability (what training needs):

* numpy: `a2c.play_selfplay` on `engine.BiddingEngine` with `policy_net.PolicyFn` (uint8
  observations, the trainer's acting loop);
* JAX: the jitted `jax_trainer.make_selfplay_fn` (the auction of `ospiel_team.bridge.jax_env`
  stepped in a `jax.lax.while_loop`, network and sampling inside the same program), on
  ``--platform``.

Both draw deals uniformly from the shipped training set (no augmentation). Compilation is done
before timing; numpy and JAX rounds alternate so that both see the same load of the machine.
Reports the best of ``--repeats`` games per wall second and per CPU second of this process
(`getrusage`, all threads), the mean auction length of each loop (the same game, so close), and
the load average before and after; writes JSON to ``--out``.
"""

import json
import os
import resource
import time

import jax
import numpy as np
from absl import app
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_list("deals", ["64", "256", "1024"], "Deals per round (2 games each).")
flags.DEFINE_integer("repeats", 3, "Timed rounds per loop and size (best reported).")
flags.DEFINE_enum("platform", "cpu", ["cpu", "gpu", "tpu"], "JAX device of the JAX loop.")
flags.DEFINE_string("out", None, "Write the results as JSON here.")


def _cpu_seconds() -> float:
  ru = resource.getrusage(resource.RUSAGE_SELF)
  return ru.ru_utime + ru.ru_stime


def _timed(fn):
  t0, c0 = time.perf_counter(), _cpu_seconds()
  out = fn()
  return out, time.perf_counter() - t0, _cpu_seconds() - c0


def _check_flags() -> tuple[list[int], object]:
  """(deals per round, JAX device) of the flags; one line (SystemExit) for a bad flag."""
  try:
    deals_list = [int(d) for d in FLAGS.deals]
    if any(d < 1 for d in deals_list):
      raise ValueError(f"--deals {FLAGS.deals} must be positive integers")
    if FLAGS.repeats < 1:
      raise ValueError(f"--repeats {FLAGS.repeats} must be >= 1")
    if FLAGS.out:
      from ospiel_team import atomic_io
      atomic_io.check_writable(FLAGS.out, flag="--out")
    if FLAGS.platform == "cpu":
      jax.config.update("jax_platforms", "cpu")
    from ospiel_team.bridge.agents.training import jax_trainer
    return deals_list, jax_trainer.pick_device(FLAGS.platform)
  except ValueError as e:
    raise SystemExit(f"bridge_jax_env_speed: error: {e}") from None


class _Loops:
  """Both self-play loops on the shipped training deals with the network `a2c_long`."""

  def __init__(self, device):
    from ospiel_team.bridge import dataset as dataset_lib
    from ospiel_team.bridge import engine as engine_lib
    from ospiel_team.bridge.agents.bidders import model_bidder
    from ospiel_team.bridge.agents.bidders import policy_net
    self.net, params, _ = policy_net.load_model(model_bidder.model_path("a2c_long"))
    ds = dataset_lib.load_dataset()
    self.pool = np.arange(ds.holders.shape[0])
    self.eng = engine_lib.BiddingEngine(ds)
    self.policy = policy_net.PolicyFn(self.net, params, fine_padding=True)
    self.rng = np.random.default_rng(0)
    self.dparams = jax.device_put(params, device)
    self.pool_h = jax.device_put(np.asarray(ds.holders, np.int32), device)
    self.pool_dd = jax.device_put(np.asarray(ds.dd_tricks, np.int32), device)

  def measure(self, d: int, repeats: int) -> dict:
    """The row of `d` deals per round: best games per wall / CPU second of each loop."""
    from ospiel_team.bridge.agents.training import a2c
    from ospiel_team.bridge.agents.training import jax_trainer
    play = jax.jit(jax_trainer.make_selfplay_fn(self.net, d, augment=False))

    def run_jax(i):
      out = play(self.dparams, jax.random.PRNGKey(i), self.pool_h, self.pool_dd)
      return jax.device_get((out["num_calls"], out["keep"].sum()))

    def run_numpy():
      ro = a2c.play_selfplay(self.policy, self.eng, self.rng, self.pool, d, obs_dtype=np.uint8)
      return ro.num_calls, len(ro.actions)

    _, compile_s, _ = _timed(lambda: run_jax(10_000))  # compilation + one round
    run_numpy()  # the PolicyFn's padded shapes
    best = {"numpy": [np.inf, np.inf], "jax": [np.inf, np.inf]}
    lens = {"numpy": [], "jax": []}
    for r in range(repeats):
      for name, fn in (("numpy", run_numpy), ("jax", lambda r=r: run_jax(r))):
        (num_calls, _), wall, cpu = _timed(fn)
        best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
        lens[name].append(float(np.mean(num_calls)))
    games = 2 * d
    row = {"deals": d, "games": games, "jax_compile_s": round(compile_s, 2)}
    for name in ("numpy", "jax"):
      row[f"{name}_games_per_s"] = round(games / best[name][0], 1)
      row[f"{name}_games_per_cpu_s"] = round(games / max(best[name][1], 1e-9), 1)
      row[f"{name}_mean_auction_len"] = round(float(np.mean(lens[name])), 2)
    row["jax_over_numpy_wall"] = round(row["jax_games_per_s"] / row["numpy_games_per_s"], 3)
    return row


def _print_table(result: dict) -> None:
  print("| deals | games | numpy games/s | JAX games/s | JAX / numpy | numpy games/CPU s | "
        "JAX games/CPU s | mean length numpy / JAX |")
  print("|---|---|---|---|---|---|---|---|")
  for r in result["rows"]:
    print(f"| {r['deals']} | {r['games']} | {r['numpy_games_per_s']} | {r['jax_games_per_s']} "
          f"| {r['jax_over_numpy_wall']} | {r['numpy_games_per_cpu_s']} | "
          f"{r['jax_games_per_cpu_s']} | {r['numpy_mean_auction_len']} / "
          f"{r['jax_mean_auction_len']} |")
  print(f"load average before {result['load_avg_before']}, after {result['load_avg_after']} "
        f"({result['cpu_count']} CPUs)")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  deals_list, device = _check_flags()
  loops = _Loops(device)
  load_before = os.getloadavg()
  rows = []
  for d in deals_list:
    rows.append(loops.measure(d, FLAGS.repeats))
    print(rows[-1], flush=True)
  result = {"device": str(device), "platform": FLAGS.platform, "repeats": FLAGS.repeats,
            "model": "a2c_long", "load_avg_before": [round(x, 2) for x in load_before],
            "load_avg_after": [round(x, 2) for x in os.getloadavg()],
            "cpu_count": os.cpu_count(), "rows": rows}
  _print_table(result)
  if FLAGS.out:
    from ospiel_team import atomic_io
    atomic_io.write_text(FLAGS.out, json.dumps(result, indent=1) + "\n")

if __name__ == "__main__":
  app.run(main)
