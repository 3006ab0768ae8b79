"""The replay buffer of the numpy A2C trainer (`a2c.A2CTrainer`): a FIFO of decisions.

Observations (the 267 bits of `ospiel_team.bridge.auction`) are stored bit-packed, 34 bytes
each; actions, behaviour log-probabilities and returns beside them.
"""

from __future__ import annotations

import numpy as np

from ospiel_team.bridge.agents.bidders.policy_net import OBS_SIZE

PACKED_OBS_SIZE = (OBS_SIZE + 7) // 8  # 34 bytes


class ReplayBuffer:
  """FIFO buffer of decisions with bit-packed observations."""

  def __init__(self, capacity: int):
    if capacity < 1:
      raise ValueError(f"replay buffer capacity must be >= 1, got {capacity}")
    self.capacity = int(capacity)
    self.obs = np.zeros((capacity, PACKED_OBS_SIZE), np.uint8)
    self.actions = np.zeros(capacity, np.int8)
    self.logp = np.zeros(capacity, np.float32)
    self.returns = np.zeros(capacity, np.float32)
    self.ptr = 0
    self.size = 0
    self.total_added = 0

  def add(self, obs: np.ndarray, actions, logp, returns) -> None:
    """Appends n transitions, overwriting the oldest once the buffer is full."""
    obs = np.asarray(obs)
    n = obs.shape[0]
    if n == 0:
      return
    packed = np.packbits(obs > 0.5, axis=1)
    m = min(n, self.capacity)  # only the newest `capacity` decisions survive
    idx = (self.ptr + np.arange(n)[n - m:]) % self.capacity
    self.obs[idx] = packed[n - m:]
    self.actions[idx] = np.asarray(actions)[n - m:]
    self.logp[idx] = np.asarray(logp)[n - m:]
    self.returns[idx] = np.asarray(returns)[n - m:]
    self.ptr = int((self.ptr + n) % self.capacity)
    self.size = int(min(self.capacity, self.size + n))
    self.total_added += n

  def sample(self, rng: np.random.Generator, batch_size: int, obs_dtype=np.float32):
    """(obs (B, 267) of `obs_dtype`, actions, behaviour log-probs, returns), uniform rows."""
    if self.size == 0:
      raise ValueError("cannot sample from an empty replay buffer")
    idx = rng.integers(0, self.size, batch_size)
    obs = np.unpackbits(self.obs[idx], axis=1, count=OBS_SIZE).astype(obs_dtype, copy=False)
    return obs, self.actions[idx].astype(np.int32), self.logp[idx], self.returns[idx]

  def state_dict(self) -> dict[str, np.ndarray]:
    """The buffer's arrays and counters, for a checkpoint."""
    return {"buf_obs": self.obs, "buf_actions": self.actions, "buf_logp": self.logp,
            "buf_returns": self.returns,
            "buf_meta": np.array([self.ptr, self.size, self.total_added], np.int64)}

  def load_state_dict(self, d) -> None:
    """Restores a `state_dict`; ValueError when its shape is not this buffer's."""
    if d["buf_obs"].shape != self.obs.shape:
      raise ValueError(f"checkpoint buffer shape {d['buf_obs'].shape} != {self.obs.shape}")
    self.obs[:] = d["buf_obs"]
    self.actions[:] = d["buf_actions"]
    self.logp[:] = d["buf_logp"]
    self.returns[:] = d["buf_returns"]
    self.ptr, self.size, self.total_added = (int(x) for x in d["buf_meta"])
