"""Evaluating bridge bidders: duplicate matches, bidding statistics, the movement gate.

* `match`: duplicate matches between two bidders (`run_match` -> `MatchResult`,
  `write_report`).
* `bidding_stats`: a bidder's opening table, call and contract frequencies, auction lengths
  (JPS paper Appendix H).
* `movement`: has a trained model moved from its start (the gate of the training studies)?
"""

from ospiel_team import _exports

_PUBLIC = {
    "run_match": "ospiel_team.bridge.agents.evaluation.match",
    "MatchResult": "ospiel_team.bridge.agents.evaluation.match",
    "write_report": "ospiel_team.bridge.agents.evaluation.match",
    "bidding_stats": "ospiel_team.bridge.agents.evaluation.bidding_stats",
    "movement": "ospiel_team.bridge.agents.evaluation.movement",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
