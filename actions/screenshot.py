"""``screenshot``: capture the screen (a run keeps the picture in its folder)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, Param, Screen
from .kinds import Text


def _screenshot(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    return driver.screenshot()


ACTION = Action(
    "screenshot",
    "capture the screen",
    _screenshot,
    params=(Param("name", Text(max_length=200), "a name for the picture in the run folder"),),
    idempotent=True,
    flow=FlowForm("screenshot", short="name", bare=True),
)
