"""Why 21K12 has no belief DAG: its size, counted by hand and checked against the build.

In team_kuhn(players=3, ranks=r) with team {0, 1}, after player 0 checks, player 1 checks and
player 2 bets, player 0 responds. The team's belief there is the set R of (c0, c1) card pairs
still possible: c0 in C (the cards on which player 0's plan checked), c1 in D (player 1's),
c0 != c1; its prescriptions are player 0's call/fold choices on the cards c0 that R meets.
Counting the distinct R and their prescriptions by hand gives the DAG's edges at that public
state, which the decomposition must match (it is built a different way: by propagating reach
sets through the team tree). The pairs with |C| >= 2 and |D| >= 2 alone give distinct R with
2^|C| prescriptions each, so the state has at least (3^r - 1 - 2r)(2^r - 1 - r) edges: for
r = 12, 2,169,771,528 (> the 20M cap; at >= 40 bytes per edge for the DAG's float arrays,
> 80 GB), whatever the representation of the build's intermediate arrays.
"""

import pytest

import ospiel_team  # noqa: F401
from ospiel_team.lp.decomposition import TeamDecomposition
from ospiel_team.tree import teams as teams_lib


def _response_state_by_hand(r: int):
  """(number of distinct beliefs R, total prescriptions) at player 0's response state."""
  seen = set()
  total = 0
  for c in range(1, 1 << r):
    for d in range(1, 1 << r):
      # c0 is in R iff some c1 in D differs from it; c1 likewise.
      c_on = sum(1 << k for k in range(r) if c >> k & 1 and d & ~(1 << k))
      d_on = sum(1 << k for k in range(r) if d >> k & 1 and c & ~(1 << k))
      if c_on and (c_on, d_on) not in seen:
        seen.add((c_on, d_on))
        total += 2 ** bin(c_on).count("1")
  return len(seen), total


def _lower_bound(r: int) -> int:
  return (3**r - 1 - 2 * r) * (2**r - 1 - r)


@pytest.mark.parametrize("ranks", [3, 4, 5])
def test_largest_public_state_matches_the_hand_count(ranks):
  tree, teams = teams_lib.check_assumptions(f"team_kuhn(players=3,ranks={ranks})", "0,1|2")
  dec = TeamDecomposition(tree, teams.teams[0])
  big = max(dec.states, key=lambda st: len(st.local_set))
  sets, edges = _response_state_by_hand(ranks)
  assert (big.num_sets, len(big.local_set)) == (sets, edges)
  assert edges >= _lower_bound(ranks)

