"""Every result a page states comes from its record in `results/` or `experiments/` (docs/render/).

- every page renders from the records (as mkdocs-macros renders it at build time);
- every record of `results/` and of `experiments/` (its JSON, CSV and Markdown, not its
  drivers, checkpoints or models) is read by some page, and every page's records exist;
- no page and not the README states a result number by hand: a decimal with three or more
  significant digits outside code, outside `{{ ... }}` and outside the few exceptions below;
- a record whose numbers change changes every page that reads it.
"""
import json
import os
import re
import shutil
import sys

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
DOCS = os.path.join(REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

import render  # noqa: E402
from render import common  # noqa: E402

# Records that no page shows, each with its reason.
NOT_ON_A_PAGE = {
    "README.md": "the index of the records",
    "team_lp_table/default.md": "the table script's Markdown of the JSON record beside it",
    "experiments/bridge_fsp_ppo/pilot/summary.md": "the driver's Markdown of summary.json "
                                                   "beside it",
    "experiments/bridge_fsp_ppo/summary.md": "the driver's Markdown of summary.json beside it",
    "team_lp_table/quiet_default.md": "the table script's Markdown of the JSON record beside it",
}
# Folders that hold an experiment's checkpoints, not records: folder -> reason.
FOLDERS_NOT_ON_A_PAGE = {
    "experiments/bridge_search/boards/": "the search experiment's stored boards, which it "
                                         "resumes from; its record.json (on the page) holds "
                                         "their results",
}
# What an experiment's folder holds besides its records (file endings, folder names).
EXPERIMENT_RECORDS = (".json", ".csv", ".md")
EXPERIMENT_NOT_RECORDS = ("README.md", "TRAINING.md")  # the folders' descriptions

# The results index: a summary of verdicts computed from the records of the other pages.
SUMMARY_PAGE = "results/index.md"

# Numbers a page may write by hand: a fact that is no run's result.
# (page relative to docs/ or "README.md", the token) -> reason.
ALLOWED = {
}

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_MACRO = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\]\([^)]*\)")
_EXEMPT = re.compile(r"arXiv:\d{4}\.\d{4,5}(v\d)?|(Theorem|Section|Appendix|Equation|Eq\.|Table|"
                     r"Figure|Lemma|Definition|Proposition|Algorithm|Corollary|Python) "
                     r"\d+(\.\d+)+|\d+\.\d+\.\d+")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d*\.\d+(?![\w.])")


def _significant_digits(token: str) -> int:
  return len(token.lstrip("+-").replace(".", "").lstrip("0"))


def hand_typed_numbers(text: str) -> list[str]:
  """The decimals of `text` with >= 3 significant digits outside code, macros and exemptions."""
  for pattern in (_FENCE, _MACRO, _CODE, _LINK, _EXEMPT):
    text = pattern.sub(" ", text)
  return [t for t in _NUMBER.findall(text) if _significant_digits(t) >= 3]


def _pages():
  return render.pages(DOCS)


def _rel(path):
  return os.path.relpath(path, DOCS)


def test_the_lint_sees_hand_typed_numbers():
  assert hand_typed_numbers("value 0.9528 and 10.75 but 2.0 and 1e-3") == ["0.9528", "10.75"]
  assert hand_typed_numbers("`0.9528` {{ r.x(0.9528) }} arXiv:2109.05284 Theorem 3.21") == []
  assert hand_typed_numbers("```bash\nrun --lr 0.125\n```\n") == []


@pytest.mark.parametrize("path", _pages(), ids=_rel)
def test_page_states_no_result_by_hand(path):
  with open(path, encoding="utf-8") as f:
    found = hand_typed_numbers(f.read())
  rel = _rel(path)
  found = [t for t in found if (rel, t) not in ALLOWED]
  assert not found, f"{rel} states numbers by hand (render them from results/): {found}"


def test_readme_states_no_result_by_hand():
  with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
    found = [t for t in hand_typed_numbers(f.read()) if ("README.md", t) not in ALLOWED]
  assert not found, f"README.md states numbers by hand: {found}"


def _render_all() -> dict[str, tuple[str, set[str]]]:
  """Each page's rendered text and the records it read."""
  out = {}
  for path in _pages():
    common.set_results_dir(common.RESULTS, experiments=common.EXPERIMENTS)
    out[_rel(path)] = (render.render_page(path), common.loaded())
  return out


def _records(results_dir):
  found = set()
  for root, _, names in os.walk(results_dir):
    for n in names:
      found.add(os.path.relpath(os.path.join(root, n), results_dir).replace(os.sep, "/"))
  return found


def _experiment_records(experiments_dir):
  """The records of experiments/ by `common.load`'s name (`experiments/<study>/...`)."""
  return {f"experiments/{r}" for r in _records(experiments_dir)
          if r.endswith(EXPERIMENT_RECORDS) and not r.endswith(EXPERIMENT_NOT_RECORDS)
          and "/checkpoints/" not in r and "/models/" not in r}


def test_every_record_is_on_a_page():
  rendered = _render_all()
  read = set().union(*(records for _, records in rendered.values()))
  every = _records(common.RESULTS) | _experiment_records(common.EXPERIMENTS)
  assert "experiments/bridge_search/record.json" in every  # experiments/ is walked
  unread = sorted(r for r in every - read - set(NOT_ON_A_PAGE)
                  if not r.startswith(tuple(FOLDERS_NOT_ON_A_PAGE)))
  assert not unread, f"records that no page shows: {unread}"


def _scale_floats(obj, factor):
  if isinstance(obj, float):
    return obj * factor + 0.0123
  if isinstance(obj, list):
    return [_scale_floats(x, factor) for x in obj]
  if isinstance(obj, dict):  # sizes in bytes are measurements too, though ints
    return {k: (round(v * factor) + 123 if k.endswith("bytes") and type(v) is int
                else _scale_floats(v, factor)) for k, v in obj.items()}
  return obj


def test_a_changed_record_changes_its_pages(tmp_path):
  """Scaling one record's numbers changes every page that reads it (nothing is cached).

  The summary page is exempt: it shows verdicts, which need not change when all of a record's
  numbers scale; the family page that reads the same record must change.
  """
  original, original_experiments = common.RESULTS, common.EXPERIMENTS
  try:
    rendered = _render_all()
    copy, copy_experiments = tmp_path / "results", tmp_path / "experiments"
    shutil.copytree(original, copy)
    shutil.copytree(original_experiments, copy_experiments,
                    ignore=shutil.ignore_patterns("*.npz", "*.py"))
    names = sorted(_records(original)) + sorted(_experiment_records(original_experiments))
    for name in names:
      if not name.endswith(".json") or name.endswith("registration.json"):
        continue  # registrations hold dates and commits, no numbers
      readers = [p for p, (_, records) in rendered.items() if name in records]
      if not readers:
        continue
      rel = name[len("experiments/"):] if name.startswith("experiments/") else name
      top = copy_experiments if name.startswith("experiments/") else copy
      source = original_experiments if name.startswith("experiments/") else original
      target = top / rel
      data = json.loads(target.read_text(encoding="utf-8"))
      target.write_text(json.dumps(_scale_floats(data, 1.5)), encoding="utf-8")
      common.set_results_dir(str(copy), experiments=str(copy_experiments))
      for page in readers:
        if page == SUMMARY_PAGE:
          continue  # its verdict counts need not move when every number scales
        assert render.render_page(os.path.join(DOCS, page)) != rendered[page][0], (name, page)
      shutil.copy(os.path.join(source, rel), target)
  finally:
    common.set_results_dir(original, experiments=original_experiments)
