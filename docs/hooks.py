"""mkdocs hooks: every figure of a page links to its full-size file.

A figure shown at the column's width (on a phone, 358 px for an 8-panel plot) is only legible
at its own size: `on_page_content` wraps each `<img>` of a page's content that is not inside a
link already in `<a class="figure-full" href="SRC">`, so that a tap opens the file itself.
`tests/docs/layout_check.py` checks that every figure of the results pages is linked so.
"""
import re

_LINK = re.compile(r"(<a\b[^>]*>.*?</a>)", re.S | re.I)
_IMG = re.compile(r"<img\b[^>]*>", re.I)
_SRC = re.compile(r"""\bsrc=(["'])(.*?)\1""", re.I)
_ICON = re.compile(r"""\bclass=(["'])[^"']*\b(twemoji|emojione)\b""", re.I)


def link_figures(html: str) -> str:
  """`html` with each image outside a link wrapped in a link to its own file."""
  def wrap(match: re.Match) -> str:
    img = match.group(0)
    src = _SRC.search(img)
    if src is None or _ICON.search(img) or src.group(2).startswith("data:"):
      return img
    return f'<a class="figure-full" href="{src.group(2)}" title="full size">{img}</a>'
  parts = _LINK.split(html)
  return "".join(part if i % 2 else _IMG.sub(wrap, part) for i, part in enumerate(parts))


def on_page_content(html, page, config, files):  # noqa: ARG001  (mkdocs' hook signature)
  """mkdocs hook: the page's content HTML with its figures linked to their files."""
  return link_figures(html)
