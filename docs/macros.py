"""mkdocs-macros entry point: the variable `r` holds the renderers of `docs/render/`.

A page writes `{{ r.team.table1() }}`; the renderer reads its record in `results/`.
"""
import os
import sys

_DOCS = os.path.dirname(os.path.abspath(__file__))
if _DOCS not in sys.path:
  sys.path.insert(0, _DOCS)

import render  # noqa: E402  (docs/render, importable once docs/ is on the path)


def define_env(env) -> None:
  """Called by mkdocs-macros: exposes the renderer modules to every page as `r`."""
  env.variables["r"] = render.Renderers()
