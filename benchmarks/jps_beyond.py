r"""Beyond the JPS paper: how often each method reaches the proven optimum, and restarts.

Reads the per-seed stores of `examples/jps_experiments.py` and of
`benchmarks/jps_beyond_search.py` (larger D, alternating CFR/JPS, JPS from CFR+, random pure
restarts), and the proven optima of
`results/coop_optima/optima.json` (`benchmarks/coop_optima.py`). For every game and method:
mean, standard error, the fraction of seeds that reach the optimum, and *restarts*: the
expected best value over R independent seeds (the exact expectation of the maximum of R draws
from the seeds' empirical distribution, sum_i v_(i) ((i/n)^R - ((i-1)/n)^R)) and the chance
that one of R seeds reaches the optimum (1 - (1 - p)^R). "best JPS variant" is, per seed, the
best of the authors' JPS, our JPS schedule and sampled JPS from the same CFR policy.

  python benchmarks/jps_beyond.py \
      --json_out results/jps_beyond.json
"""

from __future__ import annotations

import json
import os

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io

FLAGS = flags.FLAGS
flags.DEFINE_list("stores", ["results/jps/experiments.store.json",
                            "results/jps/beyond_search.store.json",
                            "results/jps/beyond_ed.store.json",
                            "results/jps/beyond_xfp.store.json"],
                  "Per-seed stores: examples/jps_experiments.py's (first) and "
                  "benchmarks/jps_beyond_search.py's (a missing one is skipped). A method "
                  "in several beyond stores is one row over the union of their seeds (a seed "
                  "in two must have the same value in both: the runs are deterministic).")
flags.DEFINE_string("optima", "results/coop_optima/optima.json", "Proven optima.")
flags.DEFINE_list("restarts", ["10", "100"], "R values for best-of-R restarts.")
flags.DEFINE_string("json_out", None, "Output JSON rows.")
flags.DEFINE_string("merge_into", None, "A JSON row list (results/jps/experiments.json) "
                    "whose beyond-the-paper rows (those with a 'protocol' key) are replaced "
                    "by these; its other rows are kept.")

JPS_METHODS = ["CFR+JPS", "CFR+JPS (ours)", "CFR+JPS (k=1)", "CFR+JPS (k=5)",
               "CFR+JPS (k=20)"]


def expected_best_of(values: np.ndarray, r: int) -> float:
  """E[max of r draws with replacement from `values`] (exact, from the order statistics)."""
  v = np.sort(np.asarray(values, dtype=np.float64))
  n = len(v)
  i = np.arange(1, n + 1)
  w = (i / n) ** r - ((i - 1) / n) ** r
  return float(np.dot(v, w))


def load_stores(paths: list[str]) -> list[dict]:
  """The stores that exist, in order; SystemExit when none does."""
  stores = []
  for path in paths:
    if os.path.exists(path):
      with open(path) as f:
        stores.append(json.load(f))
  if not stores:
    raise SystemExit(f"jps_beyond: error: none of the stores {paths} exists")
  return stores


def load_optima(path: str) -> dict[str, float]:
  """game -> proven optimum (no file: none)."""
  optima = {}
  if os.path.exists(path):
    with open(path) as f:
      for row in json.load(f)["rows"]:
        if row.get("proven_optimal"):
          optima[row["game"]] = float(row["value"])
  return optima


def _beyond_seeds(beyond: dict, game: str, entry: dict, main_methods) -> None:
  """Adds a beyond store's seeds of `game` to `beyond` (row name -> seed -> value).

  A method also in the experiment store (`main_methods`) is named "<method> [beyond]"; a seed
  already there with another value is an error (SystemExit).
  """
  seeds = list(entry["seeds"].values())
  names = [m for m in seeds[0] if not m.endswith(("seconds", "iterations"))]
  if entry.get("config", {}).get("rounds", 1) == 0:  # "alternating" is only CFR+JPS
    names = [m for m in names if m != "CFR/JPS alternating"]
  for m in names:
    row_name = f"{m} [beyond]" if m in main_methods else m
    got = beyond.setdefault(row_name, {})
    for seed, out in entry["seeds"].items():
      if seed in got and abs(got[seed] - out[m]) > 1e-9:
        raise SystemExit(f"jps_beyond: error: {game} {m} seed {seed}: {got[seed]} in "
                         f"one store, {out[m]} in another")
      got.setdefault(seed, out[m])


def method_values(stores: list[dict]) -> dict[str, dict[str, np.ndarray]]:
  """game -> method -> its per-seed values: the experiment store's (the first: CFR1k, the JPS
  variants, their per-seed best) then the search variants of the others, named as stored."""
  per_game = {}
  per_main = {}  # game -> the experiment store's methods
  beyond_seeds = {}  # game -> method -> seed -> value, over the beyond stores
  for k, store in enumerate(stores):
    for game, entry in store.items():
      if game.startswith("_"):
        continue
      per = per_game.setdefault(game, {})
      if k == 0:
        seeds = list(entry["seeds"].values())
        methods = ["CFR (current, purified)"] + [m for m in JPS_METHODS if m in seeds[0]]
        per.update({m: np.array([s[m] for s in seeds if m in s]) for m in methods})
        jps_here = [m for m in JPS_METHODS if m in seeds[0]]
        if len(jps_here) > 1:
          per["best JPS variant"] = np.array([max(s[m] for m in jps_here if m in s)
                                              for s in seeds])
        per_main[game] = set(per)
      else:
        _beyond_seeds(beyond_seeds.setdefault(game, {}), game, entry,
                      per_main.get(game, ()))
  for game, beyond in beyond_seeds.items():
    per = per_game.setdefault(game, {})
    for m, got in beyond.items():
      per[m] = np.array([got[s] for s in sorted(got, key=int)])
  return per_game


def rows_and_table(per_game: dict, optima: dict, restarts: list[int]
                   ) -> tuple[list[dict], list[str]]:
  """(JSON rows, Markdown table lines): per game and method, the statistics over seeds."""
  rows = []
  head = ("| game | optimum | method | seeds | mean ± s.e. | reaches optimum | " +
          " | ".join(f"best of {r} (mean) | P(optimum in {r})" for r in restarts) + " |")
  lines = [head, "|---|---:|---|---:|---:|---:|" + "---:|---:|" * len(restarts)]
  for game, per in per_game.items():
    opt = optima.get(game)
    for m, vals in per.items():
      if not len(vals):
        continue
      hit = float(np.mean(vals >= opt - 1e-9)) if opt is not None else float("nan")
      row = dict(game=game, method=m, mean=float(vals.mean()), best=float(vals.max()),
                 num_seeds=int(len(vals)), protocol="paper",
                 stderr=float(vals.std(ddof=1) / np.sqrt(len(vals))) if len(vals) > 1 else 0.0,
                 optimum=opt, reach_optimum=hit)
      cells = []
      for r in restarts:
        eb = expected_best_of(vals, r)
        p = 1.0 - (1.0 - hit) ** r if opt is not None else float("nan")
        row[f"best_of_{r}"] = eb
        row[f"p_optimum_in_{r}"] = p
        cells.append(f"{eb:.4f} | {p:.3f}" if opt is not None else f"{eb:.4f} | -")
      rows.append(row)
      lines.append(f"| {game} | {'open' if opt is None else f'{opt:.6g}'} | {m} | {len(vals)} | "
                   f"{vals.mean():.4f} ± {row['stderr']:.4f} | "
                   f"{'-' if opt is None else f'{hit:.3f}'} | " + " | ".join(cells) + " |")
  return rows, lines


def main(argv):
  del argv
  stores = load_stores(FLAGS.stores)
  optima = load_optima(FLAGS.optima)
  restarts = [int(r) for r in FLAGS.restarts]
  rows, lines = rows_and_table(method_values(stores), optima, restarts)
  if FLAGS.json_out:
    atomic_io.write_text(FLAGS.json_out, json.dumps(rows, indent=1))
  if FLAGS.merge_into:
    old = []
    if os.path.exists(FLAGS.merge_into):
      with open(FLAGS.merge_into) as f:
        old = json.load(f)
    kept = [r for r in old if "protocol" not in r]
    atomic_io.write_text(FLAGS.merge_into, json.dumps(kept + rows, indent=1))
  print("\n".join(lines))

if __name__ == "__main__":
  app.run(main)
