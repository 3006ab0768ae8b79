r"""Trains the self-play A2C bridge bidder with acting and learning in JAX (CPU, GPU or TPU).

The trainer of `ospiel_team.bridge.agents.jax_trainer`: the same network, reward and loss as
`examples/bridge_a2c.py`, with the auctions played by the pure-JAX auction
(`ospiel_team.bridge.jax_env`) inside one jitted function per round, so the whole round runs
on an accelerator; the device is chosen by --platform only. Its checkpoints are the slim
checkpoints of `examples/bridge_a2c.py`, in both directions:

  # continue the shipped long run on a GPU for 60 minutes, 8192 tables a round:
  python examples/bridge_jax_train.py --workdir /tmp/bridge_jax --platform gpu \
      --resume_from checkpoints/bridge/a2c_longer.npz --tables 8192 --max_minutes 60 \
      --export_checkpoint /tmp/bridge_jax/slim.npz
  # ... and go on from it on the CPU with the numpy engine:
  python examples/bridge_a2c.py --workdir /tmp/bridge_cpu --resume_from /tmp/bridge_jax/slim.npz
  # tiny run (tests):
  python examples/bridge_jax_train.py --workdir /tmp/t --rounds 2 --tables 16 --batch_size 32 \
      --hidden 16 --num_blocks 1 --platform cpu

Training deals: the shipped training set less the same --holdout deals as
`examples/bridge_a2c.py` (`a2c.split_deals`), each drawn under one of its 96 seat-rotation x
suit-permutation images (--augment). Outputs in --workdir: checkpoint.npz (slim, resumable by
both trainers; rerun the same command to resume), log.csv, model.npz (the network only).
"""

import os
from collections.abc import Sequence

from absl import app
from absl import flags
import jax

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents import a2c
from ospiel_team.bridge.agents import jax_trainer
from ospiel_team.bridge.agents import policy_net

FLAGS = flags.FLAGS
flags.DEFINE_string("workdir", "/tmp/bridge_jax", "Checkpoint / log folder (resumes from it).")
flags.DEFINE_string("resume_from", None, "Start from this a2c checkpoint (slim or full, e.g. "
                    "checkpoints/bridge/a2c_longer.npz) when --workdir has none.")
flags.DEFINE_string("export_checkpoint", None, "At the end, also write the slim checkpoint to "
                    "this path (resumable with examples/bridge_a2c.py --resume_from).")
flags.DEFINE_string("datasets", None, "Comma-separated .npz datasets (default: shipped).")
flags.DEFINE_integer("holdout", 200, "Deals held out of training (as examples/bridge_a2c.py).")
flags.DEFINE_integer("tables", 512, "Tables per round (even: each deal is bid at two tables).")
flags.DEFINE_integer("rounds", 100000, "Total rounds to reach (resumed rounds count).")
flags.DEFINE_float("max_minutes", 30.0, "Stop (with a checkpoint) after this many minutes.")
flags.DEFINE_float("learning_rate", 1e-4, "Adam learning rate (paper: 1e-4).")
flags.DEFINE_integer("seed", 0, "Random seed (network initialisation and self-play).")
flags.DEFINE_integer("batch_size", 1024, "Minibatch size of each Adam step.")
flags.DEFINE_integer("updates_per_round", 4, "Adam steps per round.")
flags.DEFINE_float("entropy_coef", 0.01, "Entropy bonus.")
flags.DEFINE_integer("hidden", 200, "Units per layer.")
flags.DEFINE_integer("num_blocks", 2, "Residual blocks (2 FC layers each).")
flags.DEFINE_bool("uncontested", False, "East-West may only pass (Yeh & Lin's setting).")
flags.DEFINE_bool("augment", True, "Draw each deal under a random one of its 96 symmetries.")
flags.DEFINE_integer("max_stored_calls", 64, "Calls per table stored for learning.")
flags.DEFINE_integer("checkpoint_every", 10, "Checkpoint every this many rounds.")
flags.DEFINE_enum("platform", "auto", ["auto", "cpu", "gpu", "tpu"],
                  "JAX device to train on (auto: JAX's default, the GPU when there is one).")
flags.DEFINE_bool("progress", True, "Show a progress bar.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  platform = None if FLAGS.platform == "auto" else FLAGS.platform
  try:  # user errors are one line (bugs keep their traceback)
    if platform == "cpu":
      jax.config.update("jax_platforms", "cpu")
    atomic_io.check_writable(FLAGS.workdir, folder=True, flag="--workdir")
    if FLAGS.resume_from and not os.path.isfile(FLAGS.resume_from):
      raise ValueError(f"--resume_from {FLAGS.resume_from!r} is not a file")
    if FLAGS.export_checkpoint:
      atomic_io.check_writable(FLAGS.export_checkpoint, flag="--export_checkpoint")
    if FLAGS.tables < 2 or FLAGS.tables % 2:
      raise ValueError(f"--tables {FLAGS.tables} must be even and >= 2 (two tables a deal)")
    for name in ("rounds", "batch_size", "hidden", "checkpoint_every", "max_stored_calls"):
      if getattr(FLAGS, name) < 1:
        raise ValueError(f"--{name} {getattr(FLAGS, name)} must be >= 1")
    if FLAGS.max_minutes <= 0:
      raise ValueError(f"--max_minutes {FLAGS.max_minutes} must be > 0")
    cfg = a2c.A2CConfig(
        hidden=FLAGS.hidden, num_blocks=FLAGS.num_blocks, learning_rate=FLAGS.learning_rate,
        entropy_coef=FLAGS.entropy_coef, entropy_coef_start=FLAGS.entropy_coef,
        deals_per_round=FLAGS.tables // 2, batch_size=FLAGS.batch_size,
        updates_per_round=FLAGS.updates_per_round, uncontested=FLAGS.uncontested,
        seed=FLAGS.seed)
    cfg.validate()
    options = jax_trainer.JaxTrainOptions(max_stored_calls=FLAGS.max_stored_calls,
                                          augment=FLAGS.augment, platform=platform)
    options.validate()
    jax_trainer.pick_device(platform)
    ds = dataset_lib.load_datasets(FLAGS.datasets)
    train_deals, _ = a2c.split_deals(ds.holders.shape[0], FLAGS.holdout)
    os.makedirs(FLAGS.workdir, exist_ok=True)
    trainer = jax_trainer.JaxA2CTrainer(cfg, ds, train_deals, workdir=FLAGS.workdir,
                                        resume_from=FLAGS.resume_from, options=options)
  except (ValueError, FileNotFoundError) as e:
    raise SystemExit(f"bridge_jax_train: error: {e}") from None
  print(f"device: {trainer.device}; training deals: {len(train_deals)}"
        f"{' (x96 symmetries)' if FLAGS.augment else ''}; resuming at round {trainer.round}")
  start_games, start_wall = trainer.games, trainer.wall
  trainer.train(FLAGS.rounds, checkpoint_every=FLAGS.checkpoint_every,
                progress=FLAGS.progress, max_seconds=FLAGS.max_minutes * 60)
  policy_net.save_model(os.path.join(FLAGS.workdir, "model.npz"), trainer.params, cfg,
                        extra={"rounds": trainer.round, "games": trainer.games,
                               "wall_s": trainer.wall, "trainer": "jax"})
  if FLAGS.export_checkpoint:
    trainer.save_checkpoint(FLAGS.export_checkpoint)
  games, secs = trainer.games - start_games, trainer.wall - start_wall
  print(f"rounds {trainer.round}, games {trainer.games}; this run: {games} games in "
        f"{secs:.1f} s of rounds ({games / max(secs, 1e-9):.0f} games/s, first-round "
        f"compilation included)")


if __name__ == "__main__":
  app.run(main)
