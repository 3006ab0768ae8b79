"""`python -m ospiel_team.compare`: the comparison runner's command line.

The same command is installed as `ospiel-team-compare`; it lives in `ospiel_team.cli.compare`.
"""

if __name__ == "__main__":
  from ospiel_team.cli import compare as _cli

  _cli.run()
