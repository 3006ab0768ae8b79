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

from typing import TYPE_CHECKING

from ospiel_team import _exports

if TYPE_CHECKING:  # the public names, for type checkers; at run time `_exports.attach`
  # imports each on first use
  from ospiel_team.bridge import deal as deal
  from ospiel_team.bridge import scoring as scoring
  from ospiel_team.bridge import uncontested_costs as uncontested_costs
  from ospiel_team.bridge.auction import Auctions as Auctions
  from ospiel_team.bridge.auction_tables import AuctionTables as AuctionTables
  from ospiel_team.bridge.dataset import BridgeDataset as BridgeDataset
  from ospiel_team.bridge.dataset import load_dataset as load_dataset
  from ospiel_team.bridge.dataset import resolve_dataset as resolve_dataset
  from ospiel_team.bridge.dataset import save_dataset as save_dataset
  from ospiel_team.bridge.dataset_builder import build_dataset as build_dataset
  from ospiel_team.bridge.dds import dd_tables as dd_tables
  from ospiel_team.bridge.deal import random_holders as random_holders
  from ospiel_team.bridge.engine import BiddingEngine as BiddingEngine
  from ospiel_team.bridge.jax_env import JaxAuctionTables as JaxAuctionTables
  from ospiel_team.bridge.scoring import contract_score as contract_score
  from ospiel_team.bridge.scoring import duplicate_rewards as duplicate_rewards
  from ospiel_team.bridge.scoring import imps as imps

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
