"""Algorithms on the array game tree.

`nash` (CFR family, Exploitability Descent), `coop` (Joint Policy Search, cooperative optima) and
`team` (team-correlated equilibria).
"""

from ospiel_team import _exports

_PUBLIC = {
    "coop": "ospiel_team.algorithms.coop",
    "nash": "ospiel_team.algorithms.nash",
    "team": "ospiel_team.algorithms.team",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
