"""The public API: every subpackage names its public names in `__all__`, each name resolves,
and `import ospiel_team` stays cheap (the names load lazily, JAX only when used)."""
import importlib
import pkgutil
import subprocess
import sys
import types

import pytest

import ospiel_team


def _packages() -> list[str]:
  return sorted(m.name for m in pkgutil.walk_packages(ospiel_team.__path__, "ospiel_team.")
                if m.ispkg and not any(p.startswith("_") for p in m.name.split(".")))


def test_every_subpackage_names_its_public_api():
  missing = [p for p in _packages() if not hasattr(importlib.import_module(p), "__all__")]
  assert not missing, f"subpackages without __all__: {missing}"


@pytest.mark.parametrize("package", _packages())
def test_every_public_name_resolves_to_a_public_module(package):
  pkg = importlib.import_module(package)
  assert len(set(pkg.__all__)) == len(pkg.__all__), pkg.__all__
  for name in pkg.__all__:
    obj = getattr(pkg, name)
    home = obj.__name__ if isinstance(obj, types.ModuleType) else obj.__module__
    assert home.startswith("ospiel_team."), (package, name, home)
    assert not any(p.startswith("_") for p in home.split(".")), (package, name, home)
    assert name in dir(pkg)


def test_unknown_name_is_an_attribute_error():
  from ospiel_team import tree
  with pytest.raises(AttributeError, match="no_such_name"):
    tree.no_such_name  # noqa: B018


def test_the_documented_imports():
  from ospiel_team.algorithms.coop import JointPolicySearch
  from ospiel_team.algorithms.coop import JPSConfig
  from ospiel_team.algorithms.team import solve
  from ospiel_team.tree import GameTree
  from ospiel_team.tree import evaluation
  assert JointPolicySearch.__module__ == "ospiel_team.algorithms.coop.jps"
  assert JPSConfig.__name__ == "JPSConfig"
  assert callable(solve) and solve.__module__ == "ospiel_team.algorithms.team.solver"
  assert GameTree.__module__ == "ospiel_team.tree.game_tree" and callable(evaluation.nash_conv)


def test_import_ospiel_team_imports_no_jax_and_no_solver():
  code = ("import sys, ospiel_team, ospiel_team.tree, ospiel_team.bridge, ospiel_team.runner, "
          "ospiel_team.algorithms.nash, ospiel_team.bridge.agents; "
          "print(sorted(m for m in ('jax', 'numba', 'highspy', 'matplotlib') if m in sys.modules))")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       timeout=120).stdout
  assert out.strip() == "[]", out


def test_the_old_name_of_the_team_lp_warns_and_forwards():
  import importlib
  import sys

  from ospiel_team.algorithms.team import team_lp
  sys.modules.pop("ospiel_team.algorithms.team.lp", None)
  with pytest.warns(DeprecationWarning, match="algorithms.team.team_lp"):
    old = importlib.import_module("ospiel_team.algorithms.team.lp")
  assert old.solve is team_lp.solve and old.TeamLPResult is team_lp.TeamLPResult
  assert "lp" not in __import__("ospiel_team.algorithms.team").algorithms.team.__all__
