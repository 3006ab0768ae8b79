"""The ED defaults of the classes, the runner and the pages are the measured choice.

Facts used: the committed record `results/ed/defaults.json` (`benchmarks/ed_defaults.py`):
its per-run final NashConv values, from which the best setting per solver is recomputed here
(lowest geometric mean over the games of the mean final NashConv); the classes' signatures;
the runner's registered options; the rendered algorithms page.
"""
import inspect
import json
import math
import os
import sys

from ospiel_team.algorithms.nash import exploitability_descent as ed
from ospiel_team.runner import registry
from tests import repo as tests_repo

REPO = tests_repo.REPO
RECORD = os.path.join(REPO, "results", "ed", "defaults.json")


def _record():
  with open(RECORD, encoding="utf-8") as f:
    return json.load(f)


def _best_settings(record) -> dict[str, str]:
  finals: dict[tuple[str, str, str], list[float]] = {}
  for r in record["rows"]:
    finals.setdefault((r["solver"], r["setting"], r["game"]), []).append(r["final"])
  scores: dict[tuple[str, str], list[float]] = {}
  for (solver, setting, _), values in finals.items():
    scores.setdefault((solver, setting), []).append(math.log(sum(values) / len(values)))
  best = {}
  for solver in {s for s, _ in scores}:
    candidates = {setting: sum(v) / len(v) for (s, setting), v in scores.items() if s == solver}
    best[solver] = min(candidates, key=candidates.get)
  return best


def _defaults(cls) -> dict:
  return {k: p.default for k, p in inspect.signature(cls.__init__).parameters.items()
          if p.default is not inspect.Parameter.empty}


def test_record_chose_the_best_setting():
  record = _record()
  assert record["chosen"] == _best_settings(record)
  # Every candidate ran on every game of the record, the neural ones with several seeds.
  games = {r["game"] for r in record["rows"]}
  assert games == {"kuhn_poker", "leduc_poker"}
  for solver, settings in record["settings"].items():
    for setting in settings:
      runs = [r for r in record["rows"] if (r["solver"], r["setting"]) == (solver, setting)]
      assert {r["game"] for r in runs} == games
      assert len(runs) >= (2 * len(games) if solver == "neural_ed" else len(games))


def test_class_defaults_are_the_chosen_settings():
  record = _record()
  chosen = {s: record["settings"][s][n] for s, n in record["chosen"].items()}
  tabular = _defaults(ed.TabularEDSolver)
  for key, value in chosen["ed"].items():
    assert tabular[key] == value, key
  neural = _defaults(ed.NeuralEDSolver)
  for key, value in chosen["neural_ed"].items():
    key = {"init_lr": "learning_rate"}.get(key, key)  # the record's former name of the argument
    assert neural[key] == value, key
  # The record's fixed neural settings are the class defaults too.
  assert tuple(record["neural_fixed"]["hidden_layers"]) == tuple(neural["hidden_layers"])
  assert record["neural_fixed"]["l2"] == neural["l2"]


def test_runner_defaults_are_the_class_defaults():
  tabular = _defaults(ed.TabularEDSolver)
  options = registry.spec("ed").options
  assert options["ed.lr"] == tabular["learning_rate"]
  assert options["ed.optimizer"] == tabular["optimizer"]
  assert options["ed.schedule"] == tabular["lr_schedule"]
  neural = _defaults(ed.NeuralEDSolver)
  options = registry.spec("neural_ed").options
  assert options["neural_ed.lr"] == neural["learning_rate"]
  assert options["neural_ed.optimizer"] == neural["optimizer"]
  assert options["neural_ed.schedule"] == neural["lr_schedule"]
  assert options["neural_ed.l2"] == neural["l2"]
  assert options["neural_ed.hidden"] == "x".join(str(h) for h in neural["hidden_layers"])


def test_pages_state_the_chosen_defaults():
  docs = os.path.join(REPO, "docs")
  if docs not in sys.path:
    sys.path.insert(0, docs)
  import render
  from render import exploitability_descent as page_ed
  text = render.render_page(os.path.join(docs, "algorithms", "exploitability_descent.md"))
  neural = _defaults(ed.NeuralEDSolver)
  tabular = _defaults(ed.TabularEDSolver)
  # The renderer's words for the chosen settings name the code's defaults ...
  assert page_ed.chosen("ed").startswith(
      f"{tabular['optimizer']}, learning rate {tabular['learning_rate']:g}, ")
  assert page_ed.chosen("neural_ed").startswith(
      f"{neural['optimizer']}, learning rate {neural['learning_rate']:g}, ")
  # ... and the algorithms page states them.
  assert page_ed.chosen("ed") in text and page_ed.chosen("neural_ed") in text
