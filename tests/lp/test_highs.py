"""HiGHS wrapper: solves with different `threads` follow one another in one process.

HiGHS starts one global task scheduler per process, with the `threads` option of the first run;
a later run with another count used to end in model status "Not Set". The scheduler is global,
so the test runs in a fresh interpreter (another test of the session may have started it).
"""

import json
import subprocess
import sys

import pytest

_SCRIPT = """
import json
from ospiel_team.algorithms.team import solve
values = [solve("kuhn_poker(players=3)", "0,1|2", method="lp", threads=t).value
          for t in (None, 1, 2, None, 1)]
print(json.dumps(values))
"""


def test_team_solves_with_different_thread_counts_in_one_process():
  out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                       timeout=600, check=False)
  assert out.returncode == 0, out.stderr[-2000:]
  values = json.loads(out.stdout.strip().splitlines()[-1])
  # -1/24: the team value of 3-player Kuhn poker, 0,1 against 2 (tests/algorithms/team)
  assert values == pytest.approx([-1 / 24] * 5, abs=1e-9)
