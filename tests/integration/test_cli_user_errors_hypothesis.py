"""Property: a bad numeric flag value (negative, zero where a positive count is needed, NaN, an
infinity, a huge number) makes every command exit with status 2 after exactly one line on
stderr that names the flag, without a traceback and before any work.

Each command runs in this process (each command's `main(argv)`, on its own flags); a handful of
examples per command keeps the file within seconds.
"""
import math

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from ospiel_team.cli import compare as compare_cli
from ospiel_team.cli import coop_optimum as coop_cli
from ospiel_team.cli import make_dataset as make_dataset_cli
from ospiel_team.cli import match as match_cli
from ospiel_team.cli import team_solve as solve_cli
from ospiel_team.cli import uncontested as uncontested_cli

# command -> {flag: (kind, smallest valid value)}
FLAGS = {
    "coop_optimum": {"time_limit": ("float", 0), "lp_max_local": ("int", 1),
                     "jps_depth": ("int", 1), "cfr_iterations": ("int", 1)},
    "team_solve": {"time_limit": ("float", 0), "tol": ("float", 0),
                   "certify_time_limit": ("float", 0), "progress_interval": ("float", 0)},
    "compare": {"iterations": ("int", 1), "seconds": ("float", 1e-9), "num_points": ("int", 1),
                "workers": ("int", 0), "seeds": ("int", 1)},
    "make_dataset": {"deals": ("int", 1), "chunk": ("int", 1), "seed": ("int", 0),
                     "workers": ("int", 1)},
    "match": {"boards": ("int", 1), "seed": ("int", 0)},
    "uncontested": {"pairs": ("int", 1), "k": ("int", 1), "seed": ("int", 0),
                    "chunk": ("int", 1), "q_iterations": ("int", 0), "q_rounds": ("int", 1),
                    "q_ucb": ("float", 0)},
}


def _bad_values(kind: str, smallest: float) -> st.SearchStrategy:
  """Values below the flag's range, not finite, or far above any plausible size."""
  huge_int = st.integers(min_value=2**64, max_value=2**200)
  below_int = st.integers(max_value=math.ceil(smallest) - 1, min_value=-2**70)
  if kind == "int":
    return st.one_of(below_int, huge_int).map(str)
  below = st.floats(max_value=smallest, exclude_max=True, allow_nan=False,
                    allow_infinity=False, min_value=-1e300)
  return st.one_of(below.map(repr), st.sampled_from(["nan", "inf", "-inf", "1e300", "-1e-300"]
                                                   if smallest >= 0 else ["nan", "inf"]),
                   huge_int.map(str))


def _run(command: str, flag: str, value: str, tmp: str) -> int:
  arg = f"--{flag}={value}"
  if command == "coop_optimum":
    return coop_cli.main(["coop", "--game", "tiny_hanabi", arg])
  if command == "team_solve":
    return solve_cli.main(["solve", "--game", "kuhn_poker(players=3)", "--teams", "0,1|2", arg])
  if command == "compare":
    return compare_cli.main(["compare", "--out", f"{tmp}/compare", "--workers", "1", arg])
  if command == "make_dataset":
    return make_dataset_cli.main(["make_dataset", "--deals", "1", "--out", f"{tmp}/d.npz", arg])
  if command == "match":
    return match_cli.main(["match", "--out", f"{tmp}/match", arg])
  return uncontested_cli.main(["uncontested", "--out", f"{tmp}/cost.npz", arg])


CASES = [(c, f) for c, flags in FLAGS.items() for f in flags]


@pytest.mark.parametrize("command,flag", CASES)
def test_bad_numeric_flag_is_one_line_naming_it(command, flag, tmp_path, capfd):
  kind, smallest = FLAGS[command][flag]

  @settings(max_examples=4, deadline=None, database=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture])
  @given(value=_bad_values(kind, smallest))
  def check(value):
    capfd.readouterr()
    rc = _run(command, flag, value, str(tmp_path))
    err = capfd.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, (value, err)
    assert len(lines) == 1 and f"--{flag}" in lines[0], (value, err)
    assert "Traceback" not in err

  check()
