"""ospiel-team-train-bridge refuses, in one line naming the flag and the value, what the
issue's probes found ending in a traceback, an out-of-memory or silence; all before any work
(nothing written), except the full disk, which keeps the last checkpoint."""

import os
import re

import pytest

from ospiel_team import atomic_io
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge.agents.training import round_trainer
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.cli import train_bridge
from tests.integration import probes

SMALL = ["--deals_per_round=8", "--batch_size=32", "--updates_per_round=2", "--hidden=16",
         "--num_blocks=1", "--holdout=16", "--progress=false", "--bc_teacher=",
         "--burn_in=20", "--buffer_size=1000", "--eval_every=0", "--augment=false"]


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory):
  ds = dataset_lib.load_dataset()
  path = tmp_path_factory.mktemp("data") / "small.npz"
  dataset_lib.save_dataset(path, ds.holders[:300], ds.dd_tricks[:300])
  return str(path)


def _line(capsys, *args, status=2):
  got = train_bridge.main(["train_bridge", *args])
  err = capsys.readouterr().err.strip().splitlines()
  assert got == status and len(err) == 1, err
  assert err[0].startswith("train_bridge: error: ")
  return err[0][len("train_bridge: error: "):]


@pytest.mark.parametrize("args,want", [
    (["--bc_teacher=bogus"], r"--bc_teacher 'bogus': unknown bidder 'bogus'"),
    (["--bc_teacher=jps_paper_0.63", "--reference_dir=/nonexistent"],
     r"--reference_dir '/nonexistent' is not a folder"),
    (["--seed=-1"], r"--seed must be an integer from 0 to 4294967295, got -1"),
    (["--max_minutes=nan"], r"--max_minutes must be a finite number > 0, got nan"),
    (["--max_cpu_minutes=nan"], r"--max_cpu_minutes must be a finite number >= 0, got nan"),
    (["--refresh_minutes=nan"], r"--refresh_minutes must be a finite number >= 0, got nan"),
    (["--search_fraction=nan"], r"--search_fraction must be a finite number from 0 to 1, "
                                r"got nan"),
    (["--eval_boards=500", "--holdout=10"],
     r"--eval_boards=500 exceeds the 10 held-out boards \(--holdout or --eval_dataset\)"),
    (["--deals_per_round=1000000000000"],
     r"the run needs at least \S+ GiB of memory \(.*--deals_per_round=1000000000000.*\), "
     r"\S+ GiB is available; lower them"),
    (["--buffer_size=10000000000000"],
     r"the run needs at least \S+ GiB of memory \(.*--buffer_size=10000000000000\), .*"),
    (["--hidden=100000000"], r"the run needs at least \S+ GiB of memory \(--hidden=100000000,"),
    # distillation of the authors' search budget (it failed mid-training in the search buffer)
    (["--search=jps", "--search_candidates=38", "--distill_coef=0.5"],
     r"--search_candidates=38 with --distill_coef=0.5: the search buffer of distillation keeps "
     r"at most 8 candidates a decision; give --search_candidates <= 8 or --distill_coef=0$"),
])
def test_bad_runs_are_one_line_before_any_work(args, want, tmp_path, capsys, small_dataset):
  work = tmp_path / "w"
  line = _line(capsys, f"--workdir={work}", f"--datasets={small_dataset}", "--augment=false",
               "--rounds=1", *args)
  assert re.match(want, line), line
  assert not work.exists() or not os.listdir(work)


def test_memory_estimate_grows_with_each_size_and_counts_the_buffer_exactly():
  base = A2CConfig()
  need = round_trainer.memory_needed(base)
  more = round_trainer.memory_needed(A2CConfig(buffer_size=base.buffer_size + 1000))
  assert more - need == 1000 * round_trainer.BUFFER_BYTES_PER_DECISION == 43_000
  for field in ("hidden", "deals_per_round", "batch_size"):
    bigger = A2CConfig(**{field: 2 * getattr(base, field)})
    assert round_trainer.memory_needed(bigger) > need, field
  # The parameters alone, for the default network (counted by hand in test_a2c): 4 float32
  # copies (parameters, gradients, two Adam moments) are part of the figure.
  n_params = (267 * 200 + 200) + 2 * 2 * (200 * 200 + 200) + (200 * 38 + 38) + (200 + 1)
  assert need > 16 * n_params


def test_a_damaged_resume_from_is_named_as_given_and_leaves_no_copy(tmp_path, capsys,
                                                                   small_dataset):
  bad = tmp_path / "slim.npz"
  bad.write_bytes(b"PK\x03\x04 not really a checkpoint")
  work = tmp_path / "w"
  line = _line(capsys, f"--workdir={work}", f"--datasets={small_dataset}",
               f"--resume_from={bad}", "--rounds=1", *SMALL)
  assert repr(str(bad)) in line and "checkpoint.npz" not in line, line
  assert not (work / "checkpoint.npz").exists()


def test_a_full_disk_is_one_line_exit_1_and_keeps_the_last_checkpoint(tmp_path, capsys,
                                                                      monkeypatch,
                                                                      small_dataset):
  work = tmp_path / "w"
  args = [f"--workdir={work}", f"--datasets={small_dataset}", "--checkpoint_every=1", *SMALL]
  seen = []
  monkeypatch.setattr(atomic_io, "write_with",
                      probes.disk_full_writer(atomic_io.write_with, "checkpoint.npz", 1, seen))
  line = _line(capsys, *args, "--rounds=3", status=1)
  assert "checkpoint.npz" in line and "no space left" in line, line
  cfg = A2CConfig(hidden=16, num_blocks=1, buffer_size=1000, burn_in=20, deals_per_round=8,
                  batch_size=32, updates_per_round=2)
  _, state, _ = round_trainer.check_checkpoint(str(work / "checkpoint.npz"), cfg)
  assert state["round"] == 1  # the checkpoint written before the disk filled is intact
  assert not [f for f in os.listdir(work) if f.startswith(".tmp_")]
