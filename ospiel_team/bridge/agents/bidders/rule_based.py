"""The rule-based bridge bidders: pass-only, random-legal and a simple natural (human-style) one.

Each is a `base.ObservationBidder`: it sees only the 267-bit observation (its own hand, the
bids of each relative seat, the doubled bids, the vulnerability and the legal calls). A
bidder by name, these or any other, comes from `registry.make_bidder`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ospiel_team.bridge import auction as A
from ospiel_team.bridge.agents.bidders import base

# HCP of each card index (card = rank * 4 + suit): J=1, Q=2, K=3, A=4.
_CARD_HCP = np.clip(np.arange(A.NUM_CARDS) // 4 - 8, 0, 4).astype(np.int64)
_SUIT_OF_CARD = np.arange(A.NUM_CARDS) % 4
_NT = 4
_NO_BID = 99  # "no bid" index, larger than any bid index 0..34


def legal_calls(observations: np.ndarray) -> np.ndarray:
  """(n, 38) bool legal-call bits of observations."""
  return np.asarray(observations)[:, A.OBS_LEGAL:] > 0.5


def sample_legal(legal: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
  """A uniformly random legal call per row, by inverse CDF of `uniforms` (n,)."""
  counts = np.cumsum(legal, axis=1)
  n = counts[:, -1]
  if np.any(n == 0):
    raise ValueError(f"row {int(np.flatnonzero(n == 0)[0])} has no legal call")
  k = np.minimum((np.asarray(uniforms) * n).astype(np.int64), n - 1)
  return (counts <= k[:, None]).sum(axis=1)


class PassBidder(base.ObservationBidder):
  """Always passes (Pass is always legal)."""

  name = "pass"

  def act(self, observations: np.ndarray, uniforms: np.ndarray | None) -> np.ndarray:
    """Passes at every table: call 0 for each row of `observations`."""
    del uniforms
    return np.zeros(len(observations), np.int64)


class RandomBidder(base.ObservationBidder):
  """A uniformly random legal call."""

  name = "random"

  def act(self, observations: np.ndarray, uniforms: np.ndarray | None) -> np.ndarray:
    """A legal call per row, drawn uniformly with the row's number in `uniforms`.

    Raises:
      ValueError: `uniforms` is None (this bidder has no deterministic choice).
    """
    if uniforms is None:
      raise ValueError("the random bidder draws its calls with the uniforms: got uniforms=None")
    return sample_legal(legal_calls(observations), uniforms)


def _lowest(bits: np.ndarray) -> np.ndarray:
  """(n, 35) bool -> (n,) lowest set bid index, `_NO_BID` if none."""
  return np.where(bits.any(axis=1), bits.argmax(axis=1), _NO_BID)


def _call(level, strain) -> np.ndarray:
  """Call id of bid (level, strain), vectorized; -1 where level is outside 1..7."""
  level = np.asarray(level)
  c = A.FIRST_BID + (level - 1) * A.NUM_STRAINS + np.asarray(strain)
  return np.where((level >= 1) & (level <= 7), c, -1)


def _cheapest_level(highest_bid: np.ndarray, strain) -> np.ndarray:
  """Lowest level at which `strain` can be bid over `highest_bid` (a bid index or -1)."""
  level_now = np.where(highest_bid >= 0, highest_bid // 5 + 1, 0)
  strain_now = np.where(highest_bid >= 0, highest_bid % 5, -1)
  return np.where(np.asarray(strain) > strain_now, np.maximum(level_now, 1), level_now + 1)


@dataclasses.dataclass(frozen=True)
class _Situation:
  """What `NaturalBidder`'s rules read at n seats: each (n,) or (n, 4)."""
  n: int
  hcp: np.ndarray             # my high-card points
  lens: np.ndarray            # (n, 4) my suit lengths
  bal: np.ndarray             # my hand is balanced
  highest: np.ndarray         # the highest bid so far (-1: none)
  highest_ours: np.ndarray    # ... made by my side
  own_first: np.ndarray       # my first bid (`_NO_BID`: none)
  pd_first: np.ndarray        # partner's first bid
  nobody_bid: np.ndarray
  we_bid: np.ndarray          # my side has bid
  pd_opened: np.ndarray       # partner's first bid was the auction's first
  i_have_not_bid: np.ndarray
  total: np.ndarray           # my HCP + partner's estimated HCP
  pd_lens: np.ndarray         # (n, 4) partner's estimated suit lengths
  longest: np.ndarray         # my longest suit (the higher one on ties)


class NaturalBidder(base.ObservationBidder):
  """A simple natural bidding system (high-card points and suit lengths), deterministic.

  Hand evaluation: HCP (A=4, K=3, Q=2, J=1) and suit lengths; *balanced* = no singleton or
  void and at most one doubleton. Partner's strength and suit lengths are estimated from
  partner's first bid (the `_partner_estimate` table below). Calls, in order of priority
  (the first legal proposal is made, otherwise Pass):

  1. Opening (nobody has bid yet): 15-17 balanced 1NT; 20-21 balanced 2NT; 12+ HCP one of
     a suit: the longer 5+ card major (spades with 5-5), else the longer minor (diamonds
     with 4-4, clubs with 3-3).
  2. Overcall (only the opponents have bid): 15-18 balanced 1NT; a 5+ card suit (the
     longest, the higher with equal length) at the 1-level with 8+ HCP or the 2-level with
     10+ HCP.
  3. Response to partner's opening when I have not bid:
     * over 1NT / 2NT: with a 6+ card major and game values (combined 25+) 4 of the major;
       combined 33+ 6NT; 25+ 3NT; 23-24 over 1NT 2NT (invitation); else Pass;
     * over one of a suit: with a fit (3+ cards in partner's major, 5+ in the minor):
       6-9 HCP raise to 2, 10-12 to 3, 13+ game (4 of a major, 3NT over a minor);
       without a fit and 6+ HCP: the longest 4+ card suit bidable at the 1-level, else
       1NT (6-10), 2NT (11-12), 3NT (13+ balanced), or the longest 5+ card suit at the
       2-level (11+ HCP).
  4. Later (place the contract): combined HCP = mine + partner's estimate; strain = the
     major with the longest combined 8+ card fit, else NT; combined 37+ bid 7, 33+ 6, 25+
     game (4 of a major, 3NT) when that bid is still legal. Otherwise, when the opponents
     hold the contract: penalty double when we expect (one trick per 3 combined HCP) to
     beat it by two tricks, i.e. combined >= 3 * (9 - their level); compete in an 8+ card
     fit at the cheapest level if it is at most 2 (3 with a 9+ card fit) and we hold 17+
     combined. Never redouble.
  """

  name = "natural"

  # --- hand and auction features -----------------------------------------------------------
  @staticmethod
  def features(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Hand and auction features of (n, 267) observations, each (n,) or (n, k)."""
    obs = np.asarray(obs) > 0.5
    cards = obs[:, A.OBS_CARDS:A.OBS_BIDS]
    f = {}
    f["hcp"] = cards.astype(np.int64) @ _CARD_HCP
    f["len"] = np.stack([cards[:, _SUIT_OF_CARD == s].sum(axis=1) for s in range(4)], axis=1)
    srt = np.sort(f["len"], axis=1)
    f["balanced"] = (srt[:, 0] >= 2) & (srt[:, 1] >= 3)
    seg = obs[:, A.OBS_BIDS:A.OBS_DOUBLED].reshape(-1, 4, A.NUM_BIDS)
    f["own"], f["pd"], f["lho"], f["rho"] = seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3]
    all_bids = seg.any(axis=1)
    f["highest"] = np.where(all_bids.any(axis=1),
                            A.NUM_BIDS - 1 - all_bids[:, ::-1].argmax(axis=1), -1)
    hi = np.maximum(f["highest"], 0)
    rows = np.arange(len(obs))
    f["highest_ours"] = (f["highest"] >= 0) & (f["own"][rows, hi] | f["pd"][rows, hi])
    f["first"] = np.stack([_lowest(seg[:, i]) for i in range(4)], axis=1)  # own, pd, lho, rho
    f["legal"] = obs[:, A.OBS_LEGAL:]
    return f

  @staticmethod
  def _partner_estimate(f) -> tuple[np.ndarray, np.ndarray]:
    """(HCP estimate (n,), suit-length estimates (n, 4)) of partner from partner's first bid.

    HCP: no bid yet 3; opened 1NT 16, 2NT 21, a suit 13; raised my suit to 2 / 3 / game
    8 / 11 / 14; after my 1NT: 2NT 8, 6NT 18, other 12; responded 1NT / 2NT / 3NT 8 / 11 /
    14; a new suit at my level 9, higher 12; overcalled 11. Lengths: 2 in each suit unless
    shown; 3 in each after a NT opening; 4 in each suit partner bid; 5 in an opened major;
    3 (major) or 4 (minor) in my suit when partner raised it.
    """
    n = len(f["hcp"])
    own_first, pd_first = f["first"][:, 0], f["first"][:, 1]
    opp_first = np.minimum(f["first"][:, 2], f["first"][:, 3])
    has_pd = pd_first < _NO_BID
    pd_level = pd_first // 5 + 1
    pd_strain = pd_first % 5
    pd_opened = has_pd & (pd_first < own_first) & (pd_first < opp_first)
    pd_responded = has_pd & (own_first < pd_first)  # partner bid after my first bid
    own_strain = own_first % 5
    raise_ = pd_responded & (pd_strain == own_strain) & (own_strain < _NT)
    own_level = own_first // 5 + 1
    pts = np.select(
        [~has_pd,
         pd_opened & (pd_first == 4), pd_opened & (pd_first == 9), pd_opened,
         raise_ & (pd_level == 2), raise_ & (pd_level == 3), raise_,
         pd_responded & (own_first == 4) & (pd_first == 9),    # 1NT - 2NT
         pd_responded & (own_first == 4) & (pd_level >= 6),    # 1NT - 6NT
         pd_responded & (own_first == 4),                      # 1NT - 3NT / 4M
         pd_responded & (pd_strain == _NT) & (pd_level == 1),  # 1x - 1NT
         pd_responded & (pd_strain == _NT) & (pd_level == 2),  # 1x - 2NT
         pd_responded & (pd_strain == _NT),                    # 1x - 3NT
         pd_responded & (pd_level == own_level),               # new suit, same level
         pd_responded],                                        # new suit, higher level
        [3, 16, 21, 13, 8, 11, 14, 8, 18, 12, 8, 11, 14, 9, 12],
        default=11)  # partner overcalled
    lens = np.full((n, 4), 2, np.int64)
    lens[has_pd & (pd_strain == _NT) & (pd_opened | ~pd_responded)] = 3
    for s in range(4):
      bid_s = f["pd"][:, s::5].any(axis=1)
      lens[bid_s, s] = np.maximum(lens[bid_s, s], 4)
    major_open = pd_opened & (pd_strain >= 2) & (pd_strain <= 3)
    lens[major_open, pd_strain[major_open]] = 5
    r = raise_
    lens[r, own_strain[r]] = np.maximum(lens[r, own_strain[r]],
                                        np.where(own_strain[r] >= 2, 3, 4))
    return pts.astype(np.int64), lens

  # --- the system ----------------------------------------------------------------------------
  def act(self, observations: np.ndarray, uniforms: np.ndarray | None = None) -> np.ndarray:
    """The natural system's call for each row of `observations` (deterministic)."""
    del uniforms  # deterministic
    f = self.features(observations)
    s = self._situation(f)
    proposals = (self._opening(s) + self._overcalls(s) + self._responses(s)
                 + self._later_calls(s))
    return _first_legal_proposal(proposals, f["legal"])

  @classmethod
  def _situation(cls, f: dict[str, np.ndarray]) -> _Situation:
    """The hand, the auction and partner's estimate that the rules below read."""
    lens = f["len"]
    own_first, pd_first = f["first"][:, 0], f["first"][:, 1]
    opp_first = np.minimum(f["first"][:, 2], f["first"][:, 3])
    pts, pd_lens = cls._partner_estimate(f)
    return _Situation(
        n=len(f["hcp"]), hcp=f["hcp"], lens=lens, bal=f["balanced"], highest=f["highest"],
        highest_ours=f["highest_ours"], own_first=own_first, pd_first=pd_first,
        nobody_bid=f["highest"] < 0, we_bid=(own_first < _NO_BID) | (pd_first < _NO_BID),
        pd_opened=(pd_first < own_first) & (pd_first < opp_first),
        i_have_not_bid=own_first == _NO_BID, total=f["hcp"] + pts, pd_lens=pd_lens,
        longest=3 - np.argmax(lens[:, ::-1], axis=1))  # the higher suit on ties

  @staticmethod
  def _opening(s: _Situation) -> list[tuple[np.ndarray, np.ndarray]]:
    """1. Opening, when nobody has bid."""
    lens, hcp, bal = s.lens, s.hcp, s.bal
    opening_suit = np.where(
        (lens[:, 3] >= 5) & (lens[:, 3] >= lens[:, 2]), 3,
        np.where(lens[:, 2] >= 5, 2,
                 np.where((lens[:, 1] > lens[:, 0]) | ((lens[:, 1] == lens[:, 0]) &
                                                       (lens[:, 1] >= 4)), 1, 0)))
    opening = np.select([bal & (hcp >= 15) & (hcp <= 17), bal & (hcp >= 20) & (hcp <= 21),
                         hcp >= 12],
                        [_call(1, _NT), _call(2, _NT), _call(1, opening_suit)], default=A.PASS)
    return [(s.nobody_bid, opening)]

  @staticmethod
  def _overcalls(s: _Situation) -> list[tuple[np.ndarray, np.ndarray]]:
    """2. Overcall, when only the opponents have bid."""
    hcp, longest = s.hcp, s.longest
    lvl = _cheapest_level(s.highest, longest)
    suit_overcall = np.where((s.lens[np.arange(s.n), longest] >= 5) &
                             (((lvl == 1) & (hcp >= 8)) | ((lvl == 2) & (hcp >= 10))),
                             _call(lvl, longest), -1)
    overcall = np.where(s.bal & (hcp >= 15) & (hcp <= 18), _call(1, _NT), suit_overcall)
    theirs = ~s.nobody_bid & ~s.we_bid
    return [(theirs, overcall), (theirs, suit_overcall)]  # the suit if 1NT was illegal

  @staticmethod
  def _responses(s: _Situation) -> list[tuple[np.ndarray, np.ndarray]]:
    """3. Responses to partner's opening when I have not bid."""
    n, hcp, lens, bal, total, pd_first = s.n, s.hcp, s.lens, s.bal, s.total, s.pd_first
    responding = s.pd_opened & s.i_have_not_bid & ~s.nobody_bid
    pd_nt = pd_first % 5 == _NT
    long_major = np.where(lens[:, 3] >= lens[:, 2], 3, 2)
    has6_major = lens[np.arange(n), long_major] >= 6
    nt_response = np.select(
        [has6_major & (total >= 25), total >= 33, total >= 25, (pd_first == 4) & (total >= 23)],
        [_call(4, long_major), _call(6, _NT), _call(3, _NT), _call(2, _NT)], default=A.PASS)
    ps = pd_first % 5  # partner's opening suit
    support = lens[np.arange(n), np.minimum(ps, 3)]
    fit = np.where(ps >= 2, support >= 3, support >= 5) & ~pd_nt
    game_raise = np.where(ps >= 2, _call(4, ps), _call(3, _NT))
    raise_call = np.select([hcp >= 13, hcp >= 10, hcp >= 6],
                           [game_raise, _call(3, ps), _call(2, ps)], default=A.PASS)
    # New suit at the 1-level: longest 4+ card suit above partner's suit (lower one on ties).
    above = (np.arange(4)[None, :] > ps[:, None]) & (lens >= 4)
    score = np.where(above, lens * 10 - np.arange(4)[None, :], -1)
    new_suit = np.argmax(score, axis=1)
    one_level = np.where(above.any(axis=1) & (hcp >= 6) & (pd_first < 4), _call(1, new_suit), -1)
    two_level_suit = np.where((lens[np.arange(n), s.longest] >= 5) & (hcp >= 11),
                              _call(2, s.longest), -1)
    nt_resp = np.select([bal & (hcp >= 13), (hcp >= 11) & (hcp <= 12), (hcp >= 6) & (hcp <= 10)],
                        [_call(3, _NT), _call(2, _NT), _call(1, _NT)], default=-1)
    suit_opening = responding & ~pd_nt
    return [(responding & pd_nt, nt_response),
            (responding & fit, raise_call),
            (suit_opening & (one_level >= 0), one_level),
            (suit_opening & (nt_resp >= 0) & ~((hcp >= 13) & ~bal), nt_resp),
            (suit_opening & (two_level_suit >= 0), two_level_suit)]

  @staticmethod
  def _later_calls(s: _Situation) -> list[tuple[np.ndarray, np.ndarray]]:
    """4. Place the contract (game / slam in our best strain), double, or compete."""
    n, total, highest = s.n, s.total, s.highest
    fit_len = s.lens + s.pd_lens
    major_fit = np.where(fit_len[:, 3] >= fit_len[:, 2], 3, 2)
    has_major_fit = fit_len[np.arange(n), major_fit] >= 8
    strain = np.where(has_major_fit, major_fit, _NT)
    game_level = np.where(strain == _NT, 3, 4)
    target = np.select([total >= 37, total >= 33, total >= 25], [7, 6, game_level], default=0)
    # Penalty double of the opponents' contract.
    their_level = np.where(highest >= 0, highest // 5 + 1, 0)
    doubling = ~s.highest_ours & (highest >= 0) & (total >= 3 * (9 - their_level))
    # Compete in a fit at a low level.
    best_suit = np.argmax(fit_len * 10 + np.arange(4)[None, :], axis=1)
    best_fit = fit_len[np.arange(n), best_suit]
    comp_level = _cheapest_level(highest, best_suit)
    competing = (s.we_bid & ~s.highest_ours & (highest >= 0) & (total >= 17) &
                 (best_fit >= 8) & ((comp_level <= 2) | ((comp_level <= 3) & (best_fit >= 9))))
    return [(s.we_bid & (target > 0), _call(target, strain)),
            (doubling, np.full(n, A.DOUBLE)),
            (competing, _call(comp_level, best_suit))]


def _first_legal_proposal(proposals: list[tuple[np.ndarray, np.ndarray]],
                         legal: np.ndarray) -> np.ndarray:
  """Per row, the call of the first proposal that applies and is legal; else Pass.

  Args:
    proposals: ``(applies, call)`` pairs in priority order: ``applies`` (n,) bool, ``call``
      (n,) call ids or a scalar; a negative call is no proposal.
    legal: (n, 38) legal-call bits.

  Returns:
    (n,) call ids.
  """
  n = len(legal)
  calls = np.full(n, -1, np.int64)
  rows = np.arange(n)
  for applies, call in proposals:
    call = np.broadcast_to(call, (n,))
    ok = (calls < 0) & applies & (call >= 0)
    ok &= legal[rows, np.clip(call, 0, A.NUM_CALLS - 1)]
    calls = np.where(ok, call, calls)
  return np.where(calls < 0, A.PASS, calls)
