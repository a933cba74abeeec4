"""``clear_keychain``: reset the iOS keychain (Maestro's ``clearKeychain``; one keychain for every
app, as ``simctl keychain reset`` has no per-app form). Android has none: nothing to do, as in
Maestro."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..drivers.base import Driver
from .base import Action, FlowForm, MaestroForm, Screen
from .permits import PHONE_KEYCHAIN


def _clear(driver: Driver, args: Mapping[str, Any], screen: Screen) -> Any:
    if driver.platform == "android":
        return {"note": "Android has no keychain (nothing to do, as in Maestro)"}
    driver.clear_keychain()
    return None


ACTION = Action(
    "clear_keychain",
    "reset the iOS keychain",
    _clear,
    idempotent=True,
    flow=FlowForm("clear_keychain", bare=True),
    maestro=(MaestroForm("clearKeychain", bare=True),),
    unsupported=(PHONE_KEYCHAIN,),
    offered=False,  # flows only
)
