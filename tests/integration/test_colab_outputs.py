"""Every notebook in colabs/ installs what its user sets (in Colab only) and stores its outputs.

The outputs are produced by `python colabs/execute_notebooks.py` (run it after changing a
notebook); the tests in test_colab_*.py re-execute each notebook on small settings.
"""

import copy
import functools
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import types

import nbformat
import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
COLABS = os.path.join(REPO, "colabs")
NOTEBOOKS = sorted(f for f in os.listdir(COLABS) if f.endswith(".ipynb"))


@functools.cache
def _executor():
  """colabs/execute_notebooks.py (a script, not a package module)."""
  spec = importlib.util.spec_from_file_location(
      "execute_notebooks", os.path.join(COLABS, "execute_notebooks.py"))
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def test_every_notebook_has_small_settings_in_the_executor():
  module = _executor()
  assert sorted(module.SMALL_SETTINGS) == sorted(n[:-6] for n in NOTEBOOKS)
  for name in NOTEBOOKS:  # the small settings name variables the notebook assigns
    nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
    module.override_parameters(nb, module.SMALL_SETTINGS[name[:-6]], name)


def _run_first_cell(nb, name, monkeypatch, capsys, in_colab: bool, source: str | None = None):
  """Executes the install cell; returns (the subprocess.run calls it made, its stdout)."""
  cell = copy.deepcopy(nb.cells[0])
  if source is not None:
    fake = nbformat.v4.new_notebook(cells=[cell])
    _executor().override_parameters(fake, {"OSPIEL_TEAM_SOURCE": repr(source)}, name)
  calls = []
  monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append((a, k)))
  if in_colab:
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
  else:
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
  capsys.readouterr()
  exec(compile(cell.source, name, "exec"), {})
  return calls, capsys.readouterr().out


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_first_cell_installs_from_the_source_set_at_its_top(name, monkeypatch, capsys):
  nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
  first = nb.cells[0]
  assert first.cell_type == "code"
  code = [ln for ln in first.source.splitlines() if ln.strip() and not ln.startswith("#")]
  # The one variable a user sets comes first, empty, with a comment saying what to put there.
  assert code[0].startswith('OSPIEL_TEAM_SOURCE = ""  # '), code[0]
  assert "git+" in code[0] and "wheel" in code[0]
  assert "ospiel-team" not in first.source  # the distribution is on no package index
  # Outside Colab (here, and in the tests that run the notebooks) the cell does nothing.
  for source in (None, "git+https://example.org/ospiel_team"):
    assert _run_first_cell(nb, name, monkeypatch, capsys, False, source) == ([], "")
  # In Colab, unset: one line telling what to set, nothing installed, no error.
  calls, out = _run_first_cell(nb, name, monkeypatch, capsys, True)
  assert calls == [] and len(out.splitlines()) == 1
  assert "OSPIEL_TEAM_SOURCE" in out and "git+" in out and "wheel" in out
  # In Colab, set: pip installs exactly what was set.
  for source in ("git+https://example.org/ospiel_team",
                 "/content/ospiel_team-0.1.0-py3-none-any.whl"):
    calls, out = _run_first_cell(nb, name, monkeypatch, capsys, True, source)
    assert out == ""
    assert [(list(a[0]), k) for a, k in calls] == [
        ([sys.executable, "-m", "pip", "install", "-q", source], {"check": True})]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_text_claims_no_index_release_and_cites_existing_files(name):
  nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
  for cell in nb.cells:
    assert not re.search(r"pip install[^\n`]*ospiel[-_]team", cell.source), cell.source
    assert "<this repository>" not in cell.source
    for path in re.findall(r"\b(?:docs|results|benchmarks|examples|ospiel_team)/[\w./-]*\w",
                           cell.source):
      assert os.path.exists(os.path.join(REPO, path)), f"{name} cites {path}, which is missing"


def _machine_paths() -> list:
  home = os.path.expanduser("~")
  paths = {REPO, sys.prefix, sys.base_prefix, tempfile.gettempdir() + os.sep}
  return sorted(p for p in paths | ({home} if home != os.sep else set()) if len(p) > 1)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_outputs_hold_no_path_of_this_machine(name):
  nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
  texts = []
  for cell in nb.cells:
    for out in cell.get("outputs", []):
      texts.append(out.get("text", ""))
      texts.append("\n".join(out.get("traceback", [])))
      texts.extend(v for k, v in out.get("data", {}).items() if k.startswith("text/"))
  text = "\n".join(t if isinstance(t, str) else "".join(t) for t in texts)
  for path in _machine_paths():
    assert path not in text, f"{name} stores the path {path} in an output"
  found = re.findall(r"(?<![\w.~])/(?:home|root|tmp|work|Users|private|var/folders)/\S*", text)
  assert not found, f"{name} stores absolute paths in its outputs: {found}"


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
