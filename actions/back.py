"""``back``: Android's back key; on iOS, which has none, nothing (as Maestro's ``back`` does there:
``client/drivers/IOSDriver.kt:369``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Screen


def _back(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    if driver.platform == "ios":
        return {"pressed": False, "why": "iOS has no back key; nothing was sent (as in Maestro)"}
    driver.press("back")
    return {"pressed": True}


ACTION = Action(
    "back",
    "press Android's back key (nothing on iOS)",
    _back,
    changes_screen=True,
    flow=FlowForm("back", bare=True),
    maestro=(
        MaestroForm("back", bare=True, note="does nothing on iOS, as in Maestro (iOS has no back key)"),
    ),
    offered=False,  # flows only: an agent has press back / type_text for it, or no use
)
