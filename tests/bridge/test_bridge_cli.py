"""ospiel-team-match records what `best` stands for; JAX's missing-TPU note is hidden;
ospiel-team-uncontested --help says how long its examples take and its cost unit."""
import hashlib
import json
import logging
import os
import subprocess
import sys

import ospiel_team  # noqa: F401  (installs the logging filter)
from ospiel_team.bridge.agents.bidders import model_bidder
from tests import repo as tests_repo

REPO = tests_repo.REPO


def _sha1(path):
  with open(path, "rb") as f:
    return hashlib.sha1(f.read()).hexdigest()


def test_match_records_the_model_best_stands_for(tmp_path):
  out = tmp_path / "m"
  res = subprocess.run([sys.executable, "-m", "ospiel_team.cli.match", "--bidder_a", "best",
                        "--bidder_b", "pass", "--boards", "2", "--out", str(out)], cwd=REPO,
                       text=True, capture_output=True, timeout=300)
  assert res.returncode == 0, res.stderr
  settings = json.loads((out / "match.json").read_text())["settings"]
  model = settings["bidder_a_model"]
  assert "bidder_b_model" not in settings  # `pass` is no alias
  # The recorded name is a shipped model whose file is byte for byte the file `best` plays.
  assert model != "best"
  assert _sha1(model_bidder.model_path(model)) == _sha1(model_bidder.model_path("best"))
  assert f"- bidder_a_model: {model}" in (out / "match.md").read_text().splitlines()
  assert "Unable to initialize backend" not in res.stderr + res.stdout


def _records_seen(level, message):
  seen = []
  handler = logging.Handler()
  handler.emit = seen.append
  logger = logging.getLogger("jax._src.xla_bridge")
  logger.addHandler(handler)
  old = logger.level
  logger.setLevel(logging.DEBUG)
  try:
    logger.log(level, message, "x")
  finally:
    logger.removeHandler(handler)
    logger.setLevel(old)
  return [r.getMessage() for r in seen]


def test_only_the_missing_tpu_note_is_hidden():
  assert _records_seen(logging.INFO, "Unable to initialize backend 'tpu': %s") == []
  assert _records_seen(logging.INFO, "Unable to initialize backend 'cuda': %s") == [
      "Unable to initialize backend 'cuda': x"]
  assert _records_seen(logging.WARNING, "Unable to initialize backend 'tpu': %s") == [
      "Unable to initialize backend 'tpu': x"]
  assert _records_seen(logging.ERROR, "a real error %s") == ["a real error x"]


def test_uncontested_help_says_duration_and_unit():
  res = subprocess.run([sys.executable, "-m", "ospiel_team.cli.uncontested", "--help"],
                       cwd=REPO, text=True, capture_output=True, timeout=120,
                       env={**os.environ, "PYTHONWARNINGS": "ignore"})
  assert res.returncode == 0
  head = res.stdout.split("Flags:")[0]
  examples = [ln for ln in head.splitlines() if ln.strip().startswith("ospiel-team-uncontested")]
  assert len(examples) == 2
  assert head.count("minutes") >= 2  # one duration per example
  assert "IMPs" in head and "mean_cost" in head
