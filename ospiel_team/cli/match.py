r"""Command line of duplicate bridge-bidding matches (`ospiel-team-match`).

  ospiel-team-match --bidder_a natural --bidder_b random --boards 1000 \
      [--dataset heldout|heldout2|validation|train|PATH] [--reference_dir DIR] [--out DIR] \
      [--seed S] [--uncontested] [--sample]

writes ``DIR/match.json`` and ``DIR/match.md`` (atomically) and prints the summary. The match
itself is `ospiel_team.bridge.agents.match.run_match`.
"""
from absl import app
from absl import flags

from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents import jps_paper
from ospiel_team.bridge.agents.match import run_match, write_report
from ospiel_team.cli import _flags

FLAGS = flags.FLAGS


def define_flags() -> None:
  """Defines the match command's flags (only when run as a script, not on import)."""
  names = ("pass, random, natural, a shipped model (a2c, a2c_main, a2c_long, "
           "a2c_seed1..a2c_seed5, a2c_finetuned, "
           "a2c_1search, jpsbid, a2c_uncontested), the JPS authors' jps_paper_0.63, "
           "jps_paper_baseline, jps_paper_baseline2, jps_paper_2day5, jps_paper_2day8 (from "
           "--reference_dir), or a model file (.npz of ours, .pth of the authors')")
  flags.DEFINE_string("bidder_a", "natural", "Bidder A: " + names + ".")
  flags.DEFINE_string("bidder_b", "random", "Bidder B: " + names + ".")
  flags.DEFINE_integer("boards", 1000, "Number of boards (each played at two tables).")
  flags.DEFINE_string("dataset", None, "Deals: a shipped name (train, validation, heldout, "
                      "heldout2) or an .npz path (default: the training dataset).")
  flags.DEFINE_string("reference_dir", None, "Folder with the JPS authors' bridge_models/ "
                      "(default: the environment variable JPS_REFERENCE_DIR).")
  flags.DEFINE_string("out", "bridge_match", "Output folder for match.json and match.md.")
  flags.DEFINE_integer("seed", 0, "Seed of the board order and of random bidders.")
  flags.DEFINE_bool("uncontested", False, "East-West may only pass (Yeh & Lin's setting).")
  flags.DEFINE_bool("sample", False, "Model bidders sample their calls instead of bidding "
                    "greedily (the JPS paper evaluates greedily).")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:
    from ospiel_team import atomic_io  #
    from ospiel_team.bridge import dataset as dataset_lib  #
    atomic_io.check_writable(FLAGS.out, folder=True)  # before the match, not after it
    ds = dataset_lib.resolve_dataset(FLAGS.dataset)
    ref = FLAGS.reference_dir or jps_paper.default_reference_dir()
    a, b = (bidders_lib.make_bidder(n, reference_dir=ref, greedy=not FLAGS.sample)
            for n in (FLAGS.bidder_a, FLAGS.bidder_b))
    result = run_match(a, b, FLAGS.boards, dataset=ds, seed=FLAGS.seed,
                       uncontested=FLAGS.uncontested)
  except ValueError as e:  # user errors: one line, no traceback
    raise SystemExit(f"match: error: {e}") from None
  settings = {"dataset": FLAGS.dataset or "train (shipped default)", "seed": FLAGS.seed,
              "uncontested": FLAGS.uncontested, "greedy": not FLAGS.sample}
  jpath, mpath = write_report(result, FLAGS.out, ds.holders, settings)
  s = result.summary()
  print(f"{s['bidder_a']} vs {s['bidder_b']}: {s['imps_per_board_for_a']:+.3f} ± "
        f"{s['stderr_clustered']:.3f} IMPs/board (clustered s.e., {s['clusters']} clusters; "
        f"95% interval [{s['ci95_low']:+.3f}, {s['ci95_high']:+.3f}]) over {s['boards']} boards; "
        f"wrote {jpath}, {mpath}")


def run() -> None:
  """Entry point of `ospiel-team-match`."""
  _flags.run(main, define_flags)


if __name__ == "__main__":
  run()
