"""Bidding with a saved model needs neither the trainer nor JAX (import cycles and layers are
checked for the whole package in tests/test_layering.py)."""
import subprocess
import sys


def test_loading_a_model_does_not_import_the_trainer():
  code = ("import sys; from ospiel_team.bridge.agents import bidders; "
          "b = bidders.make_bidder('a2c'); "
          "print('ospiel_team.bridge.agents.training.a2c' in sys.modules, "
          "'ospiel_team.bridge.agents.bidders.model_bidder' in sys.modules)")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
  assert out.stdout.split() == ["False", "True"]
  out = subprocess.run([sys.executable, "-c", "import sys; from ospiel_team.bridge.agents import "
                        "bidders; from ospiel_team.bridge.agents.evaluation import match; "
                        "b = bidders.make_bidder('natural'); print('jax' in sys.modules)"],
                       capture_output=True, text=True, check=True)
  assert out.stdout.split() == ["False"]  # built-in bidders and matches need no JAX
