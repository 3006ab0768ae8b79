"""The bridge agents notebook runs end to end on small settings."""
import os

from tests import repo as tests_repo

_REPO = tests_repo.REPO
# The JPS authors' models (not in the repository): played when present, else the notebook
# shows the recorded cross table only.
REF_DIR = os.environ.get("JPS_REFERENCE_DIR",
                         os.path.join(_REPO, "..", "shared", "jps_reference"))


def test_bridge_agents_notebook_runs(run_notebook):
  have_ref = os.path.isfile(os.path.join(REF_DIR, "bridge_models", "agent-1610-0.63.pth"))
  nb = run_notebook("colabs/bridge_agents.ipynb",
                    {"BOARDS": "16", "STAT_BOARDS": "40", "SHOW_DEALS": "2",
                     "REFERENCE_DIR": repr(REF_DIR if have_ref else ""), "CROSS_BOARDS": "8",
                     "FT_ROUNDS": "2", "FT_DEALS": "8", "FT_FRACTION": "0.5", "FT_BOARDS": "16"})
  text = "".join(o.get("text", "") + "\n" + o.get("data", {}).get("text/markdown", "")
                 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
  assert "IMPs/board over 16 boards" in text
  assert "IMPs over" in text
  assert "fine-tuned 3 methods for 2 rounds each" in text
  # the miniature fine-tuning table: three methods, the search ones with search decisions
  rows = [ln for ln in text.splitlines() if ln.startswith("| ") and "vs start" not in ln]
  ft = {ln.split(" | ")[0][2:]: ln for ln in rows
        if ln[2:].startswith(("plain", "1-search", "JPSBid"))}
  assert sorted(ft) == ["1-search", "JPSBid", "plain A2C"]
  assert ft["plain A2C"].split(" | ")[2] == "0"
  if have_ref:
    assert "cross table played: 6 pairings" in text
  else:
    assert "showing the recorded cross table only" in text
