"""``tap``: tap a point, or an element (waited for up to the step's timeout)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, Screen
from .targets import POINT, TARGET, point, point_or_target
from .waiting import WAIT_PARAMS


def _tap(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    (x, y), about = point(args, screen)
    driver.tap(x, y)
    return {"x": x, "y": y, **about}


ACTION = Action(
    "tap",
    "tap a point or an element",
    _tap,
    params=(TARGET, *POINT, *WAIT_PARAMS),
    changes_screen=True,
    waits=10.0,
    flow=FlowForm("tap", short="target"),
    check=point_or_target,
    note="Give target (a selector) or x and y.",
)
