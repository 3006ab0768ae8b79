"""Renders the documentation's figures from their records in `results/` at docs-build time.

Every number a page states about a run comes from a record: a page calls a renderer through
the mkdocs-macros variable `r` (`{{ r.team.table1() }}`, `{{ r.jps.value("...") }}`), and the
renderer reads the record with `common.load`. One module per results family:

- `common`: loading records (and noting which were read), number formatting, provenance lines.
- one module per family (`jps`, `team`, `ed`, `bridge`, `speed`, `runner`, `summary`), each
  holding the tables and inline values of its pages;
- `cli`: the command-line reference, rendered from the commands' own flag definitions and
  `setup.py` (no record).

`tests/docs/test_docs_records.py` renders every page with these modules, checks that
every record is read by some page, that no page states a result number by hand, and that a
changed record value changes the page.
"""
import importlib
import os
import pkgutil
import types

import jinja2


def modules() -> dict:
  """Every renderer module of this package by name (the mkdocs-macros variable `r`)."""
  found = {}
  for info in pkgutil.iter_modules(__path__):
    if not info.name.startswith("_"):
      found[info.name] = importlib.import_module(f"{__name__}.{info.name}")
  return found


class Renderers(types.SimpleNamespace):
  """The renderer modules as attributes (`r.team`, `r.jps`, ...), as pages see them."""

  def __init__(self):
    super().__init__(**modules())


def render_markdown(text: str) -> str:
  """A page's Markdown with its `{{ ... }}` expressions rendered, as mkdocs-macros does."""
  env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
  return env.from_string(text).render(r=Renderers())


def render_page(path: str) -> str:
  """The page at `path` (a Markdown file under docs/) rendered from the records."""
  with open(path, encoding="utf-8") as f:
    return render_markdown(f.read())


def pages(docs_dir: str | None = None) -> list[str]:
  """Every Markdown page under docs/ (sorted paths)."""
  docs_dir = docs_dir or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  found = []
  for root, _, names in os.walk(docs_dir):
    found += [os.path.join(root, n) for n in names if n.endswith(".md")]
  return sorted(found)
