"""Deprecated: `python -m ospiel_team.bridge.match`.

Runs the command line `ospiel_team.cli.match`
(installed as `ospiel-team-match`).
Kept for one release so that existing scripts keep working.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import match as _cli

  warnings.warn("python -m ospiel_team.bridge.match is deprecated; "
                "use ospiel-team-match", DeprecationWarning, stacklevel=1)
  _cli.run()
