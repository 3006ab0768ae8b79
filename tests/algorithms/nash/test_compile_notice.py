"""The first call after an install says once that numba compiles the kernels, and for how long.

Each case runs in a subprocess with `NUMBA_CACHE_DIR` pointing to an empty folder (a cold
cache, as after an install), then again with the same folder (warm: nothing is printed).
"""

import os
import subprocess
import sys
import textwrap

import pytest

from tests import repo as tests_repo

_TINY = textwrap.dedent("""
    import io, sys
    import numba
    from ospiel_team import compile_notice

    @numba.njit(cache=True)
    def kernel(x):
      return x + 1

    out = io.StringIO()
    for _ in range(3):  # three first calls in one process: one announcement at most
      with compile_notice.announce("tiny", [kernel], stream=out):
        kernel(1)
    print(out.getvalue(), end="")
    """)

_CFR = textwrap.dedent("""
    import pyspiel
    from ospiel_team.algorithms.nash import cfr
    from ospiel_team.tree.game_tree import GameTree
    tree = GameTree(pyspiel.load_game("kuhn_poker"))
    for cls in (cfr.TreeCFRPlusSolver, cfr.TreeDCFRSolver):
      solver = cls(tree)
      for _ in range(3):
        solver.evaluate_and_update_policy()
    """)


def _run(code, tmp_path, cache):
  script = tmp_path / "script.py"  # a file, so that numba can cache the script's own kernel
  script.write_text(code)
  env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=tests_repo.REPO)
  res = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
  assert res.returncode == 0, res.stderr[-2000:]
  return res


def test_announced_once_when_cold_and_silent_when_warm(tmp_path):
  cache = tmp_path / "numba_cache"
  cold = _run(_TINY, tmp_path, cache).stdout
  assert cold.count("compiling the numba kernels of tiny") == 1
  assert cold.count("compiled the numba kernels of tiny in ") == 1
  assert os.listdir(cache), "numba wrote no cache"
  warm = _run(_TINY, tmp_path, cache).stdout
  assert warm == ""


@pytest.mark.slow
def test_cfr_first_iteration_announces_its_compilation(tmp_path):
  cache = tmp_path / "numba_cache"
  cold = _run(_CFR, tmp_path, cache).stderr
  assert cold.count("compiling the numba kernels of CFR") == 1, cold
  assert cold.count("compiled the numba kernels of CFR in ") == 1, cold
  warm = _run(_CFR, tmp_path, cache).stderr
  assert "numba kernels" not in warm, warm


_TEAM = textwrap.dedent("""
    from ospiel_team.algorithms.team import belief_dag
    for _ in range(2):  # two solves in one process: each group announced once at most
      belief_dag.solve("team_kuhn(ranks=3)", "0,1|2", max_iterations=20, check_every=10)
    """)


@pytest.mark.slow
def test_team_solve_announces_its_compilation(tmp_path):
  """The team solvers' kernels (the decompositions' and the belief DAG's): announced once when
  numba compiles them, silent once they are cached."""
  cache = tmp_path / "numba_cache"
  cold = _run(_TEAM, tmp_path, cache).stderr
  for group in ("the team decompositions", "the team belief DAG"):
    assert cold.count(f"compiling the numba kernels of {group}") == 1, cold
    assert cold.count(f"compiled the numba kernels of {group} in ") == 1, cold
  warm = _run(_TEAM, tmp_path, cache).stderr
  assert "numba kernels" not in warm, warm
