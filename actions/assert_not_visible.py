"""``assert_not_visible``: check that an element is not (or no longer) on screen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import AssertionFailed
from ..core.models import Scene
from ..drivers.base import Driver
from .base import Action, FlowForm, Screen
from .looking import REQUIRED_TARGET, until
from .targets import selector_of
from .waiting import WAIT_PARAMS, on_screen


def _assert_not_visible(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = selector_of(args)

    def absent(scene: Scene) -> Any:
        return None if selector.find_all(scene) else {"absent": True}

    return until(
        screen,
        args,
        absent,
        lambda polls, scene: AssertionFailed(
            f"expected {selector.describe()} to be gone, but it is still on screen after {polls} new "
            f"observation(s) ({on_screen(scene)})",
            hint="raise the step's timeout if the screen is slow to change",
        ),
    )


ACTION = Action(
    "assert_not_visible",
    "check that an element is not (or no longer) on screen",
    _assert_not_visible,
    params=(REQUIRED_TARGET, *WAIT_PARAMS),
    idempotent=True,
    waits=10.0,
    flow=FlowForm("assert_not_visible", short="target"),
)
