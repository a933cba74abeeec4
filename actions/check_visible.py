"""``check_visible``: whether an element is (or is not) on screen within a time, never a failure:
how a flow reads a condition that waits (Maestro's ``when: {visible: …}`` waits up to 7 s)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.models import Scene
from ..drivers.base import Driver
from .base import Action, Param, Screen
from .kinds import Flag
from .looking import REQUIRED_TARGET
from .targets import selector_of
from .waiting import WAIT_PARAMS, poll


def _check(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = selector_of(args)
    present: bool = args.get("present", True)

    def holds(scene: Scene) -> Any:
        return True if bool(selector.find_all(scene)) == present else None

    value, polls, _scene = poll(screen, args, holds)
    return {"holds": value is True, "polls": polls}


ACTION = Action(
    "check_visible",
    "whether an element is (or is not) on screen within a time",
    _check,
    params=(
        REQUIRED_TARGET,
        Param("present", Flag(), "false: whether it is absent", default=True),
        *WAIT_PARAMS,
    ),
    idempotent=True,
    waits=0.0,
    offered=False,
)
