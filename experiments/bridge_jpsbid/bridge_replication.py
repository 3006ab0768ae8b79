r"""Pre-registered replication: JPSBid vs plain fine-tuning on fresh held-out boards.

The protocol (pre-registered, committed before the boards existed) compares this
experiment's `jpsbid` with its `a2c_finetuned` (`jpsbid_models`) on the 4,000 deals of
`heldout2` (seed 20261123), greedy, board order seed 2, and decides on those boards alone:
replicated iff the mean is >= +0.20 IMPs/b and the 95% interval's lower end > 0. This script
plays that match and the secondary ones, and writes them with the decision to a JSON file:

  python experiments/bridge_jpsbid/bridge_replication.py [--replicate_workdir WORKDIR] \
      [--workdir MATCHES]

* primary: jpsbid vs a2c_finetuned on heldout2 (4,000 boards);
* the same pair on the original 2,000 `heldout` boards (replayed, it must equal the
  recorded +0.2205) and *pooled* over all 6,000 boards (labelled as pooled: it contains the
  boards that prompted the test);
* on heldout2: a2c_finetuned, a2c_1search and jpsbid against a2c; a2c_1search against
  a2c_finetuned;
* the method-level test (pre-registered 13:46 UTC, commit f4afb8e): every fine-tuning run of
  the recipe is one row, ``--runs_dir``/bridge_finetune_seed<S>.json (small, committed, so a
  finished run survives the machine that trained it). The shipped models are run seed 10
  (written here from the primary and secondary matches); each ``--replicate_workdir`` (a
  `bridge_finetune_table.py` run with its own ``--seed``, variants a2c and jps,
  ``--eval_dataset heldout2 --eval_boards 4000``) is exported to its file; files already there
  (e.g. runs recorded only in the docs) are read as they are. Per run: JPSBid's picked model
  against the same run's picked plain model, head to head on heldout2, with its clustered
  s.e.; over runs: their mean with a Student t 95% interval (n - 1 d.f.) and the
  pre-registered rule (`decide_method`).

  python experiments/bridge_jpsbid/bridge_replication.py \
      --replicate_workdir WORKDIR13,WORKDIR14
  # the method-level test over the run files of a folder alone, without playing any match:
  python experiments/bridge_jpsbid/bridge_replication.py --runs_only \
      --runs_dir experiments/bridge_jpsbid/jpsbid_from_a2c_longer \
      --preregistered 1fee3d0 --out experiments/bridge_jpsbid/jpsbid_from_a2c_longer.json
  # a finished run's file alone, without playing any match:
  python experiments/bridge_jpsbid/bridge_replication.py --export_only --replicate_workdir WORKDIR13

With no ``--replicate_workdir`` the across-run statistic uses the committed files only.

Resumable: every match is cached in ``--workdir``/results.json as soon as it is played; a
run's file is written once (rewritten only if its content would change, and never with a
different result for the same seed).
IMPs/b are for the first bidder, with the clustered standard error (`match.clustered_stderr`,
boards with equal deals up to symmetry in one cluster) and a normal 95% interval; the
across-run interval is Student t.
"""

import glob
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Sequence

import numpy as np
from absl import app
from absl import flags
from scipy import stats

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import match

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # this experiment's folder
import jpsbid_models  # noqa: E402  (its models: jpsbid_models.py beside this script)

FLAGS = flags.FLAGS
flags.DEFINE_string("out", "experiments/bridge_jpsbid/jpsbid_from_a2c.json", "Output JSON.")
flags.DEFINE_string("workdir", "/tmp/bridge_replication", "Match cache folder.")
flags.DEFINE_list("replicate_workdir", [], "Workdirs of further fine-tuning runs "
                  "(bridge_finetune_table.py --variants a2c,jps --eval_dataset heldout2 "
                  "--eval_boards 4000), comma-separated; each is exported to --runs_dir.")
flags.DEFINE_string("runs_dir", "experiments/bridge_jpsbid/jpsbid_from_a2c",
                    "Folder of the per-run files bridge_finetune_seed<S>.json; every such file "
                    "is one run of the across-run statistic.")
flags.DEFINE_bool("export_only", False, "Only write the --replicate_workdir runs' files to "
                  "--runs_dir (no matches, no --out).")
flags.DEFINE_bool("runs_only", False, "Only the method-level test over the files in "
                  "--runs_dir (no matches): written to --out.")
flags.DEFINE_string("preregistered", "f4afb8e", "Commit of the method-level test's "
                    "pre-registration (recorded in --out).")
flags.DEFINE_integer("seed", 2, "Board-order seed (pre-registered: 2).")
flags.DEFINE_bool("progress", True, "Progress bars.")

Z95 = 1.959964
MIN_EFFECT = 0.20  # IMPs/board: the pre-registered smallest effect of interest


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


def across_runs(means: Sequence[float]) -> dict:
  """Mean over training runs of their JPSBid-minus-plain results, Student t 95% interval.

  With d_1..d_n the runs' means, the interval is mean ± t(0.975, n - 1) · s / sqrt(n), s the
  sample standard deviation (n - 1 in the denominator): the spread between runs, board noise
  included, is the error. Pre-registered in docs/bridge.md (commit f4afb8e).

  Args:
    means: one number per training run (at least two, finite).
  """
  x = np.asarray(means, np.float64)
  if x.ndim != 1 or len(x) < 2:
    raise ValueError(f"across_runs needs at least two runs, got {list(np.ravel(x))}")
  if not np.all(np.isfinite(x)):
    raise ValueError(f"across_runs: non-finite run mean in {x.tolist()}")
  n = len(x)
  m, sd = float(x.mean()), float(x.std(ddof=1))
  se = sd / np.sqrt(n)
  tq = float(stats.t.ppf(0.975, n - 1))
  return {"runs": n, "mean": m, "sd": sd, "se": float(se), "t975": tq, "df": n - 1,
          "ci95": [m - tq * se, m + tq * se]}


def decide_method(a: dict) -> str:
  """The pre-registered rule (commit f4afb8e) on the across-run interval."""
  lo, hi = a["ci95"]
  if lo > 0 and a["mean"] >= MIN_EFFECT:
    return "issue goal met at the method level (mean >= 0.2, interval above 0)"
  if lo > 0:
    return "method-level advantage shown (interval above 0), mean below 0.2"
  if hi < 0:
    return "reversed"
  return "not established"


class Cache:
  """Match results (per-board IMPs and cluster keys) in WORKDIR/results.json."""

  def __init__(self, folder: str):
    os.makedirs(folder, exist_ok=True)
    self.path = os.path.join(folder, "results.json")
    self.data = json.load(open(self.path)) if os.path.exists(self.path) else {}

  def play(self, a: str, b: str, dataset: str, boards: int) -> dict:
    pa, pb = jpsbid_models.model_path(a), jpsbid_models.model_path(b)
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


RUN_FILE = "bridge_finetune_seed{}.json"


def _h2h_key(res: dict, variant: str, opp: str, boards: int) -> str:
  keys = [k for k in res if re.fullmatch(rf"heldout2\|{variant}@\d+\|{opp}\|{boards}", k)]
  if len(keys) != 1:
    raise ValueError(f"expected one heldout2 result {variant} vs {opp} on {boards} boards, "
                     f"found {keys}")
  return keys[0]


def _brief(r: dict, with_imps: bool = True) -> dict:
  out = {"boards": len(r["imps"]), **{k: v for k, v in summarize(
      r["imps"], r["clusters"]).items() if k != "boards"}}
  out.update(seconds=r.get("seconds"), loadavg=r.get("loadavg"))
  if with_imps:
    out["imps"] = [int(v) for v in r["imps"]]
  return out


def export_run(workdir: str, n2: int, clusters_str: list, clusters_hex: list) -> dict:
  """The per-run record of a bridge_finetune_table.py run (variants a2c and jps, evaluated on
  heldout2 against `a2c`): seed, picked rounds, head to head and results against the start.

  Args:
    workdir: the run's ``--workdir``.
    n2: boards of heldout2 (each evaluation must use all of them).
    clusters_str: heldout2's cluster keys in board order (seed 2) as
      bridge_finetune_table.py stores them (str of bytes); checked against the run's.
    clusters_hex: the same keys as hex strings (used for the clustered s.e.).
  """
  path = os.path.join(workdir, "results.json")
  if not os.path.exists(path):
    raise ValueError(f"--replicate_workdir {workdir!r} has no results.json")
  res = json.load(open(path))
  seeds = {}
  for v in ("a2c", "jps"):
    ck = os.path.join(workdir, v, "checkpoint.npz")
    if not os.path.exists(ck):
      raise ValueError(f"--replicate_workdir {workdir!r}: no {v}/checkpoint.npz")
    with np.load(ck, allow_pickle=False) as z:
      seeds[v] = int(json.loads(str(z["state"]))["config"]["seed"])
  if seeds["a2c"] != seeds["jps"]:
    raise ValueError(f"{workdir}: plain and JPSBid trained with different seeds {seeds}")
  rec = {"seed": seeds["a2c"], "source": f"bridge_finetune_table.py --workdir {workdir}",
         "dataset": "heldout2", "board_order_seed": FLAGS.seed}
  a2c_opp = [k.split("|")[2] for k in res if k.startswith("heldout2|a2c@")
             and k.split("|")[2].startswith("a2c#")]
  keys = {"jps_vs_plain": _h2h_key(res, "jps", r"ft:a2c", n2)}
  if a2c_opp:
    keys["plain_vs_a2c"] = _h2h_key(res, "a2c", re.escape(a2c_opp[0]), n2)
    keys["jps_vs_a2c"] = _h2h_key(res, "jps", re.escape(a2c_opp[0]), n2)
  for name, key in keys.items():
    r = res[key]
    if r["clusters"] != clusters_str:
      raise ValueError(f"{workdir}: {key} was not played on heldout2's {n2} boards in the "
                       f"order of board-order seed {FLAGS.seed}")
    rec[name] = {"key": key, **_brief({**r, "clusters": clusters_hex})}
  picked = {}
  for v in ("a2c", "jps"):
    # The pick rule of bridge_finetune_table.py: the first snapshot with the best validation.
    vals = sorted((int(k.split("|")[2]), r["mean"], r["se"]) for k, r in res.items()
                  if k.startswith(f"val|{v}|"))
    if not vals:
      raise ValueError(f"{workdir}: no validation results of {v}")
    rnd = vals[0]
    for x in vals[1:]:
      if x[1] > rnd[1]:
        rnd = x
    used = [keys[k].split("|")[1] for k in keys if k.startswith("jps" if v == "jps" else "plain")]
    if any(u != f"{v}@{rnd[0]}" for u in used):
      raise ValueError(f"{workdir}: held-out results of {used} but validation picks {v}@{rnd[0]}")
    st = json.load(open(os.path.join(workdir, v, "run_stats.json")))
    snap = os.path.join(workdir, v, "snapshots", f"round_{rnd[0]:05d}.npz")
    picked[v] = {"picked_round": rnd[0],
                 "validation_vs_start": {str(r): {"mean": m, "se": se} for r, m, se in vals},
                 "picked_sha1": _sha1(snap) if os.path.exists(snap) else None,
                 "run_stats": {k: st.get(k) for k in ("round", "games", "train_s",
                                                       "total_wall_s", "search_points",
                                                       "search_changed", "loadavg")}}
  rec["variants"] = picked
  return rec


def shipped_run(prim: dict, plain_a2c: dict, jps_a2c: dict) -> dict:
  """The per-run record of the shipped models (trainer seed 10) from the cached matches."""
  rec = {"seed": None, "source": "shipped models jpsbid and a2c_finetuned",
         "dataset": "heldout2", "board_order_seed": FLAGS.seed}
  for name, r in (("jps_vs_plain", prim), ("plain_vs_a2c", plain_a2c), ("jps_vs_a2c", jps_a2c)):
    rec[name] = _brief(r)
  variants = {}
  for v, ship in (("a2c", "a2c_finetuned"), ("jps", "jpsbid")):
    meta = policy_net.load_model(jpsbid_models.model_path(ship))[2]
    rec["seed"] = int(meta["seed"])
    variants[v] = {"model": ship, "picked_round": meta["picked_round"],
                   "validation_vs_start": meta["validation_imps_vs_start"],
                   "picked_sha1": _sha1(jpsbid_models.model_path(ship)),
                   "command": meta["command"], "train_s": meta["train_s"]}
  rec["variants"] = variants
  return rec


def write_run(runs_dir: str, rec: dict) -> str:
  """Writes a run's record to RUNS_DIR/bridge_finetune_seed<S>.json unless that file already
  holds it; a file with another result for the same seed is an error, never replaced."""
  path = os.path.join(runs_dir, RUN_FILE.format(rec["seed"]))
  text = re.sub(r"\[\n\s+(-?\d+(?:,\n\s+-?\d+)*)\n\s+\]",  # integer lists on one line
                lambda m: "[" + re.sub(r",\n\s+", ", ", m.group(1)) + "]",
                json.dumps(rec, indent=1)) + "\n"
  if os.path.exists(path):
    old = json.load(open(path))
    if old.get("jps_vs_plain", {}).get("imps") != rec["jps_vs_plain"]["imps"]:
      raise ValueError(f"{path} holds another result for seed {rec['seed']} "
                       f"({old.get('jps_vs_plain', {}).get('mean')} vs "
                       f"{rec['jps_vs_plain']['mean']}); not replaced")
    if open(path).read() == text:
      return path
  atomic_io.write_text(path, text)
  return path


def load_runs(runs_dir: str) -> list:
  """All per-run records in RUNS_DIR, by seed."""
  runs = []
  for path in sorted(glob.glob(os.path.join(runs_dir, RUN_FILE.format("*")))):
    rec = json.load(open(path))
    m = re.fullmatch(r"bridge_finetune_seed(\d+)\.json", os.path.basename(path))
    if not m or int(m.group(1)) != rec.get("seed"):
      raise ValueError(f"{path}: its seed field {rec.get('seed')!r} does not match its name")
    if not isinstance(rec.get("jps_vs_plain", {}).get("mean"), (int, float)):
      raise ValueError(f"{path}: no jps_vs_plain mean")
    runs.append(rec)
  return sorted(runs, key=lambda r: r["seed"])


def method_level(runs: list, clusters_hex: list) -> dict:
  """The method-level test over the per-run records: each run's JPSBid-vs-plain, their mean
  with the Student t interval and the pre-registered decision, the descriptive comparisons
  with the start model, and the per-board mean of runs with per-board data."""
  out: dict = {}
  d = [r["jps_vs_plain"]["mean"] for r in runs]
  out["runs"] = [{"seed": r["seed"], "source": r["source"],
                  **{k: r["jps_vs_plain"].get(k) for k in ("boards", "mean", "se", "ci95")},
                  "per_board": "imps" in r["jps_vs_plain"]} for r in runs]
  if len(runs) >= 2:
    a = across_runs(d)
    out["across_runs"] = {"note": "mean over training runs of JPSBid-vs-plain on heldout2, "
                                  "Student t interval from the spread between runs "
                                  "(pre-registered, commit " + FLAGS.preregistered + ")", **a}
    out["method_decision"] = decide_method(a)
    out["across_runs_vs_start (descriptive)"] = {
        k: {**across_runs([r[k]["mean"] for r in runs]),
            "per_run": {str(r["seed"]): r[k]["mean"] for r in runs}}
        for k in ("plain_vs_a2c", "jps_vs_a2c") if all(k in r for r in runs)}
    pb = [r for r in runs if "imps" in r["jps_vs_plain"]]
    if pb:
      x = np.mean([np.asarray(r["jps_vs_plain"]["imps"], float) for r in pb], axis=0)
      out["per_board_mean_of_runs"] = {
          "note": "per-board mean over the runs with per-board results (seeds "
                  f"{[r['seed'] for r in pb]}); board noise only", **summarize(x, clusters_hex)}
  return out


def print_method_level(out: dict) -> None:
  for r in out["runs"]:
    print(f"run seed {r['seed']}: jps vs plain {r['mean']:+.4f} ± {r['se']:.3f}")
  if "across_runs" in out:
    a = out["across_runs"]
    print(f"across {a['runs']} runs: {a['mean']:+.3f} (s.d. {a['sd']:.3f}, t {a['t975']:.3f}) "
          f"[{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}] -> {out['method_decision']}")
  for k, a in out.get("across_runs_vs_start (descriptive)", {}).items():
    print(f"across runs, {k}: {a['mean']:+.3f} (s.d. {a['sd']:.3f}) "
          f"[{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}]")
  if "per_board_mean_of_runs" in out:
    s = out["per_board_mean_of_runs"]
    print(f"per-board mean of runs with per-board data: {s['mean']:+.3f} ± {s['se']:.3f}")


def heldout2_keys(n2: int) -> list:
  """Cluster keys of heldout2's boards in the order of board-order seed --seed."""
  held2 = dataset_lib.resolve_dataset("heldout2")
  order = np.random.default_rng(FLAGS.seed).permutation(n2)
  return list(deal_lib.canonical_keys(held2.holders[order]))


def _check_flags() -> None:
  """One line (SystemExit) for a bad flag, before any work."""
  try:
    atomic_io.check_writable(FLAGS.out)
    atomic_io.check_writable(FLAGS.workdir, folder=True, flag="--workdir")
    for w in FLAGS.replicate_workdir:
      if not os.path.exists(os.path.join(w, "results.json")):
        raise ValueError(f"--replicate_workdir {w!r} has no results.json")
    if FLAGS.export_only and not FLAGS.replicate_workdir:
      raise ValueError("--export_only needs --replicate_workdir")
    if not os.path.isdir(FLAGS.runs_dir):
      raise ValueError(f"--runs_dir {FLAGS.runs_dir!r} is not a folder")
  except ValueError as e:
    raise SystemExit(f"bridge_replication: error: {e}") from None


def export_only(n2: int) -> None:
  """--export_only: writes the per-run record of each --replicate_workdir."""
  keys2 = heldout2_keys(n2)
  try:
    for w in FLAGS.replicate_workdir:
      rec = export_run(w, n2, [str(c) for c in keys2], [c.hex() for c in keys2])
      path = write_run(FLAGS.runs_dir, rec)
      h = rec["jps_vs_plain"]
      print(f"seed {rec['seed']}: jps vs plain {h['mean']:+.4f} ± {h['se']:.3f} "
            f"[{h['ci95'][0]:+.3f}, {h['ci95'][1]:+.3f}] -> {path}")
  except ValueError as e:
    raise SystemExit(f"bridge_replication: error: {e}") from None


def runs_only(n2: int) -> None:
  """--runs_only: the method-level test over the per-run records of --runs_dir."""
  try:
    runs = load_runs(FLAGS.runs_dir)
    if len(runs) < 2:
      raise ValueError(f"--runs_dir {FLAGS.runs_dir!r} holds {len(runs)} run file(s); the "
                       "across-run interval needs at least 2")
  except ValueError as e:
    raise SystemExit(f"bridge_replication: error: {e}") from None
  out = {"runs_dir": FLAGS.runs_dir, **method_level(runs, [c.hex() for c in heldout2_keys(n2)])}
  atomic_io.write_text(FLAGS.out, json.dumps(out, indent=1) + "\n")
  print_method_level(out)
  print(f"wrote {FLAGS.out}")


def shipped_models_test(cache: Cache, n2: int) -> dict:
  """The pre-registered test of the shipped models: primary (heldout2), the original 2,000
  boards, both pooled, and the secondary comparisons on heldout2."""
  n1 = len(dataset_lib.resolve_dataset("heldout"))
  prim = cache.play("jpsbid", "a2c_finetuned", "heldout2", n2)
  orig = cache.play("jpsbid", "a2c_finetuned", "heldout", n1)
  primary = _row(prim)
  return {
      "protocol": "docs/bridge.md, pre-registered (commit 10e48da)",
      "models": {n: _sha1(jpsbid_models.model_path(n)) for n in
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


def per_run_records(cache: Cache, n2: int, prim: dict) -> list:
  """Writes the shipped models' and each --replicate_workdir's run record; all records.

  `prim` is the primary match (jpsbid vs a2c_finetuned on heldout2) as `Cache.play` stores it.
  """
  keys2 = heldout2_keys(n2)
  if [c.hex() for c in keys2] != prim["clusters"]:
    raise AssertionError("heldout2 cluster keys differ from the primary match's")
  try:
    write_run(FLAGS.runs_dir, shipped_run(
        prim, cache.play("a2c_finetuned", "a2c", "heldout2", n2),
        cache.play("jpsbid", "a2c", "heldout2", n2)))
    for w in FLAGS.replicate_workdir:
      write_run(FLAGS.runs_dir, export_run(w, n2, [str(c) for c in keys2], prim["clusters"]))
    return load_runs(FLAGS.runs_dir)
  except ValueError as e:
    raise SystemExit(f"bridge_replication: error: {e}") from None


def print_summary(out: dict) -> None:
  p = out["primary"]
  print(f"primary (heldout2, {p['boards']} boards): jpsbid vs a2c_finetuned {p['mean']:+.3f} ± "
        f"{p['se']:.3f} [{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}] -> {out['decision']}")
  for k in ("original_2000", "pooled_6000 (includes the 2,000 boards that prompted the test)"):
    s = out[k]
    print(f"{k}: {s['mean']:+.3f} ± {s['se']:.3f} [{s['ci95'][0]:+.3f}, {s['ci95'][1]:+.3f}]")
  for s in out["secondary_heldout2"]:
    print(f"heldout2 {s['a']} vs {s['b']}: {s['mean']:+.3f} ± {s['se']:.3f} "
          f"[{s['ci95'][0]:+.3f}, {s['ci95'][1]:+.3f}]")
  print_method_level(out)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  _check_flags()
  n2 = len(dataset_lib.resolve_dataset("heldout2"))
  if FLAGS.export_only:
    export_only(n2)
    return
  if FLAGS.runs_only:
    runs_only(n2)
    return
  cache = Cache(FLAGS.workdir)
  out = shipped_models_test(cache, n2)
  # The method-level test: one record per training run.
  prim = cache.play("jpsbid", "a2c_finetuned", "heldout2", n2)  # stored: not played again
  out.update(method_level(per_run_records(cache, n2, prim), prim["clusters"]))
  atomic_io.write_text(FLAGS.out, json.dumps(out, indent=1) + "\n")
  print_summary(out)
  print(f"wrote {FLAGS.out}")

if __name__ == "__main__":
  app.run(main)
