"""``toggle_airplane_mode``: switch airplane mode to the other state (Maestro's
``toggleAirplaneMode``: it reads the state, then sets the other one, ``Orchestra.kt``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .airplane import AIRPLANE_UNSUPPORTED
from .base import Action, FlowForm, MaestroForm, Screen


def _toggle(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    enabled = not driver.airplane_mode()
    driver.set_airplane_mode(enabled)
    return {"airplane_mode": "enabled" if enabled else "disabled"}


ACTION = Action(
    "toggle_airplane_mode",
    "switch airplane mode to the other state",
    _toggle,
    looks_after=False,
    flow=FlowForm("toggle_airplane_mode", bare=True),
    maestro=(MaestroForm("toggleAirplaneMode", bare=True),),
    unsupported=AIRPLANE_UNSUPPORTED,
    offered=False,
)
