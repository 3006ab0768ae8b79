"""The comparison runner from the built wheel, outside the source tree.

The wheel ships the proven cooperative optima (`ospiel_team/runner/data/coop_optima.json`), so
the installed `python -m ospiel_team.compare` reads mini_bridge(size=4)'s optimum instead of
solving it again (about 50 s), and leaves nothing in the cache folder but what it uses.
"""

import json
import os
import site
import subprocess
import sys
import venv
import zipfile

from tests.integration.test_wheel import built_wheel  # noqa: F401  (the module's fixture)


def test_wheel_ships_the_coop_optima(built_wheel):  # noqa: F811
  path, _ = built_wheel
  names = zipfile.ZipFile(path).namelist()
  assert "ospiel_team/runner/data/coop_optima.json" in names
  shipped = json.loads(zipfile.ZipFile(path).read("ospiel_team/runner/data/coop_optima.json"))
  assert shipped["optima"]["mini_bridge(size=4)"]["value"] > 1.8


def test_installed_runner_reads_the_shipped_optimum(built_wheel, tmp_path):  # noqa: F811
  path, _ = built_wheel
  env_dir = tmp_path / "venv"
  venv.EnvBuilder(with_pip=False).create(env_dir)
  py = str(env_dir / "bin" / "python")
  own_site = subprocess.run([py, "-c", "import site; print(site.getsitepackages()[0])"],
                            capture_output=True, text=True, check=True).stdout.strip()
  deps = [p for p in site.getsitepackages() + [site.getusersitepackages()] if os.path.isdir(p)]
  with open(os.path.join(own_site, "zz_test_deps.pth"), "w") as f:
    f.write("\n".join(deps) + "\n")
  res = subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "--no-deps",
                        "--no-index", path], capture_output=True, text=True, timeout=300)
  assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
  work = tmp_path / "elsewhere"
  work.mkdir()
  env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
  env["OSPIEL_TEAM_CACHE"] = str(tmp_path / "cache")
  res = subprocess.run([py, "-m", "ospiel_team.compare", "--game", "mini_bridge(size=4)",
                        "--solvers", "cfr", "--iterations", "2", "--num_points", "2",
                        "--seeds", "1", "--workers", "1", "--out", str(work / "out")],
                       cwd=work, env=env, capture_output=True, text=True, timeout=600)
  assert res.returncode == 0, res.stderr[-3000:]
  data = json.loads((work / "out" / "results.json").read_text())
  assert data["reference"]["label"] == "cooperative optimum (proven, coop_optimum)"
  assert abs(data["reference"]["value"] - 1.84) < 1e-9  # the common payoff
  assert not (work / "out" / "reference.json").exists()  # read, not solved
  assert os.listdir(tmp_path / "cache") == ["jax_compilation_cache"]
