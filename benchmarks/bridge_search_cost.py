r"""Cost per call of the play-time search bidder, and a small match of it against its policy.

  nice -n 10 python benchmarks/bridge_search_cost.py --ks 4,8,16 --cost_boards 3 \
      --match_boards 40 --workdir /tmp/search_match --out results/bridge/search_bidder.json

Part 1, cost: for each K of ``--ks``, ``search:<model>?k=K`` (other options at their defaults,
`search_bidder.SearchBidderOptions`) plays ``--cost_boards`` boards of the *validation* deals
against ``<model>``; the bidder's own counters give the CPU seconds (`time.process_time`, which
counts DDS's threads too) per call, per searched call, and of the double-dummy solver per deal
solved, and how often the search ran, changed the call or fell back.

Part 2, match: ``--match_spec`` (default ``search:best``) against ``--match_opponent``
(default ``best``) on ``--match_boards`` boards of ``--match_dataset`` (default ``heldout2``:
deals not looked at while the search was written), the duplicate IMPs per board with the
standard error clustered by deal. The boards are stored in ``--workdir`` in batches of
``--batch_boards`` as they are played (`match.BoardStore`), so the same command, killed and run
again (also in a later session), resumes where it stopped (a workdir holds one match: another
``--match_boards`` needs another workdir). ``--skip_cost`` runs the match only (the cost part
of an existing ``--out`` is kept).

The record (``--out``) holds the command, commit and date of each part, the machine load before
and after each, and the numbers; the match's CPU counters cover only the boards it played in
its last run (boards read back from ``--workdir`` cost nothing). A small match is evidence,
not a claim: its interval is wide.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import time

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("model", "best", "Policy model searched in the cost part.")
flags.DEFINE_list("ks", ["4", "8", "16"], "Values of K (deals solved per searched call).")
flags.DEFINE_integer("cost_boards", 3, "Validation boards per K in the cost part.")
flags.DEFINE_bool("skip_cost", False, "Run only the match (keep the cost part of --out).")
flags.DEFINE_string("match_spec", "search:best", "Bidder A of the match.")
flags.DEFINE_string("match_opponent", "best", "Bidder B of the match.")
flags.DEFINE_string("match_dataset", "heldout2", "Deals of the match.")
flags.DEFINE_integer("match_boards", 40, "Boards of the match (0: no match).")
flags.DEFINE_integer("match_seed", 0, "Seed of the match's board order and uniforms.")
flags.DEFINE_integer("batch_boards", 4, "Boards per stored batch of the match.")
flags.DEFINE_string("workdir", "/tmp/bridge_search_match", "Folder of the match's boards.")
flags.DEFINE_string("out", "results/bridge/search_bidder.json", "The record.")


def _load() -> list[float]:
  return [round(x, 2) for x in os.getloadavg()]




def _stats_row(bidder, cpu: float, wall: float) -> dict:
  s = bidder.stats
  searched = max(s.searched, 1)
  return {
      "calls": s.calls, "searched": s.searched, "changed": s.changed, "low_ess": s.low_ess,
      "one_candidate": s.one_candidate, "deals_solved": s.deals_solved,
      "cpu_s_per_call": s.cpu_seconds / max(s.calls, 1),
      "cpu_s_per_searched_call": s.cpu_seconds / searched,
      "dd_cpu_s_per_deal": s.dd_cpu_seconds / max(s.deals_solved, 1),
      "deals_per_searched_call": s.deals_solved / searched,
      "dd_share_of_search_cpu": s.dd_cpu_seconds / max(s.cpu_seconds, 1e-9),
      "process_cpu_s": cpu, "wall_s": wall}


def cost_part() -> list[dict]:
  rows = []
  for k in (int(x) for x in FLAGS.ks):
    spec = f"search:{FLAGS.model}?k={k}"
    bidder = bidders.make_bidder(spec)
    load0 = _load()
    c0, w0 = time.process_time(), time.time()
    match.run_match(bidder, FLAGS.model, FLAGS.cost_boards, dataset="validation", seed=1,
                    progress=False)
    row = {"spec": spec, "boards": FLAGS.cost_boards, "dataset": "validation",
           "load_before": load0, "load_after": _load(),
           **_stats_row(bidder, time.process_time() - c0, time.time() - w0)}
    print(json.dumps(row), flush=True)
    rows.append(row)
  return rows


def match_part() -> dict:
  bidder = bidders.make_bidder(FLAGS.match_spec)
  load0 = _load()
  c0, w0 = time.process_time(), time.time()
  os.makedirs(FLAGS.workdir, exist_ok=True)
  r = match.run_match(bidder, FLAGS.match_opponent, FLAGS.match_boards,
                      dataset=FLAGS.match_dataset, seed=FLAGS.match_seed,
                      batch_boards=FLAGS.batch_boards, progress=False,
                      results_dir=FLAGS.workdir)
  s = r.summary()
  out = {"bidder_a": FLAGS.match_spec, "bidder_b": FLAGS.match_opponent,
         "dataset": FLAGS.match_dataset, "seed": FLAGS.match_seed, "boards": r.boards,
         "imps_per_board": s["imps_per_board_for_a"], "stderr_clustered": s["stderr_clustered"],
         "ci95": [s["ci95_low"], s["ci95_high"]], "clusters": s["clusters"],
         "boards_won_a_b_tied": [s["boards_won_by_a"], s["boards_won_by_b"],
                                 s["boards_tied"]],
         "imps": [int(x) for x in r.imps],
         "load_before": load0, "load_after": _load(),
         "note": "evidence, not a claim: a small match"}
  if bidder.stats.calls:  # boards replayed from --workdir are not counted
    out["played_in_this_run"] = _stats_row(bidder, time.process_time() - c0, time.time() - w0)
  print(json.dumps({k: v for k, v in out.items() if k != "imps"}), flush=True)
  return out


def main(argv):
  del argv
  record = {}
  if FLAGS.skip_cost and os.path.isfile(FLAGS.out):
    with open(FLAGS.out, encoding="utf-8") as f:
      record = json.load(f)
  provenance = {"command": "python benchmarks/bridge_search_cost.py " + " ".join(sys.argv[1:]),
                "commit": report.short_commit(), "date": datetime.date.today().isoformat(),
                "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)"}
  if not FLAGS.skip_cost:  # the top-level provenance is the cost part's
    record.update(provenance)
    record["cost"] = cost_part()
    atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  if FLAGS.match_boards > 0:
    record["match"] = {**provenance, **match_part()}
  atomic_io.write_text(FLAGS.out, json.dumps(record, indent=1) + "\n")
  print(f"wrote {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
