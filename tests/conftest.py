"""Shared test helpers."""
import functools
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.cache
def _executor():
  """colabs/execute_notebooks.py (not a package), whose parameter override the tests share."""
  import importlib.util
  spec = importlib.util.spec_from_file_location(
      "execute_notebooks", os.path.join(REPO, "colabs", "execute_notebooks.py"))
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def execute_notebook(relpath: str, parameters: dict, timeout: int = 900):
  """Executes a notebook with its first `NAME = value` assignments overridden.

  `parameters` maps a variable name to the Python source of its new value; every name must
  be assigned at the start of a line in some code cell (else KeyError: the test is stale).
  Returns the executed notebook.
  """
  import nbclient
  import nbformat
  nb = nbformat.read(os.path.join(REPO, relpath), as_version=4)
  _executor().override_parameters(nb, parameters, relpath)
  client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                   resources={"metadata": {"path": REPO}})
  client.execute()
  return nb


@pytest.fixture
def run_notebook():
  return execute_notebook
