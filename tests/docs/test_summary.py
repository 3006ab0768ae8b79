"""The results summary (docs/render/summary.py) collects every family's rows, or fails loudly."""
import os
import sys
import types

import pytest

from tests import repo as tests_repo

DOCS = os.path.join(tests_repo.REPO, "docs")
if DOCS not in sys.path:
  sys.path.insert(0, DOCS)

from render import summary  # noqa: E402

ROW = {"paper": "Lockhart et al. 2019", "figure": "Figure 1", "status": "reproduced",
       "why": "same curves | same order", "page": "speed.md#tabular-cfr-solvers"}


@pytest.fixture
def family(monkeypatch):
  """Installs a fake family module `render.<name>` with the given rows (or none)."""
  def install(name, rows=None):
    module = types.ModuleType(f"render.{name}")
    if rows is not None:
      module.summary_rows = lambda: rows
    monkeypatch.setitem(sys.modules, f"render.{name}", module)
    return name
  return install


def test_table_has_one_linked_row_per_figure(family):
  a = family("fake_a", [ROW, dict(ROW, figure="Figure 2", status="differs (open)")])
  b = family("fake_b", [dict(ROW, paper="Zhang & Sandholm 2022", page="speed.md")])
  lines = summary.table((a, b)).splitlines()
  assert lines[0] == "| paper | figure | status | why | page |"
  assert len(lines) == 2 + 3
  assert lines[2] == ("| Lockhart et al. 2019 | Figure 1 | **reproduced** | "
                      "same curves \\| same order | [speed](speed.md#tabular-cfr-solvers) |")
  assert lines[4].startswith("| Zhang & Sandholm 2022 |")
  assert summary.counts((a, b)) == "3 figures: 2 reproduced, 1 differs (open)"


def test_a_family_without_summary_rows_is_an_error(family):
  name = family("fake_none")
  with pytest.raises(summary.SummaryError, match="fake_none.py defines no summary_rows"):
    summary.table((name,))


def test_a_missing_family_module_is_an_error():
  with pytest.raises(summary.SummaryError, match="no_such_family.py does not exist"):
    summary.rows(("no_such_family",))


@pytest.mark.parametrize("bad, message", [
    (dict(ROW, status="done"), "status 'done'"),
    ({k: v for k, v in ROW.items() if k != "why"}, "has keys"),
    (dict(ROW, page="no_such_page.md"), "no file under docs/results"),
])
def test_malformed_rows_are_errors(family, bad, message):
  name = family("fake_bad", [bad])
  with pytest.raises(summary.SummaryError, match=message):
    summary.rows((name,))


def test_every_family_page_is_a_results_page():
  pages = {p.removesuffix(".md") for p in os.listdir(summary.RESULTS_PAGES)}
  assert set(summary.FAMILIES) <= pages
