"""Training bridge bidders: self-play A2C and PPO, JPSBid, behaviour cloning, Yeh & Lin's baseline.

* `A2CConfig` (`a2c_config`, every default), `A2CTrainer` (`a2c`, numpy engine; `a2c_loss`,
  `replay_buffer`), `PPOTrainer` (`ppo`), `make_trainer` (`trainers`), `JaxA2CTrainer` and
  `JaxTrainOptions` (`jax_trainer`); `round_trainer`: what they share (rounds, checkpoints,
  logs); `training_plots`: the learning-curve figure.
* `OpponentPool` (`opponent_pool`, fictitious self-play); `behaviour_cloning` (warm starts).
* `jps_bid`: JPSBid, the JPS search in self-play training (`JPSBidSearch`, `SearchOptions`);
  `search_buffer`: distillation of the searched calls into the policy.
* `uncontested`: Yeh & Lin's uncontested bidding, reached contracts and a Q-per-round
  baseline (`RoundQLearner`).
"""

from ospiel_team import _exports

_PUBLIC = {
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
    "RoundQLearner": "ospiel_team.bridge.agents.training.uncontested",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
