"""``travel``: move the device's position along points at a speed (Maestro's ``travel``).

Maestro's pace (``orchestra/geo/Traveller.kt``): the first point is set, then each leg is cut
into 50 steps, each a position set and a pause of (the leg's length / speed) / 50; the speed is
in metres per second, 4 when the flow gives none (``Orchestra.kt``). The leg's length is computed
as Maestro computes it (``TravelCommand.GeoPoint.getDistanceInMeters``, which converts degrees to
radians twice, so its lengths and pauses are far shorter than the real distance; a flow waits here
as long as it waits under Maestro). The pauses are the task's (``Screen.pause``): Ctrl-C ends the
travel at once."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import StepArgumentError
from ..drivers.base import Driver, location
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Number
from .set_location import ACTION as SET_LOCATION

STEPS = 50
DEFAULT_SPEED = 4.0  # metres per second
MAX_POINTS = 1000
MAX_TRAVEL = 3600.0  # seconds a travel may take in all


@dataclass(frozen=True)
class Points:
    """At least one position: ``"lat,lon"`` strings (Maestro's form) or ``[lat, lon]`` pairs."""

    def check(self, value: Any, name: str) -> Any:
        if not isinstance(value, list | tuple) or not value or len(value) > MAX_POINTS:
            raise StepArgumentError(
                f"argument {name!r} must be a list of 1 to {MAX_POINTS} points", argument=name
            )
        points = []
        for item in value:
            pair = item.split(",") if isinstance(item, str) else item
            try:
                if not isinstance(pair, list | tuple) or len(pair) != 2:
                    raise ValueError
                lat, lon = (float(p) if isinstance(p, str) else p for p in pair)
                points.append(list(location(lat, lon)))
            except (ValueError, StepArgumentError):
                raise StepArgumentError(
                    f"Invalid travel point: {item!r:.80} (latitude,longitude)", argument=name
                ) from None
        return points

    def schema(self) -> dict[str, Any]:
        return {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_POINTS}


def maestro_distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Metres between two points as Maestro's ``getDistanceInMeters`` computes them (its double
    degree-to-radian conversion kept: it decides Maestro's pace)."""
    o_lat, o_lon, a_lat, a_lon = (math.radians(v) for v in (*a, *b))
    d_lat, d_lon = math.radians(a_lat - o_lat), math.radians(a_lon - o_lon)
    h = (
        math.sin(d_lat / 2) ** 2
        + math.cos(math.radians(o_lat)) * math.cos(math.radians(a_lat)) * math.sin(d_lon / 2) ** 2
    )
    return 6371 * 2 * math.atan2(math.sqrt(h), math.sqrt(1 - h)) * 1000


def pauses(points: list[list[float]], speed: float) -> list[float]:
    """Seconds of each leg's pause between steps (Maestro sleeps whole milliseconds)."""
    legs = itertools.pairwise(points)
    return [math.floor(maestro_distance(tuple(a), tuple(b)) / speed * 1000) // STEPS / 1000 for a, b in legs]  # type: ignore[arg-type]


def _check(args: dict[str, Any]) -> None:
    total = sum(pauses(args["points"], args["speed"])) * STEPS
    if total > MAX_TRAVEL:
        raise StepArgumentError(
            f"travel would take {total:.0f} s at {args['speed']:g} m/s; at most {MAX_TRAVEL:g} s",
            argument="speed",
        )


def _travel(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    points, speed = args["points"], args["speed"]
    driver.set_location(*points[0])
    for (a, b), pause in zip(itertools.pairwise(points), pauses(points, speed), strict=True):
        for i in range(1, STEPS + 1):
            driver.set_location(a[0] + (b[0] - a[0]) / STEPS * i, a[1] + (b[1] - a[1]) / STEPS * i)
            screen.pause(pause)
    return {"points": len(points), "speed": speed}


ACTION = Action(
    "travel",
    "move the device's position along points at a speed",
    _travel,
    params=(
        Param("points", Points(), "positions, each 'latitude,longitude'", required=True),
        Param("speed", Number(0, 1e9, open_low=True), "metres per second", default=DEFAULT_SPEED),
    ),
    looks_after=False,
    check=_check,
    flow=FlowForm("travel", written="`{points*, speed}`"),
    maestro=(MaestroForm("travel", options={"points": "points", "speed": "speed"}),),
    unsupported=SET_LOCATION.unsupported,
    offered=False,
)
