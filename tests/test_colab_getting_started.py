"""colabs/getting_started.ipynb runs, on small settings, and prints what it should."""


def test_getting_started_notebook_runs(run_notebook):
  nb = run_notebook("colabs/getting_started.ipynb",
                    {"GAME": '"mini_bridge(size=2)"', "ITERATIONS": "3"})
  text = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                 for out in cell.get("outputs", []))
  assert "GameTree(mini_bridge(size=2)" in text
  assert "| cfr_plus | average | 3 |" in text
  images = [out for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if "image/png" in out.get("data", {})]
  assert images, "the curves image was not displayed"
