"""Games of ospiel_team; importing this package registers each one with pyspiel.

One module per game family; each module calls `pyspiel.register_game` at import.
"""
# Each line registers one game family (keep one import per module).
from ospiel_team.games import bridge_bidding  # noqa: F401
from ospiel_team.games import comm  # noqa: F401
from ospiel_team.games import mini_bridge  # noqa: F401
from ospiel_team.games import simple_bidding  # noqa: F401
from ospiel_team.games import team_goofspiel  # noqa: F401
from ospiel_team.games import team_kuhn  # noqa: F401
from ospiel_team.games import team_leduc  # noqa: F401
from ospiel_team.games import team_liars_dice  # noqa: F401

__all__ = ["comm", "simple_bidding", "mini_bridge", "team_kuhn", "team_leduc", "team_liars_dice",
           "team_goofspiel", "bridge_bidding"]
