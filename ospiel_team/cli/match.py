r"""Command line of duplicate bridge-bidding matches (`ospiel-team-match`).

  ospiel-team-match --bidder_a natural --bidder_b random --boards 1000 \
      [--dataset heldout|heldout2|validation|train|PATH] [--reference_dir DIR] [--out DIR] \
      [--seed S] [--uncontested] [--sample]

plays on the held-out deals (``heldout``, not the training deals) unless --dataset says
otherwise, writes ``DIR/match.json`` and ``DIR/match.md`` (atomically) and prints the summary.
A bidder named ``best`` is recorded with the model it stands for (``bidder_a_model``:
``a2c_longer``), in the settings of both files.
The boards' results are stored under ``DIR/boards/`` as they are played: after a failure
(e.g. a full disk) the same command resumes, and once ``DIR/match.json`` holds the same match
it does nothing. The match itself is `ospiel_team.bridge.agents.match.run_match`.
"""
import json
import os
import sys

from absl import app
from absl import flags

from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents import jps_paper
from ospiel_team.bridge.agents import model_bidder
from ospiel_team.bridge.agents.match import run_match, write_report
from ospiel_team.cli import _flags

FLAGS = flags.FLAGS


def define_flags() -> None:
  """Defines the match command's flags (only when run as a script, not on import)."""
  names = ("pass, random, natural, a shipped model (best = the strongest, a2c_longer, "
           "a2c_long, a2c, a2c_finetuned, "
           "a2c_1search, jpsbid, a2c_uncontested), the JPS authors' jps_paper_0.63, "
           "jps_paper_baseline, jps_paper_baseline2, jps_paper_2day5, jps_paper_2day8 (from "
           "--reference_dir), or a model file (.npz of ours, .pth of the authors')")
  flags.DEFINE_string("bidder_a", "natural", "Bidder A: " + names + ".")
  flags.DEFINE_string("bidder_b", "random", "Bidder B: " + names + ".")
  flags.DEFINE_integer("boards", 1000, "Number of boards (each played at two tables).",
                       lower_bound=1)
  flags.DEFINE_string("dataset", "heldout", "Deals: a shipped name (train, validation, "
                      "heldout, heldout2) or an .npz path (default: heldout, the held-out "
                      "deals, not the training deals).")
  flags.DEFINE_string("reference_dir", None, "Folder with the JPS authors' bridge_models/ "
                      "(default: the environment variable JPS_REFERENCE_DIR).")
  flags.DEFINE_string("out", "bridge_match", "Output folder for match.json and match.md.")
  flags.DEFINE_integer("seed", 0, "Seed of the board order and of random bidders (>= 0).",
                       lower_bound=0)
  flags.DEFINE_bool("uncontested", False, "East-West may only pass (Yeh & Lin's setting).")
  flags.DEFINE_bool("sample", False, "Model bidders sample their calls instead of bidding "
                    "greedily (the JPS paper evaluates greedily).")


def _print_summary(s: dict, jpath: str, mpath: str, note: str = "") -> None:
  print(f"{s['bidder_a']} vs {s['bidder_b']}: {s['imps_per_board_for_a']:+.3f} ± "
        f"{s['stderr_clustered']:.3f} IMPs/board (clustered s.e., {s['clusters']} clusters; "
        f"95% interval [{s['ci95_low']:+.3f}, {s['ci95_high']:+.3f}]) over {s['boards']} boards; "
        f"{note}{jpath}, {mpath}")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:  # flag values out of range: one line naming the flag, exit 2, before any work
    _flags.check_number("boards", FLAGS.boards, minimum=1, maximum=2**31, integer=True)
    _flags.check_number("seed", FLAGS.seed, minimum=0, maximum=2**63 - 1, integer=True)
  except ValueError as e:
    print(_flags.error_line("match", e), file=sys.stderr)
    sys.exit(_flags.EXIT_USER_ERROR)
  settings = {"bidder_a": FLAGS.bidder_a, "bidder_b": FLAGS.bidder_b, "boards": FLAGS.boards,
              "dataset": FLAGS.dataset, "seed": FLAGS.seed, "uncontested": FLAGS.uncontested,
              "greedy": not FLAGS.sample}
  for side in ("bidder_a", "bidder_b"):  # an alias (best) is recorded with its model
    name = settings[side]
    if model_bidder.resolved_name(name) != name:
      settings[f"{side}_model"] = model_bidder.resolved_name(name)
  jpath, mpath = (os.path.join(FLAGS.out, f) for f in ("match.json", "match.md"))
  if os.path.isfile(jpath) and os.path.isfile(mpath):  # the same match, finished: nothing to do
    try:
      with open(jpath, encoding="utf-8") as f:
        done = json.load(f)
    except (OSError, ValueError):
      done = {}
    if done.get("settings") == settings:
      _print_summary(done["summary"], jpath, mpath, note="already complete: ")
      return
  try:
    from ospiel_team import atomic_io
    from ospiel_team.bridge import dataset as dataset_lib
    atomic_io.check_writable(FLAGS.out, folder=True)  # before the match, not after it
    ds = dataset_lib.resolve_dataset(FLAGS.dataset)
    ref = FLAGS.reference_dir or jps_paper.default_reference_dir()
    a, b = (bidders_lib.make_bidder(n, reference_dir=ref, greedy=not FLAGS.sample)
            for n in (FLAGS.bidder_a, FLAGS.bidder_b))
  except ValueError as e:  # user errors: one line, no traceback
    print(f"match: error: {e}", file=sys.stderr)
    sys.exit(2)
  boards_dir = os.path.join(FLAGS.out, "boards")
  try:
    result = run_match(a, b, FLAGS.boards, dataset=ds, seed=FLAGS.seed,
                       uncontested=FLAGS.uncontested, results_dir=boards_dir)
    write_report(result, FLAGS.out, ds.holders, settings)
  except ValueError as e:  # e.g. --boards above the dataset, --out holding another match
    print(f"match: error: {e}", file=sys.stderr)
    sys.exit(2)
  except OSError as e:  # e.g. a full disk: the boards stored so far are kept
    print(f"match: error: cannot write {e.filename or FLAGS.out}: {e.strerror or e}; the "
          f"boards finished so far are kept in {boards_dir}: run the same command again to "
          "resume", file=sys.stderr)
    sys.exit(1)
  _print_summary(result.summary(), jpath, mpath, note="wrote ")


def run() -> None:
  """Entry point of `ospiel-team-match`."""
  _flags.run(main, define_flags)


if __name__ == "__main__":
  run()
