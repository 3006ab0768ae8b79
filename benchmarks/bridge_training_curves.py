r"""Training curves of the shipped A2C bridge models, read from their slim checkpoints.

  python benchmarks/bridge_training_curves.py \
      --models a2c_seed1,a2c_seed2,a2c_seed3,a2c_seed4,a2c_seed5,a2c_main \
      --out docs/img/bridge_seeded_baselines.png --csv results/bridge_seeded_baselines.csv

The shipped ``a2c_seed*`` / ``a2c_main`` files are slim training checkpoints
(`a2c.A2CTrainer.save_checkpoint(include_buffer=False)`), so they carry their training log
(one row per round: games, time, loss terms, and every ``--eval_every`` rounds the greedy model's
IMPs/board against the natural bidder on the validation deals). This plots those evaluations
against self-play games and writes the evaluation rows as CSV (atomically).
"""

import csv
import io
import json

from absl import app
from absl import flags
import numpy as np

from ospiel_team import atomic_io
from ospiel_team.bridge.agents import model_bidder

FLAGS = flags.FLAGS
flags.DEFINE_list("models", ["a2c_seed1", "a2c_seed2", "a2c_seed3", "a2c_seed4", "a2c_seed5",
                             "a2c_main"], "Shipped model names or checkpoint paths.")
flags.DEFINE_string("out", "docs/img/bridge_seeded_baselines.png", "PNG to write.")
flags.DEFINE_string("csv", "results/bridge_seeded_baselines.csv", "CSV to write.")


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
    paths = {m: model_bidder.model_path(m) for m in FLAGS.models}
    logs = {m: log_rows(p) for m, p in paths.items()}
    atomic_io.check_writable(FLAGS.out, flag="--out")
    atomic_io.check_writable(FLAGS.csv, flag="--csv")
  except ValueError as e:
    raise SystemExit(f"bridge_training_curves: error: {e}") from None
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, axes = plt.subplots(1, 2, figsize=(12, 4))
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
      axes[0].errorbar([r["games"] for r in ev], [r["eval_imps_vs_natural"] for r in ev],
                       yerr=[r["eval_stderr"] for r in ev], marker="o", capsize=2, label=m)
    tr = [r for r in rows if r.get("entropy", "") != ""]
    axes[1].plot([r["games"] for r in tr], [r["entropy"] for r in tr], label=m)
  axes[0].axhline(0, color="gray", lw=0.5)
  axes[0].set(xlabel="self-play games", ylabel="IMPs/board vs natural (validation deals)",
              title="greedy model vs natural during training")
  axes[1].set(xlabel="self-play games", ylabel="policy entropy (nats)")
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
