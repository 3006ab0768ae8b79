"""`A2CConfig` checks every field by its rule (finite, range, integer-ness) and the training
command refuses the same values with the same message, naming the flag and the value."""

import dataclasses
import math

import numpy as np
import pytest

from ospiel_team import checks
from ospiel_team.bridge.agents.training.a2c_config import FIELD_RULES
from ospiel_team.bridge.agents.training.a2c_config import A2CConfig
from ospiel_team.cli import train_bridge
from ospiel_team.errors import UserError

# (field, value, the message's tail); each value breaks exactly one rule.
BAD = [
    ("learning_rate", math.nan, "a finite number > 0, got nan"),
    ("learning_rate", math.inf, "a finite number > 0, got inf"),
    ("learning_rate", 0.0, "a finite number > 0, got 0.0"),
    ("entropy_coef", math.nan, "a finite number >= 0, got nan"),
    ("entropy_coef_start", -math.inf, "a finite number >= 0, got -inf"),
    ("value_coef", math.nan, "a finite number >= 0, got nan"),
    ("ratio_clip", math.nan, "a finite number > 0, got nan"),
    ("ratio_clip", math.inf, "a finite number > 0, got inf"),
    ("clip_eps", math.nan, "a finite number > 0 and < 1, got nan"),
    ("gae_lambda", math.inf, "a finite number from 0 to 1, got inf"),
    ("pool_probability", math.nan, "a finite number from 0 to 1, got nan"),
    ("batch_size", 1.5, "an integer >= 1, got 1.5"),
    ("batch_size", 2.0, "an integer >= 1, got 2.0"),
    ("hidden", True, "an integer >= 1, got True"),
    ("hidden", 0, "an integer >= 1, got 0"),
    ("seed", -1, "an integer from 0 to 4294967295, got -1"),
    ("deals_per_round", "8", "an integer >= 1, got '8'"),
    ("uncontested", 1, "a bool, got 1"),
    ("algorithm", "sac", "one of 'a2c', 'ppo', got 'sac'"),
]


def test_every_field_has_a_rule_and_the_defaults_pass_them():
  assert checks.missing_rules(A2CConfig, FIELD_RULES) == []
  assert set(FIELD_RULES) == {f.name for f in dataclasses.fields(A2CConfig)}
  A2CConfig()  # the defaults are valid


@pytest.mark.parametrize("field,value,tail", BAD)
def test_bad_values_are_refused_naming_the_field_and_value(field, value, tail):
  with pytest.raises(UserError) as e:
    A2CConfig(**{field: value})
  assert str(e.value) == f"{field} must be {tail}"


def test_numpy_scalars_are_accepted_as_python_numbers():
  cfg = A2CConfig(hidden=np.int64(8), learning_rate=np.float32(0.5))
  assert type(cfg.hidden) is int and cfg.hidden == 8
  assert type(cfg.learning_rate) is float and cfg.learning_rate == 0.5
  assert cfg == A2CConfig(hidden=8, learning_rate=0.5)


def test_consistent_pairs_are_checked():
  with pytest.raises(UserError, match="burn_in 11 exceeds buffer_size 10"):
    A2CConfig(buffer_size=10, burn_in=11)


@pytest.mark.parametrize("field,value,tail", [
    ("learning_rate", "nan", "a finite number > 0, got nan"),
    ("learning_rate", "inf", "a finite number > 0, got inf"),
    ("entropy_coef", "nan", "a finite number >= 0, got nan"),
    ("ratio_clip", "nan", "a finite number > 0, got nan"),
    ("ratio_clip", "inf", "a finite number > 0, got inf"),
    ("value_coef", "nan", "a finite number >= 0, got nan"),
    ("seed", "-1", "an integer from 0 to 4294967295, got -1"),
])
def test_the_command_refuses_the_same_values_with_the_same_message(field, value, tail,
                                                                   tmp_path, capsys):
  status = train_bridge.main(["train_bridge", f"--workdir={tmp_path / 'w'}",
                              f"--{field}={value}"])
  err = capsys.readouterr().err.strip().splitlines()
  assert status == 2
  assert err == [f"train_bridge: error: --{field} must be {tail}"]
  assert not (tmp_path / "w" / "model.npz").exists()
