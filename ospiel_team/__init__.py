"""ospiel_team: team and cooperative imperfect-information games and solvers for OpenSpiel.

Importing this package registers every game it defines with pyspiel, so that
`pyspiel.load_game("mini_bridge(size=4)")` works after `import ospiel_team`.

Subpackages, each naming its public API in `__all__`: `games`, `tree` (the array game tree),
`lp` (team polytope pieces, HiGHS), `algorithms.nash`, `algorithms.coop`, `algorithms.team`,
`runner` (the comparison runner), `bridge` (rules and data) and `bridge.agents`; the package's
exceptions are in `errors`; the command lines are in `cli`.
"""
from ospiel_team import _jax_logging

_jax_logging.hide_missing_tpu_note()  # before anything starts JAX

from ospiel_team import errors  # noqa: E402
from ospiel_team import games  # noqa: E402  (registers the games)

__all__ = ["errors", "games"]

__version__ = "0.1.0"
