"""The movement gate of bridge training studies: has a trained model moved from its start?

A study that compares two training arms says nothing when neither arm changed the model it
started from: "A minus B about 0" then compares two near-copies of the start. The gate measures,
for a trained model and its start,

* its duplicate match against the start on the validation deals (`match.run_match`, greedy
  bidders, seed 0: mean IMPs/board, the standard error clustered by deal, the normal 95%
  interval), and
* the fraction of its greedy calls that differ from the start's on a fixed set of positions
  (`fixed_positions`: the decisions of the start's own sampled self-play on validation deals);

`moved` applies the rule: the model moved if it changed at least ``min_changed`` of the greedy
calls, or its validation interval against the start excludes 0.
"""

from __future__ import annotations

import os

import numpy as np

from ospiel_team import checks
from ospiel_team.bridge import dataset as dataset_lib
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.bidders import model_bidder
from ospiel_team.bridge.agents.bidders import policy_net
from ospiel_team.bridge.agents.evaluation import match as match_lib


def _bidder(model) -> model_bidder.ModelBidder:
  if isinstance(model, model_bidder.ModelBidder):
    return model
  checks.check_type("model", model, (str, os.PathLike), "a model path, name or ModelBidder")
  return model_bidder.load_bidder(os.fspath(model))


def fixed_positions(start, *, dataset="validation", deals: int = 200,
                    seed: int = 0) -> np.ndarray:
  """The fixed positions of the gate: decisions of `start`'s sampled self-play.

  Args:
    start: the start model (a path, shipped name or `model_bidder.ModelBidder`).
    dataset: the deals (a `BridgeDataset`, a path or a shipped name; validation by default).
    deals: how many deals (drawn with replacement by `seed`), each bid at two tables.
    seed: the deals', dealers' and calls' random numbers.

  Returns:
    (n, 267) uint8 observations of the decisions with at least two legal calls.

  Raises:
    UserError: a bad argument.
  """
  from ospiel_team.bridge.agents.training import a2c
  deals = checks.check_int("deals", deals, minimum=1)
  seed = checks.check_int("seed", seed, minimum=0)
  bidder = _bidder(start)
  ds = dataset_lib.resolve_dataset(dataset) if isinstance(dataset, str) else dataset
  eng = engine_lib.BiddingEngine(ds)
  policy = policy_net.PolicyFn(bidder.net, bidder.params)
  ro = a2c.play_selfplay(policy, eng, np.random.default_rng(seed), np.arange(eng.num_deals),
                         deals, obs_dtype=np.uint8)
  return ro.obs


def changed_call_fraction(model, start, positions: np.ndarray) -> float:
  """The fraction of `positions` where `model`'s greedy call differs from `start`'s.

  Raises:
    UserError: a bad model argument; ValueError: no positions.
  """
  obs = np.asarray(positions)
  if obs.ndim != 2 or len(obs) == 0:
    raise ValueError(f"positions must be a non-empty (n, 267) array, got shape {obs.shape}")
  a, b = _bidder(model), _bidder(start)
  return float(np.mean(a.act(obs) != b.act(obs)))


def validation_against(model, start, boards: int, *, dataset="validation",
                       results_dir: str | None = None, progress: bool = False) -> dict:
  """`model`'s duplicate match against `start` (both greedy) on the validation deals.

  Returns:
    ``{"boards", "mean", "se", "ci95"}``: IMPs/board for `model`, the clustered standard
    error, the normal 95% interval.
  """
  res = match_lib.run_match(_bidder(model), _bidder(start), boards, dataset=dataset, seed=0,
                            progress=progress, results_dir=results_dir)
  lo, hi = res.ci95
  return {"boards": res.boards, "mean": res.mean_imps, "se": res.stderr_clustered,
          "ci95": [lo, hi]}


def movement(model, start, positions: np.ndarray, boards: int, *, dataset="validation",
             results_dir: str | None = None, progress: bool = False) -> dict:
  """Both measures of the gate: ``{"validation": validation_against(...), "changed": ...}``."""
  return {"validation": validation_against(model, start, boards, dataset=dataset,
                                           results_dir=results_dir, progress=progress),
          "changed": changed_call_fraction(model, start, positions)}


def moved(measure: dict, *, min_changed: float = 0.25) -> bool:
  """The gate's rule on a `movement` result.

  Moved: at least `min_changed` of the greedy calls changed, or the validation interval against
  the start excludes 0. Changed calls are a weak sign of movement: fine-tuning runs whose
  strength did not move (validation against the start -0.05 to +0.01 IMPs/b) changed 16-20% of
  their start's greedy calls (many positions are near-ties between two calls), so the default
  threshold lies above that, and a smaller move has to show in the validation interval.
  """
  min_changed = checks.check_real("min_changed", min_changed, minimum=0, maximum=1)
  lo, hi = measure["validation"]["ci95"]
  return bool(measure["changed"] >= min_changed or lo > 0 or hi < 0)
