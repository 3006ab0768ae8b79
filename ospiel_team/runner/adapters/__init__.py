"""Runner solver adapters: `openspiel` wraps OpenSpiel's solvers, `ours` this package's.

Each adapter is a generator function registered with `@api.solver(...)`; importing
`ospiel_team.runner.registry` imports both modules and so registers every solver.
"""
