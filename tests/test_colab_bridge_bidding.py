"""Executes colabs/bridge_bidding.ipynb end to end (its default settings are small)."""

import os

import nbformat
from nbclient import NotebookClient

NOTEBOOK = os.path.join(os.path.dirname(__file__), "..", "colabs", "bridge_bidding.ipynb")


def test_bridge_bidding_notebook_runs(tmp_path):
  nb = nbformat.read(NOTEBOOK, as_version=4)
  client = NotebookClient(nb, kernel_name="python3", timeout=300,
                          resources={"metadata": {"path": str(tmp_path)}})
  client.execute()
  outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                    for o in c.get("outputs", []))
  assert "natural vs natural :   +0.00" in outputs
  assert "returns (N, E, S, W):" in outputs
