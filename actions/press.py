"""``press``: press a key by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import KEYS, Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import Choice


def _press(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.press(args["key"])
    return None


ACTION = Action(
    "press",
    "press a key (home, back, enter …)",
    _press,
    params=(Param("key", Choice(KEYS), "the key to press", required=True),),
    changes_screen=True,
    flow=FlowForm("press", short="key"),
)
