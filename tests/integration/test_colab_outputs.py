"""Every notebook in colabs/ installs itself in Colab and is stored with its outputs.

The outputs are produced by `python colabs/execute_notebooks.py` (run it after changing a
notebook); the tests in test_colab_*.py re-execute each notebook on small settings.
"""

import os

import nbformat
import pytest
from tests import repo as tests_repo

REPO = tests_repo.REPO
COLABS = os.path.join(REPO, "colabs")
NOTEBOOKS = sorted(f for f in os.listdir(COLABS) if f.endswith(".ipynb"))


def test_every_notebook_has_small_settings_in_the_executor():
  import importlib.util  #
  spec = importlib.util.spec_from_file_location(
      "execute_notebooks", os.path.join(COLABS, "execute_notebooks.py"))
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  assert sorted(module.SMALL_SETTINGS) == sorted(n[:-6] for n in NOTEBOOKS)
  for name in NOTEBOOKS:  # the small settings name variables the notebook assigns
    nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
    module.override_parameters(nb, module.SMALL_SETTINGS[name[:-6]], name)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_first_cell_installs_the_package_only_in_colab(name):
  nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
  first = nb.cells[0]
  assert first.cell_type == "code"
  lines = first.source.splitlines()
  assert 'if "google.colab" in sys.modules:' in lines
  install = [ln for ln in lines if "pip" in ln and not ln.lstrip().startswith("#")]
  assert len(install) == 1 and '"ospiel-team"' in install[0]
  assert any(ln.lstrip().startswith("#") and "source checkout" in ln for ln in lines)
  # Outside Colab the cell installs nothing: running it here is a no-op.
  exec(compile(first.source, name, "exec"), {})  #


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_stored_with_outputs_of_one_top_to_bottom_run(name):
  nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
  code = [c for c in nb.cells if c.cell_type == "code"]
  counts = [c.execution_count for c in code]
  assert all(isinstance(n, int) for n in counts), (
      f"{name} has unexecuted cells; run: python colabs/execute_notebooks.py --notebooks "
      f"{name[:-6]}")
  assert counts == list(range(1, len(code) + 1)), f"{name} was not run top to bottom: {counts}"
  outputs = [o for c in code for o in c.outputs]
  assert not [o for o in outputs if o.output_type == "error"]
  shown = [o for o in outputs if o.output_type in ("display_data", "execute_result")
           or (o.output_type == "stream" and o.get("text", "").strip())]
  assert shown, f"{name} stores no outputs"
