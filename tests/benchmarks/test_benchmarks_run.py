"""Every script of `benchmarks/` runs: on its smallest setting, or with `--help` where even
that takes long.

Each script runs as a subprocess in a temporary working directory, with every output flag
pointing into it, so that nothing is written into the repository; the test checks that no
file of `results/`, `experiments/`, `docs/img/` or the package's shipped data changed. The
experiments' drivers (`experiments/<study>/`) have the same test in
`tests/experiments/test_experiments_run.py`, with these helpers. Each script is in
exactly one of:

- `SMALL`: run here on its smallest setting (the arguments below; `{tmp}` is the temporary
  folder); those that take over a minute even so are in `SLOW` and run with `-m slow`, and
  the default suite runs their `--help`;
- `ELSEWHERE`: run on a small setting by the named test, which also checks its outputs;
- `HELP_ONLY`: only `--help` (imports and flag parsing), with the reason.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from tests import repo as tests_repo

REPO = tests_repo.REPO
BENCHMARKS = os.path.join(REPO, "benchmarks")

# script -> its smallest setting's arguments ({tmp}: the test's temporary folder).
SMALL: dict[str, list[str]] = {
    "bridge_agents.py": ["--models", "a2c=a2c", "--cost_models", "natural",
                         "--out", "{tmp}/out", "--record", "{tmp}/uncontested.json"],
    "bridge_cross_table.py": ["--bidders", "natural,random", "--datasets", "heldout",
                              "--boards", "8", "--out", "{tmp}/cross",
                              "--record", "{tmp}/cross.json"],
    "bridge_dataset_throughput.py": ["--deals", "8", "--workers", "1",
                                     "--json_out", "{tmp}/throughput.json"],
    "bridge_dd_net.py": ["--train_deals", "20", "--hidden", "8", "--num_layers", "1",
                         "--steps", "3", "--evaluate_every", "2", "--cost_deals", "2",
                         "--model", "{tmp}/dd.npz", "--out", "{tmp}/dd.json"],
    "bridge_engine_speed.py": ["--batch_sizes", "8", "--repeats", "1", "--rounds", "1",
                               "--loop_calls", "20", "--nopgx"],
    "bridge_jax_env_speed.py": ["--deals", "2", "--repeats", "1", "--out", "{tmp}/jax.json"],
    "bridge_network_size.py": ["--sizes", "16x1", "--repeats", "1", "--deals_per_round", "4",
                               "--out", "{tmp}/network_size.json"],
    "bridge_search_cost.py": ["--model", "a2c", "--ks", "2", "--cost_boards", "1",
                              "--match_boards", "0", "--workdir", "{tmp}/work",
                              "--out", "{tmp}/search.json"],
    "bridge_selfplay_speed.py": ["--deals_per_round", "4", "--repeats", "1",
                                 "--updates_per_round", "1"],
    "cfr_growth.py": ["--ladder", "smoke", "--families", "goofspiel", "--solvers",
                      "cfr_plus,openspiel_cpp_cfr_plus", "--max_seconds", "1", "--repeats", "1",
                      "--block_seconds", "0.02", "--json_out", "{tmp}/growth.json",
                      "--figure", "{tmp}/growth.png"],
    "cfr_peers.py": ["--games", "kuhn_poker", "--solvers", "cfr_plus,openspiel_cpp_cfr_plus",
                     "--max_iterations", "50", "--repeats", "1", "--block_seconds", "0.02",
                     "--json_out", "{tmp}/peers.json", "--figure", "{tmp}/peers.png"],
    "cfr_solvers.py": ["--games", "kuhn_poker", "--repeats", "1", "--block_seconds", "0.02",
                       "--max_iterations", "20", "--max_seconds", "1",
                       "--json_out", "{tmp}/cfr_solvers.json"],
    "compare_four_games.py": ["--games", "0", "--solvers", "cfr,ed", "--seconds", "0.2",
                              "--seeds", "1",
                              "--num_points", "2", "--workers", "1", "--out", "{tmp}/out"],
    "coop_optima.py": ["--games", "tiny_hanabi", "--methods", "lp", "--time_limit", "60",
                       "--out", "{tmp}/optima.json", "--out_md", "{tmp}/optima.md",
                       "--package_data", "{tmp}/package_optima.json",
                       "--exact", "{tmp}/no_exact.json"],
    "ed_defaults.py": ["--games", "kuhn_poker=0.05", "--seeds", "1",
                       "--out", "{tmp}/ed_defaults.json"],
    "ed_openspiel_reproduction.py": ["--out", "{tmp}/ed_openspiel.json"],
    "ed_step_time.py": ["--game", "kuhn_poker", "--steps", "2", "--openspiel_calls", "1",
                        "--out", "{tmp}/out", "--json_out", "{tmp}/ed_step_time.json"],
    "ed_sweep.py": ["--games", "kuhn_poker", "--steps", "3", "--tabular_lr", "1",
                    "--tabular_schedule", "constant", "--neural_hidden", "8",
                    "--neural_lr", "0.1", "--out", "{tmp}/out"],
    "game_tree_speed.py": ["--game", "kuhn_poker", "--repeats", "2",
                           "--json_out", "{tmp}/game_tree_speed.json"],
    "jps_game_sizes.py": ["--games", "comm,tiny_hanabi"],
    "jps_speed.py": ["--game", "simple_bidding(size=3)", "--depth", "0",
                     "--cfr_iterations", "10", "--sample", "5", "--repeats", "1",
                     "--json_out", "{tmp}/jps_speed.json"],
    "jps_tiny_hanabi_game.py": ["--out", "{tmp}/tiny_hanabi_game.json"],
    "nfsp_curve.py": ["--games", "kuhn_poker", "--seconds", "0.3", "--seeds", "1",
                      "--num_points", "2", "--workers", "1", "--out", "{tmp}/out",
                      "--figure", "{tmp}/nfsp_curve.png"],
    "runner_figures.py": ["--only", "zero_sum", "--override", "seeds=1,seconds=0.1,num_points=2",
                          "--out", "{tmp}/out", "--img", "{tmp}/img",
                          "--records", "{tmp}/records"],
    "runner_nfsp_jit.py": ["--seconds", "0.3", "--out", "{tmp}/nfsp_jit.json"],
    "runner_notes.py": ["--episodes", "5", "--mmd_iterations", "5",
                        "--records", "{tmp}/records"],
    "team_21L523_lp.py": ["--instance", "21K3", "--time_limit", "60", "--memory_gb", "4",
                          "--out", "{tmp}/lp.json"],
    "team_21L523_routes.py": ["--instance", "21K4", "--cg_time_limit", "20",
                              "--out", "{tmp}/routes.json"],
    "team_cg_oracle.py": ["--instances", "21K3", "--out", "{tmp}/cg_oracle.json"],
    "team_fixed_costs.py": ["--instances", "21K3", "--repeats", "1",
                            "--out", "{tmp}/fixed_costs.json"],
    "team_dag_iteration.py": ["--instances", "21K3", "--iterations", "2",
                              "--tree_cache", "{tmp}/trees"],
    "team_dice_readings.py": ["--sides", "2", "--out", "{tmp}/dice_readings.json"],
    "team_lp_highs_options.py": ["--instances", "21K3", "--repeats", "1",
                                 "--out", "{tmp}/highs_options.json"],
    "team_plan_views.py": ["--solvers", "simplex", "--out", "{tmp}/plan_views.json"],
    "team_second_method.py": ["--instances", "21K3", "--dag_time_limit", "30",
                              "--mip_time_limit", "30", "--out", "{tmp}/second_method.json"],
    "wheel_size.py": ["--json_out", "{tmp}/wheel_size.json"],
}

# Scripts of SMALL that take over a minute even on their smallest setting.
SLOW: dict[str, str] = {}

# script -> the test that runs it on a small setting and checks what it writes.
ELSEWHERE: dict[str, str] = {
    "bridge_jps_search_cost.py": "tests/integration/test_benchmark_bridge_jps_search_cost.py",
    "ed_experiments.py": "tests/integration/test_benchmark_ed_experiments.py",
    "jps_beyond.py": "tests/integration/test_benchmark_jps_beyond.py",
    "jps_beyond_search.py": "tests/integration/test_benchmark_jps_beyond_search.py",
    "jps_experiments.py": "tests/integration/test_benchmark_jps_experiments.py",
    "jps_store_agreement.py": "tests/integration/test_benchmark_jps_experiments.py",
    "simple_bidding_exact.py": "tests/integration/test_benchmark_simple_bidding_exact.py",
    "team_lp_table.py": "tests/integration/test_benchmark_team_lp_table_second_from.py",
    "team_scaling.py": "tests/algorithms/team/test_scaling_benchmark.py",
}

# script -> why only its `--help` runs.
HELP_ONLY: dict[str, str] = {
    "native_kernels.py": "its old side is a git worktree of an old commit whose C kernels are "
                         "compiled first; every row runs subprocesses on both sides",
    "reliability_probes.py": "its work, the whole probe list, runs in the default suite "
                             "(tests/integration/test_reliability_probes.py, probes.run_all); "
                             "the script only writes that run as the record",
}

# Flags whose value is a path the script writes (checked to exist after the run).
OUTPUT_FLAGS = ("--out", "--out_md", "--json_out", "--figure", "--package_data", "--records",
                "--img", "--record")

# What a script must never write into (the repository's records, figures, shipped data).
GUARDED = ("results", "experiments", os.path.join("docs", "img"),
           os.path.join("ospiel_team", "runner", "data"),
           os.path.join("ospiel_team", "bridge", "models"))


def _scripts() -> list[str]:
  return sorted(f for f in os.listdir(BENCHMARKS) if f.endswith(".py"))


def _snapshot() -> dict[str, tuple[int, int]]:
  """(size, mtime) of every guarded file."""
  out = {}
  for top in GUARDED:
    for root, _, names in os.walk(os.path.join(REPO, top)):
      rel_root = os.path.relpath(root, REPO)
      if "__pycache__" in rel_root:
        continue
      for name in names:
        st = os.stat(os.path.join(root, name))
        out[os.path.join(rel_root, name)] = (st.st_size, st.st_mtime_ns)
  return out


def _run(args: list[str], tmp_path, timeout: float) -> subprocess.CompletedProcess:
  env = dict(os.environ, OSPIEL_TEAM_CACHE=str(tmp_path / "cache"), MPLBACKEND="Agg",
             PYTHONPATH=REPO)
  return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True,
                        text=True, timeout=timeout)


def test_every_script_is_covered_once():
  groups = [set(SMALL), set(ELSEWHERE), set(HELP_ONLY)]
  assert set().union(*groups) == set(_scripts()), "a benchmark script is in no group"
  assert sum(map(len, groups)) == len(_scripts()), "a benchmark script is in two groups"
  assert set(SLOW) <= set(SMALL)


@pytest.mark.parametrize("script", sorted(ELSEWHERE))
def test_elsewhere_names_a_test_that_runs_the_script(script):
  with open(os.path.join(REPO, ELSEWHERE[script]), encoding="utf-8") as f:
    text = f.read()
  assert script in text and "subprocess" in text, (script, ELSEWHERE[script])


def _small_params():
  return [pytest.param(s, marks=pytest.mark.slow) if s in SLOW else s for s in sorted(SMALL)]


@pytest.mark.parametrize("script", _small_params())
def test_runs_on_its_smallest_setting(script, tmp_path):
  args = [a.replace("{tmp}", str(tmp_path)) for a in SMALL[script]]
  before = _snapshot()
  res = _run([os.path.join(BENCHMARKS, script), *args], tmp_path, timeout=600)
  assert res.returncode == 0, (script, res.stdout[-3000:], res.stderr[-3000:])
  assert _snapshot() == before, f"{script} wrote into the repository"
  assert not (tmp_path / "results").exists(), f"{script} wrote a default results/ path"
  outputs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in OUTPUT_FLAGS]
  assert [o for o in outputs if not os.path.exists(o)] == [], f"{script}: outputs missing"


@pytest.mark.parametrize("script", sorted(HELP_ONLY) + sorted(SLOW))
def test_help(script, tmp_path):
  """`--help` imports the script and prints its usage (absl exits with 1 after it)."""
  path = os.path.join(BENCHMARKS, script)
  with open(path, encoding="utf-8") as f:
    first_line = ast.get_docstring(ast.parse(f.read())).splitlines()[0]
  res = _run([path, "--help"], tmp_path, timeout=300)
  assert res.returncode in (0, 1) and "Traceback" not in res.stderr, (script, res.stderr)
  assert first_line in res.stdout, (script, res.stdout[:500])
