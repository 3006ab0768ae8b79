"""The learning-curve figure of a bridge training run (`ospiel-team-train-bridge`).

Drawn from the log rows of the self-play trainers (`round_trainer.RoundTrainer.log_rows`):
held-out IMPs/board against the natural bidder with standard-error bars, the policy's
entropy, and the mean auction length, each against self-play games.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from ospiel_team import atomic_io


def plot_learning_curve(rows: Sequence[dict], path: str, title: str = "bridge A2C") -> None:
  """Plots a training run's log rows into a PNG.

  Eval IMPs/board vs games (with stderr bars), entropy and auction length of the log rows
  (`A2CTrainer.log_rows`); written atomically as a PNG.
  """
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
  ev = [r for r in rows if r.get("eval_imps_vs_natural", "") != ""]
  if ev:
    axes[0].errorbar([r["games"] for r in ev], [r["eval_imps_vs_natural"] for r in ev],
                     yerr=[r["eval_stderr"] for r in ev], marker="o", capsize=2)
  axes[0].axhline(0, color="gray", lw=0.5)
  axes[0].set(xlabel="self-play games", ylabel="IMPs/board vs natural (held-out)", title=title)
  tr = [r for r in rows if r.get("entropy", "") != ""]
  axes[1].plot([r["games"] for r in tr], [r["entropy"] for r in tr])
  axes[1].set(xlabel="self-play games", ylabel="policy entropy (nats)")
  axes[2].plot([r["games"] for r in rows], [r["mean_auction_len"] for r in rows])
  axes[2].set(xlabel="self-play games", ylabel="mean auction length (calls)")
  fig.tight_layout()
  png = io.BytesIO()
  fig.savefig(png, format="png", dpi=90)
  plt.close(fig)
  atomic_io.write_bytes(path, png.getvalue())
