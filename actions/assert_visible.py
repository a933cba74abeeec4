"""``assert_visible``: check that an element is on screen (within the step's timeout)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import AssertionFailed
from ..drivers.base import Driver
from .base import Action, FlowForm, Screen
from .looking import REQUIRED_TARGET, until_found
from .waiting import WAIT_PARAMS, on_screen


def _assert_visible(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return until_found(
        screen,
        args,
        lambda selector, polls, scene: AssertionFailed(
            f"expected {selector.describe()} on screen, but it is not there after {polls} new "
            f"observation(s) ({on_screen(scene)})",
            hint="compare with `amc inspect`; raise the step's timeout if the screen is slow",
        ),
    )


ACTION = Action(
    "assert_visible",
    "check that an element is on screen",
    _assert_visible,
    params=(REQUIRED_TARGET, *WAIT_PARAMS),
    idempotent=True,
    waits=10.0,
    flow=FlowForm("assert_visible", short="target"),
)
