"""Bidders by name: `make_bidder` and `bidder_names`.

`make_bidder(name)` returns a `base.Bidder`: the rule-based ``pass``, ``random``, ``natural``
(`rule_based`); our shipped models (``a2c``, ...; `model_bidder`, imported on use as it needs
JAX); the JPS authors' published models (``jps_paper_0.63``, ...; `jps_paper`, given the folder
that holds them); a model file path; or ``search:<model>[?options]``, a model searched at play
time (`ospiel_team.bridge.agents.search.search_bidder`).
"""

from __future__ import annotations

import os

from ospiel_team import checks
from ospiel_team.bridge.agents.bidders import base
from ospiel_team.bridge.agents.bidders.rule_based import NaturalBidder
from ospiel_team.bridge.agents.bidders.rule_based import PassBidder
from ospiel_team.bridge.agents.bidders.rule_based import RandomBidder
from ospiel_team.errors import UserError

_BIDDERS: dict[str, type[base.Bidder]] = {
    "pass": PassBidder, "random": RandomBidder, "natural": NaturalBidder}


def bidder_names() -> list:
  """Names `make_bidder` knows: built-in, shipped models, the JPS authors' models."""
  from ospiel_team.bridge.agents.bidders import jps_paper
  from ospiel_team.bridge.agents.bidders import model_bidder
  return sorted(_BIDDERS) + sorted(model_bidder.SHIPPED_MODELS) + sorted(
      jps_paper.REFERENCE_MODELS)


def make_bidder(name: str, reference_dir: str | None = None, greedy: bool = True) -> base.Bidder:
  """A bidder by name or path.

  Args:
    name: a built-in bidder (``pass``, ``random``, ``natural``); a shipped model (``a2c``,
      ``a2c_uncontested``, ... see `model_bidder.SHIPPED_MODELS`); one of the JPS authors'
      models (``jps_paper_0.63``, ``jps_paper_baseline``, ``jps_paper_baseline2``,
      ``jps_paper_2day5``, ``jps_paper_2day8``; see `jps_paper`), which needs
      `reference_dir`; or a path to a saved model (``.npz`` of `policy_net.save_model` or
      an A2C checkpoint, or one of the authors' ``.pth`` files); or ``search:<model>``,
      optionally ``search:<model>?k=8&m=3``: that model of ours searched at play time over
      sampled deals (`search_bidder`).
    reference_dir: folder holding the authors' ``bridge_models/`` (only for their models).
    greedy: model bidders bid their most probable legal call (True, the JPS paper's
      evaluation) or sample with the match's uniforms.

  Raises:
    ValueError: an unknown name, a missing file, or a malformed model.
  """
  if not isinstance(name, str) or not name:
    raise UserError(f"bidder name must be a non-empty string, got {name!r}")
  checks.check_bool("greedy", greedy)
  checks.check_type("reference_dir", reference_dir, (str, os.PathLike, type(None)),
                    "a folder path or None")
  if name in _BIDDERS:
    return _BIDDERS[name]()
  if name.startswith("search:"):  # play-time search over a model of ours (search_bidder)
    from ospiel_team.bridge.agents.search import search_bidder
    return search_bidder.make_search_bidder(name, greedy=greedy)
  from ospiel_team.bridge.agents.bidders import jps_paper
  if name in jps_paper.REFERENCE_MODELS or name.endswith(".pth"):
    return jps_paper.load_bidder(name, reference_dir=reference_dir, greedy=greedy)
  from ospiel_team.bridge.agents.bidders import model_bidder
  if name in model_bidder.SHIPPED_MODELS or os.path.isfile(name):
    return model_bidder.load_bidder(name, greedy=greedy)
  raise ValueError(f"unknown bidder {name!r}: not one of {bidder_names()} nor an existing "
                   "model file")
