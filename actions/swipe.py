"""``swipe``: swipe a direction across the screen, or from one point to another."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import StepArgumentError
from ..core.models import Scene
from ..drivers.base import MAX_GESTURE, Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import MAX_COORDINATE, Choice, Number, Seconds, SelectorKind, Text
from .targets import at_point, latest_scene, on_the_screen, wait_target
from .waiting import WAIT_PARAMS

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


# Where a swipe ``from`` an element ends, as a fraction of the window along the direction (Maestro:
# 10 % / 90 % of the screen, client/drivers/AndroidDriver.kt:447-472).
_EDGE = {"up": 0.1, "down": 0.9, "left": 0.1, "right": 0.9}


def _direction_or_points(args: dict[str, Any]) -> None:
    ends = [k for k in _ENDS if k in args]
    spans = [k for k in ("start", "end") if k in args]
    given = sum(bool(x) for x in ("direction" in args, ends, spans))
    if given > 1:
        raise StepArgumentError(
            "give one of: a direction, x1, y1, x2 and y2, or start and end", argument=(ends or spans)[0]
        )
    if ends and len(ends) != len(_ENDS):
        missing = [k for k in _ENDS if k not in args]
        raise StepArgumentError("needs all of x1, y1, x2, y2", argument=missing[0])
    if spans and len(spans) != 2:
        raise StepArgumentError("needs both start and end", argument="end" if "start" in args else "start")
    if not given:
        raise StepArgumentError(
            "needs a direction (up, down, left, right), all of x1, y1, x2, y2, or start and end",
            argument="direction",
        )
    for key in ("start", "end"):
        if key in args:
            at_point(args[key], None, key)
    if "from" in args and "direction" not in args:
        raise StepArgumentError("a swipe from an element needs a direction", argument="from")
    if "from" not in args:
        args.pop("timeout", None)
        args.pop("interval", None)


def _swipe(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    about: dict[str, Any] = {}
    if "from" in args:
        found = wait_target(args, screen, "from")
        width, height = found.window
        x1, y1 = found.point
        edge = _EDGE[args["direction"]]
        x2, y2 = (
            (x1, round(edge * height)) if args["direction"] in ("up", "down") else (round(edge * width), y1)
        )
        about = {"found": found.to_dict()["found"]}
    elif "direction" in args:
        x1, y1, x2, y2 = swipe_points(latest_scene(screen), args["direction"])
    elif "start" in args:
        window = latest_scene(screen).window
        (x1, y1), (x2, y2) = at_point(args["start"], window, "start"), at_point(args["end"], window, "end")
    else:
        on_the_screen(screen, ("x1", "y1", args["x1"], args["y1"]), ("x2", "y2", args["x2"], args["y2"]))
        x1, y1, x2, y2 = (round(args[k]) for k in _ENDS)
    driver.swipe(x1, y1, x2, y2, args["duration"])
    return {"from": [x1, y1], "to": [x2, y2], "duration": args["duration"], **about}


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
        Param(
            "start", Text(max_length=40), "where the finger starts: 'x,y' in pixels or 'x%,y%'", agents=False
        ),
        Param("end", Text(max_length=40), "where it ends: 'x,y' in pixels or 'x%,y%'", agents=False),
        Param(
            "from",
            SelectorKind(),
            "an element to start from (with direction: to 10 % / 90 % of the screen)",
            agents=False,
        ),
        Param("duration", Seconds(MAX_GESTURE), "seconds the swipe takes", default=0.3),
        *WAIT_PARAMS,
    ),
    changes_screen=True,
    flow=FlowForm("swipe", short="direction"),
    check=_direction_or_points,
    note="Give direction (from an element or not), x1, y1, x2 and y2, or start and end.",
    maestro=(
        MaestroForm(
            "swipe",
            options={
                "direction": "direction",
                "start": "start",
                "end": "end",
                "from": "from",
                "duration": "duration",
                "waitToSettleTimeoutMs": "settle",
            },
            millis=frozenset({"duration", "waitToSettleTimeoutMs"}),
            fixed={"duration": 0.4},
            note="a direction alone swipes Maestro's Android path (UP: 50 %,50 % to 50 %,10 %) on both "
            "platforms; Maestro's iOS UP starts at 90 %",
        ),
        MaestroForm(
            "scroll",
            bare=True,
            fixed={"start": "50%,50%", "end": "50%,10%", "duration": 0.4},
        ),
    ),
)
