r"""Browser check of the results pages at a desktop's and a phone's width.

Builds the site (`mkdocs build --strict`) unless `--site` names a built one, opens each results
page in headless Chromium at each `--width` (1400 and 390 pixels by default), and fails when

* at a wide window (700 px or more), a table, or a box around it inside the article, is wider
  than it shows (its scrollWidth exceeds its clientWidth: the reader would scroll it sideways);
* at a narrow window (a phone), a table that scrolls sideways does not scroll inside its own
  box, or its first column leaves the view when the table is scrolled to its last column (the
  first column must stay in view: sticky), or takes more than `NARROW_FIRST_COLUMN` of the box;
* the page itself is wider than the window (the whole page would scroll sideways);
* a code block is wider than its box and does not scroll inside it, or sticks out of the
  content column;
* a figure of the page's content is shown narrower than `--min_image_width` pixels (600), or
  narrower than its own pixel width and the column when the column would allow more, or does
  not link to its full-size file.

Chromium runs from the command line (`--headless --dump-dom`): the page is copied next to
itself with a small script that measures the laid-out page and writes the measurements into the
DOM, which Chromium prints. `--screenshots DIR` also saves a full-page PNG of each page.

  python tests/docs/layout_check.py                       # build, then check at 1400 and 390
  python tests/docs/layout_check.py --site /tmp/site --width 390 --screenshots /tmp/shots

Exit status: 0 when every page passes, 1 when a page fails (each problem printed), 2 when the
build or the browser fails.
"""
from __future__ import annotations

import argparse
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = "layout-check-report"
WIDTHS = (1400, 390)  # a desktop, and a phone (an iPhone 12-15's 390 CSS px)
NARROW = 700  # windows narrower than this are a phone's: tables may scroll, sticky first column
NARROW_FIRST_COLUMN = 0.6  # the most of a scrolling table's box its sticky column may take
_REPORT = re.compile(rf'<pre id="{MARK}">(.*?)</pre>', re.S)

# Runs after the page (and Material's script, which wraps tables) has loaded.
MEASURE_JS = """
<script>
window.addEventListener("load", function () {
  setTimeout(function () {
    var article = document.querySelector("article.md-content__inner") ||
        document.querySelector("article") || document.body;
    var out = {width: window.innerWidth, article: article.clientWidth,
               height: document.documentElement.scrollHeight,
               page_overflow: document.documentElement.scrollWidth - window.innerWidth,
               tables: [], images: [], code: []};
    var scrolls = function (el) {
      return ["auto", "scroll"].indexOf(getComputedStyle(el).overflowX) >= 0;
    };
    var inside = function (cell, box) {
      var c = cell.getBoundingClientRect(), b = box.getBoundingClientRect();
      return c.width > 0 && c.left >= b.left - 1 && c.right <= b.right + 1;
    };
    article.querySelectorAll("table").forEach(function (t, i) {
      var worst = null;
      for (var el = t; el && el !== article; el = el.parentElement) {
        var over = el.scrollWidth - el.clientWidth;
        var style = getComputedStyle(el);
        if (style.display === "table-row-group") continue;
        if (over > 1 && (!worst || over > worst.over)) {
          worst = {over: over, tag: el.tagName.toLowerCase(), cls: el.className || "",
                   scrollWidth: el.scrollWidth, clientWidth: el.clientWidth};
        }
      }
      if (worst) {
        // The box the table scrolls in: its nearest scrolling ancestor (or itself) inside the
        // article and inside the window. Scrolled to its last column, is the first column (head
        // and first body row) in view?
        var box = null;
        for (var b = t; b && b !== article; b = b.parentElement) {
          if (scrolls(b) && b.scrollWidth - b.clientWidth > 1) { box = b; break; }
        }
        worst.scrolls = box !== null &&
            box.getBoundingClientRect().right <= document.documentElement.clientWidth + 1;
        if (box) {
          var rows = [t.rows[0], t.rows[1]].filter(function (r) { return r && r.cells.length; });
          var boxWidth = box.getBoundingClientRect().width;
          box.scrollLeft = box.scrollWidth;
          worst.first_visible = rows.length > 0 && rows.every(function (r) {
            return inside(r.cells[0], box);
          });
          worst.first_share = rows.length ? Math.max.apply(null, rows.map(function (r) {
            return r.cells[0].getBoundingClientRect().width / boxWidth;
          })) : 0;
          box.scrollLeft = 0;
        }
      }
      var head = t.rows.length ? t.rows[0].innerText.replace(/\\s+/g, " ").slice(0, 70) : "";
      out.tables.push({index: i, head: head, width: t.getBoundingClientRect().width,
                       overflow: worst});
    });
    article.querySelectorAll("img").forEach(function (img) {
      var link = img.closest("a");
      var column = img.parentElement || article;  // the nearest block around it (not a link)
      while (column !== article && getComputedStyle(column).display.indexOf("inline") === 0) {
        column = column.parentElement;
      }
      out.images.push({src: img.getAttribute("src"), width: img.getBoundingClientRect().width,
                       natural: img.naturalWidth, column: column.clientWidth,
                       link: link ? link.getAttribute("href") : null});
    });
    var right = document.documentElement.clientWidth;  // the window (Material lets code
    // blocks reach the screen's edges on a phone, past the article's padding)
    article.querySelectorAll("pre").forEach(function (pre, i) {
      var code = pre.querySelector("code") || pre;
      out.code.push({index: i, over: code.scrollWidth - code.clientWidth,
                     scrolls: scrolls(code) || scrolls(pre),
                     sticks_out: pre.getBoundingClientRect().right - right,
                     head: code.innerText.split("\\n")[0].slice(0, 50)});
    });
    var pre = document.createElement("pre");
    pre.id = "__MARK__";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
    if (window.parent !== window) {  // laid out in a frame narrower than any window
      window.parent.postMessage({mark: "__MARK__", report: out}, "*");
    }
  }, 200);
});
</script>
""".replace("__MARK__", MARK)

# Chromium's headless window is at least this wide: a narrower page is laid out in a frame of
# its width (its own viewport: media queries and `innerWidth` are the frame's).
MIN_WINDOW = 500
FRAME_HTML = """<html><body style="margin: 0">
<iframe src="__SRC__" style="width: __WIDTH__px; height: __HEIGHT__px; border: 0"></iframe>
<script>
window.addEventListener("message", function (e) {
  if (!e.data || e.data.mark !== "__MARK__") return;
  var pre = document.createElement("pre");
  pre.id = "__MARK__";
  pre.textContent = JSON.stringify(e.data.report);
  document.body.appendChild(pre);
});
</script></body></html>"""


def _framed(page: str, width: int, height: int) -> str:
  """A page beside `page` that shows it in a frame `width` x `height` px (its path)."""
  fd, path = tempfile.mkstemp(suffix=".html", prefix=".layout_frame_",
                              dir=os.path.dirname(os.path.abspath(page)))
  with os.fdopen(fd, "w", encoding="utf-8") as f:
    f.write(FRAME_HTML.replace("__SRC__", html.escape(os.path.basename(page)))
            .replace("__WIDTH__", str(width)).replace("__HEIGHT__", str(height))
            .replace("__MARK__", MARK))
  return path


def find_chromium(path: str | None = None) -> str | None:
  """The Chromium executable: `path`, else `chromium` or `chromium-browser` on PATH."""
  if path:
    return path
  for name in ("chromium", "chromium-browser", "google-chrome"):
    found = shutil.which(name)
    if found:
      return found
  return None


def _chromium_args(chromium: str, width: int, height: int) -> list[str]:
  return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
          "--disable-dev-shm-usage", "--no-first-run", "--mute-audio",
          "--force-device-scale-factor=1", f"--window-size={width},{height}",
          "--virtual-time-budget=10000"]


def measure(page: str, chromium: str, width: int = 1400, timeout: float = 120) -> dict:
  """Lays out the built page `page` (an .html file) at `width` pixels and measures it.

  Args:
    page: path of a built HTML page.
    chromium: the Chromium executable.
    width: the window width in CSS pixels.
    timeout: seconds before the browser is given up.

  Returns:
    The measurements: `width`, `article` (the content column's width), `height`, `tables`
    (each with `head`, `width` and `overflow`, None when nothing scrolls sideways) and
    `images` (each with `src`, shown `width`, `natural` width and `column` width).

  Raises:
    RuntimeError: Chromium failed or printed no measurements.
  """
  with open(page, encoding="utf-8") as f:
    text = f.read()
  text = text.replace("</body>", MEASURE_JS + "</body>", 1) if "</body>" in text \
      else text + MEASURE_JS
  fd, probe = tempfile.mkstemp(suffix=".html", prefix=".layout_check_",
                               dir=os.path.dirname(os.path.abspath(page)))
  frame = None
  try:
    with os.fdopen(fd, "w", encoding="utf-8") as f:
      f.write(text)
    opened = probe
    if width < MIN_WINDOW:
      opened = frame = _framed(probe, width, 1000)
    with tempfile.TemporaryDirectory() as profile:
      proc = subprocess.run(
          _chromium_args(chromium, max(width, MIN_WINDOW), 1000)
          + [f"--user-data-dir={profile}", "--dump-dom", "file://" + os.path.abspath(opened)],
          capture_output=True, text=True, timeout=timeout, check=False)
  finally:
    os.remove(probe)
    if frame:
      os.remove(frame)
  found = _REPORT.search(proc.stdout)
  if not found:
    raise RuntimeError(f"Chromium printed no measurements for {page} (exit {proc.returncode}): "
                       f"{proc.stderr[-1500:]}")
  return json.loads(html.unescape(found.group(1)))


def problems(report: dict, min_image_width: int = 600) -> list[str]:
  """What is wrong with a measured page at its width (see the module docstring).

  Args:
    report: `measure`'s measurements.
    min_image_width: the narrowest a figure may be shown, in CSS pixels.

  Returns:
    One line per problem (empty when the page passes).
  """
  narrow = report["width"] < NARROW
  found = [_table_problem(t, narrow) for t in report["tables"]]
  if report.get("page_overflow", 0) > 1:
    found.append(f"the page is {report['page_overflow']} px wider than the "
                 f"{report['width']} px window: it scrolls sideways")
  for img in report["images"]:
    # A figure may be narrower than the limit only when its own pixels are (icons, badges).
    wanted = min(min_image_width, img["natural"] or min_image_width, img["column"])
    if img["width"] + 1 < wanted:
      found.append(f"image {img['src']} shown {img['width']:.0f} px wide (its pixels "
                   f"{img['natural']}, column {img['column']} px; at least {wanted} wanted)")
    if "link" in img and img["link"] != img["src"]:
      found.append(f"image {img['src']} does not link to its full-size file "
                   f"(link: {img['link']})")
  for c in report.get("code", []):
    if c["over"] > 1 and not c["scrolls"]:
      found.append(f"code block {c['index'] + 1} ({c['head']!r}) is {c['over']} px wider than "
                   "its box and does not scroll inside it")
    if c["sticks_out"] > 1:
      found.append(f"code block {c['index'] + 1} ({c['head']!r}) sticks out of the content "
                   f"column by {c['sticks_out']:.0f} px")
  return [line for line in found if line]


def _table_problem(t: dict, narrow: bool) -> str | None:
  """What is wrong with one measured table (None: nothing)."""
  over = t.get("overflow")
  if not over:
    return None
  where = (f"table {t['index'] + 1} ({t['head']!r}): {over['tag']}.{over['cls'] or '-'} is "
           f"{over['scrollWidth']} px wide in {over['clientWidth']} px")
  if not narrow:
    return f"{where}: it scrolls sideways"
  if not over.get("scrolls"):
    return f"{where} and does not scroll inside its box"
  if not over.get("first_visible"):
    return f"{where}: scrolled to its last column, its first column is out of view (not sticky)"
  if over.get("first_share", 0) > NARROW_FIRST_COLUMN:
    return (f"{where}: its sticky first column takes {100 * over['first_share']:.0f}% of the "
            f"box (at most {100 * NARROW_FIRST_COLUMN:.0f}%)")
  return None


def screenshot(page: str, png: str, chromium: str, width: int, height: int,
               timeout: float = 120) -> None:
  """Saves a PNG of `page` laid out at `width` x `height` pixels (the whole page if tall).

  Below `MIN_WINDOW` the page is shown in a frame of its width and the PNG cropped to it
  (Pillow, which matplotlib brings).
  """
  frame = _framed(page, width, height) if width < MIN_WINDOW else None
  try:
    with tempfile.TemporaryDirectory() as profile:
      subprocess.run(_chromium_args(chromium, max(width, MIN_WINDOW), height) + [
          f"--user-data-dir={profile}", f"--screenshot={os.path.abspath(png)}",
          "file://" + os.path.abspath(frame or page)], capture_output=True, timeout=timeout,
          check=True)
  finally:
    if frame:
      os.remove(frame)
  if frame:
    from PIL import Image
    with Image.open(png) as img:
      img.crop((0, 0, width, img.height)).save(png)


def build_site(site: str) -> None:
  """Builds the documentation into `site` with `mkdocs build --strict`."""
  subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site],
                 cwd=REPO, check=True)


def results_pages(site: str) -> list[str]:
  """The built results pages of `site` (index first)."""
  pages = sorted(glob.glob(os.path.join(site, "results", "**", "index.html"), recursive=True))
  return sorted(pages, key=lambda p: (os.path.dirname(p) != os.path.join(site, "results"), p))


def main(argv: list[str] | None = None) -> int:
  """Checks every results page; returns the exit status."""
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--site", help="a built site (default: build one into a temp folder)")
  parser.add_argument("--width", type=int, action="append",
                      help=f"window width in CSS px, repeatable (default: {WIDTHS})")
  parser.add_argument("--min_image_width", type=int, default=600)
  parser.add_argument("--screenshots", help="save a full-page PNG of each page here")
  parser.add_argument("--chromium", help="Chromium executable (default: on PATH)")
  args = parser.parse_args(argv)
  chromium = find_chromium(args.chromium)
  if not chromium:
    print("layout check: no Chromium found (apt-get install chromium)", file=sys.stderr)
    return 2
  with tempfile.TemporaryDirectory() as tmp:
    site = args.site
    if not site:
      site = os.path.join(tmp, "site")
      try:
        build_site(site)
      except subprocess.CalledProcessError:
        print("layout check: mkdocs build --strict failed", file=sys.stderr)
        return 2
    pages = results_pages(site)
    if not pages:
      print(f"layout check: no results pages under {site}/results", file=sys.stderr)
      return 2
    if args.screenshots:
      os.makedirs(args.screenshots, exist_ok=True)
    status = 0
    for width in args.width or WIDTHS:
      failed = _check_pages(site, pages, chromium, width, args)
      if failed is None:
        return 2
      print(f"layout check: {len(pages) - failed} of {len(pages)} results pages pass at "
            f"{width} px")
      status = status or (1 if failed else 0)
    return status


def _check_pages(site: str, pages: list[str], chromium: str, width: int,
                 args: argparse.Namespace) -> int | None:
  """Checks `pages` at `width`; the number that fail (None: the browser failed)."""
  failed = 0
  for page in pages:
    name = os.path.relpath(os.path.dirname(page), site).replace(os.sep, "/")
    try:
      report = measure(page, chromium, width)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
      print(f"layout check: {name} at {width} px: {e}", file=sys.stderr)
      return None
    found = problems(report, args.min_image_width)
    print(f"{name} at {width} px: {'ok' if not found else 'FAIL'} (content column "
          f"{report['article']} px, {len(report['tables'])} tables, {len(report['images'])} "
          f"images, {len(report['code'])} code blocks)")
    for line in found:
      print(f"  - {line}")
    failed += bool(found)
    if args.screenshots:
      png = os.path.join(args.screenshots, f"{name.replace('/', '_')}_{width}.png")
      screenshot(page, png, chromium, width, min(max(report["height"], 800), 16000))
  return failed


if __name__ == "__main__":
  sys.exit(main())
