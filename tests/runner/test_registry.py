"""The solver registry (`runner.registry`): lookup and option checking."""

import pytest

from ospiel_team.runner import comparison
from ospiel_team.runner import registry


def test_every_adapter_is_registered():
  assert {"cfr", "cfr_plus", "jax_cfr", "xfp", "nfsp", "mmd", "jps", "cfr+jps", "ed",
          "neural_ed", "team_lp", "tree_cfr_plus", "dcfr", "pcfr_plus", "pdcfr_plus"} == set(
              registry.solver_names())
  assert registry.spec("ed").primary == "current"
  with pytest.raises(ValueError, match="unknown solver 'nope'; known: cfr, cfr"):
    registry.spec("nope")


def test_validate_options_names_the_bad_key_or_value():
  assert registry.validate_options(["cfr", "jps"], {"jps.depth": "2"}) == {
      "cfr": {}, "jps": {"jps.depth": "2"}}
  with pytest.raises(ValueError, match=r"'jps\.dpeth'.*valid options: .*jps\.depth"):
    registry.validate_options(["jps"], {"jps.dpeth": "3"})
  with pytest.raises(ValueError, match=r"'nfsp\.episodes'.*not accepted by any of the solvers cfr"):
    registry.validate_options(["cfr"], {"nfsp.episodes": "3"})
  with pytest.raises(ValueError, match=r"nfsp\.episodes='many' is not a valid int"):
    registry.validate_options(["nfsp"], {"nfsp.episodes": "many"})
  with pytest.raises(ValueError, match=r"jax_cfr\.plus='maybe' is not a valid bool"):
    registry.validate_options(["jax_cfr"], {"jax_cfr.plus": "maybe"})


def test_source_names_whose_implementation_a_solver_is():
  assert registry.spec("cfr_plus").source == "OpenSpiel"
  assert registry.spec("nfsp").source == "OpenSpiel"
  assert registry.spec("tree_cfr_plus").source == "ospiel_team"
  assert registry.spec("dcfr").source == "ospiel_team"


def _finals(game, solver, seeds):
  rows, _ = comparison.run_all(game, [solver], iterations=4, num_points=2, seeds=seeds,
                            progress=False)
  return [r["metric"] for s in seeds for r in rows if r["seed"] == s and r["iteration"] == 4]


@pytest.mark.parametrize("name", ["cfr", "tree_cfr_plus", "xfp", "mmd"])
def test_a_solver_not_marked_seeded_ignores_the_seed(name):
  assert not registry.spec(name).seeded
  a, b = _finals("kuhn_poker", name, [0]), _finals("kuhn_poker", name, [7])
  assert a == b


def test_a_seeded_solver_depends_on_the_seed():
  assert registry.spec("jps").seeded and registry.spec("nfsp").seeded
  assert _finals("mini_bridge(size=2)", "jps", [0]) != _finals("mini_bridge(size=2)", "jps", [7])
