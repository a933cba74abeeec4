"""``set_airplane_mode``: turn airplane mode on or off (Maestro's ``setAirplaneMode``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .airplane import AIRPLANE_UNSUPPORTED, SWITCH
from .base import Action, FlowForm, MaestroForm, Param, Screen


def _set(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.set_airplane_mode(args["value"] == "enabled")
    return {"airplane_mode": args["value"]}


ACTION = Action(
    "set_airplane_mode",
    "turn airplane mode on or off",
    _set,
    params=(Param("value", SWITCH, "enabled or disabled", required=True),),
    idempotent=True,
    looks_after=False,
    flow=FlowForm("set_airplane_mode", short="value"),
    maestro=(MaestroForm("setAirplaneMode", short="value", options={"value": "value"}),),
    unsupported=AIRPLANE_UNSUPPORTED,
    offered=False,  # flows only: a device-state switch a test sets up, not a step an agent needs
)
