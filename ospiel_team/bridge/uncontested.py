"""Deprecated entry point: `python -m ospiel_team.bridge.uncontested` runs `ospiel-team-uncontested`.

Kept for one release so that existing scripts keep working; the module moved to
`ospiel_team.bridge.agents.uncontested` and its command line to `ospiel_team.cli.uncontested`.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import uncontested as _cli

  warnings.warn("python -m ospiel_team.bridge.uncontested is deprecated; use ospiel-team-uncontested",
                DeprecationWarning, stacklevel=1)
  _cli.run()
