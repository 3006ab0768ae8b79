"""The layout check at a phone's width (390 px): sticky first columns, linked figures, code.

The first tests check the verdicts on given measurements and the figure-linking hook; the
others lay out small pages with the site's own stylesheet in headless Chromium (skipped where
Chromium is not installed; CI installs it).
"""
import os
import sys

import pytest

from tests import repo as tests_repo

sys.path.insert(0, os.path.join(tests_repo.REPO, "tests", "docs"))
sys.path.insert(0, os.path.join(tests_repo.REPO, "docs"))
import hooks  # noqa: E402  (docs/hooks.py)
import layout_check  # noqa: E402

CHROMIUM = layout_check.find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
CSS = os.path.join(tests_repo.REPO, "docs", "stylesheets", "results.css")


def _report(width=390, tables=(), images=(), code=(), page_overflow=0):
  return {"width": width, "article": width - 32, "height": 900, "tables": list(tables),
          "images": list(images), "code": list(code), "page_overflow": page_overflow}


def _table(**over):
  base = {"over": 400, "tag": "div", "cls": "md-typeset__scrollwrap", "scrollWidth": 760,
          "clientWidth": 360, "scrolls": True, "first_visible": True, "first_share": 0.3}
  return {"index": 0, "head": "game value", "width": 760, "overflow": {**base, **over}}


def test_narrow_verdicts_on_measurements():
  # A wide table that scrolls in its box with its first column in view passes on a phone ...
  assert layout_check.problems(_report(tables=[_table()])) == []
  # ... but not at 1400 px, where every table must fit.
  (line,) = layout_check.problems(_report(1400, tables=[_table()]))
  assert "scrolls sideways" in line
  (line,) = layout_check.problems(_report(tables=[_table(first_visible=False)]))
  assert "first column is out of view" in line
  (line,) = layout_check.problems(_report(tables=[_table(scrolls=False)]))
  assert "does not scroll inside its box" in line
  (line,) = layout_check.problems(_report(tables=[_table(first_share=0.8)]))
  assert "takes 80%" in line
  (line,) = layout_check.problems(_report(page_overflow=120))
  assert "scrolls sideways" in line and "120 px wider" in line


def test_figure_and_code_verdicts():
  linked = {"src": "../img/a.png", "width": 358, "natural": 1320, "column": 358,
            "link": "../img/a.png"}
  assert layout_check.problems(_report(images=[linked])) == []
  (line,) = layout_check.problems(_report(images=[{**linked, "link": None}]))
  assert "does not link to its full-size file" in line
  scrolling = {"index": 0, "over": 300, "scrolls": True, "sticks_out": 0, "head": "python"}
  assert layout_check.problems(_report(code=[scrolling])) == []
  (line,) = layout_check.problems(_report(code=[{**scrolling, "scrolls": False}]))
  assert "does not scroll inside it" in line
  (line,) = layout_check.problems(_report(code=[{**scrolling, "sticks_out": 40}]))
  assert "sticks out" in line


def test_the_hook_links_every_figure_once():
  page = ('<p><img alt="a" src="../img/a.png"></p>'
          '<p><a href="x.html"><img src="../img/b.png"></a></p>'
          '<p><img class="twemoji" src="data:image/svg+xml;x"></p>')
  out = hooks.link_figures(page)
  assert '<a class="figure-full" href="../img/a.png" title="full size"><img alt="a" ' in out
  assert out.count("<a ") == 2  # b.png keeps its own link; the emoji gets none
  assert hooks.link_figures(out) == out  # linking twice changes nothing


def _results_page(tmp_path, body):
  """A page laid out as a results page: Material's table wrappers and the site's CSS."""
  with open(CSS, encoding="utf-8") as f:
    css = f.read()
  page = tmp_path / "index.html"
  page.write_text(
      "<html><head><meta name='viewport' content='width=device-width'><style>"
      "body { margin: 0; } .md-typeset__scrollwrap { overflow-x: auto; }"
      ".md-typeset__table table { display: table; overflow: hidden; border-collapse: collapse; }"
      "td, th { padding: 4px 8px; white-space: nowrap; }"
      ".md-typeset pre > code { display: block; overflow: auto; }" + css + "</style></head>"
      "<body><div class='md-main__inner md-grid'><nav><ul><li class='md-nav__item "
      "md-nav__item--active md-nav__item--section'><div class='md-nav__container'></div></li>"
      "</ul></nav><article class='md-content__inner md-typeset'>" + body +
      "</article></div></body></html>", encoding="utf-8")
  return str(page)


def _wide_table():
  head = "".join(f"<th>column {i}</th>" for i in range(12))
  row = "".join(f"<td>{i}.{i}{i}{i}</td>" for i in range(12))
  return (f"<div class='md-typeset__scrollwrap'><div class='md-typeset__table'><table>"
          f"<thead><tr><th>solver</th>{head}</tr></thead><tbody><tr><td>cfr_plus</td>{row}</tr>"
          f"</tbody></table></div></div>")


@needs_chromium
def test_chromium_keeps_the_first_column_in_view_at_390_px(tmp_path):
  report = layout_check.measure(_results_page(tmp_path, _wide_table()), CHROMIUM, width=390)
  (table,) = report["tables"]
  assert table["overflow"]["scrolls"] and table["overflow"]["first_visible"], table
  assert layout_check.problems(report) == []


@needs_chromium
def test_chromium_sees_a_first_column_that_scrolls_away(tmp_path):
  """The same table without the site's stylesheet: its first column leaves the view."""
  page = _results_page(tmp_path, _wide_table())
  with open(page, encoding="utf-8") as f:
    text = f.read()
  with open(CSS, encoding="utf-8") as f:
    text = text.replace(f.read(), "")
  with open(page, "w", encoding="utf-8") as f:
    f.write(text)
  report = layout_check.measure(page, CHROMIUM, width=390)
  (line,) = layout_check.problems(report)
  assert "first column is out of view" in line
