"""The team pages' data and renderer (docs/render/team.py), and ospiel-team-solve's progress.

The published Table 1 of Zhang & Sandholm is checked against cells read by hand from the
paper, and against the size columns the package holds independently
(`team_instances.PAPER_TABLE1`); the verdicts against the rounding rule done by hand.
"""
import json
import os
import sys

from ospiel_team.cli import team_solve as team_solve_cli
from ospiel_team.games import team_instances
from tests import repo as tests_repo

DOCS = os.path.join(tests_repo.REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

from render import common  # noqa: E402
from render import team  # noqa: E402

PUBLISHED = os.path.join(tests_repo.REPO, "results", "published", "zhang_sandholm_table1.json")


def _published():
  with open(PUBLISHED, encoding="utf-8") as f:
    return {r["instance"]: r for r in json.load(f)["rows"]}


def test_published_table1_has_29_rows_and_hand_checked_cells():
  rows = _published()
  assert len(rows) == 29
  assert set(rows) == set(team_instances.TABLE1_INSTANCES)
  # Cells read by hand from Table 1 (values print without a leading zero).
  assert rows["21K4"]["value"] == "-.0417"
  assert rows["21L151"]["value"] == "-.0192"
  assert rows["21L523"]["value"] == ".9520"
  assert rows["21D4"]["value"] == ".2843"
  assert rows["32G"]["value"] == ".0000"
  assert rows["21K12"]["value"] is None  # the paper's method ran out of memory
  assert rows["21K12"]["time_ours"] == "oom"
  assert rows["21K8"]["time_ours"] == "2m24s" and rows["21K8"]["seconds_ours"] == 144.0
  assert rows["21D4"]["time_fcgs21"] == "6h" and rows["21D4"]["seconds_fcgs21"] == 21600.0
  assert rows["31L'133"]["time_zac20"] == "21m04s"
  assert rows["21L523"]["lp_size"] == 10507398
  assert sum(r["value"] is not None for r in rows.values()) == 28


def test_published_sizes_equal_the_packages_transcription():
  for name, r in _published().items():
    paper = team_instances.PAPER_TABLE1[name]
    seq2 = r["team2_count"] if name == "22K5" else r["team2_seq"]  # printed swapped
    assert (r["terminals"], r["team1_seq"], seq2, r["lp_size"], r["seconds_ours"]) == (
        paper.terminals, paper.seq1, paper.seq2, paper.lp_size, paper.seconds), name


def test_verdicts_follow_the_rounding_rule():
  common.set_results_dir(common.RESULTS)
  assert team.verdict("21K4") == team.SAME  # -1/24 = -0.0416667 rounds to -.0417
  assert team.verdict("21L151") == team.SAME  # -0.0191515 rounds to -.0192, truncates -.0191
  assert team.verdict("21L523") == team.OPEN_VERDICT  # bracket .9528/.9529 against .9520
  assert team.verdict("21D4") == team.EXPLAINED_VERDICT  # settles .2844 against .2843
  assert team.verdict("21K12") == team.NO_VALUE
  (row,) = team.summary_rows()
  assert row["status"] == "differs (open)"
  assert "21L523" in row["why"] and "21D4" in row["why"]


def test_speed_count_is_the_table_ratio_count():
  common.set_results_dir(common.RESULTS)
  table = team.speed_table().splitlines()[2:]
  ratios = [line.split("|")[8].strip() for line in table]
  assert team.count("fast") == sum(r != "—" and float(r) <= 1 for r in ratios)
  assert team.count("fast") + team.count("slow") == 29


def test_l523_brackets_name_their_runs():
  common.set_results_dir(common.RESULTS)
  texts = {run: team.l523(run) for run in ("default", "long", "check", "earlier", "second")}
  assert len(set(texts.values())) == 5
  assert "1,800 s" in texts["long"] and "team_lp_table/21L523_long.json" in texts["long"]
  assert texts["check"].startswith("[0.9528396, 0.9528692]")  # the check's table, by hand


def test_solve_prints_progress_on_stderr(capsys):
  status = team_solve_cli.main(["ospiel-team-solve", "--instance", "21K6",
                                "--progress_interval", "0.01", "--json"])
  out, err = capsys.readouterr()
  assert status == 0
  assert json.loads(out)["instance"] == "21K6"
  lines = [line for line in err.splitlines() if line.startswith("ospiel-team-solve: 21K6")]
  assert any("still solving" in line for line in lines), err
  assert lines[-1].startswith("ospiel-team-solve: 21K6 by auto: done after")


def test_solve_without_progress_prints_nothing_on_stderr(capsys):
  status = team_solve_cli.main(["ospiel-team-solve", "--game", "kuhn_poker(players=3)",
                                "--teams", "0,1|2", "--progress_interval", "0", "--json"])
  _, err = capsys.readouterr()
  assert status == 0
  assert "still solving" not in err


def test_negative_progress_interval_is_one_line_exit_2(capsys):
  status = team_solve_cli.main(["ospiel-team-solve", "--instance", "21K4",
                                "--progress_interval", "-1"])
  _, err = capsys.readouterr()
  assert status == 2
  assert err.strip().splitlines() == [
      "error: --progress_interval=-1.0 must be a finite number from 0 to 1e+09 (seconds)"]


def test_auto_thresholds_on_the_team_page_are_the_codes():
  """The team solvers page states `auto`'s thresholds in prose; each is the solver's constant."""
  from ospiel_team.algorithms.team import solver

  def sci(x: float) -> str:  # 1e-4, as the page writes it
    mantissa, exponent = f"{x:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"

  with open(os.path.join(DOCS, "algorithms", "team.md"), encoding="utf-8") as f:
    page = f.read()
  stated = {
      f"{solver.AUTO_LP_MAX_LOCAL:,} local solutions": "AUTO_LP_MAX_LOCAL",
      f"{solver.AUTO_LP_MAX_NONZEROS:,} nonzeros": "AUTO_LP_MAX_NONZEROS",
      f"{solver.AUTO_CG_MAX_SEQUENCES:,} sequences": "AUTO_CG_MAX_SEQUENCES",
      f"gap is at most {sci(solver.RESTRICT_GAP)}": "RESTRICT_GAP",
      f"certified gap {sci(solver.ONE_SIDED_GAP)} after {solver.ONE_SIDED_MIN_ITERATIONS:,} "
      "iterations": "ONE_SIDED_GAP, ONE_SIDED_MIN_ITERATIONS",
      f"at most {solver.AUTO_ONE_SIDED_MAX_LOCAL:,} local solutions": "AUTO_ONE_SIDED_MAX_LOCAL",
      f"{solver.ONE_SIDED_RETRY_SHRINK:g} times smaller": "ONE_SIDED_RETRY_SHRINK",
  }
  missing = [f"{name} ({text!r})" for text, name in stated.items()
             if text not in " ".join(page.split())]
  assert not missing, f"the page does not state: {missing}"
  rule = team.table1()  # the legend of the values table
  assert (f"certified gap {sci(solver.ONE_SIDED_GAP)} after {solver.ONE_SIDED_MIN_ITERATIONS:,} "
          "iterations") in rule
