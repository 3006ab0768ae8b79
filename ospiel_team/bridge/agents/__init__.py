"""Bridge bidding agents, by job: bidders, search, training, evaluation.

* `bidders`: the one bidder interface, `Bidder` (``act(observations, uniforms)`` and
  ``act_auction(auctions, hands, rows, uniforms)``, both answered by every bidder), bidders by
  name (`make_bidder`, `bidder_names`), the rule-based bidders, `ModelBidder` (a trained
  network; `policy_net`: the network, `load_model`, `save_model`, JAX imported on first use),
  `PaperBidder` (the JPS authors' published models) and `BidderBot` (a bidder as a pyspiel
  bot).
* `search`: the JPSBid search itself (`jps_search.joint_search`) and ``search:<model>``, a
  model searched at play time (`search_bidder.SearchBidder`).
* `training`: `A2CConfig` (every default), `A2CTrainer` (numpy engine), `PPOTrainer`,
  `OpponentPool` (fictitious self-play), `make_trainer`, `JaxA2CTrainer` and
  `JaxTrainOptions`; `behaviour_cloning`; JPSBid in training (`JPSBidSearch`,
  `SearchOptions`); Yeh & Lin's Q-per-round baseline (`RoundQLearner`).
* `evaluation`: duplicate matches between two bidders (`run_match` -> `MatchResult`,
  `write_report`), bidding statistics, the movement gate.

Each subpackage imports only the ones it needs, lazily where a module of a lower job calls up
(`bidders.registry.make_bidder` imports the search bidder on use).
"""

from ospiel_team import _exports

_PUBLIC = {
    "Bidder": "ospiel_team.bridge.agents.bidders.base",
    "make_bidder": "ospiel_team.bridge.agents.bidders.registry",
    "bidder_names": "ospiel_team.bridge.agents.bidders.registry",
    "ModelBidder": "ospiel_team.bridge.agents.bidders.model_bidder",
    "PaperBidder": "ospiel_team.bridge.agents.bidders.jps_paper",
    "BidderBot": "ospiel_team.bridge.agents.bidders.bot",
    "load_model": "ospiel_team.bridge.agents.bidders.policy_net",
    "save_model": "ospiel_team.bridge.agents.bidders.policy_net",
    "A2CConfig": "ospiel_team.bridge.agents.training.a2c_config",
    "A2CTrainer": "ospiel_team.bridge.agents.training.a2c",
    "PPOTrainer": "ospiel_team.bridge.agents.training.ppo",
    "OpponentPool": "ospiel_team.bridge.agents.training.opponent_pool",
    "make_trainer": "ospiel_team.bridge.agents.training.trainers",
    "JaxA2CTrainer": "ospiel_team.bridge.agents.training.jax_trainer",
    "JaxTrainOptions": "ospiel_team.bridge.agents.training.jax_trainer",
    "behaviour_cloning": "ospiel_team.bridge.agents.training.behaviour_cloning",
    "JPSBidSearch": "ospiel_team.bridge.agents.training.jps_bid",
    "SearchOptions": "ospiel_team.bridge.agents.training.jps_bid",
    "run_match": "ospiel_team.bridge.agents.evaluation.match",
    "MatchResult": "ospiel_team.bridge.agents.evaluation.match",
    "write_report": "ospiel_team.bridge.agents.evaluation.match",
    "RoundQLearner": "ospiel_team.bridge.agents.training.uncontested",
    "policy_net": "ospiel_team.bridge.agents.bidders.policy_net",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
