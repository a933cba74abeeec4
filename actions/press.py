"""``press``: press a key by name."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ..drivers.base import KEYS, Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Choice

__all__ = ["ACTION", "MAESTRO_KEYS", "MAESTRO_OTHER_KEYS"]

# Maestro's pressKey names (client/KeyCode.kt:7-43, matched without regard to case) and the key each
# presses here; Backspace is erase_text's single character (amc.flows.maestro reads it so).
MAESTRO_KEYS: Mapping[str, str] = MappingProxyType(
    {
        "enter": "enter",
        "back": "back",
        "home": "home",
        "lock": "power",
        "power": "power",
        "volume up": "volume_up",
        "volume down": "volume_down",
        "backspace": "backspace",
    }
)
# Maestro's other key names: a flow may name them, no backend here presses them.
MAESTRO_OTHER_KEYS: frozenset[str] = frozenset(
    {
        "escape",
        "tab",
        "remote dpad up",
        "remote dpad down",
        "remote dpad left",
        "remote dpad right",
        "remote dpad center",
        "remote media play pause",
        "remote media stop",
        "remote media next",
        "remote media previous",
        "remote media rewind",
        "remote media fast forward",
        "remote system navigation up",
        "remote system navigation down",
        "remote button a",
        "remote button b",
        "remote menu",
        "tv input",
        "tv input hdmi 1",
        "tv input hdmi 2",
        "tv input hdmi 3",
    }
)


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
    maestro=(
        MaestroForm(
            "pressKey",
            short="key",
            options={"key": "key"},
            note="Enter, Back, Home, Lock (the power key), Power, Volume Up, Volume Down; Backspace "
            "erases a character; Maestro's TV remote keys, Tab and Escape are refused before the run",
        ),
    ),
)
