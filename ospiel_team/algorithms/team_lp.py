"""Deprecated entry point: `python -m ospiel_team.algorithms.team_lp` runs `ospiel_team.cli.team_solve`.

Kept for one release so that existing scripts keep working; use `ospiel-team-solve` instead.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import team_solve as _cli

  warnings.warn("python -m ospiel_team.algorithms.team_lp is deprecated; use ospiel-team-solve", DeprecationWarning, stacklevel=1)
  _cli.run()
