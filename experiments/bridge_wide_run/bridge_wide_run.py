r"""The pre-registered wide network's self-play run: its progress, selection, estimate, decision.

The pre-registration is ``experiments/bridge_wide_run/PREREGISTRATION.md``: a 512 x 2 network,
started from a distillation of `a2c_longer` (``experiments/bridge_wide_start``), trains by
self-play A2C for ``--budget_cpu_minutes`` CPU minutes (`ospiel-team-train-bridge`, resumed
across sessions from ``--run``). This script reads that run and, each time it is run,

1. records the run's progress from its training log (``RUN/log.csv``: rounds, games, CPU
   seconds, and the trainer's own evaluations against the natural bidder on the first
   ``--eval_boards`` validation boards), beside the start's and ``--opponent``'s results on
   the same boards (played once, `match.run_match`, seed 0, as the trainer plays them);
2. the selection's matches (validation deals only): the start and every snapshot so far
   (``RUN/snapshots``) play ``--opponent`` on ``--select_boards`` validation boards (seed 0);
3. stops there while the run has not used its CPU budget; once it has, the highest IMPs/board
   is selected, and written into the record before any held-out board is played;
4. the estimate: the selected model plays ``--opponent`` on the 2,000 ``heldout`` and the
   4,000 ``heldout2`` boards (seed 0); the result is the mean IMPs/board over the 6,000 boards
   with the standard error clustered by deal (`match.clustered_stderr`) and its normal 95%
   interval;
5. the decision (`match.interval_decision`): kept if the interval lies above 0, worse if
   below, otherwise not established.

Candidates whose files were lost (the record's ``lost`` part: pre-registration amendment 3)
keep their validation matches there and are not selected; the start need not exist once it
is among them. So that a later loss cannot remove the selection's choice, the candidate that
leads the validation matches so far is copied to ``--keep_leader`` (committed with the
record, its digest in ``record["leader"]``); when its snapshot is gone, that copy stands in
for it.

The record (``OUT/record.json``) is written atomically after every step, and every match
stores its boards under ``--match_dir`` as they are played (`match.BoardStore`), so the same
command, interrupted and run again, in this or a later session, goes on where it stopped; a
finished record is not played again. The record holds the content digest of every model it
scored: a rerun after one of them changed is refused.

  python experiments/bridge_wide_run/bridge_wide_run.py --run RUN \
      --start WORKDIR/start.npz --match_dir MATCHES \
      --keep_leader experiments/bridge_wide_run/checkpoints/wide_run_leader.npz

``RUN`` is the training run's ``--workdir``, ``WORKDIR`` that of `bridge_wide_start.py` and
``MATCHES`` any folder for the stored boards.
"""

from __future__ import annotations

import csv
import datetime
import glob
import os
import platform
import sys
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import shipped_digests
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("run", None, "Workdir of the training run (its log.csv and snapshots/).")
flags.DEFINE_string("start", None, "The run's start model (.npz): a candidate of the selection.")
flags.DEFINE_string("opponent", "a2c_longer", "Opponent of the selection and the estimate.")
flags.DEFINE_float("budget_cpu_minutes", 360.0, "The run's pre-registered CPU budget: nothing "
                   "is selected before its training log shows it used.", lower_bound=0.0)
flags.DEFINE_integer("eval_boards", 400, "Validation boards of the trainer's own evaluations "
                     "against the natural bidder (--eval_boards of the run).", lower_bound=1,
                     upper_bound=1000)
flags.DEFINE_integer("select_boards", 1000, "Validation boards per candidate.", lower_bound=1,
                     upper_bound=1000)
flags.DEFINE_list("heldout_boards", ["2000", "4000"], "Boards of heldout and of heldout2.")
flags.DEFINE_string("match_dir", "/tmp/bridge_wide_run_matches", "Where every match stores its "
                    "boards as they are played (resumed).")
flags.DEFINE_string("out", "experiments/bridge_wide_run", "Folder of record.json.")
flags.DEFINE_string("keep_leader", None, "Where to keep a copy of the validation leader so far "
                    "(a .npz path; None: not kept).")
flags.DEFINE_bool("progress", True, "Show progress bars.")

HELDOUT = ("heldout", "heldout2")
HELDOUT_SIZES = (2000, 4000)  # their deals


def training_progress(run: str, budget_cpu_s: float) -> dict:
  """The run's counters from its training log: last row, evaluations, and whether it is done."""
  path = os.path.join(run, "log.csv")
  if not os.path.isfile(path):
    raise SystemExit(f"bridge_wide_run: error: {path!r} does not exist (is --run a training "
                     "workdir?)")
  with open(path, newline="") as f:
    rows = list(csv.DictReader(f))
  if not rows:
    raise SystemExit(f"bridge_wide_run: error: {path!r} has no round yet")
  last = rows[-1]
  cpu = float(last["cpu_s"])
  evals = [{"round": int(r["round"]), "games": int(r["games"]), "cpu_s": float(r["cpu_s"]),
            "boards": int(r["eval_boards"]), "imps_vs_natural": float(r["eval_imps_vs_natural"]),
            "se": float(r["eval_stderr"])}
           for r in rows if r.get("eval_imps_vs_natural", "") not in ("", None)]
  return {"round": int(last["round"]), "games": int(last["games"]), "cpu_s": cpu,
          "budget_cpu_s": budget_cpu_s, "finished": cpu >= budget_cpu_s, "evals": evals,
          "date": datetime.date.today().isoformat(), "commit": report.short_commit()}


def candidates(run: str, start: str | None, leader: dict | None = None) -> dict[str, str]:
  """The selection's candidates by name: the start (None: lost), then every snapshot in round
  order; the kept `leader` (``{"name", "file"}``) stands in for its snapshot when that is gone."""
  snaps = sorted(glob.glob(os.path.join(run, "snapshots", "round_*.npz")))
  cands = {} if start is None else {"start": start}
  cands.update({os.path.splitext(os.path.basename(p))[0]: p for p in snaps})
  if leader is not None and leader["name"] not in cands and os.path.isfile(leader["file"]):
    cands[leader["name"]] = leader["file"]
  return dict(sorted(cands.items(), key=lambda kv: (kv[0] != "start", kv[0])))


def digest(path: str) -> str:
  """The content digest of a model file."""
  return shipped_digests.digest(atomic_io.read_npz(path, "model file"))


def play(record: dict, key: str, model: str, opponent: str, dataset: str, boards: int) -> dict:
  """The stored result of one match of `model` (a path or name) against `opponent`."""
  if key in record["matches"]:
    return record["matches"][key]
  folder = os.path.join(FLAGS.match_dir, key.replace("/", "_"))
  os.makedirs(folder, exist_ok=True)
  load0 = [round(x, 2) for x in os.getloadavg()]
  c0, w0 = time.process_time(), time.time()
  bidder = model_bidder.load_bidder(model) if model.endswith(".npz") else model
  res = match.run_match(bidder, opponent, boards, dataset=dataset, seed=0,
                        progress=FLAGS.progress, results_dir=folder)
  row = {"model": os.path.basename(model), "opponent": opponent, "dataset": dataset,
         "boards": res.boards, "mean": float(res.mean_imps), "se": float(res.stderr_clustered),
         "imps": [int(x) for x in res.imps],
         "clusters": [int(x) for x in np.unique(res.clusters, return_inverse=True)[1]],
         "cpu_s": round(time.process_time() - c0, 1), "wall_s": round(time.time() - w0, 1),
         "load_before": load0, "load_after": [round(x, 2) for x in os.getloadavg()],
         "date": datetime.date.today().isoformat(), "commit": report.short_commit()}
  record["matches"][key] = row
  return row


def pooled(rows: list[dict]) -> dict:
  """Mean IMPs/board over the boards of `rows`, clustered standard error, normal 95% interval.

  The clusters of different matches are kept apart (their deals are different deals).
  """
  imps = np.concatenate([r["imps"] for r in rows]).astype(float)
  clusters = np.concatenate([np.asarray(r["clusters"], np.int64) + (k << 40)
                             for k, r in enumerate(rows)])
  mean = float(imps.mean())
  se = float(match.clustered_stderr(imps, clusters))
  return {"boards": int(len(imps)), "mean": mean, "se": se,
          "ci95": [mean - 1.959964 * se, mean + 1.959964 * se]}


def validation_leader(record: dict, cands: dict[str, str]) -> str:
  """The candidate with the highest IMPs/board in its validation match (the first on ties)."""
  return max(cands, key=lambda n: record["matches"][f"select/{n}"]["mean"])


def keep_leader(record: dict, cands: dict[str, str]) -> None:
  """Copies the validation leader among `cands` to ``--keep_leader`` (if not there already)."""
  name = validation_leader(record, cands)
  leader = {"name": name, "file": FLAGS.keep_leader, "digest": record["models"][name]}
  kept = os.path.isfile(FLAGS.keep_leader) and digest(FLAGS.keep_leader) == leader["digest"]
  if not kept:
    with open(cands[name], "rb") as f:
      atomic_io.write_bytes(FLAGS.keep_leader, f.read())
  record["leader"] = leader


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  if not FLAGS.run or not FLAGS.start:
    raise SystemExit("bridge_wide_run: error: --run and --start are required")
  try:
    heldout = dict(zip(HELDOUT, (int(b) for b in FLAGS.heldout_boards), strict=True))
  except ValueError:
    heldout = {}
  sizes = zip(heldout.values(), HELDOUT_SIZES, strict=True) if heldout else ()
  if not heldout or not all(1 <= b <= n for b, n in sizes):
    raise SystemExit(f"bridge_wide_run: error: --heldout_boards must be two integers, at most "
                     f"{HELDOUT_SIZES[0]} and {HELDOUT_SIZES[1]}, got {FLAGS.heldout_boards}")
  progress = training_progress(FLAGS.run, FLAGS.budget_cpu_minutes * 60)
  os.makedirs(FLAGS.out, exist_ok=True)
  path = os.path.join(FLAGS.out, "record.json")
  settings = {"opponent": FLAGS.opponent, "budget_cpu_s": FLAGS.budget_cpu_minutes * 60,
              "eval_boards": FLAGS.eval_boards, "select_boards": FLAGS.select_boards,
              "heldout": heldout}
  if os.path.exists(path):
    record = atomic_io.read_json(path, "wide run record")
    if record["settings"] != settings:
      raise SystemExit(f"{path}: recorded with other settings; use another --out")
  else:
    record = {"settings": settings, "matches": {}, "models": {},
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)"}
  record["command"] = ("python experiments/bridge_wide_run/bridge_wide_run.py "
                       + " ".join(sys.argv[1:]))
  old = record.get("training", {})
  if any(old.get(k) != progress[k] for k in ("round", "cpu_s", "evals")):
    record["training"] = progress  # a rerun with nothing new leaves the record as it was

  def save():
    atomic_io.write_json(path, record, indent=1)

  start_lost = "start" in record.get("lost", {}).get("models", {})
  if not start_lost and not os.path.isfile(FLAGS.start):
    raise SystemExit(f"bridge_wide_run: error: --start {FLAGS.start!r} does not exist")

  def check_model(name: str, model: str) -> None:
    d = digest(model)
    if record["models"].setdefault(name, d) != d:
      raise SystemExit(f"{path}: the model {name!r} ({model}) differs from the one the record "
                       "scored; finish it with that file, or start another --out")

  if not start_lost:
    check_model("start", FLAGS.start)
  if FLAGS.opponent in model_bidder.SHIPPED_MODELS or FLAGS.opponent.endswith(".npz"):
    check_model("opponent", model_bidder.model_path(FLAGS.opponent))
  for name, model in (("start", FLAGS.start), ("opponent", FLAGS.opponent)):
    play(record, f"reference/{name}", model, "natural", "validation", FLAGS.eval_boards)
    save()
  cands = candidates(FLAGS.run, None if start_lost else FLAGS.start, record.get("leader"))
  for name, model in cands.items():  # the selection's matches, played as snapshots appear
    check_model(name, model)
    play(record, f"select/{name}", model, FLAGS.opponent, "validation", FLAGS.select_boards)
    save()
  if FLAGS.keep_leader and cands:
    keep_leader(record, cands)
    save()
  if not progress["finished"]:
    print(f"training not finished: {progress['cpu_s']:.0f} of {progress['budget_cpu_s']:.0f} "
          f"CPU s at round {progress['round']}; progress recorded in {path}")
    return
  record["selected"] = validation_leader(record, cands)
  save()  # the choice is on disk before any held-out board is played
  for name, boards in heldout.items():
    play(record, f"final/{name}", cands[record["selected"]], FLAGS.opponent, name, boards)
    save()
  result = pooled([record["matches"][f"final/{n}"] for n in heldout])
  result["decision"] = match.interval_decision(*result["ci95"], FLAGS.opponent)
  record["result"] = result
  save()
  print(f"selected {record['selected']}: {result['mean']:+.3f} ± {result['se']:.3f} IMPs/b vs "
        f"{FLAGS.opponent} on {result['boards']} held-out boards: {result['decision']}")


if __name__ == "__main__":
  app.run(main)
