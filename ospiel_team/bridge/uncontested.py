"""Deprecated: `python -m ospiel_team.bridge.uncontested`.

Runs the command line `ospiel_team.cli.uncontested`
(installed as `ospiel-team-uncontested`).
Kept for one release so that existing scripts keep working.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import uncontested as _cli

  warnings.warn("python -m ospiel_team.bridge.uncontested is deprecated; "
                "use ospiel-team-uncontested", DeprecationWarning, stacklevel=1)
  _cli.run()
