"""Deprecated entry point: `python -m ospiel_team.bridge.make_dataset` runs `ospiel-team-make-dataset`.

Kept for one release so that existing scripts keep working; the builder moved to
`ospiel_team.bridge.dataset_builder` and its command line to `ospiel_team.cli.make_dataset`.
"""

if __name__ == "__main__":
  import warnings

  from ospiel_team.cli import make_dataset as _cli

  warnings.warn("python -m ospiel_team.bridge.make_dataset is deprecated; use "
                "ospiel-team-make-dataset", DeprecationWarning, stacklevel=1)
  _cli.run()
