r"""Measurements behind the runner page's reproduction notes (`docs/runner.md`).

- `nfsp_settings`: NFSP's average-policy NashConv on Kuhn poker after a fixed number of
  episodes, under OpenSpiel's example settings and under scaled ones (the runner's defaults
  last), with the size of player 0's reservoir buffer (what the average network learns from).
- `mmd_magnet`: the current policy's NashConv of `mmd` on Kuhn poker at log-spaced iterations,
  with the moving magnet (the runner's default) and with OpenSpiel's uniform magnet.

Every run goes through `comparison.run_all` (the runner's code path) with an iteration budget, so
its numbers do not depend on the machine. Writes `<records>/nfsp_settings.json` and
`<records>/mmd_magnet.json`.

Usage:
  python benchmarks/runner_notes.py [--only nfsp_settings,mmd_magnet] [--episodes 1000] \
      [--mmd_iterations 2000] [--records results/runner]
"""

from __future__ import annotations

import json
import os
import sys

from absl import app
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_string("records", "results/runner", "Folder of the JSON records.")
flags.DEFINE_list("only", [], "Measure only these (nfsp_settings, mmd_magnet; default both).")
flags.DEFINE_integer("episodes", 1000, "NFSP episodes per setting.")
flags.DEFINE_integer("mmd_iterations", 2000, "MMD iterations per magnet.")
flags.DEFINE_integer("seed", 0, "The runs' seed.")

# (name, options): OpenSpiel's examples/kuhn_nfsp.py, then scaled settings; the runner's last.
NFSP_SETTINGS = [
    ("OpenSpiel's example", {"nfsp.batch": 128, "nfsp.min_buffer": 1000,
                             "nfsp.learn_every": 64, "nfsp.rl_lr": 0.01, "nfsp.sl_lr": 0.01,
                             "nfsp.anticipatory": 0.1}),
    ("smaller buffer", {"nfsp.batch": 128, "nfsp.min_buffer": 128, "nfsp.learn_every": 16,
                        "nfsp.rl_lr": 0.01, "nfsp.sl_lr": 0.01, "nfsp.anticipatory": 0.1}),
    ("small batch", {"nfsp.batch": 32, "nfsp.min_buffer": 32, "nfsp.learn_every": 8,
                     "nfsp.rl_lr": 0.01, "nfsp.sl_lr": 0.01, "nfsp.anticipatory": 0.1}),
    ("more best response", {"nfsp.batch": 32, "nfsp.min_buffer": 32, "nfsp.learn_every": 8,
                            "nfsp.rl_lr": 0.01, "nfsp.sl_lr": 0.01, "nfsp.anticipatory": 0.2}),
    ("the runner's default", {}),
]


def nfsp_settings(episodes: int, seed: int) -> dict:
  """NashConv and reservoir size after `episodes` episodes per NFSP setting (Kuhn poker).

  Args:
    episodes: episodes per run (a multiple of the runner's 20 episodes per iteration).
    seed: the runs' seed.

  Returns:
    {"episodes", "uniform_nash_conv", "settings": one dict per setting}.
  """
  from ospiel_team.runner import comparison
  from ospiel_team.runner.adapters import openspiel
  per_iteration = openspiel.NFSP_OPTIONS["nfsp.episodes"]
  iterations = max(1, episodes // per_iteration)
  out = []
  for name, options in NFSP_SETTINGS:
    rows, _ = comparison.run_all("kuhn_poker", ["nfsp"], iterations=iterations, num_points=2,
                              seeds=[seed], options={k: str(v) for k, v in options.items()},
                              progress=False)
    last = [r for r in rows if r["variant"] == "average"][-1]
    first = [r for r in rows if r["variant"] == "average"][0]
    used = {k: options.get(k, openspiel.NFSP_OPTIONS[k]) for k in
            ("nfsp.batch", "nfsp.min_buffer", "nfsp.learn_every", "nfsp.rl_lr", "nfsp.sl_lr",
             "nfsp.anticipatory")}
    out.append(dict(name=name, options=used, episodes=last["episodes"],
                    nash_conv=last["metric"], nash_conv_first_checkpoint=first["metric"],
                    reservoir_size_p0=last["reservoir_size_p0"]))
    print(f"{name}: NashConv {last['metric']:.4f}, reservoir {last['reservoir_size_p0']:.0f}")
  import pyspiel
  from open_spiel.python import policy
  from open_spiel.python.algorithms import exploitability
  game = pyspiel.load_game("kuhn_poker")
  uniform = exploitability.nash_conv(game, policy.TabularPolicy(game))
  return dict(episodes=iterations * per_iteration, seed=seed, uniform_nash_conv=uniform,
              settings=out)


def mmd_magnet(iterations: int) -> dict:
  """`mmd`'s current-policy NashConv at log-spaced iterations, per magnet (Kuhn poker).

  Args:
    iterations: iterations per magnet.

  Returns:
    {"iterations", "curves": {"moving"|"uniform": [[iteration, NashConv], ...]}}.
  """
  from ospiel_team.runner import comparison
  curves = {}
  for magnet in ("moving", "uniform"):
    rows, _ = comparison.run_all("kuhn_poker", ["mmd"], iterations=iterations, num_points=12,
                              options={"mmd.magnet": magnet}, progress=False)
    curves[magnet] = [[r["iteration"], r["metric"]] for r in rows if r["variant"] == "current"]
    print(f"mmd {magnet}: {curves[magnet][-1]}")
  return dict(iterations=iterations, curves=curves)


def main(argv):
  del argv
  from ospiel_team import atomic_io
  from ospiel_team.runner import execute
  from ospiel_team.runner import report
  known = ("nfsp_settings", "mmd_magnet")
  unknown = [n for n in FLAGS.only if n not in known]
  if unknown:
    print(f"error: --only {','.join(unknown)}: not one of {', '.join(known)}", file=sys.stderr)
    return 2
  execute.configure_worker()
  os.makedirs(FLAGS.records, exist_ok=True)
  for name in known:
    if FLAGS.only and name not in FLAGS.only:
      continue
    load_before = os.getloadavg()[0]
    data = (nfsp_settings(FLAGS.episodes, FLAGS.seed) if name == "nfsp_settings"
            else mmd_magnet(FLAGS.mmd_iterations))
    prov = report.provenance(["python", "benchmarks/runner_notes.py", f"--only={name}",
                              f"--episodes={FLAGS.episodes}",
                              f"--mmd_iterations={FLAGS.mmd_iterations}",
                              f"--seed={FLAGS.seed}"])
    prov["machine"]["load_average_before"] = round(load_before, 2)
    prov["machine"]["load_average_after"] = round(os.getloadavg()[0], 2)
    path = os.path.join(FLAGS.records, f"{name}.json")
    atomic_io.write_text(path, json.dumps({"provenance": prov, **data}, indent=1) + "\n")
    print(f"-> {path}")
  return 0


if __name__ == "__main__":
  app.run(lambda argv: sys.exit(main(argv)))
