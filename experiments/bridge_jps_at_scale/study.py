r"""The JPS-at-scale lineage study: paired plain and JPS lineages, the movement gate, the decision.

The study of ``PREREGISTRATION.md`` (beside this file). From ``--start`` (``a2c_long``'s slim
checkpoint), every seed of ``--seeds`` runs one lineage per arm of ``--arms``:

* ``plain``: self-play A2C (`ospiel_team.bridge.agents.training.a2c`), no search;
* ``jps``: the same with the authors' JPSBid protocol (`jps_bid.GameSearch`, depth 3, a
  fraction ``--search_fraction`` of the games searched at every decision with two or more
  candidates, the searched call played), the search distilled into the policy only with
  ``--distill_coef`` > 0 (off by default, the gate's answer;
  `ospiel_team.bridge.agents.training.search_buffer`);
  ``--search_candidates 38 --search_opponent_samples 5 --search_continuations 1
  --search_partner mean`` is the authors' budget (`jps_search.AUTHORS_BUDGET`);
* ``1search``: as ``jps`` with the 1-search ablation (depth 1);
* ``random``: as ``jps``, but the distilled and played call is a uniformly random valid
  candidate of the searched position (the control).

A plain and a JPS lineage of one seed start from the same state with the same random streams
(the start's parameters, Adam state and log; the trainer's random numbers reseeded from the
seed); their deal sequences are the same until their auctions differ. All lineages follow
``a2c_longer``'s schedule (``--schedule``: learning rate 1e-4, then 3e-5, then 1e-5, over
``a2c_longer``'s 4,916 + 9,636 + 7,642 rounds of 512 deals at two tables; about 23 M tables),
with ``a2c_longer``'s other settings (``experiments/bridge_a2c_training/TRAINING.md``): 8
Adam steps a round, entropy bonus 0.01, all 50,000 training deals x96, the validation deals removed.

Each invocation trains the lineages in turns of ``--chunk_rounds`` rounds (until
``--max_minutes``), and after each turn

1. exports each lineage's slim checkpoint (no replay buffer; parameters, Adam state, random
   states, log) to ``--checkpoint_dir`` (written atomically, small enough to commit): a lost
   ``--workdir`` costs nothing but the refilling of the replay buffers;
2. scores every new snapshot (every ``--snapshot_every`` rounds) on ``--select_boards``
   validation boards against every member of ``--panel`` that is available (``a2c_long``,
   and the JPS authors' ``jps_paper_baseline`` and ``jps_paper_0.63`` when
   ``--reference_dir`` holds them), and measures its movement from the start
   (`ospiel_team.bridge.agents.evaluation.movement`: the validation match against the start and the
   fraction of greedy calls changed on ``--positions_deals`` deals' fixed positions); the
   validation leader of each lineage (the highest IMPs/board against ``--panel``'s first
   member) is copied to ``--checkpoint_dir`` so that the selection survives the loss of the
   workdir's snapshots;
3. the power check (`power_check`, with two or more seeds): the spread between seeds of the
   plain lineages' validation leaders, and the seeds a +-0.15 paired interval would need;
4. the movement gate: once every plain lineage is ``--gate_rounds`` rounds past the start,
   if none of them has moved (`movement.moved`, ``--min_changed``), the study stops as
   uninformative (recorded; nothing held-out is played).

When every lineage has finished its schedule, each lineage's validation leader is selected
(written into the record before any held-out board is played), and each seed's JPS-arm
selection plays its plain selection on the 2,000 ``heldout`` and 4,000 ``heldout2`` boards
(``--heldout_boards``). The effect is the mean over seeds of these paired IMPs/board with its
95% interval (`paired_effect`), and the decision (`decision`): established when the interval
lies above 0, excluded (at the JPS paper's smallest effect, +0.15) when it lies below +0.15.

The record (``--out``/record.json) is written atomically after every step; matches store their
boards under ``WORKDIR/matches`` as they are played. The same command, interrupted and run
again (in this or a later session, or from the committed checkpoints alone), goes on where it
stopped.

  python experiments/bridge_jps_at_scale/study.py --seeds 11 --arms plain,jps \
      --workdir WORKDIR --max_minutes 600

(the registered command, with its search budget, is in ``PREREGISTRATION.md``).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import re
import shutil
import sys
import time

import numpy as np
import tqdm
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import shipped_digests
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.evaluation import movement
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import jps_bid
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.cli import config_flags
from ospiel_team.errors import UserError

FLAGS = flags.FLAGS
HERE = os.path.dirname(os.path.abspath(__file__))
ARMS = ("plain", "jps", "1search", "random")
SEARCH_ARMS = ("jps", "1search", "random")
HELDOUT = ("heldout", "heldout2")
EXCLUDED_BELOW = 0.15  # the JPS paper's smallest effect (Table 3, 1% search: +0.20; -0.05)
# a2c_longer's settings (experiments/bridge_a2c_training/TRAINING.md, COMMON); no distillation
# and no Q head (the gate's answer, PREREGISTRATION.md).
STUDY_DEFAULTS = {"deals_per_round": 512, "updates_per_round": 8, "overlap_learning": True,
                  "entropy_decay_rounds": 0, "distill_coef": 0.0, "q_coef": 0.0,
                  "search_q_lambda": 0.0}
_CONFIG_EXCLUDE = ("learning_rate", "seed", "algorithm", "clip_eps", "gae_lambda",
                   "epochs_per_batch", "minibatch_size", "opponent_pool_size",
                   "pool_snapshot_every", "pool_probability", "uncontested")

flags.DEFINE_string("start", "experiments/bridge_a2c_training/checkpoints/a2c_long.npz",
                    "The lineages' start: a slim training checkpoint.")
flags.DEFINE_list("arms", ["plain", "jps"], f"Arms, of {', '.join(ARMS)}.")
flags.DEFINE_list("seeds", ["100"], "One lineage per arm for each seed (paired by seed).")
flags.DEFINE_string("schedule", "4916:1e-4,14552:3e-5,22194:1e-5", "ROUND:LR,...: the learning "
                    "rate until each round (counted from the start), a2c_longer's by default.")
flags.DEFINE_integer("chunk_rounds", 500, "Rounds a lineage trains per turn.", lower_bound=1)
flags.DEFINE_integer("snapshot_every", 1000, "Snapshot (scored) every this many rounds.",
                     lower_bound=1)
flags.DEFINE_string("workdir", "/tmp/bridge_jps_at_scale", "Working folder: training workdirs "
                    "(full checkpoints, snapshots) and match boards.")
flags.DEFINE_string("checkpoint_dir", os.path.join(HERE, "checkpoints"), "Committed slim "
                    "checkpoints and validation leaders of the lineages.")
flags.DEFINE_string("out", HERE, "Folder of record.json.")
flags.DEFINE_list("panel", ["a2c_long", "jps_paper_baseline", "jps_paper_0.63"], "Fixed "
                  "opponents of every snapshot on the validation deals (the first selects).")
flags.DEFINE_string("reference_dir", None, "Folder of the JPS authors' models (jps_paper_*).")
flags.DEFINE_integer("select_boards", 1000, "Validation boards per snapshot and opponent.",
                     lower_bound=1, upper_bound=1000)
flags.DEFINE_integer("positions_deals", 200, "Validation deals of the gate's fixed positions.",
                     lower_bound=1)
flags.DEFINE_float("min_changed", 0.25, "Movement gate: the fraction of greedy calls changed "
                   "that counts as moved (above the 16-20% that 200 rounds at learning rate "
                   "1e-5 changed without moving the strength: churn.json).",
                   lower_bound=0.0, upper_bound=1.0)
flags.DEFINE_integer("gate_rounds", 4916, "Movement gate: rounds after which a plain arm that "
                     "has not moved stops the study.", lower_bound=1)
flags.DEFINE_list("heldout_boards", ["2000", "4000"], "Boards of heldout and of heldout2.")
flags.DEFINE_float("search_fraction", 0.05, "Search arms: fraction of games searched.",
                   lower_bound=0.0, upper_bound=1.0)
flags.DEFINE_integer("search_candidates", 5, "Search arms: candidates per player (above "
                     "--search_threshold).", lower_bound=1)
flags.DEFINE_integer("search_rollouts", 5, "Search arms: opponent samples / rollouts.",
                     lower_bound=1)
flags.DEFINE_integer("search_opponent_samples", 0, "Search arms: opponent samples per P1 "
                     "candidate (0: --search_rollouts; the authors' budget: 5).", lower_bound=0)
flags.DEFINE_integer("search_continuations", 0, "Search arms: rollouts per partner candidate "
                     "(0: --search_rollouts; the authors' budget: 1).", lower_bound=0)
flags.DEFINE_enum("search_partner", "max", ["max", "mean"], "Search arms: the partner's "
                  "candidates maximised (the paper's Eq. 7-8) or averaged (the authors' code).")
flags.DEFINE_float("search_threshold", 0.05, "Search arms: candidates' least sigma-probability "
                   "(the authors' 0.05).", lower_bound=0.0, upper_bound=0.99)
flags.DEFINE_integer("train_deals", 0, "Use only the first N base training deals (0: all; "
                     "tests).", lower_bound=0)
flags.DEFINE_bool("augment", True, "Augment the training deals x96 (rotations, suit "
                  "permutations).")
flags.DEFINE_float("max_minutes", 60.0, "Stop training turns after this many minutes (the "
                   "record and checkpoints are up to date).", lower_bound=0.0)
flags.DEFINE_integer("max_turns", 0, "Stop after this many training turns of each lineage "
                     "(0: no limit).", lower_bound=0)
flags.DEFINE_bool("progress", True, "Show progress bars.")
config_flags.define_config_flags(A2CConfig, flag_values=FLAGS, exclude=_CONFIG_EXCLUDE,
                                 module_name=__name__)
for _k, _v in STUDY_DEFAULTS.items():
  FLAGS.set_default(_k, _v)


# ------------------------------------------------------------------------------------------
# Settings
# ------------------------------------------------------------------------------------------
def parse_schedule(text: str) -> list[tuple[int, float]]:
  """``"ROUND:LR,..."`` -> [(end round, learning rate)], rounds increasing.

  Raises:
    UserError: naming the flag and the value.
  """
  try:
    phases = [(int(a), float(b)) for a, b in (p.split(":") for p in text.split(","))]
  except ValueError:
    phases = []
  ends = [e for e, _ in phases]
  if (not phases or ends != sorted(set(ends)) or ends[0] < 1
          or not all(lr > 0 and math.isfinite(lr) for _, lr in phases)):
    raise UserError(f"--schedule must be ROUND:LR,... with increasing rounds >= 1 and rates "
                    f"> 0, got {text!r}")
  return phases


def settings() -> dict:
  """The study's settings (a record made with others is refused)."""
  arms = list(FLAGS.arms)
  if not arms or any(a not in ARMS for a in arms) or len(set(arms)) != len(arms):
    raise UserError(f"--arms must be distinct names of {', '.join(ARMS)}, got {arms}")
  try:
    seeds = [int(s) for s in FLAGS.seeds]
  except ValueError:
    seeds = []
  if not seeds or len(set(seeds)) != len(seeds) or min(seeds) < 0:
    raise UserError(f"--seeds must be distinct integers >= 0, got {FLAGS.seeds}")
  try:
    heldout = [int(b) for b in FLAGS.heldout_boards]
  except ValueError:
    heldout = []
  if len(heldout) != 2 or not all(1 <= b <= n for b, n in zip(heldout, (2000, 4000),
                                                              strict=True)):
    raise UserError(f"--heldout_boards must be two integers, at most 2000 and 4000, got "
                    f"{FLAGS.heldout_boards}")
  config = {f.name: FLAGS[f.name].value
            for f in config_flags.config_fields(A2CConfig, _CONFIG_EXCLUDE)}
  from ospiel_team.bridge.agents.training import search_buffer
  if any(a in SEARCH_ARMS for a in arms):
    search_buffer.check_candidates(FLAGS.search_candidates, config["distill_coef"],
                                   name="--search_candidates", coef_name="--distill_coef")
  return {"start": os.path.basename(FLAGS.start), "start_digest": _digest(FLAGS.start),
          "arms": arms, "seeds": seeds, "schedule": parse_schedule(FLAGS.schedule),
          "snapshot_every": FLAGS.snapshot_every, "panel": list(FLAGS.panel),
          "select_boards": FLAGS.select_boards, "positions_deals": FLAGS.positions_deals,
          "min_changed": FLAGS.min_changed, "gate_rounds": FLAGS.gate_rounds,
          "heldout_boards": dict(zip(HELDOUT, heldout, strict=True)),
          "search": {"fraction": FLAGS.search_fraction, "candidates": FLAGS.search_candidates,
                     "rollouts": FLAGS.search_rollouts, "threshold": FLAGS.search_threshold,
                     "opponent_samples": FLAGS.search_opponent_samples or None,
                     "continuations": FLAGS.search_continuations or None,
                     "partner": FLAGS.search_partner},
          "train_deals": FLAGS.train_deals, "augment": FLAGS.augment, "config": config}


def _digest(path: str) -> str:
  if not os.path.isfile(path):
    raise UserError(f"--start {path!r} is not a file")
  return shipped_digests.digest(atomic_io.read_npz(path, "checkpoint"))


def arm_config(arm: str, seed: int, learning_rate: float, config: dict) -> A2CConfig:
  """The A2C configuration of `arm` in a phase of learning rate `learning_rate`.

  The plain arm has no distillation (its Q head, if any, is the search arms'); ``random``
  distils random candidates.
  """
  cfg = dict(config, learning_rate=learning_rate, seed=seed)
  if arm == "plain":
    cfg.update(distill_coef=0.0, search_q_lambda=0.0)
  elif arm == "random":
    cfg.update(distill_target="random")
  return A2CConfig(**cfg)


def arm_search(arm: str, st: dict) -> jps_bid.GameSearch | None:
  """The search hook of `arm` (None: plain)."""
  if arm not in SEARCH_ARMS:
    return None
  s = st["search"]
  return jps_bid.GameSearch(fraction=s["fraction"], depth=1 if arm == "1search" else 3,
                            candidates=s["candidates"], rollouts=s["rollouts"],
                            candidate_threshold=s["threshold"],
                            opponent_samples=s.get("opponent_samples"),
                            continuations=s.get("continuations"),
                            partner=s.get("partner", "max"))


def training_deals(st: dict) -> dataset_lib.BridgeDataset:
  """The shipped training deals without the validation deals (x96 when augmented)."""
  ds = dataset_lib.load_dataset()
  h, t = dataset_lib.remove_deals(ds.holders, ds.dd_tricks,
                                  dataset_lib.resolve_dataset("validation").holders)
  if st["train_deals"]:
    h, t = h[:st["train_deals"]], t[:st["train_deals"]]
  if st["augment"]:
    h, t = dataset_lib.augment_deals(h, t)
  return dataset_lib.BridgeDataset(h, t)


# ------------------------------------------------------------------------------------------
# Lineages
# ------------------------------------------------------------------------------------------
def start_round(path: str) -> int:
  """The round counter of the start checkpoint."""
  return int(json.loads(str(atomic_io.read_npz(path, "checkpoint")["state"]))["round"])


def lineage_name(arm: str, seed: int) -> str:
  """The lineage of `arm` and `seed`: ``ARM_sSEED``."""
  return f"{arm}_s{seed}"


def phase_at(schedule, rel_round: int) -> tuple[int, float] | None:
  """(end round, learning rate) of the phase that round `rel_round` + 1 belongs to (None: done)."""
  return next(((e, lr) for e, lr in schedule if rel_round < e), None)


def open_lineage(arm: str, seed: int, st: dict, ds, r0: int) -> a2c.A2CTrainer | None:
  """The lineage's trainer in its current phase (None once the schedule is done).

  Its workdir's checkpoint resumes it; without one, the committed slim checkpoint; without
  that, the start, with the trainer's random streams reseeded from `seed`.
  """
  name = lineage_name(arm, seed)
  wd = os.path.join(FLAGS.workdir, name)
  ckpt = os.path.join(wd, "checkpoint.npz")
  committed = os.path.join(FLAGS.checkpoint_dir, name + ".npz")
  fresh = False
  if not os.path.exists(ckpt):
    os.makedirs(wd, exist_ok=True)
    fresh = not os.path.exists(committed)
    shutil.copyfile(FLAGS.start if fresh else committed, ckpt + ".tmp")
    os.replace(ckpt + ".tmp", ckpt)
  rel = start_round(ckpt) - r0
  phase = phase_at(st["schedule"], rel)
  if phase is None:
    return None
  tr = a2c.A2CTrainer(arm_config(arm, seed, phase[1], st["config"]), ds, workdir=wd)
  if fresh:
    tr.rng = np.random.default_rng([seed, 0])
    tr.learner_rng = np.random.default_rng([seed, 1])
    tr.distill_rng = np.random.default_rng([seed, 2])
    tr.save_checkpoint()
  tr.search = arm_search(arm, st)
  if tr.search is not None:
    tr.search.reseed(seed * 1_000_003 + tr.round)  # a resumed turn searches like a fresh one
  return tr


def train_turn(tr: a2c.A2CTrainer, name: str, st: dict, r0: int) -> None:
  """One turn: to the end of the phase or `--chunk_rounds` rounds; exports the checkpoint."""
  rel = tr.round - r0
  end, _ = phase_at(st["schedule"], rel)
  every = st["snapshot_every"]
  target = r0 + min(end, rel + FLAGS.chunk_rounds, (rel // every + 1) * every)
  tr.train(target, eval_every=0, checkpoint_every=FLAGS.chunk_rounds,
           progress=FLAGS.progress, snapshot_every=0)
  rel = tr.round - r0
  if rel % st["snapshot_every"] == 0 or phase_at(st["schedule"], rel) is None:
    tr.save_snapshot()
  os.makedirs(FLAGS.checkpoint_dir, exist_ok=True)
  tr.save_checkpoint(os.path.join(FLAGS.checkpoint_dir, name + ".npz"), include_buffer=False)


# ------------------------------------------------------------------------------------------
# Scoring
# ------------------------------------------------------------------------------------------
def available_panel(panel: list[str]) -> list[str]:
  """The members of `panel` that can play here (the authors' models need --reference_dir)."""
  from ospiel_team.bridge.agents import bidders
  out = []
  for name in panel:
    try:
      bidders.make_bidder(name, reference_dir=FLAGS.reference_dir)
    except (ValueError, OSError, ImportError):
      continue
    out.append(name)
  return out


def play(record: dict, key: str, model, opponent, dataset: str, boards: int) -> dict:
  """The stored result of one match (`model` for A), played and stored once."""
  if key in record["matches"]:
    return record["matches"][key]
  folder = os.path.join(FLAGS.workdir, "matches", key.replace("/", "_"))
  os.makedirs(folder, exist_ok=True)
  load0 = [round(x, 2) for x in os.getloadavg()]
  c0 = time.process_time()
  res = match.run_match(model, opponent, boards, dataset=dataset, seed=0,
                        progress=FLAGS.progress, reference_dir=FLAGS.reference_dir,
                        results_dir=folder)
  row = {"boards": res.boards, "mean": float(res.mean_imps), "se": float(res.stderr_clustered),
         "imps": [int(x) for x in res.imps],
         "clusters": [int(x) for x in np.unique(res.clusters, return_inverse=True)[1]],
         "cpu_s": round(time.process_time() - c0, 1), "load_before": load0,
         "date": datetime.date.today().isoformat()}
  record["matches"][key] = row
  return row


def score_snapshots(record: dict, name: str, st: dict, panel: list[str], positions,
                    save) -> None:
  """Scores the lineage's new snapshots: the panel, the start, the movement; keeps the leader."""
  snap_dir = os.path.join(FLAGS.workdir, name, "snapshots")
  if not os.path.isdir(snap_dir):
    return
  lin = record["lineages"].setdefault(name, {"snapshots": {}})
  start = os.path.join(FLAGS.workdir, "start_model.npz")
  for f in sorted(os.listdir(snap_dir)):
    snap = os.path.splitext(f)[0]
    if snap in lin["snapshots"]:
      continue
    path = os.path.join(snap_dir, f)
    scores = {opp: play(record, f"select/{name}/{snap}/{opp}", path, opp, "validation",
                        st["select_boards"])["mean"] for opp in panel}
    move = movement.movement(path, start, positions, st["select_boards"], dataset="validation",
                             results_dir=os.path.join(FLAGS.workdir, "matches",
                                                      f"start_{name}_{snap}"))
    lin["snapshots"][snap] = {"panel": scores, "movement": move,
                              "moved": movement.moved(move, min_changed=st["min_changed"]),
                              "digest": shipped_digests.digest(
                                  atomic_io.read_npz(path, "model file"))}
    keep_leader(lin, name, snap_dir, panel)
    save()


def keep_leader(lin: dict, name: str, snap_dir: str, panel: list[str]) -> None:
  """Copies the lineage's validation leader to ``--checkpoint_dir/NAME_leader.npz``."""
  snaps = lin["snapshots"]
  lead = max(snaps, key=lambda s: snaps[s]["panel"][panel[0]])  # the first on ties
  path = os.path.join(FLAGS.checkpoint_dir, f"{name}_leader.npz")
  if lin.get("leader") != lead or not os.path.isfile(path):
    with open(os.path.join(snap_dir, lead + ".npz"), "rb") as f:
      atomic_io.write_bytes(path, f.read())
    lin["leader"] = lead


# ------------------------------------------------------------------------------------------
# Gate, estimate, decision
# ------------------------------------------------------------------------------------------
def gate(record: dict, st: dict, r0: int) -> str | None:
  """"uninformative ..." when every plain lineage is past --gate_rounds and none moved."""
  plain = [lineage_name("plain", s) for s in st["seeds"]] if "plain" in st["arms"] else []
  if not plain:
    return None
  rounds = [record["progress"].get(n, 0) for n in plain]
  if min(rounds) < st["gate_rounds"]:
    return None
  moved = [any(s["moved"] for s in record["lineages"].get(n, {}).get("snapshots", {}).values())
           for n in plain]
  if any(moved):
    return None
  return (f"uninformative: no plain lineage moved from the start within {st['gate_rounds']} "
          f"rounds (movement gate, min_changed {st['min_changed']})")


def paired_effect(per_seed: list[dict]) -> dict:
  """Mean over seeds of the paired effects and its 95% interval.

  One seed: the board-level interval (clustered standard error, normal quantile). Two or more:
  the t interval of the per-seed effects (n - 1 degrees of freedom), which holds the spread
  between seeds as well as the boards' noise.
  """
  d = np.array([p["mean"] for p in per_seed], np.float64)
  n = len(d)
  if n == 1:
    se, q, method = per_seed[0]["se"], 1.959964, "one seed: clustered board-level interval"
  else:
    from scipy import stats
    se = float(np.std(d, ddof=1) / np.sqrt(n))
    q, method = float(stats.t.ppf(0.975, n - 1)), f"t interval over {n} seeds"
  m = float(d.mean())
  return {"seeds": n, "mean": m, "se": float(se), "ci95": [m - q * se, m + q * se],
          "method": method}


def seeds_needed(sd_effect: float, half_width: float = EXCLUDED_BELOW,
                 max_seeds: int = 100) -> int | None:
  """The fewest seeds n >= 2 whose t interval of paired effects has half-width <= `half_width`.

  With per-seed effects of standard deviation `sd_effect`, the half-width is
  ``t(0.975, n - 1) * sd_effect / sqrt(n)``; None when even `max_seeds` seeds are not enough.
  """
  from scipy import stats
  for n in range(2, max_seeds + 1):
    if stats.t.ppf(0.975, n - 1) * sd_effect / np.sqrt(n) <= half_width:
      return n
  return None


def power_check(record: dict, st: dict) -> dict | None:
  """The spread between seeds of the plain lineages, and the seeds it asks for.

  Each plain lineage's validation leader's IMPs/board against the panel's first member (its
  validation match, board noise included: an upper bound on the spread of the lineages); the
  paired effect's standard deviation is taken as sqrt(2) times theirs (two independent
  lineages per seed). None with fewer than two scored plain lineages.
  """
  panel = record.get("panel_available", [None])[0]
  scores = []
  for seed in st["seeds"]:
    lin = record["lineages"].get(lineage_name("plain", seed), {})
    if lin.get("leader"):
      scores.append(lin["snapshots"][lin["leader"]]["panel"][panel])
  if len(scores) < 2:
    return None
  sd = float(np.std(scores, ddof=1))
  return {"plain_leaders_vs": panel, "scores": scores, "sd_between_seeds": sd,
          "sd_paired_effect": float(np.sqrt(2) * sd),
          "seeds_needed": seeds_needed(float(np.sqrt(2) * sd))}


def decision(low: float, high: float) -> str:
  """The pre-registered rule on the effect's 95% interval (JPS minus plain, IMPs/board)."""
  if low > 0:
    return "established: " + match.interval_decision(low, high, "plain")
  if high < EXCLUDED_BELOW:
    return f"excluded: interval below +{EXCLUDED_BELOW} (the paper's smallest effect)"
  return "not decided: " + match.interval_decision(low, high, "plain")


def pooled(rows: list[dict]) -> dict:
  """IMPs/board over the boards of `rows` (different deal sets), clustered standard error."""
  imps = np.concatenate([r["imps"] for r in rows]).astype(float)
  clusters = np.concatenate([np.asarray(r["clusters"], np.int64) + (k << 40)
                             for k, r in enumerate(rows)])
  return {"boards": int(len(imps)), "mean": float(imps.mean()),
          "se": float(match.clustered_stderr(imps, clusters))}


def finish(record: dict, st: dict, save) -> None:
  """Selection (recorded first), the held-out paired matches, the effect and the decision."""
  names = [lineage_name(a, s) for a in st["arms"] for s in st["seeds"]]
  record["selected"] = {n: record["lineages"][n]["leader"] for n in names}
  save()  # the choice is on disk before any held-out board is played
  leader = {n: os.path.join(FLAGS.checkpoint_dir, f"{n}_leader.npz") for n in names}
  effects = {}
  for arm in (a for a in st["arms"] if a != "plain"):
    per_seed = []
    for s in st["seeds"]:
      a, b = lineage_name(arm, s), lineage_name("plain", s)
      rows = [play(record, f"final/{a}/{b}/{ds}", leader[a], leader[b], ds, n)
              for ds, n in st["heldout_boards"].items()]
      save()
      per_seed.append(dict(pooled(rows), seed=s))
    eff = paired_effect(per_seed)
    eff.update(per_seed=per_seed, decision=decision(*eff["ci95"]))
    effects[f"{arm} - plain"] = eff
  record["effect"] = effects
  record["finished"] = datetime.date.today().isoformat()
  save()


# ------------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------------
def load_record(path: str, st: dict) -> dict:
  """The record at `path` (refused if made with other settings), or a new one."""
  if os.path.exists(path):
    record = atomic_io.read_json(path, "study record")
    if record["settings"] != json.loads(json.dumps(st)):
      raise UserError(f"{path}: recorded with other settings; use another --out")
    return record
  return {"settings": st, "progress": {}, "lineages": {}, "matches": {}}


def prepare(record: dict, st: dict) -> tuple[list[str], np.ndarray]:
  """The available panel and the gate's fixed positions (from the start's model)."""
  from ospiel_team.bridge.agents.bidders import policy_net
  start_model = os.path.join(FLAGS.workdir, "start_model.npz")
  if not os.path.isfile(start_model):
    _, p, meta = policy_net.load_model(FLAGS.start)
    policy_net.save_model(start_model, p, meta)
  panel = available_panel(st["panel"])
  if not panel:
    raise UserError(f"no member of --panel {st['panel']} can play here")
  record["panel_available"] = panel
  return panel, movement.fixed_positions(start_model, deals=st["positions_deals"])


def train_all(record: dict, st: dict, panel: list[str], positions, save) -> str | None:
  """Turns of every lineage until done, the time box or --max_turns; the gate's stop or None."""
  r0 = start_round(FLAGS.start)
  ds = training_deals(st)
  deadline = time.time() + FLAGS.max_minutes * 60
  lineages = [(a, s) for s in st["seeds"] for a in st["arms"]]
  bar = tqdm.tqdm(total=st["schedule"][-1][0] * len(lineages), desc="study rounds",
                  disable=not FLAGS.progress)
  turns = 0
  while True:
    turns += 1
    active = 0
    for arm, seed in lineages:
      name = lineage_name(arm, seed)
      tr = open_lineage(arm, seed, st, ds, r0)
      may_train = (time.time() < deadline and (FLAGS.max_turns == 0
                                               or turns <= FLAGS.max_turns))
      if tr is not None and may_train:
        before = tr.round
        train_turn(tr, name, st, r0)
        bar.update(tr.round - before)
        active += 1
      record["progress"][name] = (tr.round - r0) if tr is not None else st["schedule"][-1][0]
      score_snapshots(record, name, st, panel, positions, save)
      save()
    record["power"] = power_check(record, st)
    save()
    stop = gate(record, st, r0)
    if stop or active == 0:
      bar.close()
      return stop


def compilation_cache() -> None:
  """JAX's persistent compilation cache (``JAX_COMPILATION_CACHE_DIR`` or the package cache).

  Every snapshot's bidder compiles the same network programs again; the cache keeps them
  across bidders and invocations. Compiled programs do not change results.
  """
  import jax

  from ospiel_team import paths
  folder = os.environ.get("JAX_COMPILATION_CACHE_DIR") or paths.cache_dir(
      "jax_compilation_cache")
  jax.config.update("jax_compilation_cache_dir", folder)
  jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
  jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def recorded_command(args: list[str]) -> str:
  """The command as the record keeps it: this machine's folders as WORKDIR and REFERENCE_DIR."""
  text = "python experiments/bridge_jps_at_scale/study.py " + " ".join(args)
  return re.sub(r"--(workdir|reference_dir)(=|\s+)\S+",
                lambda m: f"--{m.group(1)} {m.group(1).upper()}", text)


def run(argv) -> None:
  """The study's steps (see the module docstring)."""
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  compilation_cache()
  st = settings()
  os.makedirs(FLAGS.out, exist_ok=True)
  os.makedirs(FLAGS.workdir, exist_ok=True)
  path = os.path.join(FLAGS.out, "record.json")
  record = load_record(path, st)

  def save():
    atomic_io.write_json(path, record, indent=1)

  if "finished" in record or "stopped" in record:
    print(f"study already {'finished' if 'finished' in record else 'stopped'}: {path}")
    return
  record["command"] = recorded_command(sys.argv[1:])
  panel, positions = prepare(record, st)
  stop = train_all(record, st, panel, positions, save)
  if stop:
    record["stopped"] = stop
    save()
    print(stop)
    return
  end = st["schedule"][-1][0]
  if any(v < end for v in record["progress"].values()):
    print(f"time box reached; progress {record['progress']} in {path}")
    return
  finish(record, st, save)
  for k, eff in record["effect"].items():
    lo, hi = eff["ci95"]
    print(f"{k}: {eff['mean']:+.3f} IMPs/b [{lo:+.3f}, {hi:+.3f}]: {eff['decision']}")


def main(argv):
  """Runs the study; a user error is one line and a non-zero exit."""
  try:
    run(argv)
  except UserError as e:
    raise SystemExit(f"study: error: {e}") from None


if __name__ == "__main__":
  app.run(main)
