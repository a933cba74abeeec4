"""``tap``: tap a point, or an element (waited for up to the step's timeout), once or several
times; with ``retry_if_no_change``, once more when the screen did not change (Maestro's
``retryTapIfNoChange``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Flag, Number, Seconds
from .settle import DEFAULT_SETTLE_TIMEOUT, settle, signature
from .targets import AT, POINT, TARGET, point, point_or_target
from .waiting import WAIT_PARAMS

__all__ = ["ACTION", "MAESTRO_TAP_OPTIONS", "MAX_REPEAT", "TAP_PARAMS", "tap_at"]

MAX_REPEAT = 100  # taps one step sends at most
TAP_PARAMS: tuple[Param, ...] = (
    TARGET,
    *POINT,
    AT,
    Param("repeat", Number(1, MAX_REPEAT, integer=True), "how many taps", default=1, agents=False),
    Param("delay", Seconds(10.0), "seconds between two taps", default=0.1, agents=False),
    Param(
        "retry_if_no_change",
        Flag(),
        "tap once more when the screen has not changed after the tap (it is looked at once it settled)",
        agents=False,
    ),
    *WAIT_PARAMS,
)
# Maestro's options of its tap commands, by the argument each becomes (the selector's own fields
# stand beside them: amc.flows.maestro reads those).
MAESTRO_TAP_OPTIONS = {
    "point": "at",
    "repeat": "repeat",
    "delay": "delay",
    "retryTapIfNoChange": "retry_if_no_change",
    "waitToSettleTimeoutMs": "settle",
}


def tap_at(driver: Driver, args: Mapping[str, Any], screen: Screen, times: int) -> Any:
    """Tap the step's point or element ``times`` times (``delay`` apart); what the step records."""
    before = screen.latest
    (x, y), about = point(args, screen)
    for n in range(times):
        if n:
            screen.pause(args.get("delay", 0.1))
        driver.tap(x, y)
    out: dict[str, Any] = {"x": x, "y": y, **about}
    if times > 1:
        out["taps"] = times
    if args.get("retry_if_no_change") and before is not None:
        timeout = float(args.get("settle", DEFAULT_SETTLE_TIMEOUT))
        after = settle(screen.observe(), screen.observe, screen.pause, timeout=timeout).observation
        if signature(after.scene) == signature(before.scene):
            driver.tap(x, y)  # the flow asked for it: recorded in the step's output
            out["tapped_again"] = True
    return out


def _tap(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return tap_at(driver, args, screen, args.get("repeat", 1))


ACTION = Action(
    "tap",
    "tap a point or an element",
    _tap,
    params=TAP_PARAMS,
    changes_screen=True,
    waits=10.0,
    flow=FlowForm("tap", short="target"),
    check=point_or_target,
    note="Give target, x and y, or at.",
    maestro=(
        MaestroForm(
            "tapOn",
            short="text",
            selector=True,
            options=MAESTRO_TAP_OPTIONS,
            lookup=True,
            millis=frozenset({"delay", "waitToSettleTimeoutMs"}),
            note="`waitUntilVisible` is read and ignored: the lookup already waits for the element",
        ),
    ),
)
