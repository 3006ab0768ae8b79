r"""Prints a bidder's opening table and its call / final-contract frequencies (JPS App. H).

  python examples/bridge_opening_table.py --model a2c --boards 2000
  python examples/bridge_opening_table.py --model natural     # a built-in bidder
  python examples/bridge_opening_table.py --model /tmp/bridge_a2c/model.npz --json out.json

The bidder bids all four seats of `--boards` deals of the dataset (standard duplicate dealer and
vulnerability). The opening is the first non-Pass call; its HCP (A=4, K=3, Q=2, J=1) and suit
lengths are those of the opener's hand, summarized by 5th-95th percentile ranges as in the
paper's Table 8.
"""

import json

from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.evaluation import bidding_stats
from ospiel_team.cli import match as match_cli

FLAGS = flags.FLAGS
# The match command's flags (--boards, --dataset, --uncontested, --seed, ...) are reused here.
match_cli.define_flags(FLAGS)
flags.DEFINE_string("model", "a2c", "Shipped model name, model .npz path, or built-in bidder.")
flags.DEFINE_string("json", None, "Also write the statistics to this JSON file.")


def make(name):
  if name in ("pass", "random", "natural"):
    return bidders_lib.make_bidder(name)
  return model_bidder.load_bidder(name)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:  # user errors (a bad --model, --dataset or --json) are one line, before any work
    if FLAGS.json:
      atomic_io.check_writable(FLAGS.json, flag="--json")
    bidder = make(FLAGS.model)
    deals = dataset_lib.resolve_dataset(FLAGS.dataset)  # a shipped name or a path
  except (ValueError, FileNotFoundError) as e:
    raise SystemExit(f"bridge_opening_table: error: {e}") from None
  eng = bidding_stats.self_play_auctions(bidder, deals, FLAGS.boards, seed=FLAGS.seed,
                                        uncontested=FLAGS.uncontested)
  stats = bidding_stats.bidding_statistics(eng)
  print(f"# {FLAGS.model}\n")
  print(bidding_stats.opening_table_markdown(stats))
  if FLAGS.json:
    atomic_io.write_text(FLAGS.json, json.dumps(stats, indent=1))


if __name__ == "__main__":
  app.run(main)
