"""Griffe extension: command-line usage in docstrings renders as text, not as Markdown links.

The command modules document their usage as lines indented by two spaces, e.g.
`ospiel-team-make-dataset --deals N [--seed 0] [--workers K]`; in Markdown, two bracketed
options in a row read as a reference link (`[text][label]`), which the strict build reports as
a missing cross-reference. This turns such indented usage paragraphs into fenced code blocks
and escapes any other `[--option]` outside code.

`lift_args_paragraph` (a list of object paths, set in mkdocs.yml) names docstrings whose
`Args:` section ends with a paragraph that is not an argument: that paragraph is moved above
the section, where the Google-style parser reads it as text.
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


_ARG = re.compile(r"^  [*\w][\w, *]*( \([^)]*\))?:( |$)")


def lifted_args_paragraph(text: str) -> str:
  """Moves the lines of the `Args:` section after its last argument entry above the section."""
  lines = text.split("\n")
  start = lines.index("Args:")
  end = next((i for i in range(start + 1, len(lines))
              if lines[i] and not lines[i].startswith("  ")), len(lines))
  body = lines[start + 1:end]
  cut = next((i for i, line in enumerate(body)
              if line.startswith("  ") and not line.startswith("    ") and not _ARG.match(line)),
             None)
  if cut is None:
    raise ValueError(f"no paragraph after the arguments of the Args section of: {text[:80]!r}")
  paragraph = [line[2:] for line in body[cut:]]
  return "\n".join(lines[:start] + paragraph + [""] + lines[start:start + 1 + cut]
                   + lines[end:])


class UsageBlocks(griffe.Extension):
  """Applies `rewrite` to every docstring once the object tree is built."""

  def __init__(self, lift_args_paragraph: list[str] | None = None):
    super().__init__()
    self._lift = set(lift_args_paragraph or ())

  def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
    del kwargs
    if obj.docstring is not None:
      text = obj.docstring.value
      if obj.path in self._lift:
        text = lifted_args_paragraph(text)
      obj.docstring.value = rewrite(text)
