"""``swipe``: swipe a direction across the screen, or from one point to another."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import StepArgumentError
from ..core.models import Scene
from ..drivers.base import MAX_GESTURE, Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import MAX_COORDINATE, Choice, Number, Seconds
from .targets import latest_scene, on_the_screen

__all__ = ["ACTION", "DIRECTIONS", "SWIPE_DIRECTIONS", "swipe_points"]

# Where a ``swipe`` with a ``direction`` starts and ends, as fractions of the window (x1, y1, x2, y2).
SWIPE_DIRECTIONS = {
    "up": (0.5, 0.75, 0.5, 0.25),
    "down": (0.5, 0.25, 0.5, 0.75),
    "left": (0.8, 0.5, 0.2, 0.5),
    "right": (0.2, 0.5, 0.8, 0.5),
}
DIRECTIONS: tuple[str, ...] = tuple(SWIPE_DIRECTIONS)
_ENDS = ("x1", "y1", "x2", "y2")


def swipe_points(scene: Scene, direction: str) -> tuple[int, int, int, int]:
    width, height = scene.window_size
    fx1, fy1, fx2, fy2 = SWIPE_DIRECTIONS[direction]
    return round(fx1 * width), round(fy1 * height), round(fx2 * width), round(fy2 * height)


def _direction_or_points(args: dict[str, Any]) -> None:
    ends = [k for k in _ENDS if k in args]
    if "direction" in args and ends:
        raise StepArgumentError("give a direction or x1, y1, x2 and y2, not both", argument=ends[0])
    if "direction" not in args and len(ends) != len(_ENDS):
        missing = [k for k in _ENDS if k not in args]
        raise StepArgumentError(
            "needs a direction (up, down, left, right) or all of x1, y1, x2, y2", argument=missing[0]
        )


def _swipe(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    if "direction" in args:
        x1, y1, x2, y2 = swipe_points(latest_scene(screen), args["direction"])
    else:
        on_the_screen(screen, ("x1", "y1", args["x1"], args["y1"]), ("x2", "y2", args["x2"], args["y2"]))
        x1, y1, x2, y2 = (round(args[k]) for k in _ENDS)
    driver.swipe(x1, y1, x2, y2, args["duration"])
    return {"from": [x1, y1], "to": [x2, y2], "duration": args["duration"]}


_COORDINATE = Number(0, MAX_COORDINATE)
ACTION = Action(
    "swipe",
    "swipe",
    _swipe,
    params=(
        Param("direction", Choice(DIRECTIONS), "the way the finger moves"),
        Param("x1", _COORDINATE, "start x in screen pixels; instead of direction"),
        Param("y1", _COORDINATE, "start y"),
        Param("x2", _COORDINATE, "end x"),
        Param("y2", _COORDINATE, "end y"),
        Param("duration", Seconds(MAX_GESTURE), "seconds the swipe takes", default=0.3),
    ),
    changes_screen=True,
    flow=FlowForm("swipe", short="direction"),
    check=_direction_or_points,
    note="Give direction, or x1, y1, x2 and y2.",
)
