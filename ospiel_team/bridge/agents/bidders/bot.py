"""Bridge bidders as OpenSpiel bots (`pyspiel.Bot`) for the `bridge_bidding` game.

Any bidder (`base.Bidder`; by name from `registry.make_bidder`: a built-in one, a shipped
model such as ``best``, the JPS authors' models, a model file, a ``search:`` bidder) plays a
seat of ``pyspiel.load_game("bridge_bidding")`` through OpenSpiel's bot interface, e.g. with
`open_spiel.python.algorithms.evaluate_bots`::

  import numpy as np
  import pyspiel
  import ospiel_team  # registers bridge_bidding
  from open_spiel.python.algorithms import evaluate_bots
  from ospiel_team.bridge.agents.bidders import bot

  game = pyspiel.load_game("bridge_bidding")
  bots = [bot.load_bot("best", seat) for seat in range(4)]
  returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random)

The bot asks the bidder as a duplicate match does (``act_auction``): the state's auction and
the bot's own hand only (the other seats' cards are not passed); a bidder that reads the
observation sees ``state.observation_tensor(seat)``'s 267 bits (JPS Appendix D). It returns a
call id, which is the game's action id.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ospiel_team import checks
from ospiel_team.bridge.agents.bidders import base
from ospiel_team.bridge.agents.bidders import registry


class BidderBot(pyspiel.Bot):
  """A `pyspiel.Bot` that bids with a batched bidder (`base.Bidder`) for one seat.

  Args:
    bidder: a `base.Bidder`.
    player_id: the seat the bot plays (0=N, 1=E, 2=S, 3=W).
    seed: seed of the uniforms handed to a sampling bidder (greedy bidders ignore them).

  Raises:
    errors.UserError: not a bidder (`bidders.base.Bidder`), or a seat other than 0-3.
  """

  def __init__(self, bidder, player_id: int, seed: int | None = None):
    pyspiel.Bot.__init__(self)
    checks.check_type("bidder", bidder, base.Bidder, "a bidder (bidders.base.Bidder)")
    player_id = checks.check_int("player_id (0, 1, 2, 3: N, E, S, W)", player_id, minimum=0,
                                 maximum=3)
    checks.check_int("seed", seed, minimum=0, allow_none=True)
    self.bidder = bidder
    self.player_id = player_id
    self._rng = np.random.default_rng(seed)

  def restart_at(self, state) -> None:
    """Nothing to reset: the bidders keep no state between calls."""
    del state  # the bidders keep no state between calls

  def inform_action(self, state, player_id, action) -> None:
    """Ignores the action: the bidder reads the whole auction from the state."""
    del state, player_id, action

  def step(self, state) -> int:
    """The bidder's call for this bot's seat at `state`; ValueError at another seat's turn."""
    if state.current_player() != self.player_id:
      raise ValueError(f"bot of seat {self.player_id} asked to act at seat "
                       f"{state.current_player()}")
    own_hand = np.zeros_like(state.tables.hands)
    own_hand[0, self.player_id] = state.tables.hands[0, self.player_id]
    call = int(self.bidder.act_auction(state.auction, own_hand, np.zeros(1, np.int64),
                                       self._rng.random(1))[0])
    legal = state.legal_actions(self.player_id)
    if call not in legal:  # a bidder bug, not a user error: keep the traceback
      raise RuntimeError(f"bidder {self.bidder.name!r} chose illegal call {call} (legal: "
                         f"{legal})")
    return call


def load_bot(name: str = "best", player_id: int = 0, *, seed: int | None = None,
             greedy: bool = True, reference_dir: str | None = None) -> BidderBot:
  """A `BidderBot` for a bidder name or model path (see `registry.make_bidder`).

  Args:
    name: ``best`` (the strongest shipped model), another shipped model, ``natural``,
      ``pass``, ``random``, ``jps_paper_*`` (with `reference_dir`) or a model file path.
    player_id: the seat the bot plays (0=N, 1=E, 2=S, 3=W).
    seed: seed of the uniforms of a sampling bidder.
    greedy: model bidders bid their most probable legal call (the JPS paper's evaluation).
    reference_dir: folder of the JPS authors' models (only for ``jps_paper_*``).
  """
  checks.check_int("player_id (0, 1, 2, 3: N, E, S, W)", player_id, minimum=0, maximum=3)
  checks.check_int("seed", seed, minimum=0, allow_none=True)
  bidder = registry.make_bidder(name, reference_dir=reference_dir, greedy=greedy)
  return BidderBot(bidder, player_id, seed=seed)
