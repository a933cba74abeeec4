"""``hide_keyboard``: hide the on-screen keyboard."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, Screen


def _hide(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    driver.hide_keyboard()
    return None


ACTION = Action(
    "hide_keyboard",
    "hide the on-screen keyboard",
    _hide,
    idempotent=True,
    changes_screen=True,
    flow=FlowForm("hide_keyboard", bare=True),
)
