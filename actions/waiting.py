"""Waiting for the screen: bounded polls of fresh observations, and what a failure says.

Every action that looks for something on screen (a tap's target, ``wait_for``, the asserts,
``scroll_until_visible``) waits here: it checks the latest observation, then looks again through
the task's :class:`~amc.actions.base.Screen` (one device request per look) at most once per
``interval`` until the check holds or ``timeout`` seconds have passed. Between two looks it pauses
through the screen, so a stop request (Ctrl-C) ends the wait at once. A failure's message says
what the screen showed (:func:`on_screen`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import HarnessError
from ..core.models import Scene, UIElement
from ..core.selectors import Selector, tap_point
from .base import Param, Screen
from .kinds import Seconds

__all__ = [
    "DEFAULT_INTERVAL",
    "MAX_WAIT",
    "WAIT_PARAMS",
    "Found",
    "on_screen",
    "poll",
    "target_check",
]

MAX_WAIT = 300.0  # the longest a step may wait for the screen
DEFAULT_INTERVAL = 0.25  # a real device's dump takes ~0.1-0.5 s itself: polls stay a few per second

# The two arguments of every action that waits for the screen; its default timeout is the action's
# own (``Action.waits``), filled in by the executor when a step gives none.
WAIT_PARAMS: tuple[Param, ...] = (
    Param("timeout", Seconds(MAX_WAIT), "seconds to wait"),
    Param("interval", Seconds(MAX_WAIT, above_zero=True), "seconds between two looks", agents=False),
)


def poll(screen: Screen, args: Mapping[str, Any], check: Callable[[Scene], Any]) -> tuple[Any, int, Scene]:
    """Run ``check`` on the latest Scene, then on fresh observations (each one look through the
    screen), until it returns something other than None or the step's ``timeout`` has passed
    (bounded: at most one observation per ``interval``). Returns (what check returned or None,
    observations made, last Scene)."""
    timeout = float(args.get("timeout", 0.0))
    interval = min(float(args.get("interval", DEFAULT_INTERVAL)), max(timeout, 0.01))
    deadline = time.monotonic() + timeout
    latest = screen.latest
    scene = latest.scene if latest is not None else None
    polls = 0
    while True:
        if scene is not None:
            value = check(scene)
            if value is not None or time.monotonic() >= deadline:
                return value, polls, scene
            screen.pause(max(0.0, min(interval, deadline - time.monotonic())))
        scene = screen.observe().scene
        polls += 1


def on_screen(scene: Scene, limit: int = 8) -> str:
    """Where the device was and what it showed, for a failure's message."""
    texts = scene.texts()
    shown = ", ".join(repr(t) for t in texts[:limit]) + (" …" if len(texts) > limit else "")
    return f"app {scene.foreground_app or 'unknown'}, screen shows: {shown or 'no text'}"


@dataclass(frozen=True)
class Found:
    """A target found on screen: the element, where to touch it, and the window of the screen it
    was found on (device units)."""

    element: UIElement
    point: tuple[int, int]
    window: tuple[int, int] = (0, 0)

    def to_dict(self) -> dict[str, Any]:
        el = self.element
        return {"found": el.display_text or el.identifier or el.type, "x": self.point[0], "y": self.point[1]}


def target_check(selector: Selector, problems: list[str]) -> Callable[[Scene], Found | None]:
    """A poll check finding ``selector``'s element with a point to touch; why the last look did not
    is appended to ``problems`` (an element that is there but off screen, or of zero size)."""

    def check(scene: Scene) -> Found | None:
        found = selector.find_all(scene)
        if not found:
            return None
        try:
            point = tap_point(found[0], scene.window, lines=selector.maestro)
            return Found(found[0], point, scene.window_size)
        except HarnessError as exc:
            problems.append(exc.message)
            return None

    return check
