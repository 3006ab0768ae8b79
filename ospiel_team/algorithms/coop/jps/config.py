"""The options of Joint Policy Search, validated once.

Tian, Gong, Jiang, "Joint Policy Search for Multi-agent Collaboration with Imperfect
Information", NeurIPS 2020, arXiv:2008.06495: D (the depth of Algorithm 1), k and T of the
sample-based variant (Sec. 6), and the schedules of the JPS-Main loop (Algorithm 1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ospiel_team import checks
from ospiel_team.errors import UserError

SAMPLE_BY = ("uniform", "reach")
TIE_BREAKS = ("first", "random")
SCHEDULES = ("passes", "reference")
DEFAULT_SAMPLED_ITERATIONS = 100  # T of sampled JPS (Sec. 6) and the authors' `--iter`
# The most iterations of exact JPS (the "passes" schedule) when `max_iterations` is None. Exact
# JPS stops after a pass without an improvement, which Theorem 2 guarantees (every applied
# change gains more than `improvement_tol`, and the value is bounded); the limit only stops a
# run that would not end (a broken acceptance rule), and `JPSResult.stopped_by` says so.
DEFAULT_EXACT_ITERATIONS = 10_000


@dataclasses.dataclass(frozen=True, kw_only=True)
class JPSConfig:
  """The options of `JointPolicySearch`, checked on construction.

  Integers may be Python or numpy integers (not bools, not floats such as 1.0); numbers must
  be finite. A bad value raises `UserError` (a ValueError) naming the option and the value.

  Attributes:
    team: the players whose policies JPS changes (None: all players, which requires a
      common-payoff game). Stored sorted. The objective is the team's mean return.
    depth: D, the most active infosets in a chain (Algorithm 1; None: to the end of the game).
      D=3 means chains I1 -> I2 -> I3 (the text of Sec. 5.1 and 7.3; Algorithm 1's `d >= D`
      test with d starting at 1 would allow only D-1).
    samples: k of sampled JPS (Sec. 6; None: exact JPS).
    sample_by: "uniform" (histories of an infoset equally likely) or "reach" (proportional
      to their current reach, uniform where the infoset is unreached).
    seed: seeds the order of starting depths, the samples and random tie-breaks: an int >= 0,
      or None for a seed that `JointPolicySearch` draws from the operating system's entropy
      and records in its config.
    max_iterations: T, the most iterations (searches); None: `DEFAULT_EXACT_ITERATIONS` for
      exact JPS with the "passes" schedule, else 100 (`iteration_limit`).
    stop_on_quiet_pass: stop when a pass over the starting depths finds no improvement above
      `improvement_tol` (exact) or applies no change (sampled). None: True for exact JPS,
      False for sampled JPS, whose samples change every iteration (`stops_on_quiet_pass`).
    improvement_tol: a change is applied only if its predicted gain exceeds this.
    start_depths: the starting depths (team decision depth: team decisions before the
      infoset) to search from; None: all.
    verify: re-evaluate every candidate of every search by brute force and check that it
      equals the Theorem 1 prediction (exact JPS only; one full evaluation per candidate).
    verify_atol: tolerance of that check.
    max_rows: refuse searches that would touch more (chain, history) pairs than this.
    progress: show a progress bar (the "passes" schedule).
    tie_break: "first": the first chain of maximal predicted gain is applied, if its gain
      exceeds `improvement_tol`. "random" (the authors' code, facebookresearch/jps
      `simple_game/search.h`, `Solver::runSearch`): a uniformly random candidate of maximal
      predicted gain ("no change" included), applied with a depth D even at gain 0.
    schedule: "passes": passes over the starting depths in a seeded random order until a quiet
      pass. "reference" (the authors' `runSearch`): with a depth D, starting depths are popped
      from a seeded shuffled list, reshuffled after every step gaining more than 1e-4, until
      it runs out; without a depth, every iteration searches from the first starting depth
      and JPS stops at the first search without gain. Exact JPS only.
    structure_budget: the searches' policy-independent index arrays are computed once per
      starting depth and reused while they hold at most this many entries in all (0: compute
      them in every search). The results are the same either way.
  """
  team: tuple[int, ...] | None = None
  depth: int | None = None
  samples: int | None = None
  sample_by: str = "uniform"
  seed: int | None = 0
  max_iterations: int | None = None
  stop_on_quiet_pass: bool | None = None
  improvement_tol: float = 1e-9
  start_depths: tuple[int, ...] | None = None
  verify: bool = False
  verify_atol: float = 1e-9
  max_rows: int = 200_000_000
  progress: bool = False
  tie_break: str = "first"
  schedule: str = "passes"
  structure_budget: int = 30_000_000

  def __post_init__(self):
    team = self.team
    if team is not None:
      if isinstance(team, (str, bytes)) or not isinstance(team, (Sequence, np.ndarray)):
        raise UserError(f"team must be a sequence of player ids, got {team!r}")
      bad = next((p for p in team if not checks.is_integer(p)), None)
      if bad is not None:
        raise UserError(f"team={list(team)!r}: player {bad!r} is not an int")
      team = [int(p) for p in team]
      if not team or len(set(team)) != len(team) or min(team) < 0:
        raise UserError(f"team={team} must be distinct player ids (at least one)")
      team = tuple(sorted(team))
    values = dict(
        team=team, depth=checks.check_int("depth", self.depth, minimum=1, allow_none=True),
        samples=checks.check_int("samples", self.samples, minimum=1, allow_none=True),
        sample_by=checks.check_choice("sample_by", self.sample_by, SAMPLE_BY),
        seed=checks.check_int("seed", self.seed, minimum=0, allow_none=True),
        max_iterations=checks.check_int("max_iterations", self.max_iterations, minimum=0,
                                        allow_none=True),
        stop_on_quiet_pass=checks.check_bool("stop_on_quiet_pass", self.stop_on_quiet_pass,
                                             allow_none=True),
        improvement_tol=checks.check_real("improvement_tol", self.improvement_tol, minimum=0),
        start_depths=checks.check_int_sequence("start_depths", self.start_depths, minimum=0,
                                               what="team decision depths", allow_none=True),
        verify=checks.check_bool("verify", self.verify),
        verify_atol=checks.check_real("verify_atol", self.verify_atol, minimum=0),
        max_rows=checks.check_int("max_rows", self.max_rows, minimum=1),
        progress=checks.check_bool("progress", self.progress),
        tie_break=checks.check_choice("tie_break", self.tie_break, TIE_BREAKS),
        schedule=checks.check_choice("schedule", self.schedule, SCHEDULES),
        structure_budget=checks.check_int("structure_budget", self.structure_budget,
                                          minimum=0))
    for name, value in values.items():
      object.__setattr__(self, name, value)
    if self.verify and self.samples is not None:
      raise UserError("verify=True checks Theorem 1, which sampled JPS does not compute")
    if self.schedule == "reference" and self.samples is not None:
      raise UserError("schedule='reference' is the authors' exact JPS; sampled JPS "
                      f"(samples={self.samples}) uses schedule='passes'")

  @property
  def iteration_limit(self) -> int:
    """The most iterations JPS runs.

    `max_iterations`, or when it is None: 100 for sampled JPS and the reference schedule (as
    the paper's T and the authors' `--iter`), `DEFAULT_EXACT_ITERATIONS` for exact JPS.
    """
    if self.max_iterations is not None:
      return self.max_iterations
    if self.samples is not None or self.schedule == "reference":
      return DEFAULT_SAMPLED_ITERATIONS
    return DEFAULT_EXACT_ITERATIONS

  @property
  def stops_on_quiet_pass(self) -> bool:
    """`stop_on_quiet_pass`, or whether JPS is exact when it is None."""
    if self.stop_on_quiet_pass is None:
      return self.samples is None
    return self.stop_on_quiet_pass
