"""The browser layout check (tests/docs/layout_check.py) sees wide tables and small figures.

The first tests check the verdicts on given measurements; the others lay out small pages in
headless Chromium (skipped where Chromium is not installed; CI installs it).
"""
import os
import struct
import sys
import zlib

import pytest

from tests import repo as tests_repo

sys.path.insert(0, os.path.join(tests_repo.REPO, "tests", "docs"))
import layout_check  # noqa: E402

CHROMIUM = layout_check.find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


def _report(tables=(), images=()):
  return {"width": 1400, "article": 1100, "height": 900, "tables": list(tables),
          "images": list(images)}


def test_verdicts_on_measurements():
  wide = {"index": 0, "head": "seed 10 11", "width": 1200,
          "overflow": {"over": 100, "tag": "div", "cls": "md-typeset__scrollwrap",
                       "scrollWidth": 1200, "clientWidth": 1100}}
  fits = {"index": 1, "head": "game value", "width": 500, "overflow": None}
  assert layout_check.problems(_report([fits])) == []
  (line,) = layout_check.problems(_report([wide, fits]))
  assert "table 1" in line and "1200 px wide in 1100 px" in line
  small = {"src": "img/a.png", "width": 300, "natural": 1320, "column": 1100}
  icon = {"src": "img/icon.png", "width": 32, "natural": 32, "column": 1100}
  big = {"src": "img/b.png", "width": 1100, "natural": 1320, "column": 1100}
  assert layout_check.problems(_report(images=[icon, big])) == []
  (line,) = layout_check.problems(_report(images=[small]))
  assert "img/a.png shown 300 px" in line


def _png(path, width, height):
  """A grey PNG of width x height pixels, written by hand (no imaging library)."""
  def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
  rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
  path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                                                                      8, 0, 0, 0, 0))
                   + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _page(tmp_path, body):
  page = tmp_path / "index.html"
  page.write_text("<html><head><style>article { width: 800px; } .wrap { overflow-x: auto; }"
                  "</style></head><body><article>" + body + "</article></body></html>",
                  encoding="utf-8")
  return str(page)


@needs_chromium
def test_chromium_sees_a_table_wider_than_its_column(tmp_path):
  cells = "".join(f"<td>column_{i}_with_a_long_unbreakable_name</td>" for i in range(12))
  page = _page(tmp_path, f"<div class='wrap'><table><tr>{cells}</tr></table></div>"
                         "<div class='wrap'><table><tr><td>a</td><td>b</td></tr></table></div>")
  report = layout_check.measure(page, CHROMIUM, width=1400)
  assert report["article"] == 800
  assert [t["overflow"] is not None for t in report["tables"]] == [True, False]
  (line,) = layout_check.problems(report)
  assert line.startswith("table 1") and "in 800 px" in line


@needs_chromium
def test_chromium_sees_a_thumbnail(tmp_path):
  _png(tmp_path / "fig.png", 1000, 10)
  page = _page(tmp_path, "<p><a href='fig.png'><img src='fig.png' style='width: 250px'></a></p>"
                         "<p><a href='fig.png'><img src='fig.png' style='width: 100%'></a></p>")
  report = layout_check.measure(page, CHROMIUM, width=1400)
  assert [round(i["width"]) for i in report["images"]] == [250, 800]
  assert [i["natural"] for i in report["images"]] == [1000, 1000]
  (line,) = layout_check.problems(report)
  assert "shown 250 px" in line
