"""Contract bridge: deals, scoring, IMPs, DDS tables, datasets, batched auctions, matches."""
