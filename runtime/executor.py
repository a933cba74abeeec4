"""The executor: runs one PlannedStep on a Driver and reports a StepResult, never an exception.

Actions are dispatched through a table (:data:`ACTIONS`) from name to handler. Each entry says
which arguments the action takes and whether repeating it is safe (``idempotent``): the task
loop only repeats a step after a transient device error when it is. Selectors in a step are
resolved against the task's latest observation, so finding a target costs no device request;
steps that wait for the screen (``wait_for``, the asserts) look again through the task's
:class:`Screen` (the runner's observer), never by asking the driver themselves.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.durations import check_seconds
from ..core.errors import AssertionFailed, ConfigError, HarnessError, StepArgumentError, TargetNotFound
from ..core.models import PlannedStep, Scene, StepResult, UIElement
from ..core.selectors import Selector, tap_point
from ..core.steps import APP_ID_KEYS, SELECTOR_KEYS, app_id_from_args
from ..drivers.base import Driver, gesture_seconds
from ..semantic.models import Observation
from ..world.models import WorldState

__all__ = [
    "ACTIONS",
    "MAX_WAIT",
    "SWIPE_DIRECTIONS",
    "Action",
    "Executor",
    "Screen",
    "describe_scene",
]

log = logging.getLogger(__name__)


class Screen(Protocol):
    """What a step sees of the device: the latest observation and a way to look again.

    :class:`amc.runtime.observer.Observer` is the one implementation the task loop uses.
    """

    @property
    def latest(self) -> Observation | None: ...

    @property
    def world(self) -> WorldState | None: ...

    def observe(self) -> Observation: ...


COMMON_KEYS = frozenset({"remember", "secret"})
MAX_WAIT = 300.0  # the longest a step may wait for the screen


@dataclass(frozen=True)
class Action:
    """One entry of the action table."""

    handler: Callable[[Executor, Mapping[str, Any], Screen], Any]
    keys: frozenset[str]
    idempotent: bool
    summary: str


# --- argument helpers -----------------------------------------------------------------------


def _number(args: Mapping[str, Any], name: str, *, default: float | None = None) -> float:
    value = args.get(name, default)
    if value is None:
        raise StepArgumentError(f"missing argument {name!r}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StepArgumentError(f"argument {name!r} must be a number, got {value!r}")
    if value != value or value in (float("inf"), float("-inf")):
        raise StepArgumentError(f"argument {name!r} must be a finite number, got {value!r}")
    return float(value)


def _string(args: Mapping[str, Any], name: str, *, allow_empty: bool = False) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise StepArgumentError(f"argument {name!r} must be a string, got {value!r}")
    if not allow_empty and not value.strip():
        raise StepArgumentError(f"argument {name!r} must not be empty")
    return value


def _app_id(args: Mapping[str, Any]) -> str:
    app_id = app_id_from_args(args)
    if app_id is None:
        raise StepArgumentError(f"needs the app to act on as one of {', '.join(APP_ID_KEYS)}")
    return app_id


def _selector(args: Mapping[str, Any], *, key: str = "target", inline: bool = True) -> Selector | None:
    """The selector a step names under ``target`` (or, with ``inline``, as top-level fields)."""
    try:
        if key in args:
            return Selector.from_mapping(args[key])
        if inline:
            fields = {k: v for k, v in args.items() if k in SELECTOR_KEYS}
            if fields:
                return Selector.from_mapping(fields)
    except ConfigError as exc:
        raise StepArgumentError(f"bad selector: {exc.message}") from exc
    return None


def _latest(screen: Screen) -> Scene:
    latest = screen.latest
    if latest is None:
        raise TargetNotFound("no screen has been observed yet, so a selector cannot be resolved")
    return latest.scene


def describe_scene(scene: Scene, limit: int = 40) -> str:
    """A short plain-text description of a Scene: app, activity and the visible texts."""
    texts = scene.texts()
    shown = ", ".join(repr(t) for t in texts[:limit])
    more = f" and {len(texts) - limit} more" if len(texts) > limit else ""
    where = scene.foreground_app or "unknown app"
    if scene.activity:
        where += f" ({scene.activity})"
    return f"{scene.platform} {scene.device_id}: {where}; {len(scene)} elements; texts: {shown}{more}"


# --- handlers -------------------------------------------------------------------------------


def _launch_app(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.launch_app(_app_id(args))
    return None


def _terminate_app(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.terminate_app(_app_id(args))
    return None


def _acted_on(element: UIElement, scene: Scene) -> dict[str, Any]:
    """What a step records of the element it acted on: its bounds and the window they are in
    (device units), so a report can outline it on the screen's picture."""
    return {"bounds": element.bounds.to_dict(), "window": list(scene.window_size)}


def _point(args: Mapping[str, Any], screen: Screen) -> tuple[int, int, dict[str, Any]]:
    """Where to act, and (for a selector) the element there as :func:`_acted_on` records it."""
    if "x" in args or "y" in args:
        return round(_number(args, "x")), round(_number(args, "y")), {}
    selector = _selector(args)
    if selector is None:
        raise StepArgumentError("needs either x and y, or a selector (target / text / id / label …)")
    scene = _latest(screen)
    element = selector.resolve(scene)
    x, y = tap_point(element, scene.window)
    return x, y, _acted_on(element, scene)


def _tap(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    x, y, element = _point(args, screen)
    ex.driver.tap(x, y)
    return {"x": x, "y": y, **element}


def _seconds(
    args: Mapping[str, Any], name: str, *, default: float, maximum: float, above_zero: bool = False
) -> float:
    """A step's duration in seconds, by the one rule (:func:`amc.core.durations.check_seconds`)."""
    return check_seconds(
        args.get(name, default),
        f"argument {name!r}",
        maximum=maximum,
        above_zero=above_zero,
        error=StepArgumentError,
    )


def _long_press(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    duration = gesture_seconds(args.get("duration", 1.0), "argument 'duration'", held=True)
    x, y, element = _point(args, screen)
    ex.driver.long_press(x, y, duration)
    return {"x": x, "y": y, "duration": duration, **element}


def _type_text(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    text = _string(args, "text", allow_empty=True)
    selector = _selector(args, inline=False)
    element: dict[str, Any] = {}
    if selector is not None:
        scene = _latest(screen)
        target = selector.resolve(scene)
        x, y = tap_point(target, scene.window)
        ex.driver.tap(x, y)
        element = _acted_on(target, scene)
    ex.driver.type_text(text)
    return {"length": len(text), **element}


# Where a ``swipe`` with a ``direction`` starts and ends, as fractions of the window (x1, y1, x2, y2).
SWIPE_DIRECTIONS = {
    "up": (0.5, 0.75, 0.5, 0.25),
    "down": (0.5, 0.25, 0.5, 0.75),
    "left": (0.8, 0.5, 0.2, 0.5),
    "right": (0.2, 0.5, 0.8, 0.5),
}


def _swipe(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    duration = gesture_seconds(args.get("duration", 0.3), "argument 'duration'", held=False)
    if "direction" in args:
        direction = args["direction"]
        if direction not in SWIPE_DIRECTIONS:
            raise StepArgumentError(
                f"argument 'direction' must be one of {', '.join(SWIPE_DIRECTIONS)}, got {direction!r}"
            )
        scene = _latest(screen)
        width, height = scene.window_size
        fx1, fy1, fx2, fy2 = SWIPE_DIRECTIONS[direction]
        x1, y1, x2, y2 = round(fx1 * width), round(fy1 * height), round(fx2 * width), round(fy2 * height)
    else:
        x1, y1, x2, y2 = (round(_number(args, name)) for name in ("x1", "y1", "x2", "y2"))
    ex.driver.swipe(x1, y1, x2, y2, duration)
    return {"from": [x1, y1], "to": [x2, y2], "duration": duration}


def _press(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    ex.driver.press(_string(args, "key"))
    return None


def _describe_screen(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    latest = screen.latest or screen.observe()
    return describe_scene(latest.scene)


def _screenshot(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    if "name" in args:
        _string(args, "name")
    return ex.driver.screenshot()


def _timeout(args: Mapping[str, Any], default: float) -> float:
    return _seconds(args, "timeout", default=default, maximum=MAX_WAIT)


def _interval(args: Mapping[str, Any], timeout: float) -> float:
    interval = _seconds(args, "interval", default=0.5, maximum=MAX_WAIT, above_zero=True)
    return min(interval, max(timeout, 0.01))


def _poll(
    screen: Screen,
    args: Mapping[str, Any],
    check: Callable[[Scene], Any],
    *,
    default_timeout: float,
) -> tuple[Any, int, Scene]:
    """Run ``check`` on the latest Scene, then on fresh observations (each one look through the
    screen), until it returns something other than None or ``timeout`` seconds have passed
    (bounded: at most one observation per ``interval``). Returns (what check returned or None,
    observations made, last Scene)."""
    timeout = _timeout(args, default_timeout)
    interval = _interval(args, timeout)
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


def _needs_selector(args: Mapping[str, Any]) -> Selector:
    selector = _selector(args)
    if selector is None:
        raise StepArgumentError("needs a selector (target / text / id / label …)")
    return selector


def _found(selector: Selector) -> Callable[[Scene], Any]:
    def check(scene: Scene) -> Any:
        found = selector.find_all(scene)
        if not found:
            return None
        return {"found": found[0].display_text or found[0].identifier or found[0].type}

    return check


def _wait_for(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = _needs_selector(args)
    found, polls, _scene = _poll(screen, args, _found(selector), default_timeout=10.0)
    if found is None:
        raise TargetNotFound(
            f"{selector.describe()} did not appear within {_timeout(args, 10.0):g} s ({polls} observations)",
            hint="the screen may be slower than expected; raise the timeout or check the selector",
        )
    return {**found, "polls": polls}


def _on_screen(scene: Scene, limit: int = 8) -> str:
    """Where the device was and what it showed, for an assertion's message."""
    texts = scene.texts()
    shown = ", ".join(repr(t) for t in texts[:limit]) + (" …" if len(texts) > limit else "")
    return f"app {scene.foreground_app or 'unknown'}, screen shows: {shown or 'no text'}"


def _assert_visible(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = _needs_selector(args)
    found, polls, scene = _poll(screen, args, _found(selector), default_timeout=0.0)
    if found is None:
        raise AssertionFailed(
            f"expected {selector.describe()} on screen, but it is not there after {polls} new "
            f"observation(s) ({_on_screen(scene)})",
            hint="compare with `amc inspect`; raise the step's timeout if the screen is slow",
        )
    return {**found, "polls": polls}


def _assert_not_visible(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = _needs_selector(args)

    def absent(scene: Scene) -> Any:
        return None if selector.find_all(scene) else {"absent": True}

    gone, polls, scene = _poll(screen, args, absent, default_timeout=0.0)
    if gone is None:
        raise AssertionFailed(
            f"expected {selector.describe()} to be gone, but it is still on screen after {polls} new "
            f"observation(s) ({_on_screen(scene)})",
            hint="raise the step's timeout if the screen is slow to change",
        )
    return {**gone, "polls": polls}


def _assert_app(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    expected = _app_id(args)
    seen: list[str | None] = []

    def in_front(scene: Scene) -> Any:
        app = scene.foreground_app
        if app is None:  # the backend did not say: ask the device directly
            app = ex.driver.current_app()
        seen.append(app)
        return {"app": app} if app == expected else None

    ok, polls, _scene = _poll(screen, args, in_front, default_timeout=0.0)
    if ok is None:
        raise AssertionFailed(
            f"expected {expected} in front, but the device shows {seen[-1] or 'the home screen'}",
            hint="a launch may have failed or another app (or a system dialog) took the foreground",
        )
    return {**ok, "polls": polls}


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
    reason = _string(args, "reason")
    skipped = args.get("skipped")
    if skipped is not None and not isinstance(skipped, str):
        raise StepArgumentError(f"argument 'skipped' must be the skipped action's name, got {skipped!r}")
    return {"skipped": skipped, "reason": reason}


_SEL = frozenset({"target"}) | SELECTOR_KEYS
_POLL = frozenset({"timeout", "interval"})
ACTIONS: dict[str, Action] = {
    "launch_app": Action(_launch_app, frozenset(APP_ID_KEYS), True, "bring an app to the foreground"),
    "terminate_app": Action(_terminate_app, frozenset(APP_ID_KEYS), True, "stop an app"),
    "tap": Action(_tap, frozenset({"x", "y"}) | _SEL, False, "tap a point or an element"),
    "long_press": Action(
        _long_press, frozenset({"x", "y", "duration"}) | _SEL, False, "touch and hold a point or an element"
    ),
    "type_text": Action(_type_text, frozenset({"text", "target"}), False, "type into the focused field"),
    "swipe": Action(_swipe, frozenset({"x1", "y1", "x2", "y2", "duration", "direction"}), False, "swipe"),
    "press": Action(_press, frozenset({"key"}), False, "press a key (home, back, enter …)"),
    "describe_screen": Action(_describe_screen, frozenset(), True, "describe the latest screen"),
    "screenshot": Action(_screenshot, frozenset({"name"}), True, "capture the screen"),
    "wait_for": Action(_wait_for, _POLL | _SEL, True, "wait until an element shows"),
    "assert_visible": Action(_assert_visible, _POLL | _SEL, True, "check that an element is on screen"),
    "assert_not_visible": Action(
        _assert_not_visible, _POLL | _SEL, True, "check that an element is not (or no longer) on screen"
    ),
    "assert_app": Action(
        _assert_app, _POLL | frozenset(APP_ID_KEYS), True, "check which app is in the foreground"
    ),
    "remember": Action(_remember, frozenset(), True, "store values in the world model's variables"),
    "skip": Action(_skip, frozenset({"reason", "skipped"}), True, "record a step a planner decided to skip"),
}


class Executor:
    """Runs steps on one driver through :data:`ACTIONS` (or a table you pass)."""

    def __init__(self, driver: Driver, actions: Mapping[str, Action] | None = None) -> None:
        self.driver = driver
        self.actions: Mapping[str, Action] = ACTIONS if actions is None else actions

    def is_idempotent(self, action: str) -> bool:
        entry = self.actions.get(action)
        return entry is not None and entry.idempotent

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
