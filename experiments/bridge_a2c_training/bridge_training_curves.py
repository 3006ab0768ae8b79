r"""Training curves of A2C bridge models, read from their slim training checkpoints.

  python experiments/bridge_a2c_training/bridge_training_curves.py \
      --models experiments/bridge_a2c_training/checkpoints/a2c_longer.npz \
      --selection experiments/bridge_a2c_training/selection.json \
      --out docs/img/bridge_learning_curve.png \
      --csv experiments/bridge_a2c_training/learning_curve.csv

A slim training checkpoint (`a2c.A2CTrainer.save_checkpoint(include_buffer=False)`, e.g. the
committed ``experiments/bridge_a2c_training/checkpoints/*.npz``) carries its training log: one row
per round (games, seconds, loss terms, and every ``--eval_every`` rounds the greedy model's
IMPs/board against the natural bidder on the validation deals); a resumed run continues its parent's
log. This plots those evaluations against self-play games and against training seconds (self-play +
learning on the machine that trained), the policy's entropy, and, with ``--selection`` (the JSON of
`bridge_select_snapshot.py` beside this script), each snapshot's validation match against the
selection opponent; the evaluation rows go to a CSV (atomically).
"""

import csv
import io
import json
import os

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge.agents.bidders import model_bidder

FLAGS = flags.FLAGS
flags.DEFINE_list("models", ["experiments/bridge_a2c_training/checkpoints/a2c_longer.npz"],
                  "Slim training checkpoint paths (the shipped models hold no training log).")
flags.DEFINE_string("selection", None, "JSON of bridge_select_snapshot.py to overlay.")
flags.DEFINE_list("marks", [], "Vertical lines GAMES=label (e.g. where the learning rate "
                  "changed).")
flags.DEFINE_string("out", "docs/img/bridge_learning_curve.png", "PNG to write.")
flags.DEFINE_string("csv", "experiments/bridge_a2c_training/learning_curve.csv", "CSV to write.")


def log_rows(path: str) -> list:
  """The training log stored in a checkpoint .npz (ValueError if it has none)."""
  with np.load(path, allow_pickle=False) as z:
    if "state" not in z.files:
      raise ValueError(f"{path!r} is a model without a training log (not a checkpoint)")
    return json.loads(str(z["state"]))["log_rows"]


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  try:
    paths = {os.path.splitext(os.path.basename(m))[0]: model_bidder.model_path(m)
             for m in FLAGS.models}
    marks = []
    for mark in FLAGS.marks:
      games, _, label = mark.partition("=")
      marks.append((float(games), label))
    logs = {m: log_rows(p) for m, p in paths.items()}
    selection = None
    if FLAGS.selection:
      with open(FLAGS.selection) as f:
        selection = json.load(f)
    atomic_io.check_writable(FLAGS.out, flag="--out")
    atomic_io.check_writable(FLAGS.csv, flag="--csv")
  except (ValueError, OSError) as e:  # a bad --marks entry is a ValueError too
    raise SystemExit(f"bridge_training_curves: error: {e}") from None
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  ncols = 4 if selection else 3
  fig, axes = plt.subplots(1, ncols, figsize=(4.2 * ncols, 4))
  buf = io.StringIO()
  w = csv.writer(buf)
  w.writerow(["model", "round", "games", "wall_s", "eval_boards", "eval_imps_vs_natural",
              "eval_stderr", "entropy"])
  for m, rows in logs.items():
    ev = [r for r in rows if r.get("eval_imps_vs_natural", "") != ""]
    for r in ev:
      w.writerow([m, r["round"], r["games"], r["wall_s"], r["eval_boards"],
                  r["eval_imps_vs_natural"], r["eval_stderr"], r.get("entropy", "")])
    if ev:
      for ax, x in ((axes[0], "games"), (axes[1], "wall_s")):
        ax.errorbar([r[x] for r in ev], [r["eval_imps_vs_natural"] for r in ev],
                    yerr=[r["eval_stderr"] for r in ev], marker="o", ms=3, capsize=2, label=m)
    tr = [r for r in rows if r.get("entropy", "") != ""]
    axes[2].plot([r["games"] for r in tr], [r["entropy"] for r in tr], lw=0.5, label=m)
  for ax in axes[:2]:
    ax.axhline(0, color="gray", lw=0.5)
    ax.set(ylabel="IMPs/board vs natural (400 validation boards)")
  axes[0].set(xlabel="self-play games", title="greedy model vs natural during training")
  axes[1].set(xlabel="training seconds (self-play + learning, 2 CPU cores)",
              title="the same against training time")
  axes[2].set(xlabel="self-play games", ylabel="policy entropy (nats)", title="entropy")
  if selection:
    sel = [r for r in selection["rows"] if r.get("games") is not None]
    snaps = sorted((r for r in sel if r["snapshot"].startswith("round_")),
                   key=lambda r: r["games"])
    avgs = [r for r in sel if not r["snapshot"].startswith("round_")]
    opp = sel[0]["opponent"] if sel else "?"
    axes[3].errorbar([r["games"] for r in snaps], [r["imps"] for r in snaps],
                     yerr=[r["stderr"] for r in snaps], marker="o", ms=3, capsize=2,
                     label="snapshot")
    if avgs:
      axes[3].errorbar([r["games"] for r in avgs], [r["imps"] for r in avgs],
                       yerr=[r["stderr"] for r in avgs], fmt="s", ms=4, capsize=2,
                       label="average of the last K snapshots")
    best = [r for r in sel if r["snapshot"] == selection.get("best")]
    if best:
      axes[3].plot([best[0]["games"]], [best[0]["imps"]], "r*", ms=14, label="selected")
    axes[3].legend(fontsize=7, loc="lower right")
    axes[3].axhline(0, color="gray", lw=0.5)
    axes[3].set(xlabel="self-play games", ylabel=f"IMPs/board vs {opp}",
                title=f"model selection ({sel[0]['boards'] if sel else 0} validation boards)")
  for ax in (axes[0], axes[2]) + ((axes[3],) if selection else ()):
    for games, label in marks:
      ax.axvline(games, color="gray", ls=":", lw=1)
      ax.text(games, ax.get_ylim()[1], " " + label, fontsize=7, va="top", rotation=90)
  axes[0].legend(fontsize=8)
  fig.tight_layout()
  png = io.BytesIO()
  fig.savefig(png, format="png", dpi=90)
  plt.close(fig)
  atomic_io.write_bytes(FLAGS.out, png.getvalue())
  atomic_io.write_text(FLAGS.csv, buf.getvalue())
  print(f"wrote {FLAGS.out} and {FLAGS.csv} ({len(logs)} models)")


if __name__ == "__main__":
  app.run(main)
