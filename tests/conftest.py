"""Shared test helpers."""
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def execute_notebook(relpath: str, parameters: dict, timeout: int = 900):
  """Executes a notebook with its first `NAME = value` assignments overridden.

  `parameters` maps a variable name to the Python source of its new value; every name must
  be assigned at the start of a line in some code cell (else KeyError: the test is stale).
  Returns the executed notebook.
  """
  import nbclient  # pylint: disable=g-import-not-at-top
  import nbformat  # pylint: disable=g-import-not-at-top
  nb = nbformat.read(os.path.join(REPO, relpath), as_version=4)
  remaining = dict(parameters)
  for cell in nb.cells:
    if cell.cell_type != "code":
      continue
    lines = cell.source.split("\n")
    for i, line in enumerate(lines):
      for name in list(remaining):
        if line.startswith(f"{name} = "):
          lines[i] = f"{name} = {remaining.pop(name)}"
    cell.source = "\n".join(lines)
  if remaining:
    raise KeyError(f"notebook {relpath} assigns no {sorted(remaining)}")
  client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                   resources={"metadata": {"path": REPO}})
  client.execute()
  return nb


@pytest.fixture
def run_notebook():
  return execute_notebook
