"""WorldConfig: defaults, the two environment variables, and refusals that name the problem."""

from __future__ import annotations

import pytest
from amc.core.errors import ConfigError
from amc.world.config import ENV_ENABLED, ENV_HISTORY_SIZE, WorldConfig


def test_defaults_are_enabled_with_ten_steps_of_history() -> None:
    config = WorldConfig.from_env({})
    assert config == WorldConfig(enabled=True, history_size=10)


@pytest.mark.parametrize(("raw", "expected"), [("0", False), ("off", False), ("FALSE", False), ("yes", True)])
def test_enabled_flag_reads_common_spellings(raw: str, expected: bool) -> None:
    assert WorldConfig.from_env({ENV_ENABLED: raw}).enabled is expected


def test_history_size_is_read_from_the_environment() -> None:
    assert WorldConfig.from_env({ENV_HISTORY_SIZE: " 25 "}).history_size == 25


@pytest.mark.parametrize("raw", ["maybe", "2", "enabled!"])
def test_a_malformed_flag_is_a_config_error_naming_variable_and_value(raw: str) -> None:
    with pytest.raises(ConfigError) as caught:
        WorldConfig.from_env({ENV_ENABLED: raw})
    assert ENV_ENABLED in str(caught.value) and repr(raw) in str(caught.value)


def test_blank_values_mean_the_defaults() -> None:
    assert WorldConfig.from_env({ENV_ENABLED: " ", ENV_HISTORY_SIZE: ""}) == WorldConfig()


@pytest.mark.parametrize("raw", ["ten", "1.5", "0x10", "-3", "0", "100001"])
def test_a_bad_history_size_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError) as caught:
        WorldConfig.from_env({ENV_HISTORY_SIZE: raw})
    assert ENV_HISTORY_SIZE in str(caught.value)


def test_history_size_below_one_is_refused_in_code_too() -> None:
    with pytest.raises(ConfigError):
        WorldConfig(history_size=0)
    with pytest.raises(ConfigError):
        WorldConfig(history_size=True)
