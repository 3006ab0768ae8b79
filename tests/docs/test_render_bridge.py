"""The bridge pages render from their records (docs/render/bridge.py)."""
import json
import os
import shutil
import sys

import numpy as np
import pytest

from tests import repo as tests_repo

DOCS = os.path.join(tests_repo.REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

import render  # noqa: E402
from render import bridge  # noqa: E402
from render import bridge_experiments  # noqa: E402
from render import common  # noqa: E402
from tests.docs.test_docs_records import FOLDERS_NOT_ON_A_PAGE  # noqa: E402
from tests.docs.test_docs_records import NOT_ON_A_PAGE  # noqa: E402
from tests.docs.test_docs_records import _experiment_records  # noqa: E402

EXPERIMENTS = os.path.join(tests_repo.REPO, "experiments")
PAGES = ("results/bridge.md", "results/bridge_experiments.md", "bridge.md",
         "games/bridge_bidding.md")
STATUSES = {"reproduced", "differs (explained)", "differs (open)", "not reproducible here"}


def _render(page):
  return render.render_page(os.path.join(DOCS, page))


@pytest.fixture
def fresh_results():
  original, experiments = common.RESULTS, common.EXPERIMENTS
  common.set_results_dir(original, experiments=experiments)
  yield original
  common.set_results_dir(original, experiments=experiments)


def test_bridge_records_are_all_read_by_the_bridge_pages(fresh_results):
  for page in PAGES:
    _render(page)
  read = common.loaded()
  names = set()
  for root, _, files in os.walk(fresh_results):
    for f in files:
      rel = os.path.relpath(os.path.join(root, f), fresh_results).replace(os.sep, "/")
      if rel.startswith(("bridge/", "published/bridge")):
        names.add(rel)
  names |= {r for r in _experiment_records(EXPERIMENTS) if r.startswith("experiments/bridge_")}
  names -= set(NOT_ON_A_PAGE)
  names = {n for n in names if not n.startswith(tuple(FOLDERS_NOT_ON_A_PAGE))}
  assert names and not names - read, sorted(names - read)


def test_tables_state_the_record_values(fresh_results):
  text = _render("results/bridge.md")
  rec = json.load(open(os.path.join(EXPERIMENTS, "bridge_jpsbid", "jpsbid_from_a2c_longer.json")))
  assert f"{rec['across_runs']['mean']:+.3f}" in text
  unc = json.load(open(os.path.join(fresh_results, "bridge", "uncontested_cost.json")))
  for row in unc["uncontested"]:
    assert f"{row['mean_cost']:.3f}" in text
  assert "```bash\npython benchmarks/bridge_agents.py" in text  # the command is shown


def test_a_changed_bridge_record_changes_its_page(fresh_results, tmp_path):
  before = _render("results/bridge.md")
  copy = tmp_path / "results"
  shutil.copytree(fresh_results, copy)
  target = copy / "bridge" / "best_cross.json"
  rec = json.loads(target.read_text())
  rec["rows"][0]["mean"] = 1.234
  target.write_text(json.dumps(rec))
  common.set_results_dir(str(copy))
  after = _render("results/bridge.md")
  assert after != before and "+1.234" in after and "+1.234" not in before


def test_summary_rows(fresh_results):
  rows = bridge.summary_rows()
  assert len(rows) >= 3
  for row in rows:
    assert set(row) == {"paper", "figure", "status", "why", "page"}
    assert row["status"] in STATUSES
    assert os.path.isfile(os.path.join(DOCS, "results", row["page"].split("#")[0]))
  assert any("Yeh & Lin" in r["paper"] for r in rows)


def test_fsp_ppo_arms_and_runs_are_the_drivers():
  """The page's count of runs (k of 24) and arms are the driver's (read from its source: the
  renderer does not import the benchmark scripts)."""
  import re
  script = open(os.path.join(EXPERIMENTS, "bridge_fsp_ppo",
                             "bridge_method_comparison.py")).read()
  runs = int(re.search(r"^REGISTERED_RUNS = (\d+)", script, re.M).group(1))
  arms = re.search(r"^ARMS = \{(.*?)\}\n", script, re.M | re.S).group(1)
  assert bridge_experiments.FSP_PPO_SEEDS == runs
  assert bridge_experiments.FSP_PPO_ARMS == tuple(re.findall(r'"(\w+)": \{', arms))


def test_fsp_ppo_secondary_and_selected_snapshots_are_the_records(fresh_results, tmp_path):
  folder = tmp_path / "bridge_fsp_ppo"
  folder.mkdir()
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert bridge_experiments.fsp_ppo_secondary_table().startswith("No pair of arms")
  (folder / "secondary.json").write_text(json.dumps([
      {"contrast": "FSP minus plain (A2C)", "arm": "a2c_fsp", "minus": "a2c", "runs": [6, 5],
       "difference": -0.0513, "ci95": [-0.1066, 0.004], "df": 8.1036}]))
  (folder / "summary.json").write_text(json.dumps({"a2c": {
      "runs": 2, "mean": 0.02, "ci95": [-0.03, 0.07], "decision": "none yet (2 of 6 runs)",
      "selected_snapshot": [4, 1]}}))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert ("| FSP minus plain (A2C) | 6 vs 5 | -0.051 | [-0.107, +0.004] | 8.1 |"
          in bridge_experiments.fsp_ppo_secondary_table())
  assert ("| `a2c` | 2 | +0.020 | [-0.030, +0.070] | none yet (2 of 6 runs) | 4, 1 |"
          in bridge_experiments.fsp_ppo_summary_table())


def test_fsp_ppo_reading_follows_the_decisions(fresh_results, tmp_path):
  folder = tmp_path / "bridge_fsp_ppo"
  (folder / "runs").mkdir(parents=True)
  (folder / "runs" / "a2c_seed1.json").write_text(json.dumps({"cpu_budget_s": 1800.0,
                                                              "done": True}))
  (folder / "runs" / "a2c_seed2.json").write_text(json.dumps({"cpu_budget_s": 1800.0}))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert bridge_experiments.fsp_ppo_progress() == "1 of 24 runs finished, 1 in progress"
  assert bridge_experiments.fsp_ppo_reading() == "No arm has been decided yet."
  summary = {a: {"decision": "not established"} for a in bridge_experiments.FSP_PPO_ARMS}
  summary["ppo"]["decision"] = "none yet (4 of 6 runs)"
  summary["ppo_fsp"]["decision"] = "worse than a2c_longer (interval below 0)"
  (folder / "summary.json").write_text(json.dumps(summary))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert bridge_experiments.fsp_ppo_reading() == (
      "Decided by the rule: `a2c` and `a2c_fsp`: not established; `ppo_fsp`: worse than "
      "a2c_longer. Waiting for their runs: `ppo`.")
  summary["ppo"]["decision"] = "not established"
  (folder / "summary.json").write_text(json.dumps(summary))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert bridge_experiments.fsp_ppo_reading().endswith(
      "No method is adopted: none of the four gained measurably over `a2c_longer` in 30 more "
      "CPU minutes of training, and `best` stays `a2c_longer`.")
  summary["a2c"]["decision"] = "kept (interval above 0)"
  (folder / "summary.json").write_text(json.dumps(summary))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert "`a2c`: kept; " in bridge_experiments.fsp_ppo_reading()
  assert "`a2c` gained over `a2c_longer` at this budget" in bridge_experiments.fsp_ppo_reading()


def test_fsp_ppo_validation_note_is_the_runs_means(fresh_results, tmp_path):
  folder = tmp_path / "bridge_fsp_ppo" / "runs"
  folder.mkdir(parents=True)
  for k, (a, b, held) in enumerate([(-0.2, 0.1, 0.05), (-0.3, -0.1, -0.01)]):
    (folder / f"a2c_seed{k}.json").write_text(json.dumps({
        "done": True, "selected": "s2", "result_imps_per_board": held,
        "matches": {"select/s1": {"mean": a}, "select/s2": {"mean": b},
                    "final/heldout": {"mean": 9.0}}}))
  (folder / "a2c_seed9.json").write_text(json.dumps({"matches": {"select/s1": {"mean": 5.0}}}))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert bridge_experiments.fsp_ppo_validation_note() == (
      "Over the 2 finished runs, the 4 snapshots averaged -0.125 IMPs/b against `a2c_longer` on "
      "the validation deals, the selected ones +0.000, and the selected ones +0.020 on the "
      "held-out deals.")


def test_search_diagnosis_reads_its_record(fresh_results, tmp_path):
  """The diagnosis table and reading are the record's (a hand-made record, read by hand)."""
  folder = tmp_path / "bridge_search" / "diagnosis"
  folder.mkdir(parents=True)
  shutil.copy(os.path.join(EXPERIMENTS, "bridge_search", "diagnosis", "PLAN.md"), folder)
  shutil.copy(os.path.join(EXPERIMENTS, "bridge_search", "diagnosis", "registration.json"),
              folder)

  def stats(mean, se, n):
    return {"mean": mean, "se": se, "n": n}

  record = {
      "settings": {"opponent": "best"}, "rows": [{}] * 10, "done": True,
      "command": "python experiments/bridge_search/bridge_search_diagnosis.py", "commit": "abc1234",
      "date": "2026-11-29", "machine": "x86_64, 2 CPUs (shared)",
      "load_before": [2.5, 2.0, 1.0], "load_after": [3.5, 3.0, 2.0],
      "match": {"mean": -0.19, "se": 0.29, "searched_calls": 5243, "changed_calls": 916},
      "summary": {
          "all_changed": {"A": stats(2.14, 0.12, 10), "B": stats(0.01, 0.15, 9),
                          "D": stats(-0.05, 0.35, 10)},
          "fresh_draw_too_little_evidence": 1,
          "dds_subset": {"A": stats(2.2, 0.2, 4), "B": stats(0.5, 0.3, 4),
                         "C": stats(0.6, 0.4, 4), "D": stats(-0.1, 0.8, 4),
                         "winners_curse (A - B)": stats(1.7, 0.25, 4),
                         "table_error (B - C)": stats(-0.1, 0.2, 4),
                         "deal_model_error (C - D)": stats(0.7, 0.8, 4)},
          "main_cause": "winners_curse (A - B)"}}
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  text = bridge_experiments.search_diagnosis()
  assert "-0.190 ± 0.290 IMPs/b against `best`" in text
  assert "916 of its 5,243 searched calls" in text
  assert "| `B` fresh deals, learned tables | +0.01 ± 0.15 (9) | +0.50 ± 0.30 (4) |" in text
  assert "| `C` the same fresh deals, DDS tables | — | +0.60 ± 0.40 (4) |" in text
  assert "main cause is the **winner's curse `A - B`**" in text
  assert "confirming a change on an independent draw" in text
  record["summary"]["main_cause"] = None
  (folder / "record.json").write_text(json.dumps(record))
  # records are cached: setting the folders clears the cache
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert "no main cause is established" in bridge_experiments.search_diagnosis()
  record["done"] = False
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert "10 of 916 changed calls measured; no reading yet" in bridge_experiments.search_diagnosis()


def test_the_guides_claims_about_the_search_are_the_records(fresh_results):
  """docs/bridge.md says the search plays worse than its policy and names the winner's curse:
  the experiment's decision and the diagnosis's reading must say the same."""
  guide = open(os.path.join(DOCS, "bridge.md"), encoding="utf-8").read()
  experiment = json.load(open(os.path.join(EXPERIMENTS, "bridge_search", "record.json")))
  diagnosis = json.load(open(os.path.join(EXPERIMENTS, "bridge_search", "diagnosis",
                                          "record.json")))
  assert "plays worse\nthan `best` alone" in guide
  assert experiment["result"]["decision"].startswith("worse than the policy alone")
  assert experiment["selected"] == "search:best?dd=net&k=32&min_z=1"
  assert "`search:best?dd=net&k=32&min_z=1` plays worse" in guide
  assert "(the winner's curse), not an error\nof the learned tables" in guide
  assert diagnosis["done"] and diagnosis["summary"]["main_cause"] == "winners_curse (A - B)"


def test_diagnosis_components_are_the_scripts():
  """The page's names of the loss's components are the diagnosis script's (read from its
  source: the renderer does not import the benchmark scripts)."""
  import re
  script = open(os.path.join(EXPERIMENTS, "bridge_search",
                             "bridge_search_diagnosis.py")).read()
  block = re.search(r"^COMPONENTS = \{(.*?)\}\n", script, re.M | re.S).group(1)
  components = re.findall(r'"([^"]+ \([A-D] - [A-D]\))"', block)
  assert len(components) == 3
  assert set(bridge_experiments.DIAGNOSIS_NEXT) == set(components)
  assert set(bridge_experiments.DIAGNOSIS_ROWS) == {"A", "B", "C", "D", *components}


def test_wide_start_reads_its_record(fresh_results, tmp_path):
  """The students' table and the decision are the record's (a hand-made record, read by hand),
  and the page's arms are the script's (read from its source)."""
  import re
  script = open(os.path.join(EXPERIMENTS, "bridge_wide_start", "bridge_wide_start.py")).read()
  arms = re.search(r'^ARMS = \(([^)]*)\)', script, re.M).group(1)
  assert tuple(bridge_experiments.WIDE_START_ARMS) == tuple(re.findall(r'"(\w+)"', arms))
  folder = tmp_path / "bridge_wide_start"
  folder.mkdir()
  shutil.copy(os.path.join(EXPERIMENTS, "bridge_wide_start", "PLAN.md"), folder)
  shutil.copy(os.path.join(EXPERIMENTS, "bridge_wide_start", "registration.json"),
              folder)
  record = {
      "settings": {"teacher": "a2c_longer", "hidden": 512, "num_blocks": 2, "deals": 50000,
                   "steps": 16000, "eval_boards": 1000},
      "collection": {"states": 531465, "cpu_s": 60.0}, "validation_states": 10643,
      "command": "python experiments/bridge_wide_start/bridge_wide_start.py", "commit": "abc1234",
      "date": "2026-11-29", "machine": "x86_64, 2 CPUs (shared)", "load_before": [3.0, 2, 1],
      "arms": {"calls": {"train_cpu_s": 1400.4, "train_agreement": 0.93,
                         "validation_agreement": 0.912, "validation_kl": 0.1234,
                         "match": {"boards": 1000, "imps_per_board_for_a": -0.2,
                                   "stderr_clustered": 0.1, "ci95_low": -0.396,
                                   "ci95_high": -0.004, "clusters": 1000}}}}
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  text = bridge_experiments.wide_start()
  assert ("| `calls` | the teacher's greedy calls | -0.200 ± 0.100 | [-0.396, -0.004] | 91.2% "
          "| 0.123 | 1,400 |") in text
  assert "| `probabilities` | the teacher's distribution over the calls | not finished |" in text
  assert "531,465 states of 50,000 auctions" in text and "no decision yet" in text
  record["decision"] = {"start": "calls", "level_with_teacher": False, "reading": "READING."}
  (folder / "record.json").write_text(json.dumps(record))
  # records are cached: setting the folders clears the cache
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert "The plan's rule: READING." in bridge_experiments.wide_start()
  record["start"] = {"value_steps": 4000, "value_mse_before": 0.13261, "value_mse_after": 3e-4}
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert ("(4,000 Adam steps; the policy unchanged), went from a mean squared error of 0.1326 "
          "to 0.0003.") in bridge_experiments.wide_start()


def test_wide_run_status_reads_its_record(fresh_results, tmp_path):
  folder = tmp_path / "bridge_wide_run"
  folder.mkdir()
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  assert bridge_experiments.wide_run_status().startswith("The run has not reported yet")
  match = {"mean": 0.5, "se": 0.25, "load_before": [1.0], "load_after": [3.0]}
  record = {"settings": {"opponent": "a2c_longer", "eval_boards": 400, "select_boards": 1000},
            "training": {"round": 2500, "games": 2560000, "cpu_s": 3001.4,
                         "budget_cpu_s": 21600.0, "finished": False, "commit": "abc1234",
                         "date": "2026-11-29",
                         "evals": [{"round": 1000, "games": 1024000, "cpu_s": 1210.0,
                                    "imps_vs_natural": 3.9, "se": 0.37}]},
            "matches": {"reference/start": {**match, "mean": 3.83},
                        "reference/opponent": {**match, "mean": 3.515}},
            "command": "python experiments/bridge_wide_run/bridge_wide_run.py --run R"}
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  text = bridge_experiments.wide_run_status()
  assert ("trained 2,500 rounds (2,560,000 self-play games) in 3,001 of its 21,600 CPU seconds "
          "so far") in text
  assert "| round 1,000 | 1,024,000 | 1,210 | +3.900 ± 0.370 |" in text
  assert "| the start |  |  | +3.830 ± 0.250 |" in text
  assert "No candidate has been selected yet" in text and "load average 1.0-3.0" in text
  assert "The selection's matches" not in text  # none played yet
  record["matches"]["select/start"] = {**match, "mean": -0.2}
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  text = bridge_experiments.wide_run_status()
  assert "validation boards, played as the snapshots appear:" in text
  assert "| `start` | -0.200 ± 0.250 |" in text and "No candidate has been selected" in text
  record["training"]["finished"] = True
  record["matches"]["select/round_0001000"] = {**match, "mean": 0.1}
  record.update(selected="round_0001000", result={
      "boards": 6000, "mean": 0.12, "se": 0.05, "ci95": [0.022, 0.218],
      "decision": "kept (interval above 0)"})
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  text = bridge_experiments.wide_run_status()
  assert ("| `start` | -0.200 ± 0.250 |\n| `round_0001000` (selected) | +0.100 ± 0.250 |"
          in text)
  assert ("`round_0001000` against `a2c_longer` on the 6,000 held-out boards: +0.120 ± 0.050 "
          "IMPs/b, 95% interval [+0.022, +0.218]. **Decision:** kept (interval above 0).") in text


def test_wide_run_status_counts_the_unselectable_candidates(fresh_results, tmp_path):
  """Candidates without a model file (pre-registration amendment 3) are counted, not listed:
  the page shows the run that finished and the candidates it could select."""
  folder = tmp_path / "bridge_wide_run"
  folder.mkdir()
  match = {"mean": 0.5, "se": 0.25, "load_before": [1.0], "load_after": [3.0]}
  ev = {"games": 1, "cpu_s": 1.0, "se": 0.3}
  lost_training = {"round": 2000, "games": 2, "cpu_s": 2400.0, "budget_cpu_s": 21600.0,
                   "finished": False, "commit": "abc1234", "date": "2026-11-28",
                   "evals": [{**ev, "round": 1000, "imps_vs_natural": 3.9},
                             {**ev, "round": 2000, "imps_vs_natural": 4.1}]}
  record = {"settings": {"opponent": "a2c_longer", "eval_boards": 400, "select_boards": 1000},
            "matches": {"reference/start": {**match, "mean": 3.83}},
            "models": {"opponent": "d"},
            "command": "python experiments/bridge_wide_run/bridge_wide_run.py",
            "lost": {"training": lost_training,
                     "resumed_from": {"round": 1500, "games": 1, "cpu_s": 1800.4},
                     "matches": {"start": {**match, "mean": -0.1},
                                 "round_0001000": {**match, "mean": -0.3},
                                 "round_0002000": {**match, "mean": 0.2}},
                     "models": {}}}
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  text = bridge_experiments.wide_run_status()  # before the resumed run's first report
  assert "trained 2,000 rounds" in text and "so far" in text and "lost" not in text
  assert "| round 1,000 | 1 | 1 | +3.900 ± 0.300 |" in text
  assert "3 further candidates were played on the validation deals but have no model file" in text
  assert "The selection's matches" not in text  # no selectable candidate yet
  record["training"] = {**lost_training, "round": 2000, "cpu_s": 21700.0, "finished": True,
                        "evals": [lost_training["evals"][0],
                                  {**ev, "round": 2000, "imps_vs_natural": 3.0}]}
  record["matches"]["select/round_0002000"] = {**match, "mean": -0.4}
  record.update(selected="round_0002000", result={
      "boards": 6000, "mean": -0.02, "se": 0.05, "ci95": [-0.118, 0.078],
      "decision": "not established"})
  (folder / "record.json").write_text(json.dumps(record))
  common.set_results_dir(fresh_results, experiments=str(tmp_path))
  text = bridge_experiments.wide_run_status()
  assert ("| round 1,000 | 1 | 1 | +3.900 ± 0.300 |\n"
          "| round 2,000 | 1 | 1 | +3.000 ± 0.300 |") in text
  assert "+4.100" not in text  # the first trajectory's evaluations are not the run's
  assert "| `round_0002000` (selected) | -0.400 ± 0.250 |" in text and "+0.200" not in text
  assert "3 further candidates" in text and "**Decision:** not established." in text
  assert "`best` stays `a2c_longer`; the cross table and the 200 x 2 control" in text


def test_best_cross_table_pools_the_two_heldout_sets(fresh_results):
  rows = {(r["b"], r["dataset"]): r for r in common.load("bridge/best_cross.json")["rows"]
          if r["a"] == "a2c_longer"}
  a, b = rows[("jps_paper_0.63", "heldout")], rows[("jps_paper_0.63", "heldout2")]
  n = np.array([a["boards"], b["boards"]], float)
  mean = np.average([a["mean"], b["mean"]], weights=n)
  se = np.hypot(n[0] * a["se"], n[1] * b["se"]) / n.sum()  # disjoint deals: independent
  cell = (f"{mean:+.3f} ± {se:.3f} [{mean - 1.959964 * se:+.3f}, "
          f"{mean + 1.959964 * se:+.3f}] |")
  line = [x for x in bridge.best_cross_table().splitlines() if "`jps_paper_0.63`" in x][0]
  assert line.endswith(cell) and "| both (6,000 boards) |" in bridge.best_cross_table()
