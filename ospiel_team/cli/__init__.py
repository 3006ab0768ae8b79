"""The command lines, installed as console scripts (flags, checks and printing only).

`ospiel-team-compare` (`compare`), `ospiel-team-solve` (`team_solve`), `ospiel-team-coop-optimum`
(`coop_optimum`), `ospiel-team-match` (`match`), `ospiel-team-make-dataset` (`make_dataset`),
`ospiel-team-uncontested` (`uncontested`) and `ospiel-team-train-bridge` (`train_bridge`). Each
module's `main(argv) -> int` runs the command in this process (its own `flags.FlagValues`);
`run()` is the console script. Their Python API is the packages they call.
"""

__all__: list[str] = []
