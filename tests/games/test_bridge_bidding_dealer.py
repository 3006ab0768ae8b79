"""bridge_bidding's dealer parameter: what the messages promise is what is accepted."""

import pyspiel
import pytest

import ospiel_team  # noqa: F401  #  (registers the games)
from ospiel_team.games import bridge_bidding
from ospiel_team.tree.game_support import min_terminal_histories


def test_dealer_messages_promise_only_what_is_accepted():
  # pyspiel type-checks parameters against the string default: an int is refused before the
  # game sees it, so neither the docs nor the error may offer 0..3.
  with pytest.raises(pyspiel.SpielError, match="Expected type: kString"):
    pyspiel.load_game("bridge_bidding(dealer=0)")
  assert "``0``..``3``" not in bridge_bidding.__doc__
  with pytest.raises(ValueError, match=r"dealer 'X' is not one of N, E, S, W or random$"):
    pyspiel.load_game("bridge_bidding(dealer=X)")
  for name, seat in (("N", 0), ("E", 1), ("S", 2), ("W", 3)):
    state = pyspiel.load_game(f"bridge_bidding(dealer={name})").new_initial_state()
    state.apply_action(0)  # the deal (dataset deal 0)
    assert state.current_player() == seat


def test_bridge_states_a_lower_bound_on_its_size():
  # 2^35 increasing subsets of the 35 bids per deal: GameTree refuses it before walking.
  assert min_terminal_histories(pyspiel.load_game("bridge_bidding")) == 2 ** 35
