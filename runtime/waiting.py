"""Waiting for the screen: bounded polls of fresh observations, and what a failure says.

Every step that looks for something on screen (a tap's target, ``wait_for``, the asserts,
``scroll_until_visible``) waits here: it checks the latest observation, then looks again through
the task's :class:`~amc.runtime.executor.Screen` (one device request per look) at most once per
``interval`` until the check holds or ``timeout`` seconds have passed. A failure's message says
what the screen showed (:func:`on_screen`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.durations import check_seconds
from ..core.errors import HarnessError, StepArgumentError
from ..core.limits import quote
from ..core.models import Scene, UIElement
from ..core.selectors import Selector, tap_point
from ..semantic.models import Observation

__all__ = [
    "DEFAULT_INTERVAL",
    "MAX_WAIT",
    "Found",
    "Looker",
    "interval_of",
    "number",
    "on_screen",
    "poll",
    "target_check",
    "timeout_of",
]

MAX_WAIT = 300.0  # the longest a step may wait for the screen
DEFAULT_INTERVAL = 0.25  # a real device's dump takes ~0.1-0.5 s itself: polls stay a few per second


class Looker(Protocol):
    """What a poll needs of the task's screen (the executor's ``Screen``)."""

    @property
    def latest(self) -> Observation | None: ...

    def observe(self) -> Observation: ...


def number(args: Mapping[str, Any], name: str, *, default: float | None = None) -> float:
    value = args.get(name, default)
    if value is None:
        raise StepArgumentError(f"missing argument {name!r}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StepArgumentError(f"argument {name!r} must be a number, got {quote(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int past float's range
        number = float("inf")
    if not math.isfinite(number):
        raise StepArgumentError(f"argument {name!r} must be a finite number, got {quote(value)}")
    return number


def timeout_of(args: Mapping[str, Any], default: float) -> float:
    """A step's ``timeout``, by the one seconds rule (:func:`amc.core.durations.check_seconds`)."""
    value = args.get("timeout", default)
    return check_seconds(value, "argument 'timeout'", maximum=MAX_WAIT, error=StepArgumentError)


def interval_of(args: Mapping[str, Any], timeout: float) -> float:
    value = args.get("interval", DEFAULT_INTERVAL)
    interval = check_seconds(
        value, "argument 'interval'", maximum=MAX_WAIT, above_zero=True, error=StepArgumentError
    )
    return min(interval, max(timeout, 0.01))


def poll(
    screen: Looker,
    args: Mapping[str, Any],
    check: Callable[[Scene], Any],
    *,
    default_timeout: float,
) -> tuple[Any, int, Scene]:
    """Run ``check`` on the latest Scene, then on fresh observations (each one look through the
    screen), until it returns something other than None or ``timeout`` seconds have passed
    (bounded: at most one observation per ``interval``). Returns (what check returned or None,
    observations made, last Scene)."""
    timeout = timeout_of(args, default_timeout)
    interval = interval_of(args, timeout)
    deadline = time.monotonic() + timeout
    latest = screen.latest
    scene = latest.scene if latest is not None else None
    polls = 0
    while True:
        if scene is not None:
            value = check(scene)
            if value is not None or time.monotonic() >= deadline:
                return value, polls, scene
            time.sleep(max(0.0, min(interval, deadline - time.monotonic())))
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
            return Found(found[0], tap_point(found[0], scene.window), scene.window_size)
        except HarnessError as exc:
            problems.append(exc.message)
            return None

    return check
