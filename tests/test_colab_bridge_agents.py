"""The bridge agents notebook runs end to end on small settings."""


def test_bridge_agents_notebook_runs(run_notebook):
  nb = run_notebook("colabs/bridge_agents.ipynb",
                    {"BOARDS": "16", "STAT_BOARDS": "40", "SHOW_DEALS": "2"})
  text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                 for o in c.get("outputs", []))
  assert "IMPs/board over 16 boards" in text
  assert "IMPs over" in text
