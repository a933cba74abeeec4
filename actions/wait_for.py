"""``wait_for``: wait until an element shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import TargetNotFound
from ..drivers.base import Driver
from .base import Action, FlowForm, Screen
from .looking import REQUIRED_TARGET, until_found
from .waiting import WAIT_PARAMS, on_screen


def _wait_for(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return until_found(
        screen,
        args,
        lambda selector, polls, scene: TargetNotFound(
            f"{selector.describe()} did not appear within {args['timeout']:g} s "
            f"({polls} observations; {on_screen(scene)})",
            hint="the screen may be slower than expected; raise the timeout or check the selector",
        ),
    )


ACTION = Action(
    "wait_for",
    "wait until an element shows",
    _wait_for,
    params=(REQUIRED_TARGET, *WAIT_PARAMS),
    idempotent=True,
    waits=10.0,
    flow=FlowForm("wait_for", short="target"),
    note="Looks again until target shows or timeout passes.",
)
