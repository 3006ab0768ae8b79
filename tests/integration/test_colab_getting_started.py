"""colabs/getting_started.ipynb runs, on small settings, and prints what it should."""


def test_getting_started_notebook_runs(run_notebook):
  nb = run_notebook("colabs/getting_started.ipynb",
                    {"GAME": '"mini_bridge(size=2)"', "SECONDS": "0.2", "SEEDS": "2",
                     "SOLVERS": '["cfr_plus", "jps"]'})
  text = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                 for out in cell.get("outputs", []))
  assert "GameTree(mini_bridge(size=2)" in text
  assert "| cfr_plus | **average** |" in text and "| jps | **jps** |" in text  # JPS judged
  assert "2 seeds (0, 1)" in text and "95% CI" in text
  assert "Reference: **" in text and "cooperative optimum" in text
  images = [out for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if "image/png" in out.get("data", {})]
  assert images, "the curves image was not displayed"
