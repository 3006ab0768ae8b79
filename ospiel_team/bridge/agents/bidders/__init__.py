"""Bridge bidders: the `Bidder` interface, the rule-based bidders, our networks, the JPS authors'.

* `base`: the interface, `Bidder`, with its two entry points ``act(observations, uniforms)``
  and ``act_auction(auctions, hands, rows, uniforms)``, and the two ways to implement it
  (`ObservationBidder`, `AuctionBidder`).
* `registry`: a bidder by name (`make_bidder`, `bidder_names`); `rule_based`: ``pass``,
  ``random``, ``natural``; `model_bidder`: `ModelBidder`, a trained network, and the shipped
  models; `policy_net`: the network (`load_model`, `save_model`; JAX is imported on first
  use); `jps_paper`: `PaperBidder`, the JPS authors' published models; `bot`: `BidderBot`, a
  bidder as a pyspiel bot.
"""

from ospiel_team import _exports

_PUBLIC = {
    "Bidder": "ospiel_team.bridge.agents.bidders.base",
    "ObservationBidder": "ospiel_team.bridge.agents.bidders.base",
    "AuctionBidder": "ospiel_team.bridge.agents.bidders.base",
    "auctions_from_observations": "ospiel_team.bridge.agents.bidders.base",
    "make_bidder": "ospiel_team.bridge.agents.bidders.registry",
    "bidder_names": "ospiel_team.bridge.agents.bidders.registry",
    "PassBidder": "ospiel_team.bridge.agents.bidders.rule_based",
    "RandomBidder": "ospiel_team.bridge.agents.bidders.rule_based",
    "NaturalBidder": "ospiel_team.bridge.agents.bidders.rule_based",
    "ModelBidder": "ospiel_team.bridge.agents.bidders.model_bidder",
    "PaperBidder": "ospiel_team.bridge.agents.bidders.jps_paper",
    "BidderBot": "ospiel_team.bridge.agents.bidders.bot",
    "load_model": "ospiel_team.bridge.agents.bidders.policy_net",
    "save_model": "ospiel_team.bridge.agents.bidders.policy_net",
    "policy_net": "ospiel_team.bridge.agents.bidders.policy_net",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
