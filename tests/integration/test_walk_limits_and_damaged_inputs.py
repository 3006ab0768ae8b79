"""What the command lines and readers answer to walks past their limits, globs that match no
file, damaged tree caches and damaged trainer checkpoints.

- ospiel-team-solve refuses a tree that cannot fit at once (its estimate named), and its
  --time_limit covers the walk of the tree (exit 3 within seconds, not after the walk);
- ospiel-team-uncontested refuses a --train_datasets item that matches no file (it fell back
  to the shipped training set before);
- ospiel-team-solve --tree_cache reports a damaged and rebuilt cache as "rebuilt" (it said
  "hit");
- the a2c trainer's checkpoint reader names a damaged file in one DamagedFileError (a flipped
  byte ended in zipfile's "Bad CRC-32" traceback before).

Every command runs in this process (its `main(argv)`).
"""
import json
import os
import time

import numpy as np
import pytest

from ospiel_team import atomic_io
from ospiel_team import errors
from ospiel_team.bridge.agents.training import round_trainer
from ospiel_team.cli import team_solve as solve_cli
from ospiel_team.cli import uncontested as uncontested_cli
from ospiel_team.tree import cache as tree_cache


def _one_line(err: str) -> str:
  assert "Traceback" not in err
  lines = [ln for ln in err.splitlines() if ln.strip()]
  assert len(lines) == 1, err[-2000:]
  return lines[0]


def test_a_tree_far_past_the_machine_is_refused_at_once(capfd):
  t0 = time.monotonic()
  rc = solve_cli.main(["solve", "--game", "team_leduc(players=6)", "--progress_interval", "0"])
  line = _one_line(capfd.readouterr().err)
  assert rc == 2 and time.monotonic() - t0 < 20
  assert "team_leduc(" in line and "players=6" in line and "refusing before walking" in line
  assert "random playouts estimate" in line


def test_time_limit_covers_the_walk(capfd):
  t0 = time.monotonic()
  rc = solve_cli.main(["solve", "--game", "team_leduc(players=4)", "--progress_interval", "0",
                       "--time_limit", "2"])
  line = _one_line(capfd.readouterr().err)
  assert rc == 3 and "time_limit=2" in line  # the walk alone takes minutes
  assert time.monotonic() - t0 < 30


def test_the_solvers_time_limit_covers_the_walk():
  from ospiel_team.algorithms.team import solver
  t0 = time.monotonic()
  with pytest.raises(TimeoutError, match="time_limit=2"):
    solver.solve("team_leduc(players=4)", time_limit=2)
  assert time.monotonic() - t0 < 30


def test_a_glob_matching_no_file_is_one_line(tmp_path, capfd):
  rc = uncontested_cli.main(["uncontested", "--out", str(tmp_path / "cost.npz"),
                             "--q_iterations", "1", "--train_datasets", "/nonexistent/*.npz"])
  line = _one_line(capfd.readouterr().err)
  assert rc == 2 and "'/nonexistent/*.npz' matches no file" in line


def test_train_dataset_paths_keeps_the_order_of_the_items(tmp_path):
  for name in ("b1.npz", "b2.npz", "a.npz"):
    (tmp_path / name).write_bytes(b"")
  (tmp_path / "dir.npz").mkdir()
  text = f"{tmp_path}/b*.npz,{tmp_path}/a.npz,{tmp_path}/*.npz"
  got = [os.path.basename(p) for p in uncontested_cli.train_dataset_paths(text)]
  assert got == ["b1.npz", "b2.npz", "a.npz", "a.npz", "b1.npz", "b2.npz"]
  assert uncontested_cli.train_dataset_paths(None) == []
  for bad in ("", ",", f"{tmp_path}/a.npz,{tmp_path}/c*.npz", f"{tmp_path}/dir.npz"):
    with pytest.raises(errors.UserError, match="--train_datasets"):
      uncontested_cli.train_dataset_paths(bad)


def _solve_json(folder, capfd) -> dict:
  rc = solve_cli.main(["solve", "--game", "kuhn_poker(players=3)", "--teams", "0,1|2",
                       "--json", "--progress_interval", "0", "--tree_cache", str(folder)])
  out = capfd.readouterr().out
  assert rc == 0
  return json.loads(out)


def test_a_damaged_tree_cache_is_reported_rebuilt(tmp_path, capfd):
  first = _solve_json(tmp_path, capfd)
  second = _solve_json(tmp_path, capfd)
  (name,) = [f for f in os.listdir(tmp_path) if f.endswith(".npz")]
  path = tmp_path / name
  with np.load(path) as z:
    data = {k: z[k] for k in z.files}
  data["node_returns"] = data["node_returns"] * 2  # a valid .npz whose arrays were edited
  np.savez(path, **data)
  with pytest.warns(tree_cache.CacheRebuiltWarning, match="rebuilding"):
    third = _solve_json(tmp_path, capfd)
  fourth = _solve_json(tmp_path, capfd)
  assert [r["tree_cache"] for r in (first, second, third, fourth)] == [
      "miss", "hit", "rebuilt", "hit"]
  assert first["value"] == second["value"] == third["value"] == fourth["value"]
  assert abs(first["value"] - (-1 / 24)) < 1e-6  # 3-player Kuhn, team 0,1 (issue 33: -0.0417)


def _checkpoint(path) -> str:
  atomic_io.savez(str(path), compressed=True, state=np.asarray(json.dumps({"config": {}})),
                  **{"param/w": np.arange(4096, dtype=np.float32)})
  return str(path)


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "empty"])
def test_a_damaged_checkpoint_is_one_error_naming_it(tmp_path, damage):
  path = _checkpoint(tmp_path / "checkpoint.npz")
  data = bytearray(open(path, "rb").read())
  if damage == "flipped byte":
    data[len(data) // 2] ^= 0xFF
  elif damage == "truncated":
    data = data[:len(data) // 2]
  else:
    data = b""
  with open(path, "wb") as f:
    f.write(data)
  with pytest.raises(errors.DamagedFileError, match="checkpoint") as e:
    round_trainer.read_checkpoint(path, None, None)  # refused before the config is read
  assert path in str(e.value)


def test_a_checkpoint_with_an_unreadable_state_is_one_error_naming_it(tmp_path):
  path = str(tmp_path / "checkpoint.npz")
  atomic_io.savez(path, state=np.asarray("{not json"))
  with pytest.raises(errors.DamagedFileError, match="unreadable 'state'") as e:
    round_trainer.read_checkpoint(path, None, None)
  assert path in str(e.value)
