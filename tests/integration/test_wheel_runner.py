"""The comparison runner from the built wheel, outside the source tree.

The wheel ships the proven cooperative optima (`ospiel_team/runner/data/coop_optima.json`), so
the installed command (`python -m ospiel_team.cli.compare`, the module of `ospiel-team-compare`)
reads mini_bridge(size=4)'s optimum instead of solving it again (about 50 s), and leaves nothing
in the cache folder but what it uses.
"""

import json
import os
import subprocess
import zipfile

from tests.integration.test_wheel import built_wheel  # noqa: F401  (the module's fixture)
from tests.integration.test_wheel import install_outside_the_source_tree


def test_wheel_ships_the_coop_optima(built_wheel):  # noqa: F811
  path, _ = built_wheel
  names = zipfile.ZipFile(path).namelist()
  assert "ospiel_team/runner/data/coop_optima.json" in names
  shipped = json.loads(zipfile.ZipFile(path).read("ospiel_team/runner/data/coop_optima.json"))
  assert shipped["optima"]["mini_bridge(size=4)"]["value"] > 1.8


def test_installed_runner_reads_the_shipped_optimum(built_wheel, tmp_path):  # noqa: F811
  py, work, env = install_outside_the_source_tree(built_wheel[0], tmp_path)
  env["OSPIEL_TEAM_CACHE"] = str(tmp_path / "cache")
  res = subprocess.run([py, "-m", "ospiel_team.cli.compare", "--game", "mini_bridge(size=4)",
                        "--solvers", "cfr", "--iterations", "2", "--num_points", "2",
                        "--seeds", "1", "--workers", "1", "--out", str(work / "out")],
                       cwd=work, env=env, capture_output=True, text=True, timeout=600)
  assert res.returncode == 0, res.stderr[-3000:]
  data = json.loads((work / "out" / "results.json").read_text())
  assert data["reference"]["label"] == "cooperative optimum (proven, coop_optimum)"
  assert abs(data["reference"]["value"] - 1.84) < 1e-9  # the common payoff
  assert not (work / "out" / "reference.json").exists()  # read, not solved
  assert os.listdir(tmp_path / "cache") == ["jax_compilation_cache"]
