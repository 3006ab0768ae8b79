"""The solver registry (`runner.registry`): lookup and option checking."""

import pytest

from ospiel_team.runner import registry


def test_every_adapter_is_registered():
  assert {"cfr", "cfr_plus", "jax_cfr", "xfp", "nfsp", "mmd", "jps", "cfr+jps", "ed",
          "neural_ed", "team_lp", "dcfr", "pcfr_plus", "pdcfr_plus"} == set(
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
