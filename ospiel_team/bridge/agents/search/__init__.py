"""The bridge searches: JPSBid's joint search and the play-time search bidder.

* `jps_search`: the JPSBid search itself (`joint_search`, Tian, Gong & Jiang, arXiv:2008.06495,
  Sec. 7.3), which `training.jps_bid` attaches to self-play training.
* `search_bidder`: ``search:<model>``, a model of ours searched at play time over deals
  sampled consistently with the auction, scored double-dummy (`SearchBidder`).
* `rollouts`: what both share (candidate calls, the team's reward, policy rollouts).
"""

from ospiel_team import _exports

_PUBLIC = {
    "jps_search": "ospiel_team.bridge.agents.search.jps_search",
    "search_bidder": "ospiel_team.bridge.agents.search.search_bidder",
    "rollouts": "ospiel_team.bridge.agents.search.rollouts",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
