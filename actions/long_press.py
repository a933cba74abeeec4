"""``long_press``: touch and hold a point or an element."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import MAX_GESTURE, Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import Seconds
from .targets import POINT, TARGET, point, point_or_target
from .waiting import WAIT_PARAMS


def _long_press(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    (x, y), about = point(args, screen)
    driver.long_press(x, y, args["duration"])
    return {"x": x, "y": y, "duration": args["duration"], **about}


ACTION = Action(
    "long_press",
    "touch and hold a point or an element",
    _long_press,
    params=(
        TARGET,
        *POINT,
        Param("duration", Seconds(MAX_GESTURE, above_zero=True), "seconds to hold", default=1.0),
        *WAIT_PARAMS,
    ),
    changes_screen=True,
    waits=10.0,
    flow=FlowForm("long_press", short="target"),
    check=point_or_target,
    note="Give target (a selector) or x and y.",
)
