"""The tensor layout every game's observer shares: named pieces laid out in one flat tensor.

OpenSpiel's Python observers expose `tensor` (one flat float32 array) and `dict` (named views
into it, each with its own shape); see OpenSpiel's `open_spiel/python/observation.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def tensor_and_views(
    pieces: Sequence[tuple[str, int, tuple[int, ...]]]) -> tuple[np.ndarray, dict]:
  """A zero tensor holding `pieces` in order, and a view of each piece by name.

  Args:
    pieces: (name, size, shape) per piece, size being the product of shape.

  Returns:
    (tensor, views): the flat float32 tensor, and `views[name]` the piece's slice of it
    reshaped to its shape (writing a view writes the tensor).
  """
  tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
  views, index = {}, 0
  for name, size, shape in pieces:
    views[name] = tensor[index:index + size].reshape(shape)
    index += size
  return tensor, views
