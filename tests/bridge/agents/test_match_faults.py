"""Matches lose nothing on a fault, resume, refuse bad model files on load and bad flags.

Facts used: a resumed match equals the same match played at once (same seed, same random
numbers), and plays only the batches that were not stored; a model file is refused when it
cannot be read, is not a model, has parameters of the wrong shape or non-finite weights (a NaN
in the shipped model's weights, written here).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ospiel_team  # noqa: F401
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents import bidders
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import match


class _Counting(bidders.ObservationBidder):
  """A bidder that counts its calls and fails once it has made `fail_after` of them."""

  def __init__(self, inner, fail_after=None):
    self.inner, self.name, self.calls, self.fail_after = inner, inner.name, 0, fail_after

  def act(self, observations, uniforms=None):
    if self.fail_after is not None and self.calls >= self.fail_after:
      raise RuntimeError("simulated crash")
    self.calls += 1
    return self.inner.act(observations, uniforms)


def _same(r1, r2):
  for f in ("deal_index", "ns_score_table1", "ns_score_table2", "imps"):
    np.testing.assert_array_equal(getattr(r1, f), getattr(r2, f))
  assert r1.auctions_table1 == r2.auctions_table1 and r1.contracts_table2 == r2.contracts_table2


def test_a_crashed_match_resumes_from_its_stored_batches(tmp_path):
  ds = dataset_lib.load_dataset()
  fresh = match.run_match("natural", "random", 40, dataset=ds, seed=5, batch_boards=8,
                          progress=False)
  store = tmp_path / "boards"
  full = _Counting(bidders.make_bidder("natural"))
  match.run_match(full, "random", 40, dataset=ds, seed=5, batch_boards=8, progress=False)
  # Crash at natural's last call: in the fifth batch, after four have been stored.
  a = _Counting(bidders.make_bidder("natural"), fail_after=full.calls - 1)
  with pytest.raises(RuntimeError, match="simulated"):
    match.run_match(a, "random", 40, dataset=ds, seed=5, batch_boards=8, progress=False,
                    results_dir=str(store))
  stored = sorted(f for f in os.listdir(store) if f.startswith("boards_"))
  assert stored == [f"boards_{lo:07d}_{lo + 8:07d}.npz" for lo in range(0, 32, 8)]
  b = _Counting(bidders.make_bidder("natural"))
  resumed = match.run_match(b, "random", 40, dataset=ds, seed=5, batch_boards=8,
                            progress=False, results_dir=str(store))
  _same(resumed, fresh)
  assert 0 < b.calls < full.calls  # it played only the missing batch
  c = _Counting(bidders.make_bidder("natural"))
  again = match.run_match(c, "random", 40, dataset=ds, seed=5, batch_boards=8,
                          progress=False, results_dir=str(store))
  _same(again, fresh)
  assert c.calls == 0  # everything stored: nothing played
  with pytest.raises(ValueError, match=r"another match \(differs in \['seed'\]\)"):
    match.run_match("natural", "random", 40, dataset=ds, seed=6, batch_boards=8,
                    progress=False, results_dir=str(store))


def test_resumed_batches_are_not_replayed(tmp_path):
  ds = dataset_lib.load_dataset()
  store = str(tmp_path / "boards")
  first = _Counting(bidders.make_bidder("natural"))
  match.run_match(first, "random", 16, dataset=ds, seed=1, batch_boards=8, progress=False,
                  results_dir=store)
  os.remove(os.path.join(store, "boards_0000008_0000016.npz"))
  second = _Counting(bidders.make_bidder("natural"))
  match.run_match(second, "random", 16, dataset=ds, seed=1, batch_boards=8, progress=False,
                  results_dir=store)
  only_second_batch = _Counting(bidders.make_bidder("natural"))
  match.run_match(only_second_batch, "random", 16, dataset=ds, seed=1, batch_boards=8,
                  progress=False)
  assert 0 < second.calls < first.calls == only_second_batch.calls


_FULL_DISK = """
import errno, sys
from ospiel_team import atomic_io
real = atomic_io.write_text
def full(path, text):
  if path.endswith("match.json"):
    raise OSError(errno.ENOSPC, "No space left on device", path)
  real(path, text)
atomic_io.write_text = full
from ospiel_team.cli import match
sys.argv = ["ospiel-team-match"] + sys.argv[1:]
match.run()
"""


def _cli(*args, full_disk=False):
  cmd = ([sys.executable, "-c", _FULL_DISK] if full_disk
         else [sys.executable, "-m", "ospiel_team.cli.match"])
  return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=300,
                        check=False)


def test_full_disk_at_the_end_loses_no_board_and_the_rerun_resumes(tmp_path):
  out = tmp_path / "m"
  args = ("--bidder_a", "natural", "--bidder_b", "random", "--boards", "24", "--seed", "3",
          "--out", str(out))
  proc = _cli(*args, full_disk=True)
  assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
  lines = [ln for ln in proc.stderr.splitlines() if "error" in ln]
  assert len(lines) == 1 and "No space left on device" in lines[0] and "resume" in lines[0]
  assert not (out / "match.json").exists()
  assert sorted(os.listdir(out / "boards")) == ["boards_0000000_0000024.npz", "key.json"]
  stored = os.path.getmtime(out / "boards" / "boards_0000000_0000024.npz")
  proc = _cli(*args)
  assert proc.returncode == 0, proc.stderr
  assert os.path.getmtime(out / "boards" / "boards_0000000_0000024.npz") == stored
  data = json.loads((out / "match.json").read_text())
  assert data["summary"]["boards"] == 24 and "wrote" in proc.stdout
  written = os.path.getmtime(out / "match.json")
  proc = _cli(*args)
  assert proc.returncode == 0 and "already complete" in proc.stdout, proc.stderr
  assert os.path.getmtime(out / "match.json") == written


def test_a_finished_match_file_that_is_not_an_object_is_played_again(tmp_path):
  """match.json holding valid JSON that is not an object (it was an AttributeError)."""
  out = tmp_path / "m"
  out.mkdir()
  (out / "match.json").write_text("[1, 2]")
  (out / "match.md").write_text("x")
  proc = _cli("--bidder_a", "pass", "--bidder_b", "natural", "--boards", "2", "--out", str(out))
  assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
  assert json.loads((out / "match.json").read_text())["summary"]["boards"] == 2


def test_the_command_plays_the_heldout_deals_by_default(tmp_path):
  proc = _cli("--bidder_a", "natural", "--bidder_b", "pass", "--boards", "4", "--out",
              str(tmp_path / "m"))
  assert proc.returncode == 0, proc.stderr
  data = json.loads((tmp_path / "m" / "match.json").read_text())
  heldout = dataset_lib.resolve_dataset("heldout")
  assert data["settings"]["dataset"] == "heldout"
  for board in data["boards"]:
    assert board["deal"] == deal_lib.holders_to_pbn(heldout.holders[board["deal_index"]])
  help_text = _cli("--help").stdout
  assert "default: heldout" in " ".join(help_text.split())


@pytest.mark.parametrize("args,needle", [
    (("--seed=-1",), "--seed=-1"),
    (("--boards=0",), "--boards=0"),
])
def test_bad_numbers_are_one_line_naming_the_flag(tmp_path, args, needle):
  proc = _cli(*args, "--out", str(tmp_path / "m"))
  assert proc.returncode == 2 and needle in proc.stderr, proc.stderr
  assert len(proc.stderr.strip().splitlines()) == 1
  with pytest.raises(ValueError, match="seed"):
    match.run_match("natural", "pass", 4, seed=-1, progress=False)


@pytest.fixture(scope="module")
def bad_models(tmp_path_factory):
  d = tmp_path_factory.mktemp("models")
  with np.load(model_bidder.model_path("a2c")) as z:
    good = {k: z[k] for k in z.files}
  key = sorted(k for k in good if k.startswith("param/"))[0]
  files = {}
  files["empty"] = d / "empty.npz"
  files["empty"].write_bytes(b"")
  raw = open(model_bidder.model_path("a2c"), "rb").read()
  files["truncated"] = d / "truncated.npz"
  files["truncated"].write_bytes(raw[:len(raw) // 2])
  nan = dict(good)
  nan[key] = good[key].copy()
  nan[key].flat[0] = np.nan
  files["nan"] = d / "nan.npz"
  np.savez(files["nan"], **nan)
  files["objects"] = d / "objects.npz"
  np.savez(files["objects"], meta=np.array([{"network": 1}], dtype=object))
  shape = dict(good)
  shape[key] = good[key][..., :-1]
  files["shape"] = d / "shape.npz"
  np.savez(files["shape"], **shape)
  return files, key


@pytest.mark.parametrize("kind,needle", [
    ("empty", "empty or truncated"), ("truncated", "empty or truncated"),
    ("nan", "not finite"), ("objects", "Python objects"), ("shape", "has shape"),
])
def test_bad_model_files_are_refused_on_load_naming_the_file(bad_models, kind, needle):
  files, key = bad_models
  path = str(files[kind])
  with pytest.raises(ValueError, match=needle) as e:
    policy_net.load_model(path)
  assert path in str(e.value) and "allow_pickle" not in str(e.value)
  if kind in ("nan", "shape"):
    assert key[len("param/"):] in str(e.value)


def test_a_nan_model_is_refused_by_the_command(bad_models, tmp_path):
  files, _ = bad_models
  proc = _cli("--bidder_a", str(files["nan"]), "--boards", "4", "--out", str(tmp_path / "m"))
  assert proc.returncode == 2 and str(files["nan"]) in proc.stderr, proc.stderr
  assert "not finite" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
  assert not (tmp_path / "m").exists()


def test_every_shipped_model_is_present_and_gives_probability_distributions():
  """The model check on load refuses nothing that ships: every name of SHIPPED_MODELS has its
  file, loads, and its network maps real auction observations to distributions (finite,
  non-negative, summing to 1)."""
  eng = engine_lib.BiddingEngine()
  eng.reset_random(np.random.default_rng(0), 8)
  obs = eng.observation()
  for name, filename in model_bidder.SHIPPED_MODELS.items():
    assert os.path.isfile(os.path.join(model_bidder.MODELS_DIR, filename)), name
    net, params, _ = policy_net.load_model(model_bidder.model_path(name))
    probs, _ = policy_net.PolicyFn(net, params)(obs)
    assert probs.shape == (8, policy_net.NUM_CALLS), name
    assert np.all(np.isfinite(probs)) and np.all(probs >= 0), name
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5, err_msg=name)
