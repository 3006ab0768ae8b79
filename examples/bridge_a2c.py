r"""Trains a self-play A2C bridge bidder (JPS paper Sec. 7.2), optionally with JPSBid search.

Defaults = the recipe of the shipped baseline (docs/bridge.md): a short
behaviour-cloning warm start on the built-in natural bidder, then self-play A2C (lr 1e-4,
entropy 0.01). On the shared 2-core CPU this showed learning within half an hour: the held-out
eval column of log.csv (greedy model vs the natural bidder, IMPs/board) rose from -1.7 to about
+0.5 over 450k self-play games, and the model beat natural by +1.38 +- 0.22 IMPs/board on 1,600
held-out boards. Without the warm start (``--bc_teacher=``) contested self-play collapsed to
all-pass on this budget. Interrupt and rerun the same command to resume from the checkpoint.

  python examples/bridge_a2c.py --workdir /tmp/bridge_a2c --max_minutes 30
  # fine-tune with JPSBid on 5% of the games from a saved model:
  python examples/bridge_a2c.py --workdir /tmp/jps --init_model /tmp/bridge_a2c/model.npz \
      --search jps --search_fraction 0.05 --rounds 250
  # Yeh & Lin's uncontested setting (learns without a warm start):
  python examples/bridge_a2c.py --workdir /tmp/unc --uncontested --bc_teacher= \
      --learning_rate 3e-4
  # tiny run (tests):
  python examples/bridge_a2c.py --workdir /tmp/t --rounds 2 --deals_per_round 8 \
      --batch_size 32 --burn_in 16 --eval_every 2 --eval_boards 8 --holdout 16 \
      --bc_deals 20 --bc_steps 2

Outputs in --workdir: checkpoint.npz (resumable), log.csv (with every checkpoint),
learning_curve.png (drawn from the log at the end), model.npz (the network only, loadable with
`ospiel_team.bridge.agents.model_bidder.load_bidder(path)`).
"""

import glob
import io
import os
import resource
import shutil
from collections.abc import Sequence

from absl import app
from absl import flags
import numpy as np

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents import a2c
from ospiel_team.bridge.agents import behaviour_cloning as bc_lib
from ospiel_team.bridge.agents import policy_net

FLAGS = flags.FLAGS
flags.DEFINE_integer("seed", 0, "Random seed (network, deals, self-play).")
flags.DEFINE_bool("uncontested", False, "East-West may only pass (Yeh & Lin's setting).")
flags.DEFINE_string("workdir", "/tmp/bridge_a2c", "Checkpoint / log folder (resumes from it).")
flags.DEFINE_string("datasets", None, "Comma-separated .npz datasets or globs (default: shipped).")
flags.DEFINE_integer("holdout", 200, "Deals held out of training (when no --eval_dataset).")
flags.DEFINE_string("eval_dataset", None, "Held-out .npz for evaluation (its deals are removed "
                    "from the training data).")
flags.DEFINE_bool("augment", True, "Augment training deals by seat rotations and suit "
                  "permutations (x96, exact DDS tables).")
flags.DEFINE_float("refresh_minutes", 0.0, "Re-read --datasets globs this often (a dataset "
                   "being built); 0: never. Runs that refresh are not bit-reproducible.")
flags.DEFINE_integer("rounds", 100000, "Total rounds (each: deals_per_round deals x 2 tables).")
flags.DEFINE_float("max_minutes", 30.0, "Stop (with a checkpoint) after this many minutes.")
flags.DEFINE_integer("deals_per_round", 256, "Deals per round (2 tables each).")
flags.DEFINE_integer("batch_size", 1024, "Minibatch size.")
flags.DEFINE_integer("updates_per_round", 4, "Adam steps per round.")
flags.DEFINE_integer("buffer_size", 100000, "Replay buffer capacity (decisions).")
flags.DEFINE_integer("burn_in", 10000, "Decisions in the buffer before training starts.")
flags.DEFINE_float("learning_rate", 1e-4, "Adam learning rate (paper: 1e-4).")
flags.DEFINE_float("entropy_coef", 0.01, "Entropy bonus (after the schedule).")
flags.DEFINE_float("entropy_coef_start", 0.01, "Entropy bonus at round 0, decayed linearly to "
                   "--entropy_coef over --entropy_decay_rounds (keeps early self-play from "
                   "collapsing to all-pass).")
flags.DEFINE_integer("entropy_decay_rounds", 0, "Rounds of the entropy schedule (0: none).")
flags.DEFINE_float("ratio_clip", 1.0, "Importance-ratio clip.")
flags.DEFINE_integer("hidden", 200, "Units per layer.")
flags.DEFINE_integer("num_blocks", 2, "Residual blocks (2 FC layers each).")
flags.DEFINE_integer("eval_every", 20, "Evaluate vs natural every this many rounds (0: never).")
flags.DEFINE_integer("eval_boards", 200, "Boards per evaluation (<= holdout).")
flags.DEFINE_integer("snapshot_every", 0, "Save the model as WORKDIR/snapshots/round_R.npz "
                     "every this many rounds (0: never); candidates for model selection.")
flags.DEFINE_integer("checkpoint_every", 10, "Checkpoint every this many rounds.")
flags.DEFINE_string("init_model", None, "Start from this model/checkpoint .npz (fine-tuning).")
flags.DEFINE_enum("search", "none", ["none", "jps", "1search"],
                  "JPSBid joint search (jps), its 1-search ablation, or plain A2C (none).")
flags.DEFINE_float("search_fraction", 0.05, "Fraction p of games that run the search.")
flags.DEFINE_integer("search_candidates", 5, "Candidate calls per searching player (top-k).")
flags.DEFINE_integer("search_rollouts", 5, "Rollouts per stage (paper: 5 x 5).")
flags.DEFINE_bool("search_fresh_returns", True, "Store fresh-rollout returns of the chosen "
                  "change (unbiased) instead of the search's max-biased estimates.")
flags.DEFINE_bool("progress", True, "Show a progress bar.")
flags.DEFINE_bool("overlap_learning", False, "Run the learner's Adam steps in a thread while "
                  "the round's games are played (faster; one round staler; no search).")
flags.DEFINE_string("resume_from", None, "Start from this training checkpoint (e.g. a slim "
                    "one committed to the repository) when --workdir has none; its replay "
                    "buffer, if left out, is refilled before learning resumes.")
flags.DEFINE_string("export_checkpoint", None, "At the end, also write a slim checkpoint "
                    "(no replay buffer; resumable with --resume_from) to this path.")
flags.DEFINE_string("bc_teacher", "natural", "Warm start: behaviour-clone this bidder "
                    "(e.g. natural) before self-play (not in the JPS paper; see "
                    "ospiel_team/bridge/agents/behaviour_cloning.py).")
flags.DEFINE_string("reference_dir", None, "Folder of the JPS authors' models, for "
                    "--bc_teacher jps_paper_* (distillation of their policy; research use "
                    "under their CC BY-NC 4.0 license).")
flags.DEFINE_integer("bc_deals", 20000, "Deals of teacher auctions for behaviour cloning.")
flags.DEFINE_integer("bc_steps", 1500, "Behaviour-cloning Adam steps.")


def expand_datasets(spec):
  if not spec:
    return None
  paths = []
  for part in spec.split(","):
    paths.extend(sorted(glob.glob(part)))  # a glob may match nothing yet (refresh)
  if not paths:
    raise ValueError(f"--datasets {spec!r} matches no file")
  return paths


def plot_learning_curve(rows: Sequence[dict], path: str, title: str = "bridge A2C") -> None:
  """Eval IMPs/board vs games (with stderr bars), entropy and auction length of the log rows
  (`A2CTrainer.log_rows`); written atomically as a PNG."""
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
  ev = [r for r in rows if r.get("eval_imps_vs_natural", "") != ""]
  if ev:
    axes[0].errorbar([r["games"] for r in ev], [r["eval_imps_vs_natural"] for r in ev],
                     yerr=[r["eval_stderr"] for r in ev], marker="o", capsize=2)
  axes[0].axhline(0, color="gray", lw=0.5)
  axes[0].set(xlabel="self-play games", ylabel="IMPs/board vs natural (held-out)", title=title)
  tr = [r for r in rows if r.get("entropy", "") != ""]
  axes[1].plot([r["games"] for r in tr], [r["entropy"] for r in tr])
  axes[1].set(xlabel="self-play games", ylabel="policy entropy (nats)")
  axes[2].plot([r["games"] for r in rows], [r["mean_auction_len"] for r in rows])
  axes[2].set(xlabel="self-play games", ylabel="mean auction length (calls)")
  fig.tight_layout()
  png = io.BytesIO()
  fig.savefig(png, format="png", dpi=90)
  plt.close(fig)
  atomic_io.write_bytes(path, png.getvalue())


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:  # user errors found before any work are one line (bugs keep their traceback)
    atomic_io.check_writable(FLAGS.workdir, folder=True, flag="--workdir")
    eval_ds = (dataset_lib.load_dataset(FLAGS.eval_dataset) if FLAGS.eval_dataset else None)
    expand_datasets(FLAGS.datasets)
    if FLAGS.resume_from and not os.path.isfile(FLAGS.resume_from):
      raise ValueError(f"--resume_from {FLAGS.resume_from!r} is not a file")
    if FLAGS.resume_from and FLAGS.init_model:
      raise ValueError("give --resume_from or --init_model, not both")
    if FLAGS.export_checkpoint:
      atomic_io.check_writable(FLAGS.export_checkpoint, flag="--export_checkpoint")
  except (ValueError, FileNotFoundError) as e:
    raise SystemExit(f"bridge_a2c: error: {e}") from None
  cfg = a2c.A2CConfig(
      hidden=FLAGS.hidden, num_blocks=FLAGS.num_blocks, learning_rate=FLAGS.learning_rate,
      entropy_coef=FLAGS.entropy_coef, entropy_coef_start=FLAGS.entropy_coef_start,
      entropy_decay_rounds=FLAGS.entropy_decay_rounds, ratio_clip=FLAGS.ratio_clip,
      deals_per_round=FLAGS.deals_per_round, batch_size=FLAGS.batch_size,
      updates_per_round=FLAGS.updates_per_round, buffer_size=FLAGS.buffer_size,
      burn_in=FLAGS.burn_in, uncontested=FLAGS.uncontested, seed=FLAGS.seed,
      overlap_learning=FLAGS.overlap_learning)

  def training_data():
    """(augmented training dataset, held-out dataset, number of base training deals)."""
    ds = dataset_lib.load_datasets(expand_datasets(FLAGS.datasets))
    h, t = ds.holders, ds.dd_tricks
    if eval_ds is not None:
      held = eval_ds
      h, t = dataset_lib.remove_deals(h, t, eval_ds.holders)
    else:
      tr, ev = a2c.split_deals(h.shape[0], FLAGS.holdout)
      held = dataset_lib.BridgeDataset(h[ev], t[ev])
      h, t = h[tr], t[tr]
    n_base = h.shape[0]
    if FLAGS.augment:
      h, t = dataset_lib.augment_deals(h, t)
    return dataset_lib.BridgeDataset(h, t), held, n_base

  train_ds, held, n_base = training_data()
  ckpt = os.path.join(FLAGS.workdir, "checkpoint.npz")
  if FLAGS.resume_from and not os.path.exists(ckpt):
    os.makedirs(FLAGS.workdir, exist_ok=True)
    shutil.copyfile(FLAGS.resume_from, ckpt)
  trainer = a2c.A2CTrainer(cfg, train_ds, None, held, workdir=FLAGS.workdir,
                           init_params_from=FLAGS.init_model)
  state = {"n_base": n_base}

  def refresh(tr):
    new_ds, _, nb = training_data()
    if nb != state["n_base"]:
      print(f"\nrefresh: {nb} base training deals (was {state['n_base']})")
      state["n_base"] = nb
      tr.set_training_data(new_ds)
  if (FLAGS.bc_teacher and trainer.round == 0 and FLAGS.init_model is None
      and not FLAGS.resume_from):
    from ospiel_team.bridge.agents import bidders as bidders_lib
    rng = np.random.default_rng(FLAGS.seed + 1000)
    teacher = bidders_lib.make_bidder(FLAGS.bc_teacher, reference_dir=FLAGS.reference_dir)
    obs, calls = bc_lib.collect_teacher_states(teacher, train_ds, rng, FLAGS.bc_deals,
                                               uncontested=FLAGS.uncontested)
    trainer.params, acc = bc_lib.behaviour_cloning(trainer.net, trainer.params, obs, calls,
                                                   FLAGS.bc_steps, seed=FLAGS.seed,
                                                   progress=FLAGS.progress)
    trainer.opt_state = trainer.optimizer.init(trainer.params)
    print(f"behaviour cloning of {FLAGS.bc_teacher}: {len(calls)} states, "
          f"greedy agreement {acc:.3f}")
  if FLAGS.search != "none":
    from ospiel_team.bridge.agents import jps_bid
    trainer.search = jps_bid.JPSBidSearch(
        fraction=FLAGS.search_fraction, depth=3 if FLAGS.search == "jps" else 1,
        candidates=FLAGS.search_candidates, rollouts=FLAGS.search_rollouts,
        fresh_returns=FLAGS.search_fresh_returns)
  print(f"training deals: {n_base} (x{train_ds.holders.shape[0] // max(n_base, 1)} by "
        f"augmentation), held out: {held.holders.shape[0]}; resuming at round {trainer.round}")
  trainer.train(FLAGS.rounds, eval_every=FLAGS.eval_every, eval_boards=FLAGS.eval_boards,
                checkpoint_every=FLAGS.checkpoint_every, progress=FLAGS.progress,
                max_seconds=FLAGS.max_minutes * 60,
                refresh=refresh if FLAGS.refresh_minutes > 0 else None,
                refresh_seconds=FLAGS.refresh_minutes * 60,
                snapshot_every=FLAGS.snapshot_every)
  policy_net.save_model(os.path.join(FLAGS.workdir, "model.npz"), trainer.params, cfg,
                        extra={"rounds": trainer.round, "games": trainer.games,
                               "wall_s": trainer.wall, "total_wall_s": trainer.total_wall,
                               "search": FLAGS.search})
  plot_learning_curve(trainer.log_rows, os.path.join(FLAGS.workdir, "learning_curve.png"))
  if FLAGS.export_checkpoint:
    trainer.save_checkpoint(FLAGS.export_checkpoint, include_buffer=False)
  last = [r for r in trainer.log_rows if r.get("eval_imps_vs_natural", "") != ""]
  tp = trainer.throughput()
  ru = resource.getrusage(resource.RUSAGE_SELF)
  print(f"CPU seconds of this process (all threads, this invocation): "
        f"{ru.ru_utime + ru.ru_stime:.0f}")
  print(f"rounds {trainer.round}, games {trainer.games}, "
        f"{tp['games_per_s_selfplay']:.0f} games/s in self-play + learning, "
        f"{tp['games_per_s_wall']:.0f} games/s wall-clock incl. evaluation and checkpoints; "
        + (f"last eval vs natural {last[-1]['eval_imps_vs_natural']:+.3f} ± "
           f"{last[-1]['eval_stderr']:.3f} IMPs/b" if last else "no eval"))


if __name__ == "__main__":
  app.run(main)
