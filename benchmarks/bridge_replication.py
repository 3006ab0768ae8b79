r"""Pre-registered replication: JPSBid vs plain fine-tuning on fresh held-out boards.

The protocol (docs/benchmarks/bridge_agents.md, "Replication of JPSBid vs plain fine-tuning on
fresh boards (pre-registered)", committed before the boards existed) compares the shipped
`jpsbid` with the shipped `a2c_finetuned` on the 4,000 deals of `heldout2` (seed 20261123),
greedy, board order seed 2, and decides on those boards alone: replicated iff the mean is
>= +0.20 IMPs/b and the 95% interval's lower end > 0. This script plays that match and
the secondary ones, and writes them with the decision to a JSON file:

  python benchmarks/bridge_replication.py --out docs/benchmarks/bridge_replication.json \
      [--replicate_workdir /tmp/ft_seed11] [--workdir /tmp/h14rep/matches]

* primary: jpsbid vs a2c_finetuned on heldout2 (4,000 boards);
* the same pair on the original 2,000 `heldout` boards (replayed, it must equal the
  recorded +0.2205) and *pooled* over all 6,000 boards (labelled as pooled: it contains the
  boards that prompted the test);
* on heldout2: a2c_finetuned, a2c_1search and jpsbid against a2c; a2c_1search against
  a2c_finetuned;
* with ``--replicate_workdir`` (a `bridge_finetune_table.py` run with another ``--seed`` and
  ``--eval_dataset heldout2``): that run's JPSBid-vs-plain head to head, and the per-board
  mean of the two runs' head-to-heads.

Resumable: every match is cached in ``--workdir``/results.json as soon as it is played.
IMPs/b are for the first bidder, with the clustered standard error (`match.clustered_stderr`,
boards with equal deals up to symmetry in one cluster) and a normal 95% interval.
"""

import hashlib
import json
import os
import time

from absl import app
from absl import flags
import numpy as np

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import match
from ospiel_team.bridge import model_bidder

FLAGS = flags.FLAGS
flags.DEFINE_string("out", "docs/benchmarks/bridge_replication.json", "Output JSON.")
flags.DEFINE_string("workdir", "/tmp/bridge_replication", "Match cache folder.")
flags.DEFINE_string("replicate_workdir", None, "Workdir of a second fine-tuning run "
                    "(bridge_finetune_table.py --eval_dataset heldout2), optional.")
flags.DEFINE_integer("seed", 2, "Board-order seed (pre-registered: 2).")
flags.DEFINE_bool("progress", True, "Progress bars.")

Z95 = 1.959964
MIN_EFFECT = 0.20  # the goal, pre-registered


def _sha1(path: str) -> str:
  with open(path, "rb") as f:
    return hashlib.sha1(f.read()).hexdigest()


def summarize(imps, clusters) -> dict:
  """Mean, clustered s.e. and 95% interval of per-board IMPs."""
  x = np.asarray(imps, np.float64)
  se = match.clustered_stderr(x, np.asarray(clusters))
  m = float(x.mean())
  return {"boards": int(len(x)), "mean": m, "se": se, "ci95": [m - Z95 * se, m + Z95 * se]}


def decide(s: dict) -> str:
  """The pre-registered decision rule on the primary result."""
  lo, hi = s["ci95"]
  if lo > 0 and s["mean"] >= MIN_EFFECT:
    return "replicated"
  if lo > 0:
    return "JPSBid better than plain, but an effect of 0.2 is not shown"
  if hi < 0:
    return "reversed"
  return "not replicated"


class Cache:
  """Match results (per-board IMPs and cluster keys) in WORKDIR/results.json."""

  def __init__(self, folder: str):
    os.makedirs(folder, exist_ok=True)
    self.path = os.path.join(folder, "results.json")
    self.data = json.load(open(self.path)) if os.path.exists(self.path) else {}

  def play(self, a: str, b: str, dataset: str, boards: int) -> dict:
    pa, pb = model_bidder.model_path(a), model_bidder.model_path(b)
    key = f"{a}#{_sha1(pa)[:10]}|{b}#{_sha1(pb)[:10]}|{dataset}|{boards}|{FLAGS.seed}"
    if key not in self.data:
      t0 = time.time()
      res = match.run_match(model_bidder.load_bidder(pa, name=a),
                            model_bidder.load_bidder(pb, name=b), boards, dataset=dataset,
                            seed=FLAGS.seed, progress=FLAGS.progress)
      self.data[key] = {"a": a, "b": b, "dataset": dataset, "imps": res.imps.tolist(),
                        "clusters": [c.hex() for c in res.clusters],
                        "seconds": round(time.time() - t0, 1),
                        "loadavg": open("/proc/loadavg").read().split()[:3]}
      atomic_io.write_text(self.path, json.dumps(self.data) + "\n")
    return self.data[key]


def _row(r: dict, **extra) -> dict:
  out = {"a": r["a"], "b": r["b"], "dataset": r["dataset"]}
  out.update(summarize(r["imps"], r["clusters"]))
  out.update(seconds=r["seconds"], loadavg=r["loadavg"], **extra)
  return out


def replicate_result(workdir: str) -> tuple:
  """(key, result) of a second fine-tuning run's JPSBid-vs-plain head to head on heldout2."""
  res = json.load(open(os.path.join(workdir, "results.json")))
  keys = [k for k in res if k.startswith("heldout2|jps@") and "|ft:a2c|" in k]
  if len(keys) != 1:
    raise ValueError(f"{workdir}/results.json: expected one heldout2 jps-vs-plain result, "
                     f"found {keys}")
  return keys[0], res[keys[0]]


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:
    atomic_io.check_writable(FLAGS.out)
    atomic_io.check_writable(FLAGS.workdir, folder=True, flag="--workdir")
    if FLAGS.replicate_workdir and not os.path.exists(
        os.path.join(FLAGS.replicate_workdir, "results.json")):
      raise ValueError(f"--replicate_workdir {FLAGS.replicate_workdir!r} has no results.json")
  except ValueError as e:
    raise SystemExit(f"bridge_replication: error: {e}") from None
  cache = Cache(FLAGS.workdir)
  n2 = len(dataset_lib.resolve_dataset("heldout2"))
  n1 = len(dataset_lib.resolve_dataset("heldout"))
  prim = cache.play("jpsbid", "a2c_finetuned", "heldout2", n2)
  orig = cache.play("jpsbid", "a2c_finetuned", "heldout", n1)
  primary = _row(prim)
  out = {
      "protocol": "docs/benchmarks/bridge_agents.md, pre-registered (commit 10e48da)",
      "models": {n: _sha1(model_bidder.model_path(n)) for n in
                 ("jpsbid", "a2c_finetuned", "a2c_1search", "a2c")},
      "primary": primary,
      "decision": decide(primary),
      "original_2000": _row(orig),
      "pooled_6000 (includes the 2,000 boards that prompted the test)": {
          "a": "jpsbid", "b": "a2c_finetuned", "dataset": "heldout + heldout2",
          **summarize(orig["imps"] + prim["imps"], orig["clusters"] + prim["clusters"])},
      "secondary_heldout2": [
          _row(cache.play(a, b, "heldout2", n2)) for a, b in
          (("a2c_finetuned", "a2c"), ("a2c_1search", "a2c"), ("jpsbid", "a2c"),
           ("a2c_1search", "a2c_finetuned"))],
  }
  if FLAGS.replicate_workdir:
    key, r = replicate_result(FLAGS.replicate_workdir)
    if len(r["imps"]) != n2:
      raise SystemExit(f"bridge_replication: error: {key} has {len(r['imps'])} boards, "
                       f"expected {n2}")
    # Same boards in the same order (same board-order seed): its cluster keys (stored as
    # str(bytes) by bridge_finetune_table.py) must be those of the primary match's boards.
    held2 = dataset_lib.resolve_dataset("heldout2")
    order = np.random.default_rng(FLAGS.seed).permutation(n2)
    if [str(c) for c in deal_lib.canonical_keys(held2.holders[order])] != r["clusters"]:
      raise SystemExit(f"bridge_replication: error: {key} was not played on the primary "
                       "match's boards in the same order")
    rep = summarize(r["imps"], prim["clusters"])
    both = summarize((np.asarray(r["imps"], float) + np.asarray(prim["imps"], float)) / 2,
                     prim["clusters"])
    out["replicate_run"] = {"key": key, "workdir": FLAGS.replicate_workdir, **rep}
    out["mean_of_two_runs"] = {
        "note": "per-board mean of the two training runs' JPSBid-vs-plain results on heldout2; "
                "its s.e. is board noise only (two runs cannot estimate run-to-run spread)",
        **both}
  # The deals behind the cluster ids are the datasets' own (a check, not a statistic).
  held2 = dataset_lib.resolve_dataset("heldout2")
  order = np.random.default_rng(FLAGS.seed).permutation(n2)
  assert [c.hex() for c in deal_lib.canonical_keys(held2.holders[order[:50]])] == \
      prim["clusters"][:50]
  atomic_io.write_text(FLAGS.out, json.dumps(out, indent=1) + "\n")
  p = out["primary"]
  print(f"primary (heldout2, {p['boards']} boards): jpsbid vs a2c_finetuned {p['mean']:+.3f} ± "
        f"{p['se']:.3f} [{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}] -> {out['decision']}")
  for k in ("original_2000", "pooled_6000 (includes the 2,000 boards that prompted the test)"):
    s = out[k]
    print(f"{k}: {s['mean']:+.3f} ± {s['se']:.3f} [{s['ci95'][0]:+.3f}, {s['ci95'][1]:+.3f}]")
  for s in out["secondary_heldout2"]:
    print(f"heldout2 {s['a']} vs {s['b']}: {s['mean']:+.3f} ± {s['se']:.3f} "
          f"[{s['ci95'][0]:+.3f}, {s['ci95'][1]:+.3f}]")
  for k in ("replicate_run", "mean_of_two_runs"):
    if k in out:
      s = out[k]
      print(f"{k}: {s['mean']:+.3f} ± {s['se']:.3f} [{s['ci95'][0]:+.3f}, {s['ci95'][1]:+.3f}]")
  print(f"wrote {FLAGS.out}")


if __name__ == "__main__":
  app.run(main)
