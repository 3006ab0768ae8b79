"""Random legal calls for driving auction engines in tests (one helper for every such test)."""
import numpy as np

from ospiel_team.bridge import auction as A


def random_legal_calls(rng: np.random.Generator, legal: np.ndarray, p_pass: np.ndarray,
                       max_bids: int | None = None) -> np.ndarray:
  """A legal call per row of `legal`: Redouble or Double often when legal, Pass with
  probability `p_pass[row]`, else a uniform bid among the lowest `max_bids` legal bids (all
  when None); Pass in a row with no legal call."""
  calls = np.zeros(legal.shape[0], np.int64)
  for t in np.flatnonzero(legal.any(axis=1)):
    u = rng.random()
    if legal[t, A.REDOUBLE] and u < 0.5:
      calls[t] = A.REDOUBLE
    elif legal[t, A.DOUBLE] and u < 0.3:
      calls[t] = A.DOUBLE
    elif rng.random() < p_pass[t] or not legal[t, A.FIRST_BID:].any():
      calls[t] = A.PASS
    else:
      bids = np.flatnonzero(legal[t, A.FIRST_BID:]) + A.FIRST_BID
      calls[t] = rng.choice(bids if max_bids is None else bids[:max_bids])
  return calls
