"""Bidding statistics of a bidder (JPS paper Appendix H, Table 8).

Opening table, call and contract frequencies, auction lengths.

  from ospiel_team.bridge.agents.evaluation import bidding_stats

  from ospiel_team.bridge.agents.bidders import model_bidder
  eng = bidding_stats.self_play_auctions(model_bidder.load_bidder("a2c"), boards=2000)
  print(bidding_stats.opening_table_markdown(bidding_stats.bidding_statistics(eng)))
"""

from __future__ import annotations

import numpy as np

from ospiel_team.bridge import auction as A
from ospiel_team.bridge import engine as engine_lib
from ospiel_team.bridge.agents.evaluation import match as match_lib

_CARD_HCP = np.clip(np.arange(52) // 4 - 8, 0, 4)


def self_play_auctions(bidder, dataset=None, boards: int = 1000, *, seed: int = 0,
                       uncontested: bool = False):
  """Bids `boards` deals of a dataset with `bidder` at all four seats (duplicate dealer/vul).

  Returns the engine after the auctions (its `.auctions.history`, `.holders`, contracts).
  """
  eng = engine_lib.BiddingEngine(dataset, uncontested=uncontested)
  boards = min(int(boards), eng.num_deals)
  if boards < 1:
    raise ValueError(f"boards must be >= 1, got {boards}")
  rng = np.random.default_rng(seed)
  idx = rng.permutation(eng.num_deals)[:boards]
  dealer, vul = match_lib.board_dealer_vulnerability(np.arange(1, boards + 1))
  eng.reset(idx, dealer, vul)
  match_lib.play_tables(eng, [bidder] * boards, [bidder] * boards, rng=rng)
  return eng


def bidding_statistics(eng) -> dict:
  """Opening table (HCP and suit-length ranges per opening call), call / contract frequencies.

  The opening is the first call other than Pass; its hand is the opener's. Ranges are the 5th
  to 95th percentiles (so '10-18' means 90% of the openings lie in 10..18).
  """
  a = eng.auctions
  n = a.batch_size
  hist = a.history
  ncalls = a.num_calls
  calls = np.concatenate([hist[i, :ncalls[i]] for i in range(n)]).astype(np.int64)
  call_freq = np.bincount(calls, minlength=A.NUM_CALLS) / max(len(calls), 1)
  level, strain, doubled, _ = eng.contract()
  cnames = ["Pass"] + [A.call_string(3 + j) for j in range(A.NUM_BIDS)]
  cidx = np.where(level > 0, 1 + (level - 1) * 5 + strain, 0)
  contract_freq = np.bincount(cidx, minlength=len(cnames)) / n
  openings = {}
  for i in range(n):
    h = hist[i, :ncalls[i]]
    nz = np.flatnonzero(h != A.PASS)
    if len(nz) == 0:
      continue
    pos = int(nz[0])
    seat = int((a.dealer[i] + pos) % 4)
    cards = eng.holders[i] == seat
    hcp = int(_CARD_HCP[cards].sum())
    lens = np.bincount(np.arange(52)[cards] % 4, minlength=4)  # C, D, H, S
    openings.setdefault(int(h[pos]), []).append((hcp, *lens))
  table = []
  for call in sorted(openings):
    arr = np.array(openings[call])
    lo, hi = np.percentile(arr, 5, axis=0), np.percentile(arr, 95, axis=0)
    table.append({"opening": A.call_string(call), "count": len(arr),
                  "frequency": len(arr) / n,
                  "hcp": f"{int(lo[0])}-{int(hi[0])}", "hcp_mean": float(arr[:, 0].mean()),
                  **{f"len_{s}": f"{int(lo[1 + k])}-{int(hi[1 + k])}"
                     for k, s in enumerate("CDHS")},
                  **{f"mean_len_{s}": float(arr[:, 1 + k].mean()) for k, s in enumerate("CDHS")}})
  lengths = np.bincount(ncalls, minlength=1) / n
  return {"boards": n, "openings": table,
          "passed_out": float(np.mean(level == 0)),
          "call_frequency": {A.call_string(c): float(call_freq[c])
                             for c in np.argsort(-call_freq) if call_freq[c] > 0},
          "contract_frequency": {cnames[c]: float(contract_freq[c])
                                 for c in np.argsort(-contract_freq) if contract_freq[c] > 0},
          "doubled_contracts": float(np.mean(doubled > 0)),
          "mean_auction_length": float(ncalls.mean()),
          "auction_length_histogram": {int(k): float(v) for k, v in enumerate(lengths) if v > 0}}


def opening_table_markdown(stats: dict, top: int = 12) -> str:
  """Markdown of `bidding_statistics`: the opening table and the most frequent calls/contracts."""
  lines = [f"Opening table ({stats['boards']} boards; ranges are 5th-95th percentiles)", "",
           "| opening | freq | HCP | mean HCP | clubs | diamonds | hearts | spades |",
           "|---|---|---|---|---|---|---|---|"]
  for r in sorted(stats["openings"], key=lambda r: -r["count"]):
    lines.append(f"| {r['opening']} | {100 * r['frequency']:.1f}% | {r['hcp']} | "
                 f"{r['hcp_mean']:.1f} | {r['len_C']} | {r['len_D']} | {r['len_H']} | "
                 f"{r['len_S']} |")
  lines += ["", f"Passed out: {100 * stats['passed_out']:.1f}%; doubled contracts: "
            f"{100 * stats['doubled_contracts']:.1f}%; mean auction length "
            f"{stats['mean_auction_length']:.1f} calls", "",
            "| call | freq | | final contract | freq |", "|---|---|---|---|---|"]
  calls = list(stats["call_frequency"].items())[:top]
  cons = list(stats["contract_frequency"].items())[:top]
  for i in range(max(len(calls), len(cons))):
    c = calls[i] if i < len(calls) else ("", None)
    k = cons[i] if i < len(cons) else ("", None)
    lines.append(f"| {c[0]} | {'' if c[1] is None else f'{100 * c[1]:.2f}%'} | | {k[0]} | "
                 f"{'' if k[1] is None else f'{100 * k[1]:.2f}%'} |")
  return "\n".join(lines) + "\n"
