"""Bridge bidding agents: bidders, networks, trainers, JPSBid, the JPS authors' models, matches.

* `bidders`: the `Bidder` interface and the rule-based bidders (`make_bidder` by name,
  `bidder_names`); `model_bidder`: `ModelBidder`, a trained network; `jps_paper`:
  `PaperBidder`, the JPS authors' published models; `bot`: `BidderBot`, a bidder as a pyspiel
  bot.
* `policy_net`: the policy network (`load_model`, `save_model`); JAX is imported on first use.
* Training: `A2CConfig` (`a2c_config`, every default), `A2CTrainer` (`a2c`, numpy engine),
  `PPOTrainer` (`ppo`), `OpponentPool` (`opponent_pool`, fictitious self-play),
  `make_trainer` (`trainers`),
  `JaxA2CTrainer` and `JaxTrainOptions` (`jax_trainer`); `behaviour_cloning`.
* `jps_bid`: JPSBid search in training (`JPSBidSearch`, `SearchOptions`); `jps_search`: the
  search itself (`joint_search`).
* `match`: duplicate matches between two bidders (`run_match` -> `MatchResult`,
  `write_report`); `uncontested`: Yeh & Lin's Q-per-round baseline (`RoundQLearner`).
"""

from ospiel_team import _exports

_PUBLIC = {
    "Bidder": "ospiel_team.bridge.agents.bidders",
    "make_bidder": "ospiel_team.bridge.agents.bidders",
    "bidder_names": "ospiel_team.bridge.agents.bidders",
    "ModelBidder": "ospiel_team.bridge.agents.model_bidder",
    "PaperBidder": "ospiel_team.bridge.agents.jps_paper",
    "BidderBot": "ospiel_team.bridge.agents.bot",
    "load_model": "ospiel_team.bridge.agents.policy_net",
    "save_model": "ospiel_team.bridge.agents.policy_net",
    "A2CConfig": "ospiel_team.bridge.agents.a2c_config",
    "A2CTrainer": "ospiel_team.bridge.agents.a2c",
    "PPOTrainer": "ospiel_team.bridge.agents.ppo",
    "OpponentPool": "ospiel_team.bridge.agents.opponent_pool",
    "make_trainer": "ospiel_team.bridge.agents.trainers",
    "JaxA2CTrainer": "ospiel_team.bridge.agents.jax_trainer",
    "JaxTrainOptions": "ospiel_team.bridge.agents.jax_trainer",
    "behaviour_cloning": "ospiel_team.bridge.agents.behaviour_cloning",
    "JPSBidSearch": "ospiel_team.bridge.agents.jps_bid",
    "SearchOptions": "ospiel_team.bridge.agents.jps_bid",
    "run_match": "ospiel_team.bridge.agents.match",
    "MatchResult": "ospiel_team.bridge.agents.match",
    "write_report": "ospiel_team.bridge.agents.match",
    "RoundQLearner": "ospiel_team.bridge.agents.uncontested",
    "policy_net": "ospiel_team.bridge.agents.policy_net",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
