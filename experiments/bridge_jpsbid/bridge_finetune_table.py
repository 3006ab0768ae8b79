r"""JPS paper Table 3 at our scale: fine-tune one bridge bidder with plain A2C, 1-search and JPSBid.

Tian et al., "Joint Policy Search for Multi-agent Collaboration with Imperfect Information",
NeurIPS 2020, arXiv:2008.06495, Sec. 7.3 and Table 3: a pre-trained A2C bidder is fine-tuned
(a) by continued A2C ("non-search"), (b) with 1-search and (c) with JPSBid, the best model of
each is picked by IMPs/b against the baseline, and the picked models are compared.

  python experiments/bridge_jpsbid/bridge_finetune_table.py --workdir WORKDIR \
      --variants a2c,1search,jps --rounds 300 --snapshot_every 50 \
      [--reference_dir PATH/TO/jps_reference] [--ship]

Per variant (same starting model, same seed, hence the same first deals): ``--rounds`` rounds
of self-play A2C (`ospiel_team.bridge.agents.training.a2c`) with the variant's search attached
(`ospiel_team.bridge.agents.training.jps_bid`), a model snapshot every ``--snapshot_every`` rounds;
every snapshot plays ``--select_boards`` boards of the shipped *validation* deals against the
starting model and the best one is the variant's model; the picked models then play the 2,000
shipped *held-out* boards against ``--opponents`` (our baseline, our seeded baselines where
present, the JPS authors' baseline and JPS agent where ``--reference_dir`` has them) and,
head to head, against the picked plain-A2C model. Training deals: the shipped training set
augmented x96 (`dataset.augment_deals`), none of which is a validation or held-out deal.

Variants (``--variants``; ``name=base:key=value:...`` defines a new one from a base):

* ``a2c``: continued A2C, no search.
* ``1search``, ``jps``: the authors' protocol (`jps_bid.GameSearch`, as in facebookresearch/jps
  ``rela/search_actor.h``): a fraction of the games is searched at every decision and plays
  the searched call; their real results are the stored returns.
* ``jps_nll``: also a cross-entropy step towards the searched calls (their ``loss_search``).
* ``jps_mean``: P2's candidates averaged instead of maximised (their ``SearchActor``).
* ``jps_gain``: a searched call is played only if its estimated gain reaches ``--min_gain``.
* ``jps_point``, ``1search_point``: our earlier protocol (`jps_bid.JPSBidSearch`): one sampled
  decision of a searched game is searched after the game and stored as an extra decision with
  fresh-rollout returns.

Keys: fraction, depth, candidates, rollouts, threshold, partner, min_gain, target, mode.

Resumable: each variant trains in ``WORKDIR/<variant>/`` (checkpoints at every snapshot,
written atomically; the search's random numbers are reseeded per snapshot interval so a
resumed run equals an uninterrupted one); every match result is stored in
``WORKDIR/results.json`` as soon as it is done; a rerun skips whatever is there, and a
finished run does nothing but print the table (``WORKDIR/table.md``). ``--ship`` copies the
picked a2c / 1search models and the JPS variant best on validation to
``experiments/bridge_jpsbid/models/`` (a2c_finetuned, a2c_1search, jpsbid) with their command, data,
seed and time in the metadata.
"""

import hashlib
import json
import os
import sys
import time

import numpy as np
import tqdm
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import jps_paper
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import jps_bid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # this experiment's folder
import jpsbid_models  # noqa: E402  (its models: jpsbid_models.py beside this script)

FLAGS = flags.FLAGS
flags.DEFINE_string("workdir", "/tmp/bridge_ft", "Output / resume folder.")
flags.DEFINE_string("variants", "a2c,1search,jps", "Comma-separated variants (see above).")
flags.DEFINE_string("init_model", "a2c", "Starting model: shipped name or .npz path.")
flags.DEFINE_integer("rounds", 300, "Fine-tuning rounds per variant.")
flags.DEFINE_integer("snapshot_every", 50, "Snapshot (and checkpoint) interval in rounds.")
_CFG = a2c.A2CConfig()  # the trainer's defaults, declared there only
flags.DEFINE_integer("deals_per_round", _CFG.deals_per_round, "Deals per round (2 tables each).")
flags.DEFINE_float("learning_rate", _CFG.learning_rate, "Adam learning rate.")
flags.DEFINE_float("entropy_coef", _CFG.entropy_coef, "Entropy bonus.")
flags.DEFINE_integer("seed", 10, "Trainer seed (the same for every variant).")
_SEARCH = jps_bid.GameSearch.DEFAULTS  # the authors' protocol's defaults, declared there only
flags.DEFINE_float("search_fraction", _SEARCH.fraction, "Fraction of games searched.")
flags.DEFINE_integer("search_candidates", _SEARCH.candidates, "At most this many candidates "
                     "per player.")
flags.DEFINE_integer("search_rollouts", _SEARCH.rollouts, "Rollouts per stage (5 x 5 in the "
                     "paper).")
flags.DEFINE_float("candidate_threshold", _SEARCH.candidate_threshold, "Candidates: "
                   "sigma-probability above this (the authors' code: 0.05).")
flags.DEFINE_float("min_gain", 50.0, "jps_gain: minimum estimated gain (points).")
flags.DEFINE_integer("select_boards", 1000, "Validation boards per snapshot.")
flags.DEFINE_integer("eval_boards", 2000, "Held-out boards per match.")
flags.DEFINE_string("eval_dataset", "heldout", "Held-out deals of the final matches: heldout "
                    "(2,000 deals) or heldout2 (4,000 fresh deals, the pre-registered "
                    "replication set).")
flags.DEFINE_string("opponents", "a2c,a2c_long,jps_paper_baseline,jps_paper_0.63",
                    "Held-out opponents (missing ones are skipped with a note; names "
                    "a2c_seed* are pooled into one column).")
flags.DEFINE_string("reference_dir", None, "Folder of the JPS authors' models (default: the "
                    "environment variable JPS_REFERENCE_DIR).")
flags.DEFINE_integer("train_deals", None, "Use only the first N deals of the shipped training "
                     "set (default: all). 10000 reproduces the recorded runs made when the "
                     "shipped set held 10,000 deals (its first 10,000 are that file).")
flags.DEFINE_bool("ship", False, "Copy the picked models into experiments/bridge_jpsbid/models/.")
flags.DEFINE_bool("progress", True, "Progress bars.")

VARIANTS = {
    "a2c": {"mode": "none"},
    "1search": {"mode": "game", "depth": 1},
    "jps": {"mode": "game", "depth": 3},
    "jps_nll": {"mode": "game", "depth": 3, "target": "nll"},
    "jps_mean": {"mode": "game", "depth": 3, "partner": "mean"},
    "jps_gain": {"mode": "game", "depth": 3, "min_gain": None},
    "jps_point": {"mode": "point", "depth": 3, "threshold": 0.0},
    "1search_point": {"mode": "point", "depth": 1, "threshold": 0.0},
}
_KEYS = {"fraction": float, "depth": int, "candidates": int, "rollouts": int,
         "threshold": float, "partner": str, "min_gain": float, "target": str, "mode": str}
SHIP_NAMES = {"a2c": "a2c_finetuned", "1search": "a2c_1search", "jps": "jpsbid"}


def parse_variants(spec: str) -> dict:
  """{name: full settings} from ``--variants`` (see the module docstring)."""
  out = {}
  for item in [x for x in spec.split(",") if x]:
    name, _, rest = item.partition("=")
    if rest:
      base, *pairs = rest.split(":")
    else:
      base, pairs = name, []
    if base not in VARIANTS:
      raise ValueError(f"unknown variant {base!r}; known: {sorted(VARIANTS)}")
    v = {"mode": "none", "fraction": FLAGS.search_fraction, "depth": 3,
         "candidates": FLAGS.search_candidates, "rollouts": FLAGS.search_rollouts,
         "threshold": FLAGS.candidate_threshold, "partner": "max", "min_gain": 0.0,
         "target": "a2c"}
    v.update({k: val for k, val in VARIANTS[base].items()})
    if v["min_gain"] is None:
      v["min_gain"] = FLAGS.min_gain
    for p in pairs:
      k, _, val = p.partition("=")
      if k not in _KEYS or not val:
        raise ValueError(f"bad variant setting {p!r} in {item!r}; keys: {sorted(_KEYS)}")
      v[k] = _KEYS[k](val)
    if v["mode"] == "none":
      v = {"mode": "none"}
    out[name] = v
  if not out:
    raise ValueError("--variants is empty")
  return out


def make_search(v: dict):
  """The search hook of a variant's settings (None for plain A2C)."""
  if v["mode"] == "none":
    return None
  options = jps_bid.SearchOptions(fraction=v["fraction"], depth=v["depth"],
                                  candidates=v["candidates"], rollouts=v["rollouts"],
                                  candidate_threshold=v["threshold"], partner=v["partner"],
                                  min_gain=v["min_gain"])
  if v["mode"] == "game":
    return jps_bid.GameSearch(options, target=v["target"])
  if v["mode"] == "point":
    return jps_bid.JPSBidSearch(options)
  raise ValueError(f"unknown search mode {v['mode']!r}")


def _snap_path(vdir: str, r: int) -> str:
  return os.path.join(vdir, "snapshots", f"round_{r:05d}.npz")


def train_variant(name: str, v: dict, train_ds, init_path: str) -> dict:
  """Trains one variant to --rounds (resuming); returns its run statistics."""
  vdir = os.path.join(FLAGS.workdir, name)
  os.makedirs(os.path.join(vdir, "snapshots"), exist_ok=True)
  stats_path = os.path.join(vdir, "run_stats.json")
  stats = json.load(open(stats_path)) if os.path.exists(stats_path) else {}
  if stats.get("round") == FLAGS.rounds:
    return stats
  cfg = a2c.A2CConfig(learning_rate=FLAGS.learning_rate, entropy_coef=FLAGS.entropy_coef,
                      entropy_coef_start=FLAGS.entropy_coef, entropy_decay_rounds=0,
                      deals_per_round=FLAGS.deals_per_round, seed=FLAGS.seed)
  trainer = a2c.A2CTrainer(cfg, train_ds, None, None, workdir=vdir, init_params_from=init_path)
  search = make_search(v)
  trainer.search = search
  every = FLAGS.snapshot_every
  if stats.get("round") != trainer.round:  # interrupted between checkpoint and stats
    stats = {"round": trainer.round, "search_points": 0, "search_changed": 0}
  while trainer.round < FLAGS.rounds:
    target = min(FLAGS.rounds, (trainer.round // every + 1) * every)
    if search is not None:
      search.reseed(FLAGS.seed * 1_000_003 + trainer.round)
      search.total_points = 0
      search.total_changed = 0
    trainer.train(target, eval_every=0, checkpoint_every=every, progress=FLAGS.progress)
    policy_net.save_model(_snap_path(vdir, trainer.round), trainer.params, cfg,
                          {"variant": name, "settings": v, "round": trainer.round})
    if search is not None:
      stats["search_points"] += int(search.total_points)
      stats["search_changed"] += int(getattr(search, "total_changed", 0))
    stats.update(round=trainer.round, games=trainer.games, train_s=round(trainer.wall, 1),
                 total_wall_s=round(trainer.total_wall, 1), settings=v,
                 entropy_last=trainer.log_rows[-1].get("entropy", ""),
                 loadavg=open("/proc/loadavg").read().split()[:3])
    atomic_io.write_text(stats_path, json.dumps(stats, indent=1) + "\n")
  return stats


class Results:
  """Match results cached in WORKDIR/results.json (written after every match)."""

  def __init__(self, path: str):
    self.path = path
    self.data = json.load(open(path)) if os.path.exists(path) else {}

  def get(self, key: str, play) -> dict:
    if key not in self.data:
      t0 = time.time()
      res = play()
      self.data[key] = {
          "a": res.bidder_a, "b": res.bidder_b, "boards": res.boards,
          "mean": res.mean_imps, "se": res.stderr_clustered, "ci95": list(res.ci95),
          "imps": [int(x) for x in res.imps],
          "clusters": [str(c) for c in res.clusters] if res.clusters is not None else None,
          "seconds": round(time.time() - t0, 1),
          "loadavg": open("/proc/loadavg").read().split()[:3]}
      atomic_io.write_text(self.path, json.dumps(self.data) + "\n")
    return self.data[key]


def paired(r1: dict, r2: dict) -> tuple:
  """(mean, clustered s.e.) of the per-board difference r1 - r2 (same boards, same order)."""
  d = np.asarray(r1["imps"], float) - np.asarray(r2["imps"], float)
  cl = np.asarray(r1["clusters"]) if r1["clusters"] is not None else np.arange(len(d))
  return float(d.mean()), match.clustered_stderr(d, cl)


def _fmt(m, se):
  lo, hi = m - 1.959964 * se, m + 1.959964 * se
  return f"{m:+.3f} ± {se:.3f} [{lo:+.2f}, {hi:+.2f}]"


def pooled(rows) -> tuple:
  """Mean over opponents of per-board IMPs (same boards), clustered s.e. of that average."""
  x = np.mean([np.asarray(r["imps"], float) for r in rows], axis=0)
  cl = np.asarray(rows[0]["clusters"]) if rows[0]["clusters"] is not None else np.arange(len(x))
  return float(x.mean()), match.clustered_stderr(x, cl)


def _check_flags() -> dict:
  """The variants of the flags; one line (SystemExit) for a bad flag, before any work."""
  try:
    atomic_io.check_writable(FLAGS.workdir, folder=True, flag="--workdir")
    variants = parse_variants(FLAGS.variants)
    jpsbid_models.model_path(FLAGS.init_model)
    if FLAGS.eval_dataset not in ("heldout", "heldout2"):
      raise ValueError(f"--eval_dataset must be heldout or heldout2, got "
                       f"{FLAGS.eval_dataset!r}")
    if FLAGS.train_deals is not None:
      n_train = len(dataset_lib.resolve_dataset("train"))
      if not 1 <= FLAGS.train_deals <= n_train:
        raise ValueError(f"--train_deals must be in [1, {n_train}], got {FLAGS.train_deals}")
    for k in ("rounds", "snapshot_every", "select_boards", "eval_boards"):
      if getattr(FLAGS, k) < 1:
        raise ValueError(f"--{k} must be >= 1, got {getattr(FLAGS, k)}")
  except ValueError as e:
    raise SystemExit(f"bridge_finetune_table: error: {e}") from None
  return variants


def pick_snapshot(name: str, results: Results, start, val_ds) -> tuple:
  """(round, validation mean, s.e., path) of the variant's snapshot best against `start`.

  Every snapshot (each --snapshot_every rounds, and the last round) plays --select_boards
  validation boards against the starting model; the first of equal means is kept.
  """
  rounds = list(range(FLAGS.snapshot_every, FLAGS.rounds + 1, FLAGS.snapshot_every))
  if FLAGS.rounds % FLAGS.snapshot_every:
    rounds.append(FLAGS.rounds)
  best = None
  for r in rounds:
    path = _snap_path(os.path.join(FLAGS.workdir, name), r)
    label = f"{name}@{r}" if r % FLAGS.snapshot_every == 0 else name
    res = results.get(f"val|{name}|{r}|{FLAGS.select_boards}",
                      lambda p=path, label=label: match.run_match(
                          model_bidder.load_bidder(p, name=label), start, FLAGS.select_boards,
                          dataset=val_ds, seed=1, progress=False))
    if best is None or res["mean"] > best[1]:
      best = (r, res["mean"], res["se"], path)
  return best


def available_opponents(ref: str | None) -> tuple[list[str], list[str], dict[str, str]]:
  """(the --opponents that load, a note for each that does not, result-key name of each).

  Opponents that are model files get their content's fingerprint in the result keys, so a
  model retrained (e.g. a seeded baseline trained on) is played again, never mixed.
  """
  opponents, notes = [], []
  for o in [x for x in FLAGS.opponents.split(",") if x]:
    try:
      bidders_lib.make_bidder(o, reference_dir=ref)
      opponents.append(o)
    except ValueError as e:
      notes.append(f"{o}: not available ({e})")
  okey = {}
  for o in opponents:
    path = None
    try:
      path = jpsbid_models.model_path(o)
    except ValueError:
      pass
    okey[o] = o if path is None or not path.endswith(".npz") else \
        f"{o}#{hashlib.sha1(open(path, 'rb').read()).hexdigest()[:10]}"
  okey["ft:a2c"] = "ft:a2c"
  return opponents, notes, okey


def heldout_matches(variants: dict, picked: dict, opponents: list[str], okey: dict,
                    results: Results, ref: str | None) -> None:
  """Each picked model against each opponent (and the picked a2c) on the held-out boards."""
  held_ds = dataset_lib.resolve_dataset(FLAGS.eval_dataset)
  cache = {}

  def bidder(name):
    if name not in cache:
      cache[name] = bidders_lib.make_bidder(name, reference_dir=ref)
    return cache[name]

  ev = FLAGS.eval_boards
  pairs = [(n, o) for n in variants for o in opponents]
  if "a2c" in variants:
    pairs += [(n, "ft:a2c") for n in variants if n != "a2c"]
  for n, o in tqdm.tqdm(pairs, desc="held-out matches", disable=not FLAGS.progress):
    a = model_bidder.load_bidder(picked[n][3], name=n)
    b = (model_bidder.load_bidder(picked["a2c"][3], name="a2c_finetuned")
         if o == "ft:a2c" else bidder(o))
    results.get(f"{FLAGS.eval_dataset}|{n}@{picked[n][0]}|{okey[o]}|{ev}",
                lambda a=a, b=b: match.run_match(a, b, ev, dataset=held_ds, seed=2,
                                                 progress=False))


def table_markdown(variants: dict, picked: dict, opponents: list[str], okey: dict,
                   data: dict, run_stats: dict, notes: list[str]) -> str:
  """The results table (held-out IMPs/board of each picked model) and the runs table."""
  ev_tag, ev = FLAGS.eval_dataset, FLAGS.eval_boards
  seeds = [o for o in opponents if o.startswith("a2c_seed")]
  cols = [o for o in opponents if not o.startswith("a2c_seed")]
  head = ["variant", "settings", "picked round", "validation vs start"] + \
      [f"vs {o}" for o in cols] + ([f"vs our {len(seeds)} seeded baselines (pooled)"]
                                   if seeds else [])
  if "a2c" in variants:
    head += ["head to head vs a2c_finetuned", "paired: (vs a2c) minus a2c_finetuned's"]
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for n, v in variants.items():
    key = lambda o, n=n: f"{ev_tag}|{n}@{picked[n][0]}|{okey[o]}|{ev}"
    cells = [n, ", ".join(f"{k}={val}" for k, val in v.items()), str(picked[n][0]),
             f"{picked[n][1]:+.3f} ± {picked[n][2]:.3f}"]
    cells += [_fmt(data[key(o)]["mean"], data[key(o)]["se"]) for o in cols]
    if seeds:
      cells.append(_fmt(*pooled([data[key(o)] for o in seeds])))
    if "a2c" in variants:
      if n == "a2c":
        cells += ["—", "—"]
      else:
        h2h = data[key("ft:a2c")]
        cells.append(_fmt(h2h["mean"], h2h["se"]))
        if "a2c" in cols:
          base = data[f"{ev_tag}|a2c@{picked['a2c'][0]}|{okey['a2c']}|{ev}"]
          cells.append(_fmt(*paired(data[key("a2c")], base)))
        else:
          cells.append("—")
    lines.append("| " + " | ".join(cells) + " |")
  runs = ["| variant | rounds | games | s in training rounds | search decisions | calls "
          "changed by search | load |", "|---|---|---|---|---|---|---|"]
  for n, s in run_stats.items():
    runs.append(f"| {n} | {s['round']} | {s.get('games', '')} | {s.get('train_s', '')} | "
                f"{s.get('search_points', 0)} | {s.get('search_changed', 0)} | "
                f"{' '.join(s.get('loadavg', []))} |")
  return (f"IMPs/board for the row's picked model on the held-out boards ({ev_tag}, "
          f"{ev} boards), ± clustered s.e. [95% interval]\n\n" + "\n".join(lines) + "\n\n"
          + "\n".join(runs) + "\n" + "".join(f"\n- {x}" for x in notes) + "\n")


def ship(variants: dict, picked: dict, run_stats: dict, ref: str | None) -> None:
  """Copies the picked a2c / 1search models and the JPS variant best on validation to
  ``experiments/bridge_jpsbid/models/`` (unless already there), with their provenance."""
  jps_names = [n for n in variants if variants[n].get("depth") == 3]
  chosen = {"a2c": "a2c", "1search": "1search"}
  if jps_names:  # the JPS variant best on *validation* (never on held-out)
    chosen["jps"] = max(jps_names, key=lambda n: picked[n][1])
  for role, n in chosen.items():
    if n not in picked:
      continue
    net_, params, meta = policy_net.load_model(picked[n][3])
    del net_
    out = jpsbid_models.model_path(SHIP_NAMES[role])
    if os.path.exists(out):
      old = policy_net.load_model(out)[2]
      if old.get("variant") == n and old.get("picked_round") == picked[n][0]:
        continue  # already shipped
    extra = {k: val for k, val in meta.items() if k not in ("network", "uncontested")}
    extra.update(
        command=("python experiments/bridge_jpsbid/bridge_finetune_table.py "
                 + " ".join(sys.argv[1:]).replace(ref or "\0", "$JPS_REFERENCE_DIR")),
        data=(f"first {FLAGS.train_deals} " if FLAGS.train_deals else "") +
        "shipped training deals (seed 0) minus validation/held-out, augmented x96",
        start_model=FLAGS.init_model, seed=FLAGS.seed, picked_round=picked[n][0],
        validation_imps_vs_start=picked[n][1], games=picked[n][0] * 2 * FLAGS.deals_per_round,
        train_s=run_stats[n].get("train_s"), variant=n, loadavg=run_stats[n].get("loadavg"),
        date=time.strftime("%Y-%m-%d", time.gmtime()))
    cfg = a2c.A2CConfig(**meta["network"])
    policy_net.save_model(out, params, cfg, extra)
    print(f"shipped {n} (round {picked[n][0]}) as {out}")


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  variants = _check_flags()
  init_path = jpsbid_models.model_path(FLAGS.init_model)
  os.makedirs(FLAGS.workdir, exist_ok=True)
  ref = FLAGS.reference_dir or jps_paper.default_reference_dir()
  results = Results(os.path.join(FLAGS.workdir, "results.json"))
  start = model_bidder.load_bidder(init_path, name="start")
  val_ds = dataset_lib.resolve_dataset("validation")
  train_ds = None
  run_stats, picked = {}, {}
  for name, v in variants.items():
    done = os.path.join(FLAGS.workdir, name, "run_stats.json")
    if not (os.path.exists(done) and json.load(open(done)).get("round") == FLAGS.rounds):
      if train_ds is None:
        train_ds = dataset_lib.shipped_training_deals(FLAGS.train_deals)
      print(f"training {name}: {v}")
    run_stats[name] = train_variant(name, v, train_ds, init_path)
    best = picked[name] = pick_snapshot(name, results, start, val_ds)
    print(f"{name}: picked round {best[0]} (validation {best[1]:+.3f} ± {best[2]:.3f} vs start)")
  opponents, notes, okey = available_opponents(ref)
  heldout_matches(variants, picked, opponents, okey, results, ref)
  md = table_markdown(variants, picked, opponents, okey, results.data, run_stats, notes)
  table_path = os.path.join(FLAGS.workdir, "table.md")
  if not (os.path.exists(table_path) and open(table_path).read() == md):
    atomic_io.write_text(table_path, md)
  print(md)
  if FLAGS.ship:
    ship(variants, picked, run_stats, ref)

if __name__ == "__main__":
  app.run(main)
