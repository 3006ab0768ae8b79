"""Every test in this folder runs a command, script, notebook or the built wheel."""
import pytest


def pytest_collection_modifyitems(items):
  for item in items:
    if "/tests/integration/" in str(item.fspath):
      item.add_marker(pytest.mark.integration)
