"""``set_dark_mode``: switch the system appearance to dark or light (Maestro's ``setDarkMode``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .airplane import SWITCH
from .base import Action, FlowForm, MaestroForm, Param, Screen


def _set(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.set_dark_mode(args["value"] == "enabled")
    return {"dark_mode": args["value"]}


ACTION = Action(
    "set_dark_mode",
    "switch the system appearance to dark (enabled) or light (disabled)",
    _set,
    params=(Param("value", SWITCH, "enabled or disabled", required=True),),
    idempotent=True,
    changes_screen=True,
    flow=FlowForm("set_dark_mode", short="value"),
    maestro=(MaestroForm("setDarkMode", short="value", options={"value": "value"}),),
    offered=False,  # flows only: a device-state switch a test sets up
)
