"""``wait_for_animation_to_end``: wait until two looks in a row show the same screen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import Seconds
from .settle import DEFAULT_SETTLE_TIMEOUT, settle
from .waiting import MAX_WAIT


def _wait(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    first = screen.latest or screen.observe()
    done = settle(first, screen.observe, screen.pause, timeout=args["timeout"])
    return {"looks": done.looks, "settled": done.settled}


ACTION = Action(
    "wait_for_animation_to_end",
    "wait until the screen stops changing",
    _wait,
    params=(
        Param(
            "timeout",
            Seconds(MAX_WAIT),
            "seconds to wait at most (the step passes either way)",
            default=DEFAULT_SETTLE_TIMEOUT,
        ),
    ),
    idempotent=True,
    flow=FlowForm("wait_for_animation_to_end", short="timeout", bare=True),
)
