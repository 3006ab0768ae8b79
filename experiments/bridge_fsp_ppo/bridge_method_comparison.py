r"""Pre-registered comparison of bridge training methods from `a2c_longer` at equal CPU seconds.

Arms (`ARMS`; the pre-registration is ``experiments/bridge_fsp_ppo/PREREGISTRATION.md``): plain
self-play A2C (`ospiel_team.bridge.agents.training.a2c`), A2C with fictitious self-play against a
pool of past snapshots (`opponent_pool`; Heinrich, Lanctot & Silver, ICML 2015, as Kita et al.,
IEEE CoG 2024, use it), PPO (`ospiel_team.bridge.agents.training.ppo`; Schulman et al.,
arXiv:1707.06347, with GAE, arXiv:1506.02438) and PPO with the pool. Every run starts from the
shipped `a2c_longer` model (fresh Adam state) and trains for ``--cpu_minutes`` CPU minutes of
its training loop (`time.process_time`, all threads; `RoundTrainer.train(max_cpu_seconds=)`).

Per run (arm, seed):

1. train, saving the model at ``--snapshots`` equal fractions of the CPU budget;
2. select: each snapshot plays ``--select_boards`` boards of the shipped *validation* deals
   against `a2c_longer`; the best (highest IMPs/board) is the run's model;
3. evaluate (skipped with ``--pilot``): the run's model plays `a2c_longer` on the 2,000
   ``heldout`` and the 4,000 ``heldout2`` boards; the run's result is the IMPs/board over the
   6,000 boards.

Each run's record (settings, rounds, games, CPU seconds, games per CPU second, every match)
is written atomically to ``OUT/runs/ARM_seedS.json`` after each step; a rerun continues
where it stopped and a finished run does nothing. Training resumes from its checkpoint
(``WORKDIR/ARM/seedS/train``). ``OUT/summary.json`` and ``OUT/summary.md``: per arm, the mean
over its finished runs and the 95% Student t interval from the spread between runs, and the
pre-registered decision (kept if the interval lies above 0), given only once an arm has its
`REGISTERED_RUNS` runs, and which snapshot each run selected. ``OUT/secondary.json``: the
pre-registration's secondary comparisons (`CONTRASTS`, descriptive: differences of arms'
means with Welch's interval). The summary reads every finished run in ``OUT/runs``, so
drivers on disjoint ``--seeds`` can share one ``OUT`` and ``WORKDIR`` (never give two drivers
one seed).

  python experiments/bridge_fsp_ppo/bridge_method_comparison.py --workdir WORKDIR \
      --seeds 1,2,3,4,5,6 --cpu_minutes 30
  # the pilot (a few CPU minutes per arm, validation only, no decision):
  python experiments/bridge_fsp_ppo/bridge_method_comparison.py --pilot --cpu_minutes 3 \
      --seeds 1 --select_boards 300 --snapshots 2 --workdir WORKDIR \
      --out experiments/bridge_fsp_ppo/pilot
"""

import dataclasses
import json
import os
import platform
import time

import numpy as np
import scipy.stats
import tqdm
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import match as match_lib
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import trainers

FLAGS = flags.FLAGS
flags.DEFINE_string("workdir", "/tmp/bridge_fsp_ppo", "Training folders (resumed).")
flags.DEFINE_string("out", "experiments/bridge_fsp_ppo", "Run records and summary (resumed).")
flags.DEFINE_list("arms", ["a2c", "a2c_fsp", "ppo", "ppo_fsp"], "Arms to run (see ARMS).")
flags.DEFINE_list("seeds", ["1", "2", "3", "4", "5", "6"],
                  "Trainer seeds (one run per arm and seed).")
flags.DEFINE_float("cpu_minutes", 30.0, "CPU minutes of training per run.")
flags.DEFINE_integer("snapshots", 4, "Model snapshots per run, at equal fractions of the CPU "
                     "budget (the selection's candidates).")
flags.DEFINE_integer("select_boards", 1000, "Validation boards per snapshot (<= 1,000).")
flags.DEFINE_string("start", "a2c_longer", "Starting model and opponent of every match.")
flags.DEFINE_bool("pilot", False, "Pilot: training and validation selection only (no held-out "
                  "match, no decision).")
flags.DEFINE_bool("progress", True, "Progress bars.")

# The arms' settings (beyond A2CConfig's defaults), fixed by the pre-registration.
COMMON = dict(learning_rate=1e-5, deals_per_round=512, entropy_coef=0.01,
              entropy_coef_start=0.01, entropy_decay_rounds=0)
A2C = dict(algorithm="a2c", updates_per_round=8, batch_size=1024, overlap_learning=True)
PPO = dict(algorithm="ppo", clip_eps=0.2, gae_lambda=0.95, epochs_per_batch=4,
           minibatch_size=1024)
POOL = dict(opponent_pool_size=20, pool_snapshot_every=100, pool_probability=0.3)
ARMS = {"a2c": {**COMMON, **A2C}, "a2c_fsp": {**COMMON, **A2C, **POOL},
        "ppo": {**COMMON, **PPO}, "ppo_fsp": {**COMMON, **PPO, **POOL}}
HELDOUT = (("heldout", 2000), ("heldout2", 4000))
REGISTERED_RUNS = 6  # runs per arm the decision rule is for (the pre-registration)
# The pre-registration's secondary comparisons, descriptive only: (label, arm, minus this arm).
CONTRASTS = (("FSP minus plain (A2C)", "a2c_fsp", "a2c"),
             ("FSP minus plain (PPO)", "ppo_fsp", "ppo"),
             ("PPO minus A2C (plain)", "ppo", "a2c"),
             ("PPO minus A2C (FSP)", "ppo_fsp", "a2c_fsp"))


class RunRecord:
  """One run's JSON record, rewritten atomically at every step."""

  def __init__(self, path: str, init: dict):
    self.path = path
    self.data = json.load(open(path)) if os.path.exists(path) else init

  def save(self) -> None:
    atomic_io.write_text(self.path, json.dumps(self.data, indent=1) + "\n")


def _match(record: RunRecord, key: str, model: str, dataset: str, boards: int) -> dict:
  """The stored result of a match of `model` against the start, playing it if missing."""
  if key not in record.data["matches"]:
    t0, c0 = time.time(), time.process_time()
    res = match_lib.run_match(model_bidder.load_bidder(model), FLAGS.start, boards,
                              dataset=dataset, seed=0, progress=FLAGS.progress)
    record.data["matches"][key] = {
        "model": os.path.basename(model), "dataset": dataset, "boards": res.boards,
        "mean": res.mean_imps, "se": res.stderr_clustered,
        "imps": [int(x) for x in res.imps],
        "seconds": round(time.time() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}
    record.save()
  return record.data["matches"][key]


def run_one(arm: str, seed: int, train_ds) -> dict:
  """Trains, selects and evaluates one run (resuming); returns its record."""
  cfg = a2c.A2CConfig(**ARMS[arm], seed=seed)
  rdir = os.path.join(FLAGS.workdir, arm, f"seed{seed}")
  os.makedirs(os.path.join(rdir, "snapshots"), exist_ok=True)
  record = RunRecord(os.path.join(FLAGS.out, "runs", f"{arm}_seed{seed}.json"), {
      "arm": arm, "seed": seed, "config": dataclasses.asdict(cfg), "start": FLAGS.start,
      "cpu_budget_s": FLAGS.cpu_minutes * 60, "snapshots": [], "matches": {},
      "pilot": FLAGS.pilot, "machine": platform.platform(), "cpus": os.cpu_count()})
  if record.data.get("done"):
    return record.data
  if record.data["config"] != dataclasses.asdict(cfg) or (
      record.data["cpu_budget_s"] != FLAGS.cpu_minutes * 60):
    raise SystemExit(f"{record.path}: recorded with other settings; use another --out")
  budget = FLAGS.cpu_minutes * 60
  k = FLAGS.snapshots
  trainer = None
  for j in range(1, k + 1):
    snap = os.path.join(rdir, "snapshots", f"cpu_{j}of{k}.npz")
    if os.path.exists(snap):
      continue
    if trainer is None:
      trainer = trainers.make_trainer(cfg, train_ds, workdir=os.path.join(rdir, "train"),
                                 init_params_from=model_bidder.model_path(FLAGS.start))
    trainer.train(10**9, checkpoint_every=200, progress=FLAGS.progress,
                  max_cpu_seconds=budget * j / k)
    policy_net.save_model(snap, trainer.params, cfg, extra={
        "arm": arm, "seed": seed, "rounds": trainer.round, "games": trainer.games,
        "cpu_s": round(trainer.total_cpu, 1)})
    record.data["snapshots"].append({"file": os.path.basename(snap), "round": trainer.round,
                                     "games": trainer.games,
                                     "cpu_s": round(trainer.total_cpu, 1),
                                     "wall_s": round(trainer.total_wall, 1)})
    record.data["games_per_cpu_s"] = trainer.games / max(trainer.total_cpu, 1e-9)
    record.data["pool_rounds"] = sum(1 for r in trainer.log_rows if r.get("opponent", ""))
    record.data["rounds"] = trainer.round
    record.save()
  for s in record.data["snapshots"]:
    _match(record, f"select/{s['file']}", os.path.join(rdir, "snapshots", s["file"]),
           "validation", FLAGS.select_boards)
  sel = max(record.data["snapshots"],
            key=lambda s: record.data["matches"][f"select/{s['file']}"]["mean"])
  record.data["selected"] = sel["file"]
  if not FLAGS.pilot:
    for name, boards in HELDOUT:
      _match(record, f"final/{name}", os.path.join(rdir, "snapshots", sel["file"]), name,
             boards)
    imps = np.concatenate([record.data["matches"][f"final/{n}"]["imps"] for n, _ in HELDOUT])
    record.data["result_imps_per_board"] = float(np.mean(imps))
  record.data["done"] = True
  record.save()
  return record.data


def t_interval(xs) -> tuple[float, float, float, float]:
  """(mean, s.d., low, high) of the 95% Student t interval of the mean (NaN below 2 runs)."""
  xs = np.asarray(xs, float)
  m = float(xs.mean())
  if len(xs) < 2:
    return m, float("nan"), float("nan"), float("nan")
  sd = float(xs.std(ddof=1))
  h = float(scipy.stats.t.ppf(0.975, len(xs) - 1)) * sd / np.sqrt(len(xs))
  return m, sd, m - h, m + h


def welch_interval(xs, ys) -> dict:
  """Difference of the means of `xs` and `ys` with Welch's 95% interval (unequal variances;
  Welch-Satterthwaite degrees of freedom)."""
  xs, ys = np.asarray(xs, float), np.asarray(ys, float)
  vx, vy = xs.var(ddof=1) / len(xs), ys.var(ddof=1) / len(ys)
  df = (vx + vy) ** 2 / (vx ** 2 / (len(xs) - 1) + vy ** 2 / (len(ys) - 1))
  d = float(xs.mean() - ys.mean())
  h = float(scipy.stats.t.ppf(0.975, df)) * float(np.sqrt(vx + vy))
  return {"difference": d, "ci95": [d - h, d + h], "df": float(df)}


def contrasts(records: list[dict]) -> list[dict]:
  """The secondary comparisons between arms (`CONTRASTS`) over their finished runs' held-out
  results; only those whose two arms have at least 2 runs each. Descriptive: no decision."""
  results = {}
  for r in records:
    if r.get("done") and "result_imps_per_board" in r:
      results.setdefault(r["arm"], []).append(r["result_imps_per_board"])
  out = []
  for label, arm, base in CONTRASTS:
    xs, ys = results.get(arm, []), results.get(base, [])
    if len(xs) >= 2 and len(ys) >= 2:
      out.append({"contrast": label, "arm": arm, "minus": base, "runs": [len(xs), len(ys)],
                  **welch_interval(xs, ys)})
  return out


def finished_records() -> list[dict]:
  """Every finished run in ``OUT/runs`` (this driver's and any other's), by arm and seed."""
  rdir = os.path.join(FLAGS.out, "runs")
  records = [json.load(open(os.path.join(rdir, f))) for f in sorted(os.listdir(rdir))
             if f.endswith(".json")]
  return sorted((r for r in records if r.get("done")), key=lambda r: (r["arm"], r["seed"]))


def summarize(records: list[dict]) -> dict:
  """Per arm: runs, cost, and (outside a pilot) the estimate and the pre-registered decision."""
  out = {}
  for arm in FLAGS.arms:
    rs = [r for r in records if r["arm"] == arm and r.get("done")]
    if not rs:
      continue
    row = {"runs": len(rs), "seeds": [r["seed"] for r in rs],
           "games_per_cpu_s": float(np.mean([r["games_per_cpu_s"] for r in rs])),
           "rounds": [r["rounds"] for r in rs],
           "selected_snapshot": [1 + [s["file"] for s in r["snapshots"]].index(r["selected"])
                                 for r in rs],
           "validation_of_selected": [
               r["matches"][f"select/{r['selected']}"]["mean"] for r in rs]}
    if not FLAGS.pilot:
      m, sd, lo, hi = t_interval([r["result_imps_per_board"] for r in rs])
      decision = match_lib.interval_decision(lo, hi, FLAGS.start)
      if len(rs) < REGISTERED_RUNS:  # the rule is for all the registered runs
        decision = f"none yet ({len(rs)} of {REGISTERED_RUNS} runs)"
      row.update(mean=m, sd=sd, ci95=[lo, hi], decision=decision)
    out[arm] = row
  return out


def write_summary(summary: dict, secondary: list[dict]) -> None:
  lines = [f"# {'Pilot (no decision)' if FLAGS.pilot else 'Method comparison'}: arms from "
           f"`{FLAGS.start}`, {FLAGS.cpu_minutes:g} CPU minutes of training per run", "",
           "| arm | runs | games / CPU s | rounds | selected: IMPs/b on validation |"
           + ("" if FLAGS.pilot else " IMPs/b vs start (6,000 held-out boards) [95% t] | "
              "decision |"),
           "|---|---:|---:|---|---|" + ("" if FLAGS.pilot else "---|---|")]
  for arm, r in summary.items():
    val = ", ".join(f"{v:+.3f}" for v in r["validation_of_selected"])
    line = (f"| {arm} | {r['runs']} | {r['games_per_cpu_s']:.0f} | "
            f"{', '.join(map(str, r['rounds']))} | {val} |")
    if not FLAGS.pilot:
      lo, hi = r["ci95"]
      interval = f"[{lo:+.3f}, {hi:+.3f}]" if lo == lo else "(one run: no interval)"
      line += f" {r['mean']:+.3f} {interval} | {r['decision']} |"
    lines.append(line)
  if secondary:
    lines += ["", "Secondary (descriptive, no decision): differences of the arms' mean held-out "
              "IMPs/b, Welch 95% interval", "", "| contrast | runs | difference [95%] |",
              "|---|---|---|"]
    lines += [f"| {c['contrast']} | {c['runs'][0]} vs {c['runs'][1]} | {c['difference']:+.3f} "
              f"[{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}] |" for c in secondary]
  atomic_io.write_text(os.path.join(FLAGS.out, "summary.md"), "\n".join(lines) + "\n")
  if not FLAGS.pilot:
    atomic_io.write_text(os.path.join(FLAGS.out, "secondary.json"),
                         json.dumps(secondary, indent=1) + "\n")
  atomic_io.write_text(os.path.join(FLAGS.out, "summary.json"),
                       json.dumps(summary, indent=1) + "\n")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  unknown = [a for a in FLAGS.arms if a not in ARMS]
  if unknown:
    raise SystemExit(f"bridge_method_comparison: error: unknown arms {unknown}; "
                     f"known: {sorted(ARMS)}")
  os.makedirs(os.path.join(FLAGS.out, "runs"), exist_ok=True)
  train_ds = dataset_lib.shipped_training_deals()
  jobs = [(arm, int(s)) for s in FLAGS.seeds for arm in FLAGS.arms]  # seeds outer: balanced
  for arm, seed in tqdm.tqdm(jobs, desc="runs", disable=not FLAGS.progress):
    run_one(arm, seed, train_ds)
    records = finished_records()
    write_summary(summarize(records), [] if FLAGS.pilot else contrasts(records))
  print(open(os.path.join(FLAGS.out, "summary.md")).read())


if __name__ == "__main__":
  app.run(main)
