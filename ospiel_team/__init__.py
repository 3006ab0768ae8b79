"""ospiel_team: team and cooperative imperfect-information games and solvers for OpenSpiel.

Importing this package registers every game it defines with pyspiel, so that
`pyspiel.load_game("mini_bridge(size=4)")` works after `import ospiel_team`.
"""
from ospiel_team import _jax_logging

_jax_logging.hide_missing_tpu_note()  # before anything starts JAX

from ospiel_team import games  # noqa: E402,F401  (registers the games)

__version__ = "0.1.0"
