"""Deprecated: `python -m ospiel_team.algorithms.team_lp`.

Runs the command line `ospiel_team.cli.team_solve`
(installed as `ospiel-team-solve`).
Kept for one release so that existing scripts keep working.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import team_solve as _cli

  warnings.warn("python -m ospiel_team.algorithms.team_lp is deprecated; "
                "use ospiel-team-solve", DeprecationWarning, stacklevel=1)
  _cli.run()
