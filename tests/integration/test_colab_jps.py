"""Executes colabs/jps.ipynb with small settings (mini_bridge(size=2), 50 CFR iterations)."""

import os

import nbformat
import pytest

from tests import repo as tests_repo

nbclient = pytest.importorskip("nbclient")

NOTEBOOK = os.path.join(tests_repo.REPO, "colabs", "jps.ipynb")


def test_jps_notebook_runs(tmp_path, monkeypatch):
  monkeypatch.setenv("OSPIEL_TEAM_CACHE", str(tmp_path))
  nb = nbformat.read(NOTEBOOK, as_version=4)
  params = next(c for c in nb.cells if c.cell_type == "code" and "SIZE = " in c.source)
  assert params.cell_type == "code" and "SIZE = 4" in params.source
  params.source = "SIZE = 2\nCFR_ITERATIONS = 50\nDEPTH = 3\nSEED = 1\n"
  client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                   resources={"metadata": {"path": str(tmp_path)}})
  client.execute()
  text = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                 for out in cell.get("outputs", []))
  assert "OpenSpiel expected_game_score.policy_value" in text
  tables = [out["data"]["text/markdown"] for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if "text/markdown" in out.get("data", {})]
  assert len(tables) == 2
  # One row per s1 = 0..2, one column per s2 = 0..2.
  assert all(t.count("| **") == 3 for t in tables)
