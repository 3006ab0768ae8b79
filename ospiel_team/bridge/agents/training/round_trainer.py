"""What the self-play bridge trainers share: the round loop, checkpoints, logs and snapshots.

`RoundTrainer` is the base of the numpy trainer (`a2c.A2CTrainer`) and the JAX trainer
(`jax_trainer.JaxA2CTrainer`); `read_checkpoint` reads the checkpoints both write (slim, or
full with the replay buffer); `split_deals` is the seeded train / held-out split both use.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import time
from collections.abc import Callable

import jax
import numpy as np
import tqdm

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team import errors
from ospiel_team.bridge import shipped_digests
from ospiel_team.bridge.agents.bidders.policy_net import save_model
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.bridge.haiku_params import flatten_params
from ospiel_team.bridge.haiku_params import unflatten_params


def split_deals(num_deals: int, holdout: int, seed: int = 12345):
  """(train indices, held-out indices): a fixed seeded permutation, the last `holdout` held out."""
  if not 0 <= holdout < num_deals:
    raise ValueError(f"holdout {holdout} must be in 0..{num_deals - 1}")
  perm = np.random.default_rng(seed).permutation(num_deals)
  return np.sort(perm[:num_deals - holdout]), np.sort(perm[num_deals - holdout:])


# Bytes a training run needs at least (`memory_needed`), from the arrays it must allocate:
# a replay-buffer decision (34 bytes of packed observation, action, log-probability, return),
# a table's auction state (its 319-call history as int32 and the rest), and an observation.
BUFFER_BYTES_PER_DECISION = 34 + 1 + 4 + 4
TABLE_STATE_BYTES = 319 * 4
MIN_CALLS_PER_TABLE = 4  # the shortest auction: four passes


def check_trainer_arguments(cfg, dataset, train_deals, **paths) -> None:
  """The arguments both trainers take, checked by type before any work.

  Args:
    cfg: must be an `A2CConfig`.
    dataset: None, a path, a list of paths or a `BridgeDataset` (`dataset.load_datasets`).
    train_deals: None or a 1-D array of deal indices.
    **paths: further arguments that are a path or None (workdir, resume_from, ...).

  Raises:
    errors.UserError: naming the first bad argument and its value.
  """
  checks.check_type("cfg", cfg, A2CConfig, "an A2CConfig")
  if not (dataset is None or isinstance(dataset, (str, os.PathLike, list, tuple))
          or (hasattr(dataset, "holders") and hasattr(dataset, "dd_tricks"))):
    raise errors.UserError(f"dataset must be a BridgeDataset, a path, a list of paths or None, "
                           f"got {type(dataset).__name__} {dataset!r:.80}")
  if train_deals is not None:
    arr = np.asarray(train_deals)
    if arr.ndim != 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
      raise errors.UserError(f"train_deals must be a 1-D array of deal indices or None, got "
                             f"{type(train_deals).__name__} {train_deals!r:.80}")
  for name, value in paths.items():
    checks.check_type(name, value, (str, os.PathLike, type(None)), "a path or None")


def memory_needed(cfg: A2CConfig, *, engine: str = "numpy", max_stored_calls: int = 64) -> int:
  """A lower bound on the bytes a training run of `cfg` allocates.

  ``ospiel-team-train-bridge`` says it and refuses what cannot fit before the run. Counted:
  the network's parameters, Adam's two moments and the gradients (float32); one Adam step's
  activations (forward and backward); a round's tables (auction state plus, on the numpy
  engine, at least `MIN_CALLS_PER_TABLE` observations each; on the JAX engine,
  `max_stored_calls` stored calls each); the numpy A2C replay buffer. Python's and JAX's own
  overheads are not counted, so a run needs more than this.

  Args:
    cfg: the configuration.
    engine: "numpy" or "jax".
    max_stored_calls: the JAX engine's stored calls per table.

  Returns:
    The bytes (a Python int, exact however large the settings).
  """
  h, nb = cfg.hidden, cfg.num_blocks
  obs, calls = 267, 38
  params = obs * h + h + nb * 2 * (h * h + h) + (h + 1) * (calls + 1)
  total = 4 * 4 * params  # parameters, gradients and Adam's two moments, float32
  batch = cfg.minibatch_size if cfg.algorithm == "ppo" else cfg.batch_size
  total += 2 * 4 * batch * (obs + h * (2 * nb + 1) + calls + 1)  # activations, both ways
  tables = 2 * cfg.deals_per_round
  if engine == "jax":
    total += tables * (TABLE_STATE_BYTES + max_stored_calls * (obs + 4 + 4 + 1 + 4))
  else:
    obs_bytes = obs if cfg.fast_acting else 4 * obs
    total += tables * (TABLE_STATE_BYTES + MIN_CALLS_PER_TABLE * (obs_bytes + 8 + 4))
    total += tables * 4 * h  # the acting forward pass over all tables
    if cfg.algorithm == "a2c":
      total += cfg.buffer_size * BUFFER_BYTES_PER_DECISION
  return total


class RoundTrainer:
  """What the self-play trainers share: the round loop, checkpoint files, logs and snapshots.

  A subclass (`A2CTrainer` here, `jax_trainer.JaxA2CTrainer`) sets ``cfg``, ``workdir``,
  ``params``, ``opt_state``, the counters ``round``, ``games``, ``wall``, ``total_wall`` and
  ``log_rows``, and defines `train_round` (one round; returns its log row) and
  `save_checkpoint`; it may define `evaluate`.
  """

  # Timing columns: ``wall_s`` seconds inside training rounds (self-play + learning, summed),
  # ``games_per_s`` this round's games / its round time; ``total_wall_s`` wall-clock seconds of
  # the whole run so far including evaluation, checkpoints and logs (the time of a checkpoint
  # written after round k counts in round k + 1's row), ``games_per_s_wall`` all games /
  # ``total_wall_s``. Both survive resuming.
  # ``cpu_s``: CPU seconds of the process (all threads: `time.process_time`) spent in the
  # training loop since the run's first round (evaluation and checkpoints included; the
  # budget of `train`'s ``max_cpu_seconds``); ``opponent``: the round of the pool snapshot a
  # fictitious self-play round played against (empty: self-play); ``clip_frac``: PPO's share of
  # clipped ratios.
  LOG_FIELDS = ["round", "games", "decisions", "wall_s", "games_per_s", "total_wall_s",
                "games_per_s_wall", "cpu_s", "mean_auction_len",
                "loss", "policy_loss", "value_loss", "entropy", "mean_rho", "clip_frac",
                "opponent", "search_points",
                "eval_boards", "eval_imps_vs_natural", "eval_stderr"]
  TRAIN_DESC = "rounds"  # the progress bar's label
  total_cpu = 0.0  # CPU seconds of the training loop, over resumes (checkpointed)
  _good_round: int | None = None  # the round of the workdir's checkpoint (divergence guard)

  cfg: A2CConfig
  workdir: str | None

  def train_round(self) -> dict:
    """Plays and learns from one round; returns its log row (a subclass defines it)."""
    raise NotImplementedError

  def save_checkpoint(self, path: str | None = None) -> None:
    """Writes a checkpoint to `path` (default `checkpoint_path`; a subclass defines it)."""
    raise NotImplementedError

  def evaluate(self, boards: int, seed: int = 0) -> tuple[float, float, int]:
    """(mean IMPs, stderr, boards) against the natural bidder; subclasses may define it."""
    raise NotImplementedError

  @property
  def checkpoint_path(self) -> str:
    """The checkpoint file in `workdir`."""
    return os.path.join(self.workdir, "checkpoint.npz")

  def _write_checkpoint(self, path: str, rng_state: dict, learner_rng_state: dict,
                        compressed: bool, extra_arrays: dict | None = None) -> None:
    """Writes parameters, Adam state, counters, RNG states, config and log atomically."""
    params, opt_state = jax.device_get((self.params, self.opt_state))
    arrays = {"param/" + k: v for k, v in flatten_params(params).items()}
    leaves = jax.tree_util.tree_leaves(opt_state)
    arrays.update({f"opt/{i:04d}": np.asarray(x) for i, x in enumerate(leaves)})
    arrays.update(extra_arrays or {})
    state = {"round": self.round, "games": self.games, "wall": self.wall,
             "total_wall": self.total_wall, "total_cpu": self.total_cpu, "rng": rng_state,
             "learner_rng": learner_rng_state, "config": dataclasses.asdict(self.cfg),
             "log_rows": self.log_rows}
    meta = {"network": self.cfg.network_dict(), "uncontested": self.cfg.uncontested}
    arrays.update(state=np.array(json.dumps(state)), meta=np.array(json.dumps(meta)))
    atomic_io.savez(path, compressed=compressed, **shipped_digests.with_own_digest(arrays))

  def write_logs(self) -> None:
    """Writes ``workdir/log.csv`` (the columns of `LOG_FIELDS`; nothing without a workdir)."""
    if self.workdir is None:
      return
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=self.LOG_FIELDS, extrasaction="ignore")
    w.writeheader()
    for r in self.log_rows:
      w.writerow(r)
    atomic_io.write_text(os.path.join(self.workdir, "log.csv"), buf.getvalue())

  def snapshot_path(self, round_: int) -> str:
    """The file of the network snapshot after round `round_`."""
    return os.path.join(self.workdir, "snapshots", f"round_{round_:07d}.npz")

  def save_snapshot(self) -> str:
    """Saves the current network as ``workdir/snapshots/round_RRRRRRR.npz``; returns the path."""
    path = self.snapshot_path(self.round)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    save_model(path, jax.device_get(self.params), self.cfg,
               extra={"rounds": self.round, "games": self.games,
                      "wall_s": round(self.wall, 2),
                      "total_wall_s": round(self.total_wall, 2)})
    return path

  def throughput(self) -> dict:
    """Games per second of the run so far.

    Two rates: self-play + learning only, and wall-inclusive (evaluation, checkpoints and logs
    included).
    """
    return {"games": self.games, "train_s": self.wall, "total_wall_s": self.total_wall,
            "games_per_s_selfplay": self.games / max(self.wall, 1e-9),
            "games_per_s_wall": self.games / max(self.total_wall, 1e-9)}

  def train(self, rounds: int, *, eval_every: int = 0, eval_boards: int = 256,
            checkpoint_every: int = 10, progress: bool = True,
            max_seconds: float | None = None,
            refresh: Callable[[RoundTrainer], None] | None = None,
            refresh_seconds: float = 300.0, snapshot_every: int = 0,
            max_cpu_seconds: float | None = None) -> list[dict]:
    """Trains until `rounds` rounds in total (counting resumed ones) or `max_seconds` pass.

    Args:
      rounds: total rounds to reach (resumed rounds count).
      eval_every: evaluate against the natural bidder every this many rounds (0: never; only
        trainers that define `evaluate`).
      eval_boards: boards per evaluation.
      checkpoint_every: write ``workdir/checkpoint.npz`` and the log every this many rounds
        (and at the end).
      progress: show a tqdm bar.
      max_seconds: stop (with a checkpoint) after this many seconds.
      refresh: called as ``refresh(trainer)`` every `refresh_seconds` (e.g. to add new deals).
      refresh_seconds: see `refresh`.
      snapshot_every: also save the model (`policy_net.save_model`) as
        ``workdir/snapshots/round_RRRRRRR.npz`` every this many rounds (0: never); the
        snapshots are the candidates of model selection on the validation deals.
      max_cpu_seconds: stop (with a checkpoint) once the run's CPU seconds in this loop
        (``total_cpu``: all threads of the process, counted over resumes) reach this many; the
        budget of runs compared at equal CPU (`time.process_time` deltas).

    Returns:
      The log rows of all rounds (resumed ones included).
    """
    self._check_train_arguments(eval_every, checkpoint_every, snapshot_every)
    start = time.time()
    last_refresh = start
    cpu_mark = time.process_time()
    self._good_round = (self.round if self.workdir is not None
                        and os.path.exists(self.checkpoint_path) else None)
    if max_cpu_seconds is not None and self.total_cpu >= max_cpu_seconds:
      return self.log_rows
    bar = tqdm.tqdm(total=rounds, initial=min(self.round, rounds), desc=self.TRAIN_DESC,
                    disable=not progress)
    while self.round < rounds:
      t_iter = time.time()
      if refresh is not None and time.time() - last_refresh > refresh_seconds:
        refresh(self)
        last_refresh = time.time()
      row = self._evaluated_round(rounds, eval_every, eval_boards)
      self._check_finite(row)
      total = self.total_wall + (time.time() - t_iter)
      cpu_mark = self._count_cpu(cpu_mark)
      row.update(total_wall_s=round(total, 2),
                 games_per_s_wall=round(self.games / max(total, 1e-9), 1),
                 cpu_s=round(self.total_cpu, 2))
      self.log_rows.append(row)
      self._show_progress(bar, row)
      timed_out = ((max_seconds is not None and time.time() - start > max_seconds)
                   or (max_cpu_seconds is not None and self.total_cpu >= max_cpu_seconds))
      if self.round % checkpoint_every == 0 or self.round >= rounds or timed_out:
        self.total_wall += time.time() - t_iter  # the checkpoint saves this iteration's time
        t_iter = time.time()
        self.save_checkpoint()
        self.write_logs()
        self._good_round = self.round if self.workdir is not None else None
      if snapshot_every and self.round % snapshot_every == 0 and self.workdir is not None:
        self.save_snapshot()
      self.total_wall += time.time() - t_iter
      cpu_mark = self._count_cpu(cpu_mark)
      if timed_out:
        break
    bar.close()
    return self.log_rows

  def _check_train_arguments(self, eval_every: int, checkpoint_every: int,
                             snapshot_every: int) -> None:
    """Raises ValueError for a `train` period out of range (or an evaluation it cannot do)."""
    if checkpoint_every < 1:
      raise ValueError(f"checkpoint_every must be >= 1, got {checkpoint_every}")
    if snapshot_every < 0:
      raise ValueError(f"snapshot_every must be >= 0, got {snapshot_every}")
    if eval_every < 0:
      raise ValueError(f"eval_every must be >= 0, got {eval_every}")
    if eval_every and type(self).evaluate is RoundTrainer.evaluate:
      raise ValueError(f"eval_every={eval_every}: {type(self).__name__} does not evaluate "
                       "during training; use 0")

  def _check_finite(self, row: dict) -> None:
    """The divergence guard: stops a round whose losses or parameters are non-finite.

    Raises `errors.DivergenceError` before anything of the round is written. The losses are
    checked every round; the parameters too (one `isfinite` pass over them, small next to a
    round's self-play). The checkpoint, model and log files on disk stay those of the last
    good checkpoint.
    """
    bad = [k for k in ("loss", "policy_loss", "value_loss", "entropy")
           if not isinstance(row.get(k), (str, type(None))) and not np.isfinite(float(row[k]))]
    if not bad and params_finite(self.params):
      return
    what = (f"{', '.join(f'{k} {row[k]}' for k in bad)}" if bad
            else "the parameters hold NaN or infinite values")
    kept = (f"the last good checkpoint {self.checkpoint_path!r} (round {self._good_round}) is "
            "kept" if self._good_round is not None else "no checkpoint was written")
    raise errors.DivergenceError(
        f"training diverged at round {self.round}: {what}; {kept} (a lower learning_rate may "
        "help)")

  def _evaluated_round(self, rounds: int, eval_every: int, eval_boards: int) -> dict:
    """One training round's log row, with an evaluation when one is due."""
    row = self.train_round()
    if eval_every and (self.round % eval_every == 0 or self.round == rounds):
      m, se, nb = self.evaluate(eval_boards)
      row.update(eval_boards=nb, eval_imps_vs_natural=round(m, 4), eval_stderr=round(se, 4))
    return row

  def _count_cpu(self, mark: float) -> float:
    """Adds the process's CPU seconds since `mark` to `total_cpu`; returns the new mark."""
    now = time.process_time()
    self.total_cpu += now - mark
    return now

  def _show_progress(self, bar: tqdm.tqdm, row: dict) -> None:
    bar.update(1)
    ent = row.get("entropy", "")
    bar.set_postfix(games=self.games, len=f"{row['mean_auction_len']:.1f}",
                    ent=f"{ent:.2f}" if isinstance(ent, float) else ent,
                    ev=row.get("eval_imps_vs_natural", ""))


def params_finite(params) -> bool:
  """Whether every array of the parameter tree `params` holds only finite numbers."""
  return all(bool(jax.numpy.all(jax.numpy.isfinite(x))) if isinstance(x, jax.Array)
             else bool(np.all(np.isfinite(x))) for x in jax.tree_util.tree_leaves(params))


def check_checkpoint(path: str, cfg: A2CConfig, *, check_buffer_size: bool = False):
  """(arrays, state, params) of the trainer checkpoint `path`, checked as `read_checkpoint` does.

  Args:
    path: the checkpoint file.
    cfg: the reading trainer's configuration (its network must be the checkpoint's).
    check_buffer_size: also require the same replay-buffer size.

  Raises:
    errors.DamagedFileError, ValueError: naming `path`, as `read_checkpoint`.
  """
  if not os.path.isfile(path):
    raise ValueError(f"checkpoint {path!r} is not a file")
  z = atomic_io.read_npz(path, "checkpoint")  # a damaged file: DamagedFileError naming it
  z = shipped_digests.check_own(path, z, "checkpoint")  # those written since digests exist
  if "state" not in z:
    raise ValueError(f"{path!r} is not an a2c training checkpoint (no 'state' entry)")
  try:
    state = json.loads(str(z["state"]))
    saved = A2CConfig(**state["config"])
  except (ValueError, TypeError, KeyError) as e:
    raise errors.DamagedFileError(f"checkpoint {path!r} has an unreadable 'state' entry: "
                                  f"{type(e).__name__}: {e}") from None
  if saved.network_dict() != cfg.network_dict():
    raise ValueError(f"checkpoint {path!r} has network {saved.network_dict()}, this "
                     f"trainer {cfg.network_dict()}")
  if check_buffer_size and saved.buffer_size != cfg.buffer_size:
    raise ValueError(f"checkpoint {path!r} has buffer_size {saved.buffer_size}, this "
                     f"trainer {cfg.buffer_size}")
  params = unflatten_params({k[6:]: z[k] for k in z if k.startswith("param/")})
  if not params_finite(params):
    raise errors.DamagedFileError(f"checkpoint {path!r} holds NaN or infinite parameters "
                                  "(a diverged run's); resume from an earlier one")
  return z, state, params


def read_checkpoint(path: str, cfg: A2CConfig, optimizer, *, check_buffer_size: bool = False):
  """(state, params, opt_state, buffer arrays or None) of a trainer checkpoint (slim or full).

  Args:
    path: the checkpoint (`RoundTrainer` format).
    cfg: the reading trainer's configuration; the checkpoint's network must be the same.
    optimizer: the trainer's optax optimizer (gives the Adam state's structure).
    check_buffer_size: also require the same replay-buffer size.

  Raises:
    errors.DamagedFileError: naming the file, when it is damaged (truncated, a flipped bit,
      an unreadable state entry) or its arrays do not match their digest (checkpoints that
      carry one: all written by `_write_checkpoint`; older ones load without the check).
    ValueError: naming the file, when it is not a checkpoint of this network or its
      parameters are not all finite.
  """
  z, state, params = check_checkpoint(path, cfg, check_buffer_size=check_buffer_size)
  treedef = jax.tree_util.tree_structure(optimizer.init(params))
  leaves = [np.asarray(z[k]) for k in sorted(k for k in z if k.startswith("opt/"))]
  buffer = {k: z[k] for k in z if k.startswith("buf_")} if "buf_meta" in z else None
  if len(leaves) != treedef.num_leaves:
    raise ValueError(f"checkpoint {path!r} has {len(leaves)} Adam state arrays, expected "
                     f"{treedef.num_leaves}")
  return state, params, jax.tree_util.tree_unflatten(treedef, leaves), buffer
