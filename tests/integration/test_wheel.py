"""The wheel (`pip wheel . --no-deps`) installs and works without the source tree.

Builds the wheel from a copy of the files a source distribution holds (setup.py, README.md,
LICENSE, ospiel_team/), without build isolation (offline, a few seconds), installs it with
`pip --python` into a fresh virtualenv whose dependencies come from this interpreter's
site-packages (a .pth line, which does not run this environment's editable-install hook), and
there, from a folder outside the source tree, imports the package, loads bridge_bidding and plays
a 10-board match with a shipped model.
"""

import email
import json
import os
import shutil
import site
import subprocess
import sys
import venv
import zipfile

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory):
  src = tmp_path_factory.mktemp("src")
  for name in ("setup.py", "README.md", "LICENSE"):
    shutil.copy(os.path.join(REPO, name), src / name)
  shutil.copytree(os.path.join(REPO, "ospiel_team"), src / "ospiel_team",
                  ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
  dist = tmp_path_factory.mktemp("dist")
  res = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps",
                        "--no-build-isolation", "--no-index", "-v", "-w", str(dist)],
                       cwd=src, capture_output=True, text=True, timeout=300)
  assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
  wheels = [f for f in os.listdir(dist) if f.endswith(".whl")]
  assert len(wheels) == 1, wheels
  return str(dist / wheels[0]), res.stdout + res.stderr


def test_wheel_has_data_metadata_and_no_packaging_warnings(built_wheel):
  path, log = built_wheel
  # setuptools warned "Package 'ospiel_team.bridge.data' is absent from the `packages`
  # configuration" (and the same for models) before the data folders were packages.
  assert "absent from the `packages`" not in log
  assert "BuildBackendWarning" not in log
  names = zipfile.ZipFile(path).namelist()
  for shipped in ("bridge/data", "bridge/models"):
    folder = os.path.join(REPO, "ospiel_team", shipped)
    for f in os.listdir(folder):
      if f.endswith(".npz"):
        assert f"ospiel_team/{shipped}/{f}" in names
  meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
  meta = email.message_from_bytes(zipfile.ZipFile(path).read(meta_name))
  assert meta["Name"] == "ospiel-team"
  import ospiel_team
  assert meta["Version"] == ospiel_team.__version__
  assert "Apache-2.0" in (meta.get("License-Expression") or meta.get("License") or "")
  assert meta["Description-Content-Type"] == "text/markdown"
  with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
    assert meta.get_payload().strip().splitlines()[0] == f.readline().strip()
  assert any(c.startswith("Programming Language :: Python :: 3")
             for c in meta.get_all("Classifier"))
  assert meta.get_all("Project-URL")
  assert any(n.endswith("LICENSE") for n in names)


def install_outside_the_source_tree(wheel_path: str, tmp_path):
  """Installs the wheel into a fresh virtualenv (dependencies from this interpreter).

  Returns the new interpreter, an empty working folder outside the source tree, and an
  environment without PYTHONPATH / PYTHONHOME; asserts the package imports from the new
  site-packages, not from the source tree.
  """
  env_dir = tmp_path / "venv"
  venv.EnvBuilder(with_pip=False).create(env_dir)
  py = str(env_dir / "bin" / "python")
  own_site = subprocess.run([py, "-c", "import site; print(site.getsitepackages()[0])"],
                            capture_output=True, text=True, check=True).stdout.strip()
  # Dependencies from this interpreter (plain path lines: its .pth hooks, including the
  # editable install of the source tree, do not run in the new environment).
  deps = [p for p in site.getsitepackages() + [site.getusersitepackages()] if os.path.isdir(p)]
  with open(os.path.join(own_site, "zz_test_deps.pth"), "w") as f:
    f.write("\n".join(deps) + "\n")
  res = subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "--no-deps",
                        "--no-index", wheel_path], capture_output=True, text=True, timeout=300)
  assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
  work = tmp_path / "elsewhere"
  work.mkdir()
  env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
  check = (f"import os, ospiel_team; assert os.path.realpath(ospiel_team.__file__).startswith("
           f"os.path.realpath({own_site!r})), ospiel_team.__file__")
  res = subprocess.run([py, "-c", check], cwd=work, env=env, capture_output=True, text=True,
                       timeout=300)
  assert res.returncode == 0, res.stderr[-3000:]
  return py, work, env


def test_wheel_size_record_matches_the_shipped_files(built_wheel):
  """The install page's wheel size (results/install/wheel_size.json) is this wheel's: the
  shipped models and datasets hold the recorded bytes exactly (they change only when a shipped
  file does: then `benchmarks/wheel_size.py` must be rerun) and compress to within 1% of the
  recorded size (zlib versions differ), the whole wheel to within 10% (the code changes with
  every commit)."""
  with open(os.path.join(REPO, "results", "install", "wheel_size.json")) as f:
    record = json.load(f)
  parts = {"models": [0, 0], "datasets": [0, 0]}
  with zipfile.ZipFile(built_wheel[0]) as z:
    for info in z.infolist():
      for part, folder in (("models", "models"), ("datasets", "data")):
        if info.filename.startswith(f"ospiel_team/bridge/{folder}/"):
          parts[part][0] += info.file_size
          parts[part][1] += info.compress_size
  for part, (size, compressed) in parts.items():
    assert size == record["parts"][part]["bytes"], part
    assert abs(compressed / record["parts"][part]["compressed_bytes"] - 1) < 0.01, part
  assert abs(os.path.getsize(built_wheel[0]) / record["wheel_bytes"] - 1) < 0.10


def test_wheel_installs_and_plays_a_match_outside_the_source_tree(built_wheel, tmp_path):
  py, work, env = install_outside_the_source_tree(built_wheel[0], tmp_path)
  script = (
      "import ospiel_team, pyspiel\n"
      "game = pyspiel.load_game('bridge_bidding')\n"
      "print('loaded', game, 'version', ospiel_team.__version__)\n")
  res = subprocess.run([py, "-c", script], cwd=work, env=env, capture_output=True, text=True,
                       timeout=300)
  assert res.returncode == 0, res.stderr[-3000:]
  assert "loaded bridge_bidding(" in res.stdout
  res = subprocess.run([py, "-m", "ospiel_team.cli.match", "--bidder_a", "a2c",
                        "--bidder_b", "natural", "--boards", "10", "--out", str(work / "m")],
                       cwd=work, env=env, capture_output=True, text=True, timeout=300)
  assert res.returncode == 0, res.stderr[-3000:]
  assert "over 10 boards" in res.stdout
  assert os.path.exists(work / "m" / "match.json")
