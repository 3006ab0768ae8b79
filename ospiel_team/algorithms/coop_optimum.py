"""Deprecated: `python -m ospiel_team.algorithms.coop_optimum`.

Runs the command line `ospiel_team.cli.coop_optimum`
(installed as `ospiel-team-coop-optimum`).
Kept for one release so that existing scripts keep working.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import coop_optimum as _cli

  warnings.warn("python -m ospiel_team.algorithms.coop_optimum is deprecated; "
                "use ospiel-team-coop-optimum", DeprecationWarning, stacklevel=1)
  _cli.run()
