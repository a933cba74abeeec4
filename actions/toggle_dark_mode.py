"""``toggle_dark_mode``: switch the system appearance to the other one (Maestro's
``toggleDarkMode``: it reads the state, then sets the other, ``Orchestra.kt``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Screen


def _toggle(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    dark = not driver.dark_mode()
    driver.set_dark_mode(dark)
    return {"dark_mode": "enabled" if dark else "disabled"}


ACTION = Action(
    "toggle_dark_mode",
    "switch the system appearance to the other one",
    _toggle,
    changes_screen=True,
    flow=FlowForm("toggle_dark_mode", bare=True),
    maestro=(MaestroForm("toggleDarkMode", bare=True),),
    offered=False,
)
