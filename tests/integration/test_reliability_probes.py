"""The robustness probes (`tests/integration/probes.py`): every one answers clearly, the
harness tells the outcomes apart (a crash included), and the results page's record is of the
same list.
"""
import json
import os
import signal

import pytest

from tests import repo as tests_repo
from tests.integration import probes

RECORD = os.path.join(tests_repo.REPO, "results", "reliability", "probes.json")


def _returns(_):
  probes.refuses(lambda: 42, ValueError, "x")


def _type_error(_):
  probes.refuses(lambda: len(5), ValueError, "x")


def _other_message(_):
  def bad():
    raise ValueError("something else")
  probes.refuses(bad, ValueError, "the value")


def _killed(_):
  os.kill(os.getpid(), signal.SIGKILL)


def _clear(_):
  def bad():
    raise ValueError("the value 7 is wrong")
  probes.refuses(bad, ValueError, "the value", "7")


# A list for the harness's own test: one probe per outcome, the crash in the middle.
FAKE = (probes.Probe("bad argument", "returns an answer", _returns),
        probes.Probe("bad argument", "a TypeError from inside", _type_error),
        probes.Probe("bad argument", "the process is killed", _killed),
        probes.Probe("bad argument", "a ValueError without the value", _other_message),
        probes.Probe("bad argument", "a ValueError naming the value", _clear))


def test_the_harness_tells_the_outcomes_apart_and_survives_a_crash():
  records = probes.run_all(["tests.integration.test_reliability_probes:FAKE"], timeout=120)
  assert [r["outcome"] for r in records] == ["silent", "traceback", "crash", "unclear", "clear"]
  assert "-9" in records[2]["detail"]  # SIGKILL
  counts = probes.summary(records)["classes"]["bad argument"]
  assert {k: counts[k] for k in probes.OUTCOMES} == dict(
      clear=1, unclear=1, traceback=1, crash=1, silent=1)


@pytest.fixture(scope="module")
def records():
  return probes.run_all(timeout=600)


def test_every_probe_answers_clearly(records):
  bad = [(r["klass"], r["description"], r["outcome"], r["detail"]) for r in records
         if r["outcome"] != "clear"]
  assert not bad, bad
  assert {r["klass"] for r in records} == set(probes.CLASSES)  # every class has probes


def test_the_record_is_of_the_suites_probe_list():
  """The results page's record names the probes of this list, in order (rerun
  `benchmarks/reliability_probes.py` after changing the list)."""
  with open(RECORD, encoding="utf-8") as f:
    record = json.load(f)
  assert [(r["klass"], r["description"]) for r in record["probes"]] == [
      (p.klass, p.description) for p in probes.PROBES]
  assert probes.summary(record["probes"]) == {k: record[k] for k in ("classes", "faults")}
