"""Duplicate bridge scoring of a contract and the standard IMP scale.

Law 77 of the Laws of Duplicate Bridge (2017); the JPS paper (Section 7, Appendix A) and
Yeh & Lin 2016 reward an auction with the duplicate score of the final contract played
double-dummy, and compare two bidders in IMPs.

Conventions:

* ``level`` 1..7 (0 = passed out, scores 0); ``strain`` 0=C, 1=D, 2=H, 3=S, 4=NT;
  ``doubled`` 0 = undoubled, 1 = doubled, 2 = redoubled; ``vulnerable`` is the declaring
  side's vulnerability; ``tricks`` 0..13 is the total number of tricks declarer's side takes.
* `contract_score` returns the score of the DECLARING side (negative when the contract fails):
  trick score (20 per trick in minors, 30 in majors, NT 40 + 30, times 2 doubled, times 4
  redoubled), overtricks (trick value undoubled; 100/200 non-vul, 200/400 vul doubled/
  redoubled), undertricks (50/100 per trick undoubled; doubled non-vul 100, 300, 500, then +300
  each; doubled vul 200, 500, 800, then +300 each; redoubled twice doubled), the part-score bonus
  50, game bonus 300 non-vul / 500 vul (trick score >= 100), small slam 500/750 and grand slam
  1000/1500 on top of the game bonus, and the insult bonus 50 doubled / 100 redoubled.

Both the scalar `contract_score` and the vectorized `contract_score_array` read one lookup
table `SCORE_TABLE[level, strain, doubled, vulnerable, tricks]` of shape (8, 5, 3, 2, 14), built
once from `_score_formula`; the tests check the table against an independently written formula
and against OpenSpiel's `bridge` game.

IMPs: `imps(score_diff)` converts a score difference to International Match Points with the
standard 25-step scale (0-10: 0, 20-40: 1, ..., 3500-3990: 23, 4000+: 24); a difference counts
for step k once its absolute value reaches the step's lower bound (`IMP_THRESHOLDS`).
"""

from __future__ import annotations

import numpy as np

from ospiel_team import checks
from ospiel_team import errors

NUM_LEVELS = 8  # index 0 = passed out
NUM_STRAINS = 5
NUM_DOUBLED = 3
NUM_TRICKS = 14
STRAIN_NAMES = ("C", "D", "H", "S", "NT")

# Lower bounds of IMP steps 1..24 (a difference d gives #{t : |d| >= t} IMPs, with its sign).
IMP_THRESHOLDS = np.array([
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500,
    1750, 2000, 2250, 2500, 3000, 3500, 4000
], dtype=np.int64)
IMP_SCALE = 24.0  # the largest IMP swing: rewards are IMPs / IMP_SCALE, in [-1, 1]


def _score_formula(level: int, strain: int, doubled: int, vulnerable: bool, tricks: int) -> int:
  """Direct rule-by-rule duplicate score for the declaring side (no validation)."""
  if level == 0:
    return 0
  mult = (1, 2, 4)[doubled]
  per_trick = 20 if strain < 2 else 30
  needed = 6 + level
  if tricks >= needed:
    trick_score = (per_trick * level + (10 if strain == 4 else 0)) * mult
    score = trick_score
    score += (500 if vulnerable else 300) if trick_score >= 100 else 50
    if level == 6:
      score += 750 if vulnerable else 500
    elif level == 7:
      score += 1500 if vulnerable else 1000
    score += (0, 50, 100)[doubled]
    over = tricks - needed
    if doubled == 0:
      score += over * per_trick
    else:
      score += over * (200 if vulnerable else 100) * (mult // 2)
    return score
  down = needed - tricks
  if doubled == 0:
    return -down * (100 if vulnerable else 50)
  penalty = 0
  for k in range(1, down + 1):
    if k == 1:
      penalty += 200 if vulnerable else 100
    elif k <= 3:
      penalty += 300 if vulnerable else 200
    else:
      penalty += 300
  return -penalty * (mult // 2)


def _build_table() -> np.ndarray:
  table = np.zeros((NUM_LEVELS, NUM_STRAINS, NUM_DOUBLED, 2, NUM_TRICKS), dtype=np.int32)
  for level in range(NUM_LEVELS):
    for strain in range(NUM_STRAINS):
      for doubled in range(NUM_DOUBLED):
        for vul in range(2):
          for tricks in range(NUM_TRICKS):
            table[level, strain, doubled, vul, tricks] = _score_formula(
                level, strain, doubled, bool(vul), tricks)
  table.setflags(write=False)
  return table


SCORE_TABLE = _build_table()


def _check_range(name: str, value: np.ndarray, lo: int, hi: int) -> None:
  bad = (value < lo) | (value > hi)
  if np.any(bad):
    first = np.asarray(value)[bad].ravel()[0] if np.ndim(value) else value
    raise ValueError(f"{name} {first} out of range {lo}..{hi}")


def contract_score(level: int, strain: int, doubled: int, vulnerable: bool, tricks: int) -> int:
  """Duplicate score of the declaring side; see the module docstring for the conventions.

  Args:
    level: 1..7 (0: passed out).
    strain: 0..4 = C, D, H, S, NT.
    doubled: 0, 1 (doubled) or 2 (redoubled).
    vulnerable: the declaring side's vulnerability.
    tricks: 0..13, the tricks declarer's side takes.

  Returns:
    The declaring side's score (negative when the contract fails).
  """
  for name, v, top in (("level", level, 7), ("strain", strain, 4), ("doubled", doubled, 2),
                       ("tricks", tricks, 13)):
    checks.check_int(name, v, minimum=0, maximum=top)
  if not (checks.is_integer(vulnerable) or isinstance(vulnerable, (bool, np.bool_))) or (
      vulnerable not in (0, 1)):
    raise errors.UserError(f"vulnerable must be a bool, got {vulnerable!r}")
  return int(SCORE_TABLE[int(level), int(strain), int(doubled), int(bool(vulnerable)),
                         int(tricks)])


def contract_score_array(level, strain, doubled, vulnerable, tricks) -> np.ndarray:
  """Vectorized `contract_score` over equal-shape (or broadcastable) integer arrays -> int32.

  Args:
    level: levels 0..7.
    strain: strains 0..4.
    doubled: 0..2.
    vulnerable: 0/1 or bool.
    tricks: 0..13.

  Returns:
    The broadcast shape's int32 scores.
  """
  arrays = [np.asarray(a) for a in (level, strain, doubled, vulnerable, tricks)]
  names = ("level", "strain", "doubled", "vulnerable", "tricks")
  for name, a in zip(names, arrays, strict=True):
    if a.size and not (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
      raise ValueError(f"{name} must be an integer array, got dtype {a.dtype}")
  lv, st, db, vu, tr = arrays
  _check_range("level", lv, 0, 7)
  _check_range("strain", st, 0, 4)
  _check_range("doubled", db, 0, 2)
  _check_range("vulnerable", vu.astype(np.int64), 0, 1)
  _check_range("tricks", tr, 0, 13)
  return SCORE_TABLE[lv, st, db, vu.astype(np.intp), tr]


def imps_array(score_diff, xp=np):
  """Vectorized IMPs of score differences (sign kept), the same shape.

  Args:
    score_diff: score differences (any shape).
    xp: the array module, `numpy` (default: checks the input, returns int64) or `jax.numpy`
      (no checks, so that it traces under `jax.jit`; int32).

  Returns:
    The IMPs of each difference.

  Raises:
    ValueError: (numpy only) when the differences are not finite numbers.
  """
  if xp is np:
    d = np.asarray(score_diff)
    if d.size and not (np.issubdtype(d.dtype, np.integer)
                       or np.issubdtype(d.dtype, np.floating)):
      raise ValueError(f"score_diff must be numbers (score differences), got dtype {d.dtype}")
    if d.size and not np.all(np.isfinite(d)):
      raise ValueError("score_diff must be finite (score differences)")
  else:
    d = xp.asarray(score_diff, xp.int32)
  mag = xp.searchsorted(xp.asarray(IMP_THRESHOLDS), xp.abs(d), side="right")
  return xp.sign(d).astype(mag.dtype) * mag


def imps(score_diff) -> int:
  """IMPs for one score difference: 420 gives 9 IMPs, -50 gives -2.

  Args:
    score_diff: a score difference.

  Returns:
    The signed IMPs.

  Raises:
    errors.UserError: `score_diff` is not one finite number.
  """
  checks.check_real("score_diff", score_diff)
  return int(imps_array(np.asarray(score_diff)).item())


def duplicate_rewards(ns_scores, xp=np):
  """N-S rewards of paired tables: IMPs of (own N-S score - the other table's) / `IMP_SCALE`.

  Tables ``k`` and ``K + k`` bid the same deal; the reward lies in [-1, 1] and is zero-sum
  between the two tables of a deal. The numpy trainer and the JAX trainer both use it.

  Args:
    ns_scores: (2K,) N-S duplicate scores.
    xp: `numpy` (float64 result) or `jax.numpy` (float32; traceable).

  Returns:
    (2K,) rewards for North-South.

  Raises:
    errors.UserError: `xp` is neither numpy nor jax.numpy, or `ns_scores` holds no integers.
  """
  if xp is not np and getattr(xp, "__name__", None) != "jax.numpy":
    raise errors.UserError(f"xp must be numpy or jax.numpy, got {type(xp).__name__} {xp!r:.80}")
  try:
    s = xp.asarray(ns_scores, np.int64 if xp is np else xp.int32)
  except (TypeError, ValueError):
    raise errors.UserError(f"ns_scores must be an array of N-S scores (integers), got "
                           f"{type(ns_scores).__name__} {ns_scores!r:.80}") from None
  k = s.shape[0] // 2
  other = xp.concatenate([s[k:], s[:k]])
  return imps_array(s - other, xp=xp) / IMP_SCALE


def ns_score_array(level, strain, doubled, declarer, vulnerable, tricks, *, xp=np):
  """North-South's duplicate score of contracts: the declaring side's score, N-S's sign.

  No range checks (the inputs come from an auction): ``level`` 0 (passed out) scores 0.

  Args:
    level: the contracts' levels 1..7 (0: passed out), as `auction.contract` returns them.
    strain: their strains (same shape).
    doubled: 0 (undoubled), 1 (doubled) or 2 (redoubled).
    declarer: the declaring seat (0=N, 1=E, 2=S, 3=W).
    vulnerable: whether the declaring side is vulnerable (0/1 or bool).
    tricks: tricks the declaring side takes double-dummy.
    xp: `numpy` or `jax.numpy` (traceable).

  Returns:
    +score where North or South declares, -score where East or West does (int32).
  """
  score = xp.asarray(SCORE_TABLE)[level, strain, doubled, xp.asarray(vulnerable).astype(
      xp.int32), tricks]
  return xp.where((declarer & 1) == 0, score, -score)


def seat_returns(reward_ns, seat):
  """Each seat's return from its table's North-South reward: +reward to N-S, -reward to E-W.

  The one returns-by-seat of the package: the engine's and the pyspiel game's `returns`, and
  the numpy and JAX trainers' per-decision returns.

  Args:
    reward_ns: the N-S reward (or score) of each decision's table (numpy or jax array).
    seat: the seat of each decision (0 N, 1 E, 2 S, 3 W), broadcastable to `reward_ns`.

  Returns:
    `reward_ns` for North and South's decisions and `-reward_ns` for East and West's (an
    array of `reward_ns`'s kind; arithmetic only, so it traces under `jax.jit`).
  """
  return reward_ns * (1 - 2 * (seat % 2))


def contract_string(level: int, strain: int, doubled: int, declarer: int | None = None) -> str:
  """'3NT', '4SX', '2HXX by N'; 'Pass' for level 0.

  Args:
    level: 1..7 (0: passed out).
    strain: 0..4 = C, D, H, S, NT.
    doubled: 0, 1 or 2.
    declarer: the declaring seat 0..3 (None: not shown).

  Returns:
    The contract's text.
  """
  if level == 0:
    return "Pass"
  s = f"{level}{STRAIN_NAMES[strain]}" + ("", "X", "XX")[doubled]
  if declarer is not None:
    s += " by " + "NESW"[declarer]
  return s
