"""``set_location``: make the device report a position (Maestro's ``setLocation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen, Unsupported
from .kinds import Number


def _set(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.set_location(args["latitude"], args["longitude"])
    return {"latitude": args["latitude"], "longitude": args["longitude"]}


ACTION = Action(
    "set_location",
    "make the device report a position",
    _set,
    params=(
        Param("latitude", Number(-90, 90), "degrees north (negative: south)", required=True),
        Param("longitude", Number(-180, 180), "degrees east (negative: west)", required=True),
    ),
    idempotent=True,
    flow=FlowForm("set_location", written="`{latitude*, longitude*}`"),
    maestro=(MaestroForm("setLocation", options={"latitude": "latitude", "longitude": "longitude"}),),
    unsupported=(
        Unsupported(
            "uiautomator2 cannot set an Android phone's position (it needs a mock-location app): "
            "run this flow over Appium or on the simulated device",
            backends=frozenset({"u2"}),
        ),
    ),
    offered=False,  # flows only: an agent has press back / type_text for it, or no use
)
