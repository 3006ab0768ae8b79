"""Contract bridge rules and data: deals, scoring, IMPs, DDS tables, datasets, batched auctions.

* `deal`: hands and holders (`random_holders`), PBN; `scoring`: contract scores, IMPs,
  duplicate rewards (`contract_score`, `imps`, `duplicate_rewards`); `dds`: double-dummy
  tables (`dd_tables`).
* `dataset`: deals with their double-dummy tables (`BridgeDataset`, `load_dataset`,
  `save_dataset`, `resolve_dataset` for the shipped ones); `dataset_builder`: the parallel,
  resumable build (`build_dataset`).
* The auction, one interface: `Auctions` (`auction`), `BiddingEngine` (`engine`),
  `AuctionTables` (`auction_tables`, numpy) and `JaxAuctionTables` (`jax_env`, JAX: imported
  on first use).
* `uncontested_costs`: Yeh & Lin's uncontested-bidding cost dataset.

The agents (bidders, trainers, matches) are in `ospiel_team.bridge.agents`.
"""

from ospiel_team import _exports

_PUBLIC = {
    "Auctions": "ospiel_team.bridge.auction",
    "BiddingEngine": "ospiel_team.bridge.engine",
    "AuctionTables": "ospiel_team.bridge.auction_tables",
    "JaxAuctionTables": "ospiel_team.bridge.jax_env",
    "BridgeDataset": "ospiel_team.bridge.dataset",
    "load_dataset": "ospiel_team.bridge.dataset",
    "save_dataset": "ospiel_team.bridge.dataset",
    "resolve_dataset": "ospiel_team.bridge.dataset",
    "build_dataset": "ospiel_team.bridge.dataset_builder",
    "dd_tables": "ospiel_team.bridge.dds",
    "random_holders": "ospiel_team.bridge.deal",
    "contract_score": "ospiel_team.bridge.scoring",
    "imps": "ospiel_team.bridge.scoring",
    "duplicate_rewards": "ospiel_team.bridge.scoring",
    "deal": "ospiel_team.bridge.deal",
    "scoring": "ospiel_team.bridge.scoring",
    "uncontested_costs": "ospiel_team.bridge.uncontested_costs",
}
__all__, __getattr__, __dir__ = _exports.attach(__name__, _PUBLIC)
