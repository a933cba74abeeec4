"""One rule for seconds (core.durations.check_seconds), and the drivers' shared bounds on top of it."""

from __future__ import annotations

import argparse
import math

import pytest
from amc.core.durations import MAX_LEASE_WAIT, check_seconds
from amc.core.errors import ConfigError, StepArgumentError
from amc.drivers.base import MAX_GESTURE, MAX_TIMEOUT, gesture_seconds, timeout_seconds


@pytest.mark.parametrize("value", [0, 0.0, 1, 2.5, 10])
def test_numbers_in_range_come_back_as_floats(value: float) -> None:
    checked = check_seconds(value, "x", maximum=10)
    assert checked == value and type(checked) is float


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-0.001, "x must be between 0 and 10 seconds (got -0.001)"),
        (10.5, "x must be between 0 and 10 seconds"),
        (math.nan, "x must be between 0 and 10 seconds"),
        (math.inf, "x must be between 0 and 10 seconds"),
        (True, "x is not a number of seconds (got True)"),
        ("5", "x is not a number of seconds (got '5')"),
        (None, "x is not a number of seconds"),
    ],
)
def test_anything_else_is_the_callers_error_naming_what(value: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        check_seconds(value, "x", maximum=10)
    assert message in str(caught.value)


def test_above_zero_text_and_the_error_class() -> None:
    with pytest.raises(ConfigError, match="above 0 and at most 5 seconds"):
        check_seconds(0, "t", maximum=5, above_zero=True)
    assert check_seconds("2.5", "t", maximum=5, text=True) == 2.5
    with pytest.raises(argparse.ArgumentTypeError, match="not a number of seconds"):
        check_seconds("abc", "t", maximum=5, text=True, error=argparse.ArgumentTypeError)
    with pytest.raises(ValueError, match="between 0 and 5"):
        check_seconds("nan", "t", maximum=5, text=True, error=ValueError)


def test_the_drivers_shared_bounds() -> None:
    assert timeout_seconds(MAX_TIMEOUT, "timeout") == MAX_TIMEOUT
    with pytest.raises(ConfigError, match="timeout must be above 0"):
        timeout_seconds(0, "timeout")
    assert gesture_seconds(0, "swipe duration", held=False) == 0
    assert gesture_seconds(MAX_GESTURE, "long_press duration", held=True) == MAX_GESTURE
    with pytest.raises(StepArgumentError, match="long_press duration must be above 0"):
        gesture_seconds(0, "long_press duration", held=True)
    with pytest.raises(StepArgumentError, match="swipe duration must be between 0 and 60"):
        gesture_seconds(MAX_GESTURE + 1, "swipe duration", held=False)
    assert MAX_LEASE_WAIT == 86_400
