"""Deprecated entry point: `python -m ospiel_team.bridge.match` runs `ospiel-team-match`.

Kept for one release so that existing scripts keep working; the module moved to
`ospiel_team.bridge.agents.match` and its command line to `ospiel_team.cli.match`.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import match as _cli

  warnings.warn("python -m ospiel_team.bridge.match is deprecated; use ospiel-team-match",
                DeprecationWarning, stacklevel=1)
  _cli.run()
