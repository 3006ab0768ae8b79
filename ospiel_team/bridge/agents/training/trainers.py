"""The numpy-engine bridge trainer for a configuration: A2C or PPO.

`a2c.A2CTrainer` (Tian, Gong & Jiang's A2C self-play, arXiv:2008.06495) and `ppo.PPOTrainer`
(Schulman et al., "Proximal Policy Optimization Algorithms", arXiv:1707.06347) share the
configuration `A2CConfig`; its `algorithm` field picks one.
"""
from ospiel_team import checks
from ospiel_team.bridge.agents.training import a2c
from ospiel_team.bridge.agents.training import ppo
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig


def make_trainer(cfg: A2CConfig, *args, **kwargs) -> a2c.A2CTrainer:
  """The trainer of ``cfg.algorithm``: `a2c.A2CTrainer` or `ppo.PPOTrainer`.

  Args:
    cfg: the training configuration.
    *args: the remaining positional arguments of `a2c.A2CTrainer` (training deals, ...).
    **kwargs: the remaining keyword arguments of `a2c.A2CTrainer` (workdir, ...).

  Returns:
    A new trainer (resuming from `workdir`'s checkpoint when there is one).

  Raises:
    UserError: a bad argument, named (`cfg` not an `A2CConfig`, ...).
  """
  checks.check_type("cfg", cfg, A2CConfig, "an A2CConfig")
  if cfg.algorithm == "ppo":
    return ppo.PPOTrainer(cfg, *args, **kwargs)
  return a2c.A2CTrainer(cfg, *args, **kwargs)
