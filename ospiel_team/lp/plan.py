"""A team's correlated plan on its tree decomposition: sampling, marginals, pure strategies.

Zhang & Sandholm, "Team Correlated Equilibria in Zero-Sum Extensive-Form Games via Tree
Decompositions", AAAI 2022 (arXiv:2109.05284). A point lambda of the polytope of
`decomposition.TeamDecomposition` (one local distribution lambda_S(R, .) per public state S and
reachable set R, Appendix C) is a correlated plan of the team: the polytope is the convex hull of
the team's joint pure plans (Prop. 2.9), and a joint pure strategy distributed as the plan is
drawn top-down over the decomposition, junction-tree style (`TeamPlan.sample_pure_strategy`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ospiel_team.lp.decomposition import TeamDecomposition


@dataclasses.dataclass
class TeamPlan:
  """A team's correlated plan: one local distribution per public state (Prop. 2.9).

  Attributes:
    decomposition: the team's `TeamDecomposition`.
    lam: [num_local] lambda_S(R, A), a point of the decomposition's polytope (D lam = d,
      lam >= 0; Appendix C).
  """
  decomposition: TeamDecomposition
  lam: np.ndarray  # [num_local] lambda_S(R, A)

  @property
  def members(self):
    """The team's players."""
    return self.decomposition.members

  def terminal_reach(self) -> np.ndarray:
    """[num_terminals] probability that the team plays to each terminal (x[z]).

    Returns:
      [num_terminals] x[z], the plan value at every terminal.
    """
    return self.decomposition.terminal_reach(self.lam)

  def constraint_violation(self) -> float:
    """Max violation of C.2/root rows and of lambda >= 0.

    Returns:
      The largest absolute residual of D lambda = d, or of lambda's most negative entry if larger.
    """
    d_mat, rhs = self.decomposition.constraint_system()
    res = np.abs(d_mat @ self.lam - rhs).max(initial=0.0)
    return float(max(res, -self.lam.min(initial=0.0)))

  def sample_pure_strategy(self, rng: np.random.Generator | int | None = None,
                           greedy: bool = False) -> dict[int, int]:
    """Samples a joint pure strategy of the team: {infoset: action} for every team infoset.

    Top-down over the decomposition: at each public state, the reachable set R is fixed by the
    anchor's sampled local solution, and A is drawn from lambda_S(R, .) / sum_A lambda_S(R, A)
    (junction-tree sampling); each local solution is thus drawn with probability lambda.
    Infosets the sampled strategy never reaches get their first legal action.

    Args:
      rng: a numpy Generator or seed (None: fresh entropy).
      greedy: take the most likely A instead of sampling (a pure strategy in the plan's
        support).

    Returns:
      {infoset: action} for every infoset of the team's members.
    """
    rng = np.random.default_rng(rng)
    dec = self.decomposition
    tree = dec.tree
    chosen = np.full(len(dec.states), -1, dtype=np.int64)  # local solution sampled per state
    strategy: dict[int, int] = {}
    for st in dec.states:
      if st.anchor < 0:
        r = 0
      else:
        j = chosen[st.anchor]
        if j < 0:
          continue
        r = st.parent_to_set[j]
        if r < 0:
          continue
      cand = np.nonzero(st.local_set == r)[0]
      w = np.maximum(self.lam[st.offset + cand], 0.0)
      total = w.sum()
      if greedy or total <= 1e-12:
        k = cand[int(np.argmax(w))]
      else:
        k = cand[rng.choice(len(cand), p=w / total)]
      chosen[st.index] = k
      acts = st.actions[k]
      for i, a in zip(st.infosets, acts, strict=True):
        if a >= 0:
          strategy[int(i)] = int(a)
    for i in np.nonzero(np.isin(tree.infoset_player, dec.members))[0]:
      if int(i) not in strategy:
        strategy[int(i)] = int(np.nonzero(tree.infoset_legal[i])[0][0])
    return strategy

  def marginal_policy_array(self, base: np.ndarray | None = None) -> np.ndarray:
    """Each member's behaviour strategy induced by the plan (P(a | infoset reached)).

    Exact (Kuhn's theorem) for a team of one player; for several players it drops the
    correlation between teammates.

    Args:
      base: the policy array whose rows the team's reached infosets overwrite (None: uniform);
        infosets the plan never reaches keep it.

    Returns:
      [num_infosets, num_actions] the policy array.
    """
    dec = self.decomposition
    tree = dec.tree
    pi = tree.uniform_policy_array() if base is None else np.array(base, dtype=np.float64)
    mass = np.zeros((tree.num_infosets, tree.num_actions))
    for st in dec.states:
      lam = np.maximum(self.lam[st.offset:st.offset + len(st.local_set)], 0.0)
      for k, info in enumerate(st.infosets):
        a = st.actions[:, k]
        ok = a >= 0
        np.add.at(mass[info], a[ok], lam[ok])
    total = mass.sum(axis=1)
    rows = np.nonzero(total > 1e-12)[0]
    pi[rows] = mass[rows] / total[rows, None]
    return pi

  def sample_policy_array(self, base: np.ndarray | None = None,
                          rng: np.random.Generator | int | None = None,
                          greedy: bool = False) -> np.ndarray:
    """A policy array with the team's rows set to a sampled joint pure strategy.

    Args:
      base: the policy array whose team rows are overwritten (None: uniform).
      rng: a numpy Generator or seed, as for `sample_pure_strategy`.
      greedy: as for `sample_pure_strategy`.

    Returns:
      [num_infosets, num_actions] the policy array, one-hot at the team's infosets the sampled
        strategy plays.
    """
    tree = self.decomposition.tree
    pi = tree.uniform_policy_array() if base is None else np.array(base, dtype=np.float64)
    for i, a in self.sample_pure_strategy(rng, greedy=greedy).items():
      pi[i] = 0.0
      pi[i, a] = 1.0
    return pi

  def pure_strategy_distribution(self, max_support: int = 100_000):
    """Exact distribution over the joint pure strategies the plan samples (small games only).

    Args:
      max_support: raise ValueError past this many pure strategies in the support.

    Returns:
      A list of (probability, {infoset: action}) restricted to reached infosets, most likely
      first.
    """
    dec = self.decomposition
    partial = [(1.0, {}, {})]  # (prob, strategy, chosen local solution per state)
    for st in dec.states:
      partial = [entry for prob, strat, chosen in partial
                 for entry in self._branches(st, prob, strat, chosen)]
      if len(partial) > max_support:
        raise ValueError(f"more than max_support={max_support} pure strategies in the support")
    merged: dict[tuple, float] = {}
    for prob, strat, _ in partial:
      key = tuple(sorted(strat.items()))
      merged[key] = merged.get(key, 0.0) + prob
    return sorted(((p, dict(k)) for k, p in merged.items()), key=lambda t: -t[0])

  def _branches(self, st, prob: float, strat: dict[int, int], chosen: dict[int, int]
                ) -> list[tuple[float, dict[int, int], dict[int, int]]]:
    """The partial strategies that extend (prob, strat, chosen) at public state `st`.

    `chosen` maps each state's index to its chosen local solution; a state whose anchor's
    choice leaves it unreached keeps the entry as it is.
    """
    if st.anchor < 0:
      r = 0
    else:
      j = chosen.get(st.anchor, -1)
      r = st.parent_to_set[j] if j >= 0 else -1
    if r < 0:
      return [(prob, strat, chosen)]
    cand = np.nonzero(st.local_set == r)[0]
    w = np.maximum(self.lam[st.offset + cand], 0.0)
    total = w.sum()
    if total <= 1e-12:
      w = np.zeros(len(cand))
      w[0] = 1.0
      total = 1.0
    out = []
    for k, wk in zip(cand, w / total, strict=True):
      if wk <= 1e-12:
        continue
      s2 = dict(strat)
      for i, a in zip(st.infosets, st.actions[k], strict=True):
        if a >= 0:
          s2[int(i)] = int(a)
      c2 = dict(chosen)
      c2[st.index] = int(k)
      out.append((prob * wk, s2, c2))
    return out
