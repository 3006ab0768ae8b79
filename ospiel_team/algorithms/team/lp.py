"""Deprecated name of `ospiel_team.algorithms.team.team_lp` (the tree-decomposition team LP).

The team LP module was renamed so that one name, `ospiel_team.lp`, means one thing (the team
polytope pieces and the HiGHS wrapper). Importing this module warns (DeprecationWarning) and
gives `team_lp`'s names; import `ospiel_team.algorithms.team.team_lp` instead.
"""

import warnings

from ospiel_team.algorithms.team import team_lp as _team_lp

warnings.warn("ospiel_team.algorithms.team.lp is deprecated: import "
              "ospiel_team.algorithms.team.team_lp", DeprecationWarning, stacklevel=2)


def __getattr__(name: str) -> object:  # PEP 562: every name of team_lp
  return getattr(_team_lp, name)
