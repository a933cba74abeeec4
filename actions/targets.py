"""What the actions that act on an element share: its selector, waiting for it, the point to touch,
and what a step records of the element it acted on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import StepArgumentError, TargetNotFound
from ..core.models import Scene
from ..core.selectors import Selector
from .base import Param, Screen
from .kinds import MAX_COORDINATE, Number, SelectorKind
from .waiting import Found, on_screen, poll, target_check

__all__ = [
    "POINT",
    "TARGET",
    "acted_on",
    "describe_scene",
    "latest_scene",
    "on_the_screen",
    "point",
    "point_or_target",
    "selector_of",
    "wait_target",
]

TARGET = Param(
    "target",
    SelectorKind(),
    'the element: the `target` the screen lists for it, e.g. {"text": "Wi-Fi"}',
    inline=True,
)
_COORDINATE = "in screen pixels, as element bounds are"
POINT: tuple[Param, ...] = (
    Param("x", Number(0, MAX_COORDINATE), f"x {_COORDINATE}; with y, instead of target"),
    Param("y", Number(0, MAX_COORDINATE), f"y {_COORDINATE}; with x, instead of target"),
)


def point_or_target(args: dict[str, Any]) -> None:
    """The check of an action that acts on a point or an element: both coordinates, or a selector,
    not both; a wait (timeout) only with a selector."""
    has_point = "x" in args or "y" in args
    if has_point and ("x" not in args or "y" not in args):
        raise StepArgumentError("give both x and y, or a target", argument="x" if "x" not in args else "y")
    if has_point and "target" in args:
        raise StepArgumentError("give either a point (x and y) or a target, not both", argument="target")
    if not has_point and "target" not in args:
        raise StepArgumentError("needs either x and y, or a target (a selector)", argument="target")
    if has_point:
        args.pop("timeout", None)  # a point is not looked for
        args.pop("interval", None)


def selector_of(args: Mapping[str, Any], key: str = "target") -> Selector:
    """The selector a checked step names under ``key``."""
    return Selector.from_mapping(args[key])


def latest_scene(screen: Screen) -> Scene:
    latest = screen.latest
    if latest is None:
        raise TargetNotFound("no screen has been observed yet, so a selector cannot be resolved")
    return latest.scene


def wait_target(args: Mapping[str, Any], screen: Screen, key: str = "target") -> Found:
    """The step's target, waited for up to its ``timeout``."""
    selector = selector_of(args, key)
    problems: list[str] = []
    found, polls, scene = poll(screen, args, target_check(selector, problems))
    if found is None:
        timeout = float(args.get("timeout", 0.0))
        waited = f"within {timeout:g} s ({polls} observations)" if timeout else "on the current screen"
        why = f"; {problems[-1]}" if problems else ""
        raise TargetNotFound(
            f"{selector.describe()} did not appear {waited}{why} ({on_screen(scene)})",
            hint="check the selector against `amc inspect`; raise the step's timeout if the screen is slow",
        )
    assert isinstance(found, Found)
    return found


def acted_on(found: Found) -> dict[str, Any]:
    """What a step records of the element it acted on: what it reads, its bounds and the window
    they are in (device units), so a report can outline it on the screen's picture."""
    return {
        "found": found.to_dict()["found"],
        "bounds": found.element.bounds.to_dict(),
        "window": list(found.window),
    }


def on_the_screen(screen: Screen, *points: tuple[str, str, float, float]) -> None:
    """Refuse a point outside the latest screen's window (``(x name, y name, x, y)`` each): a tap
    at x 5000 on a 1080-wide phone is a mistake, not a gesture. Before any look, nothing to check."""
    latest = screen.latest
    if latest is None:
        return
    width, height = latest.scene.window_size
    if width <= 0 or height <= 0:
        return
    for x_name, y_name, x, y in points:
        if not (0 <= x < width):
            raise StepArgumentError(
                f"argument {x_name!r} ({x:g}) is outside the screen, which is {width} wide", argument=x_name
            )
        if not (0 <= y < height):
            raise StepArgumentError(
                f"argument {y_name!r} ({y:g}) is outside the screen, which is {height} high", argument=y_name
            )


def point(args: Mapping[str, Any], screen: Screen) -> tuple[tuple[int, int], dict[str, Any]]:
    """Where to act, and (for a target, waited for) the element there as :func:`acted_on` says."""
    if "x" in args:
        on_the_screen(screen, ("x", "y", args["x"], args["y"]))
        return (round(args["x"]), round(args["y"])), {}
    found = wait_target(args, screen)
    return found.point, acted_on(found)


def describe_scene(scene: Scene, limit: int = 40) -> str:
    """A short plain-text description of a Scene: app, activity and the visible texts."""
    texts = scene.texts()
    shown = ", ".join(repr(t) for t in texts[:limit])
    more = f" and {len(texts) - limit} more" if len(texts) > limit else ""
    where = scene.foreground_app or "unknown app"
    if scene.activity:
        where += f" ({scene.activity})"
    return f"{scene.platform} {scene.device_id}: {where}; {len(scene)} elements; texts: {shown}{more}"
