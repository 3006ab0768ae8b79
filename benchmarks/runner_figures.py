r"""The comparison runner's three example figures (`docs/results.md`, "The comparison runner").

Runs `ospiel-team-compare` (in-process, the same code path) on a cooperative game, a two-team
zero-sum game and a two-player zero-sum game with small settings (under two minutes in all
on 2 cores), copies each `curves.png` to `docs/img/runner_<name>.png` and prints, per figure, the
command, the commit and the machine (cores, load average before and after).

Usage:
  python benchmarks/runner_figures.py [--out out/runner_figures] [--img docs/img]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from absl import app
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_string("out", "out/runner_figures", "Folder of the runs (one per figure).")
flags.DEFINE_string("img", "docs/img", "Folder the PNGs are copied to.")

# name -> the command's arguments: equal CPU-second budgets per run (JIT and setup excluded)
FIGURES = {
    "cooperative": ["--game", "mini_bridge(size=3)", "--solvers", "cfr,cfr_plus,jps,cfr+jps",
                    "--seconds", "2", "--num_points", "8"],
    "team": ["--game", "kuhn_poker(players=3)", "--teams", "0,1|2",
             "--solvers", "cfr,cfr_plus,xfp,team_lp", "--seconds", "1.5", "--num_points", "8"],
    "zero_sum": ["--game", "kuhn_poker", "--solvers", "cfr,cfr_plus,xfp,mmd,ed",
                 "--seconds", "1", "--num_points", "10"],
}
COMMON = ["--seeds", "3"]


def main(argv):
  del argv
  repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  os.makedirs(FLAGS.img, exist_ok=True)
  for name, args in FIGURES.items():
    out = os.path.join(FLAGS.out, name)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "ospiel_team.compare", *args, *COMMON, "--out", out]
    load_before = os.getloadavg()
    subprocess.run(cmd, check=True, cwd=repo, stdout=subprocess.DEVNULL)
    load_after = os.getloadavg()
    target = os.path.join(FLAGS.img, f"runner_{name}.png")
    shutil.copyfile(os.path.join(out, "curves.png"), target)
    with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
      prov = json.load(f)["provenance"]
    shown = " ".join(f"'{a}'" if any(c in a for c in "(|, ") else a for a in args + COMMON)
    print(f"{target}: ospiel-team-compare {shown} --out {out}\n"
          f"  commit {prov['commit']}"
          f"{' + uncommitted changes' if prov['uncommitted_package_changes'] else ''}, "
          f"{prov['date']}, {prov['machine']['cores']} cores, "
          f"load average {load_before[0]:.2f} before / {load_after[0]:.2f} after")


if __name__ == "__main__":
  app.run(main)
