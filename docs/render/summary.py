"""The summary table at the top of the results index (docs/results/index.md).

One row per reproduced paper figure, collected from every family module's `summary_rows()`
(each a dict with `paper`, `figure`, `status`, `why` and `page`, the page relative to
docs/results/). A family module without `summary_rows`, or a row with a missing key, an
unknown status or a page that does not exist, is an error: the summary never drops a family
silently.
"""
import importlib
import os

FAMILIES = ("jps", "exploitability_descent", "team", "bridge", "runner")
STATUSES = ("reproduced", "differs (explained)", "differs (open)", "not reproducible here")
KEYS = ("paper", "figure", "status", "why", "page")
RESULTS_PAGES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "results")


class SummaryError(ValueError):
  """A family module gives no summary rows, or a malformed one."""


def _cell(text) -> str:
  """A table cell: no line breaks, no column separators."""
  return " ".join(str(text).split()).replace("|", "\\|")


def rows(families: tuple[str, ...] = FAMILIES) -> list[dict]:
  """Every family's summary rows, checked, in family order.

  Args:
    families: module names under docs/render/.

  Returns:
    The rows, each a dict with the keys of `KEYS`.

  Raises:
    SummaryError: a module does not exist or lacks `summary_rows`, or a row has missing or
      extra keys, an unknown status, or a page that does not exist under docs/results/.
  """
  out = []
  for family in families:
    try:
      module = importlib.import_module(f"render.{family}")
    except ModuleNotFoundError as e:
      if e.name != f"render.{family}":
        raise
      raise SummaryError(f"docs/render/{family}.py does not exist: the results summary needs "
                         "its summary_rows()") from e
    if not hasattr(module, "summary_rows"):
      raise SummaryError(f"docs/render/{family}.py defines no summary_rows(): the results "
                         "summary needs its rows (paper, figure, status, why, page)")
    for row in module.summary_rows():
      if set(row) != set(KEYS):
        raise SummaryError(f"docs/render/{family}.py: summary row {row!r} has keys "
                           f"{sorted(row)}, wants {list(KEYS)}")
      if row["status"] not in STATUSES:
        raise SummaryError(f"docs/render/{family}.py: status {row['status']!r} is none of "
                           f"{STATUSES}")
      page = row["page"].split("#")[0]
      if not os.path.isfile(os.path.join(RESULTS_PAGES, page)):
        raise SummaryError(f"docs/render/{family}.py: page {row['page']!r} is no file under "
                           "docs/results/")
      out.append(row)
  return out


def counts(families: tuple[str, ...] = FAMILIES) -> str:
  """'N figures: a reproduced, b differs (explained), ...' (statuses that occur)."""
  found = rows(families)
  parts = [f"{sum(r['status'] == s for r in found)} {s}" for s in STATUSES
           if any(r["status"] == s for r in found)]
  return f"{len(found)} figures: " + ", ".join(parts) if found else "no figures"


def table(families: tuple[str, ...] = FAMILIES) -> str:
  """The summary table: paper, figure, status, why, and a link to the page.

  Args:
    families: module names under docs/render/.

  Returns:
    A Markdown table (links relative to docs/results/).
  """
  header = ["paper", "figure", "status", "why", "page"]
  lines = ["| " + " | ".join(header) + " |", "|---|---|---|---|---|"]
  for row in rows(families):
    name = row["page"].split("#")[0].removesuffix(".md")
    cells = [_cell(row["paper"]), _cell(row["figure"]), f"**{_cell(row['status'])}**",
             _cell(row["why"]), f"[{name}]({row['page']})"]
    lines.append("| " + " | ".join(cells) + " |")
  return "\n".join(lines)


def findings(family: str) -> str:
  """The opening table of a family's results page: each figure it reproduces, with its status
  and why (the summary's rows of that family, without the page column).

  Args:
    family: a module name under docs/render/ (one of `FAMILIES`).

  Returns:
    A Markdown table.
  """
  lines = ["| paper | figure | status | why |", "|---|---|---|---|"]
  for row in rows((family,)):
    lines.append(f"| {_cell(row['paper'])} | {_cell(row['figure'])} | "
                 f"**{_cell(row['status'])}** | {_cell(row['why'])} |")
  return "\n".join(lines)
