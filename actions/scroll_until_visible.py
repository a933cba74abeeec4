"""``scroll_until_visible``: swipe until an element shows, one look after each swipe."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..core.errors import TargetNotFound
from ..drivers.base import Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import Choice, Number
from .looking import REQUIRED_TARGET
from .swipe import DIRECTIONS, swipe_points
from .targets import acted_on, latest_scene, selector_of
from .waiting import DEFAULT_INTERVAL, WAIT_PARAMS, on_screen, target_check

MAX_SWIPES = 50
# Scrolling towards a direction moves the finger the other way (scroll down = swipe up).
_SCROLL_SWIPE = {"down": "up", "up": "down", "left": "right", "right": "left"}


def _scroll(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    """Swipe towards ``direction`` until the target shows, at most ``max_swipes`` times, each swipe
    followed by one look; bounded by ``timeout`` as a whole. When a swipe changed nothing on screen
    (a list still loading, or its end), the next look waits one ``interval`` before the next swipe
    (so a list that loads late gets the time, and the end of a list costs at most one interval per
    swipe)."""
    selector = selector_of(args)
    direction: str = args["direction"]
    limit: int = args["max_swipes"]
    timeout = float(args.get("timeout", 0.0))
    interval = min(float(args.get("interval", DEFAULT_INTERVAL)), max(timeout, 0.01))
    deadline = time.monotonic() + timeout
    problems: list[str] = []
    check = target_check(selector, problems)
    scene = latest_scene(screen)
    swipes, wait = 0, False
    while True:
        found = check(scene)
        if found is not None:
            return {**acted_on(found), "swipes": swipes}
        if swipes >= limit or time.monotonic() >= deadline:
            break
        before = scene.texts()
        if wait:
            screen.pause(max(0.0, min(interval, deadline - time.monotonic())))
        else:
            driver.swipe(*swipe_points(scene, _SCROLL_SWIPE[direction]), 0.3)
            swipes += 1
        scene = screen.observe().scene
        wait = not wait and scene.texts() == before  # a swipe that changed nothing: wait once
    why = f"; {problems[-1]}" if problems else ""
    raise TargetNotFound(
        f"{selector.describe()} did not show after {swipes} swipe(s) scrolling {direction}{why} "
        f"({on_screen(scene)})",
        hint="raise max_swipes, check the direction, or check the selector against `amc inspect`",
    )


ACTION = Action(
    "scroll_until_visible",
    "swipe until an element shows",
    _scroll,
    params=(
        REQUIRED_TARGET,
        Param(
            "direction",
            Choice(DIRECTIONS),
            "the way to scroll (the finger moves the other way)",
            default="down",
        ),
        Param("max_swipes", Number(0, MAX_SWIPES, integer=True), "at most this many swipes", default=10),
        *WAIT_PARAMS,
    ),
    changes_screen=True,
    waits=10.0,
    flow=FlowForm("scroll_until_visible", short="target"),
    note="Swipes, one look after each, until target shows.",
)
