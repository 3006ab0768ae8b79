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
it does nothing. The match itself is `ospiel_team.bridge.agents.evaluation.match.run_match`.
"""
import json
import os
import sys
from collections.abc import Sequence

from absl import flags

from ospiel_team.bridge.agents.bidders import jps_paper
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import registry
from ospiel_team.bridge.agents.evaluation.match import run_match
from ospiel_team.bridge.agents.evaluation.match import write_report
from ospiel_team.cli import _flags


def define_flags(fv: flags.FlagValues) -> None:
  """Defines the match command's flags on `fv` (scripts that reuse them pass `flags.FLAGS`)."""
  names = ("pass, random, natural, a shipped model (best = the strongest, a2c_longer, "
           "a2c_long, a2c, a2c_uncontested), the JPS authors' jps_paper_0.63, "
           "jps_paper_baseline, jps_paper_baseline2, jps_paper_2day5, jps_paper_2day8 (from "
           "--reference_dir), or a model file (.npz of ours, .pth of the authors')")
  flags.DEFINE_string("bidder_a", "natural", "Bidder A: " + names + ".", flag_values=fv)
  flags.DEFINE_string("bidder_b", "random", "Bidder B: " + names + ".", flag_values=fv)
  flags.DEFINE_integer("boards", 1000, "Number of boards (each played at two tables).",
                       lower_bound=1, flag_values=fv)
  flags.DEFINE_string("dataset", "heldout", "Deals: a shipped name (train, validation, "
                      "heldout, heldout2) or an .npz path (default: heldout, the held-out "
                      "deals, not the training deals).", flag_values=fv)
  flags.DEFINE_string("reference_dir", None, "Folder with the JPS authors' bridge_models/ "
                      "(default: the environment variable JPS_REFERENCE_DIR).", flag_values=fv)
  flags.DEFINE_string("out", "bridge_match", "Output folder for match.json and match.md.",
                      flag_values=fv)
  flags.DEFINE_integer("seed", 0, "Seed of the board order and of random bidders (>= 0).",
                       lower_bound=0, flag_values=fv)
  flags.DEFINE_bool("uncontested", False, "East-West may only pass (Yeh & Lin's setting).",
                    flag_values=fv)
  flags.DEFINE_bool("sample", False, "Model bidders sample their calls instead of bidding "
                    "greedily (the JPS paper evaluates greedily).", flag_values=fv)


def _print_summary(s: dict, jpath: str, mpath: str, note: str = "") -> None:
  print(f"{s['bidder_a']} vs {s['bidder_b']}: {s['imps_per_board_for_a']:+.3f} ± "
        f"{s['stderr_clustered']:.3f} IMPs/board (clustered s.e., {s['clusters']} clusters; "
        f"95% interval [{s['ci95_low']:+.3f}, {s['ci95_high']:+.3f}]) over {s['boards']} boards; "
        f"{note}{jpath}, {mpath}")


def main(argv: Sequence[str]) -> int:
  """Runs the command with the arguments `argv` (`argv[0]` is the program) in this process.

  Returns:
    The exit status: 0 done (or help printed), 2 a user error (one line on stderr), 1 a write
    failed (one line; the boards finished so far kept).
  """
  fv = flags.FlagValues()
  define_flags(fv)
  status = _flags.parse_private(fv, argv, __doc__)
  if status is not None:
    return status
  return run_flags(fv)


def run_flags(fv: flags.FlagValues) -> int:
  """Plays the match of the parsed flags `fv` (see `main`); returns the exit status."""
  try:  # flag values out of range: one line naming the flag, exit 2, before any work
    _flags.check_number("boards", fv.boards, minimum=1, maximum=2**31, integer=True)
    _flags.check_number("seed", fv.seed, minimum=0, maximum=2**63 - 1, integer=True)
  except ValueError as e:
    print(_flags.error_line("match", e), file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  settings = {"bidder_a": fv.bidder_a, "bidder_b": fv.bidder_b, "boards": fv.boards,
              "dataset": fv.dataset, "seed": fv.seed, "uncontested": fv.uncontested,
              "greedy": not fv.sample}
  for side in ("bidder_a", "bidder_b"):  # an alias (best) is recorded with its model
    name = settings[side]
    if model_bidder.resolved_name(name) != name:
      settings[f"{side}_model"] = model_bidder.resolved_name(name)
  jpath, mpath = (os.path.join(fv.out, f) for f in ("match.json", "match.md"))
  if os.path.isfile(jpath) and os.path.isfile(mpath):  # the same match, finished: nothing to do
    try:
      with open(jpath, encoding="utf-8") as f:
        done = json.load(f)
    except (OSError, ValueError):
      done = {}
    if isinstance(done, dict) and done.get("settings") == settings:
      _print_summary(done["summary"], jpath, mpath, note="already complete: ")
      return 0
  try:
    from ospiel_team import atomic_io
    from ospiel_team.bridge import dataset as dataset_lib
    atomic_io.check_writable(fv.out, folder=True)  # before the match, not after it
    ds = dataset_lib.resolve_dataset(fv.dataset)
    ref = fv.reference_dir or jps_paper.default_reference_dir()
    a, b = (registry.make_bidder(n, reference_dir=ref, greedy=not fv.sample)
            for n in (fv.bidder_a, fv.bidder_b))
  except ValueError as e:  # user errors: one line, no traceback
    print(f"match: error: {e}", file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  boards_dir = os.path.join(fv.out, "boards")
  try:
    result = run_match(a, b, fv.boards, dataset=ds, seed=fv.seed,
                       uncontested=fv.uncontested, results_dir=boards_dir)
    write_report(result, fv.out, dataset_holders=ds.holders, settings=settings)
  except ValueError as e:  # e.g. --boards above the dataset, --out holding another match
    print(f"match: error: {e}", file=sys.stderr)
    return _flags.EXIT_USER_ERROR
  except OSError as e:  # e.g. a full disk: the boards stored so far are kept
    print(f"match: error: cannot write {e.filename or fv.out}: {e.strerror or e}; the "
          f"boards finished so far are kept in {boards_dir}: run the same command again to "
          "resume", file=sys.stderr)
    return _flags.EXIT_DISK_FULL
  _print_summary(result.summary(), jpath, mpath, note="wrote ")
  return 0


def run() -> None:
  """Entry point of `ospiel-team-match`."""
  sys.exit(main(sys.argv))


if __name__ == "__main__":
  run()
