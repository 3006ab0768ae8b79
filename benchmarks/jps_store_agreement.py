r"""Do two JPS experiment stores agree seed for seed? (reproducibility of the paper protocol)

`benchmarks/jps_experiments.py` keeps every (game, seed) result in a store. A seed's CFR and JPS
depend only on the seed, so two runs of the same configuration (another day, another
batch size, other worker counts, another machine) must give the same values for every seed
that both hold. This script compares every value (timings left out) of the seeds common to
`--store` and each of `--others`, and prints per game: common seeds, equal seeds, the largest
difference. It exits non-zero if any common seed differs by more than `--tolerance`.

Usage (a fresh run's store against the committed one):
  python benchmarks/jps_store_agreement.py --store /tmp/fresh.store.json \
      --others results/jps/experiments.store.json
"""

from __future__ import annotations

import json

from absl import app
from absl import flags

from ospiel_team import atomic_io

FLAGS = flags.FLAGS
flags.DEFINE_string("store", None, "The store to check.")
flags.DEFINE_list("others", [], "Stores to compare it with.")
flags.DEFINE_float("tolerance", 0.0, "Largest allowed absolute difference of a value.")
flags.DEFINE_string("json_out", None, "Write the per-game counts here (JSON).")


def _values(store: dict) -> dict[str, dict[str, dict[str, float]]]:
  return {game: {seed: {k: v for k, v in res.items() if "seconds" not in k}
                 for seed, res in entry["seeds"].items()}
          for game, entry in store.items() if not game.startswith("_")}


def compare(mine: dict, other: dict, tolerance: float = 0.0) -> dict[str, dict]:
  """Per game: seeds in both stores, seeds whose every common value agrees, largest |diff|."""
  if mine.get("_config") != other.get("_config"):
    raise ValueError(f"configurations differ: {mine.get('_config')} vs {other.get('_config')}")
  a, b = _values(mine), _values(other)
  out = {}
  for game in sorted(set(a) & set(b)):
    common = sorted(set(a[game]) & set(b[game]), key=int)
    equal, worst = 0, 0.0
    for seed in common:
      keys = set(a[game][seed]) & set(b[game][seed])
      diff = max((abs(a[game][seed][k] - b[game][seed][k]) for k in keys), default=0.0)
      worst = max(worst, diff)
      equal += diff <= tolerance
    out[game] = dict(common=len(common), equal=equal, max_abs_diff=worst)
  return out


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  if not FLAGS.store or not FLAGS.others:
    raise SystemExit("jps_store_agreement: error: --store and --others are required")
  with open(FLAGS.store) as f:
    mine = json.load(f)
  report, ok = {}, True
  for path in FLAGS.others:
    with open(path) as f:
      other = json.load(f)
    try:
      per_game = compare(mine, other, FLAGS.tolerance)
    except ValueError as e:
      raise SystemExit(f"jps_store_agreement: error: {path}: {e}") from None
    report[path] = per_game
    for game, r in per_game.items():
      print(f"{path}: {game}: {r['equal']} of {r['common']} common seeds equal "
            f"(max |diff| {r['max_abs_diff']:.3g})")
      ok &= r["equal"] == r["common"]
  if FLAGS.json_out:
    atomic_io.write_text(FLAGS.json_out, json.dumps(report, indent=1))
  if not ok:
    raise SystemExit(1)


if __name__ == "__main__":
  app.run(main)
