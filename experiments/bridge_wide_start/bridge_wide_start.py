r"""A start for a wider bidder network: imitate `best`'s calls, or distil its distribution.

The pre-registered plan is ``experiments/bridge_wide_start/PLAN.md``. A wider network (512 x 2
by default) costs about four times the CPU per self-play game of `best`'s 200 x 2, so it can
only pay if it starts where `best` is. This script

1. collects teacher states once (`behaviour_cloning.collect_teacher_states`: the teacher bids
   ``--deals`` training deals, epsilon-perturbed) with the teacher's calls and distributions,
   stored in ``WORKDIR/states.npz``;
2. trains one student per arm from the same initial parameters and minibatch draws:
   ``calls`` (cross-entropy on the greedy calls) and ``probabilities`` (on the whole
   distribution, `behaviour_cloning.behaviour_cloning` with ``targets``); each student is
   stored in ``WORKDIR/<arm>.npz``;
3. measures each student on the validation deals only: a greedy match against its teacher
   (the decision measure), and agreement and KL(teacher || student) on validation states;
4. applies the plan's rule (`decide`);
5. if the chosen start is level with its teacher, fits its value head alone to the teacher's
   values on the same states (`behaviour_cloning.fit_value_head`, which leaves the policy as it
   is) and stores it as ``WORKDIR/start.npz``: the start of the long self-play run.

Each finished arm is written to ``OUT/record.json`` at once (atomically); a rerun skips the
finished arms and a finished run prints its record and does nothing.

  python experiments/bridge_wide_start/bridge_wide_start.py --workdir WORKDIR
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
import time

import numpy as np
from absl import app
from absl import flags

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents import bidders as bidders_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import match
from ospiel_team.bridge.agents.training import behaviour_cloning as bc
from ospiel_team.runner import report

FLAGS = flags.FLAGS
flags.DEFINE_string("teacher", "a2c_longer", "The network bidder imitated (a model of ours).")
flags.DEFINE_integer("hidden", 512, "Width of the student network.")
flags.DEFINE_integer("num_blocks", 2, "Residual blocks of the student network.")
flags.DEFINE_integer("deals", 50000, "Training deals the teacher bids for the states.")
flags.DEFINE_float("epsilon", 0.1, "Probability that a collected auction's call is random.")
flags.DEFINE_integer("steps", 16000, "Adam steps of each student.")
flags.DEFINE_integer("batch_size", 1024, "States per Adam step.")
flags.DEFINE_float("learning_rate", 1e-3, "Adam's step size.")
flags.DEFINE_integer("seed", 200, "Seed of the collection, the students' initial parameters "
                     "and their minibatch draws.")
flags.DEFINE_integer("eval_boards", 1000, "Validation boards of each student's match against "
                     "the teacher.")
flags.DEFINE_integer("eval_seed", 1, "Seed of those matches.")
flags.DEFINE_list("arms", ["calls", "probabilities"], "What the students imitate (see "
                  "--bc_targets of ospiel-team-train-bridge).")
flags.DEFINE_string("workdir", "/tmp/bridge_wide_start", "Folder of the collected states and "
                    "of the students' models.")
flags.DEFINE_string("out", "experiments/bridge_wide_start", "Folder of the record.")
flags.DEFINE_integer("value_steps", 4000, "Adam steps fitting the chosen start's value head.")
flags.DEFINE_bool("progress", True, "Show progress bars.")

ARMS = ("calls", "probabilities")
SETTINGS = ("teacher", "hidden", "num_blocks", "deals", "epsilon", "steps", "batch_size",
            "learning_rate", "seed", "eval_boards", "eval_seed")


def collect_states(teacher, dataset, seed: int, deals: int, epsilon: float) -> dict:
  """The teacher's states on `deals` auctions of `dataset`, with its calls and distributions."""
  obs, calls = bc.collect_teacher_states(teacher, dataset, np.random.default_rng(seed), deals,
                                         epsilon=epsilon)
  return {"obs": obs, "calls": calls, "probs": bc.teacher_probabilities(teacher, obs)}


def load_or_collect(path: str, teacher, seed: int) -> tuple[dict, float]:
  """The training states from `path`, collected and stored there first if absent."""
  made_with = {"teacher": FLAGS.teacher, "seed": seed, "deals": FLAGS.deals,
               "epsilon": FLAGS.epsilon}
  if os.path.exists(path):
    with np.load(path) as z:
      stored = {k: z[k].item() if k in z.files else None for k in made_with}
      if stored != made_with:
        raise SystemExit(f"{path}: collected with {stored}, not {made_with}; use another "
                         "--workdir")
      obs = np.unpackbits(z["obs_bits"], axis=1, count=policy_net.OBS_SIZE).astype(np.float32)
      return {"obs": obs, "calls": z["calls"], "probs": z["probs"]}, float(z["cpu_s"])
  t0 = time.process_time()
  states = collect_states(teacher, dataset_lib.shipped_training_deals(), seed, FLAGS.deals,
                          FLAGS.epsilon)
  cpu = time.process_time() - t0
  atomic_io.savez(path, obs_bits=np.packbits(states["obs"] > 0.5, axis=1),
                  calls=states["calls"], probs=states["probs"], cpu_s=cpu, **made_with)
  return states, cpu


def mean_kl(p: np.ndarray, q: np.ndarray) -> float:
  """Mean over rows of KL(p || q), in nats (the calls p gives mass to)."""
  m = p > 0
  logs = np.log(np.where(m, p, 1.0)) - np.log(np.maximum(q, 1e-30))
  return float(np.sum(np.where(m, p * logs, 0.0)) / len(p))


def measure(student: model_bidder.ModelBidder, teacher, val: dict) -> dict:
  """The plan's measures of one student: the match against its teacher and the state fits."""
  summary = match.run_match(student, teacher, FLAGS.eval_boards, dataset="validation",
                            seed=FLAGS.eval_seed, progress=FLAGS.progress).summary()
  probs = student.probabilities(val["obs"])
  legal = policy_net.legal_from_obs(val["obs"])
  return {"match": {k: summary[k] for k in ("boards", "imps_per_board_for_a",
                                            "stderr_clustered", "ci95_low", "ci95_high",
                                            "clusters")},
          "validation_agreement": float(np.mean(policy_net.greedy_calls(probs, legal)
                                                == val["calls"])),
          "validation_kl": mean_kl(val["probs"], probs)}


def decide(arms: dict) -> dict:
  """The plan's rule: the better arm on the validation match, and whether it is level."""
  best = max(arms, key=lambda a: arms[a]["match"]["imps_per_board_for_a"])
  level = arms[best]["match"]["ci95_high"] >= 0.0
  return {"start": best, "level_with_teacher": bool(level),
          "reading": (f"`{best}` is the better start" + (
              " and is level with its teacher: the wider network trains on from it."
              if level else ", but it is not level with its teacher: the wider network is "
              "not trained on from either start."))}


def fit_start(record: dict, states: dict, teacher) -> dict:
  """The decided start with its value head fitted to the teacher's values, as WORKDIR/start.npz.

  Returns the record's ``start`` entry (file, steps, value MSE before and after, CPU s).
  """
  t0 = time.process_time()
  arm = record["decision"]["start"]
  net, params, meta = policy_net.load_model(record["arms"][arm]["model"])
  values = bc.teacher_values(teacher, states["obs"])
  m = min(len(values), 20000)  # fit_value_head's error is on these rows too
  before = float(np.mean((policy_net.PolicyFn(net, params)(states["obs"][:m])[1]
                          - values[:m]) ** 2))
  fitted, after = bc.fit_value_head(net, params, states["obs"], values, FLAGS.value_steps,
                                    batch_size=FLAGS.batch_size, seed=FLAGS.seed,
                                    progress=FLAGS.progress)
  path = os.path.join(FLAGS.workdir, "start.npz")
  policy_net.save_model(path, fitted, meta, extra={"value_head": "fitted to the teacher"})
  return {"arm": arm, "file": path, "value_steps": FLAGS.value_steps,
          "value_mse_before": before, "value_mse_after": after,
          "cpu_s": round(time.process_time() - t0, 1)}


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments {argv[1:]}")
  bad = [a for a in FLAGS.arms if a not in ARMS]
  if bad or not FLAGS.arms:
    raise app.UsageError(f"--arms {','.join(FLAGS.arms)}: each must be one of {ARMS}")
  teacher = bidders_lib.make_bidder(FLAGS.teacher)
  try:
    bc.check_distillable(teacher)
  except ValueError as e:
    raise app.UsageError(f"--teacher {FLAGS.teacher}: {e}") from None
  os.makedirs(FLAGS.workdir, exist_ok=True)
  os.makedirs(FLAGS.out, exist_ok=True)
  path = os.path.join(FLAGS.out, "record.json")
  settings = {k: getattr(FLAGS, k) for k in SETTINGS}
  if os.path.exists(path):
    record = atomic_io.read_json(path, "wide-start record")
    if record["settings"] != settings:
      raise SystemExit(f"{path}: recorded with other settings; use another --out")
  else:
    record = {"settings": settings, "arms": {},
              "command": ("python experiments/bridge_wide_start/bridge_wide_start.py "
                          + " ".join(sys.argv[1:])),
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared)",
              "commit": report.short_commit(), "date": datetime.date.today().isoformat(),
              "load_before": [round(x, 2) for x in os.getloadavg()]}
  todo = [a for a in FLAGS.arms if a not in record["arms"]]
  if todo:
    states, cpu = load_or_collect(os.path.join(FLAGS.workdir, "states.npz"), teacher,
                                  FLAGS.seed)
    record["collection"] = {"states": int(len(states["calls"])), "cpu_s": round(cpu, 1)}
    val = collect_states(teacher, dataset_lib.resolve_dataset("validation"), FLAGS.seed,
                         len(dataset_lib.resolve_dataset("validation")), FLAGS.epsilon)
    record["validation_states"] = int(len(val["calls"]))
    net = policy_net.make_network(FLAGS.hidden, FLAGS.num_blocks)
    init = policy_net.init_params(net, FLAGS.seed)
  for arm in todo:
    t0 = time.process_time()
    params, acc = bc.behaviour_cloning(
        net, init, states["obs"], states["calls"], FLAGS.steps, batch_size=FLAGS.batch_size,
        learning_rate=FLAGS.learning_rate, seed=FLAGS.seed, progress=FLAGS.progress,
        targets=states["probs"] if arm == "probabilities" else None)
    train_cpu = time.process_time() - t0
    network = {"hidden": FLAGS.hidden, "num_blocks": FLAGS.num_blocks}
    model_path = os.path.join(FLAGS.workdir, f"{arm}.npz")
    policy_net.save_model(model_path, params, {"network": network},
                          extra={"teacher": FLAGS.teacher, "bc_targets": arm})
    student = model_bidder.ModelBidder(net, params, name=f"wide_{arm}")
    record["arms"][arm] = {"train_cpu_s": round(train_cpu, 1), "train_agreement": acc,
                           "model": model_path, **measure(student, teacher, val)}
    if set(record["arms"]) == set(ARMS):
      record["decision"] = decide(record["arms"])
      record["load_after"] = [round(x, 2) for x in os.getloadavg()]
    atomic_io.write_json(path, record, indent=1)
  decision = record.get("decision", {})
  if decision.get("level_with_teacher") and "start" not in record:
    if not todo:
      states, _ = load_or_collect(os.path.join(FLAGS.workdir, "states.npz"), teacher,
                                  FLAGS.seed)
    record["start"] = fit_start(record, states, teacher)
    atomic_io.write_json(path, record, indent=1)
  for arm, r in record["arms"].items():
    m = r["match"]
    print(f"{arm:13s} vs {FLAGS.teacher}: {m['imps_per_board_for_a']:+.3f} ± "
          f"{m['stderr_clustered']:.3f} IMPs/b; validation agreement "
          f"{r['validation_agreement']:.3f}, KL {r['validation_kl']:.3f}")
  if "decision" in record:
    print(record["decision"]["reading"])
  if "start" in record:
    st = record["start"]
    print(f"start {st['file']}: value MSE {st['value_mse_before']:.4f} -> "
          f"{st['value_mse_after']:.4f} after {st['value_steps']} steps")


if __name__ == "__main__":
  app.run(main)
