"""Haiku parameters in ``.npz`` files: flat names, and the check of a file's parameters.

One implementation for every network the bridge package saves (the bidders' policy network,
`ospiel_team.bridge.agents.bidders.policy_net`, and the double-dummy network,
`ospiel_team.bridge.dd_net`): parameters are stored flat as ``"module/name"`` arrays, and a loaded
file's parameters are checked against the network they claim to be before anything computes with
them.
"""

from __future__ import annotations

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


def flatten_params(params) -> dict[str, np.ndarray]:
  """Haiku parameters as one flat dict, ``"module/name" -> numpy array`` (for `.npz` files)."""
  out = {}
  for mod, d in params.items():
    for name, v in d.items():
      out[f"{mod}/{name}"] = np.asarray(v)
  return out


def unflatten_params(flat: dict[str, np.ndarray], dtype=None):
  """The inverse of `flatten_params`: nested haiku parameters of JAX arrays (cast to `dtype`)."""
  params: dict[str, dict[str, jnp.ndarray]] = {}
  for key, v in flat.items():
    mod, name = key.rsplit("/", 1)
    params.setdefault(mod, {})[name] = jnp.asarray(v, dtype)
  return params


def check_params(path: str, what: str, net: hk.Transformed, input_size: int, size: dict,
                 flat: dict[str, np.ndarray]) -> None:
  """ValueError naming the file unless `flat` has `net`'s parameter names and shapes, finite.

  Args:
    path: the file the parameters come from (for the message).
    what: what the file is (e.g. "model file").
    net: the network the file says it holds.
    input_size: the width of the network's input.
    size: the network's size as the file states it (for the message).
    flat: the file's parameters, by ``"module/name"``.
  """
  shapes = jax.eval_shape(  # abstract: no parameters computed, no device touched
      lambda: net.init(jax.random.PRNGKey(0), jnp.zeros((1, input_size), jnp.float32)))
  expected = {f"{mod}/{name}": v.shape for mod, d in shapes.items() for name, v in d.items()}
  if set(flat) != set(expected):
    raise ValueError(f"{what} {path!r}: parameters {sorted(set(flat) ^ set(expected))} "
                     f"do not match its network {size}")
  for k, v in flat.items():
    if v.shape != expected[k]:
      raise ValueError(f"{what} {path!r}: parameter {k} has shape {v.shape}, its network "
                       f"{size} needs {expected[k]}")
    if not np.issubdtype(v.dtype, np.floating):
      raise ValueError(f"{what} {path!r}: parameter {k} has dtype {v.dtype}, not float")
    bad = int(v.size - np.isfinite(v).sum())
    if bad:
      raise ValueError(f"{what} {path!r}: parameter {k} has {bad} entries that are not "
                       "finite (NaN or infinite)")
