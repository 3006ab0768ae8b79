r"""Trains a self-play A2C bridge bidder (`ospiel-team-train-bridge`), JPS paper Sec. 7.2.

  ospiel-team-train-bridge --workdir RUN --max_minutes 30
  # fine-tune with JPSBid on 5% of the games from a saved model:
  ospiel-team-train-bridge --workdir RUN_JPS --init_model RUN/model.npz \
      --search jps --search_fraction 0.05 --rounds 250
  # PPO with fictitious self-play (a quarter of the rounds against the last 10 snapshots),
  # from the shipped model, for 60 CPU minutes:
  ospiel-team-train-bridge --workdir RUN \
      --init_model ospiel_team/bridge/models/a2c_longer.npz --algorithm ppo \
      --opponent_pool_size 10 --pool_probability 0.25 --max_cpu_minutes 60
  # Yeh & Lin's uncontested setting (learns without a warm start):
  ospiel-team-train-bridge --workdir RUN --uncontested --bc_teacher= --learning_rate 3e-4
  # acting and learning in JAX on a GPU, from a committed checkpoint, 8192 tables a round:
  ospiel-team-train-bridge --engine jax --platform gpu --workdir RUN \
      --resume_from experiments/bridge_a2c_training/checkpoints/a2c_longer.npz \
      --deals_per_round 4096 \
      --max_minutes 60 --export_checkpoint RUN/slim.npz

Engines: ``numpy`` (default; `ospiel_team.bridge.agents.training.a2c`: the batched numpy auction
engine, a replay buffer, optional JPSBid search, evaluation against the natural bidder; also
``--algorithm ppo``, `ospiel_team.bridge.agents.training.ppo`, and fictitious self-play against a
pool of past snapshots, `ospiel_team.bridge.agents.training.opponent_pool`) and ``jax``
(`ospiel_team.bridge.agents.training.jax_trainer`: one jitted function per round plays the pure-JAX
auction and takes the Adam steps, on the device --platform names). Both write the same
checkpoints, so a run can move between them with --resume_from. The hyper-parameter flags are
the fields of `ospiel_team.bridge.agents.training.a2c_config.A2CConfig` with its defaults (the JAX
options those of `jax_trainer.JaxTrainOptions`).

By default (--bc_teacher natural) a fresh run is warm-started by behaviour cloning of the
built-in natural bidder, then trained by self-play A2C (not in the JPS paper; without it
contested self-play collapsed to all-pass on a CPU budget). Interrupt and rerun the same
command to resume from ``WORKDIR/checkpoint.npz``. Outputs in --workdir: checkpoint.npz, log.csv
(with every checkpoint), model.npz (the network, loadable with
`ospiel_team.bridge.agents.bidders.model_bidder.load_bidder(path)`), learning_curve.png.
"""

from __future__ import annotations

import dataclasses
import glob
import inspect
import os
import resource
import sys
from collections.abc import Sequence

import numpy as np
from absl import flags

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.training import jax_trainer
from ospiel_team.bridge.agents.training import jps_bid
from ospiel_team.bridge.agents.training import round_trainer
from ospiel_team.bridge.agents.training import search_buffer
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.cli import _flags
from ospiel_team.cli import config_flags
from ospiel_team.errors import UserError

PROGRAM = "train_bridge"
_NUMPY_ONLY = ("eval_every", "search", "refresh_minutes", "init_model")
# A2CConfig fields the JAX trainer does not implement (PPO and the opponent pool).
_NUMPY_ONLY_CONFIG = ("algorithm", "clip_eps", "gae_lambda", "epochs_per_batch",
                      "minibatch_size", "opponent_pool_size", "pool_snapshot_every",
                      "pool_probability")


def define_flags(fv: flags.FlagValues) -> None:
  """Defines the command's flags on `fv`: the configuration's fields, then the run's own.

  The hyper-parameter flags are the fields of `A2CConfig` and `jax_trainer.JaxTrainOptions`
  (`config_flags`); the search flags' defaults are `jps_bid.JPSBidSearch`'s.
  """
  config_flags.define_config_flags(A2CConfig, flag_values=fv, module_name=__name__)
  config_flags.define_config_flags(jax_trainer.JaxTrainOptions, flag_values=fv,
                                   module_name=__name__)
  _define_run_flags(fv)
  search = jps_bid.JPSBidSearch.DEFAULTS
  fresh = inspect.signature(jps_bid.JPSBidSearch).parameters["fresh_returns"].default
  flags.DEFINE_enum("search", "none", ["none", "jps", "1search"],
                    "JPSBid joint search (jps), its 1-search ablation, or plain A2C (none).",
                    flag_values=fv)
  flags.DEFINE_float("search_fraction", search.fraction, "Fraction p of games that run the "
                     "search.", flag_values=fv)
  flags.DEFINE_integer("search_candidates", search.candidates, "Candidate calls per searching "
                       "player (top-k).", flag_values=fv)
  flags.DEFINE_integer("search_rollouts", search.rollouts, "Rollouts per stage (paper: 5 x 5).",
                       flag_values=fv)
  flags.DEFINE_bool("search_fresh_returns", fresh, "Store fresh-rollout returns of the chosen "
                    "change (unbiased) instead of the search's max-biased estimates.",
                    flag_values=fv)
  flags.DEFINE_string("bc_teacher", "natural", "Warm start of a fresh run: behaviour-clone this "
                      "bidder first (empty: none).", flag_values=fv)
  flags.DEFINE_string("reference_dir", None, "Folder of the JPS authors' models, for "
                      "--bc_teacher jps_paper_* (research use under their CC BY-NC 4.0 license).",
                      flag_values=fv)
  flags.DEFINE_integer("bc_deals", 20000, "Deals of teacher auctions for behaviour cloning.",
                       flag_values=fv)
  flags.DEFINE_integer("bc_steps", 1500, "Behaviour-cloning Adam steps.", flag_values=fv)
  flags.DEFINE_enum("bc_targets", "calls", ["calls", "probabilities"], "What behaviour cloning "
                    "imitates: the teacher's calls, or (a network teacher of ours) its whole "
                    "distribution over the calls (distillation).", flag_values=fv)


def _define_run_flags(fv: flags.FlagValues) -> None:
  """The run's flags: engine, data, budget, periods, starting point and outputs."""
  flags.DEFINE_enum("engine", "numpy", ["numpy", "jax"], "Auction engine and trainer: numpy "
                    "(replay buffer, search, evaluation) or jax (one jitted round).",
                    flag_values=fv)
  flags.DEFINE_string("workdir", "/tmp/bridge_a2c", "Checkpoint / log folder (resumes from it).",
                      flag_values=fv)
  flags.DEFINE_string("datasets", None, "Comma-separated .npz datasets or globs (default: "
                      "shipped).", flag_values=fv)
  flags.DEFINE_integer("holdout", 200, "Deals held out of training (when no --eval_dataset).",
                       lower_bound=0, flag_values=fv)
  flags.DEFINE_string("eval_dataset", None, "Held-out .npz for evaluation (its deals are "
                      "removed from the training data).", flag_values=fv)
  flags.DEFINE_float("refresh_minutes", 0.0, "Re-read --datasets globs this often (a dataset "
                     "being built); 0: never. Runs that refresh are not bit-reproducible.",
                     flag_values=fv)
  flags.DEFINE_integer("rounds", 100000, "Total rounds (resumed rounds count).", lower_bound=1,
                       flag_values=fv)
  flags.DEFINE_float("max_minutes", 30.0, "Stop (with a checkpoint) after this many minutes.",
                     flag_values=fv)
  flags.DEFINE_float("max_cpu_minutes", 0.0, "Also stop (with a checkpoint) once the run's "
                     "training loop has used this many CPU minutes (all threads, counted over "
                     "resumes; 0: no CPU budget).", lower_bound=0.0, flag_values=fv)
  flags.DEFINE_integer("eval_every", 20, "Evaluate vs natural every this many rounds (0: never).",
                       lower_bound=0, flag_values=fv)
  flags.DEFINE_integer("eval_boards", 200, "Boards per evaluation (<= holdout).", lower_bound=1,
                       flag_values=fv)
  flags.DEFINE_integer("snapshot_every", 0, "Save the model as WORKDIR/snapshots/round_R.npz "
                       "every this many rounds (0: never).", lower_bound=0, flag_values=fv)
  flags.DEFINE_integer("checkpoint_every", 10, "Checkpoint every this many rounds.",
                       lower_bound=1, flag_values=fv)
  flags.DEFINE_string("init_model", None, "Start from this model/checkpoint .npz (fine-tuning).",
                      flag_values=fv)
  flags.DEFINE_bool("progress", True, "Show a progress bar.", flag_values=fv)
  flags.DEFINE_string("resume_from", None, "Start from this training checkpoint (e.g. a slim "
                      "one committed to the repository) when --workdir has none.", flag_values=fv)
  flags.DEFINE_string("export_checkpoint", None, "At the end, also write a slim checkpoint "
                      "(no replay buffer; resumable with --resume_from) to this path.",
                      flag_values=fv)


# The run's numeric flags beyond the configurations' fields, checked by the same rules
# (`checks`): finite, range, integer-ness.
_RUN_FLAG_RULES: dict[str, checks.Rule] = {
    "holdout": checks.Int(minimum=0),
    "refresh_minutes": checks.Real(minimum=0),
    "rounds": checks.Int(minimum=1),
    "max_minutes": checks.Real(above=0),
    "max_cpu_minutes": checks.Real(minimum=0),
    "eval_every": checks.Int(minimum=0),
    "eval_boards": checks.Int(minimum=1),
    "snapshot_every": checks.Int(minimum=0),
    "checkpoint_every": checks.Int(minimum=1),
    "bc_deals": checks.Int(minimum=1),
    "bc_steps": checks.Int(minimum=0),
}


def expand_datasets(spec: str | None) -> list[str] | None:
  """The files of a comma-separated list of paths and globs (None: the shipped dataset).

  Raises:
    UserError: when nothing matches.
  """
  if not spec:
    return None
  paths = []
  for part in spec.split(","):
    paths.extend(sorted(glob.glob(part)))  # a glob may match nothing yet (refresh)
  if not paths:
    raise UserError(f"--datasets {spec!r} matches no file")
  return paths


def _check_files(a: flags.FlagValues) -> None:
  """The flags' folders, datasets and checkpoints: readable or writable as they must be."""
  atomic_io.check_writable(a.workdir, folder=True, flag="--workdir")
  if a.eval_dataset:
    dataset_lib.load_dataset(a.eval_dataset)
  expand_datasets(a.datasets)
  if a.resume_from and not os.path.isfile(a.resume_from):
    raise UserError(f"--resume_from {a.resume_from!r} is not a file")
  if a.resume_from and a.init_model:
    raise UserError("give --resume_from or --init_model, not both")
  if a.export_checkpoint:
    atomic_io.check_writable(a.export_checkpoint, flag="--export_checkpoint")


def _check_engine_flags(a: flags.FlagValues) -> None:
  """Flags of one engine refused with the other; --platform cpu applied to JAX."""
  if a.engine == "jax":
    given = [f"--{n}" for n in _NUMPY_ONLY + _NUMPY_ONLY_CONFIG if a[n].present]
    if given:
      raise UserError(f"{', '.join(given)}: numpy engine only (not with --engine jax)")
    if a.platform == "cpu":
      import jax
      jax.config.update("jax_platforms", "cpu")
  elif a["platform"].present or a["max_stored_calls"].present:
    raise UserError("--platform and --max_stored_calls are for --engine jax")


def _check_flags(a: flags.FlagValues) -> tuple[A2CConfig, jax_trainer.JaxTrainOptions]:
  """The configuration and JAX options of the flags; UserError for a bad flag, before work."""
  _check_files(a)
  for name, rule in _RUN_FLAG_RULES.items():
    rule.check(f"--{name}", a[name].value)
  for name in ("fraction", "candidates", "rollouts"):
    jps_bid.SEARCH_OPTION_RULES[name].check(f"--search_{name}", a[f"search_{name}"].value)
  _check_engine_flags(a)
  try:
    cfg = config_flags.config_from_flags(A2CConfig, flag_values=a)
    options = config_flags.config_from_flags(jax_trainer.JaxTrainOptions, flag_values=a)
  except UserError as e:
    raise UserError(f"--{e}") from None
  if a.engine == "jax":
    jax_trainer.pick_device(options.platform)
  if a.search != "none" and (cfg.algorithm != "a2c" or cfg.pool_probability > 0):
    raise UserError("--search is for plain A2C self-play (not with --algorithm ppo or "
                    "--pool_probability > 0)")
  if a.search != "none":
    search_buffer.check_candidates(a.search_candidates, cfg.distill_coef,
                                   name="--search_candidates", coef_name="--distill_coef")
  _check_teacher(a)
  _check_memory(a, cfg, options)
  return cfg, options


def _check_memory(a: flags.FlagValues, cfg: A2CConfig, options) -> None:
  """Says the run's memory from 1 GiB on; refuses a run that cannot fit, before allocating.

  The figure is `round_trainer.memory_needed` (a lower bound), against the memory available.
  """
  from ospiel_team.tree import memory as memory_lib
  need = round_trainer.memory_needed(cfg, engine=a.engine,
                                     max_stored_calls=options.max_stored_calls)
  room = memory_lib.available_memory()
  what = (f"--hidden={cfg.hidden}, --num_blocks={cfg.num_blocks}, --deals_per_round="
          f"{cfg.deals_per_round}" + (f", --buffer_size={cfg.buffer_size}"
                                      if a.engine == "numpy" and cfg.algorithm == "a2c" else ""))
  if room is not None and need > room:
    raise UserError(f"the run needs at least {_gib(need)} of memory ({what}), "
                    f"{_gib(room)} is available; lower them")
  if need >= 1 << 30:
    _flags.say_cost(PROGRAM, f"the run needs at least {_gib(need)} of memory ({what})")


def _gib(n: int) -> str:
  return f"{n / (1 << 30):.3g} GiB" if n < 1 << 80 else f"{float(n):.1e} bytes"


def _check_teacher(a: flags.FlagValues) -> None:
  """--bc_teacher names a bidder that loads, checked before any work.

  For --bc_targets probabilities it must be a network teacher of ours.
  """
  from ospiel_team.bridge.agents.bidders import registry
  from ospiel_team.bridge.agents.training import behaviour_cloning as bc_lib
  if a.bc_targets == "probabilities" and not a.bc_teacher:
    raise UserError("--bc_targets probabilities needs a --bc_teacher")
  if not a.bc_teacher:
    return
  if a.reference_dir is not None and not os.path.isdir(a.reference_dir):
    raise UserError(f"--reference_dir {a.reference_dir!r} is not a folder")
  try:
    teacher = registry.make_bidder(a.bc_teacher, reference_dir=a.reference_dir)
  except (ValueError, FileNotFoundError, ImportError) as e:
    raise UserError(f"--bc_teacher {a.bc_teacher!r}: {e}") from None
  if a.bc_targets == "probabilities":
    try:
      bc_lib.check_distillable(teacher)
    except ValueError as e:
      raise UserError(f"--bc_targets probabilities: {e}") from None


def training_data(a: flags.FlagValues, eval_ds, augment: bool):
  """(training dataset, held-out dataset, number of base training deals) of the flags."""
  ds = dataset_lib.load_datasets(expand_datasets(a.datasets))
  h, t = ds.holders, ds.dd_tricks
  if eval_ds is not None:
    held = eval_ds
    h, t = dataset_lib.remove_deals(h, t, eval_ds.holders)
  else:
    tr, ev = round_trainer.split_deals(h.shape[0], a.holdout)
    held = dataset_lib.BridgeDataset(h[ev], t[ev])
    h, t = h[tr], t[tr]
  n_base = h.shape[0]
  if augment:
    h, t = dataset_lib.augment_deals(h, t)
  return dataset_lib.BridgeDataset(h, t), held, n_base


def _make_trainer(a: flags.FlagValues, cfg: A2CConfig, options, train_ds, held):
  """The engine's trainer, resuming from the workdir's checkpoint or --resume_from."""
  os.makedirs(a.workdir, exist_ok=True)
  if a.engine == "jax":
    return jax_trainer.JaxA2CTrainer(cfg, train_ds, None, workdir=a.workdir,
                                     resume_from=a.resume_from, options=options)
  from ospiel_team.bridge.agents.training import trainers
  ckpt = os.path.join(a.workdir, "checkpoint.npz")
  copied = bool(a.resume_from) and not os.path.exists(ckpt)
  if copied:
    round_trainer.check_checkpoint(a.resume_from, cfg)  # a bad file is named as given
    with open(a.resume_from, "rb") as src:
      atomic_io.write_bytes(ckpt, src.read())
  try:
    trainer = trainers.make_trainer(cfg, train_ds, None, held, workdir=a.workdir,
                                    init_params_from=a.init_model)
  except ValueError as e:
    if not copied:
      raise
    os.remove(ckpt)  # no refused copy stays in the working folder
    raise type(e)(str(e).replace(repr(ckpt), repr(a.resume_from))) from None
  if a.search != "none":
    search = dataclasses.replace(jps_bid.JPSBidSearch.DEFAULTS, fraction=a.search_fraction,
                                 depth=3 if a.search == "jps" else 1,
                                 candidates=a.search_candidates, rollouts=a.search_rollouts)
    trainer.search = jps_bid.JPSBidSearch(search, fresh_returns=a.search_fresh_returns)
  return trainer


def _warm_start(a: flags.FlagValues, trainer, train_ds) -> None:
  """Behaviour cloning of --bc_teacher before the first round of a fresh run."""
  if not a.bc_teacher or trainer.round or a.init_model or a.resume_from:
    return
  import jax

  from ospiel_team.bridge.agents.bidders import registry
  from ospiel_team.bridge.agents.training import behaviour_cloning as bc_lib
  rng = np.random.default_rng(a.seed + 1000)
  teacher = registry.make_bidder(a.bc_teacher, reference_dir=a.reference_dir)
  obs, calls = bc_lib.collect_teacher_states(teacher, train_ds, rng, a.bc_deals,
                                             uncontested=a.uncontested)
  targets = (bc_lib.teacher_probabilities(teacher, obs) if a.bc_targets == "probabilities"
             else None)
  params, acc = bc_lib.behaviour_cloning(trainer.net, jax.device_get(trainer.params), obs,
                                         calls, a.bc_steps, seed=a.seed,
                                         progress=a.progress, targets=targets)
  device = getattr(trainer, "device", None)
  trainer.params = params if device is None else jax.device_put(params, device)
  trainer.opt_state = trainer.optimizer.init(trainer.params)
  print(f"behaviour cloning of {a.bc_teacher} ({a.bc_targets}): {len(calls)} states, "
        f"greedy agreement {acc:.3f}")


def _train(a: flags.FlagValues, trainer, held, n_base: int) -> None:
  """Runs the rounds (re-reading --datasets every --refresh_minutes on the numpy engine)."""
  state = {"n_base": n_base}

  def refresh(tr):
    new_ds, _, nb = training_data(a, held if a.eval_dataset else None, a.augment)
    if nb != state["n_base"]:
      print(f"\nrefresh: {nb} base training deals (was {state['n_base']})")
      state["n_base"] = nb
      tr.set_training_data(new_ds)

  trainer.train(a.rounds, eval_every=a.eval_every if a.engine == "numpy" else 0,
                eval_boards=a.eval_boards, checkpoint_every=a.checkpoint_every,
                progress=a.progress, max_seconds=a.max_minutes * 60,
                refresh=refresh if a.refresh_minutes > 0 else None,
                refresh_seconds=a.refresh_minutes * 60,
                snapshot_every=a.snapshot_every,
                max_cpu_seconds=a.max_cpu_minutes * 60 if a.max_cpu_minutes else None)


def _write_outputs(a: flags.FlagValues, trainer, cfg: A2CConfig, start_games: int,
                   start_wall: float) -> None:
  """model.npz, learning_curve.png, the exported checkpoint, and the summary lines."""
  import jax

  from ospiel_team.bridge.agents.training import training_plots
  policy_net.save_model(os.path.join(a.workdir, "model.npz"), jax.device_get(trainer.params),
                        cfg, extra={"rounds": trainer.round, "games": trainer.games,
                                    "wall_s": trainer.wall, "total_wall_s": trainer.total_wall,
                                    "search": a.search, "trainer": a.engine,
                                    "algorithm": cfg.algorithm,
                                    "pool_probability": cfg.pool_probability})
  training_plots.plot_learning_curve(trainer.log_rows,
                                     os.path.join(a.workdir, "learning_curve.png"))
  if a.export_checkpoint:
    trainer.save_checkpoint(a.export_checkpoint, include_buffer=False)
  games, secs = trainer.games - start_games, trainer.wall - start_wall
  ru = resource.getrusage(resource.RUSAGE_SELF)
  evals = [r for r in trainer.log_rows if r.get("eval_imps_vs_natural", "") != ""]
  print(f"CPU seconds of this process (all threads, this invocation): "
        f"{ru.ru_utime + ru.ru_stime:.0f}")
  print(f"rounds {trainer.round}, games {trainer.games}; this run: {games} games in "
        f"{secs:.1f} s of rounds ({games / max(secs, 1e-9):.0f} games/s, first-round "
        f"compilation included); "
        + (f"last eval vs natural {evals[-1]['eval_imps_vs_natural']:+.3f} ± "
           f"{evals[-1]['eval_stderr']:.3f} IMPs/b" if evals else "no eval"))


def main(argv: Sequence[str]) -> int:
  """Trains (or resumes) a bridge bidder with the flags of `argv` (`argv[0]`: the program).

  Returns:
    The exit status: 0 done (or help printed), 2 a bad flag or a user error found before any
    work, 1 a write failed on a full disk (the last checkpoint is kept), 4 the run diverged
    (its loss or parameters became non-finite; the last good checkpoint is kept); one line on
    stderr for each.
  """
  a = flags.FlagValues()
  define_flags(a)
  status = _flags.parse_private(a, argv, __doc__)
  if status is not None:
    return status
  try:
    return _main(a)
  except OSError as e:
    if not _flags.is_disk_full(e):
      raise
    # The writers are atomic: the checkpoint, log and model files are those of before.
    print(_flags.disk_full_line(PROGRAM, e, f"the last checkpoint in {a.workdir} is kept",
                                "run the same command again to resume"), file=sys.stderr)
    return _flags.EXIT_DISK_FULL


def _main(a: flags.FlagValues) -> int:
  """`main` after parsing: checks, data, trainer, rounds, outputs."""
  try:  # user errors found before any work are one line (bugs keep their traceback)
    cfg, options = _check_flags(a)
    eval_ds = dataset_lib.load_dataset(a.eval_dataset) if a.eval_dataset else None
    train_ds, held, n_base = training_data(a, eval_ds, a.augment and a.engine == "numpy")
    if a.engine == "numpy" and a.eval_every and a.eval_boards > held.holders.shape[0]:
      raise UserError(f"--eval_boards={a.eval_boards} exceeds the {held.holders.shape[0]} "
                      "held-out boards (--holdout or --eval_dataset)")
    trainer = _make_trainer(a, cfg, options, train_ds, held)
  except (ValueError, FileNotFoundError) as e:
    print(_flags.error_line(PROGRAM, e), file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  _warm_start(a, trainer, train_ds)
  where = f"device: {trainer.device}; " if a.engine == "jax" else ""
  aug = (f"x{train_ds.holders.shape[0] // max(n_base, 1)} by augmentation"
         if a.engine == "numpy" else "x96 symmetries drawn per round" if a.augment
         else "not augmented")
  print(f"{where}training deals: {n_base} ({aug}), held out: {held.holders.shape[0]}; "
        f"resuming at round {trainer.round}")
  start_games, start_wall = trainer.games, trainer.wall
  try:
    _train(a, trainer, held, n_base)
  except errors.DivergenceError as e:  # nothing of the diverged rounds was written
    print(_flags.error_line(PROGRAM, e), file=sys.stderr)
    return _flags.EXIT_DIVERGED
  _write_outputs(a, trainer, cfg, start_games, start_wall)
  return 0


def run() -> None:
  """Console-script entry point (`ospiel-team-train-bridge`)."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
