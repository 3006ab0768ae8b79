"""Deprecated: `python -m ospiel_team.bridge.make_dataset`.

Runs the command line `ospiel_team.cli.make_dataset`
(installed as `ospiel-team-make-dataset`).
Kept for one release so that existing scripts keep working.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import make_dataset as _cli

  warnings.warn("python -m ospiel_team.bridge.make_dataset is deprecated; "
                "use ospiel-team-make-dataset", DeprecationWarning, stacklevel=1)
  _cli.run()
