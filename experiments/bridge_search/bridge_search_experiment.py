r"""The pre-registered experiment on search at play time (``experiments/bridge_search``).

  python experiments/bridge_search/bridge_search_experiment.py

Stage 1 (selection, validation deals only): each of ``--candidates`` plays ``--select_boards``
boards of the shipped ``validation`` deals (seed 1) against ``--opponent``; the candidate with
the highest IMPs/board is selected and written into the record before any held-out board is
played. Stage 2 (the estimate): the selected bidder plays the 2,000 ``heldout`` and the 4,000
``heldout2`` boards (seed 0) against ``--opponent``; the result is the IMPs/board over the
6,000 boards with the standard error clustered by deal (one board per deal: the plain one)
and its normal 95% interval. Decision (`match.interval_decision`): kept if the interval lies
above 0, worse if below 0, otherwise not established.

Every match stores its boards in ``--workdir`` in batches of ``--batch_boards`` as they are
played (`match.BoardStore`; about 40 KB per 50 boards), and the record (``OUT/record.json``,
written atomically) after each match, so the same command, interrupted and run again, in this
or a later session, goes on where it stopped; a finished experiment rerun does nothing. The
record holds the content digest of every model file the bidders read (the searched policy,
the opponent, the double-dummy network): a rerun after one of them changed (a re-pointed
``best``, a retrained network) is refused. The search's own counters (CPU seconds per call,
calls searched and changed) are recorded per match run (boards replayed from the workdir cost
nothing and are not counted).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dd_net
from ospiel_team.bridge import shipped_digests
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.search import search_bidder
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_list("candidates", ["search:best?dd=net&k=32&min_z=0",
                                 "search:best?dd=net&k=32&min_z=1"],
                  "Search bidders compared on validation deals (stage 1).")
flags.DEFINE_string("opponent", "best", "The bidder they play.")
flags.DEFINE_integer("select_boards", 500, "Validation boards per candidate.")
flags.DEFINE_list("final_boards", ["2000", "4000"],
                  "Boards of heldout and of heldout2 in stage 2 (the whole sets).")
flags.DEFINE_integer("batch_boards", 100, "Boards per stored batch.")
flags.DEFINE_string("workdir", "experiments/bridge_search/boards",
                    "Folder of the stored boards (committed as the experiment goes: the "
                    "checkpoints a later session resumes from).")
flags.DEFINE_string("out", "experiments/bridge_search", "Folder of the record.")
flags.DEFINE_bool("progress", True, "Show progress bars.")

SELECT = ("validation", 1)


def model_digests(specs) -> dict[str, str]:
  """The content digest of each model file the bidders `specs` read, by model name.

  The searched policy of each ``search:`` spec, each plain model bidder, and the double-dummy
  network: an experiment that runs over several sessions must not change them halfway (a
  re-pointed ``best``, a retrained ``dd_net.npz``).
  """
  names = set()
  for spec in specs:
    name = spec[len(search_bidder.PREFIX):].partition("?")[0] if (
        search_bidder.is_search_spec(spec)) else spec
    if name in model_bidder.SHIPPED_MODELS or name.endswith(".npz"):
      names.add(name)
  files = {name: model_bidder.model_path(name) for name in names}
  files["dd_net"] = dd_net.SHIPPED_MODEL
  return {name: shipped_digests.digest(atomic_io.read_npz(path, "model file"))
          for name, path in sorted(files.items())}


def _match(record: dict, key: str, spec: str, dataset: str, seed: int, boards: int) -> dict:
  """The stored result of one match, played (resuming from the workdir) if missing."""
  if key in record["matches"] and record["matches"][key]["boards"] == boards:
    return record["matches"][key]
  bidder = bidders.make_bidder(spec)
  folder = os.path.join(FLAGS.workdir, key.replace("/", "_"))
  os.makedirs(folder, exist_ok=True)
  load0 = [round(x, 2) for x in os.getloadavg()]
  c0, w0 = time.process_time(), time.time()
  res = match.run_match(bidder, FLAGS.opponent, boards, dataset=dataset, seed=seed,
                        batch_boards=FLAGS.batch_boards, progress=FLAGS.progress,
                        results_dir=folder)
  s = bidder.stats
  row = {"spec": spec, "dataset": dataset, "seed": seed, "boards": res.boards,
         "mean": float(res.mean_imps), "se": float(res.stderr_clustered),
         "imps": [int(x) for x in res.imps], "commit": report.short_commit(),
         "date": datetime.date.today().isoformat(), "load_before": load0,
         "load_after": [round(x, 2) for x in os.getloadavg()],
         "last_run": {"calls": s.calls, "searched": s.searched, "changed": s.changed,
                      "low_ess": s.low_ess, "one_candidate": s.one_candidate,
                      "cpu_s_per_call": s.cpu_seconds / max(s.calls, 1),
                      "dd_share_of_search_cpu": s.dd_cpu_seconds / max(s.cpu_seconds, 1e-9),
                      "process_cpu_s": time.process_time() - c0,
                      "wall_s": time.time() - w0}}
  record["matches"][key] = row
  return row


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  heldout = tuple(zip(("heldout", "heldout2"), (int(b) for b in FLAGS.final_boards),
                      strict=True))
  for spec in FLAGS.candidates:  # a bad spec fails here, before any board is played
    bidders.make_bidder(spec)
  os.makedirs(FLAGS.out, exist_ok=True)
  path = os.path.join(FLAGS.out, "record.json")
  settings = {"candidates": list(FLAGS.candidates), "opponent": FLAGS.opponent,
              "select_boards": FLAGS.select_boards, "heldout": [list(h) for h in heldout]}
  models = model_digests([*FLAGS.candidates, FLAGS.opponent])
  if os.path.exists(path):
    record = atomic_io.read_json(path, "search experiment record")
    if record["settings"] != settings:
      raise SystemExit(f"{path}: recorded with other settings; use another --out")
    changed = sorted(k for k in set(models) | set(record.get("models", models))
                     if record.get("models", models).get(k) != models.get(k))
    if changed:
      raise SystemExit(f"{path}: the model files {changed} differ from the ones the experiment "
                       "started with; finish it with those, or start another --out")
    record.setdefault("models", models)
  else:
    record = {"settings": settings, "matches": {}, "models": models,
              "command": "python experiments/bridge_search/bridge_search_experiment.py " + " ".join(
                  sys.argv[1:]),
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)"}

  def save():
    atomic_io.write_json(path, record, indent=1)

  for i, spec in enumerate(FLAGS.candidates):
    _match(record, f"select/{i}", spec, *SELECT, FLAGS.select_boards)
    save()
  selected = max(range(len(FLAGS.candidates)),
                 key=lambda i: record["matches"][f"select/{i}"]["mean"])
  record["selected"] = FLAGS.candidates[selected]
  save()  # the choice is on disk before any held-out board is played
  for name, boards in heldout:
    _match(record, f"final/{name}", record["selected"], name, 0, boards)
    save()
  imps = np.concatenate([record["matches"][f"final/{n}"]["imps"] for n, _ in heldout])
  mean = float(imps.mean())
  se = float(match.clustered_stderr(imps, np.arange(len(imps))))
  record["result"] = {"boards": int(len(imps)), "mean": mean, "se": se,
                      "ci95": [mean - 1.96 * se, mean + 1.96 * se],
                      "decision": match.interval_decision(mean - 1.96 * se, mean + 1.96 * se,
                                                          "the policy alone")}
  save()
  print(json.dumps(record["result"], indent=1))


if __name__ == "__main__":
  app.run(main)
