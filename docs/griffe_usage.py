"""Griffe extension: command-line usage in docstrings renders as text, not as Markdown links.

The command modules document their usage as lines indented by two spaces, e.g.
`ospiel-team-make-dataset --deals N [--seed 0] [--workers K]`; in Markdown, two bracketed
options in a row read as a reference link (`[text][label]`), which the strict build reports as
a missing cross-reference. This turns such indented usage paragraphs into fenced code blocks
and escapes any other `[--option]` outside code.
"""
import re

import griffe

_USAGE_START = re.compile(r"^ {2,}(ospiel-team-\S+|python3? -m \S+|python \S+\.py)\b")
_OPTION = re.compile(r"(?<!\\)\[(--[^\]`]*)\]")


def _escape_options(line: str) -> str:
  """Escapes `[--option]` outside inline code spans."""
  pieces = line.split("`")
  for i in range(0, len(pieces), 2):
    pieces[i] = _OPTION.sub(r"\\[\1\\]", pieces[i])
  return "`".join(pieces)


def rewrite(text: str) -> str:
  """Returns the docstring with usage paragraphs fenced and other `[--option]`s escaped."""
  out, lines, i, fenced = [], text.split("\n"), 0, False
  while i < len(lines):
    line = lines[i]
    if line.lstrip().startswith("```"):
      fenced = not fenced
    if not fenced and _USAGE_START.match(line) and (i == 0 or not lines[i - 1].strip()):
      block = []
      while i < len(lines) and lines[i].startswith("  "):
        block.append(lines[i])
        i += 1
      indent = min(len(b) - len(b.lstrip()) for b in block if b.strip())
      out += ["```bash", *(b[indent:] for b in block), "```"]
      continue
    out.append(line if fenced else _escape_options(line))
    i += 1
  return "\n".join(out)


class UsageBlocks(griffe.Extension):
  """Applies `rewrite` to every docstring once the object tree is built."""

  def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
    del kwargs
    if obj.docstring is not None:
      obj.docstring.value = rewrite(obj.docstring.value)
