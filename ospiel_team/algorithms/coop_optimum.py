"""Deprecated entry point: `python -m ospiel_team.algorithms.coop_optimum` runs `ospiel_team.cli.coop_optimum`.

Kept for one release so that existing scripts keep working; use `ospiel-team-coop-optimum` instead.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import coop_optimum as _cli

  warnings.warn("python -m ospiel_team.algorithms.coop_optimum is deprecated; use ospiel-team-coop-optimum", DeprecationWarning, stacklevel=1)
  _cli.run()
