"""``scroll_until_visible``: swipe until an element shows, one look after each swipe."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..core.errors import TargetNotFound
from ..core.models import Bounds, Scene
from ..drivers.base import MAX_GESTURE, Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Choice, Flag, Number, Seconds
from .looking import REQUIRED_TARGET
from .swipe import DIRECTIONS, swipe_points
from .targets import acted_on, latest_scene, selector_of
from .waiting import DEFAULT_INTERVAL, WAIT_PARAMS, Found, on_screen, target_check

MAX_SWIPES = 50
# Centring gives up after this many looks that see the element but not near the centre (the end of
# a list that scrolls no further), as Maestro's maxRetryCenterCount (Orchestra.scrollUntilVisible,
# mobile-dev-inc/maestro dcd2f206, maestro-orchestra/.../Orchestra.kt).
MAX_CENTRE_TRIES = 4
# Scrolling towards a direction moves the finger the other way (scroll down = swipe up).
_SCROLL_SWIPE = {"down": "up", "up": "down", "left": "right", "right": "left"}


def _near_centre(point: tuple[int, int], window: Bounds, direction: str) -> bool:
    """Whether an element's centre has come far enough along the scroll: past the screen's centre
    less a fifth of the screen, seen from where it comes in (Maestro's
    ``UiElement.isElementNearScreenCenter``, mobile-dev-inc/maestro dcd2f206,
    maestro-client/src/main/java/maestro/UiElement.kt). Scrolling down, the element comes up from
    the bottom: its centre must be above the centre plus a fifth; scrolling up, below the centre
    less a fifth; sideways alike."""
    x, y = point
    left, top = window.left, window.top
    width, height = window.width or 1, window.height or 1
    mid_x, mid_y = left + width // 2, top + height // 2
    if direction == "down":
        return y < mid_y + height // 5
    if direction == "up":
        return y > mid_y - height // 5
    if direction == "right":
        return x < mid_x + width // 5
    return x > mid_x - width // 5


def _scroll(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    """Swipe towards ``direction`` until the target shows, at most ``max_swipes`` times, each swipe
    followed by one look; bounded by ``timeout`` as a whole. When a swipe changed nothing on screen
    (a list still loading, or its end), the next look waits one ``interval`` before the next swipe
    (so a list that loads late gets the time, and the end of a list costs at most one interval per
    swipe). With ``center``, an element seen (more than a tenth of it) is scrolled on until it is
    near the centre (:func:`_near_centre`), for at most ``MAX_CENTRE_TRIES`` more looks, then its
    share decides, as in Maestro's Orchestra.scrollUntilVisible; the look after the last swipe (at
    the timeout) is decided by the share alone: the swipes are spent, the centre out of reach."""
    selector = selector_of(args)
    direction: str = args["direction"]
    limit: int = args["max_swipes"]
    timeout = float(args.get("timeout", 0.0))
    interval = min(float(args.get("interval", DEFAULT_INTERVAL)), max(timeout, 0.01))
    deadline = time.monotonic() + timeout
    problems: list[str] = []
    found_at = target_check(selector, problems)
    visibility = float(args.get("visibility", 0.0))
    centre = bool(args.get("center"))

    centre_tries = 0

    def check(scene: Scene, last: bool) -> Found | None:
        nonlocal centre_tries
        found = found_at(scene)
        if found is None:
            return None
        box, window = found.element.bounds, scene.window
        inside = box.intersection(window) if not window.is_empty() else box
        share = 0.0 if inside is None or box.is_empty() else inside.area / box.area
        if centre and share > 0.1 and centre_tries <= MAX_CENTRE_TRIES and not last:
            if _near_centre(box.center, window, direction):
                return found
            centre_tries += 1
            return None
        if share + 1e-9 < visibility:
            problems.append(f"it shows {share:.0%} of itself, {visibility:.0%} is asked")
            return None
        return found

    scene = latest_scene(screen)
    swipes, wait = 0, False
    while True:
        last = swipes >= limit or time.monotonic() >= deadline
        found = check(scene, last)
        if found is not None:
            return {**acted_on(found), "swipes": swipes}
        if last:
            break
        before = scene.texts()
        if wait:
            screen.pause(max(0.0, min(interval, deadline - time.monotonic())))
        else:
            driver.swipe(*swipe_points(scene, _SCROLL_SWIPE[direction]), args.get("swipe_duration", 0.3))
            swipes += 1
        scene = screen.observe().scene
        wait = not wait and scene.texts() == before  # a swipe that changed nothing: wait once
    why = f"; {problems[-1]}" if problems else ""
    raise TargetNotFound(
        f"{selector.describe()} did not show after {swipes} swipe(s) scrolling {direction}{why} "
        f"({on_screen(scene)})",
        # the arguments in backticks are spelled in the flow's own words (flows/maestro/spelling.py)
        hint="raise `timeout` or `max_swipes`, check the direction, or check the selector against "
        "`amc inspect`",
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
        Param(
            "visibility",
            Number(0, 1),
            "the share of the element that must be on screen (0 to 1)",
            agents=False,
        ),
        Param("center", Flag(), "scroll until the element is in the middle of the screen", agents=False),
        Param("swipe_duration", Seconds(MAX_GESTURE), "seconds each swipe takes (default 0.3)", agents=False),
        *WAIT_PARAMS,
    ),
    changes_screen=True,
    waits=10.0,
    flow=FlowForm("scroll_until_visible", short="target"),
    note="One look after each swipe.",
    maestro=(
        MaestroForm(
            "scrollUntilVisible",
            options={
                "element": "target",
                "direction": "direction",
                "timeout": "timeout",
                "speed": "swipe_duration",
                "visibilityPercentage": "visibility",
                "centerElement": "center",
                "waitToSettleTimeoutMs": "settle",
            },
            millis=frozenset({"timeout", "waitToSettleTimeoutMs"}),
            fixed={"timeout": 20.0, "max_swipes": MAX_SWIPES, "visibility": 1.0, "swipe_duration": 0.601},
            note="speed 0-100 becomes a swipe of (100 - speed) x 10 ms + 1 ms; as in Maestro, a "
            "visibilityPercentage under 100 asks only that the element be there (its integer division)",
        ),
    ),
)
