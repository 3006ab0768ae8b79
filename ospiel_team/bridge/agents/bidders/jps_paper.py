r"""The JPS authors' published bridge bidders, loaded and run without PyTorch.

Tian, Gong and Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495, released five trained bidders with their code
(github.com/facebookresearch/jps, folder ``bridge_models/``, license CC BY-NC 4.0; they are
*not* part of this package: pass the folder that holds them):

=======================  ===============================  ========  =====================
our name                 file                             encoding  what (authors' README)
=======================  ===============================  ========  =====================
``jps_paper_baseline``   agent-baseline-15-189.pth        single    A2C baseline 1
``jps_paper_baseline2``  agent-baseline-0704-26-199.pth   single    A2C baseline 2
``jps_paper_2day5``      agent-2day-5-250.pth             old       JPS, +0.38 vs WBridge5
``jps_paper_2day8``      agent-2day-8-169.pth             old       JPS, +0.44 vs WBridge5
``jps_paper_0.63``       agent-1610-0.63.pth              old       JPS, +0.63 vs WBridge5
=======================  ===============================  ========  =====================

**File format.** The files are PyTorch's legacy ``torch.save`` format: five pickles in a row
(magic number, protocol version 1001, system info, the object ``{"state_dict": ...,
"init_args": ...}``, the list of storage keys), then each storage as a little-endian int64
element count followed by its raw float32 data. `load_torch_legacy` reads it with `pickle`
(tensors and storages become numpy arrays via a custom `pickle.Unpickler.persistent_load`).

**Network** (`BridgeA2CModel` with `LinearList` blocks, python/a2c/model.py and
python/model_utils.py of the authors' code): ``x1 = linear1(s)``; ENN: two residual blocks
``x + relu(L2(relu(L1 x)))``; ``hand = sigmoid(linear2(.))`` (52, the inferred partner hand);
``x2 = linear3([s, hand])``; PNN: two residual blocks; ``linear_policy`` gives 39 logits
(``linear_value`` the value; ``linear_goal`` is unused). The policy is ``softmax(logits)``, set
to 0 on illegal calls and renormalised (`post_process`; if all legal mass is below 1e-5 it
becomes uniform over the legal calls). In evaluation the authors act greedily
(``A2CActorGen(use_sampling_in_eval=False)`` binds ``act_greedy``: the argmax of that policy,
ties to the lowest action index), which is our default.

**Actions** (cpp/bid.h): index ``0..34`` = bids 1C..7NT (``(level - 1) * 5 + strain``),
35 Pass, 36 Double, 37 Redouble, 38 a no-op that is never legal. Our call ``c`` (0 Pass, 1 Dbl,
2 RDbl, 3 + bid) is their ``c - 3`` for a bid and ``35 + c`` otherwise.

**Cards** (cpp/card.h, `GameState::saveHandTo`): their card index is ``suit * 13 + value``
with suits C, D, H, S and ``value 0 = A, 1 = K, ..., 12 = 2``; ours is ``rank * 4 + suit``
with ``rank 0 = 2 .. 12 = A``.

**Encodings** (cpp/game_state.{h,cc}), for seat ``p`` with partner ``p + 2``:

* ``old`` (`FeatureExtractorOld`, 268 inputs): ``[0, 52)`` hand; 35 bits each for the bids
  made by ``p`` (``[52, 87)``), by the partner (``[87, 122)``), by seat ``p + 3`` (the right-hand
  opponent, ``[122, 157)``, their ``_kLeftBidStart``) and by seat ``p + 1`` (``[157, 192)``);
  ``[192, 227)`` bid ``j`` was doubled (also set by a redouble); ``227, 228`` N-S and E-W
  vulnerable (absolute); ``[229, 268)`` the 39 legal actions. It is our 267-bit observation
  with the two opponents' segments swapped and cards / calls reordered, so `old_features`
  can be computed from either.
* ``single`` (`FeatureExtractor`, 1,653 inputs): ``[0, 52)`` hand; ``[52, 1612)`` 40 slots of
  39: call number ``i`` of the auction (passes included) sets slot ``i + (dealer - p) mod 4``
  at its action index, calls whose slot is 40 or more are dropped; ``1612, 1613`` *our* side
  vulnerable, the opponents vulnerable (relative); ``[1614, 1653)`` the 39 legal actions.

The model's linear1 width (268 or 1,653) tells which encoding it takes.

One difference from the authors' environment: their auction stops after 40 calls
(`GameState::biddingTerminal`); ours follows the Laws (up to 319 calls). Auctions longer than
40 calls are vanishingly rare with these bidders.
"""

from __future__ import annotations

import os
import pickle
import struct

import numpy as np

from ospiel_team import checks
from ospiel_team.bridge import auction as A
from ospiel_team.bridge.agents.bidders import base

REFERENCE_MODELS = {
    "jps_paper_0.63": "agent-1610-0.63.pth",
    "jps_paper_baseline": "agent-baseline-15-189.pth",
    "jps_paper_baseline2": "agent-baseline-0704-26-199.pth",
    "jps_paper_2day5": "agent-2day-5-250.pth",
    "jps_paper_2day8": "agent-2day-8-169.pth",
}
MODELS_SUBDIR = "bridge_models"
REFERENCE_DIR_ENV = "JPS_REFERENCE_DIR"
NUM_ACTIONS = 39          # their action space
PASS_ACTION, DOUBLE_ACTION, REDOUBLE_ACTION, NOOP_ACTION = 35, 36, 37, 38
OLD_SIZE = 268
SINGLE_SIZE = 1653
SINGLE_HISTORY_SLOTS = 40
_SINGLE_VUL = 52 + SINGLE_HISTORY_SLOTS * NUM_ACTIONS  # 1612
_SINGLE_LEGAL = _SINGLE_VUL + 2                        # 1614

# OUR_CALL_OF_ACTION[a] = our call id of their action a (-1 for the no-op).
OUR_CALL_OF_ACTION = np.array([A.FIRST_BID + j for j in range(A.NUM_BIDS)] +
                              [A.PASS, A.DOUBLE, A.REDOUBLE, -1], np.int64)
# ACTION_OF_OUR_CALL[c] = their action index of our call c.
ACTION_OF_OUR_CALL = np.array([PASS_ACTION, DOUBLE_ACTION, REDOUBLE_ACTION] +
                              list(range(A.NUM_BIDS)), np.int64)
# OUR_CARD_OF_THEIR_CARD[t] = our card index of their card t = suit * 13 + value (value 0 = A).
OUR_CARD_OF_THEIR_CARD = np.array([(12 - t % 13) * 4 + t // 13 for t in range(52)], np.int64)


# ------------------------------------------------------------------------------------------
# Legacy torch.save reader
# ------------------------------------------------------------------------------------------
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_STORAGE_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64,
                   "LongStorage": np.int64, "IntStorage": np.int32,
                   "HalfStorage": np.float16, "ByteStorage": np.uint8,
                   "BoolStorage": np.bool_, "CharStorage": np.int8,
                   "ShortStorage": np.int16}


class _StorageRef:
  """A storage named by the pickle; its data is read after the pickles."""

  def __init__(self, key: str, dtype):
    self.key = key
    self.dtype = np.dtype(dtype)
    self.data: np.ndarray | None = None


_MAX_TENSOR_ELEMENTS = 1 << 31  # far above any bidder's layer (the largest has ~1e6)


class _TensorRef:
  """A tensor (storage, offset, size, stride) to materialise once storages are read.

  The file's offset, size and stride are kept as given and checked in `to_numpy` against the
  storage's length before any view is made (a crafted view past the storage would read other
  memory or crash the process).
  """

  def __init__(self, storage: _StorageRef, offset, size, stride):
    self.storage, self.offset, self.size, self.stride = storage, offset, size, stride

  def _check(self, path: str, name: str) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(offset, size, stride) as ints, each checked against the storage.

    Raises:
      ValueError: naming `path` and the tensor `name`, when the storage is not one the
        pickle declared, or the offset, a size or a stride is not an int, is negative, or
        the tensor reaches past the end of its storage.
    """
    where = f"{path!r}: tensor {name!r}"
    if not isinstance(self.storage, _StorageRef) or self.storage.data is None:
      raise ValueError(f"{where} has no storage data")
    length = len(self.storage.data)
    offset, size, stride = self._as_ints(where)
    numel = 1
    for n in size:
      numel *= n  # Python ints: no overflow
    if numel > _MAX_TENSOR_ELEMENTS:
      raise ValueError(f"{where}: size {size} has {numel} elements, more than "
                       f"{_MAX_TENSOR_ELEMENTS}")
    if numel == 0:
      if offset > length:
        raise ValueError(f"{where}: offset {offset} is past its storage of {length} elements")
      return offset, size, stride
    last = offset + sum((n - 1) * st for n, st in zip(size, stride, strict=True))
    if last >= length:
      raise ValueError(f"{where} reaches element {last} of a storage of {length} elements "
                       f"(offset {offset}, size {size}, stride {stride}): the file is damaged")
    return offset, size, stride

  def _as_ints(self, where: str) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(offset, size, stride) as non-negative ints of equal-length size and stride."""
    size, stride = self.size, self.stride
    if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)):
      raise ValueError(f"{where}: size {size!r} and stride {stride!r} must be tuples")
    if not (checks.is_integer(self.offset) and all(map(checks.is_integer, size))
            and all(map(checks.is_integer, stride))):
      raise ValueError(f"{where}: offset {self.offset!r}, size {tuple(size)!r} and stride "
                       f"{tuple(stride)!r} must be integers")
    offset, size, stride = int(self.offset), tuple(map(int, size)), tuple(map(int, stride))
    if len(size) != len(stride):
      raise ValueError(f"{where}: size {size} and stride {stride} differ in length")
    if offset < 0 or any(n < 0 for n in size) or any(st < 0 for st in stride):
      raise ValueError(f"{where}: negative offset, size or stride (offset {offset}, size "
                       f"{size}, stride {stride})")
    return offset, size, stride

  def to_numpy(self, path: str = "<model file>", name: str = "?") -> np.ndarray:
    """The tensor as a new numpy array, after `_check` (its Raises: ValueError)."""
    offset, size, stride = self._check(path, name)
    data = self.storage.data
    if not size:
      return data[offset].copy()
    if 0 in size:
      return np.zeros(size, dtype=data.dtype)
    view = np.lib.stride_tricks.as_strided(
        data[offset:], shape=size, strides=[st * data.itemsize for st in stride])
    return np.array(view)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
  del requires_grad, backward_hooks, metadata
  return _TensorRef(storage, storage_offset, size, stride)


class _LegacyUnpickler(pickle.Unpickler):
  """Unpickles the object of a legacy torch.save file without torch."""

  def __init__(self, f, storages: dict[str, _StorageRef]):
    super().__init__(f)
    self._storages = storages

  def find_class(self, module, name):
    if module == "collections" and name == "OrderedDict":
      import collections
      return collections.OrderedDict
    if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
      return _rebuild_tensor_v2
    if module == "torch" and name in _STORAGE_DTYPES:
      return _STORAGE_DTYPES[name]
    raise pickle.UnpicklingError(f"unexpected class {module}.{name} in a model file")

  def persistent_load(self, pid):
    if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
      raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
    _, dtype, key, _location, _numel = pid[:5]
    if len(pid) > 5 and pid[5] is not None:
      raise pickle.UnpicklingError("storage views are not supported")
    key = str(key)
    if key not in self._storages:
      self._storages[key] = _StorageRef(key, dtype)
    return self._storages[key]


class _PlainUnpickler(pickle.Unpickler):

  def find_class(self, module, name):
    raise pickle.UnpicklingError(f"unexpected class {module}.{name} in a model file header")


def _convert(obj, path: str, name: str = ""):
  """`obj` with every tensor materialised; `name` is the dotted key path, for messages."""
  if isinstance(obj, _TensorRef):
    return obj.to_numpy(path, name or "<root>")
  if isinstance(obj, dict):
    return {k: _convert(v, path, f"{name}.{k}" if name else str(k)) for k, v in obj.items()}
  if isinstance(obj, (list, tuple)):
    return type(obj)(_convert(v, path, f"{name}[{i}]") for i, v in enumerate(obj))
  return obj


class _OurError(ValueError):
  """A ValueError raised by the reader itself (it already names the file)."""


def load_torch_legacy(path: str):
  """Reads a legacy-format ``torch.save`` file (protocol 1001) without PyTorch.

  Args:
    path: the ``.pth`` file.

  Returns:
    The saved object with every tensor replaced by a numpy array.

  Raises:
    ValueError: the file is missing, not a legacy torch file, truncated, or damaged: a
      storage longer than the file, or a tensor whose offset, size or stride reaches outside
      its storage (named with the tensor, before any view of the data is made).
  """
  if not os.path.isfile(path):
    raise ValueError(f"model file {path!r} does not exist")
  storages: dict[str, _StorageRef] = {}
  file_size = os.path.getsize(path)
  with open(path, "rb") as f:
    obj, keys = _read_legacy_pickles(f, path, storages)
    for key in keys:
      _read_storage(f, path, key, storages, file_size)
    missing = [k for k, r in storages.items() if r.data is None]
    if missing:
      raise ValueError(f"{path!r}: storages {missing[:3]} have no data")
  return _convert(obj, path)


def _read_legacy_pickles(f, path: str, storages: dict[str, _StorageRef]) -> tuple[object, list]:
  """(the saved object, the storage keys): the pickles before the storages' raw data."""
  try:
    magic = _PlainUnpickler(f).load()
    if magic != _LEGACY_MAGIC:
      raise _OurError(f"{path!r} is not a legacy torch.save file (magic {magic!r}); files "
                      "in the zip format of torch >= 1.6 are not supported")
    version = _PlainUnpickler(f).load()
    if version != 1001:
      raise _OurError(f"{path!r}: unsupported torch.save protocol version {version!r}")
    sys_info = _PlainUnpickler(f).load()
    if not isinstance(sys_info, dict) or not sys_info.get("little_endian", True):
      raise _OurError(f"{path!r}: big-endian files are not supported")
    obj = _LegacyUnpickler(f, storages).load()
    keys = _PlainUnpickler(f).load()
    if not isinstance(keys, list):
      raise _OurError(f"{path!r}: the storage keys are a {type(keys).__name__}, not a list")
  except _OurError:
    raise
  except (pickle.UnpicklingError, EOFError, AttributeError, TypeError, ValueError, IndexError,
          KeyError, struct.error, RecursionError) as e:  # a damaged or crafted pickle
    raise ValueError(f"{path!r}: cannot parse as a legacy torch.save file: "
                     f"{type(e).__name__}: {e}") from e
  return obj, keys


def _read_storage(f, path: str, key, storages: dict[str, _StorageRef], file_size: int) -> None:
  """Reads storage `key`'s element count and raw data into its `_StorageRef`."""
  head = f.read(8)
  if len(head) != 8:
    raise ValueError(f"{path!r}: truncated before storage {key}")
  (numel,) = struct.unpack("<q", head)
  ref = storages.get(str(key))
  if ref is None:
    raise ValueError(f"{path!r}: storage {key} is not used by the object")
  nbytes = numel * ref.dtype.itemsize
  if numel < 0 or nbytes > file_size - f.tell():
    raise ValueError(f"{path!r}: storage {key} claims {numel} elements, "
                     f"{'negative' if numel < 0 else 'more than the file holds'}")
  raw = f.read(nbytes)
  if len(raw) != nbytes:
    raise ValueError(f"{path!r}: storage {key} truncated ({len(raw)} of {nbytes} bytes)")
  ref.data = np.frombuffer(raw, dtype=ref.dtype.newbyteorder("<")).astype(ref.dtype)


# ------------------------------------------------------------------------------------------
# The network
# ------------------------------------------------------------------------------------------
_PREFIX = "online_net."


class PaperNet:
  """The authors' ENN/PNN policy network (`BridgeA2CModel`) as numpy float32 arrays."""

  def __init__(self, state_dict: dict[str, np.ndarray], init_args: dict | None = None,
               name: str = "jps_paper"):
    sd = {k[len(_PREFIX):] if k.startswith(_PREFIX) else k: np.asarray(v, np.float32)
          for k, v in state_dict.items()}
    need = ["linear1.weight", "linear2.weight", "linear3.weight", "linear_policy.weight",
            "linear_value.weight"]
    for k in need:
      if k not in sd:
        raise ValueError(f"{name}: state_dict has no {k!r}; not a BridgeA2CModel")
    self.name = name
    self.init_args = dict(init_args or {})
    self.input_dim = int(sd["linear1.weight"].shape[1])
    if self.input_dim == OLD_SIZE:
      self.feature = "old"
    elif self.input_dim == SINGLE_SIZE:
      self.feature = "single"
    else:
      raise ValueError(f"{name}: linear1 takes {self.input_dim} inputs; expected {OLD_SIZE} "
                       f"('old') or {SINGLE_SIZE} ('single')")
    self.hidden = int(sd["linear1.weight"].shape[0])
    if sd["linear_policy.weight"].shape[0] != NUM_ACTIONS:
      raise ValueError(f"{name}: policy has {sd['linear_policy.weight'].shape[0]} actions, "
                       f"expected {NUM_ACTIONS}")
    self._lin = {}
    for layer in ("linear1", "linear2", "linear3", "linear_policy", "linear_value"):
      self._lin[layer] = (sd[layer + ".weight"].T.copy(), sd[layer + ".bias"])
    self._blocks = {}
    for trunk in ("enn_partner", "pnn"):
      blocks = []
      i = 0
      while f"{trunk}.fc.{i}.fc.0.weight" in sd:
        p = f"{trunk}.fc.{i}.fc."
        blocks.append((sd[p + "0.weight"].T.copy(), sd[p + "0.bias"],
                       sd[p + "2.weight"].T.copy(), sd[p + "2.bias"]))
        i += 1
      if not blocks:
        raise ValueError(f"{name}: state_dict has no {trunk} blocks")
      self._blocks[trunk] = blocks

  def _linear(self, layer, x):
    w, b = self._lin[layer]
    return x @ w + b

  @staticmethod
  def _resblocks(blocks, x):
    for w1, b1, w2, b2 in blocks:
      h = np.maximum(x @ w1 + b1, 0.0)
      x = np.maximum(h @ w2 + b2, 0.0) + x
    return x

  def forward(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, input_dim) features -> (logits (n, 39), value (n,), inferred partner hand (n, 52))."""
    s = np.asarray(s, np.float32)
    if s.ndim != 2 or s.shape[1] != self.input_dim:
      raise ValueError(f"{self.name}: features must be (n, {self.input_dim}), got {s.shape}")
    x1 = self._resblocks(self._blocks["enn_partner"], self._linear("linear1", s))
    hand = 1.0 / (1.0 + np.exp(-self._linear("linear2", x1)))
    x2 = self._linear("linear3", np.concatenate([s, hand.astype(np.float32)], axis=1))
    h1 = self._resblocks(self._blocks["pnn"], x2)
    return self._linear("linear_policy", h1), self._linear("linear_value", h1)[:, 0], hand

  def policy(self, s: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """(n, 39) masked, renormalised policy of the authors' `post_process`."""
    logits, _, _ = self.forward(s)
    z = logits - logits.max(axis=1, keepdims=True)
    pi = np.exp(z)
    pi /= pi.sum(axis=1, keepdims=True)
    legal = np.asarray(legal) > 0.5
    pi = np.where(legal, pi, 0.0)
    total = pi.sum(axis=1)
    zero = total < 1e-5
    if np.any(zero):
      pi[zero] = legal[zero]
      total = pi.sum(axis=1)
    return pi / total[:, None]


def load_paper_net(path: str, name: str | None = None) -> PaperNet:
  """Loads one of the authors' ``.pth`` bidders as a `PaperNet`."""
  obj = load_torch_legacy(path)
  if isinstance(obj, dict) and "state_dict" in obj:
    sd, args = obj["state_dict"], obj.get("init_args", {})
  elif isinstance(obj, dict):
    sd, args = obj, {}
  else:
    raise ValueError(f"{path!r}: expected a dict with a state_dict, got {type(obj).__name__}")
  return PaperNet(sd, args, name=name or os.path.splitext(os.path.basename(path))[0])


# ------------------------------------------------------------------------------------------
# Encodings
# ------------------------------------------------------------------------------------------
def their_legal(legal38: np.ndarray) -> np.ndarray:
  """(n, 38) our legal-call bits -> (n, 39) in the authors' action order (no-op never legal)."""
  legal38 = np.asarray(legal38)
  out = np.zeros((legal38.shape[0], NUM_ACTIONS), np.float32)
  out[:, ACTION_OF_OUR_CALL] = legal38
  return out


def their_hand(cards52: np.ndarray) -> np.ndarray:
  """(n, 52) hand bits in our card order -> the authors' card order."""
  return np.asarray(cards52, np.float32)[:, OUR_CARD_OF_THEIR_CARD]


def old_features_from_observation(obs: np.ndarray) -> np.ndarray:
  """(n, 267) our JPS observations -> (n, 268) the authors' ``old`` features (same facts)."""
  obs = np.asarray(obs, np.float32)
  if obs.ndim != 2 or obs.shape[1] != A.OBSERVATION_SIZE:
    raise ValueError(f"observations must be (n, {A.OBSERVATION_SIZE}), got {obs.shape}")
  n = len(obs)
  out = np.zeros((n, OLD_SIZE), np.float32)
  out[:, :52] = their_hand(obs[:, A.OBS_CARDS:A.OBS_BIDS])
  seg = obs[:, A.OBS_BIDS:A.OBS_DOUBLED].reshape(n, 4, A.NUM_BIDS)  # own, pd, p+1, p+3
  out[:, 52:87] = seg[:, 0]
  out[:, 87:122] = seg[:, 1]
  out[:, 122:157] = seg[:, 3]   # seat p + 3 (their "left")
  out[:, 157:192] = seg[:, 2]   # seat p + 1 (their "right")
  out[:, 192:227] = obs[:, A.OBS_DOUBLED:A.OBS_VULNERABLE]
  out[:, 227:229] = obs[:, A.OBS_VULNERABLE:A.OBS_LEGAL]
  out[:, 229:268] = their_legal(obs[:, A.OBS_LEGAL:])
  return out


def old_features(auctions: A.Auctions, hands: np.ndarray, rows, *, player=None) -> np.ndarray:
  """(len(rows), 268) ``old`` features of seat `player` (default: the seat to call)."""
  rows = np.asarray(rows, np.int64)
  p = auctions.current_player[rows] if player is None else np.broadcast_to(
      np.asarray(player, np.int64), rows.shape)
  n = len(rows)
  out = np.zeros((n, OLD_SIZE), np.float32)
  out[:, :52] = their_hand(hands[rows, p])
  for start, off in ((52, 0), (87, 2), (122, 3), (157, 1)):
    out[:, start:start + 35] = auctions.bids[rows, (p + off) & 3]
  out[:, 192:227] = auctions.doubled[rows]
  out[:, 227:229] = auctions.vulnerable[rows]
  legal = auctions.legal_mask()[rows] & (auctions.current_player[rows] == p)[:, None]
  out[:, 229:268] = their_legal(legal)
  return out


def single_features(auctions: A.Auctions, hands: np.ndarray, rows, *, player=None) -> np.ndarray:
  """(len(rows), 1653) ``single`` features of seat `player` (default: the seat to call)."""
  rows = np.asarray(rows, np.int64)
  p = auctions.current_player[rows] if player is None else np.broadcast_to(
      np.asarray(player, np.int64), rows.shape)
  n = len(rows)
  out = np.zeros((n, SINGLE_SIZE), np.float32)
  out[:, :52] = their_hand(hands[rows, p])
  hist = auctions.history[rows, :SINGLE_HISTORY_SLOTS].astype(np.int64)
  rel_dealer = (auctions.dealer[rows] - p) & 3
  slot = np.arange(SINGLE_HISTORY_SLOTS)[None, :] + rel_dealer[:, None]
  ok = (hist >= 0) & (slot < SINGLE_HISTORY_SLOTS)
  r, i = np.nonzero(ok)
  out[r, 52 + slot[r, i] * NUM_ACTIONS + ACTION_OF_OUR_CALL[hist[r, i]]] = 1.0
  side = p & 1
  vul = auctions.vulnerable[rows]
  out[:, _SINGLE_VUL] = vul[np.arange(n), side]
  out[:, _SINGLE_VUL + 1] = vul[np.arange(n), 1 - side]
  legal = auctions.legal_mask()[rows] & (auctions.current_player[rows] == p)[:, None]
  out[:, _SINGLE_LEGAL:] = their_legal(legal)
  return out


# ------------------------------------------------------------------------------------------
# The bidder
# ------------------------------------------------------------------------------------------
class PaperBidder(base.AuctionBidder):
  """One of the authors' networks as a bidder (a `base.AuctionBidder`).

  ``act_auction(auctions, hands, rows, uniforms)`` (what duplicate matches call) reads the
  whole auction, which the ``single`` encoding needs (passes and their order). ``act(observations,
  uniforms)`` computes an ``old``-encoding model's features from the 267-bit observation (it
  holds the same facts); for a ``single``-encoding model it plays ``act_auction`` on the
  shortest auction that fits the observation (`base.auctions_from_observations`). Greedy by
  default (the authors' evaluation); ``greedy=False`` samples with the uniforms by inverse CDF
  over the authors' action order.
  """

  def __init__(self, net: PaperNet, name: str | None = None, greedy: bool = True):
    checks.check_type("net", net, PaperNet, "a jps_paper.PaperNet")
    checks.check_type("name", name, (str, type(None)), "a string or None")
    self.net = net
    self.name = name or net.name
    self.greedy = checks.check_bool("greedy", greedy)

  def _choose(self, feats: np.ndarray, legal39: np.ndarray, uniforms) -> np.ndarray:
    if len(feats) == 0:
      return np.zeros(0, np.int64)
    if np.any(legal39.sum(axis=1) == 0):
      raise ValueError(f"{self.name}: row {int(np.flatnonzero(legal39.sum(axis=1) == 0)[0])} "
                       "has no legal call")
    pi = self.net.policy(feats, legal39)
    if self.greedy or uniforms is None:
      a = pi.argmax(axis=1)
    else:
      u = np.asarray(uniforms, np.float64)
      cdf = np.cumsum(pi, axis=1)
      a = np.minimum((cdf <= (u * cdf[:, -1])[:, None]).sum(axis=1), NUM_ACTIONS - 1)
      a = np.where(legal39[np.arange(len(a)), a] > 0.5, a, pi.argmax(axis=1))
    return OUR_CALL_OF_ACTION[a]

  def act(self, observations: np.ndarray, uniforms: np.ndarray | None = None) -> np.ndarray:
    """(n, 267) observations of the seats to call -> (n,) our call ids (see the class)."""
    if self.net.feature != "old":
      return super().act(observations, uniforms)
    feats = old_features_from_observation(observations)
    return self._choose(feats, feats[:, 229:], uniforms)

  def features(self, auctions: A.Auctions, hands: np.ndarray, rows) -> np.ndarray:
    """The model's input features (its ``old`` or ``single`` encoding) of tables `rows`."""
    fn = old_features if self.net.feature == "old" else single_features
    return fn(auctions, hands, rows)

  def act_auction(self, auctions: A.Auctions, hands: np.ndarray, rows,
                  uniforms: np.ndarray | None = None) -> np.ndarray:
    """Calls of the seats to call at tables `rows` of `auctions` ((B, 4, 52) `hands`)."""
    feats = self.features(auctions, hands, rows)
    legal = feats[:, 229:268] if self.net.feature == "old" else feats[:, _SINGLE_LEGAL:]
    return self._choose(feats, legal, uniforms)


def default_reference_dir() -> str | None:
  """The folder of the authors' models when none is given, or None.

  The environment variable ``JPS_REFERENCE_DIR``, if set (the command lines' default
  ``--reference_dir``).

  The models are not part of this package (CC BY-NC 4.0); users download them from
  github.com/facebookresearch/jps and point ``--reference_dir`` (or this variable) at the folder.
  """
  return os.environ.get(REFERENCE_DIR_ENV) or None


def model_file(name: str, reference_dir: str | None) -> str:
  """Path of a reference model by our name, under `reference_dir` (or its bridge_models/)."""
  if name not in REFERENCE_MODELS:
    raise ValueError(f"unknown reference model {name!r}; known: {sorted(REFERENCE_MODELS)}")
  if not reference_dir:
    raise ValueError(f"{name} is one of the JPS authors' models: pass the folder holding "
                     f"{REFERENCE_MODELS[name]} (reference_dir / --reference_dir)")
  for d in (os.path.join(reference_dir, MODELS_SUBDIR), reference_dir):
    path = os.path.join(d, REFERENCE_MODELS[name])
    if os.path.isfile(path):
      return path
  raise ValueError(f"{name}: {REFERENCE_MODELS[name]} not found in {reference_dir!r} or its "
                   f"{MODELS_SUBDIR}/ (download it from github.com/facebookresearch/jps)")


def load_bidder(name_or_path: str, reference_dir: str | None = None,
                greedy: bool = True) -> PaperBidder:
  """A `PaperBidder` for a reference name (``jps_paper_0.63``, ...) or a ``.pth`` path."""
  if name_or_path in REFERENCE_MODELS:
    path, label = model_file(name_or_path, reference_dir), name_or_path
  else:
    path, label = name_or_path, os.path.splitext(os.path.basename(name_or_path))[0]
  return PaperBidder(load_paper_net(path, name=label), name=label, greedy=greedy)
