"""A learned double-dummy estimate: a network that predicts a deal's whole DDS table.

DDS (`ospiel_team.bridge.dds`) solves a deal in about 0.4 CPU seconds; a search at play time
that scores tens of deals per call (`ospiel_team.bridge.agents.search.search_bidder`) spends nearly
all of its time there. This module is the cheap stand-in: a network that reads the four hands and
gives, for each of the 5 strains x 4 declarers of the table, a probability distribution over
the 14 trick counts 0..13, trained on the shipped training deals' DDS tables under the 96
symmetries of a deal (4 seat rotations x 24 suit permutations, `dataset.augment_deals`).
Networks that estimate double-dummy tricks are how bidding programs make search affordable
(e.g. Yeh, Hsieh & Lin, "Automatic Bridge Bidding Using Deep Reinforcement Learning", IEEE
Trans. Games 2018, arXiv:1607.03290, whose bidder is trained on double-dummy results of
deals; BEN, github.com/lorserker/ben, which estimates tricks with networks before
double-dummy play).

The estimate is used by sampling (`DDNet.sample_tables`): each entry of a deal's table is drawn
from its predicted distribution, so a search that averages a contract's score over deals
averages the score's expectation under the network, instead of the score of a rounded trick
count (which would be biased wherever a contract makes or fails by one trick).

Network: the 208-bit one-hot of which seat holds each card -> ``num_layers`` fully connected
layers of ``hidden`` units (ReLU) -> 20 x 14 logits. Saved as ``.npz`` (``meta`` JSON with the
size and training record, ``param/<module>/<name>`` float16 arrays, and the file's content
digest, checked on load; the shipped model is also checked against `shipped_digests`).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from ospiel_team import atomic_io
from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge import deal as deal_lib
from ospiel_team.bridge import haiku_params
from ospiel_team.bridge import shipped_digests

NUM_STRAINS = A.NUM_STRAINS
NUM_SEATS = deal_lib.NUM_SEATS
NUM_TRICKS = 14
INPUT_SIZE = deal_lib.NUM_CARDS * NUM_SEATS
FORMAT = "ospiel_team.dd_net.v1"
SHIPPED_MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "dd_net.npz")


# ------------------------------------------------------------------------------------------
# Network
# ------------------------------------------------------------------------------------------
def features(holders: np.ndarray) -> np.ndarray:
  """(n, 208) uint8 one-hot ``[card * 4 + seat]`` of (n, 52) holders."""
  holders = np.asarray(holders)
  if holders.ndim != 2 or holders.shape[1] != deal_lib.NUM_CARDS:
    raise ValueError(f"holders must have shape (n, 52), got {holders.shape}")
  return (holders[:, :, None] == np.arange(NUM_SEATS)).reshape(len(holders), INPUT_SIZE
                                                               ).astype(np.uint8)


def make_network(hidden: int = 512, num_layers: int = 3) -> hk.Transformed:
  """Haiku transform of features (B, 208) -> logits (B, 5, 4, 14)."""
  checks.check_int("hidden", hidden, minimum=1)
  checks.check_int("num_layers", num_layers, minimum=1)

  def forward(x):
    x = x.astype(jnp.float32)
    for i in range(num_layers):
      x = jax.nn.relu(hk.Linear(hidden, name=f"fc{i}")(x))
    logits = hk.Linear(NUM_STRAINS * NUM_SEATS * NUM_TRICKS, name="out")(x)
    return logits.reshape(-1, NUM_STRAINS, NUM_SEATS, NUM_TRICKS)

  return hk.without_apply_rng(hk.transform(forward))


@dataclasses.dataclass(frozen=True)
class DDNetConfig:
  """Size and training settings of a double-dummy network.

  Attributes:
    hidden: units per hidden layer.
    num_layers: hidden layers.
    batch: deals per Adam step.
    learning_rate: Adam's step size at the start; it decays linearly to 0 over `steps`.
    steps: Adam steps.
    seed: seed of the initial parameters and of the batch order.
  """
  hidden: int = 512
  num_layers: int = 3
  batch: int = 512
  learning_rate: float = 1e-3
  steps: int = 30_000
  seed: int = 0

  def __post_init__(self):
    for name, minimum in (("hidden", 1), ("num_layers", 1), ("batch", 1), ("steps", 1),
                          ("seed", 0)):
      checks.check_int(name, getattr(self, name), minimum=minimum)
    checks.check_real("learning_rate", self.learning_rate, above=0)


# ------------------------------------------------------------------------------------------
# Inference
# ------------------------------------------------------------------------------------------
class DDNet:
  """A trained double-dummy network: trick distributions, expected tables, sampled tables.

  Args:
    net: `make_network`'s transform.
    params: its parameters.
    meta: the model's metadata (size, training record).
  """

  def __init__(self, net: hk.Transformed, params, meta: dict | None = None):
    self.net = net
    self.params = params
    self.meta = dict(meta or {})
    self._probs = jax.jit(lambda p, x: jax.nn.softmax(net.apply(p, x), axis=-1))

  def probabilities(self, holders: np.ndarray, batch: int = 4096) -> np.ndarray:
    """(n, 5, 4, 14) probabilities of each trick count for each strain and declarer."""
    x = features(holders)
    out = np.empty((len(x), NUM_STRAINS, NUM_SEATS, NUM_TRICKS), np.float64)
    for start in range(0, len(x), batch):
      chunk = x[start:start + batch]
      n = len(chunk)
      size = 1 << max(6, int(np.ceil(np.log2(n))))  # few compiled shapes
      padded = np.zeros((size, INPUT_SIZE), np.uint8)
      padded[:n] = chunk
      out[start:start + n] = np.asarray(self._probs(self.params, padded), np.float64)[:n]
    return out

  def expected_tables(self, holders: np.ndarray) -> np.ndarray:
    """(n, 5, 4) expected tricks (`dds.dd_tables`' layout, as floats)."""
    return self.probabilities(holders) @ np.arange(NUM_TRICKS)

  def sample_tables(self, holders: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(n, 5, 4) uint8 tables, each entry drawn from its predicted distribution."""
    p = self.probabilities(holders)
    cdf = np.cumsum(p, axis=-1)
    u = rng.random(p.shape[:-1] + (1,))
    return np.minimum((u > cdf).sum(axis=-1), NUM_TRICKS - 1).astype(np.uint8)

  def table_fn(self, seed: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """A ``holders -> tables`` function like `dds.dd_tables` that samples (own random numbers).

    The random numbers come from ``seed`` and a content hash of the batch, so the same deals
    get the same tables whenever they are asked (a match replayed gives the same calls).
    """
    def fn(holders):
      holders = np.ascontiguousarray(holders, np.uint8)
      key = int.from_bytes(atomic_io.content_digest({"h": holders}).encode()[:8], "little")
      return self.sample_tables(holders, np.random.default_rng([int(seed), key]))
    return fn


def table_metrics(probabilities: np.ndarray, tricks: np.ndarray) -> dict[str, float]:
  """Accuracy of predicted distributions against true DDS tables.

  Returns:
    ``mae_expected``: mean |E[tricks] - tricks|; ``exact``: share of entries whose most
    probable count is the true one; ``within1``: share within one trick; ``nll``: mean
    negative log probability of the true count (nats).
  """
  t = np.asarray(tricks, np.int64)
  p = np.asarray(probabilities)
  expected = p @ np.arange(NUM_TRICKS)
  mode = p.argmax(-1)
  true_p = np.take_along_axis(p, t[..., None], axis=-1)[..., 0]
  return {"mae_expected": float(np.abs(expected - t).mean()),
          "exact": float((mode == t).mean()),
          "within1": float((np.abs(mode - t) <= 1).mean()),
          "nll": float(-np.log(np.maximum(true_p, 1e-12)).mean())}


# ------------------------------------------------------------------------------------------
# Training
# ------------------------------------------------------------------------------------------
def train(holders: np.ndarray, tricks: np.ndarray, config: DDNetConfig, *,
          validation: tuple[np.ndarray, np.ndarray] | None = None, evaluate_every: int = 1000,
          progress: Callable[[int, dict], None] | None = None) -> tuple[DDNet, list[dict]]:
  """Trains a network on deals and their DDS tables (cross entropy of each table entry).

  Args:
    holders: (n, 52) training deals (already augmented if wanted).
    tricks: (n, 5, 4) their DDS tables.
    config: size and training settings.
    validation: (holders, tricks) scored every `evaluate_every` steps and at the end.
    evaluate_every: steps between validation scores.
    progress: called as ``progress(step, record)`` after each validation score.

  Returns:
    (the trained `DDNet`, the validation records: step and `table_metrics`).
  """
  import optax
  holders = np.asarray(holders, np.uint8)
  tricks = np.asarray(tricks, np.uint8)
  if len(holders) != len(tricks) or tricks.shape[1:] != (NUM_STRAINS, NUM_SEATS):
    raise ValueError(f"{len(holders)} deals but tricks of shape {tricks.shape}")
  checks.check_int("evaluate_every", evaluate_every, minimum=1)
  net = make_network(config.hidden, config.num_layers)
  params = net.init(jax.random.PRNGKey(config.seed), jnp.zeros((1, INPUT_SIZE), jnp.float32))
  schedule = optax.linear_schedule(config.learning_rate, 0.0, config.steps)
  opt = optax.adam(schedule)
  state = opt.init(params)

  def loss_fn(p, x, t):
    logp = jax.nn.log_softmax(net.apply(p, x), axis=-1)
    return -jnp.take_along_axis(logp, t[..., None].astype(jnp.int32), axis=-1).mean()

  @jax.jit
  def step(p, s, x, t):
    loss, g = jax.value_and_grad(loss_fn)(p, x, t)
    updates, s = opt.update(g, s, p)
    return optax.apply_updates(p, updates), s, loss

  rng = np.random.default_rng(config.seed)
  history: list[dict] = []
  model = DDNet(net, params, {})

  def score(i):
    model.params = params
    rec = {"step": i, **table_metrics(model.probabilities(validation[0]), validation[1])}
    history.append(rec)
    if progress is not None:
      progress(i, rec)

  order = rng.permutation(len(holders))
  pos = 0
  for i in range(config.steps):
    if pos + config.batch > len(order):
      order, pos = rng.permutation(len(holders)), 0
    idx = order[pos:pos + config.batch]
    pos += config.batch
    params, state, _ = step(params, state, features(holders[idx]), tricks[idx])
    if validation is not None and (i + 1) % evaluate_every == 0 and i + 1 < config.steps:
      score(i + 1)
  if validation is not None:
    score(config.steps)
  model.params = params
  model.meta = {"network": {"hidden": config.hidden, "num_layers": config.num_layers},
                "config": dataclasses.asdict(config)}
  return model, history


# ------------------------------------------------------------------------------------------
# Files
# ------------------------------------------------------------------------------------------
def save(path: str, model: DDNet, extra: dict | None = None) -> None:
  """Writes `model` (parameters, size, metadata and `extra`) atomically as an .npz.

  The parameters are stored as float16 (half the bytes in the wheel); `load` computes in
  float32. A saved model's accuracy is therefore measured on the model as loaded back.
  """
  meta = {"format": FORMAT, **model.meta, **(extra or {})}
  arrays = {f"param/{k}": v.astype(np.float16)
            for k, v in haiku_params.flatten_params(model.params).items()}
  arrays["meta"] = np.array(json.dumps(meta))
  atomic_io.savez(path, **shipped_digests.with_own_digest(arrays))


def load(path: str | None = None) -> DDNet:
  """The network saved at `path` (default: the shipped model `dd_net.npz`).

  Raises:
    ValueError: (`errors.DamagedFileError` for damage) naming the file when it cannot be read,
      is not a double-dummy network, does not match its digest, or holds parameters whose
      names, shapes or values (not finite) do not fit its size.
  """
  path = SHIPPED_MODEL if path is None else os.fspath(path)
  if not os.path.exists(path):
    raise ValueError(f"double-dummy network {path!r} does not exist")
  arrays = atomic_io.read_npz(path, "double-dummy network")
  shipped_digests.check(path, arrays, "double-dummy network")
  arrays = shipped_digests.check_own(path, arrays, "double-dummy network")
  try:
    meta = json.loads(str(arrays.get("meta")))
  except json.JSONDecodeError:
    meta = None
  if not isinstance(meta, dict) or meta.get("format") != FORMAT:
    raise ValueError(f"{path!r} is not a double-dummy network of format {FORMAT!r}")
  try:
    net = make_network(**meta["network"])
  except (TypeError, ValueError) as e:
    raise ValueError(f"double-dummy network {path!r}: bad size {meta['network']}: {e}") from None
  flat = {k[len("param/"):]: v for k, v in arrays.items() if k.startswith("param/")}
  haiku_params.check_params(path, "double-dummy network", net, INPUT_SIZE, meta["network"],
                            flat)
  params = haiku_params.unflatten_params(flat, jnp.float32)
  return DDNet(net, params, meta)
