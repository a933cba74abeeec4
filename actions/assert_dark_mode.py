"""``assert_dark_mode``: check the system appearance (Maestro's ``assertDarkMode`` and
``assertLightMode``; their failure says what Maestro's ``assertDarkMode`` says, ``Orchestra.kt``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import AssertionFailed
from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Param, Screen
from .kinds import Flag


def _check(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    expected, actual = args["dark"], driver.dark_mode()
    if actual != expected:
        raise AssertionFailed(
            f"Assertion failed: expected dark mode to be {'enabled' if expected else 'disabled'}, but it "
            f"was {'enabled' if actual else 'disabled'}",
            hint="use set_dark_mode or toggle_dark_mode before this check",
        )
    return {"dark_mode": "enabled" if actual else "disabled"}


ACTION = Action(
    "assert_dark_mode",
    "check that the system appearance is dark (or light, with dark: false)",
    _check,
    params=(Param("dark", Flag(), "true: dark mode is expected; false: light mode", default=True),),
    idempotent=True,
    looks_after=False,
    flow=FlowForm("assert_dark_mode", bare=True),
    maestro=(
        MaestroForm("assertDarkMode", bare=True, fixed={"dark": True}),
        MaestroForm("assertLightMode", bare=True, fixed={"dark": False}),
    ),
    offered=False,
)
