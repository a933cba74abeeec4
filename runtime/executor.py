"""The executor: runs one PlannedStep on a Driver and reports a StepResult, never an exception.

Actions are dispatched through a table (:data:`ACTIONS`) from name to handler. Each entry says
which arguments the action takes and whether repeating it is safe (``idempotent``): the task
loop only repeats a step after a transient device error when it is. Selectors in a step are
resolved against the task's latest observation, so finding a target costs no device request;
a step with a ``timeout`` (a tap's target, ``wait_for``, the asserts, ``scroll_until_visible``)
waits for it by looking again through the task's :class:`Screen` (the runner's observer, see
:mod:`amc.runtime.waiting`), never by asking the driver itself.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from typing import Any

from ..core.errors import HarnessError, StepArgumentError, TargetNotFound
from ..core.models import PlannedStep, Scene, StepResult
from ..core.steps import APP_ID_KEYS, SELECTOR_KEYS, app_id_from_args
from ..drivers.base import Driver, gesture_seconds
from .checks import assert_app, assert_not_visible, assert_visible, wait_for
from .step_args import (
    COMMON_KEYS,
    Action,
    Screen,
    app_id_arg,
    describe_scene,
    latest_scene,
    needs_selector,
    screen_point,
    selector_arg,
    string_arg,
)
from .waiting import MAX_WAIT, Found, interval_of, on_screen, poll, target_check, timeout_of
from .waiting import number as _number

__all__ = [
    "ACTIONS",
    "COMMON_KEYS",
    "MAX_SWIPES",
    "MAX_WAIT",
    "SWIPE_DIRECTIONS",
    "Action",
    "Executor",
    "Screen",
    "describe_scene",
]

log = logging.getLogger(__name__)

MAX_SWIPES = 50
MAX_URL = 2048
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")


# --- handlers -------------------------------------------------------------------------------


def _launch_app(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.launch_app(app_id_arg(args))
    return None


def _terminate_app(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.terminate_app(app_id_arg(args))
    return None


def _wait_target(
    args: Mapping[str, Any], screen: Screen, *, key: str = "target", inline: bool = True
) -> Found:
    """The step's target, waited for up to its ``timeout`` (default 0: the latest screen only)."""
    selector = selector_arg(args, key=key, inline=inline)
    if selector is None:
        raise StepArgumentError("needs either x and y, or a selector (target / text / id / label …)")
    problems: list[str] = []
    found, polls, scene = poll(screen, args, target_check(selector, problems), default_timeout=0.0)
    if found is None:
        timeout = timeout_of(args, 0.0)
        waited = f"within {timeout:g} s ({polls} observations)" if timeout else "on the current screen"
        why = f"; {problems[-1]}" if problems else ""
        raise TargetNotFound(
            f"{selector.describe()} did not appear {waited}{why} ({on_screen(scene)})",
            hint="check the selector against `amc inspect`; raise the step's timeout if the screen is slow",
        )
    assert isinstance(found, Found)
    return found


def _acted_on(found: Found) -> dict[str, Any]:
    """What a step records of the element it acted on: what it reads, its bounds and the window
    they are in (device units), so a report can outline it on the screen's picture."""
    return {
        "found": found.to_dict()["found"],
        "bounds": found.element.bounds.to_dict(),
        "window": list(found.window),
    }


def _point(args: Mapping[str, Any], screen: Screen) -> tuple[tuple[int, int], dict[str, Any]]:
    """Where to act, and (for a selector, waited for) the element there as :func:`_acted_on` says."""
    if "x" in args or "y" in args:
        return screen_point(args, ("x", "y"), screen), {}
    found = _wait_target(args, screen)
    return found.point, _acted_on(found)


def _tap(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    (x, y), about = _point(args, screen)
    ex.driver.tap(x, y)
    return {"x": x, "y": y, **about}


def _long_press(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    duration = gesture_seconds(args.get("duration", 1.0), "argument 'duration'", held=True)
    (x, y), about = _point(args, screen)
    ex.driver.long_press(x, y, duration)
    return {"x": x, "y": y, "duration": duration, **about}


def _type_text(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    text = string_arg(args, "text", allow_empty=True)
    element: dict[str, Any] = {}
    if selector_arg(args, inline=False) is not None:
        found = _wait_target(args, screen, inline=False)
        x, y = found.point
        ex.driver.tap(x, y)
        element = _acted_on(found)
    ex.driver.type_text(text)
    return {"length": len(text), **element}


# Where a ``swipe`` with a ``direction`` starts and ends, as fractions of the window (x1, y1, x2, y2).
SWIPE_DIRECTIONS = {
    "up": (0.5, 0.75, 0.5, 0.25),
    "down": (0.5, 0.25, 0.5, 0.75),
    "left": (0.8, 0.5, 0.2, 0.5),
    "right": (0.2, 0.5, 0.8, 0.5),
}


# Scrolling towards a direction moves the finger the other way (scroll down = swipe up).
_SCROLL_SWIPE = {"down": "up", "up": "down", "left": "right", "right": "left"}


def _direction(args: Mapping[str, Any], choices: Mapping[str, Any]) -> str:
    direction = args.get("direction")
    if direction not in choices:
        raise StepArgumentError(
            f"argument 'direction' must be one of {', '.join(choices)}, got {direction!r}"
        )
    return str(direction)


def _swipe_points(scene: Scene, direction: str) -> tuple[int, int, int, int]:
    width, height = scene.window_size
    fx1, fy1, fx2, fy2 = SWIPE_DIRECTIONS[direction]
    return round(fx1 * width), round(fy1 * height), round(fx2 * width), round(fy2 * height)


def _swipe(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    duration = gesture_seconds(args.get("duration", 0.3), "argument 'duration'", held=False)
    if "direction" in args:
        x1, y1, x2, y2 = _swipe_points(latest_scene(screen), _direction(args, SWIPE_DIRECTIONS))
    else:
        x1, y1 = screen_point(args, ("x1", "y1"), screen)
        x2, y2 = screen_point(args, ("x2", "y2"), screen)
    ex.driver.swipe(x1, y1, x2, y2, duration)
    return {"from": [x1, y1], "to": [x2, y2], "duration": duration}


def _press(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.press(string_arg(args, "key"))
    return None


def _describe_screen(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    latest = screen.latest or screen.observe()
    return describe_scene(latest.scene)


def _screenshot(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    if "name" in args:
        string_arg(args, "name")
    return ex.driver.screenshot()


def _remember(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    # The world model stores args["remember"] (hiding it when args["secret"] is true); this only checks it.
    values = args.get("remember")
    if not isinstance(values, Mapping) or not values:
        raise StepArgumentError("needs 'remember': a non-empty mapping of variable names to values")
    for name in values:
        if not isinstance(name, str) or not name.strip():
            raise StepArgumentError(f"variable name {name!r} must be a non-empty string")
    if "secret" in args and not isinstance(args["secret"], bool):
        raise StepArgumentError(f"argument 'secret' must be true or false, got {args['secret']!r}")
    if screen.world is None:
        log.warning("remember: the world model is off, so %s will not be kept", ", ".join(sorted(values)))
    return {"remembered": sorted(values)}


def _skip(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    # A planner decided a step was not needed; recorded like any step, with no device call.
    reason = string_arg(args, "reason")
    skipped = args.get("skipped")
    if skipped is not None and not isinstance(skipped, str):
        raise StepArgumentError(f"argument 'skipped' must be the skipped action's name, got {skipped!r}")
    return {"skipped": skipped, "reason": reason}


def _scroll_until_visible(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    """Swipe towards ``direction`` (default down) until the target shows, at most ``max_swipes``
    times (default 10), each swipe followed by one look; bounded by ``timeout`` as a whole. When a
    swipe changed nothing on screen (a list still loading, or its end), the next look waits one
    ``interval`` before the next swipe (so a list that loads late gets the time, and the end of a
    list costs at most one interval per swipe)."""
    selector = needs_selector(args)
    direction = _direction({"direction": args.get("direction", "down")}, _SCROLL_SWIPE)
    limit = _number(args, "max_swipes", default=10)
    if limit != int(limit) or not 0 <= limit <= MAX_SWIPES:
        raise StepArgumentError(f"argument 'max_swipes' must be a whole number from 0 to {MAX_SWIPES}")
    timeout = timeout_of(args, 10.0)
    interval = interval_of(args, timeout)
    deadline = time.monotonic() + timeout
    problems: list[str] = []
    check = target_check(selector, problems)
    scene = latest_scene(screen)
    swipes, wait = 0, False
    while True:
        found = check(scene)
        if found is not None:
            return {**_acted_on(found), "swipes": swipes}
        if swipes >= limit or time.monotonic() >= deadline:
            break
        before = scene.texts()
        if wait:
            time.sleep(max(0.0, min(interval, deadline - time.monotonic())))
        else:
            ex.driver.swipe(*_swipe_points(scene, _SCROLL_SWIPE[direction]), 0.3)
            swipes += 1
        scene = screen.observe().scene
        wait = not wait and scene.texts() == before  # a swipe that changed nothing: wait once
    why = f"; {problems[-1]}" if problems else ""
    raise TargetNotFound(
        f"{selector.describe()} did not show after {swipes} swipe(s) scrolling {direction}{why} "
        f"({on_screen(scene)})",
        hint="raise max_swipes, check the direction, or check the selector against `amc inspect`",
    )


def _hide_keyboard(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.hide_keyboard()
    return None


def _open_link(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    url = string_arg(args, "url")
    if len(url) > MAX_URL or not _URL.fullmatch(url):
        raise StepArgumentError(
            f"argument 'url' must be a link such as https://example.com or myapp://path "
            f"(a scheme, no spaces, at most {MAX_URL} characters), got {url[:80]!r}"
        )
    ex.driver.open_link(url, app_id_from_args(args))
    return {"url": url}


def _clear_state(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.clear_state(app_id_arg(args))
    return None


_SEL = frozenset({"target"}) | SELECTOR_KEYS
_POLL = frozenset({"timeout", "interval"})
ACTIONS: dict[str, Action] = {
    "launch_app": Action(_launch_app, frozenset(APP_ID_KEYS), True, "bring an app to the foreground"),
    "terminate_app": Action(_terminate_app, frozenset(APP_ID_KEYS), True, "stop an app"),
    "tap": Action(_tap, frozenset({"x", "y"}) | _SEL | _POLL, False, "tap a point or an element"),
    "long_press": Action(
        _long_press,
        frozenset({"x", "y", "duration"}) | _SEL | _POLL,
        False,
        "touch and hold a point or an element",
    ),
    "type_text": Action(
        _type_text, frozenset({"text", "target"}) | _POLL, False, "type into the focused field"
    ),
    "scroll_until_visible": Action(
        _scroll_until_visible,
        frozenset({"direction", "max_swipes"}) | _SEL | _POLL,
        False,
        "swipe until an element shows",
    ),
    "hide_keyboard": Action(_hide_keyboard, frozenset(), True, "hide the on-screen keyboard"),
    "open_link": Action(
        _open_link, frozenset({"url"}) | frozenset(APP_ID_KEYS), False, "open a URL or deep link"
    ),
    "clear_state": Action(_clear_state, frozenset(APP_ID_KEYS), True, "clear an app's data"),
    "swipe": Action(_swipe, frozenset({"x1", "y1", "x2", "y2", "duration", "direction"}), False, "swipe"),
    "press": Action(_press, frozenset({"key"}), False, "press a key (home, back, enter …)"),
    "describe_screen": Action(_describe_screen, frozenset(), True, "describe the latest screen"),
    "screenshot": Action(_screenshot, frozenset({"name"}), True, "capture the screen"),
    "wait_for": Action(wait_for, _POLL | _SEL, True, "wait until an element shows"),
    "assert_visible": Action(assert_visible, _POLL | _SEL, True, "check that an element is on screen"),
    "assert_not_visible": Action(
        assert_not_visible, _POLL | _SEL, True, "check that an element is not (or no longer) on screen"
    ),
    "assert_app": Action(
        assert_app, _POLL | frozenset(APP_ID_KEYS), True, "check which app is in the foreground"
    ),
    "remember": Action(_remember, frozenset(), True, "store values in the world model's variables"),
    "skip": Action(
        _skip,
        frozenset({"reason", "skipped"}),
        True,
        "record a step a planner decided to skip",
        looks_after=False,
    ),
}


class Executor:
    """Runs steps on one driver through :data:`ACTIONS` (or a table you pass)."""

    def __init__(self, driver: Driver, actions: Mapping[str, Action] | None = None) -> None:
        self.driver = driver
        self.actions: Mapping[str, Action] = ACTIONS if actions is None else actions

    def is_idempotent(self, action: str) -> bool:
        entry = self.actions.get(action)
        return entry is not None and entry.idempotent

    def looks_after(self, action: str) -> bool:
        """Whether the loop observes the device after ``action`` (an unknown action: yes)."""
        entry = self.actions.get(action)
        return entry is None or entry.looks_after

    def _check(self, step: PlannedStep) -> Action:
        entry = self.actions.get(step.action)
        if entry is None:
            raise StepArgumentError(
                f"unknown action {step.action!r}; known actions: {', '.join(sorted(self.actions))}"
            )
        unknown = sorted(set(step.args) - entry.keys - COMMON_KEYS)
        if unknown:
            raise StepArgumentError(
                f"{step.action} does not take argument(s) {', '.join(unknown)}; "
                f"it takes: {', '.join(sorted(entry.keys | COMMON_KEYS)) or 'no arguments'}"
            )
        return entry

    def execute(self, step: PlannedStep, screen: Screen) -> StepResult:
        """Run ``step``, resolving selectors on ``screen.latest`` and waiting through ``screen``."""
        started = time.perf_counter()
        try:
            entry = self._check(step)
            output = entry.handler(self, step.args, screen)
        except HarnessError as exc:
            duration = time.perf_counter() - started
            log.info("step %s failed: %s: %s", step.action, exc.kind, exc)
            return StepResult(
                success=False,
                error=str(exc),
                error_kind=exc.kind,
                error_category=exc.category,
                retryable=exc.transient and self.is_idempotent(step.action),
                duration=duration,
            )
        except Exception as exc:
            duration = time.perf_counter() - started
            log.exception("step %s raised an unexpected %s", step.action, type(exc).__name__)
            return StepResult(
                success=False,
                error=f"unexpected {type(exc).__name__}: {exc}",
                error_kind=type(exc).__name__,
                error_category="internal",
                duration=duration,
            )
        return StepResult(success=True, output=output, duration=time.perf_counter() - started)
