"""colabs/team_lp.ipynb runs on small settings and shows what it should."""
import re


def test_team_lp_notebook_runs(run_notebook):
  nb = run_notebook("colabs/team_lp.ipynb", {"ITERATIONS": "20"}, timeout=300)
  text = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                 for out in cell.get("outputs", []))
  assert "teams: 0,1|2" in text
  # Table 1's sequence counts of 21K4 (facts about the game).
  assert "sequences: [177, 33]" in text
  tmecor = float(re.search(r"TMECor value \(team-correlated equilibrium\):\s+(\S+)", text).group(1))
  vs_br = float(re.search(r"CFR team value when player 2 best responds:\s+(\S+)", text).group(1))
  value = float(re.search(r"\s+value: (\S+)", text).group(1))
  assert abs(tmecor - value) < 1e-4
  # No team plan guarantees more than the TMECor value; CFR's 20-iteration team is below it.
  assert vs_br <= tmecor + 1e-9
  assert re.search(r"P\(both bet\) = \S+, but P\(0 bets\) P\(1 bets\)", text)
  # The other methods of team_solve agree with the LP (cg exactly, dag within its certified gap).
  rows = {m: [float(x) for x in re.search(
      rf"\s*{m}: value (\S+)\s+certified \[(\S+), (\S+)\]\s+gap (\S+)", text).groups()]
          for m in ("lp", "cg", "dag")}
  assert abs(rows["lp"][0] - tmecor) < 1e-4 and abs(rows["cg"][0] - rows["lp"][0]) < 1e-6
  assert rows["dag"][1] - 1e-9 <= rows["lp"][0] <= rows["dag"][2] + 1e-9
  assert rows["dag"][3] <= 1e-4
