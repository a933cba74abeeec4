"""The steps that look and report: ``wait_for``, ``assert_visible``, ``assert_not_visible`` and
``assert_app``, each polling fresh observations through the task's :class:`~.step_args.Screen` up to
its timeout (:mod:`amc.runtime.waiting`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.errors import AssertionFailed, HarnessError, TargetNotFound
from ..core.models import Scene
from ..core.selectors import Selector
from .step_args import Screen, app_id_arg, needs_selector
from .waiting import on_screen, poll, timeout_of

if TYPE_CHECKING:
    from .executor import Executor

__all__ = ["assert_app", "assert_not_visible", "assert_visible", "wait_for"]


def _found(selector: Selector) -> Callable[[Scene], Any]:
    def check(scene: Scene) -> Any:
        found = selector.find_all(scene)
        if not found:
            return None
        return {"found": found[0].display_text or found[0].identifier or found[0].type}

    return check


def _until(
    screen: Screen,
    args: Mapping[str, Any],
    check: Callable[[Scene], Any],
    default_timeout: float,
    failure: Callable[[int, Scene], HarnessError],
) -> Any:
    """What ``check`` found, with the number of observations it took; ``failure(polls, last
    scene)`` raised when the step's timeout passed first."""
    found, polls, scene = poll(screen, args, check, default_timeout=default_timeout)
    if found is None:
        raise failure(polls, scene)
    return {**found, "polls": polls}


def wait_for(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = needs_selector(args)
    return _until(
        screen,
        args,
        _found(selector),
        10.0,
        lambda polls, scene: TargetNotFound(
            f"{selector.describe()} did not appear within {timeout_of(args, 10.0):g} s "
            f"({polls} observations; {on_screen(scene)})",
            hint="the screen may be slower than expected; raise the timeout or check the selector",
        ),
    )


def assert_visible(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = needs_selector(args)
    return _until(
        screen,
        args,
        _found(selector),
        0.0,
        lambda polls, scene: AssertionFailed(
            f"expected {selector.describe()} on screen, but it is not there after {polls} new "
            f"observation(s) ({on_screen(scene)})",
            hint="compare with `amc inspect`; raise the step's timeout if the screen is slow",
        ),
    )


def assert_not_visible(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    selector = needs_selector(args)

    def absent(scene: Scene) -> Any:
        return None if selector.find_all(scene) else {"absent": True}

    return _until(
        screen,
        args,
        absent,
        0.0,
        lambda polls, scene: AssertionFailed(
            f"expected {selector.describe()} to be gone, but it is still on screen after {polls} new "
            f"observation(s) ({on_screen(scene)})",
            hint="raise the step's timeout if the screen is slow to change",
        ),
    )


def assert_app(ex: Executor, args: Mapping[str, Any], screen: Screen) -> Any:
    expected = app_id_arg(args)
    seen: list[str | None] = []

    def in_front(scene: Scene) -> Any:
        app = scene.foreground_app
        if app is None:  # the backend did not say: ask the device directly
            app = ex.driver.current_app()
        seen.append(app)
        return {"app": app} if app == expected else None

    return _until(
        screen,
        args,
        in_front,
        0.0,
        lambda _polls, _scene: AssertionFailed(
            f"expected {expected} in front, but the device shows {seen[-1] or 'the home screen'}",
            hint="a launch may have failed or another app (or a system dialog) took the foreground",
        ),
    )
