"""ospiel-team-train-bridge: both engines train on small settings, exchange checkpoints and
resume; bad flags are one line; its flags' defaults are `A2CConfig`'s."""

import csv
import dataclasses
import os
import subprocess
import sys

from absl import flags

from ospiel_team.bridge.agents.training import jax_trainer
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.cli import config_flags

SMALL = ["--deals_per_round=8", "--batch_size=32", "--updates_per_round=2", "--hidden=16",
         "--num_blocks=1", "--holdout=16", "--progress=false", "--bc_teacher="]
JAX = ["--engine=jax", "--platform=cpu"]


def _run(*args, cwd):
  return subprocess.run([sys.executable, "-m", "ospiel_team.cli.train_bridge", *args], cwd=cwd,
                        capture_output=True, text=True, timeout=600)


def test_flag_defaults_are_the_configuration_defaults():
  fv = flags.FlagValues()
  config_flags.define_config_flags(A2CConfig, flag_values=fv)
  config_flags.define_config_flags(jax_trainer.JaxTrainOptions, flag_values=fv)
  fv(["prog"])
  for cls in (A2CConfig, jax_trainer.JaxTrainOptions):
    for f in dataclasses.fields(cls):
      assert fv[f.name].default == getattr(cls(), f.name), f.name
      assert fv[f.name].help == f.metadata["help"]
    assert config_flags.config_from_flags(cls, flag_values=fv) == cls()
  fv(["prog", "--learning_rate=3e-4", "--uncontested"])
  assert config_flags.config_from_flags(A2CConfig, flag_values=fv) == A2CConfig(
      learning_rate=3e-4, uncontested=True)


def test_jax_engine_trains_exports_and_the_numpy_engine_resumes(tmp_path):
  work, slim = tmp_path / "w", tmp_path / "slim.npz"
  out = _run(f"--workdir={work}", "--rounds=2", f"--export_checkpoint={slim}", *SMALL, *JAX,
             cwd=tmp_path)
  assert out.returncode == 0, out.stderr[-3000:]
  assert "rounds 2, games 32" in out.stdout and "resuming at round 0" in out.stdout
  rows = list(csv.DictReader(open(work / "log.csv")))
  assert [int(r["round"]) for r in rows] == [1, 2]
  assert os.path.exists(work / "model.npz") and os.path.exists(slim)
  # A new workdir started from the exported checkpoint goes on from round 2 (JAX engine).
  out = _run(f"--workdir={tmp_path / 'w2'}", "--rounds=3", f"--resume_from={slim}", *SMALL,
             *JAX, cwd=tmp_path)
  assert out.returncode == 0, out.stderr[-3000:]
  assert "resuming at round 2" in out.stdout and "rounds 3, games 48" in out.stdout
  # ... and on the numpy engine.
  out = _run(f"--workdir={tmp_path / 'w3'}", "--rounds=3", f"--resume_from={slim}", *SMALL,
             "--burn_in=16", "--eval_every=0", cwd=tmp_path)
  assert out.returncode == 0, out.stderr[-3000:]
  assert "resuming at round 2" in out.stdout and "rounds 3, games 48" in out.stdout


def _error_line(*args, cwd):
  res = _run(*args, cwd=cwd)
  assert res.returncode != 0
  assert "Traceback" not in res.stderr, res.stderr
  errors = [ln for ln in res.stderr.splitlines() if ": error: " in ln]
  assert len(errors) == 1, res.stderr
  return errors[0]


def test_bad_flags_are_one_line_before_any_work(tmp_path):
  afile = tmp_path / "afile"
  afile.write_text("x")
  line = _error_line(f"--workdir={afile}", cwd=tmp_path)
  assert line == (f"train_bridge: error: --workdir {str(afile)!r} is an existing file, "
                  "not a folder")
  work = f"--workdir={tmp_path / 'w'}"
  line = _error_line(work, "--datasets", str(tmp_path / "nothing*.npz"), cwd=tmp_path)
  assert "matches no file" in line
  line = _error_line(work, "--deals_per_round=0", cwd=tmp_path)
  assert line == "train_bridge: error: --deals_per_round must be an integer >= 1, got 0"
  line = _error_line(work, f"--resume_from={tmp_path / 'no.npz'}", cwd=tmp_path)
  assert line == (f"train_bridge: error: --resume_from {str(tmp_path / 'no.npz')!r} "
                  "is not a file")
  line = _error_line(work, "--search=jps", *JAX, cwd=tmp_path)
  assert line == "train_bridge: error: --search: numpy engine only (not with --engine jax)"
  line = _error_line(work, f"--resume_from={afile}", *JAX, cwd=tmp_path)
  assert line.startswith(f"train_bridge: error: checkpoint {str(afile)!r} cannot be read "
                         "as an .npz")
  line = _error_line(work, "--bc_targets=probabilities", "--bc_teacher=natural", cwd=tmp_path)
  assert line == ("train_bridge: error: --bc_targets probabilities: teacher 'natural' has no "
                  "probabilities(obs): distillation needs a network bidder of ours")
  assert not os.path.exists(tmp_path / "w" / "log.csv")
