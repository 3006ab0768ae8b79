"""Runner solver adapters: `openspiel` wraps OpenSpiel's solvers, `ours` this package's.

Each adapter is a generator function registered with `@api.solver(...)`; importing
`ospiel_team.runner.registry` imports both modules and so registers every solver. A new
adapter module goes here and is imported by `registry`.
"""

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.runner.adapters import openspiel as openspiel
  from ospiel_team.runner.adapters import ours as ours

_PUBLIC = {
    "openspiel": "ospiel_team.runner.adapters.openspiel",
    "ours": "ospiel_team.runner.adapters.ours",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
