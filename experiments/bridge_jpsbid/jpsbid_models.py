"""The fine-tuned models of the JPSBid experiment (run seed 10), kept here, not in the package.

``a2c_finetuned`` (plain A2C fine-tuning of `a2c`), ``a2c_1search`` (1-search) and ``jpsbid``
(JPSBid), each picked on the validation deals (`bridge_finetune_table.py --ship` writes them).
The drivers of this folder name them as before; `model_path` maps these names to their files
here and every other name to `model_bidder.model_path` (the package's shipped models).
"""

import os

from ospiel_team.bridge.agents.bidders import model_bidder

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
MODELS = {"a2c_finetuned": "a2c_finetuned.npz", "a2c_1search": "a2c_1search.npz",
          "jpsbid": "a2c_jpsbid.npz"}


def model_path(name_or_path: str) -> str:
  """The file of one of this experiment's models (`MODELS`) or of a shipped name or path."""
  if name_or_path in MODELS:
    return os.path.join(MODELS_DIR, MODELS[name_or_path])
  return model_bidder.model_path(name_or_path)
