"""Executes colabs/bridge_bidding.ipynb end to end on small settings."""


def test_bridge_bidding_notebook_runs(run_notebook):
  nb = run_notebook("colabs/bridge_bidding.ipynb", {"BOARDS": "100", "SEED": "1"}, timeout=300)
  outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                    for o in c.get("outputs", []))
  # Facts the notebook prints that hold independently of the data: self-play scores 0,
  # and the pyspiel returns equal the hand-recomputed contract score (asserted in a cell).
  assert "natural vs natural :   +0.00 ± 0.00 IMPs/board over 100 boards" in outputs
  assert "returns (N, E, S, W):" in outputs
